//! `bsuite run <agent>`: run an agent on a set of bsuite_ids (all 468 by default) in
//! parallel, one bsuite CSV per id, resumable and shardable, over one seed or several,
//! then print the scores (`--estimate` projects the cost instead). The sweep itself is
//! `bsuite_baselines::sweep`, run in this process for every agent on its host engine (no
//! LibTorch); `--engine libtorch` and `--device cuda` run it from a `bsuite-run` built with
//! the `libtorch` feature, with the same arguments, as the program's [`LibTorchEngine`]
//! does it.

use std::ffi::OsString;
use std::process::Command;

use anyhow::{bail, Context, Result};
use bsuite_baselines::agents::Engine;
use bsuite_baselines::factory::{self, ComputeDevice};
use bsuite_baselines::sweep::{self, SweepArgs};

/// `bsuite run`'s arguments: a sweep's, and what computes the reference agents.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// The sweep.
    #[command(flatten)]
    pub sweep: SweepArgs,
    /// What computes the reference agents: `host` (Rust loops; no LibTorch) or `libtorch`
    /// (their LibTorch definitions, run by a bsuite-run built with LibTorch). `--device
    /// cuda` implies `libtorch`.
    #[arg(long, default_value_t = Engine::Host)]
    pub engine: Engine,
}

impl RunArgs {
    /// Whether this run needs LibTorch, and then whether its CUDA variant.
    pub fn libtorch(&self) -> Option<bool> {
        let cuda = matches!(self.sweep.device, ComputeDevice::Cuda(_));
        (self.engine == Engine::LibTorch || cuda).then_some(cuda)
    }
}

/// How a program runs the agents' LibTorch engine for `run --engine libtorch` and `run
/// --device cuda`, given whether CUDA is asked for and `run`'s arguments (those after
/// `run`); the scores are printed afterwards by [`run`].
pub type LibTorchEngine = fn(bool, &[OsString]) -> Result<()>;

/// Runs `bsuite run`: the sweep here on the host engines, or through `libtorch`; then the
/// scores of the ids it ran.
pub fn run(args: &RunArgs, libtorch: LibTorchEngine) -> Result<()> {
    // A bad configuration is refused before anything is built or run.
    args.sweep.check_config()?;
    match args.libtorch() {
        Some(cuda) => libtorch(cuda, &arguments_after_run())?,
        None => {
            let agent = factory::agent(&args.sweep.agent)?;
            sweep::run_sweep("bsuite run", agent, &args.sweep)?;
        }
    }
    if !args.sweep.no_score && !args.sweep.estimate {
        print_scores(&args.sweep)?;
    }
    Ok(())
}

/// This process's arguments after its `run` (or `cargo xtask`'s `bench-all`): what a
/// `bsuite-run` of the LibTorch engine is given.
pub fn arguments_after_run() -> Vec<OsString> {
    std::env::args_os()
        .skip(1)
        .skip_while(|arg| arg != "run" && arg != "bench-all")
        .skip(1)
        .collect()
}

/// The LibTorch engine of the installed `bsuite`: the `bsuite-run` beside it, which
/// `cargo xtask install --cuda` builds with LibTorch and carries LibTorch for.
pub fn bsuite_run_beside(_cuda: bool, args: &[OsString]) -> Result<()> {
    let me = std::env::current_exe().context("finding this program's path")?;
    let run = me.with_file_name(format!("bsuite-run{}", std::env::consts::EXE_SUFFIX));
    if !run.is_file() {
        bail!(
            "--engine libtorch and --device cuda run the agents' LibTorch definitions with a \
             bsuite-run built with LibTorch beside this bsuite, and {} has none: install the \
             tree that has one (`cargo xtask install --cuda --prefix DIR` in a checkout, then \
             DIR/bin/bsuite), or run `cargo xtask bench-all ... --engine libtorch` in the \
             checkout; the host engine (the default) runs every agent without LibTorch",
            me.parent().unwrap_or(&me).display()
        );
    }
    let mut command = Command::new(&run);
    command.args(args);
    let status = dies_with_this_process(&mut command)
        .status()
        .with_context(|| format!("running {}", run.display()))?;
    if !status.success() {
        bail!("{} failed ({status})", run.display());
    }
    Ok(())
}

/// Makes `command`'s process end with a SIGTERM when this one ends in any way, so that a
/// killed `bsuite` leaves no sweep running that holds its results directory. Where the
/// platform cannot, it is left as it is.
pub fn dies_with_this_process(command: &mut Command) -> &mut Command {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        let parent = std::process::id() as libc::pid_t;
        // SAFETY: the hook calls only async-signal-safe functions (prctl, getppid, _exit).
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The parent may have ended before the request: then end now.
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
    }
    command
}

/// Prints the score summary of the ids the sweep `args` ran (its shard's, for a shard) in
/// its results directory, as `bsuite score DIR --sweep IDS` would; a failure to score is a
/// warning, since the results themselves are complete.
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
