"""Drawing observations: the frames of `render_mode='rgb_array'` and `'ansi'`.

bsuite's `GymFromDMEnv.render('rgb_array')` returns the last observation itself; a frame
here has that layout (one cell per observation value, rows as the observation's rows), made
into what gymnasium's tools expect: an `(H, W, 3)` uint8 image, each cell a `CELL` x `CELL`
square of grey.
"""
from typing import Optional

import numpy as np

RENDER_MODES = ('rgb_array', 'ansi')
# Frames per second of videos (RecordVideo reads `metadata['render_fps']`): slow enough to
# follow catch's ball, one step per frame.
RENDER_FPS = 4

# Pixels per observation value: even, so that video encoders (which need even sizes) take
# every frame, and large enough to see catch's 10x5 board.
CELL = 16


def check_render_mode(render_mode: Optional[str]) -> Optional[str]:
  """`render_mode` itself, when it is one of None, 'rgb_array' and 'ansi'; else ValueError."""
  if render_mode is not None and render_mode not in RENDER_MODES:
    raise ValueError(f"render_mode {render_mode!r} is not supported: use None, 'rgb_array' or "
                     "'ansi'")
  return render_mode


def _grid(observation: np.ndarray) -> np.ndarray:
  """The observation as a 2-D grid of values (a vector is one row)."""
  grid = np.asarray(observation, dtype=np.float64)
  if grid.ndim == 0:
    return grid.reshape(1, 1)
  if grid.ndim == 1:
    return grid.reshape(1, -1)
  return grid.reshape(grid.shape[0], -1)


def rgb_array(observation: np.ndarray, bounded: bool) -> np.ndarray:
  """An `(rows*CELL, cols*CELL, 3)` uint8 image of `observation`.

  `bounded` observations (catch, deep_sea and mnist lie in [0, 1]) map 0 to black and 1 to
  white; others (positions, velocities, contexts) map through tanh, 0 to mid grey, so that
  every value stays visible whatever its scale.
  """
  grid = _grid(observation)
  if bounded:
    level = np.clip(grid, 0.0, 1.0)
  else:
    level = 0.5 + 0.5 * np.tanh(grid)
  grey = np.round(level * 255.0).astype(np.uint8)
  image = np.repeat(np.repeat(grey, CELL, axis=0), CELL, axis=1)
  return np.repeat(image[:, :, None], 3, axis=2)


def ansi(observation: np.ndarray, bounded: bool) -> str:
  """`observation` as text, one line per row: bounded boards as '.' (0) and '#' (1, or any
  other value as its digit of tenths), others as numbers."""
  grid = _grid(observation)
  lines = []
  for row in grid:
    if bounded:
      lines.append(''.join('.' if v <= 0 else '#' if v >= 1 else str(int(v * 10)) for v in row))
    else:
      lines.append(' '.join(f'{v:+.3f}' for v in row))
  return '\n'.join(lines) + '\n'


def frame(observation: Optional[np.ndarray], render_mode: Optional[str], bounded: bool):
  """The frame of `render_mode` for `observation` (None without a mode or an observation)."""
  if render_mode is None or observation is None:
    return None
  if render_mode == 'rgb_array':
    return rgb_array(observation, bounded)
  return ansi(observation, bounded)
