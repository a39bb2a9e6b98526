"""What the reference scripts in this folder share: building a bsuite 0.3.6 environment the
way our conformance fixtures were made.

bsuite 0.3.6 is used unchanged, with two substitutions made only while an environment is
being built (both from jax_agent.building_env, so the JAX agents' runs and these scripts
build environments identically):

  * MNIST: bsuite would download the MNIST training set; instead it gets the 5000 digits
    embedded in crates/bsuite-envs/data (the same digits bsuite-envs serves), as int8 images
    exactly as bsuite's own IDX parser returns them.
  * Seeding: numpy RandomStates that bsuite creates without a seed (OS entropy) are seeded
    with the given env seed; explicit seeds are kept. With env seed None nothing is changed.

bsuite's banners ("Loaded bsuite_id ...") go to stderr, so stdout carries only our output.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import jax_agent  # noqa: E402  (imports nothing of JAX at module level)


def load(bsuite_id, env_seed, results_dir=None, overwrite=False):
  """bsuite.load_from_id, or load_and_record_to_csv when results_dir is given."""
  import bsuite  # pylint: disable=g-import-not-at-top
  with jax_agent.building_env(env_seed):
    if results_dir is None:
      return bsuite.load_from_id(bsuite_id)
    return bsuite.load_and_record_to_csv(bsuite_id, results_dir=results_dir, overwrite=overwrite)


def seed_arg(text):
  """An --env-seed value: an integer, or 'none' for bsuite's own OS-entropy seeding."""
  return None if text.lower() == 'none' else int(text)


def expand_ids(names):
  """bsuite_ids and experiment names (all of that experiment's ids), in the order given."""
  return jax_agent.expand_ids(names)


def to_plain(x):
  """json.dumps default= for numpy scalars and arrays."""
  if isinstance(x, np.generic):
    return x.item()
  if isinstance(x, np.ndarray):
    return x.tolist()
  raise TypeError(f'{type(x).__name__} is not JSON serialisable')
