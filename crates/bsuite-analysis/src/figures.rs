//! The reference notebook's plots as data: every experiment's standard [`Figure`]s, and the
//! suite-level [`RadarChart`] and [`BarChart`].
//!
//! [`experiment_figures`] gives an experiment's plots in the notebook's order; each
//! experiment module says which plots it has (`experiments::<name>::figures`), built from
//! [`crate::figure_parts`].

use bsuite_envs::{Experiment, Tag};

use crate::agent_results::AgentResults;
use crate::experiments;
use crate::figure_parts::ExperimentData;
use crate::plot::{Bar, BarChart, Figure, RadarAgent, RadarChart, CATEGORICAL_COLOURS, RADAR_TAGS};
use crate::summary::Summary;

/// The standard plots of `experiment` for the given agents, in the notebook's order; one
/// panel per agent with data. An experiment no agent has data for gives no figures.
pub fn experiment_figures(agents: &[AgentResults], experiment: &'static Experiment) -> Vec<Figure> {
    let data = ExperimentData::new(agents, experiment);
    if data.panels.is_empty() {
        return Vec::new();
    }
    experiments::figures(&data)
}

/// The standard plots of every experiment with data, in
/// [`experiments::in_plot_order`].
pub fn all_figures(agents: &[AgentResults]) -> Vec<Figure> {
    experiments::in_plot_order()
        .flat_map(|e| experiment_figures(agents, e))
        .collect()
}

/// The radar summary of one or more agents' tag scores (`bsuite_radar_plot`).
///
/// The reference computes each tag's mean with `groupby('tag').mean()`, which pandas 2
/// refuses on its string columns (quirk 21 in docs/quirks.md); this is the intended mean score per tag.
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
    for experiment in experiments::in_plot_order() {
        let mut any = false;
        for (k, s) in summaries.iter().enumerate() {
            if let Some(e) = s.experiment(experiment.name) {
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
            experiments.push(experiment.name);
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
