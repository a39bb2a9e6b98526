//! `deep_sea`: scoring and plots.

use bsuite_envs::experiments::deep_sea::EXPERIMENT;
use bsuite_logging::results::RunTable;

use crate::figure_parts::{
    axis, by_setting, dashed, figure, group_label, point, rate, seeds, ExperimentData, GroupKey,
    SeedsSpec,
};
use crate::helpers::{column, group_by_setting, only};
use crate::numeric;
use crate::plot::{
    AxisScale, Figure, FigureKind, Mark, Panel, PlotPoint, Series, Shape, BAD_COLOUR, FIVE_COLOURS,
    GOOD_COLOUR,
};
use crate::score::{Score, Undefined};

/// Episodes per run.
pub const NUM_EPISODES: u64 = bsuite_envs::experiments::deep_sea::NUM_EPISODES as u64;

/// A size counts as solved once the running fraction of "bad" episodes (episodes that did
/// not end at the treasure) drops below this.
pub const THRESHOLD: f64 = 0.9;

/// Episodes of slack on top of 2^size when comparing with dithering exploration.
pub const FORGIVENESS: f64 = 100.0;

/// When one problem size was solved, if it was (the reference's `find_solution` row).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Solution {
    /// The grid size N.
    pub size: f64,
    /// The first episode whose running fraction of bad episodes is below the threshold, or,
    /// if there is none, the furthest episode logged.
    pub episode: f64,
    /// The threshold was reached.
    pub solved: bool,
    /// The size was solved, or its runs reached `num_episodes`.
    pub finished: bool,
    /// Logged rows at (size, episode): the weight of this size in the score, as the
    /// reference's merge back onto the rows gives it (1 for a well-formed run).
    pub rows: usize,
}

impl Solution {
    /// Solved faster than dithering exploration would: before episode `2^size + 100`.
    pub fn beats_dithering(&self) -> bool {
        self.solved && self.episode < 2f64.powf(self.size) + FORGIVENESS
    }
}

/// The reference's `find_solution`: per size, the first episode (up to `num_episodes`) at
/// which the running fraction of bad episodes `total_bad_episodes / episode` falls below
/// `threshold`. Rows before `first_episode` are ignored (deep_sea_stochastic uses 100).
///
/// The reference builds its table with `Series.append`, which pandas 2 removed (quirk 20 in
/// docs/quirks.md); this is the intended concatenation of solved and unsolved sizes, sorted by size.
pub fn find_solution(
    runs: &[&RunTable],
    threshold: f64,
    first_episode: f64,
    num_episodes: u64,
) -> Vec<Solution> {
    let last = num_episodes as f64;
    let mut out = Vec::new();
    for (size, group) in group_by_setting(runs, "size") {
        let mut first_good: Option<f64> = None;
        let mut furthest: Option<f64> = None;
        for run in &group {
            let bad = column(run, "total_bad_episodes");
            for (row, &episode) in run.episodes().iter().enumerate() {
                if episode < first_episode || episode > last {
                    continue;
                }
                furthest = Some(furthest.map_or(episode, |f: f64| f.max(episode)));
                if bad[row] / episode < threshold {
                    first_good = Some(first_good.map_or(episode, |f: f64| f.min(episode)));
                }
            }
        }
        let Some(furthest) = furthest else {
            continue;
        };
        let solved = first_good.is_some();
        let episode = first_good.unwrap_or(furthest);
        let rows = group
            .iter()
            .flat_map(|r| r.episodes())
            .filter(|&&e| e == episode)
            .count();
        out.push(Solution {
            size,
            episode,
            solved,
            finished: solved || furthest >= last,
            rows,
        });
    }
    out
}

/// The fraction of sizes solved faster than dithering exploration could, weighted as the
/// reference weights them; NaN when no size has rows.
pub(crate) fn score_solutions(solutions: &[Solution]) -> f64 {
    let flags: Vec<f64> = solutions
        .iter()
        .flat_map(|s| std::iter::repeat(if s.beats_dithering() { 1.0 } else { 0.0 }).take(s.rows))
        .collect();
    numeric::mean(&flags)
}

/// The fraction of problem sizes solved faster than dithering exploration could.
///
/// Deep sea is an N×N grid where only a sequence of N costly "right" moves reaches the
/// treasure, so an agent that explores by dithering (e.g. ε-greedy) needs about 2^N episodes
/// to find it. A size counts as solved at the first logged episode where fewer than 90% of
/// the episodes so far were "bad" (missed the treasure); it scores 1 if that happened
/// within the first 10,000 episodes and before episode 2^N + 100, else 0. The score is the
/// mean over the sizes present (10, 12, ..., 50). Runs of other experiments are ignored.
pub fn score(runs: &[&RunTable]) -> Score {
    score_runs(&only(runs, &EXPERIMENT))
}

pub(crate) fn score_runs(runs: &[&RunTable]) -> Score {
    let solutions = find_solution(runs, THRESHOLD, f64::NEG_INFINITY, NUM_EPISODES);
    Score::from_f64(score_solutions(&solutions), Undefined::NoRowsToScore)
}

/// deep_sea's plots given its `find_solution`, threshold and seeds reference line (shared
/// with deep_sea_stochastic).
pub(crate) fn figures_with(
    data: &ExperimentData,
    solutions: &dyn Fn(&[&RunTable]) -> Vec<Solution>,
    threshold: f64,
    seeds_yintercept: f64,
    seeds_label: &str,
) -> Vec<Figure> {
    let key = by_setting("size");
    let seeds = seeds(
        data,
        &SeedsSpec {
            value: &|run, row, prev| rate(run, "denoised_return", row, prev),
            min_episode: 0.01 * NUM_EPISODES as f64,
            colour_by: Some(GroupKey::setting("size", &key, data)),
            yintercept: Some(seeds_yintercept),
            y_label: seeds_label,
        },
    );
    vec![
        deep_sea_scaling(data, solutions, false, threshold),
        deep_sea_scaling(data, solutions, true, threshold),
        deep_sea_regret(data),
        seeds,
    ]
}

