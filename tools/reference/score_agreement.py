"""Whether bsuite 0.3.6 and bsuite-rs give one results directory the same scores.

  python tools/reference/score_agreement.py [--tol 1e-9] [--ours CMD] DIR...
  python tools/reference/score_agreement.py [--tol 1e-9] --shipped SCORES_JSON DIR

For each DIR (one seed's results: CSVs and a bsuite_run.json), runs ref_score.py (bsuite's
own summary_analysis) with this interpreter and `CMD DIR --json` (default `cargo xtask
score`), and compares every experiment, tag and id score: both undefined, or within --tol
of each other; `finished` equal; no key on one side only. Prints one line per directory
with the largest difference, and exits 1 if any directory disagrees. A directory of seeds
is given as its seed-<s>/ directories (`DIR/seed-*`).

With --shipped, the scores checked are a shipped baseline's (`baselines/NAME.scores.json`)
and DIR is that baseline unpacked: for a baseline of one seed, the file's scores against
bsuite's on DIR; for one of several, each seed's entry in `per_seed` against bsuite's on
DIR/seed-<s>, the seeds being exactly DIR's seed-<s>/ directories, and the file's own
scores against the means over seeds of bsuite's (what a multi-seed baseline reports).
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


def _bsuite_scores(d):
  if not os.path.isfile(os.path.join(d, 'bsuite_run.json')):
    sys.exit(f'{d}: not one seed\'s results directory (no bsuite_run.json); '
             'give a directory of seeds as DIR/seed-*')
  return _scores([sys.executable, os.path.join(HERE, 'ref_score.py'), d])


def _report(what, n, largest, problems):
  """Prints one check's outcome; True if it failed."""
  if problems:
    print(f'{what}: DISAGREES on {len(problems)} scores (of {n} ids):')
    for line in problems[:20]:
      print(f'  {line}')
    return True
  print(f'{what}: {n} ids agree, largest difference {largest:.3g}')
  return False


def _means(per_seed):
  """The means over seeds of each score, as a multi-seed baseline reports them: over the
  seeds where it is defined, undefined where it is on none; `finished` where every seed's is."""
  first = per_seed[0]
  means = {}
  for section in ('experiments', 'tags', 'ids'):
    means[section] = {}
    for key in first[section]:
      values = [v for v in (s[section].get(key) for s in per_seed) if v is not None]
      means[section][key] = sum(values) / len(values) if values else None
  means['finished'] = {k: all(s['finished'].get(k) for s in per_seed) for k in first['finished']}
  return means


def _check_shipped(path, d, tol):
  """A shipped baseline's scores file against bsuite's scores of its unpacked seeds."""
  with open(path) as f:
    shipped = json.load(f)
  seeds = shipped.get('seeds')
  if seeds is None:
    theirs = _bsuite_scores(d)
    return _report(f'{path} on {d}', len(theirs['ids']), *_compare(shipped, theirs, tol))
  present = sorted(int(e[len('seed-'):]) for e in os.listdir(d)
                   if e.startswith('seed-') and e[len('seed-'):].isdigit())
  if present != sorted(seeds):
    print(f'{path}: seeds {seeds}, but {d} holds seed-<s>/ directories for {present}')
    return True
  failed = False
  per_seed = []
  for s in seeds:
    theirs = _bsuite_scores(os.path.join(d, f'seed-{s}'))
    per_seed.append(theirs)
    ours = shipped['per_seed'][str(s)]
    failed |= _report(f'{path} seed {s}', len(theirs['ids']), *_compare(ours, theirs, tol))
  mean = _means(per_seed)
  failed |= _report(f'{path} means over {len(seeds)} seeds', len(mean['ids']),
                    *_compare(shipped, mean, tol))
  return failed


def main():
  p = argparse.ArgumentParser(description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument('dirs', nargs='+', metavar='DIR')
  p.add_argument('--tol', type=float, default=1e-9)
  p.add_argument('--ours', default='cargo xtask score',
                 help="the command that scores a directory (given DIR --json)")
  p.add_argument('--shipped', metavar='SCORES_JSON',
                 help="check this shipped baseline's scores against bsuite's on DIR, "
                      'the baseline unpacked')
  a = p.parse_args()
  if a.shipped:
    if len(a.dirs) != 1:
      p.error('--shipped takes one DIR: the baseline unpacked')
    sys.exit(1 if _check_shipped(a.shipped, a.dirs[0], a.tol) else 0)
  failed = False
  for d in a.dirs:
    theirs = _bsuite_scores(d)
    ours = _scores(shlex.split(a.ours) + [d, '--json'])
    failed |= _report(d, len(theirs['ids']), *_compare(ours, theirs, a.tol))
  sys.exit(1 if failed else 0)


if __name__ == '__main__':
  main()
