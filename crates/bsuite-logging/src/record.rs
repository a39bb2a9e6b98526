//! Loading an environment with logging attached, as bsuite's `load_and_record*` functions do.
//!
//! A recording environment is a writer of its results directory like any run: it holds the
//! directory's lock as a recorder ([`claim_for_recording`]), so a run cannot take the
//! directory while it records, and it refuses a directory that a run's manifest claims.
//! Recorders share a directory but not a file: each claims its id's file ([`recorder`]), so
//! a second recorder of the id, in this process or another, is refused when it opens.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bsuite_envs::{BsuiteId, Environment, LoadError};

use crate::csv_logging::CsvLogger;
use crate::dir_lock::{claim_file, DirLock, LockError};
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
    /// Another recorder writes the id's file now ([`LockError::FileInUse`]), or its claim
    /// could not be taken.
    #[error(transparent)]
    File(LockError),
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

/// The logger of a recorder of `id` into `results_dir`, which `lock` holds
/// ([`claim_for_recording`]): it claims the id's file first
/// ([`crate::dir_lock::claim_file`]), so that while it lives no other recorder of the id
/// into the directory starts, in this process or another, and holds the claim and `lock`
/// for its life.
pub fn recorder(
    id: &BsuiteId,
    results_dir: &Path,
    overwrite: bool,
    lock: Arc<DirLock>,
) -> Result<CsvLogger, RecordError> {
    let path = results_dir.join(crate::results::file_name(id));
    // A file that is there is refused as bsuite refuses it, whether or not its writer is
    // still open; `create` checks again under the claim.
    if !overwrite && path.is_file() {
        return Err(LogError::Exists { path }.into());
    }
    let claim = claim_file(&path).map_err(RecordError::File)?;
    Ok(CsvLogger::create(id, results_dir, overwrite)?
        .holding(lock)
        .claiming(claim))
}

/// A logger of `id`'s CSV file in `results_dir`, holding the directory as a recorder.
fn recording_logger(
    id: &BsuiteId,
    results_dir: &Path,
    overwrite: bool,
) -> Result<CsvLogger, RecordError> {
    recorder(
        id,
        results_dir,
        overwrite,
        claim_for_recording(results_dir)?,
    )
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
/// while another recorder writes it, and where [`claim_for_recording`] does.
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 55, item 19: a second recorder of an id in use was accepted, and its file
    /// replaced the first's. It is refused when it opens, even with `overwrite`; another id
    /// records beside it, and once the first is gone the id is free again.
    #[test]
    fn a_second_recorder_of_an_id_is_refused_when_it_opens() {
        let dir = std::env::temp_dir().join(format!("bsuite-record-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let id: BsuiteId = "catch/3".parse().unwrap();
        let first = load_and_record_to_csv(&id, &dir, false).unwrap();
        let second = load_and_record_to_csv(&id, &dir, true).err().unwrap();
        assert!(
            matches!(second, RecordError::File(LockError::FileInUse { .. })),
            "{second}"
        );
        let other: BsuiteId = "catch/4".parse().unwrap();
        let beside = load_and_record_to_csv(&other, &dir, false).unwrap();
        drop((first, beside));
        assert!(load_and_record_to_csv(&id, &dir, true).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
