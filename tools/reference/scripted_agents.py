"""Run scripted "learning" agents on bsuite ids with bsuite 0.3.6's own CSV logging.

  .bsuite/reference-venv/bin/python tools/reference/scripted_agents.py OUT_DIR [--jobs 2]

Writes two results directories, OUT_DIR/finished and OUT_DIR/unfinished, used as scoring
fixtures (tests/fixtures/scripted_results/): a spread of ids where the agent solves the task
part of the time or fully, deep_sea sizes solved before and after 2^N episodes, and
unfinished runs (fewer episodes than the experiment's NUM_EPISODES). Score them with
`ref_score.py DIR` (and `tools/reference/ref_score_ordered.py DIR --round-trip`).

The agent is not a learner: with probability skill(episode) it takes the action a perfect
agent would take, read from the environment's internals (the best bandit arm, the ball's
column, deep_sea's hidden action mapping, the remembered bit, the right umbrella, the
correct MNIST label, the better chain), or a simple controller (cartpole, mountain car);
otherwise a random action. skill(e) = 0 before episode `delay`, then rises linearly to `skill`
over `ramp` episodes, which draws learning curves. Everything is seeded: environments as
ref_run.py seeds them (env seed = setting index), the agent with RandomState(seed).
"""
import argparse
import multiprocessing
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bsuite_ref  # noqa: E402

# (bsuite_id, episodes or None for NUM_EPISODES, skill, ramp, delay)
FINISHED = [
    ('bandit/0', None, 0.9, 2000, 0),
    ('bandit/1', None, 0.5, 5000, 0),
    ('bandit/2', None, 1.0, 100, 0),
    ('bandit_noise/0', None, 1.0, 1000, 0),
    ('bandit_noise/8', None, 0.6, 1000, 0),
    ('bandit_noise/16', None, 0.2, 1000, 0),
    ('bandit_scale/4', None, 1.0, 3000, 0),
    ('bandit_scale/12', None, 0.8, 3000, 0),
    ('catch/0', None, 1.0, 500, 0),
    ('catch/1', None, 0.7, 5000, 0),
    ('catch_noise/4', None, 1.0, 2000, 0),
    ('catch_noise/12', None, 0.5, 2000, 0),
    ('catch_scale/0', None, 0.9, 2000, 0),
    ('catch_scale/16', None, 0.3, 2000, 0),
    ('mnist/0', None, 0.8, 3000, 0),
    ('mnist/1', None, 1.0, 8000, 0),
    ('mnist_noise/4', None, 0.9, 1000, 0),
    ('mnist_noise/16', None, 0.4, 1000, 0),
    ('mnist_scale/8', None, 0.7, 1000, 0),
    ('mountain_car/0', None, 1.0, 300, 0),
    ('mountain_car/1', None, 0.6, 300, 0),
    ('mountain_car_noise/4', None, 0.9, 300, 0),
    ('mountain_car_scale/12', None, 0.9, 300, 0),
    ('cartpole/0', None, 1.0, 400, 0),
    ('cartpole/1', None, 0.9, 800, 0),
    ('cartpole_noise/8', None, 1.0, 400, 0),
    ('cartpole_scale/16', None, 0.95, 400, 0),
    ('cartpole_swingup/0', None, 0.0, 1, 0),
    ('cartpole_swingup/10', None, 0.0, 1, 0),
    ('deep_sea/0', None, 1.0, 1, 0),       # size 10: solved at episode 1
    ('deep_sea/1', None, 1.0, 1, 800),     # size 12: solved near 890 < 4196
    ('deep_sea/2', None, 1.0, 1, 1500),    # size 14: solved near 1670
    ('deep_sea/5', None, 1.0, 1, 9500),    # size 20: not solved within 10000
    ('deep_sea/10', None, 0.95, 200, 2000),  # size 30
    ('deep_sea_stochastic/0', None, 1.0, 1, 1500),  # size 10: solved after 2^10 + 100
    ('deep_sea_stochastic/3', None, 1.0, 1, 0),     # size 16
    ('deep_sea_stochastic/8', None, 0.0, 1, 0),     # size 26: never
    ('discounting_chain/0', None, 0.95, 200, 0),
    ('discounting_chain/1', None, 0.5, 200, 0),
    ('discounting_chain/2', None, 1.0, 50, 0),
    ('memory_len/0', None, 1.0, 500, 0),
    ('memory_len/5', None, 0.6, 500, 0),
    ('memory_len/10', None, 0.3, 500, 0),
    ('memory_size/0', None, 1.0, 1000, 0),
    ('memory_size/8', None, 0.2, 1000, 0),
    ('umbrella_length/0', None, 1.0, 1000, 0),
    ('umbrella_length/8', None, 0.5, 1000, 0),
    ('umbrella_length/14', None, 0.1, 1000, 0),
    ('umbrella_distract/0', None, 1.0, 2000, 0),
    ('umbrella_distract/11', None, 0.4, 2000, 0),
]

