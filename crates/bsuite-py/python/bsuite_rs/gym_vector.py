"""A `gymnasium.vector.VectorEnv` on bsuite-rs's native batch (needs gymnasium).

  import gymnasium
  import bsuite_rs.gym
  envs = gymnasium.make_vec('bsuite/catch-0', num_envs=16)     # this VectorEnv
  envs = bsuite_rs.gym.VectorEnv('catch/0', num_envs=16)      # the same
  envs = bsuite_rs.gym.VectorEnv(bsuite_rs.sweep.CATCH)        # one copy of each id
  observations, infos = envs.reset(seed=0)
  observations, rewards, terminations, truncations, infos = envs.step(envs.action_space.sample())

Every step runs in Rust without the GIL (`bsuite_rs.VecEnv`), so a step of N environments
costs one Python call, not N.

Autoreset: gymnasium's NEXT_STEP mode by default (`metadata['autoreset_mode']`), which is
what SyncVectorEnv does by default and what bsuite's environments do themselves: the step
after an environment's episode ends ignores that environment's action and returns the first
observation of its next episode, with reward 0 and neither terminated nor truncated. So no
`final_obs` or `final_info` is needed: the last observation of an episode is the one
returned with `terminated=True`. Infos are empty dicts, as our single environments' are.
`autoreset_mode=AutoresetMode.SAME_STEP` resets an ended environment in the step that ends
it instead, returning its next episode's first observation and, as SyncVectorEnv does,
`infos['final_obs']` and `infos['final_info']` (with their `_final_obs`/`_final_info`
masks).

Seeding follows SyncVectorEnv over `bsuite_rs.gym.BsuiteEnv`s: `reset(seed=s)` gives
environment k the env seed `s + k` (or `seed[k]` for a list; a None in the list keeps that
environment's state), so the two step alike, observation for observation. Before any seeded
reset, copy j of an id (counting from 0 in the order given) uses env seed
`setting index + j`: distinct ids keep bsuite-rs's default seeds, and copies of one id
differ.
"""
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import gymnasium
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
import numpy as np

from bsuite_rs import _core
from bsuite_rs import _env
from bsuite_rs import _render


def _ids(ids: Union[str, Sequence[str]], num_envs: Optional[int]) -> List[str]:
  """The batch's bsuite_ids: `num_envs` copies of one id, or the given ids."""
  if isinstance(ids, str):
    return _env.copies(ids, 1 if num_envs is None else num_envs)
  ids = list(ids)
  if num_envs is not None and _env.num_envs_of(num_envs) != len(ids):
    raise ValueError(f'num_envs={num_envs} but {len(ids)} bsuite_ids were given; give one id '
                     'with num_envs, or the list of ids alone')
  return ids


def default_env_seeds(ids: Sequence[str]) -> List[int]:
  """Env seeds before any seeded reset: copy j of an id gets its setting index + j."""
  seen: Dict[str, int] = {}
  seeds = []
  for bsuite_id in ids:
    copy = seen.get(bsuite_id, 0)
    seen[bsuite_id] = copy + 1
    seeds.append(_env.unpack_bsuite_id(bsuite_id)[1] + copy)
  return seeds


def spaces_of(env: _env.Environment) -> Tuple[spaces.Box, spaces.Discrete]:
  """The gymnasium observation and action spaces of one environment."""
  spec = env.observation_spec()
  if hasattr(spec, 'minimum'):
    low, high = float(spec.minimum), float(spec.maximum)
  else:
    low, high = -np.inf, np.inf
  observation_space = spaces.Box(low=low, high=high, shape=spec.shape, dtype=np.float32)
  return observation_space, spaces.Discrete(env.action_spec().num_values)


def bounded(env: _env.Environment) -> bool:
  """True for boards of zeros and ones (catch and deep_sea), drawn black and white."""
  return env._spec_parts()[4] in ('catch', 'deep_sea')


