"""The types of dm_env's interface: dm_env's own when it is installed, look-alikes otherwise.

With dm_env installed, timesteps are `dm_env.TimeStep`s, step types `dm_env.StepType`s,
specs `dm_env.specs` arrays and environments `dm_env.Environment`s, so agents written against
dm_env see no difference from bsuite. Without it (the wheel needs only numpy), the classes
below have the same fields, methods and values.
"""
import enum
from typing import Any, NamedTuple

import numpy as np

try:
  import dm_env
  from dm_env import specs as _specs
except ImportError:
  dm_env = None

HAVE_DM_ENV = dm_env is not None

if dm_env is not None:
  StepType = dm_env.StepType
  TimeStep = dm_env.TimeStep
  Array = _specs.Array
  BoundedArray = _specs.BoundedArray
  DiscreteArray = _specs.DiscreteArray
  EnvironmentBase = dm_env.Environment
else:

  class StepType(enum.IntEnum):
    """Where a timestep sits in its episode (dm_env.StepType)."""
    FIRST = 0
    MID = 1
    LAST = 2

    def first(self) -> bool:
      return self is StepType.FIRST

    def mid(self) -> bool:
      return self is StepType.MID

    def last(self) -> bool:
      return self is StepType.LAST

  class TimeStep(NamedTuple):
    """step_type, reward, discount and observation (dm_env.TimeStep)."""
    step_type: Any
    reward: Any
    discount: Any
    observation: Any

    def first(self) -> bool:
      return self.step_type == StepType.FIRST

    def mid(self) -> bool:
      return self.step_type == StepType.MID

    def last(self) -> bool:
      return self.step_type == StepType.LAST

  class Array:
    """An array's shape, dtype and name (dm_env.specs.Array)."""

    def __init__(self, shape, dtype, name=None):
      self._shape = tuple(int(n) for n in shape)
      self._dtype = np.dtype(dtype)
      self._name = name

    @property
    def shape(self):
      return self._shape

    @property
    def dtype(self):
      return self._dtype

    @property
    def name(self):
      return self._name

    def validate(self, value):
      """Returns `value` as an array if it fits the spec; raises ValueError otherwise."""
      value = np.asarray(value)
      if value.shape != self.shape:
        raise ValueError(f'expected shape {self.shape}, got {value.shape}')
      if value.dtype != self.dtype:
        raise ValueError(f'expected dtype {self.dtype}, got {value.dtype}')
      return value

    def generate_value(self):
      """A value that fits the spec (zeros)."""
      return np.zeros(shape=self.shape, dtype=self.dtype)

    def __repr__(self):
      return f'Array(shape={self.shape}, dtype={self.dtype!r}, name={self.name!r})'

    def __eq__(self, other):
      return (type(self) is type(other) and self.shape == other.shape
              and self.dtype == other.dtype and self.name == other.name)

  class BoundedArray(Array):
    """An array with inclusive bounds (dm_env.specs.BoundedArray)."""

    def __init__(self, shape, dtype, minimum, maximum, name=None):
      super().__init__(shape, dtype, name)
      self._minimum = np.array(minimum, dtype=self.dtype)
      self._maximum = np.array(maximum, dtype=self.dtype)

    @property
    def minimum(self):
      return self._minimum

    @property
    def maximum(self):
      return self._maximum

    def validate(self, value):
      value = super().validate(value)
      if (value < self.minimum).any() or (value > self.maximum).any():
        raise ValueError(f'values outside [{self.minimum}, {self.maximum}]')
      return value

    def generate_value(self):
      return np.full(self.shape, self.minimum, dtype=self.dtype)

    def __repr__(self):
      return (f'BoundedArray(shape={self.shape}, dtype={self.dtype!r}, name={self.name!r}, '
              f'minimum={self.minimum}, maximum={self.maximum})')

    def __eq__(self, other):
      return (super().__eq__(other) and np.array_equal(self.minimum, other.minimum)
              and np.array_equal(self.maximum, other.maximum))

  class DiscreteArray(BoundedArray):
    """A scalar integer in 0..num_values-1 (dm_env.specs.DiscreteArray)."""

    def __init__(self, num_values, dtype=np.int32, name=None):
      super().__init__((), dtype, 0, num_values - 1, name)
      self._num_values = num_values

    @property
    def num_values(self):
      return self._num_values

    def __repr__(self):
      return (f'DiscreteArray(shape=(), dtype={self.dtype!r}, name={self.name!r}, '
              f'minimum=0, maximum={self.num_values - 1}, num_values={self.num_values})')

  class EnvironmentBase:
    """What dm_env.Environment gives every environment besides its abstract methods."""

    def reward_spec(self):
      return Array(shape=(), dtype=float, name='reward')

    def discount_spec(self):
      return BoundedArray(shape=(), dtype=float, minimum=0., maximum=1., name='discount')

    def close(self):
      pass

    def __enter__(self):
      return self

    def __exit__(self, exc_type, exc_value, traceback):
      self.close()
