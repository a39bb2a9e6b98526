//! Builds the [`Figure`]s of the reference notebook's standard plots from agents' runs, and
//! the suite-level [`RadarChart`] and [`BarChart`].
//!
//! [`experiment_figures`] gives an experiment's plots in the notebook's order; each
//! experiment module says which plots it has (`experiments::<name>::figures`). The builders
//! here are the reference's `plotting.py` helpers.
//!
//! One deliberate difference: the per-run "seeds" plots take differences between
//! consecutive log points *within* a run. The reference differences the whole frame, so the
//! first point of every run but the first compares against another run's last row.

use std::collections::BTreeSet;

use bsuite_envs::{Experiment, Tag};
use bsuite_logging::results::RunTable;

use crate::experiments;
use crate::helpers::{column, group_by_setting, setting};
use crate::numeric;
use crate::plot::{
    Axis, AxisScale, Bar, BarChart, Figure, FigureKind, HLine, Mark, Panel, PlotPoint, RadarAgent,
    RadarChart, Series, Shape, BAD_COLOUR, CATEGORICAL_COLOURS, FIVE_COLOURS, GOOD_COLOUR,
    ORDERED_EXPERIMENTS, RADAR_TAGS, SINGLE_COLOUR,
};
use crate::smoothers;
use crate::summary::{Agent, Summary};

/// The standard plots of `experiment` for the given agents, in the notebook's order; one
/// panel per agent with data. An experiment no agent has data for gives no figures.
pub fn experiment_figures(agents: &[Agent], experiment: &'static Experiment) -> Vec<Figure> {
    let data = ExperimentData::new(agents, experiment);
    if data.panels.is_empty() {
        return Vec::new();
    }
    experiments::figures(&data)
}

/// The standard plots of every experiment with data, in [`ORDERED_EXPERIMENTS`] order.
pub fn all_figures(agents: &[Agent]) -> Vec<Figure> {
    ORDERED_EXPERIMENTS
        .iter()
        .filter_map(|name| bsuite_envs::experiment(name))
        .flat_map(|e| experiment_figures(agents, e))
        .collect()
}

/// The runs of one experiment, per agent with data.
pub struct ExperimentData<'a> {
    /// The experiment.
    pub experiment: &'static Experiment,
    /// `(agent name, runs)` for each agent with runs of the experiment.
    pub panels: Vec<(&'a str, Vec<&'a RunTable>)>,
}

impl<'a> ExperimentData<'a> {
    /// Collects the experiment's runs of each agent.
    pub fn new(agents: &'a [Agent], experiment: &'static Experiment) -> ExperimentData<'a> {
        let panels = agents
            .iter()
            .map(|a| (a.name.as_str(), a.runs_of(experiment.name)))
            .filter(|(_, runs)| !runs.is_empty())
            .collect();
        ExperimentData { experiment, panels }
    }

    fn name(&self) -> &'static str {
        self.experiment.name
    }

    fn num_episodes(&self) -> f64 {
        self.experiment.num_episodes as f64
    }
}

/// A per-row quantity of a run: `f(run, row)`.
pub(crate) type RowFn<'f> = &'f dyn Fn(&RunTable, usize) -> f64;

/// The reference's `facet_sweep_plot` sizes for `n` agents (`tall` multiplies the height by
/// 1.25).
pub fn facet_size(n: usize, tall: bool) -> (f64, f64) {
    let (w, h) = match n {
        0 | 1 => (7.0, 5.0),
        2 => (13.0, 5.0),
        4 => (13.0, 8.0),
        n if n <= 12 => (15.0, 4.0 * n as f64 / 3.0 + 1.0),
        _ => (15.0, 12.0),
    };
    (w, if tall { h * 1.25 } else { h })
}

/// A dashed reference line as the experiment plots draw them (alpha 0.4, width 1.75).
pub(crate) fn dashed(y: f64) -> HLine {
    HLine {
        y,
        colour: "#000000",
        width: 1.75,
        alpha: 0.4,
        dashed: true,
    }
}

fn axis(label: impl Into<String>) -> Axis {
    Axis {
        label: label.into(),
        scale: AxisScale::Linear,
        limits: None,
        breaks: None,
        categories: None,
        include: Vec::new(),
    }
}

