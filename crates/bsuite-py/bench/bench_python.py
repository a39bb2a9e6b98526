"""bsuite_rs against bsuite 0.3.6, side by side in one Python process: the script behind
`cargo xtask bench python`.

  PYTHONPATH=<dir with bsuite_rs> python bench_python.py [--steps N] [--repeats R] [--json]
  PYTHONPATH=<dir with bsuite_rs> python bench_python.py --agent dqn [--episodes N]

The interpreter must have bsuite 0.3.6 (tools/reference/setup.sh builds such a venv); xtask
puts the freshly built wheel on PYTHONPATH.

Speed: for catch/0, deep_sea/20 and cartpole/0, a Python loop of `step` (resetting after each
LAST timestep inside the timed loop, resets not counted, as tools/reference/ref_throughput.py
does) over `bsuite.load_from_id(id)` and over `bsuite_rs.load_from_id(id)`, with the same
actions drawn beforehand, repeats interleaved, medians compared. Then `bsuite_rs.VecEnv`
over the 20 catch ids, counting every environment's step, against Python bsuite's catch/0
rate of the same run. Targets: 10x and 100x; the ratios are what this run measured.

Drop-in: bsuite's own run loop (`bsuite.baselines.experiment.run`) with bsuite's random
agent (seed 42) on `bsuite.load_and_record_to_csv` and on `bsuite_rs.load_and_record_to_csv`,
every episode of the id; the two CSV files must be identical. With `--agent dqn` (an
interpreter with bsuite's JAX agents, tools/reference/setup_jax_agents.sh): bsuite's own
DQN (`bsuite.baselines.jax.dqn.default_agent`, seed 0) for `--episodes` episodes on each,
same comparison.
"""
import argparse
import contextlib
import io
import json
import os
import statistics
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, '..', '..', '..'))
sys.path.insert(0, os.path.join(REPO, 'tools', 'reference'))

import bsuite  # noqa: E402  pylint: disable=g-import-not-at-top,wrong-import-position
import bsuite_ref  # noqa: E402  pylint: disable=g-import-not-at-top,wrong-import-position
import bsuite_rs  # noqa: E402  pylint: disable=g-import-not-at-top,wrong-import-position

IDS = ('catch/0', 'deep_sea/20', 'cartpole/0')
TARGET_SINGLE = 10
TARGET_VEC = 100


def quiet():
  """bsuite prints banners to stdout while loading."""
  return contextlib.redirect_stdout(io.StringIO())


def steps_per_second(env, actions):
  """ref_throughput.py's loop: resets after LAST are timed but not counted."""
  begin = time.perf_counter()
  timestep = env.reset()
  for action in actions:
    timestep = env.step(action)
    if timestep.last():
      timestep = env.reset()
  return len(actions) / (time.perf_counter() - begin)


def vec_steps_per_second(vec, actions):
  """Env steps per second of `vec.step` over pre-drawn action rows."""
  begin = time.perf_counter()
  vec.reset()
  for row in actions:
    vec.step(row)
  return actions.size / (time.perf_counter() - begin)


def single(bsuite_id, steps, repeats):
  with quiet():
    num_actions = bsuite.load_from_id(bsuite_id).action_spec().num_values
  actions = [int(a) for a in np.random.RandomState(0).randint(num_actions, size=steps)]
  python, ours = [], []
  for _ in range(repeats):
    with quiet():
      env = bsuite.load_from_id(bsuite_id)
    python.append(steps_per_second(env, actions))
    ours.append(steps_per_second(bsuite_rs.load_from_id(bsuite_id), actions))
  return statistics.median(python), statistics.median(ours)


