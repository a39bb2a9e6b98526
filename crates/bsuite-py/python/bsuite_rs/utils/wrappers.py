"""bsuite's `bsuite.utils.wrappers`: reward noise and scale, and episode logging, around any
environment with dm_env's interface (bsuite_rs's or your own).

For bsuite's ids, `bsuite_rs.load_from_id` already applies the sweep's noise and scale and
`bsuite_rs.load_and_record_to_csv` logs natively; these wrappers are for code that builds its
own environments as bsuite's users do.
"""
from typing import Any, Dict, Optional, Sequence

import numpy as np

from bsuite_rs import _compat


class _Wrapper(_compat.EnvironmentBase):
  """Passes everything to the wrapped environment."""

  def __init__(self, env: Any):
    self._env = env

  def reset(self) -> Any:
    return self._env.reset()

  def step(self, action: Any) -> Any:
    return self._env.step(action)

  def observation_spec(self) -> Any:
    return self._env.observation_spec()

  def action_spec(self) -> Any:
    return self._env.action_spec()

  def close(self) -> None:
    self._env.close()

  def bsuite_info(self) -> Dict[str, Any]:
    return self._env.bsuite_info()

  @property
  def raw_env(self) -> Any:
    """The innermost environment."""
    return getattr(self._env, 'raw_env', self._env)

  def __getattr__(self, attr: str) -> Any:
    # Only reached for attributes the wrapper lacks (bsuite_num_episodes, ...).
    if attr == '_env':
      raise AttributeError(attr)
    return getattr(self._env, attr)


class RewardNoise(_Wrapper):
  """Adds `noise_scale` times a standard normal draw to every reward (not to FIRST
  timesteps), drawn from `numpy.random.RandomState(seed)`, as bsuite's RewardNoise."""

  def __init__(self, env: Any, noise_scale: float, seed: Optional[int] = None):
    super().__init__(env)
    self._noise_scale = noise_scale
    self._rng = np.random.RandomState(seed)

  def _add_reward_noise(self, timestep: Any) -> Any:
    if timestep.first():
      return timestep
    reward = timestep.reward + self._noise_scale * self._rng.randn()
    return timestep._replace(reward=reward)

  def reset(self) -> Any:
    return self._add_reward_noise(self._env.reset())

  def step(self, action: Any) -> Any:
    return self._add_reward_noise(self._env.step(action))


class RewardScale(_Wrapper):
  """Multiplies every reward (not FIRST timesteps') by `reward_scale`, as bsuite's
  RewardScale (whose `seed` is unused there too)."""

  def __init__(self, env: Any, reward_scale: float, seed: Optional[int] = None):
    super().__init__(env)
    del seed
    self._reward_scale = reward_scale

  def _scale(self, timestep: Any) -> Any:
    if timestep.first():
      return timestep
    return timestep._replace(reward=timestep.reward * self._reward_scale)

  def reset(self) -> Any:
    return self._scale(self._env.reset())

  def step(self, action: Any) -> Any:
    return self._scale(self._env.step(action))


def _logarithmic_logging(episode: int,
                         ratios: Optional[Sequence[float]] = None) -> bool:
  """bsuite's schedule: log at 1, 1.2, 1.4, 1.7, 2, 2.5, 3, 4, ..., 10 times powers of ten."""
  if ratios is None:
    ratios = [1., 1.2, 1.4, 1.7, 2., 2.5, 3., 4., 5., 6., 7., 8., 9., 10.]
  exponent = np.floor(np.log10(np.maximum(1, episode)))
  special_vals = [10**exponent * ratio for ratio in ratios]
  return any(episode == val for val in special_vals)


class Logging(_Wrapper):
  """bsuite's Logging wrapper: writes bsuite's row (`steps`, `episode`, `total_return`,
  `episode_len`, `episode_return` and the environment's `bsuite_info()`) to
  `logger.write(dict)` at bsuite's logarithmic schedule of episodes (of steps with
  `log_by_step`), or after every one with `log_every`."""

  def __init__(self, env: Any, logger: Any, log_by_step: bool = False,
               log_every: bool = False):
    super().__init__(env)
    self._logger = logger
    self._log_by_step = log_by_step
    self._log_every = log_every
    self._steps = 0
    self._episode = 0
    self._total_return = 0.0
    self._episode_len = 0
    self._episode_return = 0.0

  def flush(self) -> None:
    if hasattr(self._logger, 'flush'):
      self._logger.flush()

  def reset(self) -> Any:
    timestep = self._env.reset()
    self._track(timestep)
    return timestep

  def step(self, action: Any) -> Any:
    timestep = self._env.step(action)
    self._track(timestep)
    return timestep

  def _track(self, timestep: Any) -> None:
    if timestep.first():
      self._episode_len = 0
      self._episode_return = 0.0
      return
    self._steps += 1
    self._episode_len += 1
    if timestep.reward:
      self._total_return += timestep.reward
      self._episode_return += timestep.reward
    if self._log_by_step and (_logarithmic_logging(self._steps) or self._log_every):
      self._log_bsuite_data()
    if timestep.last():
      self._episode += 1
      if not self._log_by_step and (_logarithmic_logging(self._episode) or self._log_every):
        self._log_bsuite_data()

  def _log_bsuite_data(self) -> None:
    data = dict(steps=self._steps, episode=self._episode, total_return=self._total_return,
                episode_len=self._episode_len, episode_return=self._episode_return)
    data.update(self._env.bsuite_info())
    self._logger.write(data)