fn figure(data: &ExperimentData, kind: FigureKind, x: Axis, y: Axis, tall: bool) -> Figure {
    let suffix = match kind {
        FigureKind::Learning => "learning",
        FigureKind::Average => "average",
        FigureKind::Scale => "scale",
        FigureKind::Scaling => "scaling",
        FigureKind::ScalingLog => "scaling_log",
        FigureKind::Regret => "regret",
        FigureKind::Seeds => "seeds",
    };
    Figure {
        name: format!("{}_{suffix}", data.name()),
        experiment: data.name(),
        kind,
        title: format!("{} {}", data.name(), suffix.replace('_', " ")),
        x,
        y,
        panels: Vec::new(),
        hlines: Vec::new(),
        legend: None,
        size: facet_size(data.panels.len(), tall),
        note: None,
    }
}

/// Formats a group value as pandas prints it in a legend (`0.1`, `10`, `1000.0`).
pub(crate) fn group_label(value: f64, integral: bool) -> String {
    if integral {
        format!("{}", value as i64)
    } else {
        bsuite_logging::pyfmt::float_repr(value)
    }
}

fn setting_is_int(runs: &[&RunTable], key: &str) -> bool {
    runs.first().is_some_and(|r| {
        r.settings()
            .iter()
            .any(|(k, v)| *k == key && matches!(v, bsuite_envs::SettingValue::Int(_)))
    })
}

/// The continuous colour scale ggplot uses for a numeric colour (dark to light blue).
const GRADIENT: [&str; 16] = [
    "#132b43", "#17344f", "#1c3d5b", "#204667", "#254f73", "#29587f", "#2e618b", "#326a97",
    "#3772a3", "#3b7baf", "#4084bb", "#448dc7", "#4996d3", "#4d9fdf", "#52a8eb", "#56b1f7",
];

/// Colours for sorted group values: the five-colour palette for up to five groups (a
/// categorical scale), else ggplot's continuous gradient by value.
fn group_colours(values: &[f64], categorical: bool) -> Vec<&'static str> {
    if categorical || values.len() <= 5 {
        return (0..values.len()).map(|k| FIVE_COLOURS[k % 5]).collect();
    }
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    values
        .iter()
        .map(|v| {
            let t = if hi > lo { (v - lo) / (hi - lo) } else { 0.0 };
            GRADIENT[((t * (GRADIENT.len() - 1) as f64).round() as usize).min(GRADIENT.len() - 1)]
        })
        .collect()
}

/// A grouping of runs: a legend title and a numeric key per run.
pub(crate) struct GroupKey<'f> {
    /// Legend title, e.g. "noise scale".
    pub title: String,
    /// The group value of a run (`None`: the run is left out).
    pub key: &'f dyn Fn(&RunTable) -> Option<f64>,
    /// Whether values are integers (legend labels `10` rather than `10.0`).
    pub integral: bool,
}

impl GroupKey<'_> {
    /// Group by the sweep setting `name`; the title is the name with spaces.
    pub(crate) fn setting<'f>(
        name: &'f str,
        key: &'f dyn Fn(&RunTable) -> Option<f64>,
        data: &ExperimentData,
    ) -> GroupKey<'f> {
        let runs: Vec<&RunTable> = data
            .panels
            .iter()
            .flat_map(|p| p.1.iter().copied())
            .collect();
        GroupKey {
            title: name.replace('_', " "),
            key,
            integral: setting_is_int(&runs, name),
        }
    }
}

