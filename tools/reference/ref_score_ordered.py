"""ref_score.py with a deterministic file order, so scores can be compared bit for bit.

  .bsuite/reference-venv/bin/python tools/reference/ref_score_ordered.py RESULTS_DIR [--round-trip]

bsuite's csv_load reads a results directory in glob (directory) order, and its means sum the
rows in that order, so the last bits of a score depend on the filesystem. This wrapper makes
glob return the files in sweep order (experiment name, then numeric setting index), the
order bsuite-analysis uses, and then runs ref_score.py (next to this file) unchanged.
With --round-trip (exact float parsing) its output equals `cargo xtask score DIR --json`
bit for bit.
"""
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

_ID = re.compile(r'bsuite_id_-_(.+)-(\d+)\.csv$')
_glob = glob.glob


def _sweep_order(path):
  m = _ID.search(os.path.basename(path))
  return (0, m.group(1), int(m.group(2)), '') if m else (1, '', 0, path)


def _ordered_glob(pattern, *args, **kwargs):
  return sorted(_glob(pattern, *args, **kwargs), key=_sweep_order)


glob.glob = _ordered_glob

import ref_score  # noqa: E402  (after the patch; csv_load looks up glob.glob at call time)

if __name__ == '__main__':
  ref_score.main()
