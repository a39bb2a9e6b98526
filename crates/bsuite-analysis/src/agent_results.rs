//! What one results directory holds: an agent's name, its runs and its manifest.

use std::path::{Path, PathBuf};

use bsuite_envs::Experiment;
use bsuite_logging::manifest::RunManifest;
use bsuite_logging::results::{self, ReadError, ResultSet, RunTable, Skipped};

/// One agent's results directory: a name and its runs (one per bsuite_id, in sweep order).
#[derive(Debug)]
pub struct AgentResults {
    /// The name shown in tables and legends.
    pub name: String,
    /// The runs.
    pub runs: Vec<RunTable>,
    /// Files of the results directory that were not loaded, and why.
    pub skipped: Vec<Skipped>,
    /// What the directory's `bsuite_run.json` says wrote it, where it has a readable one.
    pub manifest: Option<RunManifest>,
    /// The results directory the runs were read from (`None` for results built in memory).
    pub source: Option<PathBuf>,
}

impl AgentResults {
    /// An agent from results already read.
    pub fn new(name: impl Into<String>, results: ResultSet) -> AgentResults {
        AgentResults {
            name: name.into(),
            runs: results.runs,
            skipped: results.skipped,
            manifest: None,
            source: None,
        }
    }

    /// Reads an agent's results directory; any bad file is an error.
    pub fn load(name: impl Into<String>, dir: &Path) -> Result<AgentResults, ReadError> {
        Ok(AgentResults::new(name, results::load_dir(dir)?).with_manifest_of(dir))
    }

    /// Reads an agent's results directory, skipping bad files (listed in `skipped`).
    pub fn load_lenient(name: impl Into<String>, dir: &Path) -> Result<AgentResults, ReadError> {
        Ok(AgentResults::new(name, results::load_dir_lenient(dir)?).with_manifest_of(dir))
    }

    /// Records `dir` as the source and attaches its manifest; an unreadable manifest is
    /// left out, as it does not change the scores.
    fn with_manifest_of(mut self, dir: &Path) -> AgentResults {
        self.manifest = RunManifest::read(dir).ok().flatten();
        self.source = Some(dir.to_path_buf());
        self
    }

    /// The runs of one experiment, in sweep order.
    pub fn runs_of(&self, experiment: &Experiment) -> Vec<&RunTable> {
        self.runs
            .iter()
            .filter(|r| r.experiment().name == experiment.name)
            .collect()
    }
}
