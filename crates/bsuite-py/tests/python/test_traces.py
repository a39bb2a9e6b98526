"""The Python API replays the pinned traces of bsuite 0.3.6 bit for bit.

The traces (crates/bsuite-envs/tests/fixtures/, written by tools/reference/ref_trace.py with
the real bsuite) record every timestep of a run whose actions are
`RandomState(action_seed).randint(num_actions)` draws, resets included, and bsuite_info()
after each. The same run through `bsuite_rs.Environment` must give the same step types,
rewards, discounts, observations and info, to the bit (so -0.0 is not 0.0) and with the same
int/float types.
"""
import struct

import numpy as np
import pytest

import bsuite_rs
from bsuite_rs import _compat
from conftest import TRACES, read_trace


def _bits(x):
  return struct.pack('<d', x)


def _manifest():
  rows = (TRACES / 'traces' / 'MANIFEST.tsv').read_text().splitlines()[1:]
  return [(row.split('\t')[0], row.split('\t')[1], int(row.split('\t')[2])) for row in rows]


def replay(bsuite_id, episodes, action_seed, env_seed):
  """Yields (t, episode, timestep, action, info) as ref_trace.py writes them."""
  env = bsuite_rs.Environment(bsuite_id, env_seed=env_seed)
  num_actions = env.action_spec().num_values
  rng = np.random.RandomState(action_seed)
  t = 0
  for episode in range(episodes):
    timestep = env.reset()
    action = None
    while True:
      yield t, episode, timestep, action, env.bsuite_info()
      t += 1
      if timestep.last():
        break
      action = int(rng.randint(num_actions))
      timestep = env.step(action)


def assert_same(bsuite_id, episodes, action_seed, env_seed, lines):
  env = bsuite_rs.Environment(bsuite_id, env_seed=env_seed)
  spec = env.observation_spec()
  n = 0
  for t, episode, ts, action, info in replay(bsuite_id, episodes, action_seed, env_seed):
    assert n < len(lines), f'{bsuite_id}: the reference ends after {n} lines, ours goes on'
    ref = lines[n]
    where = f'{bsuite_id} line {n}'
    assert (ref['t'], ref['episode'], ref['action']) == (t, episode, action), where
    assert isinstance(ts, _compat.TimeStep) and isinstance(ts.step_type, _compat.StepType)
    assert int(ts.step_type) == ref['step_type'], where
    for key, ours in (('reward', ts.reward), ('discount', ts.discount)):
      theirs = ref[key]
      if theirs is None:
        assert ours is None, f'{where}: {key} {ours!r}, reference None'
      else:
        assert type(ours) is float and _bits(ours) == _bits(theirs), (
            f'{where}: {key} {ours!r}, reference {theirs!r}')
    obs = ts.observation
    assert obs.dtype == np.float32 and obs.shape == spec.shape, where
    theirs = np.array(ref['obs'], dtype=np.float64)
    assert np.array_equal(obs.astype(np.float64).ravel().view(np.uint64),
                          theirs.view(np.uint64)), f'{where}: observation differs'
    assert list(info) == list(ref['info']), where
    for key, value in ref['info'].items():
      assert type(info[key]) is type(value), f'{where}: info {key} {info[key]!r} vs {value!r}'
      if isinstance(value, float):
        assert _bits(info[key]) == _bits(value), f'{where}: info {key}'
      else:
        assert info[key] == value, f'{where}: info {key}'
    n += 1
  assert n == len(lines), f'{bsuite_id}: {n} lines, the reference has {len(lines)}'


@pytest.mark.parametrize('file,bsuite_id,episodes', _manifest(), ids=lambda x: str(x))
def test_pinned_trace(file, bsuite_id, episodes):
  """Every trace of MANIFEST.tsv: action seed 0, env seed 0."""
  lines = read_trace(TRACES / 'traces' / f'{file}.gz')
  assert_same(bsuite_id, episodes, 0, 0, lines)


def test_manifest_covers_every_experiment():
  experiments = {bsuite_id.split('/')[0] for _, bsuite_id, _ in _manifest()}
  assert experiments == {bsuite_id.split('/')[0] for bsuite_id in bsuite_rs.sweep.SWEEP}


def _extra():
  return sorted(p.name for p in (TRACES / 'traces_extra').glob('*.jsonl.gz'))


@pytest.mark.parametrize('name', _extra())
def test_pinned_trace_of_last_setting_with_other_seeds(name):
  """The last setting of every experiment, 2 episodes, action seed 7, env seed 3."""
  experiment, index = name[:-len('.jsonl.gz')].rsplit('_', 1)
  lines = read_trace(TRACES / 'traces_extra' / name)
  assert_same(f'{experiment}/{index}', 2, 7, 3, lines)