/// How the learning curves of [`regret_learning`] are grouped.
pub(crate) enum Grouping<'f> {
    /// One smoothed curve over all runs.
    None,
    /// One smoothed curve per group (`plot_regret_learning` with a group column).
    Smoothed(GroupKey<'f>),
    /// One raw line per group (`plot_regret_group_nosmooth`).
    Raw(GroupKey<'f>),
}

/// `plot_regret_learning` / `plot_regret_group_nosmooth`: `regret / episode` against episode
/// up to `max_episode`, smoothed with the reference smoother or raw, per group.
pub(crate) fn regret_learning(
    data: &ExperimentData,
    grouping: Grouping,
    regret: RowFn,
    y_label: &str,
) -> Figure {
    let max_episode = data.num_episodes();
    let mut x = axis("episode");
    x.limits = Some((0.0, max_episode));
    let mut y = axis(y_label);
    y.include.push(0.0);
    let mut fig = figure(data, FigureKind::Learning, x, y, true);
    // Colours are assigned from the group values of every agent together, as ggplot does
    // over the whole frame, so one group has one colour in every panel.
    let all_values: Vec<f64> = match &grouping {
        Grouping::None => Vec::new(),
        Grouping::Smoothed(group) | Grouping::Raw(group) => {
            let all_runs: Vec<&RunTable> = data
                .panels
                .iter()
                .flat_map(|p| p.1.iter().copied())
                .collect();
            group_runs(&all_runs, group.key)
                .iter()
                .map(|g| g.0)
                .collect()
        }
    };
    let all_colours = group_colours(&all_values, matches!(grouping, Grouping::Smoothed(_)));
    for (agent, runs) in &data.panels {
        let points_of = |runs: &[&RunTable]| -> Vec<(f64, f64)> {
            let mut pts = Vec::new();
            for run in runs {
                for (row, &e) in run.episodes().iter().enumerate() {
                    if e <= max_episode {
                        pts.push((e, regret(run, row) / e));
                    }
                }
            }
            pts
        };
        let mut series = Vec::new();
        match &grouping {
            Grouping::None => series.push(smoothed("", SINGLE_COLOUR, &points_of(runs))),
            Grouping::Smoothed(group) | Grouping::Raw(group) => {
                let smooth = matches!(grouping, Grouping::Smoothed(_));
                fig.legend = Some(group.title.clone());
                let groups = group_runs(runs, group.key);
                for (value, members) in &groups {
                    let k = all_values.iter().position(|v| v == value).unwrap_or(0);
                    let colour = all_colours[k];
                    let label = group_label(*value, group.integral);
                    let mut pts = points_of(members);
                    if smooth {
                        series.push(smoothed(&label, colour, &pts));
                    } else {
                        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                        series.push(Series {
                            label,
                            colour,
                            mark: Mark::Line {
                                width: 2.0,
                                alpha: 0.75,
                                dashed: false,
                            },
                            points: pts.iter().map(|&(x, y)| point(x, y)).collect(),
                        });
                    }
                }
            }
        }
        fig.panels.push(Panel {
            agent: agent.to_string(),
            series,
        });
    }
    fig
}

/// Points coloured by whether `passes(y)`: a "False" series in red and a "True" series in
/// blue (each left out when empty), as the reference's threshold plots draw them.
fn pass_fail_points(points: &[(f64, f64)], passes: impl Fn(f64) -> bool) -> Vec<Series> {
    [("False", BAD_COLOUR, false), ("True", GOOD_COLOUR, true)]
        .into_iter()
        .filter_map(|(label, colour, wanted)| {
            let pts: Vec<PlotPoint> = points
                .iter()
                .filter(|&&(_, y)| passes(y) == wanted)
                .map(|&(x, y)| point(x, y))
                .collect();
            (!pts.is_empty()).then(|| Series {
                label: label.to_string(),
                colour,
                mark: Mark::Points {
                    size: 5.0,
                    alpha: 0.8,
                    shape: Shape::Circle,
                },
                points: pts,
            })
        })
        .collect()
}

fn point(x: f64, y: f64) -> PlotPoint {
    PlotPoint { x, y, band: None }
}

fn smoothed(label: &str, colour: &'static str, points: &[(f64, f64)]) -> Series {
    Series {
        label: label.to_string(),
        colour,
        mark: Mark::Smooth {
            width: 1.75,
            ribbon_alpha: 0.1,
        },
        points: smoothers::mean(points, smoothers::SPAN)
            .into_iter()
            .map(|p| PlotPoint {
                x: p.x,
                y: p.y,
                band: (!p.stderr.is_nan()).then_some((p.ymin, p.ymax)),
            })
            .collect(),
    }
}

/// Runs grouped by a key, sorted by key, runs without a key dropped.
fn group_runs<'r>(
    runs: &[&'r RunTable],
    key: &dyn Fn(&RunTable) -> Option<f64>,
) -> Vec<(f64, Vec<&'r RunTable>)> {
    let mut groups: Vec<(f64, Vec<&'r RunTable>)> = Vec::new();
    for run in runs {
        let Some(k) = key(run) else { continue };
        match groups.iter_mut().find(|(v, _)| *v == k) {
            Some((_, g)) => g.push(run),
            None => groups.push((k, vec![run])),
        }
    }
    groups.sort_by(|a, b| a.0.total_cmp(&b.0));
    groups
}

/// The group key "value of sweep setting `name`".
pub(crate) fn by_setting(name: &str) -> impl Fn(&RunTable) -> Option<f64> + '_ {
    move |run| setting(run, name)
}

/// Mean `regret / episode` at exactly `episode` per group value, as
/// `_preprocess_ave_regret` computes it; `None` when no row sits at that episode.
fn average_regret_by_group(
    runs: &[&RunTable],
    key: &dyn Fn(&RunTable) -> Option<f64>,
    episode: f64,
    regret: RowFn,
) -> Option<Vec<(f64, f64)>> {
    let mut out = Vec::new();
    for (value, group) in group_runs(runs, key) {
        let at: Vec<f64> = group
            .iter()
            .flat_map(|run| {
                run.episodes()
                    .iter()
                    .enumerate()
                    .filter(move |(_, &e)| e == episode)
                    .map(move |(row, _)| regret(run, row))
            })
            .collect();
        if !at.is_empty() {
            out.push((value, numeric::mean(&at) / episode));
        }
    }
    (!out.is_empty()).then_some(out)
}

fn not_run_note(episode: f64) -> String {
    format!("Your experiment has not yet run the necessary {episode} episodes")
}

/// `plot_regret_average`: a bar per group of the average regret after the experiment's
/// episodes.
pub(crate) fn regret_average(
    data: &ExperimentData,
    group: &GroupKey,
    regret: RowFn,
    hline: f64,
) -> Figure {
    let episode = data.num_episodes();
    let title = group.title.clone();
    let integral = group.integral;
    let mut categories = BTreeSet::new();
    let mut per_agent = Vec::new();
    for (agent, runs) in &data.panels {
        let bars = average_regret_by_group(runs, group.key, episode, regret);
        for (v, _) in bars.iter().flatten() {
            categories.insert(v.to_bits());
        }
        per_agent.push((agent, bars));
    }
    let values: Vec<f64> = {
        let mut v: Vec<f64> = categories.into_iter().map(f64::from_bits).collect();
        v.sort_by(f64::total_cmp);
        v
    };
    let mut x = axis(title.clone());
    x.categories = Some(values.iter().map(|&v| group_label(v, integral)).collect());
    let mut y = axis(format!("average regret after {episode} episodes"));
    y.include.push(0.0);
    let mut fig = figure(data, FigureKind::Average, x, y, false);
    fig.legend = Some(title);
    fig.hlines.push(dashed(hline));
    for (agent, bars) in per_agent {
        let mut series = Vec::new();
        match bars {
            Some(bars) => {
                for (value, average) in bars {
                    let k = values.iter().position(|v| *v == value).unwrap_or(0);
                    series.push(Series {
                        label: group_label(value, integral),
                        colour: FIVE_COLOURS[k % 5],
                        mark: Mark::Bars { alpha: 1.0 },
                        points: vec![point(k as f64, average)],
                    });
                }
            }
            None => fig.note = Some(format!("{agent}: {}", not_run_note(episode))),
        }
        fig.panels.push(Panel {
            agent: agent.to_string(),
            series,
        });
    }
    fig
}

/// `plot_regret_ave_scaling`: per group value (log x), the average regret after the
/// experiment's episodes, coloured by whether it is below `threshold`.
pub(crate) fn regret_ave_scaling(
    data: &ExperimentData,
    group: &GroupKey,
    regret: RowFn,
    threshold: f64,
    y_label: &str,
) -> Figure {
    let episode = data.num_episodes();
    let mut x = axis(group.title.clone());
    x.scale = AxisScale::Log10;
    x.breaks = Some(vec![1.0, 3.0, 10.0, 30.0, 100.0]);
    let mut y = axis(y_label);
    y.include.push(0.0);
    let mut fig = figure(data, FigureKind::Scale, x, y, false);
    fig.legend = Some(format!("average_regret < {threshold}"));
    for (agent, runs) in &data.panels {
        let mut series = Vec::new();
        match average_regret_by_group(runs, group.key, episode, regret) {
            Some(points) => series = pass_fail_points(&points, |v| v < threshold),
            None => fig.note = Some(format!("{agent}: {}", not_run_note(episode))),
        }
        fig.panels.push(Panel {
            agent: agent.to_string(),
            series,
        });
    }
    fig
}

/// What a seeds plot draws per run.
pub(crate) struct SeedsSpec<'f> {
    /// Per-row value from the row and the previous row of the same run:
    /// `f(run, row, previous_row)`.
    pub value: &'f dyn Fn(&RunTable, usize, usize) -> f64,
    /// Only rows with `episode > min_episode` are drawn (after differencing).
    pub min_episode: f64,
    /// Colour runs by this grouping (`None`: one colour).
    pub colour_by: Option<GroupKey<'f>>,
    /// Dashed line at this height (skipped at 0, as the reference skips a falsy value).
    pub yintercept: Option<f64>,
    /// Y axis label.
    pub y_label: &'f str,
}

