//! `cargo xtask bench ...`: throughput benchmarks, always run on optimised code.

use std::time::Instant;

use anyhow::Result;
use bsuite_envs::{BsuiteId, Environment, RandomState, TimeStep};
use clap::Subcommand;

#[derive(Subcommand)]
pub enum BenchTarget {
    /// Bare env.step throughput on the ids of shared/reference/throughput.md.
    Envs {
        /// Print {"<id>": {"bare": steps_per_s}} (the schema of ref_throughput.py --json).
        #[arg(long)]
        json: bool,
        /// Steps per repeat.
        #[arg(long, default_value_t = 2_000_000)]
        steps: usize,
        /// Repeats (the median is reported).
        #[arg(long, default_value_t = 7)]
        repeats: usize,
        /// Ids to measure (default: the reference throughput set).
        ids: Vec<String>,
    },
}

/// The ids `ref_throughput.py` measures.
pub const THROUGHPUT_IDS: [&str; 9] = [
    "catch/0",
    "deep_sea/20",
    "cartpole/0",
    "mountain_car/0",
    "memory_len/10",
    "umbrella_length/10",
    "discounting_chain/0",
    "bandit/0",
    "mnist/0",
];

/// Re-runs this command under `cargo run --release` when xtask was built without
/// optimisations, so benchmarks always measure optimised code. Returns false when the
/// caller should go on in this process.
pub fn reexec_optimised() -> Result<bool> {
    if !cfg!(debug_assertions) {
        return Ok(false);
    }
    eprintln!("xtask: building with optimisations for the benchmark...");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let status = std::process::Command::new(env!("CARGO"))
        .args(["run", "--quiet", "--release", "--package", "xtask", "--"])
        .args(&args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .status()?;
    if !status.success() {
        std::process::exit(status.code().unwrap_or(1));
    }
    Ok(true)
}

/// Median steps per second of stepping `id` with pre-drawn actions, resets after each LAST
/// timestep timed but not counted (the method of ref_throughput.py).
pub fn bare_steps_per_second(id: &BsuiteId, steps: usize, repeats: usize) -> Result<f64> {
    let mut rates = Vec::with_capacity(repeats);
    for _ in 0..repeats {
        let mut env = id.load()?;
        let num_actions = env.action_spec().num_actions;
        let mut rng = RandomState::new(0);
        let actions: Vec<usize> = (0..steps).map(|_| rng.randint(num_actions)).collect();
        let mut ts = TimeStep::default();
        let start = Instant::now();
        env.reset_into(&mut ts);
        for &a in &actions {
            env.step_into(a, &mut ts)?;
            if ts.last() {
                env.reset_into(&mut ts);
            }
        }
        let elapsed = start.elapsed().as_secs_f64();
        std::hint::black_box(&ts);
        rates.push(steps as f64 / elapsed);
    }
    rates.sort_by(f64::total_cmp);
    Ok(rates[rates.len() / 2])
}

pub fn run(target: BenchTarget) -> Result<()> {
    if reexec_optimised()? {
        return Ok(());
    }
    match target {
        BenchTarget::Envs {
            json,
            steps,
            repeats,
            ids,
        } => {
            let ids: Vec<BsuiteId> = if ids.is_empty() {
                THROUGHPUT_IDS
                    .iter()
                    .map(|s| s.parse())
                    .collect::<Result<_, _>>()?
            } else {
                ids.iter().map(|s| s.parse()).collect::<Result<_, _>>()?
            };
            let mut results = serde_json::Map::new();
            for id in &ids {
                let bare = bare_steps_per_second(id, steps, repeats)?;
                if !json {
                    println!("{:<22} bare {:>14.0} steps/s", id.to_string(), bare);
                }
                results.insert(id.to_string(), serde_json::json!({ "bare": bare }));
            }
            if json {
                println!("{}", serde_json::to_string_pretty(&results)?);
            }
            Ok(())
        }
    }
}
