"""bsuite_rs.sb3: Stable-Baselines3's VecEnv on the native batch, and PPO learning catch
through it. `cargo xtask test` installs SB3 on the CPU torch (xtask/src/py_torch.rs); run
by hand without SB3, these tests skip."""
import os
import time

import numpy as np
import pytest

if os.environ.get('BSUITE_XTASK'):
  import stable_baselines3  # `cargo xtask test` provides it: a skip there would hide a failure
else:
  stable_baselines3 = pytest.importorskip('stable_baselines3')
from stable_baselines3.common.vec_env import DummyVecEnv  # pylint: disable=g-import-not-at-top

import bsuite_rs.gym
import bsuite_rs.sb3


@pytest.mark.parametrize('bsuite_id,n_envs', [('catch/0', 4), ('cartpole/1', 3),
                                              ('deep_sea/4', 2)])
def test_it_steps_like_sb3s_dummy_vec_env(bsuite_id, n_envs):
  """Same seeds and actions: the observations, rewards, dones and terminal observations of
  DummyVecEnv over our single gymnasium environments."""
  ours = bsuite_rs.sb3.VecEnv(bsuite_id, n_envs)
  theirs = DummyVecEnv([lambda: bsuite_rs.gym.BsuiteEnv(bsuite_id)] * n_envs)
  assert ours.observation_space == theirs.observation_space
  assert ours.action_space == theirs.action_space
  assert ours.seed(21) == theirs.seed(21)
  assert np.array_equal(ours.reset(), theirs.reset())
  rng = np.random.RandomState(0)
  ends = 0
  for t in range(300):
    actions = rng.randint(ours.action_space.n, size=n_envs)
    observation, reward, done, info = ours.step(actions)
    expected = theirs.step(actions)
    assert np.array_equal(observation, expected[0]), t
    assert np.array_equal(reward, expected[1]) and reward.dtype == expected[1].dtype
    assert np.array_equal(done, expected[2])
    for k in range(n_envs):
      if done[k]:
        ends += 1
        assert np.array_equal(info[k]['terminal_observation'],
                              expected[3][k]['terminal_observation'])
        assert info[k]['TimeLimit.truncated'] is expected[3][k]['TimeLimit.truncated'] is False
  assert ends > 0


def test_seeds_never_wrap():
  """Issue 55, item 21: `seed(s)` gave environment k the seed `s + k` in the seed's own
  type, so a numpy uint32 wrapped to 0, 1, ... silently."""
  envs = bsuite_rs.sb3.VecEnv('catch/0', 3)
  with pytest.raises(ValueError, match='seed 4294967295 gives environment k of 3'):
    envs.seed(np.uint32(2**32 - 1))
  assert envs.seed(np.uint32(2**32 - 3)) == [2**32 - 3, 2**32 - 2, 2**32 - 1]
  envs.reset()
  assert envs.get_attr('env_seed') == [2**32 - 3, 2**32 - 2, 2**32 - 1]
  assert all(0 <= s <= 2**32 - 1 for s in envs.seed())


def test_attributes_and_methods():
  envs = bsuite_rs.sb3.VecEnv(['catch/0', 'catch/1'])
  assert envs.get_attr('bsuite_id') == ['catch/0', 'catch/1']
  assert envs.get_attr('bsuite_id', indices=1) == ['catch/1']
  assert envs.get_attr('render_mode') == [None, None]
  assert envs.env_is_wrapped(object) == [False, False]
  envs.reset()
  assert envs.env_method('bsuite_info') == [{'total_regret': 0}, {'total_regret': 0}]
  with pytest.raises(AttributeError, match='no per-environment method'):
    envs.env_method('nope')


def test_ppo_learns_catch_through_the_adapter():
  """PPO on catch/0, 16 environments, 50k steps, seed 0: a mean return above 0.8 over 100
  evaluation episodes (a random policy gets about -0.6)."""
  from stable_baselines3 import PPO  # pylint: disable=g-import-not-at-top
  from stable_baselines3.common.evaluation import evaluate_policy  # pylint: disable=g-import-not-at-top
  import torch  # pylint: disable=g-import-not-at-top
  torch.set_num_threads(1)
  envs = bsuite_rs.sb3.make_vec('catch/0', n_envs=16, seed=0)
  model = PPO('MlpPolicy', envs, n_steps=128, batch_size=256, learning_rate=1e-3, seed=0,
              device='cpu')
  random_return, _ = evaluate_policy(model, bsuite_rs.sb3.make_vec('catch/0', 4, seed=99),
                                     n_eval_episodes=100)
  start = time.perf_counter()
  model.learn(50_000)
  seconds = time.perf_counter() - start
  mean_return, _ = evaluate_policy(model, bsuite_rs.sb3.make_vec('catch/0', 4, seed=1),
                                   n_eval_episodes=100, deterministic=True)
  print(f'PPO on catch/0: untrained {random_return:+.2f}, after 50k steps {mean_return:+.2f} '
        f'({seconds:.1f} s of training)')
  assert random_return < 0.5
  assert mean_return > 0.8
