//! Score values with the reference's NaN cases made explicit, and run progress.

use std::fmt;

use bsuite_envs::{BsuiteId, Experiment, Tag};

/// A bsuite score: a number in [0, 1], or the reason the reference has no number (NaN).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Score {
    /// The score: finite, and in [0, 1] for every log bsuite writes. Like the reference we
    /// clip only where it clips; mnist's accuracy half is not clipped, so a log whose regret
    /// grows by more than 2 per episode could push an mnist score out of [0, 1].
    Value(f64),
    /// The reference's score is NaN; the reason says why.
    Undefined(Undefined),
}

/// Why a score is undefined (NaN in the reference).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Undefined {
    /// No logged row sits at the episode the score is read at (`min(furthest episode,
    /// NUM_EPISODES)`), e.g. every run went past NUM_EPISODES without logging it.
    NoRowAtEvaluationEpisode,
    /// mnist's accuracy half needs a logged episode after 90% of the run (episode > 9000);
    /// no run has one yet. The reference scores such runs NaN (quirk 22 in docs/quirks.md).
    NoEpisodeInAccuracyWindow,
    /// Nothing left to score after the reference's filters, e.g. deep_sea_stochastic ignores
    /// episodes before 100.
    NoRowsToScore,
    /// A tag whose experiments all lack a score, or that has no experiment in the results.
    NoScoredExperiment,
    /// The log's numbers give an infinite score (e.g. mnist rows logged twice at one episode
    /// with different regrets, a division by zero episodes); bsuite never writes such logs.
    NonFinite,
    /// An experiment [`bsuite_envs::register`]ed by a user: bsuite has no score for it.
    NoScoreDefined,
}

impl Undefined {
    /// A short explanation for tables and reports.
    pub fn describe(self) -> &'static str {
        match self {
            Undefined::NoRowAtEvaluationEpisode => "no row at the evaluation episode",
            Undefined::NoEpisodeInAccuracyWindow => "no episode past 90% of the run yet",
            Undefined::NoRowsToScore => "no rows left to score",
            Undefined::NoScoredExperiment => "no scored experiment",
            Undefined::NonFinite => "the log gives a non-finite score",
            Undefined::NoScoreDefined => "not a bsuite experiment; no score defined",
        }
    }
}

impl fmt::Display for Undefined {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

impl Score {
    /// The number, if there is one.
    pub fn value(self) -> Option<f64> {
        match self {
            Score::Value(v) => Some(v),
            Score::Undefined(_) => None,
        }
    }

    /// The reference's float: the value, or NaN.
    pub fn to_f64(self) -> f64 {
        self.value().unwrap_or(f64::NAN)
    }

    /// Wraps a reference-style float: NaN becomes `Undefined(reason)`, ±inf
    /// `Undefined(NonFinite)`.
    pub(crate) fn from_f64(x: f64, reason: Undefined) -> Score {
        if x.is_nan() {
            Score::Undefined(reason)
        } else if x.is_infinite() {
            Score::Undefined(Undefined::NonFinite)
        } else {
            Score::Value(x)
        }
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Value(v) => write!(f, "{v:.3}"),
            Score::Undefined(_) => f.write_str("n/a"),
        }
    }
}

/// How far the runs of one experiment got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// bsuite_ids with data.
    pub ids: usize,
    /// bsuite_ids in the experiment's sweep.
    pub sweep_ids: usize,
    /// The smallest furthest-logged episode over the ids with data.
    pub min_episode: u64,
    /// Episodes per run (`NUM_EPISODES`).
    pub num_episodes: u64,
}

impl Progress {
    /// The reference's `finished` flag: every id *with data* reached `NUM_EPISODES`. Missing
    /// ids are not checked, so a partial sweep can be "finished" (quirk 23 in docs/quirks.md).
    pub fn finished(&self) -> bool {
        self.min_episode >= self.num_episodes
    }

    /// Finished, and every id of the sweep has data.
    pub fn complete(&self) -> bool {
        self.finished() && self.ids == self.sweep_ids
    }
}

/// One experiment's score for one agent.
#[derive(Clone, Copy, Debug)]
pub struct ExperimentScore {
    /// The experiment.
    pub experiment: &'static Experiment,
    /// The score over all its ids with data.
    pub score: Score,
    /// How far its runs got.
    pub progress: Progress,
}

impl PartialEq for ExperimentScore {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.experiment, other.experiment)
            && self.score == other.score
            && self.progress == other.progress
    }
}

/// One bsuite_id's score: the experiment's score function applied to that id's rows alone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IdScore {
    /// The id.
    pub id: BsuiteId,
    /// The score.
    pub score: Score,
    /// The furthest episode logged.
    pub last_episode: u64,
}

impl IdScore {
    /// The id reached its experiment's `NUM_EPISODES`.
    pub fn finished(&self) -> bool {
        self.last_episode >= self.id.num_episodes() as u64
    }
}

/// The mean score of the experiments carrying one tag (`ave_score_by_tag`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TagScore {
    /// The tag.
    pub tag: Tag,
    /// Mean over the tag's experiments with a score; undefined when there is none.
    pub score: Score,
    /// Experiments with this tag that have data (scored or not).
    pub experiments: usize,
}
