#!/usr/bin/env bash
# Issue 56's seed sweeps, cheapest first, one after another at the lowest priority. Each line
# is a resumable `bsuite-run` sweep: run this script again (in any later session) and every
# sweep skips the (seed, id) pairs it has finished and goes on. Each seed is the seed-42
# sweep shipped in baselines/ with only `--seed` changed.
#
#   sweeps/queue.sh [BSUITE_RUN]
#
# Without BSUITE_RUN it runs the build the sweeps were begun with, PINNED below, and makes it
# on a machine that lacks it: a git worktree of that revision in .bsuite/, whose host bit
# fixtures must pass on this CPU before its binary runs (the manifests then name PINNED).
#
# Logs (with /usr/bin/time -v's wall time and peak RSS) go to sweeps/logs/, which git
# ignores.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p sweeps/logs

# A seed may span builds only if they keep the agents' bits: every sweep still queued was
# begun by this one.
PINNED=3c1c304

pinned_build() {
  local src=.bsuite/sweep-src-$PINNED bin=.bsuite/sweep-bin/bsuite-run-$PINNED
  if [ ! -x "$bin" ]; then
    [ -d "$src" ] || git worktree add --detach "$src" "$PINNED" >&2 || return 1
    (
      cd "$src" &&
        cargo test --release -p bsuite-baselines --features cli --test host_bits >&2 &&
        cargo build --release -p bsuite-baselines --features cli --bin bsuite-run >&2
    ) || return 1
    mkdir -p "$(dirname "$bin")" && cp "$src/target/release/bsuite-run" "$bin" || return 1
  fi
  echo "$bin"
}

if [ $# -gt 0 ]; then
  run=$1
elif ! run=$(pinned_build 2>>sweeps/logs/queue.log); then
  echo "queue.sh: could not build or check $PINNED; see sweeps/logs/queue.log" >&2
  exit 1
fi

# A sweep whose last seed already ships in baselines/NAME.tar.gz is done: skip it rather than
# run it again into an empty sweeps/NAME.
ships() {
  # grep -c reads to the end: with pipefail, grep -q would fail the pipe by closing it early.
  [ "$(tar tzf "baselines/$1.tar.gz" 2>/dev/null | grep -c "^seed-$2/")" -gt 0 ]
}

# The last seed of a sweep's `--seeds A..B` (B is exclusive).
last_seed() {
  while [ $# -gt 0 ]; do
    if [ "$1" = --seeds ]; then
      echo $((${2#*..} - 1))
      return
    fi
    shift
  done
}

sweep() {
  local name=$1
  shift
  local last
  last=$(last_seed "$@")
  if ships "$name" "$last"; then
    echo "$(date -u +%FT%TZ) skip $name: seed $last ships in baselines/" >>sweeps/logs/queue.log
    return
  fi
  echo "$(date -u +%FT%TZ) start $name: $*" >>sweeps/logs/queue.log
  nice -n 19 /usr/bin/time -v "$run" "$@" --results "sweeps/$name" --jobs 2 --plain --no-score \
    >>"sweeps/logs/$name.log" 2>&1
  echo "$(date -u +%FT%TZ) end $name: exit $?" >>sweeps/logs/queue.log
}

sweep dqn_sgd dqn --config optimizer=sgd --config learning_rate=0.01 --seeds 43..47
sweep dqn_rmsprop dqn --config optimizer=rmsprop --seeds 43..47
sweep boot_dqn_1 boot_dqn --config num_ensemble=1 --seeds 43..45
sweep boot_dqn_3 boot_dqn --config num_ensemble=3 --seeds 43..45
sweep actor_critic_rnn actor_critic_rnn --seeds 45..47
sweep boot_dqn boot_dqn --seeds 43..45
sweep boot_dqn_10 boot_dqn --config num_ensemble=10 --seeds 43..45
sweep boot_dqn_30 boot_dqn --config num_ensemble=30 --seeds 43..45
