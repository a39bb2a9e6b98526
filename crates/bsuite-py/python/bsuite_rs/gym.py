"""bsuite environments as gymnasium environments (needs gymnasium).

  import bsuite_rs.gym
  env = bsuite_rs.gym.make('catch/0')          # or gymnasium.make('bsuite/catch-0')
  observation, info = env.reset(seed=0)
  observation, reward, terminated, truncated, info = env.step(1)

Importing this module registers every bsuite_id with gymnasium as `bsuite/<experiment>-<index>`
(the results file's spelling of the id). Observations are float32 arrays in
`observation_space` (a Box, bounded by 0 and 1 for catch), actions integers of
`action_space` (Discrete). bsuite ends every episode with discount 0, so `terminated` marks
the end of every episode and `truncated` is always False.

Seeding: `reset(seed=s)` rebuilds the environment with env seed `s`, which seeds every
random generator bsuite 0.3.6 leaves unseeded (catch's ball, cartpole's start, reward noise,
...); generators that bsuite seeds itself (such as deep_sea's mapping) keep bsuite's seeds.
Without a seed the environment keeps its state; the first environment uses the id's setting
index, as `bsuite_rs.load_from_id` does. A recording
environment (`results_dir=...`) can be seeded only before its first step.
"""
from typing import Any, Dict, Optional, Tuple

import gymnasium
from gymnasium import spaces
import numpy as np

from bsuite_rs import _core
from bsuite_rs import _env
from bsuite_rs import sweep

NAMESPACE = 'bsuite'


def gym_id(bsuite_id: str) -> str:
  """The gymnasium id of a bsuite_id: 'catch/0' -> 'bsuite/catch-0'. A bad bsuite_id is a
  ValueError."""
  _core._check_id(bsuite_id)
  experiment, index = _env.unpack_bsuite_id(bsuite_id)
  return f'{NAMESPACE}/{experiment}-{index}'


class BsuiteEnv(gymnasium.Env):
  """A bsuite environment with gymnasium's interface (see the module docs)."""

  metadata = {'render_modes': []}

  def __init__(self, bsuite_id: str, *, env_seed: Optional[int] = None,
               results_dir=None, overwrite: bool = False):
    self._bsuite_id = bsuite_id
    self._results_dir = results_dir
    self._overwrite = overwrite
    self._env = self._load(env_seed)
    self._stepped = False
    spec = self._env.observation_spec()
    if hasattr(spec, 'minimum'):
      low, high = float(spec.minimum), float(spec.maximum)
    else:
      low, high = -np.inf, np.inf
    self.observation_space = spaces.Box(low=low, high=high, shape=spec.shape, dtype=np.float32)
    self.action_space = spaces.Discrete(self._env.action_spec().num_values)

  def _load(self, env_seed):
    return _env.Environment(self._bsuite_id, env_seed=env_seed, results_dir=self._results_dir,
                            overwrite=self._overwrite)

  @property
  def bsuite_id(self) -> str:
    return self._bsuite_id

  @property
  def bsuite_num_episodes(self) -> int:
    return self._env.bsuite_num_episodes

  def bsuite_info(self) -> Dict[str, Any]:
    """bsuite's scoring counters, e.g. total_regret."""
    return self._env.bsuite_info()

  def reset(self, *, seed: Optional[int] = None,
            options: Optional[Dict[str, Any]] = None) -> Tuple[np.ndarray, Dict[str, Any]]:
    super().reset(seed=seed)
    if seed is not None:
      if self._stepped and self._results_dir is not None:
        raise ValueError(f'{self._bsuite_id}: a recording environment can be seeded only '
                         'before its first step; its log would mix two runs')
      if not 0 <= seed < 2**32:
        raise ValueError(f'seed {seed} is not in 0..=4294967295')
      self._env.close()
      self._env = self._load(seed)
    return self._env._gym_reset(), {}

  def step(self, action) -> Tuple[np.ndarray, float, bool, bool, Dict[str, Any]]:
    self._stepped = True
    observation, reward, terminated, truncated = self._env._gym_step(action)
    return observation, reward, terminated, truncated, {}

  def close(self):
    self._env.close()
    super().close()


def make(bsuite_id: str, **kwargs) -> gymnasium.Env:
  """`gymnasium.make` of a bsuite_id (with gymnasium's usual wrappers); `kwargs` go to
  `BsuiteEnv` (`env_seed`, `results_dir`, `overwrite`) or to `gymnasium.make`."""
  return gymnasium.make(gym_id(bsuite_id), **kwargs)


def _register():
  for bsuite_id in sweep.SWEEP:
    gymnasium.register(id=gym_id(bsuite_id), entry_point='bsuite_rs.gym:BsuiteEnv',
                       kwargs={'bsuite_id': bsuite_id})


_register()
