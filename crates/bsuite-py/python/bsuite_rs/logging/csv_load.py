"""bsuite's `bsuite.logging.csv_load`: bsuite's CSV results as pandas DataFrames.

  from bsuite_rs.logging import csv_load
  df, sweep_vars = csv_load.load_bsuite({'dqn': 'results/dqn', 'random': 'results/random'})

Needs pandas, as bsuite's does (`pip install pandas`); `bsuite_rs.score` and
`bsuite_rs.report` read the same directories without it.
"""
import csv
import glob
import os
from typing import Any, Dict, List, Mapping, Sequence, Tuple, Union

from bsuite_rs import sweep

# bsuite's results file names: `bsuite_id_-_<experiment>-<index>.csv`.
BSUITE_PREFIX = 'bsuite_id' + '_-_'
SAFE_SEPARATOR = '-'


def _pandas() -> Any:
  try:
    import pandas  # pylint: disable=g-import-not-at-top
  except ImportError as error:
    raise ImportError('bsuite_rs.logging.csv_load returns pandas DataFrames, as bsuite\'s does: '
                      'pip install pandas (or use bsuite_rs.score, which needs no pandas)'
                      ) from error
  return pandas


def bsuite_id_of(file_name: str) -> str:
  """The bsuite_id of a results file name: 'bsuite_id_-_catch-3.csv' -> 'catch/3'."""
  stem = file_name[len(BSUITE_PREFIX):-len('.csv')]
  experiment, _, index = stem.rpartition(SAFE_SEPARATOR)
  return f'{experiment}{sweep.SEPARATOR}{index}'


def read_rows(results_dir: str) -> List[Dict[str, Any]]:
  """Every row of every bsuite CSV in `results_dir`, with `bsuite_id`, `results_dir`,
  `bsuite_env` and the id's settings added (what `load_one_result_set` puts in its frame).
  Numbers are ints or floats as they are written."""
  rows = []
  for path in sorted(glob.glob(os.path.join(results_dir, '*.csv'))):
    name = os.path.basename(path)
    if not name.startswith(BSUITE_PREFIX):
      continue
    bsuite_id = bsuite_id_of(name)
    settings = sweep.SETTINGS.get(bsuite_id, {})
    with open(path, newline='') as f:
      for row in csv.DictReader(f):
        parsed: Dict[str, Any] = {k: _number(v) for k, v in row.items()}
        parsed.update(bsuite_id=bsuite_id, results_dir=results_dir,
                      bsuite_env=bsuite_id.split(sweep.SEPARATOR)[0])
        parsed.update(settings)
        rows.append(parsed)
  return rows


def _number(text: str) -> Union[int, float, str]:
  for kind in (int, float):
    try:
      return kind(text)
    except ValueError:
      pass
  return text


def load_one_result_set(results_dir: str) -> Any:
  """One results directory as a DataFrame (bsuite's `load_one_result_set`)."""
  rows = read_rows(results_dir)
  if not rows:
    raise ValueError(f'no bsuite CSV files ({BSUITE_PREFIX}*.csv) in {results_dir}')
  return _pandas().DataFrame(rows)


def load_bsuite(results_dirs: Union[str, Mapping[str, str]],
                ignore_errors: bool = True) -> Tuple[Any, Sequence[str]]:
  """bsuite's `load_bsuite`: `(DataFrame, sweep_vars)` of one results directory, or of
  several as `{agent_name: results_dir}` (then the frame has an `agent_name` column and
  `sweep_vars` is `['agent_name']`). `ignore_errors` skips directories without results."""
  pandas = _pandas()
  if isinstance(results_dirs, str):
    return load_one_result_set(results_dirs), []
  frames = []
  for agent_name, results_dir in results_dirs.items():
    try:
      frame = load_one_result_set(results_dir)
    except ValueError:
      if not ignore_errors:
        raise
      continue
    frame['agent_name'] = agent_name
    frames.append(frame)
  if not frames:
    raise ValueError(f'no bsuite results in any of {dict(results_dirs)}')
  return pandas.concat(frames, sort=False), ['agent_name']
