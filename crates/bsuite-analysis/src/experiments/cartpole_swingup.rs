//! `cartpole_swingup`: scoring and plots.

use bsuite_envs::experiments::cartpole_swingup::EXPERIMENT;
use bsuite_logging::results::RunTable;

use crate::experiments::cartpole::fraction_with_good_episode;
use crate::figure_parts::{
    axis, by_setting, figure, pass_fail_points, rate, regret_learning, seeds, ExperimentData,
    GroupKey, Grouping, SeedsSpec,
};
use crate::helpers::{ave_regret_score, column, group_by_setting, only, setting};
use crate::numeric;
use crate::plot::{Figure, FigureKind, Panel};
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
    score_runs(&only(runs, &EXPERIMENT))
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

/// cartpole_swingup's `plot_scale`: the best episode return in the first 1000 episodes per
/// height threshold, coloured by whether it exceeds 100.
pub(crate) fn swingup_scale(data: &ExperimentData, good: f64) -> Figure {
    let thresholds: Vec<f64> = {
        let mut v: Vec<f64> = data
            .panels
            .iter()
            .flat_map(|p| p.1.iter().filter_map(|r| setting(r, "height_threshold")))
            .collect();
        v.sort_by(f64::total_cmp);
        v.dedup();
        v
    };
    let mut x = axis("height threshold");
    x.categories = Some(
        thresholds
            .iter()
            .map(|&t| bsuite_logging::pyfmt::float_repr(t))
            .collect(),
    );
    x.breaks = Some(
        [0.0, 0.25, 0.5, 0.75, 1.0]
            .iter()
            .filter_map(|b| thresholds.iter().position(|t| t == b).map(|k| k as f64))
            .collect(),
    );
    let mut y = axis(format!(
        "best return in first {} episodes",
        data.num_episodes()
    ));
    y.include.push(0.0);
    let mut fig = figure(data, FigureKind::Scale, x, y, false);
    fig.legend = Some(format!("best_episode > {good}"));
    for (agent, runs) in &data.panels {
        let mut best_by_threshold = Vec::new();
        for (value, group) in group_by_setting(runs, "height_threshold") {
            let best = group
                .iter()
                .flat_map(|r| {
                    column(r, "best_episode")
                        .iter()
                        .zip(r.episodes())
                        .filter(|(_, &e)| e <= data.num_episodes())
                        .map(|(&b, _)| b)
                })
                .reduce(f64::max);
            if let (Some(best), Some(k)) = (best, thresholds.iter().position(|t| *t == value)) {
                best_by_threshold.push((k as f64, best));
            }
        }
        let series = pass_fail_points(&best_by_threshold, |b| b > good);
        fig.panels.push(Panel {
            agent: agent.to_string(),
            series,
        });
    }
    fig
}

/// `cartpole_swingup` in the analysis table.
pub(crate) static ANALYSIS: super::ExperimentAnalysis = super::ExperimentAnalysis {
    experiment: &EXPERIMENT,
    score: score_runs,
    figures,
};
