//! `memory_len`: scoring and plots.

use bsuite_envs::experiments::memory_len::EXPERIMENT;
use bsuite_logging::results::RunTable;

use crate::figure_parts::{
    by_setting, rate, regret_ave_scaling, regret_learning, seeds, ExperimentData, GroupKey,
    Grouping, SeedsSpec,
};
use crate::helpers::{column, fraction_below, group_by_setting, mean_per_episode_at_end, only};
use crate::plot::Figure;
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
    score_runs(&only(runs, &EXPERIMENT))
}

pub(crate) fn score_runs(runs: &[&RunTable]) -> Score {
    score_by_group(runs, "memory_length")
}

/// The plots of memory_len and memory_size, grouped by `group` (memory_length or num_bits);
/// the seeds plot starts after `seeds_min_episode`.
pub(crate) fn figures_by(
    data: &ExperimentData,
    group: &str,
    seeds_min_episode: f64,
) -> Vec<Figure> {
    let key = by_setting(group);
    let learning = regret_learning(
        data,
        Grouping::Raw(GroupKey::setting(group, &key, data)),
        &regret_ratio,
        // bsuite labels this "% of correct episodes", but it is the fraction of imperfect
        // episodes over random guessing's: 0 is always right, 1 no better than chance.
        "imperfect episodes relative to random\n(bsuite: % correct; 0 = always right)",
    );
    let scale = regret_ave_scaling(
        data,
        &GroupKey::setting(group, &key, data),
        &regret_ratio,
        LEARNING_THRESH,
        &format!(
            "imperfect episodes relative to random\nafter {NUM_EPISODES} episodes (0 = always right)"
        ),
    );
    let seeds = seeds(
        data,
        &SeedsSpec {
            value: &|run, row, prev| rate(run, "total_return", row, prev),
            min_episode: seeds_min_episode,
            colour_by: Some(GroupKey::setting(group, &key, data)),
            yintercept: None,
            y_label: "average episodic return",
        },
    );
    vec![learning, scale, seeds]
}

/// The notebook's plots of memory_len: raw learning curves per length, the fraction of
/// imperfect episodes per length against the 0.75 threshold, and per-run returns.
pub fn figures(data: &ExperimentData) -> Vec<Figure> {
    figures_by(data, "memory_length", 10.0)
}

/// `memory_len` in the analysis table.
pub(crate) static ANALYSIS: super::ExperimentAnalysis = super::ExperimentAnalysis {
    experiment: &EXPERIMENT,
    score: score_runs,
    figures,
};
