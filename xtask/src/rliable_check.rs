//! The cross-check of our statistics over seeds against the real `rliable` 1.2.0, run by
//! `cargo xtask test`: two agents of three seeds each (the random agent, at two episode
//! counts, on a few experiments, so that seeds differ), exported with
//! `score --export rliable`, scored with `score --json` and compared with `compare --json`;
//! then `tests/rliable/check.py`, in the venv `.bsuite/rliable-venv`, recomputes the
//! aggregates and P(A > B) with rliable and checks that the point estimates equal ours to
//! 1e-9 and the intervals agree within sampling error.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result};
use bsuite_analysis::seeds::{compare_agents, SeededAgent, SeededSummary};
use bsuite_analysis::stats::Bootstrap;
use bsuite_baselines::sweep::SweepArgs;
use bsuite_envs::experiments::{
    bandit, cartpole, catch, deep_sea, discounting_chain, memory_len, umbrella_length,
};
use bsuite_envs::Experiment;
use clap::Parser;
use serde_json::{json, Value};

use crate::libtorch::{run_status, workspace_root};

/// The venv's requirements: rliable 1.2.0's dependency `arch` 7.2 fails to import under
/// pandas 3.1, hence the pin.
pub const REQUIREMENTS: [&str; 2] = ["rliable==1.2.0", "pandas<3"];

/// The experiments both agents run: one of each kind of task bsuite scores.
static EXPERIMENTS: [&Experiment; 7] = [
    &bandit::EXPERIMENT,
    &catch::EXPERIMENT,
    &cartpole::EXPERIMENT,
    &discounting_chain::EXPERIMENT,
    &umbrella_length::EXPERIMENT,
    &deep_sea::EXPERIMENT,
    &memory_len::EXPERIMENT,
];

/// Replicates on both sides: enough that the ends of a 95% interval move by about a
/// hundredth of its width.
const REPS: usize = 10_000;

#[derive(Parser)]
struct Sweep {
    #[command(flatten)]
    args: SweepArgs,
}

/// The random agent's sweep of [`EXPERIMENTS`], `episodes` episodes each, with `seed`
/// into `results`, as `bench-all` reads it.
fn sweep(episodes: &str, seed: u32, results: &Path) -> Result<Sweep> {
    let (seed, results) = (seed.to_string(), results.to_string_lossy());
    let mut args = vec!["bench-all", "random", "--ids"];
    args.extend(EXPERIMENTS.iter().map(|e| e.name));
    args.extend([
        "--num-episodes",
        episodes,
        "--seed",
        &seed,
        "--results",
        &results,
        "--no-score",
        "--plain",
    ]);
    Ok(Sweep::try_parse_from(args)?)
}

/// Runs the check.
pub fn run() -> Result<()> {
    let requirements: Vec<String> = REQUIREMENTS.iter().map(|r| r.to_string()).collect();
    let python = crate::wheel::venv("rliable-venv", &requirements)?;
    let work = workspace_root().join("target").join("rliable-check");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work)?;
    let mut dirs = Vec::new();
    for (name, episodes) in [("short", "30"), ("long", "120")] {
        let dir = work.join(name);
        for seed in 0..3 {
            let results = bsuite_analysis::seeds::seed_dir(&dir, seed);
            let sweep = sweep(episodes, seed, &results)?;
            let agent = bsuite_baselines::factory::agent("random")?;
            bsuite_baselines::sweep::run_sweep("rliable-check", agent, &sweep.args)?;
        }
        dirs.push(format!("{name}={}", dir.display()));
    }
    let agents = bsuite_cli::results_dirs::load_seeded_agents(&dirs, false)?;
    let summaries: Vec<SeededSummary> = agents.iter().map(SeededAgent::summarize).collect();
    let settings = Bootstrap {
        reps: REPS,
        seed: 0,
        confidence: 0.95,
    };
    let write = |file: &str, value: &Value| -> Result<std::path::PathBuf> {
        let path = work.join(file);
        std::fs::write(&path, serde_json::to_string_pretty(value)?)
            .with_context(|| format!("writing {}", path.display()))?;
        Ok(path)
    };
    let export = write(
        "export.json",
        &bsuite_analysis::score_json::rliable_export(&summaries),
    )?;
    let scores: serde_json::Map<String, Value> = summaries
        .iter()
        .map(|s| {
            (
                s.agent.clone(),
                bsuite_analysis::score_json::seeded_json(s, &settings),
            )
        })
        .collect();
    let scores = write("scores.json", &Value::Object(scores))?;
    let (tags, _) = compare_agents(&summaries[0], &summaries[1], &settings, 0.05);
    let tags: serde_json::Map<String, Value> = tags
        .iter()
        .map(|t| {
            (
                t.name.clone(),
                json!({"p_improvement": bsuite_analysis::score_json::estimate_json(t.improvement)}),
            )
        })
        .collect();
    let compare = write("compare.json", &json!({ "tags": tags }))?;
    bsuite_baselines::errln!("xtask: rliable 1.2.0 on our export (tests/rliable/check.py)");
    let mut check = Command::new(&python);
    check
        .arg(
            workspace_root()
                .join("tests")
                .join("rliable")
                .join("check.py"),
        )
        .args([&export, &scores, &compare])
        .arg(REPS.to_string());
    run_status(check, "the rliable cross-check (tests/rliable/check.py)")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The check's sweep selects every id of its experiments and nothing else, with the
    /// episodes, seed and directory it is given.
    #[test]
    fn the_sweep_runs_the_random_agent_on_every_id_of_its_experiments() {
        let sweep = sweep("30", 2, Path::new("work/short/seed-2")).unwrap();
        let args = &sweep.args;
        assert_eq!(args.agent, "random");
        assert_eq!(
            (args.num_episodes, args.seed, args.results.as_deref()),
            (Some(30), Some(2), Some(Path::new("work/short/seed-2")))
        );
        assert!(args.plain && args.no_score);
        let mut ids = bsuite_baselines::sweep::select_ids(&args.ids).unwrap();
        ids.sort();
        let mut expected: Vec<_> = EXPERIMENTS.iter().flat_map(|e| e.ids()).collect();
        expected.sort();
        assert_eq!(ids, expected);
    }
}
