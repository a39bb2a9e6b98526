"""Bad input raises Python exceptions with the Rust message: ValueError for bad ids,
settings and actions, OSError for files."""
import shutil
import time

import numpy as np
import pytest

import bsuite_rs


@pytest.mark.parametrize('bsuite_id,message', [
    ('catch/20', r"index 20 is out of range; catch has indices 0\.\.=19"),
    ('cat/0', "unknown experiment 'cat'"),
    ('catch', 'malformed bsuite_id'),
    ('catch/-1', 'malformed bsuite_id'),
    ('catch/99999999999999999999999', 'out of range'),
])
def test_bad_ids_are_value_errors(bsuite_id, message):
  for load in (bsuite_rs.load_from_id, bsuite_rs.load, bsuite_rs.gym.make):
    with pytest.raises(ValueError, match=message):
      load(bsuite_id)
  with pytest.raises(ValueError, match=message):
    bsuite_rs.VecEnv([bsuite_id])


def test_bad_actions_are_value_errors():
  env = bsuite_rs.load_from_id('bandit/0')
  env.reset()
  for action, message in ((11, 'action 11 is out of range'), (-1, 'action -1 is out of range'),
                          (1.0, 'action 1.0 is not an integer'),
                          ('1', "action '1' is not an integer"),
                          (None, 'action None is not an integer'),
                          (np.array([1, 2]), 'is not an integer')):
    with pytest.raises(ValueError, match=message):
      env.step(action)
  # Integers of any kind are actions: numpy scalars and 0-d arrays included.
  for action in (np.int64(3), np.int32(3), np.uint8(3), np.array(3), True):
    env.step(action)
  gym_env = bsuite_rs.gym.make('bandit/0')
  gym_env.reset()
  with pytest.raises(ValueError, match='action 11 is out of range'):
    gym_env.step(11)


def test_bad_settings_and_seeds_are_value_errors():
  cases = (
      (lambda: bsuite_rs.load('catch', {'rows': 5}), "catch takes no argument 'rows'"),
      (lambda: bsuite_rs.load('bandit', {'mapping_seed': 99}), 'no setting of bandit'),
      (lambda: bsuite_rs.load('catch', {'seed': 1.5}), 'is not a seed'),
      (lambda: bsuite_rs.load('catch', {'seed': 'x'}), 'is not a setting value'),
      (lambda: bsuite_rs.load('nope', {}), "unknown experiment 'nope'"),
      (lambda: bsuite_rs.Environment('catch/0', env_seed=-1), 'not -1'),
      (lambda: bsuite_rs.Environment('catch/0', env_seed=2**32), 'not 4294967296'),
      (lambda: bsuite_rs.VecEnv(['catch/0'], env_seeds=[0.5]), 'not 0.5'),
      (lambda: bsuite_rs.load_and_record('catch/0', '/tmp', logging_mode='json'),
       'unknown logging_mode "json"'),
      (lambda: bsuite_rs.Environment('catch/0', results_dir='/tmp', terminal=True), 'not both'),
  )
  for make, message in cases:
    with pytest.raises(ValueError, match=message):
      make()


def test_an_existing_results_file_is_both_oserror_and_valueerror(tmp_path):
  bsuite_rs.load_and_record_to_csv('bandit/0', str(tmp_path)).step(0)
  # The first row is written once the first episode ends.
  env = bsuite_rs.load_and_record_to_csv('bandit/0', str(tmp_path / 'second'))
  env.reset()
  env.step(0)
  env.flush()
  path = tmp_path / 'second' / 'bsuite_id_-_bandit-0.csv'
  assert path.is_file()
  with pytest.raises(bsuite_rs.ResultsFileExistsError) as error:
    bsuite_rs.load_and_record_to_csv('bandit/0', str(tmp_path / 'second'))
  assert isinstance(error.value, FileExistsError) and isinstance(error.value, ValueError)
  assert error.value.filename == str(path) and 'already exists' in str(error.value)
  # Replacing it waits for its writer to close (test_one_writer.py).
  env.close()
  bsuite_rs.load_and_record_to_csv('bandit/0', str(tmp_path / 'second'), overwrite=True)


def test_file_problems_are_oserrors(tmp_path):
  not_a_dir = tmp_path / 'file'
  not_a_dir.write_text('')
  with pytest.raises(OSError):
    bsuite_rs.load_and_record_to_csv('catch/0', str(not_a_dir))
  with pytest.raises(OSError):
    bsuite_rs.VecEnv(['catch/0'], record_to=str(not_a_dir))

  # A results directory that disappears during a run: flush reports the failed write.
  results = tmp_path / 'results'
  env = bsuite_rs.load_and_record_to_csv('bandit/0', str(results))
  env.reset()
  env.step(0)
  env.flush()
  shutil.rmtree(results)
  env.reset()
  env.step(0)
  with pytest.raises(FileNotFoundError, match='bsuite_id_-_bandit-0.csv'):
    env.flush()

  # Without flush, the failure surfaces when a later episode ends (the write is in the
  # background): step raises OSError there.
  env = bsuite_rs.load_and_record_to_csv('bandit/1', str(results))
  env.reset()
  env.step(0)
  env.flush()
  shutil.rmtree(results)
  with pytest.raises(OSError, match='bsuite_id_-_bandit-1.csv'):
    for _ in range(500):
      env.reset()
      env.step(0)
      time.sleep(0.01)


def test_closed_environments_refuse_to_step():
  env = bsuite_rs.load_from_id('catch/0')
  env.close()
  env.close()
  with pytest.raises(ValueError, match='is closed'):
    env.reset()
  with pytest.raises(ValueError, match='is closed'):
    env.step(0)
  assert env.bsuite_info() == {'total_regret': 0.0}
  with bsuite_rs.load_from_id('catch/1') as env:
    env.reset()
  with pytest.raises(ValueError, match='is closed'):
    env.reset()


def test_messages_say_what_was_wrong_in_python_terms(tmp_path):
  env = bsuite_rs.load_from_id('bandit/0')
  env.reset()
  # An integer too large for any id is out of range, not "not an integer".
  with pytest.raises(ValueError, match=r'action 1180591620717411303424 is out of range'):
    env.step(2**70)
  vec = bsuite_rs.VecEnv(['bandit/0'])
  vec.reset()
  with pytest.raises(ValueError, match=r'actions\[0\] = 9223372036854775809 is out of range'):
    vec.step(np.array([2**63 + 1], np.uint64))
  bsuite_rs.load_and_record_to_csv('bandit/0', str(tmp_path)).step(0)
  env = bsuite_rs.load_and_record_to_csv('bandit/0', str(tmp_path / 'again'))
  env.reset()
  env.step(0)
  env.flush()
  del env
  with pytest.raises(bsuite_rs.ResultsFileExistsError) as error:
    bsuite_rs.load_and_record_to_csv('bandit/0', str(tmp_path / 'again'))
  assert 'overwrite=True' in str(error.value) and '--overwrite' not in str(error.value)
