"""Run bsuite 0.3.6's random agent on bsuite_ids with bsuite's own CSV logging.

  python tools/reference/ref_run.py --results-dir DIR [--agent random] [--seed 42] [--env-seed 0]
                                    [--num-episodes N] [--jobs J] ID...

ID is a bsuite_id or an experiment name (all its ids). Each id is loaded with
bsuite.load_and_record_to_csv(id, DIR, overwrite=True) and run by
bsuite.baselines.experiment.run with bsuite.baselines.random.default_agent(seed=--seed)
(42 is bsuite's own default) for the experiment's episode count or --num-episodes. The env
RNGs bsuite leaves unseeded are seeded with --env-seed plus the id's setting index (so the
replicates catch/0..19 differ), which is what bsuite-run does. This made
tests/fixtures/random_results (the ids of tests/fixtures/random_ids.txt):

  python tools/reference/ref_run.py --results-dir DIR $(cat tests/fixtures/random_ids.txt)
  diff -r DIR tests/fixtures/random_results
"""
import argparse
import multiprocessing
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bsuite_ref  # noqa: E402


def run_one(job):
  bsuite_id, results_dir, seed, env_seed, num_episodes = job
  from bsuite.baselines import experiment  # pylint: disable=g-import-not-at-top
  from bsuite.baselines import random as random_agent  # pylint: disable=g-import-not-at-top
  start = time.perf_counter()
  setting = int(bsuite_id.split('/')[1])
  env = bsuite_ref.load(bsuite_id, None if env_seed is None else env_seed + setting,
                        results_dir=results_dir, overwrite=True)
  agent = random_agent.default_agent(env.observation_spec(), env.action_spec(), seed=seed)
  experiment.run(agent, env, num_episodes=num_episodes or env.bsuite_num_episodes,
                 verbose=False)
  return bsuite_id, time.perf_counter() - start


def main():
  p = argparse.ArgumentParser(description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument('ids', nargs='+', metavar='ID')
  p.add_argument('--results-dir', required=True)
  p.add_argument('--agent', choices=['random'], default='random',
                 help="bsuite.baselines.random, the only agent here (the JAX agents: jax_agent.py)")
  p.add_argument('--seed', type=int, default=42, help="the random agent's seed")
  p.add_argument('--env-seed', type=bsuite_ref.seed_arg, default=0,
                 help="added to the setting index to seed unseeded env RNGs ('none': OS "
                 'entropy)')
  p.add_argument('--num-episodes', type=int, default=None)
  p.add_argument('--jobs', type=int, default=1)
  a = p.parse_args()
  os.makedirs(a.results_dir, exist_ok=True)
  jobs = [(i, a.results_dir, a.seed, a.env_seed, a.num_episodes)
          for i in bsuite_ref.expand_ids(a.ids)]
  with multiprocessing.Pool(max(1, min(a.jobs, len(jobs)))) as pool:
    for bsuite_id, seconds in pool.imap_unordered(run_one, jobs):
      print(f'done {bsuite_id} in {seconds:.1f} s', file=sys.stderr, flush=True)


if __name__ == '__main__':
  main()
