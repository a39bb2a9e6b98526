"""Run bsuite 0.3.6's own JAX baseline agents, as a reference for the Rust port.

Set up the venv once (pinned jax 0.4.23 / dm-haiku 0.0.11 / optax 0.1.7 / rlax 0.1.6 / bsuite 0.3.6):

  py="$(bash tools/reference/setup_jax_agents.sh | tail -n1)"   # <repo>/.bsuite/jax-venv/bin/python

Subcommands (AGENT is one of dqn, boot_dqn, actor_critic, actor_critic_rnn, i.e. the module
bsuite.baselines.jax.AGENT and its default_agent):

  $py tools/reference/jax_agent.py run --agent AGENT --seed S --results-dir DIR \\
        [--num-episodes N] [--jobs J] ID...

    ID is a bsuite_id ('catch/0') or an experiment name ('catch' = all its ids). Each id is
    loaded with bsuite.load_and_record_to_csv(id, results_dir=DIR, overwrite=True) and run with
    bsuite.baselines.experiment.run(agent, env, num_episodes=N or env.bsuite_num_episodes,
    verbose=False), so DIR gets bsuite's own CSV, DIR/bsuite_id_-_<exp>-<index>.csv. --jobs J
    runs J ids at a time in separate (spawned) processes. One line per finished id goes to
    stderr, with wall seconds and agent steps.

  $py tools/reference/jax_agent.py bench --agent AGENT --id ID [--episodes 200] [--warmup 20]
        [--seed 0]

    Loads ID without CSV logging, runs W warmup episodes (they absorb JIT compilation), then
    times N episodes of the bsuite run loop (reset; select_action, step, update until last())
    and prints one JSON line to stdout:
      {"agent", "bsuite_id", "episodes", "agent_steps", "wall_s", "cpu_s", "us_per_step",
       "cpu_us_per_step", "warmup", "seed"}
    agent_steps counts the timed episodes only; cpu_s is time.process_time() of this process,
    summed over all its threads (XLA on CPU may use several, so cpu_s can exceed wall_s).

  $py tools/reference/jax_agent.py cells --id ID [--seed 0] [--episodes N] [--every 100]

    Runs actor_critic_rnn on ID (no CSV) and, every K episodes, prints one JSON line to
    stdout: {"episode", "max_abs_cell", "entropy", "return"}: the largest |c| of the
    training unroll state (which bsuite's agent never resets), the mean entropy of the
    acting policy over those episodes' steps, and their mean return. The acting logits are
    recomputed for the entropy with the agent's own forward function and state, so the
    agent's behaviour is unchanged. The Rust side: the bsuite-baselines example
    rnn_cell_trace prints the same lines.

How each id is built and seeded (run, bench and cells alike), matching the Rust runner:

  * MNIST: bsuite.utils.datasets.load_mnist would download MNIST; while the env is built it is
    replaced by a reader for the repo's embedded 5000-digit subset,
    crates/bsuite-envs/data/mnist_5k-{images-idx3,labels-idx1}-ubyte.gz (gzipped IDX). It
    returns what bsuite's own parser makes: images (N, 28, 28) int8 (pixel bytes reinterpreted
    as signed, so 128..255 become -128..-1), labels (N,) uint8, and the same pair again as the
    test split. (BSUITE_MNIST_DIR, which the Rust crates honour, is ignored here.)
  * Env seeding: bsuite leaves many env RNGs unseeded (np.random.RandomState(None)). While the
    env is built, RandomState(None) acts as RandomState(setting_index), the int after the '/'
    in the id; explicit seeds (mapping_seed, memory's seed=0, ...) are untouched.
  * Agent seeding: after the env is built, np.random.seed(S) (the replay buffers, epsilon-greedy
    and tie-breaking draw from numpy's global RNG), then
    bsuite.baselines.jax.AGENT.default_agent(obs_spec, action_spec, seed=S). All four
    default_agents in bsuite 0.3.6 take seed (default 0), used for hk.PRNGSequence(seed);
    boot_dqn's also takes num_ensemble=20, left at its default.

bsuite's "Loaded bsuite_id" / "Logging results to CSV" banners are sent to stderr. JAX is set
to run on CPU quietly (JAX_PLATFORMS=cpu, TF_CPP_MIN_LOG_LEVEL=3) unless those variables are
already set.
"""
import os

os.environ.setdefault('JAX_PLATFORMS', 'cpu')
os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

