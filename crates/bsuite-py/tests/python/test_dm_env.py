"""bsuite_rs environments are dm_env environments and a drop-in for bsuite's API."""
import json
import pickle

from absl.testing import absltest
import dm_env
from dm_env import specs
from dm_env import test_utils
import numpy as np
import pytest

import bsuite_rs
from bsuite_rs import sweep
from conftest import FIXTURES


def _conformance_case(bsuite_id):
  """dm_env's own interface tests (EnvironmentTestMixin) for one id, with random actions
  long enough to end episodes."""

  class Case(test_utils.EnvironmentTestMixin, absltest.TestCase):

    def make_object_under_test(self):
      return bsuite_rs.load_from_id(bsuite_id)

    def make_action_sequence(self):
      rng = np.random.RandomState(0)
      num_actions = self.environment.action_spec().num_values
      for _ in range(1500):
        yield int(rng.randint(num_actions))

  Case.__name__ = Case.__qualname__ = f'TestDmEnvConformance_{bsuite_id.replace("/", "_")}'
  return Case


for _id in sweep.TESTING + ('catch_noise/0', 'mnist_scale/3', 'deep_sea_stochastic/20'):
  _case = _conformance_case(_id)
  globals()[_case.__name__] = _case
del _id, _case


def test_environments_are_dm_env_environments():
  env = bsuite_rs.load_from_id('deep_sea/3')
  assert isinstance(env, dm_env.Environment) and bsuite_rs.HAVE_DM_ENV
  timestep = env.reset()
  assert type(timestep) is dm_env.TimeStep and timestep.step_type is dm_env.StepType.FIRST
  assert timestep.first() and (timestep.reward, timestep.discount) == (None, None)
  # Timesteps are plain dm_env namedtuples: they pickle, compare and _replace as such.
  again = pickle.loads(pickle.dumps(timestep))
  assert again.step_type is timestep.step_type
  assert np.array_equal(again.observation, timestep.observation)
  assert timestep._replace(reward=1.0).reward == 1.0
  assert timestep._fields == ('step_type', 'reward', 'discount', 'observation')
  # An observation that is kept is never shared with a later one.
  first = timestep.observation
  second = env.step(0).observation
  assert first is not second and not np.shares_memory(first, second)
  assert first.flags.writeable and first.flags.c_contiguous


def test_specs_are_the_references():
  """Specs against the reference's id table (tools/reference/ref_trace.py --all-ids)."""
  table = json.loads((FIXTURES / 'ids.json').read_text())
  assert list(table) == list(sweep.SWEEP)
  for bsuite_id, ref in table.items():
    env = bsuite_rs.load_from_id(bsuite_id)
    obs = env.observation_spec()
    action = env.action_spec()
    assert isinstance(obs, specs.Array) and isinstance(action, specs.DiscreteArray)
    assert obs.shape == tuple(ref['obs_shape']) and obs.dtype == np.dtype(ref['obs_dtype'])
    assert action.num_values == ref['num_actions'] and action.name == 'action'
    assert env.bsuite_num_episodes == ref['num_episodes'] == sweep.EPISODES[bsuite_id]
    assert sweep.SETTINGS[bsuite_id] == ref['settings'], bsuite_id
    assert env.bsuite_id == bsuite_id
  catch = bsuite_rs.load_from_id('catch_scale/2').observation_spec()
  assert isinstance(catch, specs.BoundedArray) and (catch.minimum, catch.maximum) == (0, 1)
  assert bsuite_rs.load_from_id('cartpole_swingup/0').observation_spec().name == 'state'
  assert bsuite_rs.load_from_id('bandit/0').action_spec().dtype == np.int32