/// `plot_individual_returns`: one line per run of a per-episode quantity between
/// consecutive log points.
pub(crate) fn seeds(data: &ExperimentData, spec: &SeedsSpec) -> Figure {
    let max_episode = data.num_episodes();
    let mut x = axis("episode");
    x.limits = Some((0.0, max_episode));
    let mut fig = figure(data, FigureKind::Seeds, x, axis(spec.y_label), true);
    if let Some(y) = spec.yintercept.filter(|y| *y != 0.0) {
        fig.hlines.push(HLine {
            y,
            colour: "#000000",
            width: 2.0,
            alpha: 0.5,
            dashed: true,
        });
    }
    let all_runs: Vec<&RunTable> = data
        .panels
        .iter()
        .flat_map(|p| p.1.iter().copied())
        .collect();
    let colour_values: Vec<f64> = match &spec.colour_by {
        Some(group) => {
            let mut v: Vec<f64> = all_runs.iter().filter_map(|r| (group.key)(r)).collect();
            v.sort_by(f64::total_cmp);
            v.dedup();
            v
        }
        None => Vec::new(),
    };
    let colours = group_colours(&colour_values, false);
    if let Some(group) = &spec.colour_by {
        fig.legend = Some(group.title.clone());
    }
    for (agent, runs) in &data.panels {
        let mut series = Vec::new();
        for run in runs {
            let value = spec
                .colour_by
                .as_ref()
                .and_then(|g| Some(((g.key)(run)?, g.integral)));
            let (label, colour) = match value {
                Some((v, integral)) => {
                    let k = colour_values.iter().position(|c| *c == v).unwrap_or(0);
                    (group_label(v, integral), colours[k])
                }
                None => (run.id().to_string(), SINGLE_COLOUR),
            };
            let episodes = run.episodes();
            let points: Vec<PlotPoint> = (1..episodes.len())
                .filter(|&row| episodes[row] > spec.min_episode && episodes[row] <= max_episode)
                .map(|row| point(episodes[row], (spec.value)(run, row, row - 1)))
                .filter(|p| p.y.is_finite())
                .collect();
            series.push(Series {
                label,
                colour,
                mark: Mark::Line {
                    width: 1.1,
                    alpha: 0.75,
                    dashed: false,
                },
                points,
            });
        }
        fig.panels.push(Panel {
            agent: agent.to_string(),
            series,
        });
    }
    fig
}

