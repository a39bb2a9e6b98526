//! The building blocks of the standard plots, after the reference's `plotting.py` helpers:
//! facets per agent, learning curves, averages per group, per-run "seeds" plots, and the
//! plot family every regret-scored experiment shares. Experiment modules compose them;
//! this module never looks at a particular experiment.
//!
//! One deliberate difference: the per-run "seeds" plots take differences between
//! consecutive log points *within* a run. The reference differences the whole frame, so the
//! first point of every run but the first compares against another run's last row.

use std::collections::BTreeSet;

use bsuite_envs::Experiment;
use bsuite_logging::results::RunTable;

use crate::agent_results::AgentResults;
use crate::helpers::{column, setting};
use crate::numeric;
use crate::plot::{
    Axis, AxisScale, Figure, FigureKind, HLine, Mark, Panel, PlotPoint, Series, Shape, BAD_COLOUR,
    FIVE_COLOURS, GOOD_COLOUR, SINGLE_COLOUR,
};
use crate::smoothers;

/// The runs of one experiment, per agent with data.
pub struct ExperimentData<'a> {
    /// The experiment.
    pub experiment: &'static Experiment,
    /// `(agent name, runs)` for each agent with runs of the experiment.
    pub panels: Vec<(&'a str, Vec<&'a RunTable>)>,
}

impl<'a> ExperimentData<'a> {
    /// Collects the experiment's runs of each agent.
    pub fn new(agents: &'a [AgentResults], experiment: &'static Experiment) -> ExperimentData<'a> {
        let panels = agents
            .iter()
            .map(|a| (a.name.as_str(), a.runs_of(experiment)))
            .filter(|(_, runs)| !runs.is_empty())
            .collect();
        ExperimentData { experiment, panels }
    }

    pub(crate) fn name(&self) -> &'static str {
        self.experiment.name
    }

    pub(crate) fn num_episodes(&self) -> f64 {
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

pub(crate) fn axis(label: impl Into<String>) -> Axis {
    Axis {
        label: label.into(),
        scale: AxisScale::Linear,
        limits: None,
        breaks: None,
        categories: None,
        include: Vec::new(),
    }
}

pub(crate) fn figure(
    data: &ExperimentData,
    kind: FigureKind,
    x: Axis,
    y: Axis,
    tall: bool,
) -> Figure {
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

pub(crate) fn setting_is_int(runs: &[&RunTable], key: &str) -> bool {
    runs.first().is_some_and(|r| {
        r.settings()
            .iter()
            .any(|(k, v)| *k == key && matches!(v, bsuite_envs::SettingValue::Int(_)))
    })
}

/// The sequential scale for many groups: viridis from dark purple to yellow-green (its
/// palest yellow left out, which vanishes on white), 32 steps. ggplot's default (dark to
/// light blue) makes neighbouring settings indistinguishable past a handful of groups.
pub(crate) const GRADIENT: [&str; 32] = [
    "#440154", "#450b5e", "#461668", "#482071", "#472a78", "#45337e", "#433d83", "#404687",
    "#3d4e89", "#39568b", "#355e8d", "#32668d", "#2f6d8e", "#2c748e", "#297c8e", "#26838d",
    "#238b8d", "#21928c", "#219989", "#22a087", "#22a785", "#2aad7f", "#34b479", "#3ebb73",
    "#4bc16c", "#5bc763", "#6bcc5a", "#7bd150", "#8fd544", "#a3d937", "#b7de2a", "#cae126",
];

/// Colours for sorted group values: the five-colour palette for up to five groups (a
/// categorical scale), else the sequential [`GRADIENT`] by rank, so that the first and last
/// groups take its two ends and the groups between are spread evenly (by value, a log-spaced
/// sweep would crowd its small settings into one colour).
pub(crate) fn group_colours(values: &[f64], categorical: bool) -> Vec<&'static str> {
    if categorical || values.len() <= 5 {
        return (0..values.len()).map(|k| FIVE_COLOURS[k % 5]).collect();
    }
    let last = (values.len() - 1) as f64;
    (0..values.len())
        .map(|k| {
            let t = k as f64 / last;
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
pub(crate) fn pass_fail_points(points: &[(f64, f64)], passes: impl Fn(f64) -> bool) -> Vec<Series> {
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

pub(crate) fn point(x: f64, y: f64) -> PlotPoint {
    PlotPoint { x, y, band: None }
}

pub(crate) fn smoothed(label: &str, colour: &'static str, points: &[(f64, f64)]) -> Series {
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
pub(crate) fn group_runs<'r>(
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
pub(crate) fn average_regret_by_group(
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

pub(crate) fn not_run_note(episode: f64) -> String {
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