# pylint: disable=g-import-not-at-top,wrong-import-position
import argparse
import contextlib
import gzip
import importlib
import json
import multiprocessing
import struct
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.normpath(os.path.join(HERE, '..', '..'))
MNIST_DATA_DIR = os.path.join(REPO_ROOT, 'crates', 'bsuite-envs', 'data')
MNIST_IMAGES = os.path.join(MNIST_DATA_DIR, 'mnist_5k-images-idx3-ubyte.gz')
MNIST_LABELS = os.path.join(MNIST_DATA_DIR, 'mnist_5k-labels-idx1-ubyte.gz')

AGENTS = ('dqn', 'boot_dqn', 'actor_critic', 'actor_critic_rnn')

_MNIST_CACHE = {}


def _read_idx(path, magic):
  with gzip.open(path, 'rb') as f:
    data = f.read()
  got, = struct.unpack('>I', data[:4])
  if got != magic:
    raise ValueError(f'{path}: IDX magic {got:#010x}, expected {magic:#010x}')
  ndim = magic & 0xff
  dims = struct.unpack(f'>{ndim}I', data[4:4 + 4 * ndim])
  body = np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim)
  if body.size != int(np.prod(dims)):
    raise ValueError(f'{path}: {body.size} bytes of data, header says {dims}')
  return body.reshape(dims).copy()


def load_mnist_5k(directory=None):
  """Drop-in for bsuite.utils.datasets.load_mnist reading the repo's embedded subset."""
  del directory
  if 'data' not in _MNIST_CACHE:
    images = _read_idx(MNIST_IMAGES, 0x00000803).view(np.int8)  # as bsuite: bytes -> int8
    labels = _read_idx(MNIST_LABELS, 0x00000801)  # uint8
    if images.shape[1:] != (28, 28) or images.shape[0] != labels.shape[0]:
      raise ValueError(f'unexpected MNIST shapes {images.shape}, {labels.shape}')
    _MNIST_CACHE['data'] = (images, labels)
  images, labels = _MNIST_CACHE['data']
  return (images, labels), (images, labels)


def setting_index(bsuite_id):
  return int(bsuite_id.split('/')[1])


@contextlib.contextmanager
def building_env(default_seed):
  """While active: MNIST from the embedded subset; RandomState(None) -> RandomState(seed)."""
  from bsuite.utils import datasets
  orig_load_mnist = datasets.load_mnist
  orig_random_state = np.random.RandomState

  class _SeededRandomState(orig_random_state):

    def __init__(self, seed=None):
      super().__init__(default_seed if seed is None else seed)

  datasets.load_mnist = load_mnist_5k
  np.random.RandomState = _SeededRandomState
  try:
    with contextlib.redirect_stdout(sys.stderr):  # bsuite prints its banners to stdout
      yield
  finally:
    np.random.RandomState = orig_random_state
    datasets.load_mnist = orig_load_mnist


def load_env(bsuite_id, results_dir=None):
  import bsuite
  with building_env(setting_index(bsuite_id)):
    if results_dir is None:
      return bsuite.load_from_id(bsuite_id)
    return bsuite.load_and_record_to_csv(bsuite_id, results_dir=results_dir, overwrite=True)


def make_agent(name, env, seed):
  """np.random.seed(seed), then bsuite.baselines.jax.<name>.default_agent(..., seed=seed)."""
  module = importlib.import_module(f'bsuite.baselines.jax.{name}')
  np.random.seed(seed)
  return module.default_agent(env.observation_spec(), env.action_spec(), seed=seed)


class _StepCounter:
  """Forwards to the agent; counts update() calls (= agent steps)."""

  def __init__(self, agent):
    self._agent = agent
    self.steps = 0

  def select_action(self, timestep):
    return self._agent.select_action(timestep)

  def update(self, timestep, action, new_timestep):
    self.steps += 1
    return self._agent.update(timestep, action, new_timestep)


def run_one(job):
  bsuite_id, agent_name, seed, results_dir, num_episodes = job
  from bsuite.baselines import experiment
  start = time.perf_counter()
  env = load_env(bsuite_id, results_dir)
  agent = _StepCounter(make_agent(agent_name, env, seed))
  episodes = num_episodes or env.bsuite_num_episodes
  experiment.run(agent, env, num_episodes=episodes, verbose=False)
  return bsuite_id, episodes, agent.steps, time.perf_counter() - start


def expand_ids(ids):
  from bsuite import sweep
  out = []
  for i in ids:
    got = [i] if i in sweep.SETTINGS else [b for b in sweep.SWEEP if b.split('/')[0] == i]
    if not got:
      raise SystemExit(f'unknown bsuite_id or experiment: {i}')
    out += got
  return out


