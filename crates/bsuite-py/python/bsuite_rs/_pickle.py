"""How pickled environments come back: loaded afresh, then given their history again.

An environment is a deterministic function of its bsuite_id, its env seed and the resets
and actions it was given, so replaying those reaches its exact state (random generators
included); see `src/snapshot.rs`.
"""


def restore_env(cls, bsuite_id, env_seed, history):
  """An environment of class `cls` in the state that `history` leads to."""
  env = cls(bsuite_id, env_seed=env_seed)
  env._replay(history)
  return env


def restore_vec_env(cls, ids, env_seeds, history):
  """A VecEnv of class `cls` in the state that `history` leads to."""
  envs = cls(ids, env_seeds=env_seeds)
  envs._replay(history)
  return envs
