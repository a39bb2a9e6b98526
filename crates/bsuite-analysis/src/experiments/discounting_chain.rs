//! `discounting_chain`: scoring and plots.

use bsuite_logging::results::RunTable;

use crate::helpers::{column, mean_per_episode_at_end};
use crate::numeric;
use crate::score::{Score, Undefined};

/// Episodes per run.
pub const NUM_EPISODES: u64 = bsuite_envs::experiments::discounting_chain::NUM_EPISODES as u64;

/// The reference line of the learning plots (not used by the score).
pub const BASE_REGRET: f64 = 0.08;

/// The reward delays of the five chains; setting `i` makes chain `i % 5` the better one.
pub const HORIZONS: [u64; 5] = [1, 3, 10, 30, 100];

/// Return per episode of always picking the better chain.
pub const OPTIMAL_RETURN: f64 = 1.1;

/// How close the average return per episode comes to the optimal 1.1.
///
/// Each episode the first action picks one of five chains that pay 1 after 1, 3, 10, 30
/// or 100 steps, except one that pays 1.1. The average return per episode at the end of
/// the run (1,000 episodes) is mapped linearly so that 1.0 (always a 1-paying chain)
/// scores 0 and the optimal 1.1 scores 1: `clip(1 - 10·(1.1 - average return), 0, 1)`.
/// Runs of other experiments are ignored.
pub fn score(runs: &[&RunTable]) -> Score {
    score_runs(&super::only(runs, "discounting_chain"))
}

pub(crate) fn score_runs(runs: &[&RunTable]) -> Score {
    let ave_return = mean_per_episode_at_end(runs, NUM_EPISODES, None, |run, row| {
        column(run, "total_return")[row]
    });
    let raw = 1.0 - 10.0 * (OPTIMAL_RETURN - ave_return);
    Score::from_f64(numeric::clip01(raw), Undefined::NoRowAtEvaluationEpisode)
}
