//! `bsuite-run <agent>`: runs a baseline agent, the LibTorch ones included, on bsuite_ids
//! and writes one bsuite CSV per id. `cargo xtask bench-all <agent>` builds and runs this
//! for the LibTorch agents, with the same arguments.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use bsuite_baselines::factory;
use bsuite_baselines::runner::{self, Outcome, Progress, RunnerOptions, Shard};
use bsuite_baselines::tch_agents;
use bsuite_envs::BsuiteId;
use clap::Parser;

/// Run a bsuite baseline agent on bsuite_ids, one CSV per id (resumable: complete results
/// are skipped).
#[derive(Parser, Debug)]
#[command(name = "bsuite-run", version)]
struct Args {
    /// The agent: dqn, boot_dqn, actor_critic, actor_critic_rnn or random.
    agent: String,
    /// What to run: bsuite_ids (catch/0), experiments (catch), tags (memory), SWEEP or
    /// TESTING. Default: SWEEP (all 468 ids).
    #[arg(long, num_args = 1.., value_name = "ID|EXPERIMENT|TAG|SWEEP|TESTING")]
    ids: Vec<String>,
    /// Results directory (default: results/<agent>).
    #[arg(long, value_name = "DIR")]
    results: Option<PathBuf>,
    /// Ids run at once (default: one per core).
    #[arg(long, default_value_t = 0)]
    jobs: usize,
    /// Re-run ids whose results file is already complete, replacing it.
    #[arg(long)]
    overwrite: bool,
    /// The agent seed, the same for every id.
    #[arg(long, default_value_t = 42)]
    seed: u32,
    /// Episodes per id instead of the reference's counts.
    #[arg(long, value_name = "N")]
    num_episodes: Option<usize>,
    /// Run only shard I of N (0-based) of the selected ids, e.g. 0/4.
    #[arg(long, value_name = "I/N")]
    shard: Option<Shard>,
    /// Accepted for compatibility with `cargo xtask bench-all`; output is one line per id.
    #[arg(long)]
    plain: bool,
    /// Accepted for compatibility with `cargo xtask bench-all`; bsuite-run prints no scores
    /// (`cargo xtask score DIR` does).
    #[arg(long)]
    no_score: bool,
    /// Where the LibTorch agents compute: cpu, cuda or cuda:N.
    #[arg(long, default_value = "cpu")]
    device: String,
}

fn select_ids(selectors: &[String]) -> Result<Vec<BsuiteId>, String> {
    let mut ids: Vec<BsuiteId> = Vec::new();
    if selectors.is_empty() {
        ids.extend(bsuite_envs::sweep());
    }
    for selector in selectors {
        ids.extend(bsuite_envs::select(selector).map_err(|e| e.to_string())?);
    }
    ids.sort();
    ids.dedup();
    Ok(ids)
}

fn run(args: Args) -> Result<(), String> {
    let agent = factory::agent(&args.agent).map_err(|e| e.to_string())?;
    tch_agents::set_device(tch_agents::parse_device(&args.device)?);
    let mut ids = select_ids(&args.ids)?;
    if let Some(shard) = args.shard {
        ids = shard.select(&ids);
    }
    let results_dir = args
        .results
        .unwrap_or_else(|| PathBuf::from("results").join(&args.agent));
    let options = RunnerOptions {
        results_dir: results_dir.clone(),
        jobs: args.jobs,
        overwrite: args.overwrite,
        seed: args.seed,
        num_episodes: args.num_episodes,
    };
    eprintln!(
        "bsuite-run: {} on {} ids into {} (seed {}, device {})",
        agent.name,
        ids.len(),
        results_dir.display(),
        args.seed,
        args.device
    );
    let start = Instant::now();
    let progress = Progress::default();
    let reports = runner::run_ids(&ids, agent, &options, &progress, &|report| {
        println!("{report}")
    })?;
    let failed: Vec<String> = reports
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Failed(_)))
        .map(|r| r.id.to_string())
        .collect();
    let steps: u64 = reports
        .iter()
        .map(|r| match r.outcome {
            Outcome::Ran { steps, .. } => steps,
            _ => 0,
        })
        .sum();
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "bsuite-run: {} ids, {} failed; {steps} steps in {secs:.1} s ({:.0} steps/s); results in {}",
        reports.len(),
        failed.len(),
        steps as f64 / secs.max(1e-9),
        results_dir.display()
    );
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} id(s) failed: {}; the other ids' results are kept, and re-running resumes",
            failed.len(),
            failed.join(", ")
        ))
    }
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
