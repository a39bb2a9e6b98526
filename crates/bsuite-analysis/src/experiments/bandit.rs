//! `bandit`: scoring and plots.

use bsuite_envs::experiments::bandit::EXPERIMENT;
use bsuite_logging::results::RunTable;

use crate::figure_parts::{rate, regret_family_figures, ExperimentData, RegretFamily};
use crate::helpers::{ave_regret_score, only, total_regret};
use crate::plot::Figure;
use crate::score::Score;

/// Episodes per run.
pub const NUM_EPISODES: u64 = bsuite_envs::experiments::bandit::NUM_EPISODES as u64;

/// Regret per episode of an agent that picks arms uniformly at random (rewards 0..1).
pub const BASE_REGRET: f64 = 0.5;

/// Average regret over the run, relative to uniform random choice.
///
/// The agent's total regret (the best arm's expected reward minus the reward received,
/// summed over all 10,000 pulls) is averaged per episode at the end of the run and normalised
/// so that the random policy's 0.5 per episode scores 0 and a policy that always pulls the
/// best arm scores 1, clipped to [0, 1]; the mean is over the runs that reached the furthest
/// logged episode. Runs of other experiments are ignored.
pub fn score(runs: &[&RunTable]) -> Score {
    score_runs(&only(runs, &EXPERIMENT))
}

pub(crate) fn score_runs(runs: &[&RunTable]) -> Score {
    ave_regret_score(runs, BASE_REGRET, NUM_EPISODES, None, total_regret)
}

/// The notebook's plots of bandit: learning curve and per-run returns.
pub fn figures(data: &ExperimentData) -> Vec<Figure> {
    regret_family_figures(data, &PLOTS, None)
}

/// What bandit's plots show; its noise and scale variants plot the same per scale.
pub(crate) const PLOTS: RegretFamily<'static> = RegretFamily {
    regret: &total_regret,
    base_regret: BASE_REGRET,
    bandit_format: true,
    seeds_value: &|run: &RunTable, row: usize, prev: usize| {
        1.0 - rate(run, "total_regret", row, prev)
    },
    seeds_min_episode: f64::NEG_INFINITY,
    seeds_yintercept: 1.0,
    seeds_label: "average episodic return",
};

/// `bandit` in the analysis table.
pub(crate) static ANALYSIS: super::ExperimentAnalysis = super::ExperimentAnalysis {
    experiment: &EXPERIMENT,
    score: score_runs,
    figures,
};
