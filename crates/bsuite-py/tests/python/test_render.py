"""render_mode 'rgb_array' and 'ansi' on the gymnasium environments, and envpool's `make`."""
import gymnasium
from gymnasium.utils.env_checker import check_env
import numpy as np
import pytest

import bsuite_rs
import bsuite_rs.gym
from bsuite_rs import _render


def test_rgb_frames_draw_the_observation_cell_by_cell():
  env = gymnasium.make('bsuite/catch-0', render_mode='rgb_array')
  observation, _ = env.reset(seed=3)
  frame = env.render()
  assert frame.shape == (10 * _render.CELL, 5 * _render.CELL, 3) and frame.dtype == np.uint8
  # One cell per observation value, as bsuite's GymFromDMEnv.render returns the observation:
  # the ball and the paddle white, the rest black.
  cells = frame[::_render.CELL, ::_render.CELL, 0]
  assert np.array_equal(cells, (observation * 255).astype(np.uint8))
  assert (frame[:, :, 0] == frame[:, :, 2]).all()
  observation, *_ = env.step(0)
  assert np.array_equal(env.render()[::_render.CELL, ::_render.CELL, 1],
                        (observation * 255).astype(np.uint8))


def test_frames_of_unbounded_observations_and_ansi():
  env = bsuite_rs.gym.make('cartpole/0', render_mode='rgb_array')
  observation, _ = env.reset(seed=0)
  frame = env.render()
  assert frame.shape == (_render.CELL, 6 * _render.CELL, 3)
  grey = frame[0, ::_render.CELL, 0].astype(int)
  expected = np.round((0.5 + 0.5 * np.tanh(observation[0].astype(np.float64))) * 255)
  assert np.array_equal(grey, expected.astype(int))
  text = gymnasium.make('bsuite/catch-0', render_mode='ansi')
  observation, _ = text.reset(seed=1)
  board = text.render().splitlines()
  assert len(board) == 10 and all(len(row) == 5 for row in board)
  assert [[c == '#' for c in row] for row in board] == (observation == 1).tolist()
  assert board[-1].count('#') == 1 and board[0].count('#') == 1


# Unbounded observations get an unbounded Box, as in bsuite's own gym wrapper.
@pytest.mark.filterwarnings('ignore:.*Box observation space m.* is .*infinity')
def test_checkers_and_frame_collection():
  # Through gymnasium.make, so that the checker also tries the other render mode.
  check_env(gymnasium.make('bsuite/catch-0', render_mode='rgb_array').unwrapped)
  check_env(gymnasium.make('bsuite/deep_sea-0', render_mode='ansi').unwrapped)
  assert gymnasium.make('bsuite/catch-0').metadata['render_fps'] == 4
  # RecordVideo needs moviepy, which the test venv does not carry; RenderCollection
  # gathers the same frames that RecordVideo would encode.
  env = gymnasium.wrappers.RenderCollection(gymnasium.make('bsuite/catch-2',
                                                           render_mode='rgb_array'))
  env.reset(seed=0)
  for _ in range(20):
    env.step(1)
  frames = env.render()
  assert len(frames) == 21 and all(f.shape == (160, 80, 3) for f in frames)
  assert len({f.tobytes() for f in frames}) > 5
  with pytest.raises(ValueError, match="render_mode 'human' is not supported"):
    bsuite_rs.gym.BsuiteEnv('catch/0', render_mode='human')
  assert bsuite_rs.gym.BsuiteEnv('catch/0').render() is None


def test_vector_frames_are_one_per_environment():
  envs = gymnasium.make_vec('bsuite/deep_sea-0', num_envs=3, render_mode='rgb_array')
  observations, _ = envs.reset(seed=0)
  frames = envs.render()
  assert len(frames) == 3 and frames[0].shape == (160, 160, 3)
  for frame, observation in zip(frames, observations):
    assert np.array_equal(frame[::16, ::16, 0], (observation * 255).astype(np.uint8))


@pytest.mark.parametrize('env_type', ['gymnasium', 'dm'])
def test_envpool_style_make(env_type):
  envs = bsuite_rs.make('catch/0', env_type=env_type, num_envs=4, seed=3)
  reference = [bsuite_rs.Environment('catch/0', env_seed=3 + k) for k in range(4)]
  expected = np.stack([env.reset().observation for env in reference])
  observations = envs.reset(seed=3)[0] if env_type == 'gymnasium' else envs.reset()[0]
  assert np.array_equal(observations, expected)
  with pytest.raises(ValueError, match="unknown env_type 'gym'"):
    bsuite_rs.make('catch/0', env_type='gym')
