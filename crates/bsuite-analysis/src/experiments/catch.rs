//! `catch`: scoring and plots.

use bsuite_envs::experiments::catch::EXPERIMENT;
use bsuite_logging::results::RunTable;

use crate::figure_parts::{rate, regret_family_figures, ExperimentData, RegretFamily};
use crate::helpers::{ave_regret_score, only, total_regret};
use crate::plot::Figure;
use crate::score::Score;

/// Episodes per run.
pub const NUM_EPISODES: u64 = bsuite_envs::experiments::catch::NUM_EPISODES as u64;

/// Regret per episode of a random policy: a miss costs 2 (-1 instead of +1) and a random
/// policy misses about 4 balls in 5.
pub const BASE_REGRET: f64 = 1.6;

/// Average regret over the run, relative to a random policy.
///
/// Each episode the optimal policy catches the ball for +1; regret is the shortfall from
/// that, summed over the 10,000 episodes. The regret per episode at the end of the run is
/// normalised so that a random policy (1.6 per episode) scores 0 and catching every ball
/// scores 1, clipped to [0, 1]. Runs of other experiments are ignored.
pub fn score(runs: &[&RunTable]) -> Score {
    score_runs(&only(runs, &EXPERIMENT))
}

pub(crate) fn score_runs(runs: &[&RunTable]) -> Score {
    ave_regret_score(runs, BASE_REGRET, NUM_EPISODES, None, total_regret)
}

/// The notebook's plots of catch: learning curve and per-run returns.
pub fn figures(data: &ExperimentData) -> Vec<Figure> {
    regret_family_figures(data, &PLOTS, None)
}

/// What catch's plots show; its noise and scale variants plot the same per scale.
pub(crate) const PLOTS: RegretFamily<'static> = RegretFamily {
    regret: &total_regret,
    base_regret: BASE_REGRET,
    bandit_format: false,
    seeds_value: &|run: &RunTable, row: usize, prev: usize| {
        1.0 - rate(run, "total_regret", row, prev)
    },
    seeds_min_episode: f64::NEG_INFINITY,
    seeds_yintercept: 1.0,
    seeds_label: "average episodic return",
};

/// `catch` in the analysis table.
pub(crate) static ANALYSIS: super::ExperimentAnalysis = super::ExperimentAnalysis {
    experiment: &EXPERIMENT,
    score: score_runs,
    figures,
};
