//! The logger interface: something that receives bsuite's logged rows.

use std::io;
use std::path::PathBuf;

use bsuite_envs::InfoValue;

/// One logged row: column names and values in order, e.g. `steps, episode, total_return,
/// episode_len, episode_return`, then the environment's `bsuite_info()` keys.
pub type Row = [(&'static str, InfoValue)];

/// A sink for logged rows (bsuite's `Logger.write`), such as [`crate::CsvLogger`] or
/// [`crate::TerminalLogger`].
pub trait Logger: Send {
    /// Records one row.
    fn write(&mut self, row: &Row) -> Result<(), LogError>;

    /// Makes everything written so far durable or visible; called after the final episode.
    fn flush(&mut self) -> Result<(), LogError> {
        Ok(())
    }
}

impl<L: Logger + ?Sized> Logger for Box<L> {
    fn write(&mut self, row: &Row) -> Result<(), LogError> {
        (**self).write(row)
    }
    fn flush(&mut self) -> Result<(), LogError> {
        (**self).flush()
    }
}

/// Why a row could not be logged.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// The results file exists and the caller did not ask to overwrite it.
    #[error(
        "results file {} already exists and is kept; replace it with --overwrite, or \
         write to another results directory",
        path.display()
    )]
    Exists {
        /// The existing file.
        path: PathBuf,
    },
    /// A file system operation failed.
    #[error("{action} {}: {error}", path.display())]
    Io {
        /// What we were doing, e.g. "writing".
        action: &'static str,
        /// The file or directory concerned.
        path: PathBuf,
        /// The underlying error (in the message, so not also a source: said once).
        error: io::Error,
    },
    /// Writing to the terminal (or another stream) failed.
    #[error("writing a log line: {0}")]
    Stream(#[source] io::Error),
}
