"""VecEnv: many ids per call, the same timesteps as one environment per id."""
import numpy as np
import pytest

import bsuite_rs
from bsuite_rs import sweep
from conftest import RandomAgent, run_random


def test_steps_like_one_environment_per_id():
  ids = ['deep_sea/0', 'deep_sea_stochastic/0', 'deep_sea_stochastic/0']
  vec = bsuite_rs.VecEnv(ids, env_seeds=[0, 0, 5])
  envs = [bsuite_rs.Environment(i, env_seed=s) for i, s in zip(ids, [0, 0, 5])]
  ends = 0
  assert vec.num_envs == len(vec) == 3 and vec.ids == tuple(ids)
  assert vec.observation_shape == (10, 10) and vec.num_actions == (2, 2, 2)
  obs, reward, discount, step_type = vec.reset()
  assert (obs.shape, obs.dtype) == ((3, 10, 10), np.float32)
  assert (reward.dtype, discount.dtype, step_type.dtype) == (np.float64, np.float64, np.int32)
  for k, env in enumerate(envs):
    assert np.array_equal(obs[k], env.reset().observation)
  assert list(step_type) == [0, 0, 0] and list(reward) == [0, 0, 0] and list(discount) == [1] * 3
  rng = np.random.RandomState(3)
  kept = []
  for t in range(300):
    actions = rng.randint(2, size=3)
    obs, reward, discount, step_type = vec.step(actions)
    kept.append(obs)
    for k, env in enumerate(envs):
      ts = env.step(int(actions[k]))
      assert np.array_equal(obs[k], ts.observation), (t, k)
      assert step_type[k] == ts.step_type
      # After a LAST timestep the environment resets itself: FIRST, reward 0, discount 1.
      assert reward[k] == (0.0 if ts.first() else ts.reward)
      assert discount[k] == (1.0 if ts.first() else ts.discount)
      ends += ts.last()
  # deep_sea/0: 10 steps an episode, then the step that starts the next.
  assert ends == 3 * (300 // 11), 'episodes ended and restarted along the way'
  # Results that are kept are never shared with later ones.
  assert not np.shares_memory(kept[0], kept[1])
  assert [info['denoised_return'] for info in vec.bsuite_info()] == [
      env.bsuite_info()['denoised_return'] for env in envs]


def test_actions_of_any_integer_dtype_and_sequences():
  vec = bsuite_rs.VecEnv(sweep.CATCH[:4])
  for actions in (np.ones(4, np.int64), np.ones(4, np.int32), np.ones(4, np.uint8), [1, 1, 1, 1],
                  (1, 1, 1, 1), np.ones(4, bool)):
    vec.step(actions)
  obs = vec.step(np.array([0, 1, 2, 0], dtype=np.int16))[0]
  assert obs.shape == (4, 10, 5)


def test_bad_actions_are_value_errors_and_move_nothing():
  vec = bsuite_rs.VecEnv(['catch/0', 'catch/1'])
  vec.reset()
  before = vec.step([1, 1])
  for bad, message in (([1, 3], r'actions\[1\] = 3 is out of range for catch/1'),
                       ([-1, 0], r'actions\[0\] = -1 is out of range'),
                       ([1], r'one action per environment \(2\), got 1'),
                       ([[1, 1]], 'must be a 1-D array'),
                       ([1.0, 1.0], 'must be integers'),
                       (np.array([0.5, 1.5]), 'must be integers'),
                       (['a', 'b'], 'must be integers')):
    with pytest.raises(ValueError, match=message):
      vec.step(bad)
  # No environment moved: the next step is the second of the episode for both.
  single = [bsuite_rs.load_from_id('catch/0'), bsuite_rs.load_from_id('catch/1')]
  for env in single:
    env.reset()
    env.step(1)
  obs = vec.step([2, 0])[0]
  assert np.array_equal(obs[0], single[0].step(2).observation)
  assert np.array_equal(obs[1], single[1].step(0).observation)
  assert before[3].tolist() == [1, 1]


def test_recording_writes_each_ids_csv_as_load_and_record_does(tmp_path):
  with pytest.raises(ValueError, match='a VecEnv stacks observations'):
    bsuite_rs.VecEnv(sweep.CATCH[:3] + sweep.BANDIT[:2])
  ids = sweep.CATCH[:3]
  vec = bsuite_rs.VecEnv(ids, record_to=str(tmp_path / 'vec'))
  assert vec.recording
  agents = [RandomAgent(3, seed=42) for _ in ids]
  episodes = np.zeros(len(ids), dtype=int)
  _, _, _, step_type = vec.reset()
  # Each id runs the random agent's stream: draws only where bsuite's loop would draw, that
  # is when the environment's timestep is not LAST (a LAST is followed by a reset).
  while episodes.min() < 120:
    actions = [agent.select_action() if st != 2 else 0 for agent, st in zip(agents, step_type)]
    _, _, _, step_type = vec.step(actions)
    episodes += step_type == 2
  vec.flush()
  for bsuite_id in ids:
    env = bsuite_rs.load_and_record_to_csv(bsuite_id, str(tmp_path / 'single'))
    run_random(env, 120)
    env.flush()
    name = 'bsuite_id_-_catch-{}.csv'.format(bsuite_id.split('/')[1])
    assert (tmp_path / 'vec' / name).read_bytes() == (tmp_path / 'single' / name).read_bytes()
  with pytest.raises(ValueError, match='catch/0 appears twice'):
    bsuite_rs.VecEnv(['catch/0', 'catch/0'], record_to=str(tmp_path / 'twice'))
  # While `vec` records, its ids are its own (test_one_writer.py); closed, their files are
  # kept from a second batch as from a single environment.
  vec.close()
  with pytest.raises(bsuite_rs.ResultsFileExistsError):
    bsuite_rs.VecEnv(ids, record_to=str(tmp_path / 'vec'))
  bsuite_rs.VecEnv(ids, record_to=str(tmp_path / 'vec'), overwrite=True)


def test_bad_ids_and_arguments():
  with pytest.raises(ValueError, match="unknown experiment 'cat'"):
    bsuite_rs.VecEnv(['catch/0', 'cat/1'])
  with pytest.raises(ValueError, match='not one string'):
    bsuite_rs.VecEnv('catch/0')
  with pytest.raises(ValueError, match='at least one bsuite_id'):
    bsuite_rs.VecEnv([])
  with pytest.raises(ValueError, match='2 env_seeds for 1 bsuite_ids'):
    bsuite_rs.VecEnv(['catch/0'], env_seeds=[1, 2])
