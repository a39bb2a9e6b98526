"""Shared helpers of the bsuite_rs tests: the repository's fixtures and the random agent."""
import gzip
import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[4]
TRACES = REPO / 'crates' / 'bsuite-envs' / 'tests' / 'fixtures'
FIXTURES = REPO / 'tests' / 'fixtures'


def read_trace(path):
  """The JSON lines of a gzipped reference trace."""
  with gzip.open(path, 'rt') as f:
    return [json.loads(line) for line in f]


class RandomAgent:
  """bsuite's random agent as `cargo xtask bench-all random` runs it: one
  `RandomState(seed).randint(num_actions)` draw per step, never on resets.

  Draws are made 1000 at a time: numpy's legacy randint draws each value on its own, so the
  stream is the same as drawing one per step (checked by `test_csv.py`).
  """

  def __init__(self, num_actions, seed=42, chunk=1000):
    self._rng = np.random.RandomState(seed)
    self._num_actions = num_actions
    self._chunk = chunk
    self._actions = []

  def select_action(self):
    if not self._actions:
      self._actions = self._rng.randint(self._num_actions, size=self._chunk).tolist()[::-1]
    return self._actions.pop()


def run_random(env, num_episodes, seed=42):
  """bsuite's run loop with the random agent, for `num_episodes` episodes."""
  agent = RandomAgent(env.action_spec().num_values, seed)
  for _ in range(num_episodes):
    timestep = env.reset()
    while not timestep.last():
      timestep = env.step(agent.select_action())


@pytest.fixture
def results_dir(tmp_path):
  return tmp_path / 'results'


def xtask_command():
  """How to run `cargo xtask`: the binary `cargo xtask test` passes in, or cargo itself."""
  binary = os.environ.get('BSUITE_XTASK')
  if binary:
    return [binary]
  return ['cargo', 'run', '--quiet', '--manifest-path', str(REPO / 'Cargo.toml'), '-p', 'xtask',
          '--']


def bench_all(results, *extra, **kwargs):
  """`cargo xtask bench-all random` into `results`, started (a `Popen`; stderr piped)."""
  return subprocess.Popen(
      xtask_command() + ['bench-all', 'random', '--plain', '--no-score', '--jobs', '1',
                         '--results', str(results), *extra],
      env={**os.environ, 'XTASK_NO_REEXEC': '1'}, stdout=subprocess.DEVNULL,
      stderr=subprocess.PIPE, text=True, **kwargs)
