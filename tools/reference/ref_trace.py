"""Trace of a bsuite 0.3.6 environment as JSON lines, the format of our pinned traces
(crates/bsuite-envs/tests/fixtures/) and of `cargo xtask trace`.

  python tools/reference/ref_trace.py BSUITE_ID [--episodes 1] [--seed 0] [--env-seed 0]
                                      [--info] [--out FILE]
  python tools/reference/ref_trace.py --all-ids

The environment comes from bsuite.load_from_id (noise and scale wrappers included), built
as bsuite_ref.py describes. Actions: one numpy RandomState(--seed) for the whole run, one
randint(num_actions) per step and none at resets. Each timestep, resets included, is one
line with the keys t (line number over the run), episode, step_type (0 first, 1 mid,
2 last), reward and discount (null at a reset), obs (the observation flattened in C order,
each value as a double), action (the action that led here, null at a reset) and, with
--info, info (env.bsuite_info()). Floats are written by json.dumps, i.e. as Python's repr,
which reads back as the same double.

--all-ids prints every bsuite_id of the sweep, in sweep order, with its experiment,
setting index, settings, episode count, tags, action count and observation shape and
dtype (tests/fixtures/ids.json).
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bsuite_ref  # noqa: E402


def write_trace(bsuite_id, episodes, seed, env_seed, info, out):
  env = bsuite_ref.load(bsuite_id, env_seed)
  actions = np.random.RandomState(seed)
  num_actions = env.action_spec().num_values
  t = 0
  for episode in range(episodes):
    timestep, action = env.reset(), None
    while True:
      line = {
          't': t,
          'episode': episode,
          'step_type': int(timestep.step_type),
          'reward': None if timestep.reward is None else float(timestep.reward),
          'discount': None if timestep.discount is None else float(timestep.discount),
          'obs': np.asarray(timestep.observation, dtype=np.float64).reshape(-1).tolist(),
          'action': action,
      }
      if info:
        line['info'] = env.bsuite_info()
      out.write(json.dumps(line, separators=(',', ':'), default=bsuite_ref.to_plain))
      out.write('\n')
      t += 1
      if timestep.last():
        break
      action = int(actions.randint(num_actions))
      timestep = env.step(action)


def all_ids(out):
  from bsuite import sweep  # pylint: disable=g-import-not-at-top
  from bsuite.experiments import summary_analysis  # pylint: disable=g-import-not-at-top
  table = {}
  for bsuite_id in sweep.SWEEP:
    experiment, index = bsuite_id.split(sweep.SEPARATOR)
    env = bsuite_ref.load(bsuite_id, 0)
    spec = env.observation_spec()
    table[bsuite_id] = {
        'experiment': experiment,
        'index': int(index),
        'settings': dict(sweep.SETTINGS[bsuite_id]),
        'num_episodes': sweep.EPISODES[bsuite_id],
        'tags': list(summary_analysis.BSUITE_INFO[experiment].tags),
        'num_actions': int(env.action_spec().num_values),
        'obs_shape': list(spec.shape),
        'obs_dtype': np.dtype(spec.dtype).name,
    }
  json.dump(table, out, indent=1, default=bsuite_ref.to_plain)
  out.write('\n')


def main():
  p = argparse.ArgumentParser(description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument('bsuite_id', nargs='?')
  p.add_argument('--episodes', type=int, default=1)
  p.add_argument('--seed', type=int, default=0, help='seed of the action RandomState')
  p.add_argument('--env-seed', type=bsuite_ref.seed_arg, default=0,
                 help="seed for the env RNGs bsuite leaves unseeded ('none': OS entropy)")
  p.add_argument('--info', action='store_true', help='add env.bsuite_info() to every line')
  p.add_argument('--out', help='write here instead of stdout')
  p.add_argument('--all-ids', action='store_true', help='print the sweep instead')
  a = p.parse_args()
  out = open(a.out, 'w') if a.out else sys.stdout
  try:
    if a.all_ids:
      all_ids(out)
    elif a.bsuite_id:
      write_trace(a.bsuite_id, a.episodes, a.seed, a.env_seed, a.info, out)
    else:
      p.error('give a bsuite_id or --all-ids')
  finally:
    if a.out:
      out.close()


if __name__ == '__main__':
  main()
