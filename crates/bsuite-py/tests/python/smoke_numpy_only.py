"""The wheel in a venv with numpy alone: `cargo xtask test` runs this script there.

Without dm_env and gymnasium, bsuite_rs uses look-alikes of dm_env's types; everything but
`bsuite_rs.gym` works. Exits non-zero (an AssertionError) on any difference.
"""
import importlib.util
import os
import pathlib
import pickle
import subprocess
import sys
import tempfile

import numpy as np

assert importlib.util.find_spec('dm_env') is None, 'this venv must not have dm_env'
assert importlib.util.find_spec('gymnasium') is None, 'this venv must not have gymnasium'

import bsuite_rs  # pylint: disable=g-import-not-at-top

FIXTURES = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else None

assert not bsuite_rs.HAVE_DM_ENV
env = bsuite_rs.load_from_id('catch/0')
timestep = env.reset()
assert type(timestep).__module__ == 'bsuite_rs._compat' and timestep.first()
assert timestep.step_type is bsuite_rs._compat.StepType.FIRST and timestep.reward is None
assert timestep._fields == ('step_type', 'reward', 'discount', 'observation')
assert pickle.loads(pickle.dumps(timestep)).step_type.first()
steps = 0
while not timestep.last():
  timestep = env.step(1)
  steps += 1
assert steps == 9 and timestep.discount == 0.0 and timestep.reward in (-1.0, 1.0)
spec = env.observation_spec()
assert spec.shape == (10, 5) and spec.dtype == np.float32 and spec.maximum == 1
spec.validate(timestep.observation)
action_spec = env.action_spec()
assert action_spec.num_values == 3 and action_spec.generate_value() == 0
assert env.reward_spec().name == 'reward' and env.discount_spec().maximum == 1
try:
  env.step(3)
  raise AssertionError('an out-of-range action was accepted')
except ValueError as error:
  assert 'out of range' in str(error)

vec = bsuite_rs.VecEnv(bsuite_rs.sweep.CATCH)
observations, rewards, _, step_types = vec.step(np.ones(20, dtype=np.int64))
assert observations.shape == (20, 10, 5) and (step_types == 0).all() and (rewards == 0).all()

try:
  import bsuite_rs.gym  # pylint: disable=g-import-not-at-top,unused-import
  raise AssertionError('bsuite_rs.gym imported without gymnasium')
except ImportError:
  pass

with tempfile.TemporaryDirectory() as results:
  env = bsuite_rs.load_and_record_to_csv('bandit/0', results)
  rng = np.random.RandomState(42)
  for _ in range(env.bsuite_num_episodes):
    timestep = env.reset()
    while not timestep.last():
      timestep = env.step(int(rng.randint(11)))
  env.close()
  written = (pathlib.Path(results) / 'bsuite_id_-_bandit-0.csv').read_bytes()
  if FIXTURES is not None:
    pinned = FIXTURES / 'random_results' / 'bsuite_id_-_bandit-0.csv'
    assert written == pinned.read_bytes(), 'the CSV differs from bench-all\'s'
  scores = bsuite_rs.score(results)
  assert scores['finished'] == {'bandit': True}

# The wheel's `bsuite` command, on PATH beside this interpreter: the native module's program,
# with the very help texts of the `bsuite` binary (`cargo xtask test` passes its path in as
# BSUITE_CLI), since both parse bsuite-cli's one definition.
SCRIPT = pathlib.Path(sys.executable).parent / 'bsuite'


def help_text(program, *args):
  out = subprocess.run([str(program), *args, '--help'], capture_output=True, text=True,
                       check=False)
  assert out.returncode == 0, f'{program} {args} --help: {out.stderr}'
  return out.stdout


top = help_text(SCRIPT)
listed = top.split('Commands:\n')[1].split('\n\n')[0].splitlines()
commands = [line.split()[0] for line in listed if line.startswith('  ')]
assert commands == ['run', 'score', 'compare', 'report', 'report-check', 'study', 'merge',
                    'verify', 'cluster', 'agents', 'ids', 'help'], commands
NATIVE = os.environ.get('BSUITE_CLI')
if NATIVE:
  for args in [()] + [(c,) for c in commands if c != 'help'] + [('cluster', 'slurm'),
                                                                ('cluster', 'k8s')]:
    assert help_text(SCRIPT, *args) == help_text(NATIVE, *args), (
        f'`bsuite {" ".join(args)} --help` of the wheel differs from the binary\'s')
  version = [subprocess.run([str(p), '--version'], capture_output=True, text=True, check=True)
             .stdout for p in (SCRIPT, NATIVE)]
  assert version[0] == version[1] == f'bsuite {bsuite_rs.__version__}\n', version

print(f'bsuite_rs {bsuite_rs.__version__} works with numpy {np.__version__} alone, '
      f'and so does its `bsuite` command ({len(commands) - 1} commands'
      f'{", the help texts of the binary" if NATIVE else ""})')
