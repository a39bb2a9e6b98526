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
    let _ = writeln!(Stdout, "{args}");
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
    let _ = writeln!(io::stderr().lock(), "{args}");
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
