"""Recording is a writer like any run: `load_and_record*` and `VecEnv(record_to=...)` take
the results directory's lock and check its manifest, so that a recording never mixes its
file into a run's directory, and a run never adopts a directory being recorded into. Real
`bench-all` processes."""
import time

import pytest

import bsuite_rs
from conftest import bench_all, run_random


def test_recording_is_refused_while_a_run_holds_the_directory(tmp_path):
  results = tmp_path / 'pylock'
  run = bench_all(results, '--ids', 'SWEEP')
  try:
    lock = results / '.bsuite-lock'
    deadline = time.time() + 60
    while f'pid {run.pid}' not in (lock.read_text() if lock.exists() else ''):
      assert time.time() < deadline, 'bench-all took no lock'
      time.sleep(0.02)
    for record in (lambda: bsuite_rs.load_and_record_to_csv('catch/19', results_dir=str(results)),
                   lambda: bsuite_rs.load_and_record('catch/19', str(results)),
                   lambda: bsuite_rs.VecEnv(['catch/19'], record_to=str(results))):
      with pytest.raises(BlockingIOError, match='in use by another run'):
        record()
    assert run.poll() is None, 'bench-all ended before the check'
  finally:
    run.kill()
    run.wait()
  assert not (results / 'bsuite_id_-_catch-19.csv').exists()


def test_a_runs_directory_is_not_recorded_into(tmp_path):
  results = tmp_path / 'run'
  done = bench_all(results, '--ids', 'catch/0', '--num-episodes', '3')
  assert done.wait() == 0, done.stderr.read()
  with pytest.raises(FileExistsError, match='agent random, seed 42'):
    bsuite_rs.load_and_record_to_csv('catch/19', results_dir=str(results))
  assert not (results / 'bsuite_id_-_catch-19.csv').exists()


def test_a_run_waits_for_recorders(tmp_path):
  results = tmp_path / 'recorded'
  env = bsuite_rs.load_and_record_to_csv('catch/0', results_dir=str(results))
  run_random(env, 3)
  refused = bench_all(results, '--ids', 'catch/1', '--num-episodes', '3')
  assert refused.wait() != 0
  assert 'being recorded into' in refused.stderr.read()
  env.flush()
  del env
  # Done recording: the directory holds CSVs that no manifest vouches for.
  unclaimed = bench_all(results, '--ids', 'catch/1', '--num-episodes', '3')
  assert unclaimed.wait() != 0
  assert 'no bsuite_run.json' in unclaimed.stderr.read()


def test_recording_nowhere_is_an_error():
  with pytest.raises(TypeError, match='results_dir'):
    bsuite_rs.load_and_record_to_csv('catch/0', results_dir=None)
  with pytest.raises(TypeError, match='results_dir'):
    bsuite_rs.load_and_record('catch/0', None)
