//! `cargo xtask bench-all <agent>`: run an agent on a set of bsuite_ids (all 468 by default)
//! in parallel, one bsuite CSV per id, resumable and shardable, then print the scores. The
//! sweep itself is `bsuite_baselines::sweep`; the LibTorch agents run it from their own
//! binary, `bsuite-run`, with the same arguments.

use anyhow::Result;
use bsuite_baselines::factory;
use bsuite_baselines::sweep::{self, SweepArgs};

/// Runs `cargo xtask bench-all` for an agent built into xtask (those without LibTorch).
pub fn run(args: SweepArgs) -> Result<()> {
    let agent = factory::agent(&args.agent)?;
    sweep::run_sweep("bench-all", agent, &args)?;
    if !args.no_score && !args.estimate {
        print_scores(&args.results_dir());
    }
    Ok(())
}

/// Prints the score summary of `results_dir` (as `cargo xtask score DIR`); a failure to
/// score is a warning, since the results themselves are complete.
pub fn print_scores(results_dir: &std::path::Path) {
    let args = crate::score::ScoreArgs {
        dirs: vec![results_dir.as_os_str().to_owned()],
        json: false,
        ids: false,
        lenient: true,
        reps: crate::score::DEFAULT_REPS,
        bootstrap_seed: 0,
        export: Vec::new(),
    };
    if let Err(err) = crate::score::run(&args) {
        bsuite_baselines::errln!(
            "warning: could not score {}: {err:#}",
            results_dir.display()
        );
    }
}
