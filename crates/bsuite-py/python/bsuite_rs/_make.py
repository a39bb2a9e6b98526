"""`bsuite_rs.make`: envpool's way of asking for a batch of environments."""
from typing import Any, Optional, Sequence, Union

from bsuite_rs import _env

ENV_TYPES = ('gymnasium', 'dm', 'sb3')


def make(task_id: Union[str, Sequence[str]], env_type: str = 'gymnasium', num_envs: int = 1,
         *, seed: Optional[int] = None, render_mode: Optional[str] = None) -> Any:
  """`num_envs` copies of a bsuite_id (or the given ids) stepped together, as envpool's
  `envpool.make(task_id, env_type=..., num_envs=N)`:

  - `env_type='gymnasium'`: a `gymnasium.vector.VectorEnv` (`bsuite_rs.gym.VectorEnv`);
  - `env_type='sb3'`: a Stable-Baselines3 VecEnv (`bsuite_rs.sb3.VecEnv`);
  - `env_type='dm'`: the native `bsuite_rs.VecEnv`, which returns dm_env's four arrays.

  `seed` seeds the environments as gymnasium does (environment k gets `seed + k`): at the
  first reset of the gymnasium and SB3 ones, at once for 'dm'. `render_mode` is the
  gymnasium and SB3 ones' ('rgb_array' or 'ansi'). `num_envs` is a whole number of at least
  1; a batch too large for the memory is a `MemoryError` before anything is made.
  """
  ids = _env.copies(task_id, num_envs) if isinstance(task_id, str) else list(task_id)
  if env_type == 'gymnasium':
    from bsuite_rs import gym_vector  # pylint: disable=g-import-not-at-top
    envs = gym_vector.VectorEnv(ids, render_mode=render_mode)
    if seed is not None:
      envs.reset(seed=seed)
    return envs
  if env_type == 'sb3':
    from bsuite_rs import sb3  # pylint: disable=g-import-not-at-top
    envs = sb3.VecEnv(ids, render_mode=render_mode)
    if seed is not None:
      envs.seed(seed)
    return envs
  if env_type == 'dm':
    if render_mode is not None:
      raise ValueError("env_type='dm' does not render; use 'gymnasium' or 'sb3'")
    seeds = None if seed is None else _env.consecutive_seeds(seed, len(ids))
    return _env.VecEnv(ids, env_seeds=seeds)
  raise ValueError(f'unknown env_type {env_type!r}: use one of {", ".join(ENV_TYPES)}')
