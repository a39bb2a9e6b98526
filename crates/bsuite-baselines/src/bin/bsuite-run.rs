//! `bsuite-run <agent>`: runs a baseline agent, the LibTorch ones included, on bsuite_ids
//! and writes one bsuite CSV per id. `cargo xtask bench-all <agent>` builds and runs this
//! for the LibTorch agents, with the same arguments, and prints the scores afterwards.

use std::process::ExitCode;

use bsuite_baselines::sweep::{self, SweepArgs};
use bsuite_baselines::{agents, factory};
use clap::Parser;

/// Run a bsuite baseline agent on bsuite_ids, one CSV per id (resumable: complete results
/// are skipped; `--no-score` is accepted for `cargo xtask bench-all`, which scores).
#[derive(Parser, Debug)]
#[command(name = "bsuite-run", version)]
struct Cli {
    #[command(flatten)]
    args: SweepArgs,
}

fn run(args: SweepArgs) -> Result<(), Box<dyn std::error::Error>> {
    let agent = factory::agent(&args.agent)?;
    agents::check_device(args.device)?;
    sweep::run_sweep("bsuite-run", agent, &args)?;
    Ok(())
}

fn main() -> ExitCode {
    match run(Cli::parse().args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            bsuite_baselines::errln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
