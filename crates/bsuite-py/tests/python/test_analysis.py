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