/// `Δcolumn / Δepisode` between two rows of a run.
pub(crate) fn rate(run: &RunTable, name: &str, row: usize, previous: usize) -> f64 {
    let values = column(run, name);
    let episodes = run.episodes();
    (values[row] - values[previous]) / (episodes[row] - episodes[previous])
}

/// deep_sea's `plot_scaling` (or `plot_scaling_log`): the episode each size was solved at
/// (or the furthest episode, unsolved) against size, with the dashed 2^N baseline.
pub(crate) fn deep_sea_scaling(
    data: &ExperimentData,
    solutions: &dyn Fn(&[&RunTable]) -> Vec<experiments::deep_sea::Solution>,
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

/// The radar summary of one or more agents' tag scores (`bsuite_radar_plot`).
///
/// The reference computes each tag's mean with `groupby('tag').mean()`, which pandas 2
/// refuses on its string columns (SPEC quirk 21); this is the intended mean score per tag.
pub fn radar_chart(summaries: &[Summary]) -> RadarChart {
    let n = RADAR_TAGS.len();
    let agents = summaries
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let scores: Vec<Option<f64>> = RADAR_TAGS
                .iter()
                .map(|&t| s.tag(t).and_then(|t| t.score.value()))
                .collect();
            RadarAgent {
                label: if summaries.len() == 1 {
                    String::new()
                } else {
                    s.agent.clone()
                },
                colour: CATEGORICAL_COLOURS[k % CATEGORICAL_COLOURS.len()],
                radii: scores.iter().map(|s| s.unwrap_or(0.0).max(0.05)).collect(),
                scores,
            }
        })
        .collect();
    RadarChart {
        tags: RADAR_TAGS.to_vec(),
        labels: RADAR_TAGS
            .iter()
            .map(|&t| crate::plot::tag_label(t))
            .collect(),
        angles: (0..n)
            .map(|k| k as f64 * 2.0 * std::f64::consts::PI / n as f64)
            .collect(),
        agents,
        legend: (summaries.len() > 1).then(|| "agent".to_string()),
        size: (8.0, 8.0),
    }
}

