"""Values taken as given and messages in Python's terms (issue 55, item 21): seeds never
wrap, counts are never rounded, a closed vector environment stays closed, paths are the
ones given (bytes and undecodable ones included, relative ones as of the call), errors
give no command-line advice, and what can never be copied keeps no copy history."""
import ctypes
import json
import os
import pickle
import re
import time

import gymnasium
import numpy as np
import pytest

import bsuite_rs
import bsuite_rs.gym
from bsuite_rs import _pickle
from conftest import FIXTURES, bench_all, run_random

READABLE_TIME = re.compile(r'since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC')


def test_vector_seeds_never_wrap_and_name_the_seed_given():
  """`reset(seed=np.uint32(2**32-1))` on three environments gave env seeds (4294967295, 0,
  1); `seed=2**32-1` said "seed 4294967296 is not in ...", a seed never passed."""
  envs = bsuite_rs.gym.VectorEnv('catch/0', num_envs=3)
  for seed in (np.uint32(2**32 - 1), 2**32 - 1, np.int64(2**32 - 2)):
    with pytest.raises(ValueError) as refused:
      envs.reset(seed=seed)
    message = str(refused.value)
    assert message.startswith(f'seed {int(seed)} gives environment k of 3 the env seed'), message
    assert 'give a seed of at most 4294967293' in message, message
  assert envs.env_seeds == (0, 1, 2)
  envs.reset(seed=np.uint32(2**32 - 3))
  assert envs.env_seeds == (2**32 - 3, 2**32 - 2, 2**32 - 1)
  for seed in (-1, 2**32, 1.0, '1', True):
    with pytest.raises(ValueError, match='seed'):
      envs.reset(seed=seed)
  with pytest.raises(ValueError, match='seed 4294967296 is not in 0..=4294967295'):
    envs.reset(seed=[1, 2, 2**32])
  with pytest.raises(ValueError, match='gives environment k of 3'):
    bsuite_rs.make('catch/0', env_type='dm', num_envs=3, seed=np.uint32(2**32 - 1))
  dm = bsuite_rs.make('catch/0', env_type='dm', num_envs=3, seed=np.uint32(2**32 - 3))
  assert dm.env_seeds == (2**32 - 3, 2**32 - 2, 2**32 - 1)


@pytest.mark.parametrize('num_envs', [1.5, '4', 0, -2, True])
def test_num_envs_is_a_whole_number_of_at_least_one(num_envs):
  """`num_envs=1.5` became 1 and `'4'` became 4."""
  makers = (lambda: bsuite_rs.make('catch/0', env_type='dm', num_envs=num_envs),
            lambda: bsuite_rs.make('catch/0', num_envs=num_envs),
            lambda: gymnasium.make_vec('bsuite/catch-0', num_envs=num_envs),
            lambda: bsuite_rs.gym.VectorEnv('catch/0', num_envs=num_envs))
  for make in makers:
    with pytest.raises(ValueError, match='num_envs is a whole number of environments'):
      make()
  assert bsuite_rs.make('catch/0', env_type='dm', num_envs=np.int64(2)).num_envs == 2


def test_a_closed_vector_env_stays_closed():
  """After `close()`, `step()` and `reset()` raised `AttributeError: 'NoneType' ...`, and
  `reset(seed=1)` silently revived it."""
  envs = bsuite_rs.gym.VectorEnv('catch/0', num_envs=2)
  envs.reset()
  envs.close()
  for call in (lambda: envs.step(np.array([0, 0])), envs.reset,
               lambda: envs.reset(seed=1), lambda: envs.reset(seed=[1, 2])):
    with pytest.raises(ValueError, match='is closed'):
      call()
  assert envs.closed


def test_an_empty_results_dir_is_refused(tmp_path, monkeypatch):
  """`load_and_record_to_csv(id, '')` recorded into the current directory; bsuite raises."""
  monkeypatch.chdir(tmp_path)
  for make in (lambda: bsuite_rs.load_and_record_to_csv('catch/0', ''),
               lambda: bsuite_rs.load_and_record('catch/0', b''),
               lambda: bsuite_rs.Environment('catch/0', results_dir=''),
               lambda: bsuite_rs.VecEnv(['catch/0'], record_to='')):
    with pytest.raises(ValueError, match="is an empty path; name a directory"):
      make()
  assert os.listdir(tmp_path) == []


