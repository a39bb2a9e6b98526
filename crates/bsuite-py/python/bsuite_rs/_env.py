"""Environments with dm_env's interface, and bsuite's functions that load them."""
import atexit
import operator
import os
import sys
import weakref
from typing import Any, List, Mapping, Optional, Tuple, Union

import numpy as np

from bsuite_rs import _compat
from bsuite_rs import _core

PathLike = Union[str, bytes, 'os.PathLike[str]', 'os.PathLike[bytes]']

# The largest env seed: numpy's RandomState takes 0..=2**32 - 1.
MAX_SEED = 2**32 - 1

# Environments and VecEnvs that log, flushed when the interpreter exits: a run stopped
# before its last episode still leaves every logged row in its file.
_RECORDING: 'weakref.WeakSet[Any]' = weakref.WeakSet()


@atexit.register
def _flush_recording():
  for env in list(_RECORDING):
    try:
      env.flush()
    except Exception as error:  # pylint: disable=broad-except
      print(f'bsuite_rs: flushing the log of {env!r} failed: {error}', file=sys.stderr)


class Environment(_core.Env, _compat.EnvironmentBase):
  """A bsuite environment with dm_env's interface (a `dm_env.Environment` when dm_env is
  installed).

  `reset()` and `step(action)` return `dm_env.TimeStep`s whose observations are float32
  arrays of the observation spec's shape (an observation you hold is never written again;
  dropped ones are recycled); stepping after a LAST timestep starts a new episode, as
  bsuite's environments do. `bsuite_info()` and `bsuite_num_episodes` are bsuite's. An
  action outside the action spec is a `ValueError`.

  `Environment(bsuite_id, *, env_seed=None, results_dir=None, overwrite=False,
  terminal=False, run_seed=None)`: `env_seed` seeds every random generator that bsuite
  0.3.6 seeds from OS entropy (default: the id's setting index, so runs are reproducible);
  `results_dir` logs bsuite's CSV file of the id there (in its `seed-<run_seed>/` directory
  when `run_seed`, your agent's seed, is given); `terminal` logs to standard error.

  `pickle`, `copy.copy` and `copy.deepcopy` carry the full state, random generators included;
  a logging environment refuses (see `bsuite_rs._pickle`). `close()` flushes the log and
  gives the results directory and file back at once, for the next writer.
  """

  def __init__(self, bsuite_id: str, *, env_seed: Optional[int] = None,
               results_dir: Optional[PathLike] = None, overwrite: bool = False,
               terminal: bool = False, run_seed: Optional[int] = None):
    # The native base has loaded the environment from these arguments already.
    del bsuite_id, env_seed, results_dir, overwrite, terminal, run_seed
    if self.recording:
      _RECORDING.add(self)

  def observation_spec(self):
    """The observations' spec: float32 arrays, as in bsuite."""
    shape, name, _, _, env_name = self._spec_parts()
    if env_name == 'catch':
      # bsuite's catch (and its noise and scale variants) bounds its board by 0 and 1.
      return _compat.BoundedArray(shape=shape, dtype=np.float32, name=name, minimum=0,
                                  maximum=1)
    return _compat.Array(shape=shape, dtype=np.float32, name=name)

  def action_spec(self):
    """The actions' spec: a DiscreteArray of the reference's dtype."""
    _, _, num_actions, dtype, _ = self._spec_parts()
    return _compat.DiscreteArray(num_values=num_actions, dtype=np.dtype(dtype), name='action')


def _integer(value: Any, what: str) -> int:
  """`value` as a Python int (a numpy integer's value, never wrapped), or a ValueError
  saying what it should have been."""
  if isinstance(value, bool) or not hasattr(type(value), '__index__'):
    raise ValueError(f'{what}, not {value!r}')
  return operator.index(value)


def num_envs_of(value: Any) -> int:
  """A number of environments: a whole number of at least 1 (1.5 and '4' are refused, not
  rounded or parsed)."""
  what = 'num_envs is a whole number of environments, at least 1'
  count = _integer(value, what)
  if count < 1:
    raise ValueError(f'{what}, not {count}')
  return count


def copies(bsuite_id: str, num_envs: Any) -> List[str]:
  """`num_envs` copies of `bsuite_id`, for a batch; a batch too large for the memory is a
  `MemoryError` before the list is made."""
  count = num_envs_of(num_envs)
  if count > sys.maxsize:
    raise MemoryError(f'a VecEnv of {count} environments needs more memory than can be '
                      'addressed, which cannot be allocated')
  _core._check_vec_env(bsuite_id, count)
  return [bsuite_id] * count


def env_seed_of(seed: Any) -> int:
  """An env seed: an integer in 0..=4294967295, as numpy's RandomState takes."""
  value = _integer(seed, 'a seed is an integer in 0..=4294967295')
  if not 0 <= value <= MAX_SEED:
    raise ValueError(f'seed {value} is not in 0..=4294967295')
  return value