UNFINISHED = [
    ('bandit/0', 500, 0.9, 200, 0),
    ('bandit/1', None, 0.9, 200, 0),       # finished next to an unfinished replicate
    ('catch/0', 3000, 1.0, 500, 0),
    ('catch_noise/0', 800, 1.0, 100, 0),
    ('catch_noise/4', 2500, 1.0, 100, 0),
    ('mnist/0', 5000, 0.8, 1000, 0),        # no episode after 9000: the score is NaN
    ('mnist_scale/0', 9500, 0.8, 1000, 0),  # bsuite logs 9000, not 9500: NaN as well
    ('mountain_car/0', 20, 1.0, 5, 0),
    ('cartpole/0', 300, 1.0, 50, 0),
    ('cartpole_swingup/5', 40, 0.0, 1, 0),
    ('deep_sea/0', 300, 1.0, 1, 100),
    ('deep_sea/3', 2000, 1.0, 1, 0),
    # (A deep_sea_stochastic run with no episode from 100 on makes bsuite's find_solution
    # raise ValueError, so it cannot be a reference fixture; bsuite-analysis scores it
    # Undefined(NoRowsToScore), tested in crates/bsuite-analysis/tests/robustness.rs.)
    ('deep_sea_stochastic/1', 700, 1.0, 1, 0),
    ('discounting_chain/0', 400, 1.0, 50, 0),
    ('memory_len/0', 120, 1.0, 20, 0),
    ('memory_size/2', 3000, 1.0, 100, 0),
    ('umbrella_length/3', 700, 1.0, 100, 0),
    ('umbrella_distract/2', 9000, 0.7, 100, 0),
]


class Scripted:
  """Oracle action with probability skill(episode), else a uniformly random action."""

  def __init__(self, env, num_actions, seed, skill, ramp, delay):
    self._env = env.raw_env if hasattr(env, 'raw_env') else env
    self._n = num_actions
    self._rng = np.random.RandomState(seed)
    self._skill, self._ramp, self._delay = skill, max(ramp, 1), delay
    self._episode = 0

  def skill(self):
    if self._episode < self._delay:
      return 0.0
    return min(self._skill, (self._episode - self._delay + 1) / self._ramp)

  def select_action(self, timestep):
    if timestep.first():
      self._episode += 1
    greedy = self._rng.rand() < self.skill()
    random_action = self._rng.randint(self._n)
    return self.oracle(timestep) if greedy else random_action

  def oracle(self, timestep):
    env = self._env
    name = type(env).__name__
    if name == 'SimpleBandit':
      return int(np.argmax(env._rewards))
    if name == 'Catch':
      return int(np.sign(env._ball_x - env._paddle_x)) + 1
    if name == 'DeepSea':
      return int(env._action_mapping[env._row, env._column])
    if name == 'MemoryChain':
      return int(env._context[env._query])
    if name == 'UmbrellaChain':
      return int(env._need_umbrella)
    if name == 'MNISTBandit':
      return int(env._correct_label)
    if name == 'DiscountingChain':
      return int(np.argmax(env._rewards))
    if name == 'MountainCar':
      return 2 if env._velocity >= 0 else 0
    if name == 'Cartpole':
      s = env._state
      push = np.sin(s.theta) * 10.0 + s.theta_dot * 2.0 + s.x * 0.3 + s.x_dot * 1.0
      return 2 if push > 0 else 0
    return self._rng.randint(self._n)

  def update(self, timestep, action, new_timestep):
    pass


def run_one(job):
  (bsuite_id, episodes, skill, ramp, delay), out_dir, seed = job
  from bsuite.baselines import experiment  # pylint: disable=g-import-not-at-top
  env = bsuite_ref.load(bsuite_id, int(bsuite_id.split('/')[1]), results_dir=out_dir,
                        overwrite=True)
  agent = Scripted(env, env.action_spec().num_values, seed, skill, ramp, delay)
  experiment.run(agent, env, num_episodes=episodes or env.bsuite_num_episodes)
  return f'{out_dir}: {bsuite_id}'


def main():
  p = argparse.ArgumentParser(description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument('out_dir')
  p.add_argument('--jobs', type=int, default=2)
  p.add_argument('--seed', type=int, default=7)
  a = p.parse_args()
  jobs = []
  for sub, specs in [('finished', FINISHED), ('unfinished', UNFINISHED)]:
    d = os.path.join(a.out_dir, sub)
    os.makedirs(d, exist_ok=True)
    jobs += [(spec, d, a.seed) for spec in specs]
  with multiprocessing.Pool(a.jobs) as pool:
    for done in pool.imap_unordered(run_one, jobs):
      print(f'done {done}', file=sys.stderr, flush=True)


if __name__ == '__main__':
  main()
