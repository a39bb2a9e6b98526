//! bsuite's scores, tag summaries and plot data, equal to bsuite 0.3.6's own numbers.
//!
//! `bsuite-analysis` reads results through `bsuite-logging` and computes what the reference's
//! `experiments/*/analysis.py` and `summary_analysis.py` compute: one score per experiment
//! in [0, 1] ([`experiments`], one module per experiment), means per tag, per-id scores, and
//! the data behind the standard plots ([`plot`], [`figures`]).
//!
//! ```no_run
//! use bsuite_analysis::{summarize, AgentResults};
//!
//! let agent = AgentResults::load("dqn", "results/dqn".as_ref()).unwrap();
//! let summary = summarize(&agent);
//! for e in &summary.experiments {
//!     let state = if e.progress.finished() { "" } else { " (unfinished)" };
//!     println!("{:<20} {}{state}", e.experiment.name, e.score);
//! }
//! ```
//!
//! # Unfinished and partial runs
//!
//! Scores follow the reference on partial data (docs/quirks.md, partial runs): regret scores are read at the
//! furthest logged episode (at most the experiment's episode count) over the runs that
//! reached it. Where the reference's score is NaN, ours is [`Score::Undefined`] with the
//! reason; whether runs are finished is reported separately in [`Progress`], and an
//! experiment without data is simply absent from a [`Summary`].
//!
//! # Agreement with the reference
//!
//! Means and standard deviations use numpy's pairwise summation ([`numeric`]), so scores
//! equal bsuite's to the last bit on the same values in the same row order (checked against
//! `tools/reference/ref_score_ordered.py --round-trip`). Two things can still move the last
//! bits (about 1e-14): bsuite reads CSVs with pandas' default float parser, which is not
//! correctly rounded, while we parse exactly; and bsuite concatenates files in directory
//! order, while we use sweep order.
//!
//! # Deliberate differences
//!
//! Where the reference is only broken by its pandas version we implement the intended
//! meaning: deep_sea's `find_solution` (`Series.append`, quirk 20 in docs/quirks.md) and the radar chart's
//! per-tag mean (quirk 21). Tags are in sorted order (quirk 19). Result files are named by
//! suffix, not by stripping characters (quirk 17). Unchanged on purpose: mnist's NaN score
//! before episode 9000 (quirk 22, as [`Undefined::NoEpisodeInAccuracyWindow`]) and the
//! `finished` flag that only checks the ids present (quirk 23, [`Progress::finished`]; see
//! [`Progress::complete`]). Per-run "seeds" plots difference rows within a run
//! ([`figures`]).

#![deny(missing_docs)]

pub mod agent_results;
pub mod agreement;
pub mod experiments;
pub mod figure_parts;
pub mod figures;
pub mod helpers;
pub mod numeric;
pub mod plot;
pub mod score;
pub mod score_json;
pub mod seeds;
pub mod smoothers;
pub mod stats;
mod summary;

pub use agent_results::AgentResults;
pub use score::{ExperimentScore, IdScore, Progress, Score, TagScore, Undefined};
pub use summary::{compare, summarize, Summary};
