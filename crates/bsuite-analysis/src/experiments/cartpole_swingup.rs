//! `cartpole_swingup`: scoring and plots.

use bsuite_logging::results::RunTable;

use crate::experiments::cartpole::fraction_with_good_episode;
use crate::figures::{
    by_setting, rate, regret_learning, seeds, swingup_scale, ExperimentData, GroupKey, Grouping,
    SeedsSpec,
};
use crate::helpers::{ave_regret_score, column, group_by_setting};
use crate::numeric;
use crate::plot::Figure;
use crate::score::{Score, Undefined};

/// Episodes per run.
pub const NUM_EPISODES: u64 = bsuite_envs::experiments::cartpole_swingup::NUM_EPISODES as u64;

/// Return per episode the reference treats as perfect.
pub const BASE_REGRET: f64 = 700.0;

/// A run "swings up" once its best episode returns more than this.
pub const GOOD_EPISODE: f64 = 100.0;

/// Cumulative shortfall of a row from a 700-per-episode return: `700·episode - total_return`.
pub(crate) fn perfection_regret(run: &RunTable, row: usize) -> f64 {
    run.episodes()[row] * BASE_REGRET - column(run, "total_return")[row]
}

/// Per difficulty: half regret, half "did a swing-up"; averaged over difficulties.
///
/// For each `height_threshold` (how high the pole must be held to earn reward; 20 settings
/// of increasing difficulty) the score is the mean of two halves: the average-regret score
/// over the first 1,000 episodes against a return of 700 per episode (no return scores 0),
/// and the fraction of runs whose best episode returned more than 100. The experiment's
/// score is the mean over thresholds, so an agent must explore to swing up at the hard
/// settings. Runs of other experiments are ignored.
pub fn score(runs: &[&RunTable]) -> Score {
    score_runs(&super::only(runs, "cartpole_swingup"))
}

pub(crate) fn score_runs(runs: &[&RunTable]) -> Score {
    let mut reason = Undefined::NoRowsToScore;
    let mut scores = Vec::new();
    for (_, group) in group_by_setting(runs, "height_threshold") {
        if !group.iter().any(|r| {
            r.episodes()
                .first()
                .is_some_and(|&e| e <= NUM_EPISODES as f64)
        }) {
            continue; // every row past the cap: the group vanishes, as in the reference
        }
        let regret = ave_regret_score(
            &group,
            BASE_REGRET,
            NUM_EPISODES,
            Some(NUM_EPISODES),
            perfection_regret,
        );
        if let Score::Undefined(why) = regret {
            reason = why;
        }
        let swingup = fraction_with_good_episode(&group, NUM_EPISODES, GOOD_EPISODE);
        scores.push(0.5 * (regret.to_f64() + swingup));
    }
    Score::from_f64(numeric::mean(&scores), reason)
}

/// The notebook's plots of cartpole_swingup: raw learning curves per height threshold, the
/// best episode per threshold, and per-run returns.
pub fn figures(data: &ExperimentData) -> Vec<Figure> {
    let key = by_setting("height_threshold");
    let learning = regret_learning(
        data,
        Grouping::Raw(GroupKey::setting("height_threshold", &key, data)),
        &perfection_regret,
        "average_regret",
    );
    let seeds = seeds(
        data,
        &SeedsSpec {
            value: &|run, row, prev| rate(run, "raw_return", row, prev),
            min_episode: 1.0,
            colour_by: Some(GroupKey::setting("height_threshold", &key, data)),
            yintercept: None,
            y_label: "average episodic return",
        },
    );
    vec![learning, swingup_scale(data, GOOD_EPISODE), seeds]
}
