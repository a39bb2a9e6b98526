"""pickle, copy.copy and copy.deepcopy carry an environment's full state: from then on the
copy and the original return the same timesteps for the same actions."""
import copy
import pickle

import numpy as np
import pytest

import bsuite_rs
import bsuite_rs.gym

EXPERIMENTS = sorted({bsuite_id.split('/')[0] for bsuite_id in bsuite_rs.sweep.SWEEP})
COPIES = {'pickle': lambda env: pickle.loads(pickle.dumps(env)), 'copy': copy.copy,
          'deepcopy': copy.deepcopy}


def _same(a, b):
  assert a.step_type == b.step_type and a.reward == b.reward and a.discount == b.discount
  assert np.array_equal(a.observation, b.observation)


def test_every_experiment_is_covered():
  assert len(EXPERIMENTS) == 23


@pytest.mark.parametrize('experiment', EXPERIMENTS)
def test_a_copy_continues_as_the_original_does(experiment):
  """For every experiment (setting 1, whose env seed is not 0): copies made mid-episode
  after several episodes, by each of the three ways, step as the original."""
  bsuite_id = f'{experiment}/1'
  env = bsuite_rs.load_from_id(bsuite_id)
  num_actions = env.action_spec().num_values
  rng = np.random.RandomState(0)
  env.reset()
  for _ in range(157):
    env.step(int(rng.randint(num_actions)))
  copies = {name: make(env) for name, make in COPIES.items()}
  fresh = bsuite_rs.load_from_id(bsuite_id)
  fresh.reset()
  diverged = False
  for _ in range(300):
    action = int(rng.randint(num_actions))
    expected = env.step(action)
    for name, other in copies.items():
      _same(other.step(action), expected)
    other = fresh.step(action)
    diverged |= (other.step_type != expected.step_type or
                 not np.array_equal(other.observation, expected.observation))
  assert env.bsuite_info() == copies['pickle'].bsuite_info()
  assert type(copies['pickle']) is bsuite_rs.Environment
  # Memory and deep_sea restart identically: only their counters show the past.
  assert diverged or env.bsuite_info() != fresh.bsuite_info() or experiment in (
      'bandit', 'bandit_noise', 'bandit_scale', 'mnist', 'mnist_noise', 'mnist_scale',
      'memory_len', 'memory_size', 'umbrella_length', 'umbrella_distract', 'deep_sea')


def test_a_copy_is_independent_and_keeps_its_seed():
  env = bsuite_rs.Environment('catch/0', env_seed=1234)
  env.reset()
  twin = pickle.loads(pickle.dumps(env))
  # Stepping the copy leaves the original where it was.
  for _ in range(30):
    twin.step(0)
  again = pickle.loads(pickle.dumps(env))
  for _ in range(30):
    _same(again.step(2), env.step(2))


def test_logging_and_closed_environments_refuse(tmp_path):
  env = bsuite_rs.load_and_record_to_csv('catch/0', tmp_path)
  with pytest.raises(TypeError, match='logs its results .* cannot be pickled'):
    pickle.dumps(env)
  with pytest.raises(TypeError, match='cannot be pickled'):
    copy.deepcopy(bsuite_rs.VecEnv(['catch/0'], record_to=tmp_path / 'vec'))
  closed = bsuite_rs.load_from_id('catch/0')
  closed.close()
  with pytest.raises(ValueError, match='closed'):
    pickle.dumps(closed)


def test_vec_envs_copy_with_their_state():
  envs = bsuite_rs.VecEnv(['catch/3', 'catch/3', 'catch_noise/2'], env_seeds=[7, 8, 9])
  rng = np.random.RandomState(1)
  envs.reset()
  for _ in range(50):
    envs.step(rng.randint(3, size=3))
  envs.reset_ended()
  for name, make in COPIES.items():
    twin = make(envs)
    assert twin.env_seeds == (7, 8, 9) and twin.ids == envs.ids, name
  twins = [make(envs) for make in COPIES.values()]
  for _ in range(60):
    actions = rng.randint(3, size=3)
    expected = envs.step(actions)
    for twin in twins:
      for a, b in zip(twin.step(actions), expected):
        assert np.array_equal(a, b)


def test_gymnasium_and_sb3_adapters_copy_with_their_state():
  env = bsuite_rs.gym.BsuiteEnv('cartpole/0')
  env.reset(seed=5)
  for _ in range(40):
    env.step(1)
  twin = pickle.loads(pickle.dumps(env))
  for _ in range(40):
    a, b = env.step(0), twin.step(0)
    assert np.array_equal(a[0], b[0]) and a[1:4] == b[1:4]
  envs = bsuite_rs.gym.VectorEnv('deep_sea/3', num_envs=4)
  envs.reset(seed=2)
  for _ in range(7):
    envs.step(np.ones(4, dtype=np.int64))
  twin = copy.deepcopy(envs)
  assert twin.env_seeds == (2, 3, 4, 5)
  for t in range(30):
    actions = np.full(4, t % 2)
    for a, b in zip(envs.step(actions)[:4], twin.step(actions)[:4]):
      assert np.array_equal(a, b)
