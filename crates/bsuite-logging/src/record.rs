//! Loading an environment with logging attached, as bsuite's `load_and_record*` functions do.

use std::path::{Path, PathBuf};

use bsuite_envs::{BsuiteId, Environment, LoadError};

use crate::csv_logging::CsvLogger;
use crate::logger::{LogError, Logger};
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
        } => Box::new(CsvLogger::create(id, &results_dir, overwrite)?),
        RecordMode::Terminal => Box::new(TerminalLogger::stderr()),
    };
    Ok(Logging::new(env, logger))
}

/// Loads `id` with the default seeding policy and logs to its CSV file in `results_dir`
/// (bsuite's `load_and_record_to_csv`). Fails if the file exists and `overwrite` is false.
pub fn load_and_record_to_csv(
    id: &BsuiteId,
    results_dir: &Path,
    overwrite: bool,
) -> Result<Logging<Box<dyn Environment>, CsvLogger>, RecordError> {
    let logger = CsvLogger::create(id, results_dir, overwrite)?;
    Ok(Logging::new(id.load()?, logger))
}

/// Loads `id` with the default seeding policy and logs to the terminal (bsuite's
/// `load_and_record_to_terminal`).
pub fn load_and_record_to_terminal(
    id: &BsuiteId,
) -> Result<Logging<Box<dyn Environment>, TerminalLogger<std::io::Stderr>>, RecordError> {
    Ok(Logging::new(id.load()?, TerminalLogger::stderr()))
}
