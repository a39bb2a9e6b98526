"""`load_and_record_to_csv` writes the bytes `cargo xtask bench-all` writes for the same
agent actions.

The agent is bench-all's random agent: one `RandomState(42).randint(num_actions)` draw per
step. Two comparisons:

- full runs (every episode of the experiment) of one id per experiment against
  tests/fixtures/random_results/, the files the real bsuite 0.3.6 wrote for this agent, which
  `cargo xtask bench-all random` reproduces byte for byte
  (crates/bsuite-baselines/tests/random_conformance.rs checks that);
- 100-episode runs of 15 ids against bench-all run now, by this test.
"""
import os
import subprocess

import numpy as np

import bsuite_rs
from conftest import FIXTURES, RandomAgent, run_random, xtask_command

# One id per experiment, all in full: 6.1 million steps.
FULL_RUNS = (
    'bandit/0', 'bandit_noise/12', 'bandit_scale/16', 'cartpole/3', 'cartpole_noise/8',
    'cartpole_scale/16', 'cartpole_swingup/0', 'catch/0', 'catch_noise/16', 'catch_scale/12',
    'deep_sea/0', 'deep_sea_stochastic/0', 'discounting_chain/2', 'memory_len/5',
    'memory_size/12', 'mnist/0', 'mnist_noise/12', 'mnist_scale/16', 'mountain_car/0',
    'mountain_car_noise/0', 'mountain_car_scale/0', 'umbrella_distract/15', 'umbrella_length/5',
)


def file_name(bsuite_id):
  experiment, index = bsuite_rs.unpack_bsuite_id(bsuite_id)
  return f'bsuite_id_-_{experiment}-{index}.csv'


def test_chunked_draws_are_the_per_step_stream():
  for num_actions in (2, 3, 11):
    one_by_one = np.random.RandomState(42)
    agent = RandomAgent(num_actions, seed=42, chunk=7)
    singles = [int(one_by_one.randint(num_actions)) for _ in range(3000)]
    assert [agent.select_action() for _ in range(3000)] == singles


def test_full_runs_equal_bench_all_files(results_dir):
  pinned = FIXTURES / 'random_results'
  fixture_ids = (FIXTURES / 'random_ids.txt').read_text().split()
  assert {i.split('/')[0] for i in FULL_RUNS} == {i.split('/')[0] for i in bsuite_rs.sweep.SWEEP}
  for bsuite_id in FULL_RUNS:
    assert bsuite_id in fixture_ids
    env = bsuite_rs.load_and_record_to_csv(bsuite_id, results_dir=str(results_dir))
    run_random(env, env.bsuite_num_episodes)
    env.close()
    ours = (results_dir / file_name(bsuite_id)).read_bytes()
    theirs = (pinned / file_name(bsuite_id)).read_bytes()
    assert ours == theirs, f'{bsuite_id}: the CSV differs from bench-all\'s'
  # One results file per id and nothing else (no temporary files left behind) but the
  # directory's lock files, which every writer takes.
  written = [p.name for p in results_dir.iterdir() if not p.name.startswith('.bsuite-lock')]
  assert sorted(written) == sorted(map(file_name, FULL_RUNS))


def test_short_runs_equal_bench_all_run_now(tmp_path):
  ids = list(bsuite_rs.sweep.TESTING) + ['catch_noise/3', 'deep_sea/4']
  bench = tmp_path / 'bench_all'
  subprocess.run(
      xtask_command() + ['bench-all', 'random', '--ids', *ids, '--results', str(bench),
                         '--num-episodes', '100', '--plain', '--no-score'],
      check=True, env={**os.environ, 'XTASK_NO_REEXEC': '1'})
  ours = tmp_path / 'python'
  for bsuite_id in ids:
    env = bsuite_rs.load_and_record(bsuite_id, str(ours), logging_mode='csv')
    run_random(env, 100)
    env.flush()
    theirs = (bench / file_name(bsuite_id)).read_bytes()
    assert (ours / file_name(bsuite_id)).read_bytes() == theirs, (
        f'{bsuite_id}: the CSV differs from bench-all\'s')
