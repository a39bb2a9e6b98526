//! What a report contains, independent of its format: the agents' scores, the drawn figures
//! and what is missing. The LaTeX and HTML writers both read this.

use std::collections::BTreeMap;
use std::path::PathBuf;

use bsuite_analysis::experiments::in_plot_order;
use bsuite_analysis::Summary;
use bsuite_envs::Experiment;

/// A figure written as `<stem>.svg` and `<stem>.pdf` under the report directory.
#[derive(Debug, Clone)]
pub(crate) struct FigureFile {
    /// Path without extension, relative to the report directory, with `/` separators.
    pub stem: String,
    /// A one-line title.
    pub title: String,
    /// Why data is missing from the figure, if it is.
    pub note: Option<String>,
    /// Size in pixels (points in the PDF).
    pub size: (u32, u32),
    /// The SVG to put inline in the HTML page.
    pub inline_svg: String,
}

/// One experiment's part of the report.
#[derive(Debug, Clone)]
pub(crate) struct ExperimentSection {
    /// The experiment.
    pub experiment: &'static Experiment,
    /// One paragraph on what the experiment measures and how it is scored.
    pub description: String,
    /// Its standard plots.
    pub figures: Vec<FigureFile>,
}

/// Where an agent's sweep stands.
#[derive(Debug, Clone, Default)]
pub(crate) struct Coverage {
    /// Experiments without any data.
    pub missing: Vec<&'static str>,
    /// Experiments with data for only some of their bsuite_ids: (name, ids with data, ids).
    pub partial: Vec<(&'static str, usize, usize)>,
    /// Experiments whose runs have not all reached the episode count: (name, furthest
    /// episode of the least advanced run, episodes).
    pub unfinished: Vec<(&'static str, u64, u64)>,
}

impl Coverage {
    /// The coverage of one agent's summary.
    pub fn of(summary: &Summary) -> Coverage {
        let mut coverage = Coverage::default();
        for name in in_plot_order().map(|e| e.name) {
            let Some(entry) = summary.experiment(name) else {
                coverage.missing.push(name);
                continue;
            };
            let p = entry.progress;
            if p.ids < p.sweep_ids {
                coverage.partial.push((name, p.ids, p.sweep_ids));
            }
            if !p.finished() {
                coverage
                    .unfinished
                    .push((name, p.min_episode, p.num_episodes));
            }
        }
        coverage
    }

    /// True when every experiment is complete.
    pub fn is_complete(&self) -> bool {
        self.missing.is_empty() && self.partial.is_empty() && self.unfinished.is_empty()
    }

    /// Human-readable lines about what is missing or unfinished (empty when complete).
    pub fn lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if !self.missing.is_empty() {
            lines.push(format!(
                "no results for {} of 23 experiments: {}",
                self.missing.len(),
                self.missing.join(", ")
            ));
        }
        if !self.partial.is_empty() {
            let items: Vec<String> = self
                .partial
                .iter()
                .map(|(name, have, all)| format!("{name} ({have}/{all} ids)"))
                .collect();
            lines.push(format!("partial sweeps: {}", items.join(", ")));
        }
        if !self.unfinished.is_empty() {
            let items: Vec<String> = self
                .unfinished
                .iter()
                .map(|(name, at, of)| format!("{name} ({at}/{of} episodes)"))
                .collect();
            lines.push(format!("unfinished runs: {}", items.join(", ")));
        }
        lines
    }
}

/// Everything a report shows.
#[derive(Debug, Clone)]
pub(crate) struct Model<'a> {
    /// Title of the paper the appendix goes into (a placeholder by default).
    pub title: String,
    /// Link to the full online report, if any.
    pub link: Option<String>,
    /// Agent definitions given by the caller, by agent name.
    pub definitions: BTreeMap<String, String>,
    /// One summary per agent, in the order given.
    pub summaries: &'a [Summary],
    /// Results directory of each agent, in the same order, where it was read from one.
    pub sources: Vec<Option<PathBuf>>,
    /// What each results directory's manifest says wrote it, where it has one.
    pub written_by: Vec<Option<String>>,
    /// Coverage of each agent, in the same order.
    pub coverage: Vec<Coverage>,
    /// The radar plot.
    pub radar: FigureFile,
    /// The bar plot, one facet per agent.
    pub bar: FigureFile,
    /// The comparison bar plot (several agents only).
    pub compare: Option<FigureFile>,
    /// Experiments with data for at least one agent, in the bar plot's order.
    pub experiments: Vec<ExperimentSection>,
    /// What the report shows over seeds; `None` when every agent has one seed.
    pub seeds: Option<SeedsModel>,
}

/// What a report shows over seeds (some agent has two or more).
#[derive(Debug, Clone)]
pub(crate) struct SeedsModel {
    /// The intervals, pair comparisons and profiles.
    pub stats: crate::seeds::SeedStats,
    /// Per agent, its seeds (`None` for a directory without a manifest).
    pub seed_lists: Vec<Vec<Option<u32>>>,
    /// The performance profile.
    pub profile: FigureFile,
}
