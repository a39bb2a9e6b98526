"""bsuite_rs.score and bsuite_rs.report: the scores of `cargo xtask score --json` and the
report of `cargo xtask report`."""
import json
import math
import shutil

import pytest

import bsuite_rs
from conftest import FIXTURES


def assert_close(ours, theirs, path=''):
  """Same keys in the same order, numbers equal to 1e-9, the rest equal."""
  if isinstance(theirs, dict):
    assert list(ours) == list(theirs), f'keys of {path}'
    for key in theirs:
      assert_close(ours[key], theirs[key], f'{path}.{key}')
  elif isinstance(theirs, float) and not isinstance(theirs, bool):
    assert math.isclose(ours, theirs, rel_tol=0, abs_tol=1e-9), f'{path}: {ours} vs {theirs}'
  else:
    assert ours == theirs, f'{path}: {ours!r} vs {theirs!r}'


def test_scores_equal_bsuites_on_the_random_run():
  """tests/fixtures/random_scores.json is bsuite 0.3.6's scorer on the same CSVs."""
  ours = bsuite_rs.score(FIXTURES / 'random_results')
  theirs = json.loads((FIXTURES / 'random_scores.json').read_text())
  assert_close(ours, theirs)
  assert len(ours['ids']) == 115 and ours['ids']['catch/0'] == 0.0


def test_unreadable_results_are_reported(tmp_path):
  with pytest.raises(FileNotFoundError):
    bsuite_rs.score(tmp_path / 'missing')
  with pytest.raises(FileNotFoundError, match='no bsuite results'):
    bsuite_rs.score(tmp_path)
  shutil.copy(FIXTURES / 'random_results' / 'bsuite_id_-_catch-0.csv', tmp_path)
  header = 'steps,episode,total_return,episode_len,episode_return,total_regret\n'
  (tmp_path / 'bsuite_id_-_catch-1.csv').write_text(header + '9,1,1.0,9,1.0,0.0\n9,x,0,9,0,0\n')
  with pytest.raises(ValueError, match=r"bsuite_id_-_catch-1.csv:3: column 'episode': 'x' is not a number"):
    bsuite_rs.score(tmp_path)
  with pytest.warns(UserWarning, match='bsuite_id_-_catch-1.csv'):
    scores = bsuite_rs.score(tmp_path, lenient=True)
  assert list(scores['ids']) == ['catch/0']


def test_report_writes_figures_latex_and_html(tmp_path):
  out = tmp_path / 'report'
  written = bsuite_rs.report({'random': FIXTURES / 'random_results'}, out=out,
                             title='A test report')
  assert written['out_dir'] == str(out) and written['figures'] > 20
  assert 'index.html' in written['files'] and 'bsuite_appendix.tex' in written['files']
  html = (out / 'index.html').read_text()
  assert 'random' in html and 'A test report' in html
  pdfs = [f for f in written['files'] if f.endswith('.pdf')]
  assert pdfs and all((out / f).read_bytes().startswith(b'%PDF') for f in pdfs)
  assert 'random' in written['incomplete']  # 115 of the 468 ids
  # Writing again replaces the earlier report's files only.
  again = bsuite_rs.report([FIXTURES / 'random_results'], out=out)
  assert sorted(again['files']) == sorted(written['files'])


def test_report_refuses_what_it_should(tmp_path):
  other = tmp_path / 'other'
  shutil.copytree(FIXTURES / 'random_results', other)
  with pytest.raises(ValueError, match="agent name 'random'"):
    bsuite_rs.report([('random', FIXTURES / 'random_results'), ('random', other)],
                     out=tmp_path / 'r')
  with pytest.raises(ValueError, match='inside the results directory'):
    bsuite_rs.report({'x': tmp_path}, out=tmp_path / 'report')
  mine = tmp_path / 'mine'
  mine.mkdir()
  (mine / 'index.html').write_text('my own page')
  with pytest.raises(FileExistsError, match='index.html'):
    bsuite_rs.report({'random': FIXTURES / 'random_results'}, out=mine)
  assert (mine / 'index.html').read_text() == 'my own page'
  not_a_dir = tmp_path / 'file'
  not_a_dir.write_text('')
  with pytest.raises(NotADirectoryError):
    bsuite_rs.report({'random': FIXTURES / 'random_results'}, out=not_a_dir)


def test_a_directory_of_seeds_is_one_agent_with_intervals(tmp_path):
  """seed-<s>/ directories are one agent: means over seeds, each seed's own scores, and
  the intervals of `cargo xtask score --json`."""
  def manifest(agent, seed):
    return json.dumps({'agent': agent, 'description': agent, 'seed': seed,
                       'num_episodes': None, 'bsuite_rs': '0.1.0'})

  for seed, keep in ((42, 'bsuite_id'), (43, 'bandit-')):
    seed_dir = tmp_path / f'seed-{seed}'
    seed_dir.mkdir()
    for f in (FIXTURES / 'random_results').glob('*.csv'):
      if keep in f.name:
        shutil.copy(f, seed_dir)
    (seed_dir / 'bsuite_run.json').write_text(manifest('random', seed))
  scores = bsuite_rs.score(tmp_path)
  assert list(scores)[:4] == ['experiments', 'finished', 'tags', 'ids']
  assert scores['seeds'] == [42, 43]
  assert scores['per_seed']['42'] == bsuite_rs.score(tmp_path / 'seed-42')
  assert scores['per_seed']['43'] == bsuite_rs.score(tmp_path / 'seed-43')
  # Seed 43 repeats seed 42's bandit runs: their mean is that score, the interval a point.
  bandit = scores['per_seed']['42']['experiments']['bandit']
  assert scores['experiments']['bandit'] == bandit
  interval = scores['intervals']['experiments']['bandit']
  assert (interval['lo'], interval['hi'], interval['seeds']) == (bandit, bandit, 2)
  assert scores['intervals']['experiments']['catch']['seeds'] == 1
  assert list(scores['intervals']['tags']['basic']) == [
      'experiments', 'mean', 'median', 'iqm', 'optimality_gap']
  assert bsuite_rs.score(tmp_path, bootstrap_seed=3) == bsuite_rs.score(tmp_path, bootstrap_seed=3)
  # Seeds of another agent never mix into one.
  (tmp_path / 'seed-43' / 'bsuite_run.json').write_text(manifest('dqn', 43))
  with pytest.raises(ValueError, match='seed 42 and seed 43 are different runs'):
    bsuite_rs.score(tmp_path)
