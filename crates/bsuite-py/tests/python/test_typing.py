"""The package's types: `mypy --strict` on an example of the public API (and on a misuse,
which it must catch), and mypy's `stubtest` of the native module's stubs (`_core.pyi`)
against the built module."""
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip('mypy')

HERE = pathlib.Path(__file__).resolve().parent


def _mypy(*args, cwd=HERE):
  return subprocess.run([sys.executable, '-m', *args], capture_output=True, text=True,
                        cwd=cwd, check=False)


def test_mypy_strict_accepts_the_example_and_catches_a_misuse(tmp_path):
  # One run for both files: mypy's first pass over numpy and gymnasium is most of the time.
  example = tmp_path / 'typed_example.py'
  example.write_text((HERE / 'typed_example.py').read_text())
  (tmp_path / 'misuse.py').write_text('import bsuite_rs\nenv = bsuite_rs.load_from_id(3)\n'
                                      'x: str = env.reset().observation\n')
  result = _mypy('mypy', '--strict', '--cache-dir', str(tmp_path / 'cache'),
                 'typed_example.py', 'misuse.py', cwd=tmp_path)
  errors = [line for line in result.stdout.splitlines() if ': error:' in line]
  assert all(line.startswith('misuse.py:') for line in errors), result.stdout
  # The stubs type things: a wrong argument and a wrong use of a result are errors, not Any.
  assert any('incompatible type "int"; expected "str"' in line for line in errors), errors
  assert any('ndarray' in line and 'variable has type "str"' in line for line in errors), errors
  assert len(errors) == 2, result.stdout


def test_stubtest_of_the_native_module(tmp_path):
  result = _mypy('mypy.stubtest', '--mypy-config-file', '/dev/null', 'bsuite_rs._core',
                 cwd=tmp_path)
  assert result.returncode == 0, result.stdout + result.stderr
