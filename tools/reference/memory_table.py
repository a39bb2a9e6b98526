"""Per-id table of memory_len / memory_size runs, side by side for several multi-seed dirs.

  python3 tools/reference/memory_table.py NAME=DIR [NAME=DIR ...]

Each DIR holds seed-S/ directories of bsuite CSVs. For every memory_len and memory_size id,
and every seed, the CSV's last row gives the fraction of perfect episodes
(total_perfect / episode) and whether the run finished (episode == 10000). bsuite's
memory score passes an id when its regret ratio, (episode - total_perfect) / 0.5 / episode,
is below 0.75, i.e. when the fraction is above 0.625. Prints one markdown row per id:
per side, the seeds' fractions (a trailing * marks an unfinished run) and how many passed;
then per side and seed, over the ids that every side has finished, each experiment's score
and its ids' mean fraction of perfect episodes (less noisy than pass or fail).
Standard library only.
"""
import csv
import os
import sys

NUM_EPISODES = 10000
PASS_FRACTION = 0.625  # 1 - 0.75 * 0.5
IDS = [f'memory_len/{i}' for i in range(23)] + [f'memory_size/{i}' for i in range(17)]


def last_row(path):
  with open(path, newline='') as f:
    rows = list(csv.DictReader(f))
  return rows[-1] if rows else None


def load(directory):
  """{seed: {bsuite_id: (fraction, finished)}}"""
  out = {}
  for name in sorted(os.listdir(directory)):
    if not name.startswith('seed-'):
      continue
    seed = int(name[5:])
    runs = {}
    for bsuite_id in IDS:
      exp, index = bsuite_id.split('/')
      path = os.path.join(directory, name, f'bsuite_id_-_{exp}-{index}.csv')
      if not os.path.exists(path):
        continue
      row = last_row(path)
      if row is None:
        continue
      episode = int(row['episode'])
      runs[bsuite_id] = (int(row['total_perfect']) / episode, episode >= NUM_EPISODES)
    out[seed] = runs
  return out


def main():
  sides = []
  for arg in sys.argv[1:]:
    name, _, directory = arg.partition('=')
    sides.append((name, load(directory)))
  if not sides:
    raise SystemExit(__doc__)
  head = '| id | ' + ' | '.join(
      f'{name}: fraction perfect per seed ({", ".join(map(str, runs))}) | passed'
      for name, runs in sides) + ' |'
  print(head)
  print('|---' * (1 + 2 * len(sides)) + '|')
  complete = []
  for bsuite_id in IDS:
    cells = []
    everywhere = True
    for _, runs in sides:
      values = [runs[s].get(bsuite_id) for s in runs]
      if any(v is None or not v[1] for v in values) or not values:
        everywhere = False
      text = ', '.join('-' if v is None else f'{v[0]:.3f}{"" if v[1] else "*"}' for v in values)
      passed = sum(1 for v in values if v is not None and v[1] and v[0] > PASS_FRACTION)
      cells += [text, str(passed)]
    if any(any(runs[s].get(bsuite_id) for s in runs) for _, runs in sides):
      print(f'| {bsuite_id} | ' + ' | '.join(cells) + ' |')
    if everywhere:
      complete.append(bsuite_id)
  print()
  for experiment in ('memory_len', 'memory_size'):
    ids = [i for i in complete if i.startswith(experiment + '/')]
    if not ids:
      continue
    print(f'{experiment}, over the {len(ids)} ids finished on every side and seed:')
    for name, runs in sides:
      scores = [sum(runs[s][i][0] > PASS_FRACTION for i in ids) / len(ids) for s in runs]
      fractions = [sum(runs[s][i][0] for i in ids) / len(ids) for s in runs]
      print(f'  {name}: score per seed ' + ', '.join(f'{x:.3f}' for x in scores) +
            f'; mean {sum(scores) / len(scores):.3f}; mean fraction perfect per seed ' +
            ', '.join(f'{x:.3f}' for x in fractions) +
            f'; mean {sum(fractions) / len(fractions):.3f}')


if __name__ == '__main__':
  main()
