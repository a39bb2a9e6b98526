"""One writer per results file (issue 55, item 19): a second recorder of an id that is being
recorded into a directory is refused when it opens, in another process or in the same one,
even with `overwrite=True`, so that no recorder's rows are lost to another's. Real
processes, real races, real files."""
import fcntl
import os
import subprocess
import sys

import pytest

import bsuite_rs
from conftest import run_random

# A recorder of catch/0 in its own process. It imports bsuite_rs, waits for the file
# `start` (so that several open at once), opens the recorder, says whether it was
# refused, waits for the file `go`, then records `episodes` episodes and closes.
RECORDER = r'''
import os, sys, time
import bsuite_rs
results, episodes, overwrite, start, go = sys.argv[1:]
def wait_for(path):
  while not os.path.exists(path):
    time.sleep(0.002)
wait_for(start)
try:
  env = bsuite_rs.load_and_record_to_csv('catch/0', results, overwrite=overwrite == '1')
except BlockingIOError as error:
  print('refused:', error, flush=True)
  sys.exit(3)
print('open', flush=True)
wait_for(go)
for _ in range(int(episodes)):
  timestep = env.reset()
  while not timestep.last():
    timestep = env.step(1)
env.close()
print('done', flush=True)
'''

CSV = 'bsuite_id_-_catch-0.csv'


