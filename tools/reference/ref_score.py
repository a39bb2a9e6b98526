"""bsuite 0.3.6's own scores of a directory of bsuite CSV logs, as JSON.

  python tools/reference/ref_score.py RESULTS_DIR [--round-trip]

The directory is read by bsuite.logging.csv_load.load_bsuite and scored by
bsuite.experiments.summary_analysis; nothing is reimplemented. The output has the keys of
`cargo xtask score DIR --json`:

  experiments  experiment -> score (bsuite_score)
  finished     experiment -> whether every id present reached its episode count
  tags         tag -> mean score over its experiments (ave_score_by_tag), null if none ran
  ids          bsuite_id -> the experiment's score function applied to that id's rows only

NaN scores are written as null. pandas' default CSV float parser is not correctly rounded,
so some logged floats are read one ulp away from what was written, and bsuite's scores carry
that in their last bits; --round-trip makes pandas parse floats exactly (as bsuite-logging
does). bsuite reads the files in directory order, which also reaches the last bits of a
mean: ref_score_ordered.py fixes the order to ours.
"""
import argparse
import functools
import json
import math
import sys
import warnings

import pandas as pd


def _number(x):
  x = float(x)
  return None if math.isnan(x) else x


def _id_key(bsuite_id):
  experiment, index = bsuite_id.split('/')
  return experiment, int(index)


def main():
  p = argparse.ArgumentParser(description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
  p.add_argument('results_dir')
  p.add_argument('--round-trip', action='store_true',
                 help="parse the CSVs' floats exactly (float_precision='round_trip')")
  a = p.parse_args()
  warnings.simplefilter('ignore')
  from bsuite.experiments import summary_analysis  # pylint: disable=g-import-not-at-top
  from bsuite.logging import csv_load  # pylint: disable=g-import-not-at-top
  if a.round_trip:
    # csv_load looks pd.read_csv up when it is called.
    pd.read_csv = functools.partial(pd.read_csv, float_precision='round_trip')
  data, _ = csv_load.load_bsuite(a.results_dir)
  scores = summary_analysis.bsuite_score(data)
  tags = summary_analysis.ave_score_by_tag(scores, sweep_vars=None)
  per_id = {}
  for bsuite_id, rows in data.groupby('bsuite_id'):
    experiment = rows.bsuite_env.iloc[0]
    per_id[bsuite_id] = _number(summary_analysis.BSUITE_INFO[experiment].score(rows))
  result = {
      'experiments': {row.bsuite_env: _number(row.score) for row in scores.itertuples()},
      'finished': {row.bsuite_env: bool(row.finished) for row in scores.itertuples()},
      'tags': {row.tag: _number(row.score)
               for row in sorted(tags.itertuples(), key=lambda row: row.tag)},
      'ids': {k: per_id[k] for k in sorted(per_id, key=_id_key)},
  }
  json.dump(result, sys.stdout, indent=1)
  sys.stdout.write('\n')


if __name__ == '__main__':
  main()
