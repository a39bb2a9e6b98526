#!/usr/bin/env bash
# Ships a finished sweep of sweeps/queue.sh: adds its seeds to baselines/NAME.tar.gz, has
# bsuite 0.3.6's scorer check every shipped seed, and only then removes sweeps/NAME.
#
#   sweeps/ship.sh NAME
#
# pack-baseline refuses a partial sweep, a seed the archive already holds, and seeds of
# another run. If the scorer disagrees, the archive and scores file are restored from git
# and sweeps/NAME is kept. What is left by hand is printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:?usage: sweeps/ship.sh NAME}
if [ ! -d "sweeps/$name" ]; then
  echo "ship.sh: no sweeps/$name" >&2
  exit 2
fi

cargo xtask pack-baseline "sweeps/$name" --name "$name" --add-seeds
if ! cargo xtask test --shipped-scores-only; then
  git checkout -- "baselines/$name.tar.gz" "baselines/$name.scores.json"
  echo "ship.sh: bsuite's scorer disagrees with the new $name archive; it is restored," \
    "and sweeps/$name is kept" >&2
  exit 1
fi
rm -r "sweeps/$name"

cat <<EOF
ship.sh: $name shipped. Left by hand:
- the README's and the guide's score rows (cargo test -p xtask --test baselines
  the_documented_score_tables says what they must be), baselines/README.md's seeds and
  builds, sweeps/README.md's tables (steps, wall time and peak RSS: sweeps/logs/$name.log);
- the findings in docs/studies/ on \`cargo xtask compare\`, and their figures.
EOF