def cmd_run(a):
  os.makedirs(a.results_dir, exist_ok=True)
  jobs = [(i, a.agent, a.seed, a.results_dir, a.num_episodes) for i in expand_ids(a.ids)]

  def report(result):
    bsuite_id, episodes, steps, wall = result
    print(f'done {bsuite_id} agent={a.agent} seed={a.seed} episodes={episodes} '
          f'agent_steps={steps} wall_s={wall:.2f}', file=sys.stderr, flush=True)

  if a.jobs <= 1 or len(jobs) == 1:
    for job in jobs:
      report(run_one(job))
  else:
    # spawn, not fork: forking a process that has started JAX's threads can deadlock.
    with multiprocessing.get_context('spawn').Pool(min(a.jobs, len(jobs))) as pool:
      for result in pool.imap_unordered(run_one, jobs):
        report(result)


def cmd_bench(a):
  env = load_env(a.id)
  agent = make_agent(a.agent, env, a.seed)

  def episodes(n):
    steps = 0
    for _ in range(n):
      timestep = env.reset()
      while not timestep.last():
        action = agent.select_action(timestep)
        new_timestep = env.step(action)
        agent.update(timestep, action, new_timestep)
        timestep = new_timestep
        steps += 1
    return steps

  episodes(a.warmup)
  wall0, cpu0 = time.perf_counter(), time.process_time()
  steps = episodes(a.episodes)
  wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
  print(json.dumps({
      'agent': a.agent,
      'bsuite_id': a.id,
      'episodes': a.episodes,
      'agent_steps': steps,
      'wall_s': wall,
      'cpu_s': cpu,
      'us_per_step': wall * 1e6 / steps if steps else None,
      'cpu_us_per_step': cpu * 1e6 / steps if steps else None,
      'warmup': a.warmup,
      'seed': a.seed,
  }), flush=True)


def cmd_cells(a):
  env = load_env(a.id)
  agent = make_agent('actor_critic_rnn', env, a.seed)
  episodes = a.episodes or env.bsuite_num_episodes
  entropy_sum, steps, return_sum = 0.0, 0, 0.0
  for episode in range(1, episodes + 1):
    timestep = env.reset()
    while not timestep.last():
      (logits, _), _ = agent._forward(agent._state.params, timestep.observation[None, ...],
                                      agent._state.rnn_state)
      logp = np.asarray(logits[0], dtype=np.float64)
      logp = logp - logp.max()
      logp = logp - np.log(np.exp(logp).sum())
      entropy_sum += float(-(np.exp(logp) * logp).sum())
      steps += 1
      action = agent.select_action(timestep)
      new_timestep = env.step(action)
      agent.update(timestep, action, new_timestep)
      return_sum += float(new_timestep.reward or 0.0)
      timestep = new_timestep
    if episode % a.every == 0:
      cell = np.asarray(agent._state.rnn_unroll_state.cell)
      print(json.dumps({
          'episode': episode,
          'max_abs_cell': float(np.abs(cell).max()),
          'entropy': entropy_sum / max(steps, 1),
          'return': return_sum / a.every,
      }), flush=True)
      entropy_sum, steps, return_sum = 0.0, 0, 0.0


def main():
  p = argparse.ArgumentParser(description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
  sub = p.add_subparsers(dest='cmd', required=True)

  r = sub.add_parser('run', help='run an agent on bsuite ids with bsuite CSV logging')
  r.add_argument('ids', nargs='+', metavar='ID', help='bsuite_id or experiment name')
  r.add_argument('--agent', choices=AGENTS, required=True)
  r.add_argument('--seed', type=int, required=True, help='agent seed (np.random.seed + default_agent)')
  r.add_argument('--results-dir', required=True)
  r.add_argument('--num-episodes', type=int, default=None,
                 help='episodes per id (default: the experiment\'s bsuite_num_episodes)')
  r.add_argument('--jobs', type=int, default=1)

  b = sub.add_parser('bench', help='time the run loop, print one JSON line')
  b.add_argument('--agent', choices=AGENTS, required=True)
  b.add_argument('--id', required=True, help='bsuite_id')
  b.add_argument('--episodes', type=int, default=200)
  b.add_argument('--warmup', type=int, default=20)
  b.add_argument('--seed', type=int, default=0)

  c = sub.add_parser('cells', help='trace actor_critic_rnn\'s unroll state and entropy')
  c.add_argument('--id', required=True, help='bsuite_id')
  c.add_argument('--seed', type=int, default=0)
  c.add_argument('--episodes', type=int, default=None,
                 help='episodes (default: the experiment\'s bsuite_num_episodes)')
  c.add_argument('--every', type=int, default=100)

  a = p.parse_args()
  {'run': cmd_run, 'bench': cmd_bench, 'cells': cmd_cells}[a.cmd](a)


if __name__ == '__main__':
  main()
