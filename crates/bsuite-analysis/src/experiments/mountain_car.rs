//! `mountain_car`: scoring and plots.

use bsuite_envs::experiments::mountain_car::EXPERIMENT;
use bsuite_logging::results::RunTable;

use crate::figure_parts::{rate, regret_family_figures, ExperimentData, RegretFamily};
use crate::helpers::{ave_regret_score, column, only};
use crate::plot::Figure;
use crate::score::Score;

/// Episodes per run.
pub const NUM_EPISODES: u64 = bsuite_envs::experiments::mountain_car::NUM_EPISODES as u64;

/// Regret per episode of staying at the bottom for the whole 1000-step episode.
pub const BASE_REGRET: f64 = 1000.0;

/// Steps the reference takes an ideal policy to need per episode.
pub const SOLVED_STEPS: f64 = 100.0;

/// Cumulative regret of a row: the return of reaching the goal in 100 steps every episode,
/// minus the return obtained (`-100·episode - raw_return`).
pub(crate) fn regret(run: &RunTable, row: usize) -> f64 {
    -SOLVED_STEPS * run.episodes()[row] - column(run, "raw_return")[row]
}

/// Average regret against a policy that reaches the goal in 100 steps.
///
/// Every step costs -1 until the car reaches the hill top, so the regret of an episode is
/// the number of steps beyond 100 it took (on the raw, unscaled and noise-free return). The
/// regret per episode at the end of the 1,000 episodes is normalised so that never reaching
/// the goal (1,000 per episode) scores 0 and a 100-step solution scores 1, clipped to
/// [0, 1]. Runs of other experiments are ignored.
pub fn score(runs: &[&RunTable]) -> Score {
    score_runs(&only(runs, &EXPERIMENT))
}

pub(crate) fn score_runs(runs: &[&RunTable]) -> Score {
    ave_regret_score(runs, BASE_REGRET, NUM_EPISODES, None, regret)
}

/// The notebook's plots of mountain_car: learning curve and per-run returns.
pub fn figures(data: &ExperimentData) -> Vec<Figure> {
    regret_family_figures(data, &PLOTS, None)
}

/// What mountain_car's plots show; its noise and scale variants plot the same per scale.
pub(crate) const PLOTS: RegretFamily<'static> = RegretFamily {
    regret: &regret,
    base_regret: BASE_REGRET,
    bandit_format: false,
    seeds_value: &|run: &RunTable, row: usize, prev: usize| rate(run, "raw_return", row, prev),
    seeds_min_episode: f64::NEG_INFINITY,
    seeds_yintercept: -SOLVED_STEPS,
    seeds_label: "average episodic return",
};

/// `mountain_car` in the analysis table.
pub(crate) static ANALYSIS: super::ExperimentAnalysis = super::ExperimentAnalysis {
    experiment: &EXPERIMENT,
    score: score_runs,
    figures,
};
