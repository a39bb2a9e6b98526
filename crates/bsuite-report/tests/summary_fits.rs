//! The summary is one page in each conference's geometry (ICLR and NeurIPS's one 5.5 in
//! column, ICML's two columns, the report's own page) for 1, 4, 12 and 16 agents, with no
//! box past its line and no figure text under 6 pt as placed: `check` compiles each and
//! says so. The agents are the random-agent fixtures under names as long as real ones.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use bsuite_analysis::AgentResults;
use bsuite_report::check::{self, Geometry};
use bsuite_report::Options;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/random_results")
}

const NAMES: [&str; 16] = [
    "random",
    "dqn",
    "boot_dqn",
    "actor_critic",
    "actor_critic_rnn",
    "dqn_rmsprop",
    "dqn_sgd",
    "boot_dqn_1",
    "boot_dqn_3",
    "boot_dqn_10",
    "boot_dqn_30",
    "random_baseline",
    "my_new_agent",
    "my_new_agent_ablation",
    "ppo_lstm_large",
    "impala_deep",
];

fn report_of(n: usize) -> PathBuf {
    let out = std::env::temp_dir().join(format!("bsuite-report-fits-{}-{n}", std::process::id()));
    let _ = fs::remove_dir_all(&out);
    let agents: Vec<AgentResults> = NAMES[..n]
        .iter()
        .map(|name| AgentResults::load(*name, &fixtures()).unwrap())
        .collect();
    bsuite_report::write(&agents, &out, &Options::default()).unwrap();
    out
}

#[test]
fn the_summary_is_one_legible_page_in_every_geometry_for_1_to_16_agents() {
    if !common::pdflatex_or_skip("the_summary_is_one_legible_page_in_every_geometry") {
        return;
    }
    let mut failures = Vec::new();
    for n in [1, 4, 12, 16] {
        let out = report_of(n);
        for geometry in Geometry::ALL {
            if let Err(e) = check::compile_and_check_in(&out, geometry) {
                failures.push(format!("{n} agents, {}: {e}", geometry.name()));
            }
        }
        if failures.is_empty() {
            fs::remove_dir_all(&out).unwrap();
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
