//! `cargo xtask bench-all <agent>`: run an agent on a set of bsuite_ids (all 468 by default)
//! in parallel, one bsuite CSV per id, resumable and shardable, then print the scores. The
//! sweep itself is `bsuite_baselines::sweep`, run here for every agent on its host engine
//! (no LibTorch); `--engine libtorch` and `--device cuda` run it from `bsuite-run` built
//! with the `libtorch` feature, with the same arguments.

use anyhow::Result;
use bsuite_baselines::agents::Engine;
use bsuite_baselines::factory::{self, ComputeDevice};
use bsuite_baselines::sweep::{self, SweepArgs};

/// `cargo xtask bench-all`'s arguments: a sweep's, and what computes the reference agents.
#[derive(clap::Args, Debug)]
pub struct BenchAllArgs {
    /// The sweep.
    #[command(flatten)]
    pub sweep: SweepArgs,
    /// What computes the reference agents: `host` (Rust loops; no LibTorch is provisioned)
    /// or `libtorch` (their LibTorch definitions: LibTorch is found or installed and
    /// bsuite-run is built with it). `--device cuda` implies `libtorch`.
    #[arg(long, default_value_t = Engine::Host)]
    pub engine: Engine,
}

impl BenchAllArgs {
    /// Whether this run needs LibTorch, and then whether its CUDA variant.
    pub fn libtorch(&self) -> Option<bool> {
        let cuda = matches!(self.sweep.device, ComputeDevice::Cuda(_));
        (self.engine == Engine::LibTorch || cuda).then_some(cuda)
    }
}

/// Runs `cargo xtask bench-all` for an agent built into xtask (those without LibTorch).
pub fn run(args: SweepArgs) -> Result<()> {
    let agent = factory::agent(&args.agent)?;
    sweep::run_sweep("bench-all", agent, &args)?;
    if !args.no_score && !args.estimate {
        print_scores(&args)?;
    }
    Ok(())
}

/// Prints the score summary of the ids the sweep `args` ran (its shard's, for a shard) in
/// its results directory, as `cargo xtask score DIR --sweep IDS` would; a failure to score
/// is a warning, since the results themselves are complete.
pub fn print_scores(args: &SweepArgs) -> Result<()> {
    let results_dir = args.results_dir();
    let ids = args.ids()?;
    if ids.is_empty() {
        return Ok(());
    }
    let args = crate::score::ScoreArgs {
        dirs: vec![results_dir.as_os_str().to_owned()],
        json: false,
        ids: false,
        lenient: true,
        sweep: ids.iter().map(ToString::to_string).collect(),
        reps: crate::score::DEFAULT_REPS,
        bootstrap_seed: 0,
        export: Vec::new(),
        overwrite: false,
    };
    if let Err(err) = crate::score::run(&args) {
        bsuite_baselines::errln!(
            "warning: could not score {}: {err:#}",
            results_dir.display()
        );
    }
    Ok(())
}
