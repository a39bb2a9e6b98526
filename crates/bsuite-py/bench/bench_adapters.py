"""Steps per second through the trainers' own vector APIs: bsuite_rs.gym.VectorEnv against
gymnasium's sync `make_vec` of our single environments, and bsuite_rs.sb3.VecEnv against
SB3's DummyVecEnv of them (SB3 optional), on catch/0 at several batch sizes.

  python bench_adapters.py [--envs 16 256] [--seconds 1.0] [--json]

Actions are drawn once, up front, so the loops measure the environments and adapters only.
"""
import argparse
import json
import time

import numpy as np

import gymnasium
import bsuite_rs.gym


def _rate(step, num_envs, seconds, windows=5):
  """Environment steps per second of `step()`: the best of `windows` timing windows that
  share `seconds` (after a warm-up), so that other processes' bursts on a shared machine
  count as little as they can."""
  for _ in range(10):
    step()
  best = 0.0
  for _ in range(windows):
    calls, start = 0, time.perf_counter()
    while True:
      for _ in range(20):
        step()
      calls += 20
      elapsed = time.perf_counter() - start
      if elapsed >= seconds / windows:
        break
    best = max(best, calls * num_envs / elapsed)
  return best


def _rates(batches, num_envs, seconds):
  """Steps/s of each `(name, envs)`, reset once, stepped with the same random actions."""
  out = {}
  actions = np.random.RandomState(0).randint(3, size=(64, num_envs))
  for name, envs in batches:
    envs.reset()
    t = [0]

    def step(envs=envs):
      envs.step(actions[t[0] % 64])
      t[0] += 1

    out[name] = _rate(step, num_envs, seconds)
  return out


def gymnasium_loops(num_envs, seconds):
  return _rates([(name, gymnasium.make_vec('bsuite/catch-0', num_envs=num_envs,
                                           vectorization_mode=mode))
                 for name, mode in (('gymnasium sync make_vec', 'sync'),
                                    ('bsuite_rs.gym.VectorEnv', 'vector_entry_point'))],
                num_envs, seconds)


def sb3_loops(num_envs, seconds):
  try:
    from stable_baselines3.common.vec_env import DummyVecEnv  # pylint: disable=g-import-not-at-top
    import bsuite_rs.sb3  # pylint: disable=g-import-not-at-top
  except ImportError:
    return {}
  return _rates([('SB3 DummyVecEnv',
                  DummyVecEnv([lambda: bsuite_rs.gym.BsuiteEnv('catch/0')] * num_envs)),
                 ('bsuite_rs.sb3.VecEnv', bsuite_rs.sb3.VecEnv('catch/0', num_envs))],
                num_envs, seconds)


def main():
  parser = argparse.ArgumentParser(description=__doc__)
  parser.add_argument('--envs', type=int, nargs='+', default=[16, 256])
  parser.add_argument('--seconds', type=float, default=1.0)
  parser.add_argument('--json', action='store_true')
  args = parser.parse_args()
  results = {}
  for num_envs in args.envs:
    results[num_envs] = {**gymnasium_loops(num_envs, args.seconds),
                         **sb3_loops(num_envs, args.seconds)}
  if args.json:
    print(json.dumps(results))
    return
  print('| catch/0, env steps/s | ' + ' | '.join(f'{n} envs' for n in args.envs) + ' |')
  print('|---|' + '---:|' * len(args.envs))
  for name in results[args.envs[0]]:
    cells = [f'{results[n][name]:,.0f}' for n in args.envs]
    print(f'| {name} | ' + ' | '.join(cells) + ' |')
  for ours, theirs in (('bsuite_rs.gym.VectorEnv', 'gymnasium sync make_vec'),
                       ('bsuite_rs.sb3.VecEnv', 'SB3 DummyVecEnv')):
    if ours in results[args.envs[0]]:
      ratios = ', '.join(f'{results[n][ours] / results[n][theirs]:.0f}x at {n}'
                         for n in args.envs)
      print(f'{ours} over {theirs}: {ratios}')


if __name__ == '__main__':
  main()