class VectorEnv(gymnasium.vector.VectorEnv):
  """Many bsuite environments as one `gymnasium.vector.VectorEnv` (see the module docs).

  `VectorEnv(ids, num_envs=None, *, render_mode=None, autoreset_mode=NEXT_STEP)`: `ids`
  is one bsuite_id (then
  `num_envs` copies of it, default 1) or a sequence of them (all with one observation shape
  and one number of actions, e.g. `sweep.CATCH`). `render_mode` is None, 'rgb_array' or
  'ansi'; `render()` returns one frame per environment. `bsuite_id` is accepted for
  `ids` too, as `gymnasium.make_vec` passes the registered id that way.
  """

  metadata = {'render_modes': list(_render.RENDER_MODES), 'render_fps': _render.RENDER_FPS,
              'autoreset_mode': AutoresetMode.NEXT_STEP}

  def __init__(self, ids: Union[str, Sequence[str], None] = None,
               num_envs: Optional[int] = None, *, bsuite_id: Optional[str] = None,
               render_mode: Optional[str] = None,
               autoreset_mode: Union[AutoresetMode, str] = AutoresetMode.NEXT_STEP):
    autoreset_mode = AutoresetMode(autoreset_mode)
    if autoreset_mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
      raise ValueError(f'autoreset_mode {autoreset_mode} is not supported: use NEXT_STEP '
                       'or SAME_STEP')
    self.autoreset_mode = autoreset_mode
    self.metadata = {**type(self).metadata, 'autoreset_mode': autoreset_mode}
    if (ids is None) == (bsuite_id is None):
      raise ValueError('give the bsuite_ids as `ids` (or one as `bsuite_id`), once')
    self._ids = _ids(ids if ids is not None else bsuite_id, num_envs)
    self.render_mode = _render.check_render_mode(render_mode)
    self._seeds = default_env_seeds(self._ids)
    self._batch = _env.VecEnv(self._ids, env_seeds=self._seeds)
    self.num_envs = len(self._ids)
    # Spaces from a bare environment of each distinct id; they must agree.
    first = None
    for bsuite_id in dict.fromkeys(self._ids):
      env = _env.Environment(bsuite_id)
      observation_space, action_space = spaces_of(env)
      if first is None:
        first = (bsuite_id, observation_space, action_space)
        self._bounded = bounded(env)
      elif action_space != first[2]:
        raise ValueError(f'{first[0]} has {first[2].n} actions but {bsuite_id} has '
                         f'{action_space.n}; a gymnasium VectorEnv has one action space')
      elif observation_space != first[1]:
        observation_space = spaces.Box(
            low=np.minimum(observation_space.low, first[1].low),
            high=np.maximum(observation_space.high, first[1].high), dtype=np.float32)
        first = (first[0], observation_space, first[2])
      env.close()
    self.single_observation_space = first[1]
    self.single_action_space = first[2]
    self.observation_space = gymnasium.vector.utils.batch_space(first[1], self.num_envs)
    self.action_space = gymnasium.vector.utils.batch_space(first[2], self.num_envs)
    self._observations: Optional[np.ndarray] = None

  @property
  def bsuite_ids(self) -> Tuple[str, ...]:
    """The bsuite_ids, in order."""
    return tuple(self._ids)

  @property
  def env_seeds(self) -> Tuple[int, ...]:
    """Each environment's env seed, as of its latest seeding."""
    return tuple(self._seeds)

  def reset(self, *, seed: Union[int, Sequence[Optional[int]], None] = None,
            options: Optional[Dict[str, Any]] = None) -> Tuple[np.ndarray, Dict[str, Any]]:
    """Starts a new episode in every environment; `seed` reseeds them (see the module docs).
    `options` are accepted and unused, as by bsuite_rs.gym.BsuiteEnv; a `reset_mask` (a
    partial reset) is refused."""
    self._check_open()
    if options and 'reset_mask' in options:
      raise ValueError('bsuite_rs.gym.VectorEnv resets every environment; a reset_mask is not '
                       'supported (environments reset themselves, in NEXT_STEP mode)')
    seeds = None
    if seed is not None:
      if isinstance(seed, (int, np.integer)):
        seed = _env.env_seed_of(seed)
        seeds = _env.consecutive_seeds(seed, self.num_envs)
      else:
        try:
          seeds = list(seed)
        except TypeError:
          raise ValueError(f'seed is an integer in 0..=4294967295 or one per environment, not '
                           f'{seed!r}') from None
      if len(seeds) != self.num_envs:
        raise ValueError(f'{len(seeds)} seeds for {self.num_envs} environments; give one per '
                         'environment, or one int')
      if any(s is None for s in seeds):
        if not all(s is None for s in seeds):
          raise ValueError('seed every environment or none: a seed list mixing None and '
                           'ints would restart the unseeded ones from their old state, which '
                           'the native batch does not split')
        seeds = None
      seeds = None if seeds is None else [_env.env_seed_of(s) for s in seeds]
    super().reset(seed=seed if isinstance(seed, int) else None)
    if seeds is not None:
      self._batch = _env.VecEnv(self._ids, env_seeds=seeds)
      self._seeds = [int(s) for s in seeds]
    observations, _, _, _ = self._batch.reset()
    self._observations = observations
    return observations, {}

  def step(self, actions) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                   Dict[str, Any]]:
    """Steps every environment with its action: `(observations, rewards, terminations,
    truncations, infos)`. In NEXT_STEP mode an environment whose episode ended at the last
    step starts its next one instead; in SAME_STEP mode it has started it already."""
    # bsuite ends every episode with discount 0 (terminated); a nonzero one would be a
    # truncation, as bsuite_rs.gym.BsuiteEnv reports it.
    self._check_open()
    observations, rewards, terminations, truncations = self._batch._gym_step(actions)
    infos: Dict[str, Any] = {}
    if self.autoreset_mode == AutoresetMode.SAME_STEP:
      ended = terminations | truncations
      if ended.any():
        for k in ended.nonzero()[0].tolist():
          infos = self._add_info(infos, {'final_obs': observations[k], 'final_info': {}}, k)
        observations = self._batch.reset_ended()[0]
    self._observations = observations
    return observations, rewards, terminations, truncations, infos

  def render(self) -> Optional[Tuple[Any, ...]]:
    """One frame per environment of its latest observation (see `render_mode`), or None
    without a render mode or before the first reset."""
    if self.render_mode is None or self._observations is None:
      return None
    return tuple(_render.frame(o, self.render_mode, self._bounded) for o in self._observations)

  def close_extras(self, **kwargs: Any) -> None:
    """Closes the native batch: stepping or resetting (seeded or not) is then a
    `ValueError`."""
    del kwargs
    self._batch.close()

  def _check_open(self) -> None:
    if self.closed:
      raise ValueError(f'{self!r} is closed')

  def __repr__(self) -> str:
    shown = ', '.join(self._ids[:3]) + (', ...' if len(self._ids) > 3 else '')
    return f'<bsuite_rs.gym.VectorEnv of {self.num_envs}: {shown}>'


def make_vector(num_envs: int = 1, *, bsuite_id: str, render_mode: Optional[str] = None,
                autoreset_mode: Union[AutoresetMode, str] = AutoresetMode.NEXT_STEP,
                **kwargs: Any) -> VectorEnv:
  """The `vector_entry_point` of every registered id: `gymnasium.make_vec(id, num_envs=N)`.
  `max_episode_steps` (which gymnasium passes when an id has one; ours have none) is
  refused, as are other arguments a VectorEnv does not take."""
  if kwargs:
    raise TypeError(f'bsuite_rs.gym.VectorEnv does not take {sorted(kwargs)}')
  return VectorEnv(bsuite_id, num_envs, render_mode=render_mode, autoreset_mode=autoreset_mode)
