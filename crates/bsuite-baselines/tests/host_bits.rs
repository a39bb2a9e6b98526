//! Every host agent's bits, pinned: the CSVs the runner writes for a short run of each
//! reference agent on a few ids, compared byte for byte with the committed fixtures in
//! `tests/fixtures/host_bits` (written by the engines as they were before the crate was
//! laid out agent by agent; `BSUITE_BLESS=1` writes them anew). DQN and bootstrapped DQN
//! are pinned more finely, parameters included, by the `dqn_and_boot_dqn_keep_their_bits`
//! unit test; this file covers the actor-critic agents, and every agent through the public
//! API, one by one and in a lockstep batch.

use std::path::{Path, PathBuf};

use bsuite_baselines::config::AgentConfig;
use bsuite_baselines::factory;
use bsuite_baselines::runner::{self, Progress, RunnerOptions};
use bsuite_envs::BsuiteId;

/// `(agent, [(bsuite_id, episodes)])`: enough episodes for many updates of each agent.
const CASES: &[(&str, &[(&str, usize)])] = &[
    ("dqn", &[("catch/0", 30), ("deep_sea/0", 30)]),
    ("boot_dqn", &[("catch/0", 20), ("bandit/0", 30)]),
    (
        "actor_critic",
        &[("catch/0", 60), ("deep_sea/0", 60), ("mnist/0", 200)],
    ),
    (
        "actor_critic_rnn",
        &[("catch/0", 40), ("memory_len/0", 40), ("bandit/0", 40)],
    ),
    ("actor_critic_rnn_reset", &[("memory_len/0", 100)]),
];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/host_bits")
}

/// Runs `agent` on each id (one results directory per id: a directory has one episode
/// count) with batches of at most `batch_size`, and returns `(file name, CSV)` per id.
fn run(
    agent: &str,
    ids: &[(&str, usize)],
    batch_size: usize,
    scratch: &Path,
) -> Vec<(String, String)> {
    let entry = factory::agent(agent).unwrap();
    let mut out = Vec::new();
    // Ids with one episode count run together, so a batch of them can form.
    let mut counts: Vec<usize> = ids.iter().map(|&(_, n)| n).collect();
    counts.dedup();
    for episodes in counts {
        let group: Vec<BsuiteId> = ids
            .iter()
            .filter(|&&(_, n)| n == episodes)
            .map(|&(id, _)| id.parse().unwrap())
            .collect();
        let dir = scratch.join(format!("{agent}-{batch_size}-{episodes}"));
        let options = RunnerOptions {
            results_dir: dir.clone(),
            jobs: 1,
            seed: 42,
            num_episodes: Some(episodes),
            batch_size,
            config: Some(AgentConfig::defaults(agent).unwrap()),
            ..RunnerOptions::default()
        };
        runner::run_ids(&group, entry, &options, &Progress::default(), &|_| {}).unwrap();
        for id in &group {
            let name = bsuite_logging::results::file_name(id);
            let csv = std::fs::read_to_string(dir.join(&name)).unwrap();
            out.push((name, csv));
        }
    }
    out
}

#[test]
fn every_host_agent_keeps_its_bits() {
    let bless = std::env::var_os("BSUITE_BLESS").is_some();
    let scratch = std::env::temp_dir().join(format!("bsuite-host-bits-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    // Every reference agent has a case (a missing one would pass by pinning nothing).
    for name in factory::LIBTORCH_AGENTS {
        assert!(
            CASES.iter().any(|(agent, _)| *agent == name),
            "{name} has no case"
        );
    }
    for &(agent, ids) in CASES {
        let fixture = fixtures().join(agent);
        // One by one, as `bench-all` runs dqn, boot_dqn and actor_critic_rnn, and in one
        // lockstep batch, as it runs actor_critic: the same bits either way.
        for batch_size in [1, ids.len()] {
            for (name, ours) in run(agent, ids, batch_size, &scratch) {
                let path = fixture.join(&name);
                if bless && batch_size == 1 {
                    std::fs::create_dir_all(&fixture).unwrap();
                    std::fs::write(&path, &ours).unwrap();
                    continue;
                }
                let pinned = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                assert!(
                    ours == pinned,
                    "{agent}, batches of {batch_size}: {name} differs from {}",
                    path.display()
                );
            }
        }
    }
    std::fs::remove_dir_all(&scratch).unwrap();
}