def recorder(tmp_path, results, episodes, overwrite, name):
  start, go = tmp_path / f'start-{name}', tmp_path / f'go-{name}'
  process = subprocess.Popen(
      [sys.executable, '-c', RECORDER, str(results), str(episodes), '1' if overwrite else '0',
       str(start), str(go)],
      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
  return process, start, go


def last_episode(path):
  """The episode of a results file's last row (the column after `steps`)."""
  lines = path.read_text().splitlines()
  return int(lines[-1].split(',')[1])


def test_a_second_process_is_refused_and_the_first_file_survives(tmp_path):
  """The issue's loss: two processes open catch/0 before either has written; the second
  (with overwrite=True, as the README's example) used to be accepted and replace the
  first's long file with its short one."""
  results = tmp_path / 'results'
  first, first_start, first_go = recorder(tmp_path, results, 2000, False, 'first')
  first_start.touch()
  assert first.stdout.readline() == 'open\n', first.stderr.read()
  second, second_start, second_go = recorder(tmp_path, results, 50, True, 'second')
  second_start.touch()
  said = second.stdout.readline()
  # Before either has written a row: the file does not exist yet.
  assert not (results / CSV).exists()
  first_go.touch()
  assert first.wait(timeout=120) == 0, first.stderr.read()
  second_go.touch()
  assert second.wait(timeout=120) == 3, (said, second.stderr.read())
  assert said.startswith('refused: results file ') and CSV in said, said
  assert 'another process (a recorder: pid' in said, said
  assert '--' not in said, said
  assert last_episode(results / CSV) == 2000


@pytest.mark.parametrize('iteration', range(3))
def test_of_four_processes_that_open_at_once_exactly_one_records(tmp_path, iteration):
  """With 4 processes, 2 used to succeed and 2 fail at their first write, and one file
  survived. Now one opens, the other three are refused at once, and the file is the
  winner's, whole (each records a number of episodes of its own, all of them logged ones)."""
  del iteration
  results = tmp_path / 'results'
  start = tmp_path / 'start'
  processes = []
  for k in range(4):
    episodes = 100 * (k + 1)
    process, own_start, go = recorder(tmp_path, results, episodes, True, str(k))
    processes.append((process, own_start, go, episodes))
  for _, own_start, _, _ in processes:
    # One shared start: every recorder waits for its own file, all made together.
    own_start.symlink_to(start)
  start.touch()
  # Every recorder has opened or been refused before any records: they are all open at
  # once, as in the issue.
  opened = []
  for process, _, _, episodes in processes:
    said = process.stdout.readline()
    if said == 'open\n':
      opened.append(episodes)
    else:
      assert process.wait(timeout=60) == 3, (said, process.stderr.read())
      assert said.startswith('refused: ') and 'is being recorded by another process' in said
  for _, _, go, _ in processes:
    go.touch()
  for process, _, _, _ in processes:
    assert process.wait(timeout=120) in (0, 3)
  assert len(opened) == 1, opened
  assert last_episode(results / CSV) == opened[0]
  assert sorted(p.name for p in results.iterdir() if p.suffix == '.tmp') == []


def test_a_second_recorder_in_one_process_is_refused_when_it_opens(tmp_path):
  """In one process the two recorders used to be accepted and one failed mid-step
  (`FileNotFoundError: renaming the temporary file onto ...`), losing its rows."""
  results = tmp_path / 'results'
  first = bsuite_rs.load_and_record_to_csv('catch/0', results)
  for make in (lambda: bsuite_rs.load_and_record_to_csv('catch/0', results),
               lambda: bsuite_rs.load_and_record_to_csv('catch/0', results, overwrite=True),
               lambda: bsuite_rs.Environment('catch/0', results_dir=results),
               lambda: bsuite_rs.VecEnv(['catch/1', 'catch/0'], record_to=results)):
    with pytest.raises(BlockingIOError, match='being recorded by another environment of '
                       'this process') as refused:
      make()
    assert '--' not in str(refused.value)
  # The refused VecEnv gave back what it had claimed: catch/1 records.
  beside = bsuite_rs.load_and_record_to_csv('catch/1', results)
  run_random(first, 30)
  run_random(beside, 30)
  first.close()
  beside.close()
  assert last_episode(results / CSV) == 30


def test_a_recording_vec_env_and_an_environment_share_no_id(tmp_path):
  results = tmp_path / 'results'
  batch = bsuite_rs.VecEnv(['catch/0', 'catch/1'], record_to=results)
  with pytest.raises(BlockingIOError, match='another environment of this process'):
    bsuite_rs.Environment('catch/1', results_dir=results)
  single = bsuite_rs.Environment('catch/2', results_dir=results)
  for _ in range(20):
    batch.step([0, 1])
  run_random(single, 3)
  batch.close()
  single.close()
  for index in (0, 1, 2):
    assert (results / f'bsuite_id_-_catch-{index}.csv').exists()


def test_close_gives_the_directory_and_the_file_back_at_once(tmp_path):
  """`close()` used to keep the directory's lock until the object was collected."""
  results = tmp_path / 'results'
  env = bsuite_rs.load_and_record_to_csv('catch/0', results)
  batch = bsuite_rs.VecEnv(['catch/1'], record_to=results)
  run_random(env, 2)
  recorders = results / '.bsuite-lock-recorders'

  def recorders_active():
    with open(recorders, 'rb') as file:
      try:
        fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
      except BlockingIOError:
        return True
      fcntl.flock(file, fcntl.LOCK_UN)
      return False

  assert recorders_active()
  env.close()
  batch.close()
  # Both still referenced, and nothing holds the directory any more.
  assert env is not None and batch is not None
  assert not recorders_active()
  again = bsuite_rs.load_and_record_to_csv('catch/0', results, overwrite=True)
  again.close()
  assert bsuite_rs.VecEnv(['catch/1'], record_to=results, overwrite=True).recording


def test_stepping_after_close_is_refused(tmp_path):
  batch = bsuite_rs.VecEnv(['catch/0', 'catch/1'], record_to=tmp_path / 'results')
  batch.step([0, 0])
  batch.close()
  batch.close()
  for call in (batch.reset, batch.reset_ended, lambda: batch.step([0, 0])):
    with pytest.raises(ValueError, match='this VecEnv is closed'):
      call()
  batch.flush()
  assert len(batch.bsuite_info()) == 2
  with bsuite_rs.VecEnv(['catch/0']) as used:
    used.reset()
  with pytest.raises(ValueError, match='closed'):
    used.step([0])


def test_a_finished_recorders_file_is_kept_from_the_next_one(tmp_path):
  """Sequential recorders keep their old rule: an existing file needs overwrite=True."""
  results = tmp_path / 'results'
  env = bsuite_rs.load_and_record_to_csv('catch/0', results)
  run_random(env, 5)
  env.close()
  with pytest.raises(bsuite_rs.ResultsFileExistsError):
    bsuite_rs.load_and_record_to_csv('catch/0', results)
  env = bsuite_rs.load_and_record_to_csv('catch/0', results, overwrite=True)
  run_random(env, 7)
  env.close()
  assert last_episode(results / CSV) == 7
  assert not [p for p in os.listdir(results) if p.endswith('.tmp')]
