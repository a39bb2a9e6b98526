//! Per-id, per-experiment and per-tag scores of one or several agents.

use bsuite_envs::Tag;

use crate::agent_results::AgentResults;
use crate::experiments;
use crate::numeric;
use crate::plot::RADAR_TAGS;
use crate::score::{ExperimentScore, IdScore, Progress, Score, TagScore, Undefined};

/// All scores of one agent, as the reference's `bsuite_score` and `ave_score_by_tag` give
/// them, plus per-id scores.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// The agent's name.
    pub agent: String,
    /// One entry per experiment with data, in alphabetical order. Experiments without data
    /// are absent; see [`Summary::experiment`].
    pub experiments: Vec<ExperimentScore>,
    /// All seven tags in sorted order (the reference's set order is arbitrary, quirk 19 in docs/quirks.md).
    pub tags: Vec<TagScore>,
    /// Every id with data, in sweep order: its experiment's score on its rows alone.
    pub ids: Vec<IdScore>,
}

impl Summary {
    /// The score of an experiment, or `None` when the agent has no data for it.
    pub fn experiment(&self, name: &str) -> Option<&ExperimentScore> {
        self.experiments.iter().find(|e| e.experiment.name == name)
    }

    /// The score of a tag ([`summarize`] scores all seven).
    pub fn tag(&self, tag: Tag) -> Option<&TagScore> {
        self.tags.iter().find(|t| t.tag == tag)
    }

    /// True when every experiment with data is finished (the reference's flag, quirk 23 in docs/quirks.md).
    pub fn finished(&self) -> bool {
        self.experiments.iter().all(|e| e.progress.finished())
    }
}

/// Scores one agent: every experiment and id with data, and the seven tags.
pub fn summarize(agent: &AgentResults) -> Summary {
    let mut experiments = Vec::new();
    for experiment in bsuite_envs::experiments() {
        let runs = agent.runs_of(experiment);
        let Some(min_episode) = runs.iter().map(|r| r.last_episode()).min() else {
            continue;
        };
        experiments.push(ExperimentScore {
            experiment,
            score: experiments::score_same_experiment(experiment, &runs),
            progress: Progress {
                ids: runs.len(),
                sweep_ids: experiment.num_settings,
                min_episode,
                num_episodes: experiment.num_episodes as u64,
            },
        });
    }
    let ids = agent
        .runs
        .iter()
        .map(|run| IdScore {
            id: run.id(),
            score: experiments::score_same_experiment(run.experiment(), &[run]),
            last_episode: run.last_episode(),
        })
        .collect();
    let tags = RADAR_TAGS
        .iter()
        .map(|&tag| tag_score(&experiments, tag))
        .collect();
    Summary {
        agent: agent.name.clone(),
        experiments,
        tags,
        ids,
    }
}

/// Scores several agents side by side, in the given order.
pub fn compare(agents: &[AgentResults]) -> Vec<Summary> {
    agents.iter().map(summarize).collect()
}

/// The mean score over the experiments with data that carry `tag`, skipping undefined
/// scores as pandas skips NaN (`ave_score_by_tag`).
fn tag_score(experiments: &[ExperimentScore], tag: Tag) -> TagScore {
    let scores: Vec<f64> = experiments
        .iter()
        .filter(|e| e.experiment.tags.contains(&tag))
        .map(|e| e.score.to_f64())
        .collect();
    TagScore {
        tag,
        score: Score::from_f64(numeric::nanmean(&scores), Undefined::NoScoredExperiment),
        experiments: scores.len(),
    }
}
