#!/usr/bin/env bash
# Create a venv that runs bsuite 0.3.6's own JAX baseline agents on CPU
# (bsuite.baselines.jax.{dqn,boot_dqn,actor_critic,actor_critic_rnn}).
#
#   bash tools/reference/setup_jax_agents.sh [VENV_DIR]
#
# The venv is made by `python3 -m venv` (override: PYTHON=python3.11); pins target Python 3.11.
# VENV_DIR defaults to <repo root>/.bsuite/jax-venv (gitignored). Installs the exact pins in
# jax_agents_requirements.txt (next to this script) with pip. Idempotent: if VENV_DIR already
# imports bsuite.baselines.jax.dqn with jax 0.4.23, nothing is installed. Prints the venv's
# python path on the last line, e.g. for tools/reference/jax_agent.py:
#
#   py="$(bash tools/reference/setup_jax_agents.sh | tail -n1)"
#   "$py" tools/reference/jax_agent.py bench --agent dqn --id catch/0
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${1:-$root/.bsuite/jax-venv}"
req="$here/jax_agents_requirements.txt"
py="$venv/bin/python"

check() {
  [ -x "$py" ] && JAX_PLATFORMS=cpu TF_CPP_MIN_LOG_LEVEL=3 "$py" - >/dev/null 2>&1 <<'PY'
import jax
import bsuite.baselines.jax.dqn  # noqa: F401
assert jax.__version__ == '0.4.23', jax.__version__
PY
}

if check; then
  echo "jax-agents venv already set up: $venv" >&2
else
  echo "creating jax-agents venv: $venv" >&2
  mkdir -p "$(dirname "$venv")"
  "${PYTHON:-python3}" -m venv "$venv"
  # The pin file is a complete pip freeze (every transitive dependency pinned), installed with
  # --no-deps: pip's resolver rejects it as a whole because tensorstore 0.1.86 (pulled in via
  # flax -> orbax-checkpoint, never imported by the agents) declares ml_dtypes>=0.5, while
  # jax 0.4.23 needs ml_dtypes 0.3.2.
  "$py" -m pip install -q --disable-pip-version-check --no-deps -r "$req"
  if ! check; then
    echo "error: $venv does not import bsuite.baselines.jax.dqn with jax 0.4.23" >&2
    exit 1
  fi
fi
echo "$py"
