"""Writes a seed corpus from tests/fixtures/random_results.

  python3 fuzz/seed_corpus.py [OUT_DIR]

OUT_DIR defaults to fuzz/corpus/read_results next to this script. Each seed is a reference
CSV prefixed with its bsuite_id's index in the sweep (two bytes, big-endian), the input
format of the read_results fuzz target here and of score_results in
crates/bsuite-analysis/fuzz.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, '..', '..', '..')
FIXTURES = os.path.join(ROOT, 'tests', 'fixtures')

ids = list(json.load(open(os.path.join(FIXTURES, 'ids.json'))))
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, 'corpus', 'read_results')
os.makedirs(out, exist_ok=True)
src = os.path.join(FIXTURES, 'random_results')
for name in sorted(os.listdir(src)):
  experiment, index = name[len('bsuite_id_-_'):-len('.csv')].rsplit('-', 1)
  k = ids.index(f'{experiment}/{index}')
  with open(os.path.join(src, name), 'rb') as f:
    data = f.read()
  with open(os.path.join(out, name), 'wb') as f:
    f.write(k.to_bytes(2, 'big') + data)
print(f'{len(os.listdir(out))} seeds in {out}')
