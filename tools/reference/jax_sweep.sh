#!/usr/bin/env bash
# Run one of bsuite 0.3.6's JAX agents (tools/reference/jax_agent.py) on many (seed, id) pairs,
# resumably: one CSV per pair in OUT/seed-S/, written only once its run has finished.
#
#   bash tools/reference/jax_sweep.sh --agent AGENT --out OUT --seeds "42 43 44" [--jobs 2] ID...
#
# IDs are bsuite_ids, run in the order given, each for every seed before the next id (so that
# all seeds cover the same ids at any time; give the cheapest ids first). A pair whose CSV is in
# OUT/seed-S/ is skipped, so rerunning the same command resumes. Each run writes into its own
# staging directory OUT/.staging/ and its CSV is moved into place only when jax_agent.py exits
# with success: an interrupted run leaves no CSV behind and is started again from scratch.
# One line per finished pair goes to stdout (jax_agent.py's "done ..." line). The venv is
# <repo>/.bsuite/jax-venv unless PY names another python (setup_jax_agents.sh builds it).
# XLA runs single-threaded per process unless XLA_FLAGS is set, so --jobs J uses J cores.
# One sweep at a time per OUT (a lock file, OUT/.lock).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

if [ "${1:-}" = "--one" ]; then
  # Internal: run one "SEED ID" pair (called through xargs).
  shift
  agent="$1" out="$2" seed="$3" id="$4"
  exp="${id%/*}" index="${id#*/}"
  final="$out/seed-$seed/bsuite_id_-_$exp-$index.csv"
  [ -e "$final" ] && exit 0
  staging="$out/.staging/seed-$seed-$exp-$index"
  rm -rf "$staging"
  mkdir -p "$staging" "$out/seed-$seed"
  if ! "$PY" "$here/jax_agent.py" run --agent "$agent" --seed "$seed" --results-dir "$staging" \
      "$id" 2>"$staging.log"; then
    echo "error: $agent seed $seed $id failed; see $staging.log" >&2
    exit 1
  fi
  grep '^done ' "$staging.log" || true
  mv "$staging/bsuite_id_-_$exp-$index.csv" "$final"
  rm -rf "$staging" "$staging.log"
  exit 0
fi

agent="" out="" seeds="" jobs=1
ids=()
while [ $# -gt 0 ]; do
  case "$1" in
    --agent) agent="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --seeds) seeds="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    -*) echo "error: unknown option $1" >&2; exit 2 ;;
    *) ids+=("$1"); shift ;;
  esac
done
if [ -z "$agent" ] || [ -z "$out" ] || [ -z "$seeds" ] || [ ${#ids[@]} -eq 0 ]; then
  echo "usage: jax_sweep.sh --agent AGENT --out OUT --seeds \"S...\" [--jobs J] ID..." >&2
  exit 2
fi
for id in "${ids[@]}"; do
  case "$id" in
    */*) ;;
    *) echo "error: '$id' is not a bsuite_id (experiment/index)" >&2; exit 2 ;;
  esac
done
export PY="${PY:-$root/.bsuite/jax-venv/bin/python}"
[ -x "$PY" ] || { echo "error: $PY not found: run tools/reference/setup_jax_agents.sh" >&2; exit 2; }
export XLA_FLAGS="${XLA_FLAGS:---xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1}"
mkdir -p "$out"
# Two sweeps into one OUT would run the same pairs into the same staging directories.
exec 9>"$out/.lock"
if ! flock -n 9; then
  echo "error: another jax_sweep.sh is running into $out" >&2
  exit 1
fi

for id in "${ids[@]}"; do
  for seed in $seeds; do
    echo "$seed $id"
  done
done | xargs -P "$jobs" -L 1 bash "$here/jax_sweep.sh" --one "$agent" "$out"
echo "jax_sweep: all pairs done in $out" >&2
