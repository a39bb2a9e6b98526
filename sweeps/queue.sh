#!/usr/bin/env bash
# Issue 56's seed sweeps, cheapest first, one after another at the lowest priority. Each line
# is a resumable `bsuite-run` sweep: run this script again (in any later session) and every
# sweep skips the (seed, id) pairs it has finished and goes on. Each seed is the seed-42
# sweep shipped in baselines/ with only `--seed` changed.
#
#   sweeps/queue.sh [BSUITE_RUN]      # default: target/release/bsuite-run
#
# Logs (with /usr/bin/time -v's wall time and peak RSS) go to sweeps/logs/, which git
# ignores. Copy the binary out of target/ first if you will rebuild while it runs.
set -uo pipefail
cd "$(dirname "$0")/.."
run=${1:-target/release/bsuite-run}
mkdir -p sweeps/logs

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
