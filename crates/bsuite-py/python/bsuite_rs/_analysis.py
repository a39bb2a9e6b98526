"""bsuite's scores and reports of results directories."""
import os
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple, Union

from bsuite_rs import _core

PathLike = Union[str, bytes, 'os.PathLike[str]', 'os.PathLike[bytes]']


def score(results_dir: PathLike, *, lenient: bool = False, reps: int = 10_000,
          bootstrap_seed: int = 0) -> Dict[str, Any]:
  """bsuite's scores of a results directory of bsuite CSV files.

  Returns `{"experiments": {name: score}, "finished": {name: bool}, "tags": {tag: score},
  "ids": {bsuite_id: score}}`, the keys of `cargo xtask score --json`; scores that bsuite
  leaves undefined (NaN, e.g. mnist before episode 9000) are None.

  A directory of `seed-<s>/` results directories is one agent over seeds, as for `cargo
  xtask score --json`: the same keys hold means over seeds, and `seeds` (the list),
  `per_seed` (each seed's own scores, keyed by seed) and `intervals` (per experiment the
  mean's 95% stratified bootstrap interval and seed count, per tag rliable's mean, median,
  IQM and optimality gap with theirs) are added; `reps` and `bootstrap_seed` draw the
  bootstrap, reproducibly.

  A malformed file is a `ValueError` naming the file and line (`lenient=True` skips it with
  a warning), and so are seeds of different runs, a `reps` outside 1,000..=1,000,000 (as the
  command line's `--reps`) and a `bootstrap_seed` outside 0..=4294967295; a directory that
  cannot be read or holds no results is an `OSError`. Warnings name what is left unread and
  each seed whose unfinished overwrite leaves files of another run.
  """
  return _core.score(os.fsdecode(results_dir), lenient=lenient, reps=reps,
                     bootstrap_seed=bootstrap_seed)


def _named(results) -> Sequence[Tuple[str, str]]:
  # Paths as str, bytes ones decoded as os.fsdecode does (losslessly: undecodable bytes
  # become surrogates, which the native side encodes back).
  def name_of(path):
    name = os.path.basename(os.path.normpath(os.path.abspath(os.fsdecode(path))))
    # A name is shown, not opened: bytes that are not text become U+FFFD.
    return os.fsencode(name).decode('utf-8', 'replace')

  if isinstance(results, (str, bytes, os.PathLike)):
    results = [results]
  if isinstance(results, Mapping):
    return [(str(name), os.fsdecode(path)) for name, path in results.items()]
  named = []
  for item in results:
    if isinstance(item, (str, bytes, os.PathLike)):
      named.append((name_of(item), os.fsdecode(item)))
    else:
      name, path = item
      named.append((str(name), os.fsdecode(path)))
  return named


def report(results: Union[Mapping[str, PathLike], PathLike, Sequence[Any]],
           out: PathLike = 'report', *, title: Optional[str] = None,
           link: Optional[str] = None, overwrite: bool = False,
           lenient: bool = False) -> Dict[str, Any]:
  """Writes the bsuite report of one or more agents' results into `out`.

  `results` is `{agent name: results directory}` (or one directory, or a list of
  directories, named after their last component). The report is what `cargo xtask report`
  writes: radar and bar plots, every experiment's plots as SVG and PDF, the LaTeX appendix
  and a self-contained `index.html`. A directory of `seed-<s>/` results directories (see
  `run_seed`) is one agent over seeds, drawn with its intervals, a performance profile and
  the pairwise P(A > B) tables. `out` must be empty or hold an earlier report, whose
  files alone are replaced (`overwrite=True` replaces other files too). Returns
  `{"out_dir", "files", "figures", "removed", "incomplete"}`, the paths as `str` (a path
  that is not valid in the filesystem's encoding as `os.fsdecode` gives it, so that
  `os.fsencode` gives its bytes back). Paths may be given as `str`, `bytes` or path objects.
  """
  return _core.report(_named(results), os.fsdecode(out), title=title, link=link,
                      overwrite=overwrite, lenient=lenient)
