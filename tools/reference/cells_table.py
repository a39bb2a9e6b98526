"""Summarise actor_critic_rnn internals traced on both sides into a markdown table.

  python3 tools/reference/cells_table.py docs/agreement/rnn_cells memory_len-2

reads <dir>/{jax,ours,ours_reset}-<id>-seed*.jsonl (the lines of `jax_agent.py cells` and of
the bsuite-baselines example rnn_cell_trace) and prints, at chosen episodes, each side's
median over seeds of the largest |c| of the training unroll state, and its mean over seeds
of the acting policy's entropy and of the mean return over the preceding trace interval.
Standard library only.
"""
import glob
import json
import os
import statistics
import sys

EPISODES = (250, 500, 1000, 2000, 3000, 4000, 6000, 8000, 10000)
SIDES = (('jax', "bsuite's JAX agent"), ('ours', 'ours (faithful)'),
         ('ours_reset', 'ours, unroll state reset at episode ends'))


def load(directory, side, bsuite_id):
  runs = []
  for path in sorted(glob.glob(os.path.join(directory, f'{side}-{bsuite_id}-seed*.jsonl'))):
    with open(path) as f:
      runs.append({row['episode']: row for row in map(json.loads, f)})
  return runs


def main():
  directory, bsuite_id = sys.argv[1], sys.argv[2]
  print(f'| episode | side | seeds | median max abs c | mean entropy (nats) | mean return |')
  print('|---:|---|---:|---:|---:|---:|')
  for episode in EPISODES:
    for side, label in SIDES:
      rows = [run[episode] for run in load(directory, side, bsuite_id) if episode in run]
      if not rows:
        continue
      cell = statistics.median(r['max_abs_cell'] for r in rows)
      cell_text = 'reset' if side == 'ours_reset' else f'{cell:.3g}'
      entropy = statistics.mean(r['entropy'] for r in rows)
      ret = statistics.mean(r['return'] for r in rows)
      print(f'| {episode} | {label} | {len(rows)} | {cell_text} | {entropy:.3f} | {ret:.2f} |')


if __name__ == '__main__':
  main()
