//! Standard output and standard error for the command-line tools, where a reader that
//! stops reading (`| head`, a closed terminal, `2>/dev/full`) ends the output, not the
//! program: the work goes on, results are still written, and the tool exits as it would
//! have (0 on success). Nothing panics and nothing is reported, as with `ls | head`.
//!
//! ```
//! bsuite_baselines::outln!("{} ids", 468);
//! bsuite_baselines::errln!("{} ids left", 0);
//! ```

use std::fmt;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once standard output has failed: later output is dropped.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes `args` and a newline to standard output unless it has been closed. Use it
/// through [`outln!`](crate::outln).
pub fn line(args: fmt::Arguments) {
    let _ = write_line(&mut Stdout, args);
}

/// Writes `args` and a newline to `out` in one write: `writeln!` writes each piece of the
/// format on its own, and threads that share standard output (`--jobs`) would interleave
/// their pieces.
fn write_line(out: &mut impl Write, args: fmt::Arguments) -> io::Result<()> {
    let mut text = fmt::format(args);
    text.push('\n');
    out.write_all(text.as_bytes())
}

/// Standard output as a [`Write`] that never fails: once the reader has gone, or standard
/// output fails in any other way (said once on standard error), writes are dropped. For
/// code that writes through `impl Write`.
pub struct Stdout;

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !CLOSED.load(Ordering::Relaxed) {
            if let Err(err) = io::stdout().lock().write_all(buf) {
                closed(&err);
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !CLOSED.load(Ordering::Relaxed) {
            if let Err(err) = io::stdout().flush() {
                closed(&err);
            }
        }
        Ok(())
    }
}

fn closed(err: &io::Error) {
    if !CLOSED.swap(true, Ordering::Relaxed) && err.kind() != io::ErrorKind::BrokenPipe {
        err_line(format_args!(
            "standard output failed ({err}); output stops here, the work goes on"
        ));
    }
}

/// Writes `args` and a newline to standard error; where that fails (a closed pipe, a full
/// disk) the message is dropped, since there is nowhere left to say so. Use it through
/// [`errln!`](crate::errln).
pub fn err_line(args: fmt::Arguments) {
    let _ = write_line(&mut io::stderr().lock(), args);
}

/// `println!` for the command-line tools: see [`console`](crate::console).
#[macro_export]
macro_rules! outln {
    () => {
        $crate::console::line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::console::line(format_args!($($arg)*))
    };
}

/// `eprintln!` for the command-line tools: a failing standard error drops the message
/// instead of panicking; see [`console`](crate::console).
#[macro_export]
macro_rules! errln {
    () => {
        $crate::console::err_line(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::console::err_line(format_args!($($arg)*))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records each `write` call, as a pipe shared by threads sees them.
    #[derive(Default)]
    struct Calls(Vec<Vec<u8>>);

    impl Write for Calls {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.push(buf.to_vec());
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Finding 3 of issue 30: with `--jobs 4`, `bandit_noisebandit_noise//1513: : ...`.
    /// A line goes out in one write, so lines of threads that share standard output never
    /// interleave.
    #[test]
    fn a_line_is_one_write() {
        let mut calls = Calls::default();
        let id = "bandit_noise/15";
        write_line(
            &mut calls,
            format_args!("{id}: {} episodes, {} steps", 10000, 3),
        )
        .unwrap();
        assert_eq!(
            calls.0,
            [b"bandit_noise/15: 10000 episodes, 3 steps\n".to_vec()]
        );
    }
}
