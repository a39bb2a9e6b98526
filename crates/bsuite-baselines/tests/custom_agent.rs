//! An agent of one's own, registered through the public API alone, as "Adding an agent" in
//! ARCHITECTURE.md describes: an `Agent`, a factory entry, and the runner writes one bsuite
//! CSV per id and a manifest naming it, one by one and in lockstep batches.

use bsuite_baselines::factory::{AgentEntry, AgentSetup, Batching};
use bsuite_baselines::runner::{self, Outcome, Progress, RunnerOptions};
use bsuite_baselines::{Agent, OneByOne};
use bsuite_envs::{BsuiteId, TimeStep};
use bsuite_logging::manifest::RunManifest;

/// Always the last action, and counts its updates.
struct Toy {
    last: usize,
    updates: usize,
}

impl Agent for Toy {
    fn select_action(&mut self, _: &TimeStep) -> usize {
        self.last
    }

    fn update(&mut self, _: &TimeStep, _: usize, _: &TimeStep) {
        self.updates += 1;
    }
}

fn toy(setup: &AgentSetup) -> Toy {
    Toy {
        last: setup.action_spec.num_actions - 1,
        updates: 0,
    }
}

const TOY: AgentEntry = AgentEntry {
    name: "toy",
    description: "always the last action",
    keys: &[],
    make: |setup| Box::new(toy(setup)),
    batching: Some(Batching {
        key: |_| 0,
        make: |setups| Box::new(OneByOne(setups.iter().map(toy).collect())),
        default_size: 2,
    }),
};

#[test]
fn a_toy_agent_runs_through_the_public_api() {
    let ids: Vec<BsuiteId> = ["catch/0", "catch/1", "bandit/0"]
        .iter()
        .map(|id| id.parse().unwrap())
        .collect();
    for batch_size in [1, 0] {
        let dir = std::env::temp_dir().join(format!(
            "bsuite-toy-agent-{batch_size}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let options = RunnerOptions {
            results_dir: dir.clone(),
            jobs: 2,
            num_episodes: Some(3),
            batch_size,
            ..RunnerOptions::default()
        };
        let reports = runner::run_ids(&ids, TOY, &options, &Progress::default(), &|_| {}).unwrap();
        for report in &reports {
            assert!(
                matches!(report.outcome, Outcome::Ran { .. }),
                "{:?}",
                report.outcome
            );
            let csv = dir.join(bsuite_logging::results::file_name(&report.id));
            let text = std::fs::read_to_string(&csv).unwrap();
            assert!(text.lines().count() > 1, "{}: {text}", csv.display());
        }
        let manifest = RunManifest::read(&dir).unwrap().unwrap();
        assert_eq!(manifest.agent, "toy");
        assert_eq!(manifest.description, "always the last action");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
