//! What a report adds when an agent was run over several seeds: its scores as means over
//! seeds with bootstrap intervals, its standard plots as means over seeds with a band, a
//! performance profile, and P(A > B) for every pair of agents.
//!
//! Every number comes from `bsuite_analysis::stats` and `bsuite_analysis::seeds`, drawn with
//! one fixed [`Bootstrap`], so identical inputs give identical reports. A report whose agents
//! all have one seed uses none of this and looks as it always did.

use bsuite_analysis::plot::{Mark, Panel, PlotPoint, Series, RADAR_TAGS};
use bsuite_analysis::seeds::{compare_agents, PairComparison, SeededSummary, TagSeeds};
use bsuite_analysis::stats::{self, Bootstrap, Estimate};
use bsuite_analysis::{ExperimentScore, Progress, Score, Summary, TagScore, Undefined};
use rayon::prelude::*;

/// The tolerance `compare_agents` sizes its conclusions with; the report shows only the
/// difference and P(A > B), which do not depend on it.
const TOLERANCE: f64 = 0.05;

/// Thresholds of the performance profile: 0 to 1 in steps of 0.02.
pub(crate) fn profile_thresholds() -> Vec<f64> {
    (0..=50).map(|i| f64::from(i) / 50.0).collect()
}

/// The intervals of one agent with two or more seeds.
#[derive(Debug, Clone)]
pub(crate) struct AgentIntervals {
    /// Per tag, in [`RADAR_TAGS`]' order: the mean over the tag's experiments of the mean
    /// over seeds, with its stratified bootstrap interval.
    pub tags: Vec<Estimate>,
    /// Per experiment with data: the mean over seeds with its bootstrap interval.
    pub experiments: Vec<(&'static str, Estimate)>,
}

/// One pair of agents compared per tag.
#[derive(Debug, Clone)]
pub(crate) struct PairRow {
    /// Agent A's name.
    pub a: String,
    /// Agent B's name.
    pub b: String,
    /// Per tag, in [`RADAR_TAGS`]' order; `None` when a side has fewer than two seeds.
    pub tags: Option<Vec<PairComparison>>,
}

/// One agent's performance profile: the fraction of its (seed, experiment) runs scoring
/// above each of [`profile_thresholds`], with its stratified bootstrap interval.
#[derive(Debug, Clone)]
pub(crate) struct Profile {
    /// The agent's name.
    pub agent: String,
    /// One estimate per threshold.
    pub points: Vec<Estimate>,
}

/// Everything the report shows over seeds.
#[derive(Debug, Clone)]
pub(crate) struct SeedStats {
    /// Per agent, in report order: its seed count.
    pub counts: Vec<usize>,
    /// Per agent: its intervals, `None` for an agent with one seed (drawn as before).
    pub intervals: Vec<Option<AgentIntervals>>,
    /// Every pair of agents, in report order (A before B).
    pub pairs: Vec<PairRow>,
    /// Per agent: its performance profile.
    pub profiles: Vec<Profile>,
    /// How every interval was drawn.
    pub bootstrap: Bootstrap,
}

impl SeedStats {
    /// The statistics of `agents`, each a summary per seed; `None` when every agent has one
    /// seed (the report then looks as it always did).
    pub fn of(agents: &[SeededSummary]) -> Option<SeedStats> {
        if agents.iter().all(|a| a.num_seeds() < 2) {
            return None;
        }
        let bootstrap = Bootstrap::default();
        let intervals = agents
            .par_iter()
            .map(|a| {
                (a.num_seeds() >= 2).then(|| AgentIntervals {
                    tags: a.tag_stats(&bootstrap).iter().map(TagSeeds::mean).collect(),
                    experiments: a
                        .experiment_stats(&bootstrap)
                        .into_iter()
                        .map(|e| (e.experiment.name, e.mean))
                        .collect(),
                })
            })
            .collect();
        let thresholds = profile_thresholds();
        let profiles = agents
            .par_iter()
            .map(|a| Profile {
                agent: a.agent.clone(),
                points: stats::performance_profile(
                    &a.tasks(&a.experiments()),
                    &thresholds,
                    &bootstrap,
                ),
            })
            .collect();
        let mut pairs_of = Vec::new();
        for i in 0..agents.len() {
            for j in i + 1..agents.len() {
                pairs_of.push((i, j));
            }
        }
        let pairs = pairs_of
            .par_iter()
            .map(|&(i, j)| {
                let (a, b) = (&agents[i], &agents[j]);
                // One seed has no spread: P(A > B) over it is a statement about one run.
                let enough = a.num_seeds() >= 2 && b.num_seeds() >= 2;
                PairRow {
                    a: a.agent.clone(),
                    b: b.agent.clone(),
                    tags: enough.then(|| compare_agents(a, b, &bootstrap, TOLERANCE).0),
                }
            })
            .collect();
        Some(SeedStats {
            counts: agents.iter().map(SeededSummary::num_seeds).collect(),
            intervals,
            pairs,
            profiles,
            bootstrap,
        })
    }
}

/// The summary a report shows for an agent: its only seed's, or, over several seeds, each
/// experiment's mean over the seeds that scored it and each tag's mean over its
/// experiments (the centre of the intervals in [`SeedStats`]). Progress is the least
/// advanced seed's, so an unfinished seed marks the experiment unfinished.
pub(crate) fn shown_summary(agent: &SeededSummary) -> Summary {
    if agent.num_seeds() == 1 {
        return agent.seeds[0].1.clone();
    }
    let experiments: Vec<ExperimentScore> = agent
        .experiments()
        .into_iter()
        .map(|experiment| {
            let entries: Vec<&ExperimentScore> = agent
                .seeds
                .iter()
                .filter_map(|(_, s)| s.experiment(experiment.name))
                .collect();
            let values: Vec<f64> = entries.iter().filter_map(|e| e.score.value()).collect();
            let score = if values.is_empty() {
                entries
                    .iter()
                    .find_map(|e| match e.score {
                        Score::Undefined(why) => Some(Score::Undefined(why)),
                        Score::Value(_) => None,
                    })
                    .unwrap_or(Score::Undefined(Undefined::NoRowsToScore))
            } else {
                Score::Value(values.iter().sum::<f64>() / values.len() as f64)
            };
            let seeds_with_data = entries.len();
            let first = entries[0].progress;
            let progress = Progress {
                // A seed without the experiment counts as one with none of its ids.
                ids: if seeds_with_data < agent.num_seeds() {
                    0
                } else {
                    entries.iter().map(|e| e.progress.ids).min().unwrap_or(0)
                },
                sweep_ids: first.sweep_ids,
                min_episode: entries
                    .iter()
                    .map(|e| e.progress.min_episode)
                    .min()
                    .unwrap_or(0),
                num_episodes: first.num_episodes,
            };
            ExperimentScore {
                experiment,
                score,
                progress,
            }
        })
        .collect();
    let tags = RADAR_TAGS
        .iter()
        .map(|&tag| {
            let scores: Vec<f64> = experiments
                .iter()
                .filter(|e| e.experiment.tags.contains(&tag))
                .filter_map(|e| e.score.value())
                .collect();
            let count = experiments
                .iter()
                .filter(|e| e.experiment.tags.contains(&tag))
                .count();
            TagScore {
                tag,
                score: if scores.is_empty() {
                    Score::Undefined(Undefined::NoScoredExperiment)
                } else {
                    Score::Value(scores.iter().sum::<f64>() / scores.len() as f64)
                },
                experiments: count,
            }
        })
        .collect();
    Summary {
        agent: agent.agent.clone(),
        experiments,
        tags,
        ids: agent.seeds[0].1.ids.clone(),
    }
}

/// What merging an agent's seeds did to a figure, for its caption.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct SeedsShown {
    /// Some line or bar became the mean over seeds with a band or whisker.
    pub means: bool,
    /// Some points are every seed's, pooled, with their mean.
    pub pooled: bool,
}

