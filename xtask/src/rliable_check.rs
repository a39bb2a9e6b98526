//! The cross-check of our statistics over seeds against the real `rliable` 1.2.0, run by
//! `cargo xtask test`: two agents of three seeds each (the random agent, at two episode
//! counts, on a few experiments, so that seeds differ), exported with
//! `score --export rliable`, scored with `score --json` and compared with `compare --json`;
//! then `tests/rliable/check.py`, in the venv `.bsuite/rliable-venv`, recomputes the
//! aggregates and P(A > B) with rliable and checks that the point estimates equal ours to
//! 1e-9 and the intervals agree within sampling error.

use std::process::Command;

use anyhow::{Context, Result};
use bsuite_analysis::seeds::{compare_agents, SeededAgent, SeededSummary};
use bsuite_analysis::stats::Bootstrap;
use bsuite_baselines::sweep::SweepArgs;
use clap::Parser;
use serde_json::{json, Value};

use crate::libtorch::{run_status, workspace_root};

/// The venv's requirements: rliable 1.2.0's dependency `arch` 7.2 fails to import under
/// pandas 3.1, hence the pin.
pub const REQUIREMENTS: [&str; 2] = ["rliable==1.2.0", "pandas<3"];

/// Replicates on both sides: enough that the ends of a 95% interval move by about a
/// hundredth of its width.
const REPS: usize = 10_000;

#[derive(Parser)]
struct Sweep {
    #[command(flatten)]
    args: SweepArgs,
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
            let sweep = Sweep::try_parse_from([
                "bench-all",
                "random",
                "--ids",
                "bandit",
                "catch",
                "cartpole",
                "discounting_chain",
                "umbrella_length",
                "deep_sea",
                "memory_len",
                "--num-episodes",
                episodes,
                "--seed",
                &seed.to_string(),
                "--results",
                &results.to_string_lossy(),
                "--no-score",
                "--plain",
            ])?;
            let agent = bsuite_baselines::factory::agent("random")?;
            bsuite_baselines::sweep::run_sweep("rliable-check", agent, &sweep.args)?;
        }
        dirs.push(format!("{name}={}", dir.display()));
    }
    let agents = crate::results_dirs::load_seeded_agents(&dirs, false)?;
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
    let export = write("export.json", &crate::score::rliable_export(&summaries))?;
    let scores: serde_json::Map<String, Value> = summaries
        .iter()
        .map(|s| (s.agent.clone(), crate::score::seeded_json(s, &settings)))
        .collect();
    let scores = write("scores.json", &Value::Object(scores))?;
    let (tags, _) = compare_agents(&summaries[0], &summaries[1], &settings, 0.05);
    let tags: serde_json::Map<String, Value> = tags
        .iter()
        .map(|t| {
            (
                t.name.clone(),
                json!({"p_improvement": crate::score::estimate_json(t.improvement)}),
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
