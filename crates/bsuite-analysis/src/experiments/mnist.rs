//! `mnist`: scoring and plots.

use bsuite_envs::experiments::mnist::EXPERIMENT;
use bsuite_logging::results::RunTable;

use crate::figure_parts::{rate, regret_family_figures, ExperimentData, RegretFamily};
use crate::helpers::{ave_regret_score, column, only, total_regret};
use crate::numeric;
use crate::plot::Figure;
use crate::score::{Score, Undefined};

/// Episodes per run.
pub const NUM_EPISODES: u64 = bsuite_envs::experiments::mnist::NUM_EPISODES as u64;

/// Regret per episode of a random labeller: right 1 time in 10 (+1), wrong otherwise (-1).
pub const BASE_REGRET: f64 = 1.8;

/// The accuracy half only looks at episodes after this fraction of the run.
pub const ACCURACY_WINDOW: f64 = 0.9;

/// Half regret, half final accuracy.
///
/// The first half is the average-regret score (regret per episode at the end of the run,
/// normalised so that random labelling, 1.8 per episode, scores 0 and perfect labelling 1).
/// The second half is the accuracy over the last 10% of the run: the average reward per
/// episode between consecutive log points (+1 right, -1 wrong) after episode 9,000, mapped to
/// a 0..1 accuracy. The score is their mean. Like the reference, the accuracy uses the
/// difference to the previous logged row of the whole frame (not grouped by run), and the
/// score is undefined ([`Undefined::NoEpisodeInAccuracyWindow`]) until some run has logged an
/// episode after 9,000 (quirk 22 in docs/quirks.md). Runs of other experiments are ignored.
pub fn score(runs: &[&RunTable]) -> Score {
    score_runs(&only(runs, &EXPERIMENT))
}

pub(crate) fn score_runs(runs: &[&RunTable]) -> Score {
    let regret = ave_regret_score(runs, BASE_REGRET, NUM_EPISODES, None, total_regret);
    let accuracy = final_accuracy(runs);
    let score = 0.5 * (regret.to_f64() + accuracy);
    let reason = match regret {
        Score::Undefined(reason) => reason,
        Score::Value(_) => Undefined::NoEpisodeInAccuracyWindow,
    };
    Score::from_f64(score, reason)
}

/// Mean accuracy `(1 + average return) / 2` over the rows after 90% of the run, where the
/// average return of a row is `1 - Δtotal_regret / Δepisode` against the previous row of the
/// frame; NaN when there is no such row.
fn final_accuracy(runs: &[&RunTable]) -> f64 {
    let window = ACCURACY_WINDOW * NUM_EPISODES as f64;
    let mut previous: Option<(f64, f64)> = None;
    let mut accuracies = Vec::new();
    for run in runs {
        let regret = column(run, "total_regret");
        for (row, &episode) in run.episodes().iter().enumerate() {
            let ave_return = match previous {
                Some((prev_episode, prev_regret)) => {
                    1.0 - (regret[row] - prev_regret) / (episode - prev_episode)
                }
                None => f64::NAN,
            };
            if episode > window {
                accuracies.push(ave_return + 1.0);
            }
            previous = Some((episode, regret[row]));
        }
    }
    numeric::nanmean(&accuracies) * 0.5
}

/// The notebook's plots of mnist: learning curve and per-run returns.
pub fn figures(data: &ExperimentData) -> Vec<Figure> {
    regret_family_figures(data, &PLOTS, None)
}

/// What mnist's plots show; its noise and scale variants plot the same per scale.
pub(crate) const PLOTS: RegretFamily<'static> = RegretFamily {
    regret: &total_regret,
    base_regret: BASE_REGRET,
    bandit_format: false,
    seeds_value: &|run: &RunTable, row: usize, prev: usize| {
        (2.0 - rate(run, "total_regret", row, prev)) / 2.0
    },
    seeds_min_episode: 99.0,
    seeds_yintercept: 1.0,
    seeds_label: "average accuracy",
};

/// `mnist` in the analysis table.
pub(crate) static ANALYSIS: super::ExperimentAnalysis = super::ExperimentAnalysis {
    experiment: &EXPERIMENT,
    score: score_runs,
    figures,
};
