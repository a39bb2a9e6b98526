//! Rust errors as Python exceptions, carrying the Rust message: `ValueError` for bad ids,
//! settings and actions, `OSError` (or the subclass that fits the OS error) for files.
//!
//! Every fallible call the bindings make goes through one of these functions, so nothing
//! that fails on the Rust side reaches Python as a panic.

use std::io;

use bsuite_envs::{ActionError, IdError, LoadError};
use bsuite_logging::dir_lock::LockError;
use bsuite_logging::manifest::ClaimError;
use bsuite_logging::record::RecordError;
use bsuite_logging::results::{LayoutError, ReadError};
use bsuite_logging::LogError;
use pyo3::exceptions::{
    PyBlockingIOError, PyFileExistsError, PyFileNotFoundError, PyIsADirectoryError,
    PyNotADirectoryError, PyOSError, PyPermissionError, PyRuntimeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::PyType;

/// A malformed or unknown bsuite_id.
pub fn id_error(err: &IdError) -> PyErr {
    PyValueError::new_err(err.to_string())
}

/// An action outside the action spec.
pub fn action_error(err: &ActionError) -> PyErr {
    PyValueError::new_err(err.to_string())
}

/// An environment that could not be built: a bad id, or MNIST data that cannot be read.
pub fn load_error(err: &LoadError) -> PyErr {
    match err {
        LoadError::Id(err) => id_error(err),
        LoadError::Mnist(bsuite_envs::mnist_data::MnistError::Io { source, .. }) => {
            os_error(source, err.to_string())
        }
        LoadError::Mnist(_) => PyOSError::new_err(err.to_string()),
        LoadError::Other(_) => PyRuntimeError::new_err(err.to_string()),
    }
}

/// A logger that cannot start or write. An existing results file raises
/// `bsuite_rs.ResultsFileExistsError`, both a `FileExistsError` (it is a problem with a
/// file) and a `ValueError` (what bsuite raises there, so callers written for bsuite still
/// catch it).
pub fn log_error(py: Python<'_>, err: &LogError) -> PyErr {
    match err {
        LogError::Exists { path } => {
            let class = py
                .import("bsuite_rs._errors")
                .and_then(|m| m.getattr("ResultsFileExistsError"))
                .and_then(|class| Ok(class.cast_into::<PyType>()?));
            match class {
                Ok(class) => {
                    // The logger's own message advises the command line's --overwrite.
                    let message = format!(
                        "results file {} already exists and is kept; pass overwrite=True to \
                         replace it, or record into another directory",
                        path.display()
                    );
                    PyErr::from_type(
                        class,
                        (EEXIST, message, path.to_string_lossy().into_owned()),
                    )
                }
                Err(import_error) => import_error,
            }
        }
        LogError::Io { error, .. } | LogError::Stream(error) => os_error(error, err.to_string()),
    }
}

/// A results directory or file that cannot be taken for recording: a run holds it, or
/// another recorder the id's file (`BlockingIOError`, as for a lock already taken), a run's
/// manifest claims it (`FileExistsError`), or the lock or the manifest failed (`OSError`).
/// The messages are Python's: the library's own advise the command line's flags.
pub fn record_error(py: Python<'_>, err: &RecordError) -> PyErr {
    let message = err.to_string();
    match err {
        RecordError::Load(err) => load_error(err),
        RecordError::Log(err) => log_error(py, err),
        RecordError::File(error) => lock_error(error),
        RecordError::Claim(claim) => match claim {
            ClaimError::Lock { error } => lock_error(error),
            ClaimError::Recording { dir } => PyBlockingIOError::new_err(format!(
                "results directory {} is being recorded into by other recorders; wait for \
                 them to finish, or record into another directory",
                dir.display()
            )),
            ClaimError::RunsResults { dir, theirs } => {
                let episodes = theirs
                    .num_episodes
                    .map_or_else(String::new, |n| format!(", {n} episodes per id"));
                PyFileExistsError::new_err(format!(
                    "{} holds the results of a run (agent {}, seed {}{episodes}, as its \
                     bsuite_run.json says); recording into it would mix another run's file \
                     into them: record into another directory",
                    dir.display(),
                    theirs.agent,
                    theirs.seed
                ))
            }
            ClaimError::OtherRun { .. } | ClaimError::Unclaimed { .. } => {
                PyFileExistsError::new_err(message)
            }
            ClaimError::Unreadable { .. } | ClaimError::Write { .. } => PyOSError::new_err(message),
        },
    }
}

/// A lock a recorder could not take, in Python's words.
fn lock_error(error: &LockError) -> PyErr {
    match error {
        LockError::Busy { dir, owner }
        | LockError::OtherSplit {
            dir, theirs: owner, ..
        } => PyBlockingIOError::new_err(format!(
            "results directory {} is in use by another run ({owner}); wait for it to end, \
                 or record into another directory",
            dir.display()
        )),
        LockError::FileInUse {
            path,
            owner,
            this_process: true,
        } => PyBlockingIOError::new_err(format!(
            "results file {} is being recorded by another environment of this process \
             ({owner}): an Environment or VecEnv recording it that is still open. Two \
             recorders of one file would lose one's rows; close() the other first, or record \
             into another directory",
            path.display()
        )),
        LockError::FileInUse { path, owner, .. } => {
            let owner = match owner.is_empty() {
                true => "one that is starting".to_string(),
                false => owner.clone(),
            };
            PyBlockingIOError::new_err(format!(
                "results file {} is being recorded by another process ({owner}). Two \
                 recorders of one file would lose one's rows; wait for it to finish, or \
                 record into another directory",
                path.display()
            ))
        }
        LockError::Unsupported { path, error } => os_error(
            error,
            format!(
                "the filesystem of {} refuses flock ({error}), so no second writer can be \
                 kept out; record into a directory on a filesystem that locks (a local one)",
                path.parent().unwrap_or(path).display()
            ),
        ),
        LockError::Io { error: io, .. } => os_error(io, error.to_string()),
    }
}

/// A results directory laid out for the other kind of run (`FileExistsError`, as for a
/// directory a run's manifest claims): one seed's files where seed directories go, or the
/// reverse.
pub fn layout_error(err: &LayoutError) -> PyErr {
    let advice = match err {
        LayoutError::HoldsOneSeed { .. } => {
            "record the seeds of a run (run_seed, run_seeds) into a directory of their own"
        }
        LayoutError::HoldsSeeds { .. } => {
            "give run_seed (run_seeds) to record one of those seeds, or another directory"
        }
    };
    PyFileExistsError::new_err(format!("{err}: {advice}"))
}

/// A copy of `err` (`LogError` is not `Clone`, as `io::Error` is not): the same variant,
/// path and message, and the same OS error where there is one.
pub fn copy_log_error(err: &LogError) -> LogError {
    let copy = |error: &io::Error| match error.raw_os_error() {
        Some(code) => io::Error::from_raw_os_error(code),
        None => io::Error::new(error.kind(), error.to_string()),
    };
    match err {
        LogError::Exists { path } => LogError::Exists { path: path.clone() },
        LogError::Io {
            action,
            path,
            error,
        } => LogError::Io {
            action,
            path: path.clone(),
            error: copy(error),
        },
        LogError::Stream(error) => LogError::Stream(copy(error)),
    }
}

/// `EEXIST`, the errno of an existing file, on every platform CPython runs on.
const EEXIST: i32 = 17;

/// A results directory or file that cannot be read. I/O problems are `OSError`s and a
/// directory without results is a `FileNotFoundError`; bad content (a file name that is not
/// a bsuite id, a malformed row) is a `ValueError`.
pub fn read_error(err: &ReadError) -> PyErr {
    match err {
        ReadError::Io { error, .. } => os_error(error, err.to_string()),
        ReadError::NoResults { .. } => PyFileNotFoundError::new_err(err.to_string()),
        ReadError::FileName { .. } | ReadError::Malformed { .. } => {
            PyValueError::new_err(err.to_string())
        }
    }
}

/// A report that cannot be written, in Python's words (the library's own advise the
/// command line's flags).
pub fn report_error(err: &bsuite_report::Error) -> PyErr {
    use bsuite_report::Error;
    match err {
        Error::NoAgents | Error::SameRun { .. } => PyValueError::new_err(err.to_string()),
        Error::DuplicateAgent(name) => PyValueError::new_err(format!(
            "two results directories have the agent name '{name}'; name them apart, as in \
             report({{'first': dir1, 'second': dir2}})"
        )),
        Error::OutputNotADirectory(_) => PyNotADirectoryError::new_err(err.to_string()),
        Error::OutputIsResults(out) => PyFileExistsError::new_err(format!(
            "the output path {} is a results directory; give the report another out",
            out.display()
        )),
        Error::ForeignFiles(found) => PyFileExistsError::new_err(format!(
            "{found}; pass overwrite=True to replace them, or give the report another out"
        )),
        Error::Io { error, .. } => os_error(error, err.to_string()),
        Error::Draw(_) | Error::Svg(_) | Error::Pdf(_) => PyRuntimeError::new_err(err.to_string()),
    }
}

/// The `OSError` subclass Python itself raises for `error`'s kind, with `message` (which
/// names the file) and the errno when there is one.
pub fn os_error(error: &io::Error, message: String) -> PyErr {
    macro_rules! raise {
        ($class:ty) => {
            match error.raw_os_error() {
                Some(errno) => <$class>::new_err((errno, message)),
                None => <$class>::new_err(message),
            }
        };
    }
    match error.kind() {
        io::ErrorKind::NotFound => raise!(PyFileNotFoundError),
        io::ErrorKind::PermissionDenied => raise!(PyPermissionError),
        io::ErrorKind::AlreadyExists => raise!(PyFileExistsError),
        io::ErrorKind::IsADirectory => raise!(PyIsADirectoryError),
        io::ErrorKind::NotADirectory => raise!(PyNotADirectoryError),
        _ => raise!(PyOSError),
    }
}