def consecutive_seeds(seed: Any, count: int) -> List[int]:
  """The env seeds `seed + k` of `count` environments, as gymnasium's vector environments
  seed theirs: each must be a seed, and the message names the seed given."""
  first = env_seed_of(seed)
  last = first + count - 1
  if last > MAX_SEED:
    raise ValueError(f'seed {first} gives environment k of {count} the env seed {first} + k, '
                     f'up to {last}, past 4294967295: give a seed of at most '
                     f'{MAX_SEED - count + 1}, or one seed per environment')
  return list(range(first, last + 1))


def unpack_bsuite_id(bsuite_id: str) -> Tuple[str, int]:
  """The experiment name and setting index of a bsuite_id, e.g. ('catch', 0)."""
  parts = bsuite_id.split('/')
  if len(parts) != 2 or not parts[1].isdigit():
    raise ValueError(f"malformed bsuite_id '{bsuite_id}': expected <experiment>/<index>, "
                     'e.g. catch/0')
  return parts[0], int(parts[1])


def load(experiment_name: str, kwargs: Optional[Mapping[str, Any]] = None) -> Environment:
  """bsuite's `load(experiment_name, kwargs)`: the environment of one of the sweep's settings.

  `kwargs` are the setting's keyword arguments as in `sweep.SETTINGS`; a `seed` that the
  sweep leaves as None may be given an integer, which seeds the environment. bsuite-rs
  builds the sweep's settings only: other values are a `ValueError`. Without kwargs,
  `experiment_name` is a bsuite_id: `load('catch/0')` is `load_from_id('catch/0')`.
  """
  if kwargs is None:
    return load_from_id(experiment_name)
  bsuite_id, env_seed = _core._resolve_setting(experiment_name, dict(kwargs or {}))
  return Environment(bsuite_id, env_seed=env_seed)


def load_from_id(bsuite_id: str) -> Environment:
  """The environment of a bsuite_id such as 'catch/0' or 'deep_sea/3'."""
  return Environment(bsuite_id)


def load_and_record(bsuite_id: str, save_path: PathLike, logging_mode: str = 'csv',
                    overwrite: bool = False, *, run_seed: Optional[int] = None) -> Environment:
  """The environment of a bsuite_id, logging to CSV in `save_path` or to the terminal.

  `run_seed` is as in `load_and_record_to_csv` (CSV logging only).
  """
  if logging_mode == 'csv':
    return load_and_record_to_csv(bsuite_id, save_path, overwrite, run_seed=run_seed)
  if logging_mode == 'terminal':
    if run_seed is not None:
      raise ValueError('run_seed names a seed directory of the results; the terminal has none')
    return load_and_record_to_terminal(bsuite_id)
  raise ValueError(f'unknown logging_mode "{logging_mode}": use "csv" or "terminal"')


def load_and_record_to_csv(bsuite_id: str, results_dir: PathLike, overwrite: bool = False,
                           *, run_seed: Optional[int] = None) -> Environment:
  """The environment of a bsuite_id, logging bsuite's CSV file of the id in `results_dir`.

  The file is `bsuite_id_-_<experiment>-<index>.csv`, byte for byte what bsuite and
  `cargo xtask bench-all` write. An existing file raises `ResultsFileExistsError` (an
  `OSError` and a `ValueError`) unless `overwrite`. Rows are written at bsuite's
  logarithmic schedule of episodes; `flush()` or `close()` waits for the file after a
  shorter run (and the interpreter's exit flushes every logging environment).

  The environment holds the directory as a recorder, and the id's file as its one writer,
  until it is closed (or gone): a directory that a run (`cargo xtask bench-all`) holds
  raises `BlockingIOError`, and so does an id that another environment records into the
  directory now, in this process or another (even with `overwrite`: two writers of one file
  would lose one's rows); one whose `bsuite_run.json` says a run wrote it raises
  `FileExistsError`, so that no run's results get a file it did not write. A relative
  `results_dir` is taken from the current directory when the environment is made.

  `run_seed` records one seed of a run of several (your agent's seed): the file goes to
  `results_dir/seed-<run_seed>/`, as `cargo xtask bench-all --seeds` lays out its seeds, and
  `score(results_dir)` then reads the directory as one agent over seeds, with intervals. A
  directory holds either one run's files or seed directories, never both
  (`FileExistsError`):

    for seed in range(5):
      agent = make_agent(seed)
      for bsuite_id in sweep.SWEEP:
        env = load_and_record_to_csv(bsuite_id, 'results/mine', run_seed=seed)
        ...
  """
  if results_dir is None:
    # bsuite raises here too; recording nowhere would lose the run silently.
    raise TypeError('load_and_record_to_csv needs a results_dir (a path), not None')
  return Environment(bsuite_id, results_dir=os.fsdecode(results_dir), overwrite=overwrite,
                     run_seed=run_seed)


def load_and_record_to_terminal(bsuite_id: str) -> Environment:
  """The environment of a bsuite_id, logging bsuite's rows to standard error."""
  return Environment(bsuite_id, terminal=True)


class VecEnv(_core.VecEnv):
  __doc__ = _core.VecEnv.__doc__

  def __init__(self, ids, record_to: Optional[PathLike] = None, *, overwrite: bool = False,
               env_seeds=None, run_seeds=None):
    # The native base has loaded the environments from these arguments already.
    del ids, record_to, overwrite, env_seeds, run_seeds
    if self.recording:
      _RECORDING.add(self)
