"""Whether bsuite 0.3.6 and bsuite-rs give one results directory the same scores.

  python tools/reference/score_agreement.py [--tol 1e-9] [--ours CMD] DIR...

For each DIR (one seed's results: CSVs and a bsuite_run.json), runs ref_score.py (bsuite's
own summary_analysis) with this interpreter and `CMD DIR --json` (default `cargo xtask
score`), and compares every experiment, tag and id score: both undefined, or within --tol
of each other; `finished` equal; no key on one side only. Prints one line per directory
with the largest difference, and exits 1 if any directory disagrees. A directory of seeds
is given as its seed-<s>/ directories (`DIR/seed-*`).
"""
import argparse
import json
import math
import os
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _scores(command):
  out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
  return json.loads(out)


def _compare(ours, theirs, tol):
  """The largest difference and the list of disagreements between two score objects."""
  problems = []
  largest = 0.0
  for section in ('experiments', 'tags', 'ids'):
    a, b = ours.get(section, {}), theirs.get(section, {})
    for key in sorted(set(a) | set(b)):
      if key not in a or key not in b:
        problems.append(f'{section} {key}: only on one side')
        continue
      x, y = a[key], b[key]
      if x is None or y is None:
        if x is not y:
          problems.append(f'{section} {key}: ours {x}, bsuite {y}')
        continue
      diff = abs(x - y)
      largest = max(largest, diff)
      if not diff <= tol or math.isnan(diff):
        problems.append(f'{section} {key}: ours {x!r}, bsuite {y!r}')
  if ours.get('finished') != theirs.get('finished'):
    problems.append('finished differs')
  return largest, problems


def main():
  p = argparse.ArgumentParser(description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument('dirs', nargs='+', metavar='DIR')
  p.add_argument('--tol', type=float, default=1e-9)
  p.add_argument('--ours', default='cargo xtask score',
                 help="the command that scores a directory (given DIR --json)")
  a = p.parse_args()
  failed = False
  for d in a.dirs:
    if not os.path.isfile(os.path.join(d, 'bsuite_run.json')):
      sys.exit(f'{d}: not one seed\'s results directory (no bsuite_run.json); '
               'give a directory of seeds as DIR/seed-*')
    ours = _scores(shlex.split(a.ours) + [d, '--json'])
    theirs = _scores([sys.executable, os.path.join(HERE, 'ref_score.py'), d])
    largest, problems = _compare(ours, theirs, a.tol)
    n = len(theirs['ids'])
    if problems:
      failed = True
      print(f'{d}: DISAGREES on {len(problems)} scores (of {n} ids):')
      for line in problems[:20]:
        print(f'  {line}')
    else:
      print(f'{d}: {n} ids agree, largest difference {largest:.3g}')
  sys.exit(1 if failed else 0)


if __name__ == '__main__':
  main()