def vec(steps, repeats):
  ids = bsuite_rs.sweep.CATCH
  rows = max(1, steps // len(ids))
  actions = np.random.RandomState(0).randint(3, size=(rows, len(ids)))
  rates = [vec_steps_per_second(bsuite_rs.VecEnv(ids), actions) for _ in range(repeats)]
  return statistics.median(rates), len(ids)


def run_agent(agent, env, episodes):
  from bsuite.baselines import experiment  # pylint: disable=g-import-not-at-top
  begin = time.perf_counter()
  experiment.run(agent, env, num_episodes=episodes)
  return time.perf_counter() - begin


def csv_name(bsuite_id):
  experiment, index = bsuite_id.split('/')
  return f'bsuite_id_-_{experiment}-{index}.csv'


def drop_in(bsuite_id, make_agent, episodes):
  """Runs the agent on both libraries' logged environments; (identical CSV, seconds
  for bsuite, seconds for bsuite_rs, agent steps)."""
  with tempfile.TemporaryDirectory() as theirs, tempfile.TemporaryDirectory() as ours:
    index = int(bsuite_id.split('/')[1])
    with quiet():
      env = bsuite_ref.load(bsuite_id, index, results_dir=theirs, overwrite=True)
    python_s = run_agent(make_agent(env), env, episodes)
    env = bsuite_rs.load_and_record_to_csv(bsuite_id, ours)
    ours_s = run_agent(make_agent(env), env, episodes)
    env.close()
    with open(os.path.join(theirs, csv_name(bsuite_id)), 'rb') as f:
      python_csv = f.read()
    with open(os.path.join(ours, csv_name(bsuite_id)), 'rb') as f:
      ours_csv = f.read()
    steps = int(ours_csv.splitlines()[-1].split(b',')[0])
    return python_csv == ours_csv, python_s, ours_s, steps


def random_agent(env):
  from bsuite.baselines.random import agent  # pylint: disable=g-import-not-at-top
  return agent.Random(env.action_spec(), seed=42)


def dqn_agent(env):
  from bsuite.baselines.jax import dqn  # pylint: disable=g-import-not-at-top
  np.random.seed(0)  # as tools/reference/jax_agent.py seeds bsuite's agents
  return dqn.default_agent(env.observation_spec(), env.action_spec(), seed=0)


def main():
  parser = argparse.ArgumentParser(description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument('--steps', type=int, default=200_000, help='env steps per repeat')
  parser.add_argument('--repeats', type=int, default=5)
  parser.add_argument('--json', action='store_true')
  parser.add_argument('--agent', choices=['dqn'], help='only the drop-in check of this agent')
  parser.add_argument('--episodes', type=int, default=100, help='episodes for --agent')
  args = parser.parse_args()
  out = {'python': sys.version.split()[0], 'numpy': np.__version__,
         'bsuite_rs': bsuite_rs.__version__}

  checks = []
  if args.agent == 'dqn':
    checks.append(('dqn', 'catch/0', dqn_agent, args.episodes))
  else:
    single_rates = {}
    for bsuite_id in IDS:
      python, ours = single(bsuite_id, args.steps, args.repeats)
      single_rates[bsuite_id] = {'bsuite': python, 'bsuite_rs': ours, 'ratio': ours / python}
    out['single'] = single_rates
    rate, num_envs = vec(args.steps * 5, args.repeats)
    python = single_rates['catch/0']['bsuite']
    out['vec_env'] = {'ids': f'catch/0..{num_envs - 1}', 'env_steps_per_s': rate,
                      'bsuite_catch_steps_per_s': python, 'ratio': rate / python}
    for bsuite_id in ('catch/0', 'deep_sea/0'):
      episodes = bsuite_rs.sweep.EPISODES[bsuite_id]
      checks.append(('random', bsuite_id, random_agent, episodes))

  out['drop_in'] = []
  for agent, bsuite_id, make_agent, episodes in checks:
    same, python_s, ours_s, steps = drop_in(bsuite_id, make_agent, episodes)
    out['drop_in'].append({'agent': agent, 'bsuite_id': bsuite_id, 'episodes': episodes,
                           'steps': steps, 'identical_csv': same, 'bsuite_s': python_s,
                           'bsuite_rs_s': ours_s})

  if args.json:
    print(json.dumps(out, indent=1))
    return
  print(f"Python {out['python']}, numpy {out['numpy']}, bsuite 0.3.6 vs bsuite_rs "
        f"{out['bsuite_rs']}, one process")
  if 'single' in out:
    print(f"\n{'Python loop over load_from_id':<38} {'bsuite/s':>10} {'bsuite_rs/s':>12} "
          f"{'ratio':>7}  target")
    for bsuite_id, r in out['single'].items():
      print(f"{bsuite_id:<38} {r['bsuite']:>10,.0f} {r['bsuite_rs']:>12,.0f} "
            f"{r['ratio']:>6.1f}x  >= {TARGET_SINGLE}x")
    v = out['vec_env']
    print(f"{'VecEnv over ' + v['ids'] + ' (env steps)':<38} "
          f"{v['bsuite_catch_steps_per_s']:>10,.0f} {v['env_steps_per_s']:>12,.0f} "
          f"{v['ratio']:>6.0f}x  >= {TARGET_VEC}x")
  print(f"\n{'drop-in: bsuite experiment.run':<38} {'steps':>10} {'bsuite s':>9} "
        f"{'bsuite_rs s':>12}  same CSV")
  for r in out['drop_in']:
    label = f"{r['agent']} on {r['bsuite_id']}"
    print(f"{label:<38} {r['steps']:>10,} {r['bsuite_s']:>9.2f} {r['bsuite_rs_s']:>12.2f}  "
          f"{'yes' if r['identical_csv'] else 'NO'}")
  if not all(r['identical_csv'] for r in out['drop_in']):
    sys.exit('the drop-in check failed: the CSVs differ')


if __name__ == '__main__':
  main()
