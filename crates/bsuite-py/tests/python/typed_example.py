"""An agent loop over bsuite_rs's public API, checked by `mypy --strict` (test_typing.py)."""
from typing import Dict, Sequence, Union

import gymnasium
import numpy as np
import numpy.typing as npt

import bsuite_rs
import bsuite_rs.gym


def run_dm_env(bsuite_id: str, episodes: int) -> float:
  env: bsuite_rs.Environment = bsuite_rs.load_from_id(bsuite_id)
  num_actions: int = env.action_spec().num_values
  rng = np.random.default_rng(0)
  total = 0.0
  for _ in range(episodes):
    timestep = env.reset()
    while not timestep.last():
      timestep = env.step(int(rng.integers(num_actions)))
      total += timestep.reward or 0.0
  info: Dict[str, Union[int, float]] = env.bsuite_info()
  del info
  env.close()
  return total


def run_vec_env(ids: Sequence[str]) -> npt.NDArray[np.float64]:
  envs = bsuite_rs.VecEnv(ids, env_seeds=list(range(len(ids))))
  observation, reward, discount, step_type = envs.reset()
  for _ in range(10):
    observation, reward, discount, step_type = envs.step(np.zeros(len(ids), dtype=np.int64))
  assert observation.dtype == np.float32 and step_type.shape == (len(ids),)
  return reward * discount


def run_gymnasium(bsuite_id: str) -> float:
  env = bsuite_rs.gym.BsuiteEnv(bsuite_id, render_mode='rgb_array')
  observation, _ = env.reset(seed=0)
  total = 0.0
  for _ in range(20):
    observation, reward, terminated, truncated, _ = env.step(1)
    total += reward
    if terminated or truncated:
      observation, _ = env.reset()
  envs: gymnasium.vector.VectorEnv = bsuite_rs.gym.VectorEnv(bsuite_id, num_envs=4)
  envs.reset(seed=1)
  frames = bsuite_rs.gym.VectorEnv([bsuite_id], render_mode='ansi').render()
  del frames
  return total + float(observation.sum())


if __name__ == '__main__':
  print(run_dm_env('catch/0', 3), run_vec_env(bsuite_rs.sweep.CATCH[:2]),
        run_gymnasium('catch/0'), bsuite_rs.score, bsuite_rs.gym.gym_id('catch/0'))
