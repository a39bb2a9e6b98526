//! `bsuite`: the command line of bsuite-rs (see the `bsuite_cli` library).

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(bsuite_cli::main_from(
        std::env::args_os(),
        &bsuite_cli::Host::installed(),
    ))
}
