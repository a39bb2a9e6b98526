//! `umbrella_length`: scoring and plots.

use bsuite_logging::results::RunTable;

use crate::helpers::{fraction_below, group_by_setting, mean_per_episode_at_end, total_regret};
use crate::score::{Score, Undefined};

/// Episodes per run.
pub const NUM_EPISODES: u64 = bsuite_envs::experiments::umbrella_length::NUM_EPISODES as u64;

/// A setting counts as solved when the regret per episode is below this (a random choice of
/// umbrella has regret 1).
pub const REGRET_THRESH: f64 = 0.5;

/// The fraction of settings of `group` (chain_length or n_distractor) with regret per episode
/// at the end of the run below [`REGRET_THRESH`].
pub(crate) fn score_by_group(runs: &[&RunTable], group: &str) -> Score {
    let regrets: Vec<f64> = group_by_setting(runs, group)
        .iter()
        .map(|(_, g)| mean_per_episode_at_end(g, NUM_EPISODES, None, total_regret))
        .collect();
    Score::from_f64(
        fraction_below(&regrets, REGRET_THRESH),
        Undefined::NoRowsToScore,
    )
}

/// The fraction of chain lengths over which the agent assigned credit to its first action.
///
/// The first action decides whether the agent takes an umbrella; only at the end of the
/// chain (1 to 100 steps later) does it learn whether that was right, while intermediate
/// rewards are random noise. For each chain length the regret per episode at the end of the
/// run is compared with 0.5 (half a random choice's regret of 1); the score is the fraction
/// of lengths below it. Runs of other experiments are ignored.
pub fn score(runs: &[&RunTable]) -> Score {
    score_runs(&super::only(runs, "umbrella_length"))
}

pub(crate) fn score_runs(runs: &[&RunTable]) -> Score {
    score_by_group(runs, "chain_length")
}
