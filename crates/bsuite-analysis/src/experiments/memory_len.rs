//! `memory_len`: scoring and plots.

use bsuite_logging::results::RunTable;

use crate::helpers::{column, fraction_below, group_by_setting, mean_per_episode_at_end};
use crate::score::{Score, Undefined};

/// Episodes per run.
pub const NUM_EPISODES: u64 = bsuite_envs::experiments::memory_len::NUM_EPISODES as u64;

/// A memory length or size counts as learned when the agent's imperfect episodes, relative
/// to a random guesser's, are below this ratio (an error rate under 37.5%).
pub const LEARNING_THRESH: f64 = 0.75;

/// Probability that a random guess of the remembered bit is right.
pub const BASE_RATE: f64 = 0.5;

/// Imperfect episodes so far, relative to a random guesser: `(episode - total_perfect) / 0.5`.
pub(crate) fn regret_ratio(run: &RunTable, row: usize) -> f64 {
    (run.episodes()[row] - column(run, "total_perfect")[row]) / BASE_RATE
}

/// The fraction of settings of `group` (memory_length or num_bits) the agent learned: per
/// setting, the imperfect episodes per episode at the end of the run relative to random
/// guessing, below [`LEARNING_THRESH`].
pub(crate) fn score_by_group(runs: &[&RunTable], group: &str) -> Score {
    let ratios: Vec<f64> = group_by_setting(runs, group)
        .iter()
        .map(|(_, g)| mean_per_episode_at_end(g, NUM_EPISODES, None, regret_ratio))
        .collect();
    Score::from_f64(
        fraction_below(&ratios, LEARNING_THRESH),
        Undefined::NoRowsToScore,
    )
}

/// The fraction of memory lengths at which the agent learned to remember.
///
/// The agent sees a context bit at the start of an episode and is rewarded only for
/// reproducing it `memory_length` steps later (1 to 100). For each length, the fraction of
/// imperfect episodes at the end of the run is compared with a random guesser's 50%; the
/// length counts as learned when the ratio is below 0.75 (fewer than 37.5% wrong). The score
/// is the fraction of lengths learned. Runs of other experiments are ignored.
pub fn score(runs: &[&RunTable]) -> Score {
    score_runs(&super::only(runs, "memory_len"))
}

pub(crate) fn score_runs(runs: &[&RunTable]) -> Score {
    score_by_group(runs, "memory_length")
}
