//! Loading an environment with logging attached, as bsuite's `load_and_record*` functions do.
//!
//! A recording environment is a writer of its results directory like any run: it holds the
//! directory's lock as a recorder ([`claim_for_recording`]), so a run cannot take the
//! directory while it records, and it refuses a directory that a run's manifest claims.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bsuite_envs::{BsuiteId, Environment, LoadError};

use crate::csv_logging::CsvLogger;
use crate::dir_lock::DirLock;
use crate::logger::{LogError, Logger};
use crate::manifest::ClaimError;
use crate::terminal_logging::TerminalLogger;
use crate::wrapper::Logging;

/// A bsuite environment behind a logger chosen at run time.
pub type RecordedEnv = Logging<Box<dyn Environment>, Box<dyn Logger>>;

/// Where [`load_and_record`] sends the rows (bsuite's `logging_mode`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordMode {
    /// One CSV file per id in `results_dir`; `overwrite` allows replacing an existing file.
    Csv {
        /// The results directory (created if missing).
        results_dir: PathBuf,
        /// Replace an existing results file instead of failing.
        overwrite: bool,
    },
    /// One line per logged row on standard error.
    Terminal,
}

/// Why an environment could not be loaded with logging.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The environment could not be loaded.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The logger could not be set up (e.g. the results file exists).
    #[error(transparent)]
    Log(#[from] LogError),
    /// The results directory is another writer's: a run holds it, or its manifest
    /// claims it.
    #[error(transparent)]
    Claim(#[from] ClaimError),
}

/// Takes `results_dir` (created if missing) for recording, as one recorder beside any
/// others: refused while a run holds it or when a run's manifest claims it. Give the lock
/// to every [`CsvLogger`] that records there ([`CsvLogger::holding`]).
pub fn claim_for_recording(results_dir: &Path) -> Result<Arc<DirLock>, RecordError> {
    std::fs::create_dir_all(results_dir).map_err(|error| LogError::Io {
        action: "creating results directory",
        path: results_dir.to_path_buf(),
        error,
    })?;
    Ok(Arc::new(crate::manifest::claim_for_recording(results_dir)?))
}

/// A logger of `id`'s CSV file in `results_dir`, holding the directory as a recorder.
fn recording_logger(
    id: &BsuiteId,
    results_dir: &Path,
    overwrite: bool,
) -> Result<CsvLogger, RecordError> {
    let lock = claim_for_recording(results_dir)?;
    Ok(CsvLogger::create(id, results_dir, overwrite)?.holding(lock))
}

/// Loads `id` with the default seeding policy and attaches the logger of `mode` (bsuite's
/// `load_and_record`).
///
/// ```
/// use bsuite_logging::record::{load_and_record, RecordMode};
///
/// let id = "catch/0".parse().unwrap();
/// let env = load_and_record(&id, RecordMode::Terminal).unwrap();
/// assert_eq!(env.steps(), 0);
/// ```
pub fn load_and_record(id: &BsuiteId, mode: RecordMode) -> Result<RecordedEnv, RecordError> {
    let env = id.load()?;
    let logger: Box<dyn Logger> = match mode {
        RecordMode::Csv {
            results_dir,
            overwrite,
        } => Box::new(recording_logger(id, &results_dir, overwrite)?),
        RecordMode::Terminal => Box::new(TerminalLogger::stderr()),
    };
    Ok(Logging::new(env, logger))
}

/// Loads `id` with the default seeding policy and logs to its CSV file in `results_dir`
/// (bsuite's `load_and_record_to_csv`). Fails if the file exists and `overwrite` is false,
/// and where [`claim_for_recording`] does.
pub fn load_and_record_to_csv(
    id: &BsuiteId,
    results_dir: &Path,
    overwrite: bool,
) -> Result<Logging<Box<dyn Environment>, CsvLogger>, RecordError> {
    let logger = recording_logger(id, results_dir, overwrite)?;
    Ok(Logging::new(id.load()?, logger))
}

/// Loads `id` with the default seeding policy and logs to the terminal (bsuite's
/// `load_and_record_to_terminal`).
pub fn load_and_record_to_terminal(
    id: &BsuiteId,
) -> Result<Logging<Box<dyn Environment>, TerminalLogger<std::io::Stderr>>, RecordError> {
    Ok(Logging::new(id.load()?, TerminalLogger::stderr()))
}
