"""Several seeds of an agent from Python: `run_seed` and `run_seeds` record each seed into
its `seed-<s>/` directory, as `cargo xtask bench-all --seeds` does, and `score` reads the
directory as one agent over seeds."""
import os
import subprocess

import numpy as np
import pytest

import bsuite_rs
from conftest import RandomAgent, run_random, xtask_command

IDS = ['bandit/0', 'catch/0', 'deep_sea/2']


def file_name(bsuite_id):
  return 'bsuite_id_-_' + bsuite_id.replace('/', '-') + '.csv'


def test_run_seeds_equal_bench_all_seeds(tmp_path):
  """The random agent seeded 42 and 43, recorded with run_seed, writes the files of
  `bench-all random --seeds 2`, seed directory for seed directory."""
  bench = tmp_path / 'bench_all'
  subprocess.run(
      xtask_command() + ['bench-all', 'random', '--ids', *IDS, '--results', str(bench),
                         '--seeds', '2', '--num-episodes', '100', '--plain', '--no-score'],
      check=True, env={**os.environ, 'XTASK_NO_REEXEC': '1'})
  ours = tmp_path / 'python'
  for seed in (42, 43):
    for bsuite_id in IDS:
      env = bsuite_rs.load_and_record_to_csv(bsuite_id, ours, run_seed=seed)
      run_random(env, 100, seed=seed)
      env.close()
  for seed in (42, 43):
    for bsuite_id in IDS:
      name = f'seed-{seed}/{file_name(bsuite_id)}'
      assert (ours / name).read_bytes() == (bench / name).read_bytes(), name
  scores = bsuite_rs.score(ours)
  assert scores['seeds'] == [42, 43]
  assert scores['intervals']['experiments']['catch']['seeds'] == 2
  # The report draws the directory as one agent over its two seeds, as `xtask report` does.
  written = bsuite_rs.report({'mine': ours}, tmp_path / 'report')
  html = (tmp_path / 'report' / 'index.html').read_text()
  assert 'mine</b>' in html and '2 seeds (42, 43)' in html
  assert any(f.endswith('performance_profile.svg') for f in written['files'])
  # Files of no named seed never go beside seed directories, nor seeds beside them.
  with pytest.raises(FileExistsError, match='holds the seed directories'):
    bsuite_rs.load_and_record_to_csv('catch/1', ours)
  with pytest.raises(FileExistsError, match='holds the files of a single-seed run'):
    bsuite_rs.load_and_record_to_csv('catch/1', ours / 'seed-42', run_seed=0)
  assert not (ours / file_name('catch/1')).exists()
  assert not (ours / 'seed-42' / 'seed-0').exists()


def test_a_vec_env_runs_seeds_side_by_side(tmp_path):
  """One VecEnv over (id, run seed) pairs: each pair logs into its seed's directory, with
  the bytes of one recording Environment per pair given the same actions."""
  ids = ['bandit/0', 'bandit/0', 'deep_sea/0', 'deep_sea/0']
  deep_sea_ids = ids[2:]
  run_seeds = [5, 6, 5, 6]
  vec = bsuite_rs.VecEnv(deep_sea_ids, tmp_path / 'vec', run_seeds=np.array([5, 6]))
  envs = [bsuite_rs.load_and_record_to_csv(i, tmp_path / 'one', run_seed=s)
          for i, s in zip(deep_sea_ids, [5, 6])]
  agents = [RandomAgent(2, seed=s) for s in (5, 6)]
  vec.reset()
  for env in envs:
    env.reset()
  ended = [False, False]
  for _ in range(11 * 30):
    actions = [0 if ended[k] else agents[k].select_action() for k in range(2)]
    _, _, _, step_type = vec.step(actions)
    for k, env in enumerate(envs):
      timestep = env.step(actions[k])
      assert step_type[k] == timestep.step_type
      ended[k] = bool(timestep.last())
  vec.flush()
  for env in envs:
    env.close()
  for seed in (5, 6):
    name = f'seed-{seed}/{file_name("deep_sea/0")}'
    assert (tmp_path / 'vec' / name).read_bytes() == (tmp_path / 'one' / name).read_bytes()
  with pytest.raises(ValueError, match='bandit/0 of run seed 5 appears twice'):
    bsuite_rs.VecEnv(ids + ['bandit/0'], tmp_path / 'dup', run_seeds=run_seeds + [5])
  with pytest.raises(ValueError, match='3 run_seeds for 4 bsuite_ids'):
    bsuite_rs.VecEnv(ids, tmp_path / 'dup', run_seeds=run_seeds[:3])
  assert not (tmp_path / 'dup').exists()


def test_a_run_seed_needs_a_results_directory():
  with pytest.raises(ValueError, match='give results_dir too'):
    bsuite_rs.Environment('catch/0', run_seed=1)
  with pytest.raises(ValueError, match='give record_to too'):
    bsuite_rs.VecEnv(['catch/0'], run_seeds=[1])
  with pytest.raises(ValueError, match='a run seed is an integer'):
    bsuite_rs.Environment('catch/0', results_dir='unused', run_seed=-1)
  with pytest.raises(ValueError, match='the terminal has none'):
    bsuite_rs.load_and_record('catch/0', 'unused', logging_mode='terminal', run_seed=1)
  assert not os.path.exists('unused')
