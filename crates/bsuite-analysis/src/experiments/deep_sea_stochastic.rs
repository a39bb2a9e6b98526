//! `deep_sea_stochastic`: scoring and plots.

use bsuite_envs::experiments::deep_sea_stochastic::EXPERIMENT;
use bsuite_logging::results::RunTable;

use crate::experiments::deep_sea::{find_solution, score_solutions, Solution};
use crate::figure_parts::ExperimentData;
use crate::helpers::only;
use crate::plot::Figure;
use crate::score::{Score, Undefined};

/// Episodes per run.
pub const NUM_EPISODES: u64 = bsuite_envs::experiments::deep_sea_stochastic::NUM_EPISODES as u64;

/// The stricter threshold of the stochastic variant: solved once fewer than 80% of the
/// episodes so far were bad.
pub const THRESHOLD: f64 = 0.8;

/// Episodes before this one are ignored (the running fraction is too noisy early on).
pub const FIRST_EPISODE: f64 = 100.0;

/// deep_sea's [`find_solution`] with the stochastic variant's threshold and start.
pub fn solutions(runs: &[&RunTable]) -> Vec<Solution> {
    find_solution(runs, THRESHOLD, FIRST_EPISODE, NUM_EPISODES)
}

/// The fraction of problem sizes solved faster than dithering exploration could, with
/// noisy transitions and rewards.
///
/// As deep_sea, but the "right" move sometimes fails and rewards are noisy, so the rule is
/// stricter: a size counts as solved at the first logged episode from episode 100 on where
/// fewer than 80% of the episodes so far were bad; it scores 1 if that happened before
/// episode 2^N + 100 (and within 10,000 episodes), else 0, averaged over the sizes present.
/// Runs with no logged episode from 100 on leave the score undefined. Runs of other
/// experiments are ignored.
pub fn score(runs: &[&RunTable]) -> Score {
    score_runs(&only(runs, &EXPERIMENT))
}

pub(crate) fn score_runs(runs: &[&RunTable]) -> Score {
    Score::from_f64(score_solutions(&solutions(runs)), Undefined::NoRowsToScore)
}

/// The notebook's plots of deep_sea_stochastic: as deep_sea's, with its own solution rule
/// and a seeds reference line at `exp(-1)`.
pub fn figures(data: &ExperimentData) -> Vec<Figure> {
    crate::experiments::deep_sea::figures_with(
        data,
        &solutions,
        THRESHOLD,
        (-1f64).exp(),
        "average episodic return (excluding additive noise)",
    )
}

/// `deep_sea_stochastic` in the analysis table.
pub(crate) static ANALYSIS: super::ExperimentAnalysis = super::ExperimentAnalysis {
    experiment: &EXPERIMENT,
    score: score_runs,
    figures,
};