impl SeedsShown {
    /// The sentences the figure's caption gets; empty when nothing was merged.
    pub fn caption(self) -> String {
        let mut parts = Vec::new();
        if self.means {
            parts.push(
                "Lines and bars of agents with several seeds are the mean over seeds, with a \
                 band or whisker from the lowest to the highest seed.",
            );
        }
        if self.pooled {
            parts.push(
                "Points of agents with several seeds are every seed's (each seed's points in \
                 its own colour by outcome), with their mean in black where every seed has one.",
            );
        }
        parts.join(" ")
    }
}

/// Label of the series of means added over pooled points.
pub(crate) const MEAN_LABEL: &str = "mean over seeds";

/// Merges the panels of one agent's seeds (each drawn from one seed, in the same figure so
/// that colours and groups agree) into one panel named `agent`. Nothing is dropped:
/// - a series that is the same in every seed is kept as it is;
/// - a line, smoothed line or set of bars becomes the mean over the seeds that have a value
///   at each x (the union of the seeds' x values), each point's band the lowest to the
///   highest seed;
/// - points (a seed's outcome per setting) are pooled: every seed's points are drawn, and a
///   black line with markers gives their mean at each x where every seed has a point.
pub(crate) fn merge_seed_panels(agent: &str, panels: &[&Panel]) -> (Panel, SeedsShown) {
    let mut shown = SeedsShown::default();
    let first = panels[0];
    if panels.iter().all(|p| p.series == first.series) {
        return (
            Panel {
                agent: agent.to_string(),
                series: first.series.clone(),
            },
            shown,
        );
    }
    // Series are matched by what they are (label, colour, mark) and, among series alike
    // (a line per run), by their order, not by position: a seed may lack a group another
    // has, or split its points differently between outcomes.
    let same = |a: &Series, b: &Series| {
        a.label == b.label
            && a.colour == b.colour
            && std::mem::discriminant(&a.mark) == std::mem::discriminant(&b.mark)
    };
    fn nth_alike<'p>(
        panel: &'p Panel,
        kind: &Series,
        n: usize,
        same: impl Fn(&Series, &Series) -> bool,
    ) -> Option<&'p Series> {
        panel.series.iter().filter(|s| same(s, kind)).nth(n)
    }
    let mut kinds: Vec<(&Series, usize)> = Vec::new();
    for panel in panels {
        for (i, series) in panel.series.iter().enumerate() {
            let n = panel.series[..i].iter().filter(|s| same(s, series)).count();
            if !kinds.iter().any(|(k, m)| same(k, series) && *m == n) {
                kinds.push((series, n));
            }
        }
    }
    let mut merged = Vec::new();
    for (kind, n) in kinds {
        let versions: Vec<&Series> = panels
            .iter()
            .filter_map(|p| nth_alike(p, kind, n, same))
            .collect();
        if versions.len() == panels.len() && versions.iter().all(|v| v.points == kind.points) {
            merged.push(kind.clone());
            continue;
        }
        match kind.mark {
            Mark::Points { .. } => {
                shown.pooled = true;
                merged.push(Series {
                    points: versions
                        .iter()
                        .flat_map(|v| v.points.iter().copied())
                        .collect(),
                    ..kind.clone()
                });
            }
            Mark::Line { .. } | Mark::Smooth { .. } | Mark::Bars { .. } => {
                shown.means = true;
                merged.push(Series {
                    points: mean_with_band(&versions),
                    ..kind.clone()
                });
            }
        }
    }
    if shown.pooled {
        if let Some(means) = pooled_means(panels) {
            merged.push(means);
        }
    }
    (
        Panel {
            agent: agent.to_string(),
            series: merged,
        },
        shown,
    )
}