def test_sweep_is_bsuites():
  assert len(sweep.SWEEP) == 468 and len(set(sweep.SWEEP)) == 468
  assert sweep.TESTING[:3] == ('bandit/0', 'cartpole/0', 'cartpole_swingup/0')
  assert len(sweep.TESTING) == 13
  assert sweep.CATCH == tuple(f'catch/{i}' for i in range(20))
  assert sweep.DEEP_SEA_STOCHASTIC[-1] == 'deep_sea_stochastic/20'
  assert list(sweep.TAGS) == ['basic', 'noise', 'scale', 'credit_assignment',
                              'generalization', 'exploration', 'memory']
  assert [len(sweep.TAGS[t]) for t in sweep.TAGS] == [100, 167, 100, 146, 200, 62, 40]
  assert sweep.SETTINGS['bandit_noise/9'] == {'noise_scale': 1.0, 'seed': None, 'mapping_seed': 1}
  assert sweep.SEPARATOR == '/'
  with pytest.raises(TypeError):
    sweep.SETTINGS['catch/0'] = {}


def test_load_takes_a_sweep_setting():
  env = bsuite_rs.load('bandit_noise', {'noise_scale': 1.0, 'mapping_seed': 1})
  assert env.bsuite_id == 'bandit_noise/9'
  # The seed of a setting that bsuite leaves unseeded is the env seed.
  seeded = bsuite_rs.load('catch', {'seed': 5})
  same = bsuite_rs.Environment('catch/0', env_seed=5)
  for _ in range(30):
    assert np.array_equal(seeded.step(1).observation, same.step(1).observation)
  assert bsuite_rs.load('catch/7').bsuite_id == 'catch/7'
  assert bsuite_rs.load('deep_sea', sweep.SETTINGS['deep_sea/4']).bsuite_id == 'deep_sea/4'
  assert bsuite_rs.unpack_bsuite_id('deep_sea/4') == ('deep_sea', 4)


class TabularQ:
  """An epsilon-greedy tabular Q-learning agent written against dm_env's interface only, in
  the shape of bsuite's `baselines.base.Agent` (select_action, update)."""

  def __init__(self, action_spec, seed=0, epsilon=0.1, learning_rate=0.5):
    self._num_actions = action_spec.num_values
    self._q = {}
    self._rng = np.random.RandomState(seed)
    self._epsilon = epsilon
    self._learning_rate = learning_rate

  def _values(self, observation):
    return self._q.setdefault(observation.tobytes(), np.zeros(self._num_actions))

  def select_action(self, timestep):
    if self._rng.rand() < self._epsilon:
      return int(self._rng.randint(self._num_actions))
    return int(np.argmax(self._values(timestep.observation)))

  def update(self, timestep, action, new_timestep):
    target = new_timestep.reward + new_timestep.discount * self._values(
        new_timestep.observation).max()
    values = self._values(timestep.observation)
    values[action] += self._learning_rate * (target - values[action])


def run(agent, environment, num_episodes):
  """bsuite's `baselines.experiment.run`."""
  for _ in range(num_episodes):
    timestep = environment.reset()
    while not timestep.last():
      action = agent.select_action(timestep)
      new_timestep = environment.step(action)
      agent.update(timestep, action, new_timestep)
      timestep = new_timestep


def test_a_dm_env_agent_learns_catch_and_is_scored(results_dir):
  env = bsuite_rs.load_and_record_to_csv('catch/0', results_dir=str(results_dir))
  agent = TabularQ(env.action_spec())
  run(agent, env, 2000)
  env.close()
  rows = (results_dir / 'bsuite_id_-_catch-0.csv').read_text().splitlines()
  assert rows[0] == 'steps,episode,total_return,episode_len,episode_return,total_regret'
  last = rows[-1].split(',')
  assert (int(last[0]), int(last[1])) == (18000, 2000)  # catch: 9 steps per episode
  # Random play loses about 0.6 per episode; the agent has learnt to catch.
  assert float(last[2]) > 500
  scores = bsuite_rs.score(results_dir)
  assert list(scores) == ['experiments', 'finished', 'tags', 'ids']
  assert scores['finished'] == {'catch': False}
  assert 0 < scores['experiments']['catch'] <= 1


def test_terminal_logging_prints_bsuites_rows(capfd):
  env = bsuite_rs.load_and_record('catch/0', 'ignored', logging_mode='terminal')
  assert env.recording
  for _ in range(3):
    timestep = env.reset()
    while not timestep.last():
      timestep = env.step(1)
  env.flush()
  lines = capfd.readouterr().err.splitlines()
  assert len(lines) == 3 and lines[2].startswith('episode = 3 | episode_len = 9 |')
