//! `discounting_chain`: scoring and plots.

use bsuite_envs::experiments::discounting_chain::EXPERIMENT;
use bsuite_logging::results::RunTable;

use crate::figure_parts::{
    regret_average, regret_learning, seeds, ExperimentData, GroupKey, Grouping, SeedsSpec,
};
use crate::helpers::setting;
use crate::helpers::{column, mean_per_episode_at_end, only};
use crate::numeric;
use crate::plot::Figure;
use crate::score::{Score, Undefined};

/// Episodes per run.
pub const NUM_EPISODES: u64 = bsuite_envs::experiments::discounting_chain::NUM_EPISODES as u64;

/// The reference line of the learning plots (not used by the score).
pub const BASE_REGRET: f64 = 0.08;

/// The reward delays of the five chains; setting `i` makes chain `i % 5` the better one.
pub const HORIZONS: [u64; 5] = [1, 3, 10, 30, 100];

/// Return per episode of always picking the better chain.
pub const OPTIMAL_RETURN: f64 = 1.1;

/// How close the average return per episode comes to the optimal 1.1.
///
/// Each episode the first action picks one of five chains that pay 1 after 1, 3, 10, 30
/// or 100 steps, except one that pays 1.1. The average return per episode at the end of
/// the run (1,000 episodes) is mapped linearly so that 1.0 (always a 1-paying chain)
/// scores 0 and the optimal 1.1 scores 1: `clip(1 - 10·(1.1 - average return), 0, 1)`.
/// Runs of other experiments are ignored.
pub fn score(runs: &[&RunTable]) -> Score {
    score_runs(&only(runs, &EXPERIMENT))
}

pub(crate) fn score_runs(runs: &[&RunTable]) -> Score {
    let ave_return = mean_per_episode_at_end(runs, NUM_EPISODES, None, |run, row| {
        column(run, "total_return")[row]
    });
    let raw = 1.0 - 10.0 * (OPTIMAL_RETURN - ave_return);
    Score::from_f64(numeric::clip01(raw), Undefined::NoRowAtEvaluationEpisode)
}

/// The reward delay of the better chain of a run: `HORIZONS[mapping_seed % 5]`.
pub fn optimal_horizon(run: &RunTable) -> Option<f64> {
    let seed = setting(run, "mapping_seed")?;
    Some(HORIZONS[(seed as i64).rem_euclid(HORIZONS.len() as i64) as usize] as f64)
}

/// Cumulative regret of a row: `1.1·episode - total_return`.
pub(crate) fn regret(run: &RunTable, row: usize) -> f64 {
    OPTIMAL_RETURN * run.episodes()[row] - column(run, "total_return")[row]
}

/// The notebook's plots of discounting_chain: learning curves and average regret per
/// optimal horizon, and per-run returns.
pub fn figures(data: &ExperimentData) -> Vec<Figure> {
    let horizon = || GroupKey {
        title: "optimal horizon".to_string(),
        key: &optimal_horizon,
        integral: true,
    };
    let mut learning = regret_learning(
        data,
        Grouping::Smoothed(horizon()),
        &regret,
        "average regret per timestep",
    );
    learning
        .hlines
        .push(crate::figure_parts::dashed(BASE_REGRET));
    learning.y.limits = Some((0.0, 0.1));
    let average = regret_average(data, &horizon(), &regret, BASE_REGRET);
    let seeds = seeds(
        data,
        &SeedsSpec {
            value: &|run, row, prev| {
                let episodes = run.episodes();
                OPTIMAL_RETURN
                    - (regret(run, row) - regret(run, prev)) / (episodes[row] - episodes[prev])
            },
            min_episode: f64::NEG_INFINITY,
            colour_by: Some(horizon()),
            yintercept: Some(OPTIMAL_RETURN),
            y_label: "average episodic return",
        },
    );
    vec![learning, average, seeds]
}

/// `discounting_chain` in the analysis table.
pub(crate) static ANALYSIS: super::ExperimentAnalysis = super::ExperimentAnalysis {
    experiment: &EXPERIMENT,
    score: score_runs,
    figures,
};
