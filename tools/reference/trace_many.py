"""Write reference traces for many bsuite_ids in one Python process.

  /tmp/refvenv/bin/python tools/reference/trace_many.py OUT_DIR --episodes E --seed S --env-seed N [IDS...]

Uses the shared reference harness (shared/reference/ref_trace.py) for the trace format and
seeding rule; with no IDS, traces all 468 ids. One file per id: OUT_DIR/<exp>_<index>.jsonl.
"""
import argparse
import contextlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', '..', 'shared', 'reference'))
sys.path.insert(0, os.environ.get('BSUITE_REFERENCE_DIR', '/work/shared/reference'))

import ref_trace  # noqa: E402


def main():
  p = argparse.ArgumentParser()
  p.add_argument('out_dir')
  p.add_argument('--episodes', type=int, default=2)
  p.add_argument('--seed', type=int, default=0)
  p.add_argument('--env-seed', type=int, default=0)
  p.add_argument('ids', nargs='*')
  a = p.parse_intermixed_args()
  ids = a.ids
  if not ids:
    from bsuite import sweep
    ids = list(sweep.SWEEP)
  os.makedirs(a.out_dir, exist_ok=True)
  for bsuite_id in ids:
    path = os.path.join(a.out_dir, bsuite_id.replace('/', '_') + '.jsonl')
    with open(path, 'w') as f, contextlib.redirect_stdout(f):
      ref_trace.trace(bsuite_id, a.episodes, a.seed, a.env_seed, True)


if __name__ == '__main__':
  main()
