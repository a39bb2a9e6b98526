"""bsuite_rs.gym: gymnasium environments over the same dynamics."""
import gymnasium
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env
import numpy as np
import pytest

import bsuite_rs
import bsuite_rs.gym


# Unbounded observations get an unbounded Box, as in bsuite's own gym wrapper.
@pytest.mark.filterwarnings('ignore:.*Box observation space m.* is .*infinity')
@pytest.mark.parametrize('bsuite_id', ['catch/0', 'cartpole/0', 'deep_sea/5', 'mnist/0',
                                       'umbrella_length/3'])
def test_gymnasium_checker_accepts_it(bsuite_id):
  check_env(bsuite_rs.gym.BsuiteEnv(bsuite_id), skip_render_check=True)


def test_every_id_is_registered():
  assert bsuite_rs.gym.gym_id('deep_sea/12') == 'bsuite/deep_sea-12'
  registered = [i for i in gymnasium.registry
                if i.startswith('bsuite/') and not i.endswith('-v0')]
  assert sorted(registered) == sorted(map(bsuite_rs.gym.gym_id, bsuite_rs.sweep.SWEEP))
  env = gymnasium.make('bsuite/catch-3')
  assert env.unwrapped.bsuite_id == 'catch/3'
  assert env.observation_space == spaces.Box(0.0, 1.0, (10, 5), np.float32)
  assert env.action_space == spaces.Discrete(3)
  assert bsuite_rs.gym.make('cartpole/0').observation_space.shape == (1, 6)


def test_a_gym_loop_sees_the_dm_env_dynamics():
  """Same seed, same actions: the gym view returns the dm_env environment's timesteps."""
  env = bsuite_rs.gym.make('catch/4')
  reference = bsuite_rs.load_from_id('catch/4')
  rng = np.random.RandomState(1)
  observation, info = env.reset()
  assert info == {} and observation.dtype == np.float32
  assert np.array_equal(observation, reference.reset().observation)
  episodes, total = 0, 0.0
  while episodes < 50:
    action = int(rng.randint(3))
    observation, reward, terminated, truncated, info = env.step(action)
    timestep = reference.step(action)
    assert np.array_equal(observation, timestep.observation)
    assert reward == timestep.reward and terminated == timestep.last() and not truncated
    total += reward
    if terminated:
      episodes += 1
      observation, _ = env.reset()
      assert np.array_equal(observation, reference.reset().observation)
  assert env.unwrapped.bsuite_info()['total_regret'] == 50 - total


def test_reset_seed_reseeds_what_bsuite_leaves_unseeded():
  def first_observations(env, seed):
    observations = [env.reset(seed=seed)[0]]
    for _ in range(3):
      observations.append(env.reset()[0])
    return np.stack(observations)

  env = bsuite_rs.gym.BsuiteEnv('catch/0')
  one = first_observations(env, 7)
  assert np.array_equal(one, first_observations(env, 7))
  seeded = bsuite_rs.Environment('catch/0', env_seed=7)
  assert np.array_equal(one[0], seeded.reset().observation)
  different = [first_observations(env, s) for s in range(8)]
  assert any(not np.array_equal(one, other) for other in different)
  with pytest.raises(ValueError, match='not in 0..=4294967295'):
    env.reset(seed=2**32)


def test_a_recording_gym_env_logs_bsuites_csv(tmp_path):
  env = bsuite_rs.gym.BsuiteEnv('bandit/0', results_dir=str(tmp_path))
  env.reset(seed=3)
  for _ in range(10):
    env.step(0)
    env.reset()
  with pytest.raises(ValueError, match='seeded only before its first step'):
    env.reset(seed=4)
  env.close()
  rows = (tmp_path / 'bsuite_id_-_bandit-0.csv').read_text().splitlines()
  assert len(rows) == 11 and rows[-1].startswith('10,10,')
