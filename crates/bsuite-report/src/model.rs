//! What a report contains, independent of its format: the agents' scores, the drawn figures
//! and what is missing. The LaTeX and HTML writers both read this.

use std::collections::BTreeMap;

use bsuite_analysis::experiments::in_plot_order;
use bsuite_analysis::Summary;
use bsuite_envs::Experiment;

/// A figure written as `<stem>.svg` and `<stem>.pdf` under the report directory.
#[derive(Debug, Clone)]
pub(crate) struct FigureFile {
    /// Path without extension, relative to the report directory, with `/` separators.
    pub stem: String,
    /// Its caption: one or more sentences.
    pub title: String,
    /// Why data is missing from the figure, if it is.
    pub note: Option<String>,
    /// Printed size in points (the PDF's page).
    pub size: (f64, f64),
    /// The smallest text in it, in points at its printed size (`None`: no text).
    pub min_text: Option<f64>,
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

/// What an agent's results directory records of the run that wrote it (its manifest; its
/// first seed's, over several seeds, which all agree). Never its path: a report names
/// agents, not the machine it was made on.
#[derive(Debug, Clone, Default)]
pub(crate) struct RunInfo {
    /// The agent as runners know it (`dqn`), where the results have a manifest.
    pub agent: Option<String>,
    /// The run's one-line description of the agent.
    pub description: Option<String>,
    /// The run's seed (the first seed's, over several seeds).
    pub seed: Option<u32>,
}

impl RunInfo {
    /// The run of `manifest`, if there is one.
    pub fn of(manifest: Option<&bsuite_logging::manifest::RunManifest>) -> RunInfo {
        RunInfo {
            agent: manifest.map(|m| m.agent.clone()),
            description: manifest.map(|m| m.description.clone()),
            seed: manifest.map(|m| m.seed),
        }
    }

    /// The settings changed from the agent's defaults, as its description lists them
    /// (`num_ensemble=1 learning_rate=0.01`).
    pub fn changed(&self) -> Option<&str> {
        let description = self.description.as_deref()?;
        let at = description.find("changed: ")? + "changed: ".len();
        Some(description[at..].trim()).filter(|c| !c.is_empty())
    }
}

/// A line on bsuite's baseline agents, by the name their runs record, with the BibTeX keys
/// to cite.
fn known_agent(name: &str) -> Option<(&'static str, &'static str)> {
    Some(match name {
        "random" => ("picks an action uniformly at random at every step", ""),
        "dqn" => ("deep Q-networks", "mnih2015human"),
        "boot_dqn" | "bootstrapped_dqn" => (
            "bootstrapped DQN, an ensemble of Q-networks each with a random prior network",
            "osband2016deep,osband2018rpf",
        ),
        "actor_critic" => (
            "advantage actor-critic with a feedforward network",
            "mnih2016asynchronous",
        ),
        "actor_critic_rnn" => (
            "advantage actor-critic with a recurrent (LSTM) network",
            "mnih2016asynchronous",
        ),
        _ => return None,
    })
}

/// An agent's definition in the report: one or more sentences, and the BibTeX keys it cites.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Definition {
    /// The text, ending in a full stop.
    pub text: String,
    /// BibTeX keys, comma-separated (empty: none).
    pub cites: &'static str,
}

impl Model<'_> {
    /// Agent `k`'s definition: the caller's; else bsuite's line for the agent its run
    /// records, with the settings changed from its defaults; else the run's own
    /// description; else a placeholder to fill in.
    pub fn definition(&self, k: usize) -> Definition {
        let name = &self.summaries[k].agent;
        let run = &self.runs[k];
        let text = |parts: &[&str]| crate::report::sentences(parts);
        if let Some(text) = self.definitions.get(name) {
            return Definition {
                text: crate::report::sentences(&[text]),
                cites: "",
            };
        }
        let recorded = run.agent.as_deref().unwrap_or(name);
        match (known_agent(recorded), &run.description) {
            (Some((what, cites)), _) => Definition {
                text: match run.changed() {
                    Some(changed) => text(&[&format!(
                        "{what}; with {}",
                        changed.split_whitespace().collect::<Vec<_>>().join(", ")
                    )]),
                    None => text(&[what]),
                },
                cites,
            },
            (None, Some(description)) => Definition {
                text: text(&[description]),
                cites: "",
            },
            (None, None) => Definition {
                text: "describe this agent here.".into(),
                cites: "",
            },
        }
    }
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
    /// What each agent's results record of the run that wrote them, in the same order.
    pub runs: Vec<RunInfo>,
    /// Coverage of each agent, in the same order.
    pub coverage: Vec<Coverage>,
    /// The radar plot (summary).
    pub radar: FigureFile,
    /// The score grid: experiments by agents (summary).
    pub grid: FigureFile,
    /// The bar plot of every experiment (details): one facet per agent for one agent, one
    /// facet per experiment for several.
    pub bar: FigureFile,
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
