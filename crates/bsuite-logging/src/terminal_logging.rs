//! [`TerminalLogger`]: one readable line per logged row (bsuite's `terminal_logging.py`).

use std::io::{self, Write};

use bsuite_envs::InfoValue;

use crate::logger::{LogError, Logger, Row};

/// Prints each row as bsuite's `pretty_dict` does: keys sorted, `key = value` joined by
/// `" | "`, integers as they are and floats with four decimals.
///
/// bsuite sends these lines through absl logging, which writes to standard error;
/// [`TerminalLogger::stderr`] does the same (without absl's prefix).
///
/// ```
/// use bsuite_envs::InfoValue::{Float, Int};
/// use bsuite_logging::terminal_logging::pretty_row;
///
/// let row = [("steps", Int(9)), ("episode", Int(1)), ("total_return", Float(-1.0))];
/// assert_eq!(pretty_row(&row), "episode = 1 | steps = 9 | total_return = -1.0000");
/// ```
pub struct TerminalLogger<W> {
    out: W,
}

impl TerminalLogger<io::Stderr> {
    /// Logs to standard error, where bsuite's absl logging goes.
    pub fn stderr() -> Self {
        TerminalLogger { out: io::stderr() }
    }
}

impl<W: Write + Send> TerminalLogger<W> {
    /// Logs to `out`.
    pub fn new(out: W) -> Self {
        TerminalLogger { out }
    }

    /// The output stream.
    pub fn get_ref(&self) -> &W {
        &self.out
    }
}

impl<W: Write + Send> Logger for TerminalLogger<W> {
    fn write(&mut self, row: &Row) -> Result<(), LogError> {
        let mut line = pretty_row(row);
        line.push('\n');
        self.out
            .write_all(line.as_bytes())
            .map_err(LogError::Stream)
    }

    fn flush(&mut self) -> Result<(), LogError> {
        self.out.flush().map_err(LogError::Stream)
    }
}

/// bsuite's `pretty_dict` of a row: `k1 = v1 | ... | kn = vn` with keys sorted.
pub fn pretty_row(row: &Row) -> String {
    let mut pairs: Vec<_> = row.iter().collect();
    pairs.sort_by_key(|(key, _)| *key);
    pairs
        .iter()
        .map(|(key, value)| format!("{key} = {}", value_format(*value)))
        .collect::<Vec<_>>()
        .join(" | ")
}

/// bsuite's `value_format`: integers with `str`, floats with `f'{v:0.4f}'`.
pub fn value_format(value: InfoValue) -> String {
    match value {
        InfoValue::Int(v) => v.to_string(),
        InfoValue::Float(v) if v.is_nan() => "nan".to_string(),
        // Rust's fixed-precision formatting rounds the exact binary value half to even,
        // like Python's.
        InfoValue::Float(v) => format!("{v:.4}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use InfoValue::{Float, Int};

    #[test]
    fn formats_like_python() {
        assert_eq!(value_format(Float(0.00005)), "0.0001");
        assert_eq!(value_format(Float(0.125)), "0.1250");
        assert_eq!(value_format(Float(2.00005)), "2.0000"); // below the tie in binary
        assert_eq!(value_format(Float(-0.0)), "-0.0000");
        assert_eq!(value_format(Float(f64::INFINITY)), "inf");
        assert_eq!(value_format(Float(f64::NAN)), "nan");
        assert_eq!(value_format(Float(1e20)), "100000000000000000000.0000");
        assert_eq!(value_format(Int(-3)), "-3");
    }

    #[test]
    fn writes_one_sorted_line_per_row() {
        let mut logger = TerminalLogger::new(Vec::new());
        let row = [
            ("steps", Int(10)),
            ("episode", Int(1)),
            ("total_return", Float(-0.007)),
            ("episode_len", Int(10)),
            ("episode_return", Float(-0.007)),
            ("total_bad_episodes", Int(1)),
            ("denoised_return", Float(0.0)),
        ];
        logger.write(&row).unwrap();
        logger.flush().unwrap();
        assert_eq!(
            String::from_utf8(logger.out).unwrap(),
            "denoised_return = 0.0000 | episode = 1 | episode_len = 10 | episode_return = \
             -0.0070 | steps = 10 | total_bad_episodes = 1 | total_return = -0.0070\n"
        );
    }
}
