"""bsuite's `bsuite.utils.gym_wrapper`: `GymFromDMEnv` and `DMEnvFromGym`, with bsuite
0.3.6's signatures and its (pre-gymnasium) gym API: `reset()` returns the observation and
`step(action)` returns `(observation, reward, done, info)`, as code written against bsuite
expects. For gymnasium's API use `bsuite_rs.gym`. Needs gymnasium (for the spaces).
"""
from typing import Any, Dict, Optional, Tuple

from gymnasium import spaces
import numpy as np

from bsuite_rs import _compat

_GymTimestep = Tuple[np.ndarray, float, bool, Dict[str, Any]]


class GymFromDMEnv:
  """A dm_env environment as a gym environment of bsuite's (old) gym API."""

  metadata = {'render.modes': ['rgb_array']}

  def __init__(self, env: Any):
    self._env = env
    self._last_observation: Optional[np.ndarray] = None
    self.viewer = None
    self.game_over = False

  def step(self, action: int) -> _GymTimestep:
    timestep = self._env.step(action)
    self._last_observation = timestep.observation
    reward = timestep.reward or 0.
    if timestep.last():
      self.game_over = True
    return timestep.observation, reward, timestep.last(), {}

  def reset(self) -> np.ndarray:
    self.game_over = False
    timestep = self._env.reset()
    self._last_observation = timestep.observation
    return timestep.observation

  def render(self, mode: str = 'rgb_array') -> Any:
    """The last observation, as bsuite's; only 'rgb_array' (no viewer is bundled)."""
    if self._last_observation is None:
      raise ValueError('Environment not ready to render. Call reset() first.')
    if mode == 'rgb_array':
      return self._last_observation
    raise ValueError(f"render mode {mode!r} is not supported: use 'rgb_array'")

  @property
  def action_space(self) -> spaces.Discrete:
    action_spec = self._env.action_spec()
    return spaces.Discrete(action_spec.num_values)

  @property
  def observation_space(self) -> spaces.Box:
    obs_spec = self._env.observation_spec()
    if hasattr(obs_spec, 'minimum'):
      # dm_env keeps scalar bounds as 0-d arrays; gymnasium wants them broadcast.
      return spaces.Box(low=np.broadcast_to(obs_spec.minimum, obs_spec.shape),
                        high=np.broadcast_to(obs_spec.maximum, obs_spec.shape),
                        shape=obs_spec.shape, dtype=obs_spec.dtype)
    return spaces.Box(low=-float('inf'), high=float('inf'), shape=obs_spec.shape,
                      dtype=obs_spec.dtype)

  @property
  def reward_range(self) -> Tuple[float, float]:
    reward_spec = self._env.reward_spec()
    if hasattr(reward_spec, 'minimum'):
      return reward_spec.minimum, reward_spec.maximum
    return -float('inf'), float('inf')

  def __getattr__(self, attr: str) -> Any:
    """Delegates attribute access to the wrapped environment (bsuite_info, ...)."""
    if attr == '_env':
      raise AttributeError(attr)
    return getattr(self._env, attr)


def space2spec(space: Any, name: Optional[str] = None) -> Any:
  """The dm_env spec of a gym(nasium) space: Discrete, Box, MultiBinary, MultiDiscrete,
  and Tuple and Dict of those."""
  if isinstance(space, spaces.Discrete):
    return _compat.DiscreteArray(num_values=int(space.n), dtype=space.dtype, name=name)
  if isinstance(space, spaces.Box):
    return _compat.BoundedArray(shape=space.shape, dtype=space.dtype, minimum=space.low,
                                maximum=space.high, name=name)
  if isinstance(space, spaces.MultiBinary):
    return _compat.BoundedArray(shape=space.shape, dtype=space.dtype, minimum=0.0,
                                maximum=1.0, name=name)
  if isinstance(space, spaces.MultiDiscrete):
    return _compat.BoundedArray(shape=space.shape, dtype=space.dtype,
                                minimum=np.zeros(space.shape), maximum=space.nvec - 1,
                                name=name)
  if isinstance(space, spaces.Tuple):
    return tuple(space2spec(s, name) for s in space.spaces)
  if isinstance(space, spaces.Dict):
    return {key: space2spec(value, name) for key, value in space.spaces.items()}
  raise ValueError(f'Unexpected gym space: {space}')


class DMEnvFromGym(_compat.EnvironmentBase):
  """A gym(nasium) environment with dm_env's interface, as bsuite's DMEnvFromGym. Takes
  gymnasium environments (`reset` returning `(observation, info)`, five-value `step`) as
  well as old-gym ones."""

  def __init__(self, gym_env: Any):
    self.gym_env = gym_env
    self._reset_next_step = True

  def reset(self) -> Any:
    self._reset_next_step = False
    observation = self.gym_env.reset()
    if isinstance(observation, tuple) and len(observation) == 2:
      observation = observation[0]
    return _compat.TimeStep(_compat.StepType.FIRST, None, None, observation)

  def step(self, action: int) -> Any:
    if self._reset_next_step:
      return self.reset()
    result = self.gym_env.step(action)
    if len(result) == 5:
      observation, reward, terminated, truncated, info = result
      done = terminated or truncated
      is_truncated = truncated and not terminated
    else:
      observation, reward, done, info = result
      is_truncated = info.get('TimeLimit.truncated', False)
    self._reset_next_step = done
    if done:
      # A truncation keeps discount 1; a termination ends with 0, as dm_env's helpers do.
      discount = 1.0 if is_truncated else 0.0
      return _compat.TimeStep(_compat.StepType.LAST, reward, discount, observation)
    return _compat.TimeStep(_compat.StepType.MID, reward, 1.0, observation)

  def close(self) -> None:
    self.gym_env.close()

  def observation_spec(self) -> Any:
    return space2spec(self.gym_env.observation_space, name='observations')

  def action_spec(self) -> Any:
    return space2spec(self.gym_env.action_space, name='actions')