/// The mean over seeds of the points series of `panels` at each x where every seed has a
/// point (a seed's first point there), as a black line with markers.
fn pooled_means(panels: &[&Panel]) -> Option<Series> {
    let per_seed: Vec<Vec<PlotPoint>> = panels
        .iter()
        .map(|p| {
            (p.series.iter())
                .filter(|s| matches!(s.mark, Mark::Points { .. }))
                .flat_map(|s| s.points.iter().copied())
                .collect()
        })
        .collect();
    let mut xs: Vec<f64> = per_seed[0].iter().map(|p| p.x).collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let points: Vec<PlotPoint> = xs
        .into_iter()
        .filter_map(|x| {
            let ys: Vec<f64> = per_seed
                .iter()
                .map(|seed| seed.iter().find(|p| p.x == x).map(|p| p.y))
                .collect::<Option<_>>()?;
            Some(PlotPoint {
                x,
                y: ys.iter().sum::<f64>() / ys.len() as f64,
                band: None,
            })
        })
        .collect();
    (!points.is_empty()).then(|| Series {
        label: MEAN_LABEL.to_string(),
        colour: "#000000",
        mark: Mark::Line {
            width: 1.0,
            alpha: 0.8,
            dashed: false,
        },
        points,
    })
}

/// The mean of `versions`' points at every x any of them has (sorted), over the versions
/// with a finite value there, each point's band the lowest to the highest.
fn mean_with_band(versions: &[&Series]) -> Vec<PlotPoint> {
    let mut xs: Vec<f64> = versions
        .iter()
        .flat_map(|v| v.points.iter().map(|p| p.x))
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    xs.into_iter()
        .filter_map(|x| {
            let ys: Vec<f64> = versions
                .iter()
                .filter_map(|v| v.points.iter().find(|p| p.x == x).map(|p| p.y))
                .filter(|y| y.is_finite())
                .collect();
            if ys.is_empty() {
                return None;
            }
            let mean = ys.iter().sum::<f64>() / ys.len() as f64;
            let lo = ys.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = ys.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            Some(PlotPoint {
                x,
                y: mean,
                band: Some((lo, hi)),
            })
        })
        .collect()
}

