//! `umbrella_distract`: scoring and plots.

use bsuite_envs::experiments::umbrella_distract::EXPERIMENT;
use bsuite_logging::results::RunTable;

use crate::experiments::umbrella_length::score_by_group;
use crate::figure_parts::ExperimentData;
use crate::helpers::only;
use crate::plot::Figure;
use crate::score::Score;

/// Episodes per run.
pub const NUM_EPISODES: u64 = bsuite_envs::experiments::umbrella_distract::NUM_EPISODES as u64;

/// The fraction of distractor counts under which the agent assigned credit correctly.
///
/// As umbrella_length with a fixed chain of 20 steps, but the observation carries 1 to 100
/// random distractor bits (`n_distractor`). For each count the regret per episode at the end
/// of the run is compared with 0.5; the score is the fraction of counts below it. Runs of
/// other experiments are ignored.
pub fn score(runs: &[&RunTable]) -> Score {
    score_runs(&only(runs, &EXPERIMENT))
}

pub(crate) fn score_runs(runs: &[&RunTable]) -> Score {
    score_by_group(runs, "n_distractor")
}

/// The notebook's plots of umbrella_distract: as umbrella_length's, per distractor count.
pub fn figures(data: &ExperimentData) -> Vec<Figure> {
    crate::experiments::umbrella_length::figures_by(data, "n_distractor")
}

/// `umbrella_distract` in the analysis table.
pub(crate) static ANALYSIS: super::ExperimentAnalysis = super::ExperimentAnalysis {
    experiment: &EXPERIMENT,
    score: score_runs,
    figures,
};
