"""Reference traces of many bsuite_ids from one Python process (ref_trace.py's format).

  python tools/reference/trace_many.py OUT_DIR [--episodes 2] [--seed 0] [--env-seed 0] [IDS...]
  python tools/reference/trace_many.py OUT_DIR --manifest MANIFEST.tsv [--seed 0] [--env-seed 0]

Writes OUT_DIR/<experiment>_<index>.jsonl per id, with --info. Without IDS, every id of the
sweep. --manifest takes the ids and episode counts from a table with the columns file,
bsuite_id, episodes (crates/bsuite-envs/tests/fixtures/traces/MANIFEST.tsv).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ref_trace  # noqa: E402


def main():
  p = argparse.ArgumentParser(description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument('out_dir')
  p.add_argument('--episodes', type=int, default=2)
  p.add_argument('--seed', type=int, default=0)
  p.add_argument('--env-seed', type=int, default=0)
  p.add_argument('--manifest', help='TSV with columns file, bsuite_id, episodes')
  p.add_argument('ids', nargs='*')
  a = p.parse_intermixed_args()
  if a.manifest:
    with open(a.manifest) as f:
      rows = [line.rstrip('\n').split('\t') for line in f][1:]
    jobs = [(row[1], int(row[2])) for row in rows if row[0]]
  else:
    ids = a.ids
    if not ids:
      from bsuite import sweep  # pylint: disable=g-import-not-at-top
      ids = list(sweep.SWEEP)
    jobs = [(bsuite_id, a.episodes) for bsuite_id in ids]
  os.makedirs(a.out_dir, exist_ok=True)
  for bsuite_id, episodes in jobs:
    path = os.path.join(a.out_dir, bsuite_id.replace('/', '_') + '.jsonl')
    with open(path, 'w') as out:
      ref_trace.write_trace(bsuite_id, episodes, a.seed, a.env_seed, True, out)


if __name__ == '__main__':
  main()