/// `0.512 [0.480, 0.545]`, or `n/a` for an estimate over no data.
pub(crate) fn estimate_text(e: &Estimate) -> String {
    if e.value.is_nan() {
        "n/a".to_string()
    } else {
        e.to_string()
    }
}

/// `5 seeds (42, 43, 44, 45, 46)`, `1 seed (42)`, or `1 seed` without a recorded seed.
pub(crate) fn seeds_text(seeds: &[Option<u32>]) -> String {
    let n = seeds.len();
    let plural = if n == 1 { "seed" } else { "seeds" };
    let known: Vec<String> = seeds.iter().flatten().map(u32::to_string).collect();
    if known.is_empty() {
        format!("{n} {plural}")
    } else {
        format!("{n} {plural} ({})", known.join(", "))
    }
}

/// What the pair tables say about themselves.
pub(crate) fn pairs_caption(stats: &SeedStats) -> String {
    format!(
        "For every pair of agents A and B, per key issue: P(A > B), the probability that a \
         run of A on one of the key issue's experiments scores higher than a run of B (ties \
         count one half), and the difference of mean scores A - B, each with its {:.0}% \
         stratified bootstrap interval ({} replicates over seeds, seed {}). Only experiments \
         both agents scored count.",
        100.0 * stats.bootstrap.confidence,
        stats.bootstrap.reps,
        stats.bootstrap.seed
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use bsuite_analysis::{figures, AgentResults};
    use std::path::Path;

    fn catch_figure() -> bsuite_analysis::plot::Figure {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/random_results");
        let agent = AgentResults::load("random", &dir).unwrap();
        let catch = bsuite_envs::experiments()
            .iter()
            .find(|e| e.name == "catch")
            .unwrap();
        figures::experiment_figures(&[agent], catch).remove(0)
    }

    #[test]
    fn over_seeds_an_experiment_shows_its_mean_and_one_seed_its_own_score() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/random_results");
        let single = bsuite_analysis::summarize(&AgentResults::load("random", &dir).unwrap());
        let one = SeededSummary {
            agent: "random".into(),
            seeds: vec![(Some(42), single.clone())],
        };
        assert_eq!(shown_summary(&one), single);
        let mut halved = single.clone();
        for e in &mut halved.experiments {
            if let Score::Value(v) = e.score {
                e.score = Score::Value(v / 2.0);
            }
        }
        let two = SeededSummary {
            agent: "random".into(),
            seeds: vec![(Some(42), single.clone()), (Some(43), halved)],
        };
        let shown = shown_summary(&two);
        assert_eq!(shown.experiments.len(), single.experiments.len());
        for (e, s) in shown.experiments.iter().zip(&single.experiments) {
            match s.score {
                Score::Value(v) => assert!((e.score.to_f64() - 0.75 * v).abs() < 1e-12),
                Score::Undefined(_) => assert_eq!(e.score, s.score),
            }
        }
        // The tag scores are the centres of the intervals the radar draws around them.
        let settings = Bootstrap {
            reps: 10,
            ..Bootstrap::default()
        };
        for (tag, stats) in shown.tags.iter().zip(two.tag_stats(&settings)) {
            assert_eq!(tag.tag, stats.tag);
            assert!((tag.score.to_f64() - stats.mean().value).abs() < 1e-12);
        }
    }

    #[test]
    fn a_series_that_differs_between_seeds_becomes_its_mean_with_a_band() {
        let figure = catch_figure();
        let panel = &figure.panels[0];
        assert!(!panel.series.is_empty() && panel.series[0].points.len() > 1);
        let mut other = panel.clone();
        for point in &mut other.series[0].points {
            point.y += 0.5;
        }
        let (merged, shown) = merge_seed_panels("random", &[panel, &other]);
        assert_eq!(
            shown,
            SeedsShown {
                means: true,
                pooled: false
            }
        );
        assert_eq!(merged.agent, "random");
        for (m, p) in merged.series[0].points.iter().zip(&panel.series[0].points) {
            assert_eq!(m.x, p.x);
            assert!((m.y - (p.y + 0.25)).abs() < 1e-12);
            assert_eq!(m.band, Some((p.y, p.y + 0.5)));
        }
        // Series that are the same over seeds stay as they were.
        assert_eq!(
            merged.series[1..],
            panel.series[1..],
            "unchanged series were changed"
        );
        let (same, shown) = merge_seed_panels("random", &[panel, panel]);
        assert_eq!(shown, SeedsShown::default());
        assert_eq!(same.series, panel.series);
    }

    fn points(label: &str, colour: &'static str, xy: &[(f64, f64)]) -> Series {
        Series {
            label: label.into(),
            colour,
            mark: Mark::Points {
                size: 3.0,
                alpha: 0.8,
                shape: bsuite_analysis::plot::Shape::Circle,
            },
            points: xy
                .iter()
                .map(|&(x, y)| PlotPoint { x, y, band: None })
                .collect(),
        }
    }

    /// Seeds that disagree on which settings pass: every seed's point of every setting
    /// stays, and the mean is drawn where every seed has one.
    #[test]
    fn points_of_seeds_that_disagree_are_pooled_with_their_mean() {
        let a = Panel {
            agent: "a#0".into(),
            series: vec![
                points("False", "#d73027", &[(1.0, 0.2)]),
                points("True", "#313695", &[(2.0, 0.9), (3.0, 0.8)]),
            ],
        };
        let b = Panel {
            agent: "a#1".into(),
            series: vec![points(
                "False",
                "#d73027",
                &[(1.0, 0.4), (2.0, 0.3), (3.0, 0.1)],
            )],
        };
        let (merged, shown) = merge_seed_panels("a", &[&a, &b]);
        assert!(shown.pooled && !shown.means);
        let all: Vec<(f64, f64)> = (merged.series.iter())
            .filter(|s| s.label != MEAN_LABEL)
            .flat_map(|s| s.points.iter().map(|p| (p.x, p.y)))
            .collect();
        for point in [
            (1.0, 0.2),
            (2.0, 0.9),
            (3.0, 0.8),
            (1.0, 0.4),
            (2.0, 0.3),
            (3.0, 0.1),
        ] {
            assert!(all.contains(&point), "{point:?} dropped from {all:?}");
        }
        let mean = merged
            .series
            .iter()
            .find(|s| s.label == MEAN_LABEL)
            .unwrap();
        let ys: Vec<f64> = mean.points.iter().map(|p| p.y).collect();
        assert_eq!(
            mean.points.iter().map(|p| p.x).collect::<Vec<_>>(),
            [1.0, 2.0, 3.0]
        );
        for (y, want) in ys.iter().zip([0.3, 0.6, 0.45]) {
            assert!((y - want).abs() < 1e-12, "{ys:?}");
        }
        assert!(!shown.caption().is_empty());
    }

    #[test]
    fn seed_counts_and_estimates_without_data_read_well() {
        assert_eq!(seeds_text(&[Some(42)]), "1 seed (42)");
        assert_eq!(seeds_text(&[None]), "1 seed");
        assert_eq!(seeds_text(&[Some(1), Some(2)]), "2 seeds (1, 2)");
        let nan = Estimate {
            value: f64::NAN,
            lo: f64::NAN,
            hi: f64::NAN,
        };
        assert_eq!(estimate_text(&nan), "n/a");
    }
}
