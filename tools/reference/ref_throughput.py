"""Steps per second of bsuite 0.3.6's environments, without and with its CSV logging: the
Python side of `cargo xtask bench envs --python PY`.

  python tools/reference/ref_throughput.py [--steps 20000] [--repeats 7] [--json] [IDS...]

Per id and repeat, a freshly built environment (and for the logged figure a fresh
temporary results directory and bsuite.load_and_record_to_csv) takes --steps actions drawn
beforehand from RandomState(0).randint(num_actions) as Python ints; after each last
timestep it is reset, inside the timed loop, and resets are not counted as steps. The
median over the repeats is reported: a Markdown table with the min..max range, or with
--json {bsuite_id: {"bare": steps/s, "logged": steps/s}}, the schema xtask reads.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bsuite_ref  # noqa: E402

# The ids `cargo xtask bench envs` measures by default.
IDS = ('catch/0', 'deep_sea/20', 'cartpole/0', 'mountain_car/0', 'memory_len/10',
       'umbrella_length/10', 'discounting_chain/0', 'bandit/0', 'mnist/0')


def steps_per_second(env, steps):
  actions = np.random.RandomState(0).randint(env.action_spec().num_values, size=steps)
  actions = [int(a) for a in actions]
  begin = time.perf_counter()
  timestep = env.reset()
  for action in actions:
    timestep = env.step(action)
    if timestep.last():
      timestep = env.reset()
  return steps / (time.perf_counter() - begin)


def measure(bsuite_id, steps, repeats):
  bare, logged = [], []
  for _ in range(repeats):
    bare.append(steps_per_second(bsuite_ref.load(bsuite_id, 0), steps))
    with tempfile.TemporaryDirectory() as results_dir:
      env = bsuite_ref.load(bsuite_id, 0, results_dir=results_dir, overwrite=True)
      logged.append(steps_per_second(env, steps))
  return bare, logged


def main():
  p = argparse.ArgumentParser(description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument('ids', nargs='*', default=list(IDS))
  p.add_argument('--steps', type=int, default=20000)
  p.add_argument('--repeats', type=int, default=7)
  p.add_argument('--json', action='store_true', help='print medians as JSON')
  a = p.parse_args()
  medians = {}
  if not a.json:
    print('| bsuite_id | bare steps/s | csv-logged steps/s |')
    print('| --- | ---: | ---: |')
  for bsuite_id in a.ids:
    bare, logged = measure(bsuite_id, a.steps, a.repeats)
    medians[bsuite_id] = {'bare': statistics.median(bare), 'logged': statistics.median(logged)}
    if not a.json:
      cell = lambda xs: f'{statistics.median(xs):,.0f} ({min(xs):,.0f}..{max(xs):,.0f})'
      print(f'| {bsuite_id} | {cell(bare)} | {cell(logged)} |', flush=True)
  if a.json:
    print(json.dumps(medians, indent=1))


if __name__ == '__main__':
  main()
