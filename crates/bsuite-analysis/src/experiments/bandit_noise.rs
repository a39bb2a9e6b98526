//! `bandit_noise`: scoring and plots.

use bsuite_envs::experiments::bandit_noise::EXPERIMENT;
use bsuite_logging::results::RunTable;

use crate::experiments::bandit;
use crate::figure_parts::{regret_family_figures, ExperimentData};
use crate::helpers::{only, score_by_scaling};
use crate::plot::Figure;
use crate::score::Score;

/// Episodes per run.
pub const NUM_EPISODES: u64 = bsuite_envs::experiments::bandit_noise::NUM_EPISODES as u64;

/// The sweep setting the runs are grouped by.
pub const SCALING_VAR: &str = "noise_scale";

/// The bandit score under reward noise, penalised for inconsistency across noise levels.
///
/// The runs play the bandit with Gaussian noise of standard deviation 0.1, 0.3, 1, 3 or 10
/// added to every reward (four runs per value); the logged regret (`total_regret`) is the
/// environment's own, free of noise and scaling. The bandit score is computed per
/// `noise_scale`, and the result is the average of their clipped mean and their clipped mean
/// minus one standard deviation, so an agent scores high only if it does well at every noise
/// level. Runs of other experiments are ignored.
pub fn score(runs: &[&RunTable]) -> Score {
    score_runs(&only(runs, &EXPERIMENT))
}

pub(crate) fn score_runs(runs: &[&RunTable]) -> Score {
    score_by_scaling(runs, SCALING_VAR, bandit::score_runs)
}

/// The notebook's plots of bandit_noise: average regret per scale, learning curves per scale
/// and per-run returns.
pub fn figures(data: &ExperimentData) -> Vec<Figure> {
    regret_family_figures(data, &bandit::PLOTS, Some(SCALING_VAR))
}

/// `bandit_noise` in the analysis table.
pub(crate) static ANALYSIS: super::ExperimentAnalysis = super::ExperimentAnalysis {
    experiment: &EXPERIMENT,
    score: score_runs,
    figures,
};