def test_a_relative_results_dir_is_where_it_was_when_recording_began(tmp_path, monkeypatch):
  """After `os.chdir`, a relative `results_dir` made the next write raise from `step()` and
  leave a stray `.tmp`."""
  first, elsewhere = tmp_path / 'first', tmp_path / 'elsewhere'
  first.mkdir()
  elsewhere.mkdir()
  monkeypatch.chdir(first)
  env = bsuite_rs.load_and_record_to_csv('catch/0', 'results')
  batch = bsuite_rs.VecEnv(['catch/1'], record_to='results')
  monkeypatch.chdir(elsewhere)
  run_random(env, 20)
  for _ in range(30):
    batch.step([0])
  env.close()
  batch.close()
  names = sorted(p.name for p in (first / 'results').iterdir() if not p.name.startswith('.'))
  assert names == ['bsuite_id_-_catch-0.csv', 'bsuite_id_-_catch-1.csv']
  assert not [p for p in (first / 'results').iterdir() if p.name.endswith('.tmp')]
  assert os.listdir(elsewhere) == []


def test_report_paths_may_be_bytes_and_come_back_losslessly(tmp_path):
  """`report(out=...)` returned a lossy `out_dir` for a non-UTF-8 path, and bytes paths were
  refused with a TypeError."""
  results = os.fsencode(tmp_path) + b'/results-\xff'
  out = os.fsencode(tmp_path) + b'/report-\xfe'
  env = bsuite_rs.load_and_record_to_csv('catch/0', results)
  run_random(env, 10)
  env.close()
  written = bsuite_rs.report([results], out=out)
  assert isinstance(written['out_dir'], str)
  assert os.fsencode(written['out_dir']) == out
  assert os.path.isfile(os.path.join(out, b'index.html'))
  assert all(os.path.exists(os.path.join(out, os.fsencode(f))) for f in written['files'])
  assert list(bsuite_rs.score(results)['ids']) == ['catch/0']


def test_python_errors_give_no_command_line_advice(tmp_path):
  """They said "pass --overwrite ... another --out", flags that Python has not."""
  results = tmp_path / 'results'
  env = bsuite_rs.load_and_record_to_csv('catch/0', results)
  run_random(env, 10)
  env.close()
  out = tmp_path / 'report'
  out.mkdir()
  (out / 'index.html').write_text('mine')
  with pytest.raises(FileExistsError) as foreign:
    bsuite_rs.report([results], out=out)
  other = tmp_path / 'other'
  bsuite_rs.load_and_record_to_csv('catch/1', other).close()
  with pytest.raises(FileExistsError) as into_results:
    bsuite_rs.report([results], out=other)
  with pytest.raises(ValueError) as twice:
    bsuite_rs.report([('a', results), ('a', FIXTURES / 'random_results')], out=tmp_path / 'r')
  assert 'pass overwrite=True' in str(foreign.value)
  assert 'another out' in str(into_results.value)
  assert "report({'first': dir1, 'second': dir2})" in str(twice.value)
  for error in (foreign, into_results, twice):
    assert '--' not in str(error.value) and 'DIR=NAME' not in str(error.value), error.value


def test_a_runs_unfinished_overwrite_is_described_without_its_flag(tmp_path):
  """A recorder refused by a run's manifest quoted it as "an unfinished --overwrite: run it
  again to finish"."""
  results = tmp_path / 'run'
  first = bench_all(results, '--ids', 'catch/0', 'catch/1', '--num-episodes', '3')
  assert first.wait() == 0, first.stderr.read()
  partial = bench_all(results, '--ids', 'catch/0', '--num-episodes', '4', '--overwrite')
  assert partial.wait() == 0, partial.stderr.read()
  with pytest.raises(FileExistsError) as refused:
    bsuite_rs.load_and_record_to_csv('catch/2', results)
  message = str(refused.value)
  assert 'agent random, seed 42, 4 episodes per id' in message, message
  assert '--' not in message, message


def test_a_busy_directory_says_since_when_in_calendar_time(tmp_path):
  """The lock message showed a raw Unix time."""
  results = tmp_path / 'busy'
  run = bench_all(results, '--ids', 'SWEEP')
  try:
    lock = results / '.bsuite-lock'
    deadline = time.time() + 60
    while f'pid {run.pid}' not in (lock.read_text() if lock.exists() else ''):
      assert time.time() < deadline, 'bench-all took no lock'
      time.sleep(0.02)
    with pytest.raises(BlockingIOError) as refused:
      bsuite_rs.load_and_record_to_csv('catch/19', results)
  finally:
    run.kill()
    run.wait()
  message = str(refused.value)
  assert READABLE_TIME.search(message) and 'Unix' not in message, message
  assert '--' not in message, message


def test_score_arguments_are_named_when_wrong(tmp_path):
  """`reps=-1` said "can't convert negative int to unsigned", `bootstrap_seed=-1` "out of
  range integral type conversion"."""
  results = FIXTURES / 'random_results'
  for reps in (1.5, '10', True):
    with pytest.raises(ValueError, match=re.escape(
        f'reps is a whole number of bootstrap replicates, 1000 to 1000000, not {reps!r}')):
      bsuite_rs.score(results, reps=reps)
  for reps in (-1, 0, 20):
    with pytest.raises(ValueError, match=re.escape(f'reps={reps}: ')):
      bsuite_rs.score(results, reps=reps)
  for seed in (-1, 2**32, 0.5):
    with pytest.raises(ValueError, match=re.escape(
        f'bootstrap_seed is an integer in 0..=4294967295, not {seed!r}')):
      bsuite_rs.score(results, bootstrap_seed=seed)
  assert bsuite_rs.score(results, reps=np.int64(1000), bootstrap_seed=np.uint32(7))['ids']


