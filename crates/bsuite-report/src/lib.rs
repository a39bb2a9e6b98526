//! Figures, a LaTeX appendix and an offline HTML report from bsuite results.
//!
//! [`report::write`] is the whole job: it scores the agents with `bsuite-analysis`, draws the
//! summary figures (radar and bar plots) and every experiment's standard plots, writes each
//! as SVG and vector PDF, and writes the conference appendix ([`latex`]) and a self-contained
//! `index.html` ([`html`]). [`report::write_seeded`] does the same for agents run over
//! several seeds: means over seeds with bootstrap intervals (bands on the radar, whiskers on
//! the bars, bands on the standard plots), a performance profile and P(A > B) for every pair
//! of agents; a report whose agents all have one seed is what [`report::write`] writes.
//!
//! Drawing is layered: [`drawing`] describes a faceted plot as plain data, [`render`] draws
//! it with plotters' SVG backend, [`convert`] turns SVG into PDF with the bundled font
//! ([`style`]), and [`figure_drawing`] (an experiment's figures) and [`overview`] (the radar
//! and bar plots) build drawings from the analysis crate's plot data.
//!
//! ```no_run
//! use bsuite_analysis::AgentResults;
//!
//! let dqn = AgentResults::load("dqn", "results/dqn".as_ref()).unwrap();
//! let written = bsuite_report::write(&[dqn], "report".as_ref(), &Default::default()).unwrap();
//! println!("{written:?}");
//! ```

#![deny(missing_docs)]

mod canvas;
pub mod check;
pub mod convert;
pub mod drawing;
pub mod experiments;
pub mod figure_drawing;
pub mod html;
pub mod latex;
mod model;
pub mod overview;
pub mod render;
pub mod report;
pub mod score_files;
mod seeds;
pub mod style;

use std::path::PathBuf;

pub use report::{figures_over_seeds, holds_every_seed, write, write_seeded, Options, Written};

/// Everything that can go wrong while producing a report.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No agent was given.
    #[error("no results to report on: give at least one results directory")]
    NoAgents,
    /// Two agents share a name, so figures and tables could not tell them apart.
    #[error("two results directories have the agent name '{0}'; name them apart with DIR=NAME")]
    DuplicateAgent(String),
    /// Two agents hold the same run (the same agent, configuration, seed and episodes, and
    /// the same rows): drawn as two agents, it would count twice.
    #[error(
        "'{first}' and '{second}' hold the same run{} (the same agent, configuration, seed \
         and results); give it once",
        .seed.map_or(String::new(), |s| format!(", seed {s}"))
    )]
    SameRun {
        /// The first agent's name.
        first: String,
        /// The second's.
        second: String,
        /// The seed the first's results record for it, where they record one.
        seed: Option<u32>,
    },
    /// The output path is a results directory (it has a run's manifest or lock): a report
    /// there would mix its files into the results, even with `overwrite`.
    #[error(
        "the output path {} is a results directory; write the report to another --out",
        .0.display()
    )]
    OutputIsResults(PathBuf),
    /// The output path exists and is not a directory.
    #[error("the output path {} exists and is not a directory", .0.display())]
    OutputNotADirectory(PathBuf),
    /// Reading or writing a file failed.
    #[error("{operation} {}: {error}", .path.display())]
    Io {
        /// What was being done: "writing", "creating the directory", ...
        operation: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// What failed.
        error: std::io::Error,
    },
    /// The report directory holds files this report would replace that no earlier report
    /// wrote (a directory a report did not create, or files put there since).
    #[error("{0}; pass --overwrite to replace them, or another --out")]
    ForeignFiles(ForeignFiles),
    /// plotters failed to draw.
    #[error("drawing a figure failed: {0}")]
    Draw(String),
    /// A drawn SVG could not be parsed back (a bug in this crate).
    #[error("an SVG figure could not be parsed: {0}")]
    Svg(String),
    /// svg2pdf failed.
    #[error("converting a figure to PDF failed: {0}")]
    Pdf(String),
}

/// Files in a report directory that no report wrote, which a report refuses to replace
/// unless told to. Its `Display` names the directory and the files and gives no advice, so
/// that each front end (command line, study, Python) adds its own way out.
///
/// ```
/// let found = bsuite_report::ForeignFiles {
///     dir: "report".into(),
///     files: vec!["notes.txt".into()],
/// };
/// assert_eq!(
///     found.to_string(),
///     "the report directory report holds files that no report wrote: notes.txt"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForeignFiles {
    /// The report directory.
    pub dir: PathBuf,
    /// The files, relative to it (at most a few are listed).
    pub files: Vec<PathBuf>,
}

impl std::fmt::Display for ForeignFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the report directory {} holds files that no report wrote: ",
            self.dir.display()
        )?;
        for (i, file) in self.files.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}", file.display())?;
        }
        Ok(())
    }
}