/// The bar summary of one or more agents' experiment scores (`bsuite_bar_plot`).
pub fn bar_chart(summaries: &[Summary]) -> BarChart {
    let mut bars = Vec::new();
    let mut experiments = Vec::new();
    for name in ORDERED_EXPERIMENTS {
        let mut any = false;
        for (k, s) in summaries.iter().enumerate() {
            if let Some(e) = s.experiment(name) {
                any = true;
                let kind: Tag = e.experiment.kind();
                bars.push(Bar {
                    agent: k,
                    experiment: e.experiment.name,
                    kind,
                    type_colour: crate::plot::type_colour(kind),
                    agent_colour: CATEGORICAL_COLOURS[k % CATEGORICAL_COLOURS.len()],
                    score: e.score.value(),
                    finished: e.progress.finished(),
                    alpha: 1.0,
                });
            }
        }
        if any {
            experiments.push(name);
        }
    }
    let any_unfinished = bars.iter().any(|b| !b.finished);
    if any_unfinished {
        for bar in bars.iter_mut().filter(|b| !b.finished) {
            bar.alpha = 0.3;
        }
    }
    BarChart {
        agents: summaries.iter().map(|s| s.agent.clone()).collect(),
        experiments,
        bars,
        any_unfinished,
        size: (14.0, 3.0 * summaries.len().max(1) as f64 + 1.0),
    }
}

/// What the experiments scored by average regret (bandit, catch, mnist, mountain_car,
/// cartpole and their noise and scale variants) plot.
pub(crate) struct RegretFamily<'f> {
    /// Cumulative regret of a row.
    pub regret: RowFn<'f>,
    /// The dashed reference line of the learning and average plots.
    pub base_regret: f64,
    /// The bandit's fixed 0..1 y axis with 0.1 breaks.
    pub bandit_format: bool,
    /// The per-run quantity of the seeds plot from a row and the previous row.
    pub seeds_value: &'f dyn Fn(&RunTable, usize, usize) -> f64,
    /// Seeds plot rows: `episode > seeds_min_episode`.
    pub seeds_min_episode: f64,
    /// The seeds plot's dashed line.
    pub seeds_yintercept: f64,
    /// The seeds plot's y label.
    pub seeds_label: &'f str,
}

/// The notebook's plots of a regret-scored experiment: learning and seeds for a base
/// experiment; average, grouped learning and coloured seeds for a noise (`noise_scale`) or
/// scale (`reward_scale`) variant.
pub(crate) fn regret_family_figures(
    data: &ExperimentData,
    family: &RegretFamily,
    scaling_var: Option<&str>,
) -> Vec<Figure> {
    let y_label = "average regret per timestep";
    let bandit = |fig: &mut Figure| {
        if family.bandit_format {
            fig.y.breaks = Some((0..=10).map(|k| k as f64 / 10.0).collect());
            fig.y.limits = Some((0.0, 1.0));
        }
        fig.hlines.push(dashed(family.base_regret));
    };
    let seeds_spec = |colour_by: Option<GroupKey<'_>>, label: &str| -> Figure {
        seeds(
            data,
            &SeedsSpec {
                value: family.seeds_value,
                min_episode: family.seeds_min_episode,
                colour_by,
                yintercept: Some(family.seeds_yintercept),
                y_label: label,
            },
        )
    };
    match scaling_var {
        None => {
            let mut learning = regret_learning(data, Grouping::None, family.regret, y_label);
            bandit(&mut learning);
            vec![learning, seeds_spec(None, family.seeds_label)]
        }
        Some(var) => {
            let key = by_setting(var);
            let mut average = regret_average(
                data,
                &GroupKey::setting(var, &key, data),
                family.regret,
                family.base_regret,
            );
            if family.bandit_format {
                average.y.breaks = Some((0..=10).map(|k| k as f64 / 10.0).collect());
                average.y.limits = Some((0.0, 1.0));
            }
            let mut learning = regret_learning(
                data,
                Grouping::Smoothed(GroupKey::setting(var, &key, data)),
                family.regret,
                y_label,
            );
            bandit(&mut learning);
            let suffix = if var == "noise_scale" {
                "(removing noise)"
            } else {
                "(after rescaling)"
            };
            let label = format!("{} {suffix}", family.seeds_label);
            let seeds = seeds_spec(Some(GroupKey::setting(var, &key, data)), &label);
            vec![average, learning, seeds]
        }
    }
}
