//! What a report adds when an agent was run over several seeds: its scores as means over
//! seeds with bootstrap intervals, its standard plots as means over seeds with a band, a
//! performance profile, and P(A > B) for every pair of agents.
//!
//! Every number comes from `bsuite_analysis::stats` and `bsuite_analysis::seeds`, drawn with
//! one fixed [`Bootstrap`], so identical inputs give identical reports. A report whose agents
//! all have one seed uses none of this and looks as it always did.

use bsuite_analysis::plot::{Figure, PlotPoint, Series, RADAR_TAGS};
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

/// What a merged figure's band shows, appended to its caption.
pub(crate) const BAND_NOTE: &str =
    "Agents with several seeds: mean over seeds, band from the lowest to the highest seed.";

/// Merges one figure as drawn from each seed (`versions[k]` from every agent's seed `k`,
/// or its last seed when it has fewer) into one: a series that is the same in every version
/// (an agent with one seed) is kept as it is; one that differs becomes the mean over the
/// versions at the x values they share, each point's band the lowest to the highest
/// version (a smooth line's ribbon then shows the seeds' spread, not one seed's interval). Returns the figure and whether any series was merged.
pub(crate) fn merge_figure(versions: &[Figure]) -> (Figure, bool) {
    let mut merged = versions[0].clone();
    let same_shape = versions.iter().all(|v| {
        v.name == merged.name
            && v.panels.len() == merged.panels.len()
            && v.panels
                .iter()
                .zip(&merged.panels)
                .all(|(p, q)| p.series.len() == q.series.len())
    });
    if !same_shape {
        return (merged, false);
    }
    let mut any = false;
    for (p, panel) in merged.panels.iter_mut().enumerate() {
        for (s, series) in panel.series.iter_mut().enumerate() {
            let all: Vec<&Series> = versions.iter().map(|v| &v.panels[p].series[s]).collect();
            if all.iter().all(|v| v.points == series.points) {
                continue;
            }
            if let Some(points) = mean_with_band(&all) {
                series.points = points;
                any = true;
            }
        }
    }
    (merged, any)
}

/// The mean of `versions`' points at the x values all of them have (in the first's order),
/// each with the band from the lowest to the highest; `None` when they share none or the
/// marks differ.
fn mean_with_band(versions: &[&Series]) -> Option<Vec<PlotPoint>> {
    let first = versions[0];
    if versions.iter().any(|v| v.mark != first.mark) {
        return None;
    }
    let points: Vec<PlotPoint> = first
        .points
        .iter()
        .enumerate()
        .filter_map(|(i, point)| {
            let ys: Vec<f64> = versions
                .iter()
                .map(|v| {
                    // Usually the same x sits at the same index; look it up otherwise.
                    match v.points.get(i) {
                        Some(q) if q.x == point.x => Some(q.y),
                        _ => v.points.iter().find(|q| q.x == point.x).map(|q| q.y),
                    }
                })
                .collect::<Option<_>>()?;
            let finite: Vec<f64> = ys.iter().copied().filter(|y| y.is_finite()).collect();
            if finite.is_empty() {
                return None;
            }
            let mean = finite.iter().sum::<f64>() / finite.len() as f64;
            let lo = finite.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            Some(PlotPoint {
                x: point.x,
                y: mean,
                band: Some((lo, hi)),
            })
        })
        .collect();
    (!points.is_empty()).then_some(points)
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

/// Why a pair has no comparison: a side with fewer than two seeds.
pub(crate) fn needs_seeds_text(row: &PairRow, counts: (usize, usize)) -> String {
    format!(
        "needs 2 or more seeds a side ({} has {}, {} has {})",
        row.a, counts.0, row.b, counts.1
    )
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

    fn catch_figure() -> Figure {
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
        let series = &figure.panels[0].series;
        assert!(!series.is_empty() && series[0].points.len() > 1);
        let mut other = figure.clone();
        for point in &mut other.panels[0].series[0].points {
            point.y += 0.5;
        }
        let (merged, any) = merge_figure(&[figure.clone(), other]);
        assert!(any);
        assert_eq!(merged.title, figure.title);
        for (m, p) in merged.panels[0].series[0]
            .points
            .iter()
            .zip(&figure.panels[0].series[0].points)
        {
            assert_eq!(m.x, p.x);
            assert!((m.y - (p.y + 0.25)).abs() < 1e-12);
            assert_eq!(m.band, Some((p.y, p.y + 0.5)));
        }
        // Series that are the same over seeds (an agent with one seed) stay as they were.
        assert_eq!(
            merged.panels[0].series[1..],
            figure.panels[0].series[1..],
            "unchanged series were changed"
        );
        let (same, any) = merge_figure(&[figure.clone(), figure.clone()]);
        assert!(!any);
        assert_eq!(same, figure);
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
