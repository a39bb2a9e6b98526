//! The `bsuite` command: what a researcher runs to evaluate agents on bsuite.
//!
//! [`Cli`] is the one definition of the command line. Three programs parse it: the
//! `bsuite` binary of this crate (`cargo install --locked --path crates/bsuite-cli`), the
//! `bsuite` console script of the Python wheel (`bsuite_rs._core.main`), and `cargo xtask`,
//! whose `bench-all`, `score`, `report` and the rest are aliases of these commands. Each
//! runs a [`Command`] with [`run`] on its [`Host`], which says what differs between them:
//! where the LibTorch engine comes from and where the shipped baselines do.
//!
//! One module per command ([`run`](mod@run), [`score`], [`compare`], [`report`],
//! [`report_check`], [`study`], [`merge`], [`verify`], [`cluster`], [`agents`], [`ids`]),
//! and what several share: [`baselines`] (the shipped baselines, built in),
//! [`results_dirs`] (results directories named on the command line) and [`owned_file`]
//! (files the commands write beside the user's own).

#![deny(missing_docs)]

pub mod agents;
pub mod baselines;
pub mod cluster;
pub mod compare;
pub mod ids;
pub mod merge;
pub mod owned_file;
pub mod report;
pub mod report_check;
pub mod results_dirs;
pub mod run;
pub mod score;
pub mod study;
pub mod verify;

use std::ffi::OsString;

use clap::{Parser, Subcommand};

pub use baselines::Baselines;

/// The `bsuite` command line.
#[derive(Parser, Debug)]
#[command(
    name = "bsuite",
    version,
    about = "bsuite-rs: run agents on the Behaviour Suite for RL, score them, compare them with \
             the baselines and write the report",
    after_help = "`bsuite COMMAND --help` tells each command's options. Python agents record \
                  their results with the bsuite_rs package (`load_and_record_to_csv`); \
                  score, compare, report and study read them as they read `run`'s."
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands of `bsuite`.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run an agent on many bsuite_ids (default: all 468) in parallel, one bsuite CSV per
    /// id, over one seed or several; resumable (finished ids are skipped) and shardable;
    /// then print the scores (`--estimate` projects the cost instead).
    Run(run::RunArgs),
    /// Score results directories (bsuite CSVs) as bsuite does: per experiment, tag and id;
    /// over seeds with intervals.
    Score(score::ScoreArgs),
    /// Compare two agents (results directories, directories of seed-<s>/ ones, or shipped
    /// baselines) per tag and experiment: the difference and P(A > B) with intervals, and a
    /// verdict that names the seeds needed when the evidence is not enough.
    Compare(compare::CompareArgs),
    /// Write the report of one or more results directories, beside the shipped baselines
    /// if asked: summary and per-experiment figures (SVG and PDF), a LaTeX appendix and a
    /// self-contained index.html.
    Report(report::ReportArgs),
    /// Compile a written report's LaTeX with pdflatex and check pages and figures.
    ReportCheck(report_check::ReportCheckArgs),
    /// Run every variant of a study file (agents and configurations) into
    /// `results/<variant>/` and write one report of them all (resumable and shardable).
    Study(study::StudyArgs),
    /// Gather the results directories of one split run (shards, nodes) into OUT with their
    /// manifest; refuses directories of different runs and ids whose files differ.
    Merge(merge::MergeArgs),
    /// List the missing, partial and damaged ids of a results directory; fails unless
    /// every selected id is complete.
    Verify(verify::VerifyArgs),
    /// Write a recipe that runs a sweep over a cluster from an installed tree: a Slurm
    /// array with a final merge and verify, or a Kubernetes Indexed Job.
    Cluster {
        /// The cluster's kind.
        #[command(subcommand)]
        target: cluster::ClusterTarget,
    },
    /// List every agent's hyperparameters (`--config KEY=VALUE`) with their defaults.
    Agents,
    /// Print all 468 bsuite_ids with settings, episodes, tags and specs as JSON.
    Ids,
}

/// Where a command line runs: what differs between the `bsuite` binary, the Python wheel's
/// `bsuite` and `cargo xtask`'s aliases.
#[derive(Clone, Debug)]
pub struct Host {
    /// How `run --engine libtorch` and `run --device cuda` run the LibTorch engine.
    pub libtorch: run::LibTorchEngine,
    /// The shipped baselines that `--baselines` and `compare` read when the command names
    /// no `--baselines-dir`.
    pub baselines: Baselines,
}

impl Host {
    /// The installed `bsuite`: the LibTorch engine through the `bsuite-run` beside it
    /// ([`run::bsuite_run_beside`]), the baselines built in.
    pub fn installed() -> Host {
        Host {
            libtorch: run::bsuite_run_beside,
            baselines: Baselines::built_in(),
        }
    }
}

/// Runs one command on `host`.
pub fn run(command: Command, host: &Host) -> anyhow::Result<()> {
    match command {
        Command::Run(args) => run::run(&args, host.libtorch),
        Command::Score(args) => score::run(&args),
        Command::Compare(args) => compare::run(&args, &host.baselines),
        Command::Report(args) => report::run(&args, &host.baselines),
        Command::ReportCheck(args) => report_check::run(&args),
        Command::Study(args) => study::run(&args, &host.baselines),
        Command::Merge(args) => merge::run(&args),
        Command::Verify(args) => verify::run(&args),
        Command::Cluster { target } => cluster::run(&target),
        Command::Agents => agents::run(),
        Command::Ids => ids::run(),
    }
}

/// The whole program: parses `argv` (the first word is the program's, and is read as
/// `bsuite` however the program was started, so every way of starting it has one help
/// text), runs the command on `host` and returns the exit status: 0, 1 for an error
/// (printed), 2 for a command line clap refuses.
pub fn main_from<I, T>(argv: I, host: &Host) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    let mut argv: Vec<OsString> = argv.into_iter().map(Into::into).collect();
    match argv.first_mut() {
        Some(program) => *program = "bsuite".into(),
        None => argv.push("bsuite".into()),
    }
    let cli = match Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(error) => {
            // Help and version go to standard output with status 0, errors to standard
            // error with 2.
            let _ = error.print();
            return u8::try_from(error.exit_code()).unwrap_or(2);
        }
    };
    match run(cli.command, host) {
        Ok(()) => 0,
        Err(error) => {
            bsuite_baselines::errln!("error: {error:#}");
            1
        }
    }
}
