"""bsuite_rs.gym.VectorEnv: gymnasium's vector API on the native batch, step for step what
gymnasium's own SyncVectorEnv over our single environments does."""
import gymnasium
from gymnasium import spaces
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode
import numpy as np
import pytest

import bsuite_rs
import bsuite_rs.gym


def test_make_vec_picks_the_native_vector_env():
  envs = gymnasium.make_vec('bsuite/catch-0', num_envs=16)
  assert isinstance(envs, bsuite_rs.gym.VectorEnv)
  assert isinstance(envs, gymnasium.vector.VectorEnv)
  assert envs.metadata['autoreset_mode'] == AutoresetMode.NEXT_STEP
  assert envs.num_envs == 16 and envs.bsuite_ids == ('catch/0',) * 16
  assert envs.single_observation_space == spaces.Box(0.0, 1.0, (10, 5), np.float32)
  assert envs.single_action_space == spaces.Discrete(3)
  assert envs.observation_space == spaces.Box(0.0, 1.0, (16, 10, 5), np.float32)
  assert envs.action_space == spaces.MultiDiscrete([3] * 16)
  explicit = gymnasium.make_vec('bsuite/deep_sea-2', num_envs=3,
                                vectorization_mode='vector_entry_point')
  assert isinstance(explicit, bsuite_rs.gym.VectorEnv)
  assert explicit.bsuite_ids == ('deep_sea/2',) * 3
  assert explicit.unwrapped.spec.id == 'bsuite/deep_sea-2'
  sync = gymnasium.make_vec('bsuite/catch-0', num_envs=2, vectorization_mode='sync')
  assert isinstance(sync, gymnasium.vector.SyncVectorEnv)


def _compare_with_sync(ours, theirs, seed, steps, same_infos=False):
  """Steps both with the same random actions; returns the number of episode ends seen."""
  rng = np.random.RandomState(seed)
  observation, info = ours.reset(seed=seed)
  expected, expected_info = theirs.reset(seed=seed)
  assert np.array_equal(observation, expected) and info == {} == expected_info
  assert ours.observation_space.contains(observation)
  ends = 0
  for t in range(steps):
    actions = rng.randint(ours.single_action_space.n, size=ours.num_envs)
    got = ours.step(actions)
    want = theirs.step(actions)
    for name, a, b in zip(('observation', 'reward', 'terminated', 'truncated'), got, want):
      assert np.array_equal(a, b), f'step {t}: {name} {a} != {b}'
      assert a.shape == b.shape
    assert got[1].dtype == np.float64 and got[2].dtype == np.bool_
    if same_infos:
      assert data_equivalence(got[4], want[4], exact=True), (got[4], want[4])
    else:
      assert got[4] == {}
    ends += int(got[2].sum())
  return ends


@pytest.mark.parametrize('bsuite_id,num_envs', [('catch/0', 4), ('cartpole/2', 3),
                                                ('deep_sea/5', 5), ('bandit_noise/3', 2),
                                                ('umbrella_distract/7', 3)])
def test_it_steps_like_gymnasiums_sync_vector_env(bsuite_id, num_envs):
  """Same seed and actions: the same observations, rewards, terminations and truncations,
  through autoresets (NEXT_STEP mode on both sides) and a reseeding reset."""
  gym_id = bsuite_rs.gym.gym_id(bsuite_id)
  ours = gymnasium.make_vec(gym_id, num_envs=num_envs)
  theirs = gymnasium.make_vec(gym_id, num_envs=num_envs, vectorization_mode='sync')
  assert theirs.metadata['autoreset_mode'] == AutoresetMode.NEXT_STEP
  ends = _compare_with_sync(ours, theirs, seed=11, steps=300)
  assert ends > 0, 'no episode ended: the autoreset was not exercised'
  _compare_with_sync(ours, theirs, seed=12345, steps=100)


