"""No Rust panic reaches Python, and none aborts it (issue 55, item 20): bad input is a
`ValueError`, too much memory a `MemoryError`. The memory cases run in a child process
under an address-space limit, where an abort would kill only the child (rc -6)."""
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np

import bsuite_rs
from conftest import run_random

# The address space the memory cases' children get: 3 GB, as in the issue.
LIMIT = 3_000_000_000


def in_child(code, *args):
  """Runs `code` in a Python child limited to LIMIT bytes of address space; its return
  code and output. The child prints what it caught."""
  prelude = textwrap.dedent(f'''
      import resource, sys
      resource.setrlimit(resource.RLIMIT_AS, ({LIMIT}, {LIMIT}))
      import bsuite_rs
      def caught(call):
        try:
          call()
        except BaseException as error:
          print(type(error).__name__ + ': ' + str(error), flush=True)
          return
        print('nothing raised', flush=True)
  ''')
  # numpy's BLAS threads would reserve address space of their own.
  env = {**os.environ, 'OPENBLAS_NUM_THREADS': '1', 'OMP_NUM_THREADS': '1'}
  done = subprocess.run([sys.executable, '-c', prelude + textwrap.dedent(code), *args],
                        capture_output=True, text=True, timeout=300, env=env)
  return done.returncode, done.stdout + done.stderr


def test_reset_ended_before_any_reset_starts_every_episode():
  """`reset_ended()` before any reset raised `PanicException: copy_from_slice`."""
  batch = bsuite_rs.VecEnv(['catch/0', 'catch/1'])
  observations, rewards, discounts, step_types = batch.reset_ended()
  fresh = bsuite_rs.VecEnv(['catch/0', 'catch/1']).reset()
  assert step_types.tolist() == [0, 0] and rewards.tolist() == [0.0, 0.0]
  assert discounts.tolist() == [1.0, 1.0]
  np.testing.assert_array_equal(observations, fresh[0])
  # Then it resets only what has ended, as before.
  for _ in range(8):
    batch.step([1, 1])
  assert batch.step([1, 1])[3].tolist() == [2, 2]
  assert batch.reset_ended()[3].tolist() == [0, 0]


def test_a_freshly_unpickled_vec_env_resets_what_has_not_started():
  """So did a freshly unpickled VecEnv; its copy replays the partial reset alike."""
  batch = pickle.loads(pickle.dumps(bsuite_rs.VecEnv(['catch/3', 'catch/4'])))
  first = batch.reset_ended()
  twin = pickle.loads(pickle.dumps(batch))
  for k in range(12):
    a, b = batch.step([k % 3, 1]), twin.step([k % 3, 1])
    for x, y in zip(a, b):
      np.testing.assert_array_equal(x, y)
  assert first[3].tolist() == [0, 0]


def multi_seed_results(tmp_path):
  """A directory of two seeds' results of catch/0, recorded here."""
  results = tmp_path / 'seeds'
  for seed in (1, 2):
    env = bsuite_rs.load_and_record_to_csv('catch/0', results, run_seed=seed)
    run_random(env, 10, seed=seed)
    env.close()
  return results


def test_a_bootstrap_past_its_range_is_a_value_error(tmp_path):
  """`reps=2**40` aborted the interpreter (rc 134), `reps=2**63` raised `PanicException:
  capacity overflow`: replicates outside 1,000..=1,000,000, as on the command line, are
  refused before anything is drawn."""
  results = multi_seed_results(tmp_path)
  assert 'intervals' in bsuite_rs.score(results, reps=1000)
  code, said = in_child('''
      for reps in (2**40, 2**63, 2**64, 10**30, 999):
        caught(lambda: bsuite_rs.score(sys.argv[1], reps=reps))
  ''', str(results))
  assert code == 0, said
  lines = said.splitlines()
  assert len(lines) == 5, said
  for line, reps in zip(lines, ('1099511627776', '9223372036854775808',
                                '18446744073709551616', '1' + '0' * 30, '999')):
    assert line.startswith(f'ValueError: reps={reps}: '), line
    assert 'give 1000 to 1000000' in line, line


def test_a_vec_env_too_large_for_the_memory_is_a_memory_error():
  """`VecEnv(['catch/0'] * 2_000_000)` under a 3 GB limit ended in SIGABRT; `num_envs=10**9`
  was not refused up front (a list of 10**9 ids was made first)."""
  code, said = in_child('''
      import bsuite_rs.gym
      caught(lambda: bsuite_rs.VecEnv(['catch/0'] * 2_000_000))
      caught(lambda: bsuite_rs.make('catch/0', env_type='dm', num_envs=10**9))
      caught(lambda: bsuite_rs.make('catch/0', num_envs=10**9))
      caught(lambda: bsuite_rs.gym.VectorEnv('catch/0', num_envs=10**9))
      caught(lambda: bsuite_rs.make('catch/0', env_type='dm', num_envs=2**70))
      # What fits is still made.
      batch = bsuite_rs.make('catch/0', env_type='dm', num_envs=20_000)
      print(batch.num_envs, batch.reset()[0].shape, flush=True)
  ''')
  assert code == 0, said
  lines = said.splitlines()
  assert len(lines) == 6, said
  assert lines[0].startswith('MemoryError: a VecEnv of 2000000 environments needs about '), said
  for line in lines[1:4]:
    assert line.startswith('MemoryError: a VecEnv of 1000000000 environments needs about '), said
  assert lines[4].startswith('MemoryError: a VecEnv of 1180591620717411303424 environments'), said
  assert lines[5] == '20000 (20000, 10, 5)', said