/// The notebook's plots of deep_sea: episodes to solve against size (linear and log-log,
/// with the 2^N baseline), the fraction of bad episodes through time, and per-run returns.
pub fn figures(data: &ExperimentData) -> Vec<Figure> {
    let solutions =
        |runs: &[&RunTable]| find_solution(runs, THRESHOLD, f64::NEG_INFINITY, NUM_EPISODES);
    figures_with(data, &solutions, THRESHOLD, 0.99, "average episodic return")
}

/// deep_sea's `plot_scaling` (or `plot_scaling_log`): the episode each size was solved at
/// (or the furthest episode, unsolved) against size, with the dashed 2^N baseline.
pub(crate) fn deep_sea_scaling(
    data: &ExperimentData,
    solutions: &dyn Fn(&[&RunTable]) -> Vec<Solution>,
    log: bool,
    threshold: f64,
) -> Figure {
    let kind = if log {
        FigureKind::ScalingLog
    } else {
        FigureKind::Scaling
    };
    let percent = (threshold * 100.0).round();
    let (x_label, y_label) = if log {
        (
            "deep sea problem size (log scale)".to_string(),
            format!("#episodes until < {percent}% bad episodes (log scale)"),
        )
    } else {
        (
            "deep sea problem size".to_string(),
            format!("#episodes until < {percent}% bad episodes"),
        )
    };
    let mut x = axis(x_label);
    let mut y = axis(y_label);
    let per_agent: Vec<_> = data
        .panels
        .iter()
        .map(|(agent, runs)| (agent, solutions(runs)))
        .collect();
    let any_unfinished = per_agent.iter().flat_map(|p| &p.1).any(|s| !s.finished);
    let max_episode = per_agent
        .iter()
        .flat_map(|p| &p.1)
        .map(|s| s.episode)
        .fold(0.0, f64::max);
    if log {
        x.scale = AxisScale::Log10;
        y.scale = AxisScale::Log10;
        x.breaks = Some(vec![5.0, 10.0, 20.0, 50.0]);
        y.breaks = Some(vec![100.0, 300.0, 1000.0, 3000.0, 10000.0, 30000.0]);
    } else {
        y.limits = Some((0.0, data.num_episodes().min(max_episode)));
    }
    let mut fig = figure(data, kind, x, y, false);
    fig.legend = Some("solved".to_string());
    for (agent, sols) in per_agent {
        let mut series = Vec::new();
        for (solved, colour) in [(false, BAD_COLOUR), (true, GOOD_COLOUR)] {
            for finished in [true, false] {
                let pts: Vec<PlotPoint> = sols
                    .iter()
                    .filter(|s| s.solved == solved && s.finished == finished)
                    .map(|s| point(s.size, s.episode))
                    .collect();
                if pts.is_empty() {
                    continue;
                }
                let shape = if finished || !any_unfinished {
                    Shape::Circle
                } else {
                    Shape::Cross
                };
                let mut label = if solved { "solved" } else { "unsolved" }.to_string();
                if any_unfinished {
                    label.push_str(if finished {
                        ", finished"
                    } else {
                        ", unfinished"
                    });
                }
                series.push(Series {
                    label,
                    colour,
                    mark: Mark::Points {
                        size: 3.0,
                        alpha: 0.75,
                        shape,
                    },
                    points: pts,
                });
            }
        }
        series.push(Series {
            label: "2^N".to_string(),
            colour: "#000000",
            mark: Mark::Line {
                width: 1.5,
                alpha: 0.4,
                dashed: true,
            },
            points: (5..20).map(|n| point(n as f64, 2f64.powi(n))).collect(),
        });
        fig.panels.push(Panel {
            agent: agent.to_string(),
            series,
        });
    }
    fig
}

/// deep_sea's `plot_regret`: the running fraction of bad episodes for sizes 10, 20, ..., 50.
pub(crate) fn deep_sea_regret(data: &ExperimentData) -> Figure {
    let mut y = axis("average bad episodes");
    y.include.push(0.0);
    let mut fig = figure(data, FigureKind::Regret, axis("episode"), y, false);
    fig.legend = Some("size".to_string());
    fig.hlines.push(dashed(0.99));
    let sizes = [10.0, 20.0, 30.0, 40.0, 50.0];
    for (agent, runs) in &data.panels {
        let mut series = Vec::new();
        for (value, group) in group_by_setting(runs, "size") {
            let Some(k) = sizes.iter().position(|s| *s == value) else {
                continue;
            };
            let mut pts = Vec::new();
            for run in &group {
                let bad = column(run, "total_bad_episodes");
                for (row, &e) in run.episodes().iter().enumerate() {
                    if e <= data.num_episodes() {
                        pts.push(point(e, bad[row] / e));
                    }
                }
            }
            pts.sort_by(|a, b| a.x.total_cmp(&b.x));
            series.push(Series {
                label: group_label(value, true),
                colour: FIVE_COLOURS[k],
                mark: Mark::Line {
                    width: 2.0,
                    alpha: 0.75,
                    dashed: false,
                },
                points: pts,
            });
        }
        fig.panels.push(Panel {
            agent: agent.to_string(),
            series,
        });
    }
    fig
}

/// `deep_sea` in the analysis table.
pub(crate) static ANALYSIS: super::ExperimentAnalysis = super::ExperimentAnalysis {
    experiment: &EXPERIMENT,
    score: score_runs,
    figures,
};
