//! `bsuite-run <agent>`: runs a baseline agent on bsuite_ids and writes one bsuite CSV per
//! id. `bsuite run <agent> --engine libtorch` (and `cargo xtask bench-all`, which builds
//! it) runs this for the reference agents' LibTorch engine, with the same arguments, and
//! prints the scores afterwards. The agents compute on their host
//! engines; a build with the `libtorch` feature adds `--engine libtorch` and `--device
//! cuda`, which run their LibTorch definitions.

use std::process::ExitCode;

use bsuite_baselines::agents::{self, Engine, NoLibTorch};
use bsuite_baselines::factory::{self, ComputeDevice};
use bsuite_baselines::sweep::{self, SweepArgs};
use clap::Parser;

/// Run a bsuite baseline agent on bsuite_ids, one CSV per id (resumable: complete results
/// are skipped; `--no-score` is accepted for `bsuite run`, which scores).
#[derive(Parser, Debug)]
#[command(name = "bsuite-run", version)]
struct Cli {
    #[command(flatten)]
    args: SweepArgs,
    /// What computes the reference agents: `host` (Rust loops, no LibTorch) or `libtorch`
    /// (their LibTorch definitions; builds with the `libtorch` feature). `--device cuda`
    /// implies `libtorch`.
    #[arg(long, default_value_t = Engine::Host)]
    engine: Engine,
}

fn run(cli: Cli) -> Result<(), Box<dyn std::error::Error>> {
    let Cli { args, engine } = cli;
    let engine = match args.device {
        ComputeDevice::Cpu => engine,
        ComputeDevice::Cuda(_) if cfg!(feature = "libtorch") => Engine::LibTorch,
        ComputeDevice::Cuda(_) => {
            return Err(NoLibTorch {
                what: format!("--device {}", args.device),
            }
            .into())
        }
    };
    agents::set_engine(engine)?;
    #[cfg(feature = "libtorch")]
    agents::check_device(args.device)?;
    // Looked up after the engine is set: the entry's description names it.
    let agent = factory::agent(&args.agent)?;
    sweep::run_sweep("bsuite-run", agent, &args)?;
    Ok(())
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            bsuite_baselines::errln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
