"""Result arrays are recycled only when nobody holds them: what a caller keeps never changes."""
import weakref

import numpy as np

import bsuite_rs


def test_kept_observations_never_change():
  env = bsuite_rs.load_from_id('deep_sea/5')
  env.reset()
  kept = []
  for t in range(300):
    timestep = env.step(t % 2)
    if t % 7 == 0:
      kept.append((timestep.observation, timestep.observation.copy()))
  assert all(np.array_equal(array, copy) for array, copy in kept)
  assert len({id(array) for array, _ in kept}) == len(kept)


def test_dropped_observations_are_recycled():
  env = bsuite_rs.load_from_id('catch/0')
  env.reset()
  ids = {id(env.step(1).observation) for _ in range(100)}
  assert len(ids) <= 4


def test_views_weak_references_and_changed_arrays_keep_an_array_out_of_the_pool():
  env = bsuite_rs.load_from_id('catch/0')
  env.reset()

  observation = env.step(0).observation
  snapshot = observation.copy()
  view = observation[3:]
  weak = weakref.ref(observation)
  del observation
  for _ in range(100):
    env.step(0)
  assert weak() is not None and np.array_equal(weak(), snapshot)
  assert np.array_equal(view, snapshot[3:])
  del view

  # Reshaped, retyped or read-only in place, then dropped: never handed out again as an
  # observation (it would have the wrong shape, dtype or flags).
  for change in ('shape', 'dtype', 'readonly'):
    observation = env.step(0).observation
    if change == 'shape':
      observation.shape = (50,)
    elif change == 'dtype':
      observation.dtype = np.int32
    else:
      observation.flags.writeable = False
    del observation
    for _ in range(10):
      new = env.step(0).observation
      assert (new.shape, new.dtype, new.flags.writeable) == ((10, 5), np.float32, True)
      del new


def test_vec_env_results_that_are_kept_never_change():
  vec = bsuite_rs.VecEnv(bsuite_rs.sweep.CATCH[:5])
  vec.reset()
  kept = []
  for t in range(60):
    result = vec.step(np.full(5, t % 3))
    if t % 5 == 0:
      kept.append((result, tuple(a.copy() for a in result)))
  for result, copies in kept:
    assert all(np.array_equal(a, b) for a, b in zip(result, copies))
  # Dropped results are recycled: a loop allocates nothing once warm.
  ids = {id(vec.step(np.ones(5, np.int64))[0]) for _ in range(50)}
  assert len(ids) <= 4
