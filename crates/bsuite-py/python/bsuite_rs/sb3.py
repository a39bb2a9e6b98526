"""Stable-Baselines3's `VecEnv` on bsuite-rs's native batch (needs stable-baselines3).

  from stable_baselines3 import PPO
  import bsuite_rs.sb3
  model = PPO('MlpPolicy', bsuite_rs.sb3.make_vec('catch/0', n_envs=16), seed=0)
  model.learn(50_000)

Every step runs in Rust without the GIL, one call for all environments (SB3's
DummyVecEnv makes one Python call per environment). SB3's own semantics: an environment
whose episode ends is reset in the same step; its last observation is
`infos[i]['terminal_observation']`, and `infos[i]['TimeLimit.truncated']` says whether the
episode was cut short (never, in bsuite: every episode ends with discount 0).

Seeding is SB3's: `seed(s)` gives environment k the env seed `s + k` at the next reset,
exactly as DummyVecEnv over `bsuite_rs.gym.BsuiteEnv`s does. Import this module only where
stable-baselines3 is installed (`pip install bsuite-rs[sb3]`); `import bsuite_rs` never
imports it.
"""
from typing import Any, Iterable, List, Optional, Sequence, Type, Union

import numpy as np
from stable_baselines3.common import vec_env as sb3_vec_env

from bsuite_rs import _env
from bsuite_rs import gym_vector


class VecEnv(sb3_vec_env.VecEnv):
  """bsuite environments as one SB3 `VecEnv` (see the module docs).

  `VecEnv(ids, n_envs=None, *, render_mode=None)`: one bsuite_id and `n_envs` copies of it
  (default 1), or a sequence of ids with one observation shape and one number of actions.
  """

  def __init__(self, ids: Union[str, Sequence[str]], n_envs: Optional[int] = None, *,
               render_mode: Optional[str] = None):
    # The gymnasium VectorEnv holds the batch, spaces, seeds and frames; this class only
    # changes the step's semantics to SB3's.
    self._envs = gym_vector.VectorEnv(ids, n_envs, render_mode=render_mode)
    self._actions: Optional[np.ndarray] = None
    super().__init__(self._envs.num_envs, self._envs.single_observation_space,
                     self._envs.single_action_space)

  @property
  def bsuite_ids(self):
    """The bsuite_ids, in order."""
    return self._envs.bsuite_ids

  def reset(self) -> np.ndarray:
    """Starts a new episode in every environment (with the seeds of `seed()`, once)."""
    seeds = self._seeds if any(s is not None for s in self._seeds) else None
    observations, _ = self._envs.reset(seed=seeds)
    self.reset_infos = [{} for _ in range(self.num_envs)]
    self._reset_seeds()
    self._reset_options()
    return observations

  def seed(self, seed: Optional[int] = None) -> Sequence[Optional[int]]:
    """SB3's seeding: environment k gets the env seed `seed + k` at the next reset (each a
    seed in 0..=4294967295; a numpy integer is never wrapped). Without a seed, one is
    drawn."""
    if seed is None:
      seed = int(np.random.randint(0, _env.MAX_SEED - self.num_envs + 2, dtype=np.int64))
    self._seeds = _env.consecutive_seeds(seed, self.num_envs)
    return self._seeds

  def step_async(self, actions: np.ndarray) -> None:
    self._actions = actions

  def step_wait(self):
    """`(observations, rewards, dones, infos)` of the step, in SB3's form."""
    batch = self._envs._batch
    observations, rewards, terminated, truncated = batch._gym_step(self._actions)
    dones = terminated | truncated
    infos: List[dict] = [{} for _ in range(self.num_envs)]
    if dones.any():
      cut = truncated.tolist()
      for k in dones.nonzero()[0].tolist():
        # A view of this step's array, which is never written again while it is held.
        infos[k]['terminal_observation'] = observations[k]
        infos[k]['TimeLimit.truncated'] = cut[k]
      observations = batch.reset_ended()[0]
    self._envs._observations = observations
    return observations, rewards.astype(np.float32), dones, infos

  def close(self) -> None:
    self._envs.close()

  def get_images(self) -> Sequence[Optional[np.ndarray]]:
    """Each environment's frame (`render_mode='rgb_array'`)."""
    frames = self._envs.render()
    return list(frames) if frames is not None else [None] * self.num_envs

  def _targets(self, indices) -> Iterable[int]:
    return self._get_indices(indices)

  def get_attr(self, attr_name: str, indices=None) -> List[Any]:
    """The attribute of the environments: `render_mode`, `bsuite_id`, `env_seed`, or any
    attribute of the batch (bsuite_rs.gym.VectorEnv), the same for each."""
    per_env = {'bsuite_id': self._envs.bsuite_ids, 'env_seed': self._envs.env_seeds}
    if attr_name in per_env:
      return [per_env[attr_name][k] for k in self._targets(indices)]
    value = getattr(self._envs, attr_name)
    return [value for _ in self._targets(indices)]

  def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
    raise AttributeError(f'bsuite_rs.sb3.VecEnv cannot set {attr_name!r}: its environments are '
                         'native and have no per-environment attributes to set')

  def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
    """`bsuite_info` per environment; other methods do not exist on native environments."""
    if method_name == 'bsuite_info':
      infos = self._envs._batch.bsuite_info()
      return [infos[k] for k in self._targets(indices)]
    raise AttributeError(f'bsuite_rs.sb3.VecEnv has no per-environment method {method_name!r}')

  def env_is_wrapped(self, wrapper_class: Type, indices=None) -> List[bool]:
    """Always False: the environments are native, not gymnasium wrappers' insides."""
    return [False for _ in self._targets(indices)]


def make_vec(bsuite_id: Union[str, Sequence[str]], n_envs: int = 1, seed: Optional[int] = None,
             monitor: bool = True, render_mode: Optional[str] = None):
  """SB3's `make_vec_env` for bsuite: `n_envs` copies of `bsuite_id` in one native batch.

  `seed` seeds the first reset as `VecEnv.seed` does; `monitor` wraps the batch in SB3's
  `VecMonitor`, so that SB3 logs episode returns and lengths (`ep_rew_mean`), as
  `make_vec_env`'s Monitor wrappers do.
  """
  envs = VecEnv(bsuite_id, n_envs if isinstance(bsuite_id, str) else None,
                render_mode=render_mode)
  if seed is not None:
    envs.seed(seed)
  return sb3_vec_env.VecMonitor(envs) if monitor else envs
