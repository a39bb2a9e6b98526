"""The wheel's `bsuite` command (`bsuite_rs._cli`, a console script into the native module):
it runs the sweep that `cargo xtask bench-all` runs, to the byte; it refuses what the wheel
cannot do with a clear message and writes nothing; a bad command line is clap's status 2;
and Ctrl-C ends it at once, as it ends the binary. Its help texts are the binary's
(smoke_numpy_only.py compares them).
"""
import os
import pathlib
import signal
import subprocess
import sys
import time

from conftest import xtask_command

BSUITE = pathlib.Path(sys.executable).parent / 'bsuite'


def bsuite(*args, **kwargs):
  return subprocess.run([str(BSUITE), *args], capture_output=True, text=True, check=False,
                        **kwargs)


def csvs(directory):
  return {p.name: p.read_bytes() for p in pathlib.Path(directory).glob('*.csv')}


def test_the_command_runs_the_sweep_of_bench_all(tmp_path):
  ids = ['--ids', 'bandit/0', 'catch/1', '--num-episodes', '30', '--no-score', '--plain']
  ours = bsuite('run', 'random', *ids, '--results', str(tmp_path / 'wheel'))
  assert ours.returncode == 0, ours.stderr
  theirs = subprocess.run(
      xtask_command() + ['bench-all', 'random', *ids, '--results', str(tmp_path / 'xtask')],
      env={**os.environ, 'XTASK_NO_REEXEC': '1'}, capture_output=True, text=True, check=False)
  assert theirs.returncode == 0, theirs.stderr
  assert len(csvs(tmp_path / 'wheel')) == 2
  assert csvs(tmp_path / 'wheel') == csvs(tmp_path / 'xtask')
  scored = bsuite('score', str(tmp_path / 'wheel'), '--json')
  assert scored.returncode == 0, scored.stderr
  assert '"bandit"' in scored.stdout and '"catch"' in scored.stdout


def test_the_libtorch_engine_is_refused_and_nothing_is_written(tmp_path):
  results = tmp_path / 'dqn'
  for flag in (['--engine', 'libtorch'], ['--device', 'cuda']):
    refused = bsuite('run', 'dqn', '--ids', 'catch/0', '--results', str(results), *flag)
    assert refused.returncode == 1, refused.stderr
    assert 'not in the Python wheel' in refused.stderr, refused.stderr
    assert 'host engine' in refused.stderr, refused.stderr
    assert not results.exists()


def test_a_bad_command_line_is_clap_s_usage_error():
  missing = bsuite('run')
  assert missing.returncode == 2
  assert 'Usage: bsuite run' in missing.stderr, missing.stderr
  unknown = bsuite('runn')
  assert unknown.returncode == 2 and "unrecognized subcommand 'runn'" in unknown.stderr


def test_ctrl_c_ends_a_sweep_at_once(tmp_path):
  # The whole sweep: minutes, unless SIGINT ends it.
  run = subprocess.Popen([str(BSUITE), 'run', 'random', '--plain', '--jobs', '1', '--results',
                          str(tmp_path / 'all')], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
  try:
    first = run.stderr.readline()
    assert 'bsuite run: random on 468 ids' in first, first
    time.sleep(0.5)
    assert run.poll() is None, 'the sweep ended before Ctrl-C'
    run.send_signal(signal.SIGINT)
    run.wait(timeout=20)
    assert run.returncode == -signal.SIGINT, run.returncode
  finally:
    if run.poll() is None:
      run.kill()
      run.wait()