def full_history(cls, ids):
  """A `cls` of bandit ids whose copy history is full (64 MiB, replayed from a pickle),
  stepped once more."""
  n = len(ids)
  history = bytes([255] * n) + bytes((64 << 20) - n)
  if cls is bsuite_rs.Environment:
    env = _pickle.restore_env(cls, ids[0], 0, history)
    env.step(0)
  else:
    env = _pickle.restore_vec_env(cls, ids, [0] * n, history)
    env.step([0] * n)
  return env


@pytest.mark.parametrize('cls,ids', [(bsuite_rs.Environment, ['bandit/0']),
                                     (bsuite_rs.VecEnv, ['bandit/0', 'bandit/1'])])
def test_the_copy_limit_gives_advice_that_can_be_followed(cls, ids):
  """The 64 MiB copy limit said "reseed it", but the dm Environment and the native VecEnv
  have no seeded reset."""
  env = full_history(cls, ids)
  with pytest.raises(ValueError, match='cannot be pickled or copied') as refused:
    pickle.dumps(env)
  assert 'reseed' not in str(refused.value)
  assert 'copy it earlier, or copy a newly loaded one' in str(refused.value)


def resident_bytes():
  """This process's resident memory, once the C allocator has given its free pages back
  (`malloc_trim`), so that memory freed shows as memory no longer resident."""
  try:
    ctypes.CDLL('libc.so.6').malloc_trim(0)
  except (OSError, AttributeError):
    pytest.skip('needs glibc (malloc_trim) to see freed memory')
  with open('/proc/self/statm') as statm:
    return int(statm.read().split()[1]) * os.sysconf('SC_PAGE_SIZE')


def test_what_can_never_be_copied_keeps_no_copy_history(tmp_path):
  """Recording environments, which can never be copied, kept the copy history (one byte
  per environment and step), even after `close()`. 200 environments take 40,000 steps:
  8 MB of history, where the loggers' own rows take about 1 MB."""
  ids = list(bsuite_rs.sweep.CATCH) * 10
  seeds = [k // 20 for k in range(200)]
  batch = bsuite_rs.VecEnv(ids, record_to=tmp_path / 'seeds', run_seeds=seeds)
  actions = np.ones(200, np.int64)
  for _ in range(2_000):
    batch.step(actions)
  before = resident_bytes()
  for _ in range(40_000):
    batch.step(actions)
  grown = resident_bytes() - before
  assert grown < 3_000_000, grown
  batch.close()
  # A bare batch keeps it (it can be copied) until it is closed.
  bare = bsuite_rs.VecEnv(ids)
  for _ in range(40_000):
    bare.step(actions)
  kept = resident_bytes()
  bare.close()
  assert kept - resident_bytes() > 6_000_000
  with pytest.raises(ValueError, match='closed'):
    pickle.dumps(bare)


def test_the_native_vec_env_has_bsuite_num_episodes():
  batch = bsuite_rs.VecEnv(['catch/0', 'catch/1'])
  assert batch.bsuite_num_episodes == (10_000, 10_000)
  assert bsuite_rs.VecEnv(['bandit/0']).bsuite_num_episodes == (
      bsuite_rs.load_from_id('bandit/0').bsuite_num_episodes,)


def test_score_warns_of_each_seeds_unfinished_overwrite(tmp_path):
  """Python's `score` said nothing where a seed's `--overwrite` was cut short, though
  `cargo xtask score` warns: the seed's files are then two runs' scores mixed."""
  results = tmp_path / 'seeds'
  run = bench_all(results, '--ids', 'catch/0', 'catch/1', '--num-episodes', '5',
                  '--seeds', '2')
  assert run.wait() == 0, run.stderr.read()
  manifest_path = results / 'seed-43' / 'bsuite_run.json'
  manifest = json.loads(manifest_path.read_text())
  manifest['overwriting'] = {'replacing': 'agent random, seed 43, 99 episodes per id',
                             'files': ['bsuite_id_-_catch-1.csv']}
  manifest_path.write_text(json.dumps(manifest))
  with pytest.warns(UserWarning) as caught:
    bsuite_rs.score(results, reps=1000)
  said = [str(w.message) for w in caught]
  assert any('seed 43: 1 of its files are still those of agent random, seed 43, 99 '
             'episodes per id' in s for s in said), said
  assert not any('seed 42' in s for s in said), said
