//! `umbrella_length`: scoring and plots.

use bsuite_envs::experiments::umbrella_length::EXPERIMENT;
use bsuite_logging::results::RunTable;

use crate::figure_parts::{
    by_setting, rate, regret_ave_scaling, regret_learning, seeds, ExperimentData, GroupKey,
    Grouping, SeedsSpec,
};
use crate::helpers::{
    fraction_below, group_by_setting, mean_per_episode_at_end, only, total_regret,
};
use crate::plot::Figure;
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
    score_runs(&only(runs, &EXPERIMENT))
}

pub(crate) fn score_runs(runs: &[&RunTable]) -> Score {
    score_by_group(runs, "chain_length")
}

/// The plots of umbrella_length and umbrella_distract, grouped by `group` (chain_length or
/// n_distractor).
pub(crate) fn figures_by(data: &ExperimentData, group: &str) -> Vec<Figure> {
    let key = by_setting(group);
    let learning = regret_learning(
        data,
        Grouping::Raw(GroupKey::setting(group, &key, data)),
        &total_regret,
        "average_regret",
    );
    let scale = regret_ave_scaling(
        data,
        &GroupKey::setting(group, &key, data),
        &total_regret,
        REGRET_THRESH,
        &format!("average regret at {NUM_EPISODES} episodes"),
    );
    let seeds = seeds(
        data,
        &SeedsSpec {
            value: &|run, row, prev| 1.0 - rate(run, "total_regret", row, prev),
            min_episode: f64::NEG_INFINITY,
            colour_by: Some(GroupKey::setting(group, &key, data)),
            yintercept: Some(1.0),
            y_label: "average episodic return",
        },
    );
    vec![learning, scale, seeds]
}

/// The notebook's plots of umbrella_length: raw learning curves per chain length, the
/// regret per length against the 0.5 threshold, and per-run returns.
pub fn figures(data: &ExperimentData) -> Vec<Figure> {
    figures_by(data, "chain_length")
}

/// `umbrella_length` in the analysis table.
pub(crate) static ANALYSIS: super::ExperimentAnalysis = super::ExperimentAnalysis {
    experiment: &EXPERIMENT,
    score: score_runs,
    figures,
};
