"""bsuite's sweep: every bsuite_id with its settings, episodes and tags (bsuite.sweep).

`SWEEP` holds all 468 bsuite_ids in bsuite's order, `TESTING` one per experiment (not the
noise and scale variants), `<EXPERIMENT>` (e.g. `CATCH`) an experiment's ids, `TAGS[tag]`
the ids of a tag, `SETTINGS[bsuite_id]` an id's keyword arguments (as `load` takes them)
and `EPISODES[bsuite_id]` its number of episodes.
"""
from types import MappingProxyType
from typing import Any, Dict, Mapping, Tuple

from bsuite_rs import _core

BSuiteId = str
Tag = str
EnvKWargs = Dict[str, Any]

SEPARATOR = '/'
IGNORE_FOR_TESTING = ('_noise', '_scale')

_ROWS = _core._sweep_table()
_BY_EXPERIMENT: Dict[str, Tuple[BSuiteId, ...]] = {}
_TAGS: Dict[Tag, Tuple[BSuiteId, ...]] = {}
for _id, _experiment, _, _, _tags in _ROWS:
  _BY_EXPERIMENT[_experiment] = _BY_EXPERIMENT.get(_experiment, ()) + (_id,)
  for _tag in _tags:
    _TAGS[_tag] = _TAGS.get(_tag, ()) + (_id,)

SWEEP: Tuple[BSuiteId, ...] = tuple(row[0] for row in _ROWS)
SETTINGS: Mapping[BSuiteId, EnvKWargs] = MappingProxyType({row[0]: row[2] for row in _ROWS})
EPISODES: Mapping[BSuiteId, int] = MappingProxyType({row[0]: row[3] for row in _ROWS})
TAGS: Mapping[Tag, Tuple[BSuiteId, ...]] = MappingProxyType(_TAGS)
TESTING: Tuple[BSuiteId, ...] = tuple(
    ids[0] for name, ids in _BY_EXPERIMENT.items() if not name.endswith(IGNORE_FOR_TESTING))

BANDIT: Tuple[BSuiteId, ...] = _BY_EXPERIMENT['bandit']
BANDIT_NOISE: Tuple[BSuiteId, ...] = _BY_EXPERIMENT['bandit_noise']
BANDIT_SCALE: Tuple[BSuiteId, ...] = _BY_EXPERIMENT['bandit_scale']
CARTPOLE: Tuple[BSuiteId, ...] = _BY_EXPERIMENT['cartpole']
CARTPOLE_NOISE: Tuple[BSuiteId, ...] = _BY_EXPERIMENT['cartpole_noise']
CARTPOLE_SCALE: Tuple[BSuiteId, ...] = _BY_EXPERIMENT['cartpole_scale']
CARTPOLE_SWINGUP: Tuple[BSuiteId, ...] = _BY_EXPERIMENT['cartpole_swingup']
CATCH: Tuple[BSuiteId, ...] = _BY_EXPERIMENT['catch']
CATCH_NOISE: Tuple[BSuiteId, ...] = _BY_EXPERIMENT['catch_noise']
CATCH_SCALE: Tuple[BSuiteId, ...] = _BY_EXPERIMENT['catch_scale']
DEEP_SEA: Tuple[BSuiteId, ...] = _BY_EXPERIMENT['deep_sea']
DEEP_SEA_STOCHASTIC: Tuple[BSuiteId, ...] = _BY_EXPERIMENT['deep_sea_stochastic']
DISCOUNTING_CHAIN: Tuple[BSuiteId, ...] = _BY_EXPERIMENT['discounting_chain']
MEMORY_LEN: Tuple[BSuiteId, ...] = _BY_EXPERIMENT['memory_len']
MEMORY_SIZE: Tuple[BSuiteId, ...] = _BY_EXPERIMENT['memory_size']
MNIST: Tuple[BSuiteId, ...] = _BY_EXPERIMENT['mnist']
MNIST_NOISE: Tuple[BSuiteId, ...] = _BY_EXPERIMENT['mnist_noise']
MNIST_SCALE: Tuple[BSuiteId, ...] = _BY_EXPERIMENT['mnist_scale']
MOUNTAIN_CAR: Tuple[BSuiteId, ...] = _BY_EXPERIMENT['mountain_car']
MOUNTAIN_CAR_NOISE: Tuple[BSuiteId, ...] = _BY_EXPERIMENT['mountain_car_noise']
MOUNTAIN_CAR_SCALE: Tuple[BSuiteId, ...] = _BY_EXPERIMENT['mountain_car_scale']
UMBRELLA_DISTRACT: Tuple[BSuiteId, ...] = _BY_EXPERIMENT['umbrella_distract']
UMBRELLA_LENGTH: Tuple[BSuiteId, ...] = _BY_EXPERIMENT['umbrella_length']

del _id, _experiment, _tags, _tag
