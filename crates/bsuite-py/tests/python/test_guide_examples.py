"""The README's and the guide's Python examples run as a reader runs them.

Every ```python block of README.md and docs/book/src/*.md is a program of its own, run with
this interpreter (the wheel installed) in a fresh directory, so that a renamed function or
argument fails here. The shell blocks run in xtask/tests/guide_examples.rs and the Rust ones
as doctests of bsuite-baselines.
"""
import pathlib
import subprocess
import sys

import pytest

from conftest import REPO

PAGES = [REPO / 'README.md'] + sorted((REPO / 'docs' / 'book' / 'src').glob('*.md'))


def python_blocks(text):
  """The ```python blocks of a Markdown page as (line of the fence, code), indented blocks
  (in list items) included."""
  blocks = []
  lines = text.splitlines()
  index = 0
  while index < len(lines):
    stripped = lines[index].lstrip()
    if stripped.startswith('```'):
      indent = len(lines[index]) - len(stripped)
      language = stripped[3:].replace(',', ' ').split(' ')[0]
      start = index + 1
      index += 1
      code = []
      while not lines[index].lstrip().startswith('```'):
        line = lines[index]
        code.append(line[min(indent, len(line) - len(line.lstrip())):])
        index += 1
      if language == 'python':
        blocks.append((start, '\n'.join(code) + '\n'))
    index += 1
  return blocks


EXAMPLES = [(page, line, code) for page in PAGES
            for line, code in python_blocks(page.read_text())]


def test_the_readme_and_the_python_chapter_have_examples():
  """The extraction finds the examples it is meant to run (a change of fence that hid them
  would otherwise pass unnoticed)."""
  pages = {page.name for page, _, _ in EXAMPLES}
  assert {'README.md', 'python-agent.md', 'comparing.md'} <= pages, pages


@pytest.mark.parametrize(
    'page,line,code', EXAMPLES,
    ids=[f'{page.relative_to(REPO)}:{line}' for page, line, _ in EXAMPLES])
def test_python_example_runs(page, line, code, tmp_path):
  """The example runs to its end in a directory of its own, as a script."""
  script = tmp_path / 'example.py'
  script.write_text(code)
  run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                       text=True, timeout=600, stdin=subprocess.DEVNULL)
  assert run.returncode == 0, (
      f'{page.relative_to(REPO)}:{line}: the example failed ({run.returncode}):\n{code}\n'
      f'--- stdout:\n{run.stdout[-3000:]}\n--- stderr:\n{run.stderr[-3000:]}')
