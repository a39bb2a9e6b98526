//! `cartpole_scale`: scoring and plots.

use bsuite_envs::experiments::cartpole_scale::EXPERIMENT;
use bsuite_logging::results::RunTable;

use crate::experiments::cartpole;
use crate::figure_parts::{regret_family_figures, ExperimentData};
use crate::helpers::{only, score_by_scaling};
use crate::plot::Figure;
use crate::score::Score;

/// Episodes per run.
pub const NUM_EPISODES: u64 = bsuite_envs::experiments::cartpole_scale::NUM_EPISODES as u64;

/// The sweep setting the runs are grouped by.
pub const SCALING_VAR: &str = "reward_scale";

/// The cartpole score under rescaled rewards, penalised for inconsistency across scales.
///
/// The runs play cartpole with every reward multiplied by 0.001, 0.03, 1, 30 or 1000 (four runs
/// per value); the logged return (`raw_return`) is the environment's own, free of noise and
/// scaling. The cartpole score is computed per `reward_scale`, and the result is the average of
/// their clipped mean and their clipped mean minus one standard deviation, so an agent scores
/// high only if it does well at every reward scale. Runs of other experiments are ignored.
pub fn score(runs: &[&RunTable]) -> Score {
    score_runs(&only(runs, &EXPERIMENT))
}

pub(crate) fn score_runs(runs: &[&RunTable]) -> Score {
    score_by_scaling(runs, SCALING_VAR, cartpole::score_runs)
}

/// The notebook's plots of cartpole_scale: average regret per scale, learning curves per scale
/// and per-run returns.
pub fn figures(data: &ExperimentData) -> Vec<Figure> {
    regret_family_figures(data, &cartpole::PLOTS, Some(SCALING_VAR))
}

/// `cartpole_scale` in the analysis table.
pub(crate) static ANALYSIS: super::ExperimentAnalysis = super::ExperimentAnalysis {
    experiment: &EXPERIMENT,
    score: score_runs,
    figures,
};