@pytest.mark.parametrize('bsuite_id', ['catch/2', 'cartpole/0', 'deep_sea/1'])
def test_same_step_autoreset_matches_sync_vector_env(bsuite_id):
  """SAME_STEP: reset in the step that ends an episode, with final_obs and final_info."""
  gym_id = bsuite_rs.gym.gym_id(bsuite_id)
  ours = gymnasium.make_vec(gym_id, num_envs=3, autoreset_mode=AutoresetMode.SAME_STEP)
  assert isinstance(ours, bsuite_rs.gym.VectorEnv)
  assert ours.metadata['autoreset_mode'] == AutoresetMode.SAME_STEP
  theirs = gymnasium.make_vec(gym_id, num_envs=3, vectorization_mode='sync',
                              vector_kwargs={'autoreset_mode': AutoresetMode.SAME_STEP})
  assert _compare_with_sync(ours, theirs, seed=4, steps=200, same_infos=True) > 0
  with pytest.raises(ValueError, match='not supported'):
    bsuite_rs.gym.VectorEnv(bsuite_id, autoreset_mode=AutoresetMode.DISABLED)


def test_a_list_of_ids_steps_like_sync_vector_env_over_them():
  ids = bsuite_rs.sweep.CATCH[:6]
  ours = bsuite_rs.gym.VectorEnv(ids)
  theirs = gymnasium.vector.SyncVectorEnv([lambda i=i: bsuite_rs.gym.BsuiteEnv(i) for i in ids])
  assert ours.bsuite_ids == tuple(ids)
  assert _compare_with_sync(ours, theirs, seed=3, steps=60) > 0


def test_seeding():
  envs = bsuite_rs.gym.VectorEnv('catch/0', num_envs=8)
  assert envs.env_seeds == tuple(range(8)), 'copies of one id start from different seeds'
  first, _ = envs.reset()
  assert len({o.tobytes() for o in first}) > 1

  def rollout(seed):
    observations = [envs.reset(seed=seed)[0]]
    for _ in range(25):
      observations.append(envs.step(np.ones(8, dtype=np.int64))[0])
    return np.stack(observations)

  a = rollout(5)
  assert envs.env_seeds == tuple(range(5, 13))
  assert np.array_equal(a, rollout(5))
  assert not np.array_equal(a, rollout(6))
  listed = rollout(list(range(5, 13)))
  assert np.array_equal(a, listed)
  # Without a seed a reset keeps each environment's stream going.
  envs.reset(seed=5)
  assert not np.array_equal(envs.reset()[0], a[0])
  with pytest.raises(ValueError, match='2 seeds for 8 environments'):
    envs.reset(seed=[1, 2])
  with pytest.raises(ValueError, match='not in 0..=4294967295'):
    envs.reset(seed=-1)
  with pytest.raises(ValueError, match='reset_mask'):
    envs.reset(options={'reset_mask': np.ones(8, dtype=bool)})


def test_returned_arrays_are_not_reused():
  envs = bsuite_rs.gym.VectorEnv('catch/1', num_envs=3)
  observation, _ = envs.reset(seed=0)
  kept = observation.copy()
  for _ in range(20):
    envs.step(np.zeros(3, dtype=np.int64))
  assert np.array_equal(observation, kept)


def test_gymnasium_vector_wrappers_run_on_it():
  envs = gymnasium.wrappers.vector.RecordEpisodeStatistics(
      gymnasium.make_vec('bsuite/catch-0', num_envs=4))
  envs.reset(seed=0)
  returns = []
  for _ in range(40):
    *_, info = envs.step(envs.action_space.sample())
    if 'episode' in info:
      returns.extend(info['episode']['r'][info['_episode']].tolist())
  assert returns and set(returns) <= {-1.0, 1.0}


def test_refusals_and_close():
  with pytest.raises(ValueError, match='has 3 actions but memory_len/0 has 2'):
    bsuite_rs.gym.VectorEnv(['mountain_car/0', 'memory_len/0'])
  with pytest.raises(ValueError, match='a VecEnv stacks observations'):
    bsuite_rs.gym.VectorEnv(['catch/0', 'deep_sea/0'])
  with pytest.raises(ValueError, match='num_envs=3 but 2 bsuite_ids'):
    bsuite_rs.gym.VectorEnv(['catch/0', 'catch/1'], num_envs=3)
  with pytest.raises(ValueError, match='render_mode'):
    bsuite_rs.gym.VectorEnv('catch/0', render_mode='human')
  with pytest.raises(TypeError, match='max_episode_steps'):
    gymnasium.make_vec('bsuite/catch-0', num_envs=2, max_episode_steps=5)
  envs = bsuite_rs.gym.VectorEnv('catch/0', num_envs=2)
  envs.reset()
  envs.close()
  assert envs.closed
  envs.close()
