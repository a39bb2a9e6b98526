#!/usr/bin/env bash
# Builds the reference venv: bsuite 0.3.6 with what its environments, CSV logging and
# analysis import (no agents, no JAX), for ref_trace.py, ref_run.py, ref_score.py and
# ref_throughput.py in this folder.
#
#   bash tools/reference/setup.sh [VENV_DIR]
#
# VENV_DIR defaults to <repo root>/.bsuite/reference-venv (gitignored). The versions are
# the ones pinned for the JAX agents' venv (jax_agents_requirements.txt, next to this
# script): this venv installs the subset of those pins listed below, with --no-deps, so
# both venvs run the same bsuite, numpy and pandas. Python 3.11 (override: PYTHON=python3.11).
# Idempotent: a venv that already imports bsuite's analysis with numpy 1.26.4 and pandas
# 1.5.3 is left alone. Prints the venv's python on the last line:
#
#   py="$(bash tools/reference/setup.sh | tail -n1)"
#   "$py" tools/reference/ref_trace.py catch/0 --info
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${1:-$root/.bsuite/reference-venv}"
pins="$here/jax_agents_requirements.txt"
py="$venv/bin/python"

# bsuite's declared dependencies for its environments and analysis (absl-py, dm-env,
# immutabledict, matplotlib, numpy, pandas, plotnine, scipy, scikit-image, six, termcolor)
# and theirs, closed under what those import.
packages="
  absl-py attrs bsuite contourpy cycler dm-env dm-tree fonttools formulaic imageio
  immutabledict interface-meta kiwisolver lazy-loader matplotlib mizani narwhals networkx
  numpy packaging pandas patsy pillow plotnine pyparsing python-dateutil pytz scikit-image
  scipy six statsmodels termcolor tifffile typing-extensions tzdata wrapt
"

check() {
  [ -x "$py" ] && "$py" - >/dev/null 2>&1 <<'PY'
import numpy, pandas
import bsuite
from bsuite.experiments import summary_analysis  # noqa: F401
assert numpy.__version__ == '1.26.4', numpy.__version__
assert pandas.__version__ == '1.5.3', pandas.__version__
PY
}

if check; then
  echo "reference venv already set up: $venv" >&2
else
  echo "creating reference venv: $venv" >&2
  mkdir -p "$(dirname "$venv")"
  "${PYTHON:-python3}" -m venv "$venv"
  req="$(mktemp)"
  trap 'rm -f "$req"' EXIT
  # The pins of the packages above, names compared as pip does (case, '-' and '_' alike).
  normalise() { tr 'A-Z_' 'a-z-'; }
  wanted="$(echo $packages | tr ' ' '\n' | normalise)"
  while IFS= read -r line; do
    case "$line" in '#'* | '') continue ;; esac
    name="$(echo "${line%%==*}" | normalise)"
    if grep -qx "$name" <<<"$wanted"; then echo "$line"; fi
  done <"$pins" >"$req"
  missing="$(comm -23 <(sort <<<"$wanted") <(sed 's/==.*//' "$req" | normalise | sort))"
  if [ -n "$missing" ]; then
    echo "error: $pins has no pin for: $missing" >&2
    exit 1
  fi
  "$py" -m pip install -q --disable-pip-version-check --no-deps -r "$req"
  if ! check; then
    echo "error: $venv does not import bsuite's analysis with numpy 1.26.4 and pandas 1.5.3" >&2
    exit 1
  fi
fi
echo "$py"
