"""bsuite-rs: bsuite's 468 environments in Rust, behind bsuite's Python API.

A drop-in for `import bsuite` (0.3.6): the same environments, seed for seed and bit for bit,
with dm_env's interface, bsuite's CSV logging, its scores and reports:

  import bsuite_rs as bsuite

  env = bsuite.load_and_record_to_csv('catch/0', results_dir='results/mine')
  for _ in range(env.bsuite_num_episodes):
    timestep = env.reset()
    while not timestep.last():
      timestep = env.step(agent_action(timestep))
  print(bsuite.score('results/mine')['experiments'])

`bsuite_rs.gym.make(bsuite_id)` gives a gymnasium environment, `bsuite_rs.VecEnv(ids)` steps
many ids in one call, and `bsuite_rs.make(bsuite_id, env_type='gymnasium', num_envs=N)` (as
envpool's) gives them as a gymnasium VectorEnv (or an SB3 VecEnv: `env_type='sb3'`). Seeding: where bsuite seeds an environment from OS entropy, bsuite-rs
uses the id's setting index (or `Environment(..., env_seed=N)`), so every run is
reproducible.
"""
from bsuite_rs import sweep
from bsuite_rs._analysis import report
from bsuite_rs._analysis import score
from bsuite_rs._compat import HAVE_DM_ENV
from bsuite_rs._core import __version__
from bsuite_rs._env import Environment
from bsuite_rs._env import load
from bsuite_rs._env import load_and_record
from bsuite_rs._env import load_and_record_to_csv
from bsuite_rs._env import load_and_record_to_terminal
from bsuite_rs._env import load_from_id
from bsuite_rs._env import unpack_bsuite_id
from bsuite_rs._env import VecEnv
from bsuite_rs._errors import ResultsFileExistsError
from bsuite_rs._make import make

# Not `gym`: it needs gymnasium, so a star import must not pull it in.
__all__ = [
    'Environment', 'HAVE_DM_ENV', 'ResultsFileExistsError', 'VecEnv', '__version__', 'load',
    'load_and_record', 'load_and_record_to_csv', 'load_and_record_to_terminal',
    'load_from_id', 'make', 'report', 'score', 'sweep', 'unpack_bsuite_id',
]


def __getattr__(name):
  # `bsuite_rs.gym` needs gymnasium, so it is imported on first use only.
  if name == 'gym':
    import importlib  # pylint: disable=g-import-not-at-top
    return importlib.import_module('bsuite_rs.gym')
  raise AttributeError(f"module 'bsuite_rs' has no attribute '{name}'")
