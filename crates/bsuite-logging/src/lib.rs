//! bsuite-format logging: CSV files that Python bsuite reads, terminal logging, and reading
//! results back.
//!
//! Wrap any [`bsuite_envs::Environment`] in [`Logging`] with a [`Logger`] ([`CsvLogger`],
//! [`TerminalLogger`], or your own) to get bsuite's rows at its logarithmic episode schedule;
//! [`record::load_and_record`] does the loading and wrapping in one call.
//!
//! ```
//! use bsuite_envs::Environment;
//! use bsuite_logging::record::load_and_record_to_csv;
//!
//! let dir = std::env::temp_dir().join(format!("bsuite-lib-doc-{}", std::process::id()));
//! let id = "catch/0".parse().unwrap();
//! let mut env = load_and_record_to_csv(&id, &dir, true).unwrap();
//! for _ in 0..10 {
//!     let mut ts = env.reset();
//!     while !ts.last() {
//!         ts = env.step(1).unwrap();
//!     }
//! }
//! env.finish().unwrap(); // waits for the file and reports any I/O error
//! let csv = std::fs::read_to_string(dir.join("bsuite_id_-_catch-0.csv")).unwrap();
//! assert_eq!(csv.lines().count(), 11); // header + episodes 1..=10
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```

pub mod csv_logging;
pub mod dir_lock;
mod logger;
pub mod manifest;
pub mod pyfmt;
pub mod record;
pub mod results;
pub mod schedule;
pub mod terminal_logging;
mod wrapper;

pub use csv_logging::CsvLogger;
pub use logger::{LogError, Logger, Row};
pub use terminal_logging::TerminalLogger;
pub use wrapper::Logging;
