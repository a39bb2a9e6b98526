"""The rest of the drop-in for `import bsuite`: bsuite_rs.utils.wrappers and gym_wrapper,
bsuite_rs.logging.csv_load and Shimmy's gymnasium ids, checked against the native
environments and logger (which match bsuite 0.3.6 bit for bit)."""
import gymnasium
import numpy as np
import pytest

import bsuite_rs
import bsuite_rs.gym
from bsuite_rs.logging import csv_load
from bsuite_rs.utils import gym_wrapper
from bsuite_rs.utils import wrappers


def _same_timesteps(ours, reference, steps, seed=0):
  rng = np.random.RandomState(seed)
  num_actions = reference.action_spec().num_values
  a, b = ours.reset(), reference.reset()
  for _ in range(steps):
    assert a.step_type == b.step_type and a.discount == b.discount
    assert a.reward == b.reward
    assert np.array_equal(a.observation, b.observation)
    action = int(rng.randint(num_actions))
    a, b = ours.step(action), reference.step(action)


@pytest.mark.parametrize('index', [0, 3, 17])
def test_reward_wrappers_make_the_sweeps_noise_and_scale_experiments(index):
  """bsuite builds catch_noise/k and catch_scale/k as these wrappers around catch."""
  noise = bsuite_rs.sweep.SETTINGS[f'catch_noise/{index}']['noise_scale']
  scale = bsuite_rs.sweep.SETTINGS[f'catch_scale/{index}']['reward_scale']
  _same_timesteps(
      wrappers.RewardNoise(bsuite_rs.Environment('catch/0', env_seed=index), noise, seed=index),
      bsuite_rs.load_from_id(f'catch_noise/{index}'), 300)
  _same_timesteps(wrappers.RewardScale(bsuite_rs.Environment('catch/0', env_seed=index), scale),
                  bsuite_rs.load_from_id(f'catch_scale/{index}'), 300)


class _ListLogger:

  def __init__(self):
    self.rows = []

  def write(self, data):
    self.rows.append(dict(data))


def test_logging_wrapper_writes_the_native_loggers_rows(tmp_path):
  logger = _ListLogger()
  wrapped = wrappers.Logging(bsuite_rs.load_from_id('cartpole/2'), logger)
  recorded = bsuite_rs.load_and_record_to_csv('cartpole/2', tmp_path)
  rng = np.random.RandomState(3)
  for _ in range(130):
    a, b = wrapped.reset(), recorded.reset()
    while not a.last():
      action = int(rng.randint(3))
      a, b = wrapped.step(action), recorded.step(action)
      assert b.step_type == a.step_type
  recorded.close()
  rows = csv_load.read_rows(str(tmp_path))
  assert len(rows) == len(logger.rows) > 10
  for mine, theirs in zip(logger.rows, rows):
    for key, value in mine.items():
      assert theirs[key] == pytest.approx(value, rel=1e-12), key
  assert rows[0]['bsuite_id'] == 'cartpole/2' and rows[0]['bsuite_env'] == 'cartpole'
  assert wrapped.bsuite_num_episodes == recorded.bsuite_num_episodes


def test_gym_from_dm_env_has_bsuites_old_gym_api():
  env = gym_wrapper.GymFromDMEnv(bsuite_rs.load_from_id('catch/1'))
  reference = bsuite_rs.load_from_id('catch/1')
  with pytest.raises(ValueError, match='Call reset'):
    env.render()
  observation = env.reset()
  assert np.array_equal(observation, reference.reset().observation)
  assert env.action_space == gymnasium.spaces.Discrete(3)
  assert env.observation_space.shape == (10, 5)
  for _ in range(30):
    observation, reward, done, info = env.step(2)
    timestep = reference.step(2)
    assert np.array_equal(observation, timestep.observation) and info == {}
    assert reward == (timestep.reward or 0.0) and done == timestep.last()
    if done:
      assert env.game_over
      observation = env.reset()
      reference.reset()
  assert np.array_equal(env.render(), observation)
  assert env.bsuite_info() == reference.bsuite_info()


def test_dm_env_from_gym_round_trips_our_gymnasium_env():
  env = gym_wrapper.DMEnvFromGym(bsuite_rs.gym.BsuiteEnv('deep_sea/4'))
  assert env.action_spec().num_values == 2
  assert env.observation_spec().shape == (18, 18)
  _same_timesteps(env, bsuite_rs.load_from_id('deep_sea/4'), 200)


def test_load_bsuite(tmp_path):
  for bsuite_id in ('catch/0', 'catch/1'):
    env = bsuite_rs.load_and_record_to_csv(bsuite_id, tmp_path / 'agent')
    for _ in range(20):
      timestep = env.reset()
      while not timestep.last():
        timestep = env.step(0)
    env.close()
  assert {row['bsuite_id'] for row in csv_load.read_rows(str(tmp_path / 'agent'))} == {
      'catch/0', 'catch/1'}
  try:
    import pandas  # pylint: disable=g-import-not-at-top,unused-import
  except ImportError:
    with pytest.raises(ImportError, match='pip install pandas'):
      csv_load.load_bsuite(str(tmp_path / 'agent'))
    return
  frame, sweep_vars = csv_load.load_bsuite({'a': str(tmp_path / 'agent')})
  assert sweep_vars == ['agent_name'] and set(frame['bsuite_id']) == {'catch/0', 'catch/1'}


def test_shimmys_ids_load_the_sweeps_settings():
  env = gymnasium.make('bsuite/catch-v0')
  assert env.unwrapped.bsuite_id == 'catch/0'
  env = gymnasium.make('bsuite/deep_sea-v0', size=12, mapping_seed=42)
  assert env.unwrapped.bsuite_id == 'deep_sea/1'
  with pytest.raises(ValueError, match='no setting of deep_sea'):
    gymnasium.make('bsuite/deep_sea-v0')
  assert len([i for i in gymnasium.registry if i.startswith('bsuite/')
              and i.endswith('-v0')]) == 23
