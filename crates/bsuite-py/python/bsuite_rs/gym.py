"""bsuite environments as gymnasium environments (needs gymnasium).

  import bsuite_rs.gym
  env = bsuite_rs.gym.make('catch/0')          # or gymnasium.make('bsuite/catch-0')
  observation, info = env.reset(seed=0)
  observation, reward, terminated, truncated, info = env.step(1)

Importing this module registers every bsuite_id with gymnasium as `bsuite/<experiment>-<index>`
(the results file's spelling of the id), and Shimmy's `bsuite/<experiment>-v0` ids (which
take the setting's keyword arguments: `gymnasium.make('bsuite/deep_sea-v0', size=10,
mapping_seed=42)`), with `VectorEnv` (bsuite_rs.gym_vector) as its
`vector_entry_point`: `gymnasium.make_vec('bsuite/catch-0', num_envs=16)` steps the 16
environments in Rust in one call. Observations are float32 arrays in
`observation_space` (a Box, bounded by 0 and 1 for catch), actions integers of
`action_space` (Discrete). bsuite ends every episode with discount 0, so `terminated` marks
the end of every episode and `truncated` is always False.

Seeding: `reset(seed=s)` rebuilds the environment with env seed `s`, which seeds every
random generator bsuite 0.3.6 leaves unseeded (catch's ball, cartpole's start, reward noise,
...); generators that bsuite seeds itself (such as deep_sea's mapping) keep bsuite's seeds.
Without a seed the environment keeps its state; the first environment uses the id's setting
index, as `bsuite_rs.load_from_id` does. `render_mode` is None, 'rgb_array' or 'ansi'
(see `BsuiteEnv.render`). A recording
environment (`results_dir=...`) can be seeded only before its first step.
"""
import os
from typing import Any, Dict, Optional, Tuple

import gymnasium
import numpy as np

from bsuite_rs import _core
from bsuite_rs import _env
from bsuite_rs import _render
from bsuite_rs import sweep
from bsuite_rs import gym_vector
from bsuite_rs.gym_vector import VectorEnv

__all__ = ['BsuiteEnv', 'NAMESPACE', 'VectorEnv', 'gym_id', 'make', 'shimmy_env']

NAMESPACE = 'bsuite'


def gym_id(bsuite_id: str) -> str:
  """The gymnasium id of a bsuite_id: 'catch/0' -> 'bsuite/catch-0'. A bad bsuite_id is a
  ValueError."""
  _core._check_id(bsuite_id)
  experiment, index = _env.unpack_bsuite_id(bsuite_id)
  return f'{NAMESPACE}/{experiment}-{index}'


class BsuiteEnv(gymnasium.Env):
  """A bsuite environment with gymnasium's interface (see the module docs)."""

  metadata = {'render_modes': list(_render.RENDER_MODES), 'render_fps': _render.RENDER_FPS}

  def __init__(self, bsuite_id: str, *, env_seed: Optional[int] = None,
               results_dir=None, overwrite: bool = False, render_mode: Optional[str] = None):
    self._bsuite_id = bsuite_id
    # A seeded reset loads the environment again: into the directory meant now, even after
    # an os.chdir (an empty path is left for the native side to refuse).
    if results_dir is not None and os.fsdecode(results_dir):
      results_dir = os.path.abspath(os.fsdecode(results_dir))
    self._results_dir = results_dir
    self._overwrite = overwrite
    self.render_mode = _render.check_render_mode(render_mode)
    self._env = self._load(env_seed)
    self._stepped = False
    self._observation: Optional[np.ndarray] = None
    self.observation_space, self.action_space = gym_vector.spaces_of(self._env)
    self._bounded = gym_vector.bounded(self._env)

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
    self._observation = self._env._gym_reset()
    return self._observation, {}

  def step(self, action) -> Tuple[np.ndarray, float, bool, bool, Dict[str, Any]]:
    self._stepped = True
    observation, reward, terminated, truncated = self._env._gym_step(action)
    self._observation = observation
    return observation, reward, terminated, truncated, {}

  def render(self):
    """The latest observation drawn as `render_mode` says: an (H, W, 3) uint8 image
    ('rgb_array', in the layout of bsuite's GymFromDMEnv.render) or text ('ansi'); None
    without a render mode or before the first reset."""
    return _render.frame(self._observation, self.render_mode, self._bounded)

  def close(self):
    self._env.close()
    super().close()


def make(bsuite_id: str, **kwargs) -> gymnasium.Env:
  """`gymnasium.make` of a bsuite_id (with gymnasium's usual wrappers); `kwargs` go to
  `BsuiteEnv` (`env_seed`, `results_dir`, `overwrite`) or to `gymnasium.make`."""
  return gymnasium.make(gym_id(bsuite_id), **kwargs)


def shimmy_env(experiment: str, render_mode: Optional[str] = None,
               **kwargs: Any) -> BsuiteEnv:
  """The environment of Shimmy's `bsuite/<experiment>-v0` ids: `bsuite.load(experiment,
  kwargs)` as a gymnasium environment. `kwargs` must be one of the sweep's settings (or
  empty where the experiment's loader has defaults, e.g. catch); see `bsuite_rs.load`."""
  bsuite_id, env_seed = _core._resolve_setting(experiment, kwargs)
  return BsuiteEnv(bsuite_id, env_seed=env_seed, render_mode=render_mode)


def _register():
  # Shimmy's ids, so that code written against Shimmy switches by an import.
  for experiment in dict.fromkeys(bsuite_id.split('/')[0] for bsuite_id in sweep.SWEEP):
    gymnasium.register(id=f'{NAMESPACE}/{experiment}-v0', entry_point=shimmy_env,
                       kwargs={'experiment': experiment})
  for bsuite_id in sweep.SWEEP:
    gymnasium.register(id=gym_id(bsuite_id), entry_point='bsuite_rs.gym:BsuiteEnv',
                       vector_entry_point='bsuite_rs.gym_vector:make_vector',
                       kwargs={'bsuite_id': bsuite_id})


_register()
