//! Evaluating your own agent on bsuite: implement [`Agent`], give it a name in an
//! [`AgentEntry`], run it on bsuite_ids with [`runner::run_ids`] (one bsuite CSV per id,
//! ids in parallel, resumable), and score the results directory with `bsuite-analysis`.
//!
//! ```sh
//! cargo run --release -p bsuite-baselines --example custom_agent            # a few ids
//! cargo run --release -p bsuite-baselines --example custom_agent -- SWEEP   # all 468
//! ```
//!
//! The agent here is tabular Q-learning over exact observations with ε-greedy exploration:
//! it needs no LibTorch and shows what the trait asks for. It learns bandit/0 and catch/0
//! (scores about 0.8 and 0.9) and, like any agent that explores by dithering, scores 0 on
//! deep_sea/0. Any selector works as an argument: ids (`catch/0`),
//! experiments (`catch`), tags (`memory`), `SWEEP` (the whole suite) or `TESTING`.

use std::collections::HashMap;
use std::path::PathBuf;

use bsuite_baselines::factory::{AgentEntry, AgentSetup};
use bsuite_baselines::runner::{self, Progress, RunnerOptions};
use bsuite_baselines::Agent;
use bsuite_envs::{BsuiteId, RandomState, TimeStep};

/// Q-learning with a table keyed by the observation's bits.
struct TabularQ {
    q: HashMap<Vec<u32>, Vec<f64>>,
    num_actions: usize,
    rng: RandomState,
    epsilon: f64,
    step_size: f64,
    discount: f64,
}

impl TabularQ {
    fn new(setup: &AgentSetup) -> Self {
        TabularQ {
            q: HashMap::new(),
            num_actions: setup.action_spec.num_actions,
            rng: RandomState::new(setup.seed),
            epsilon: 0.1,
            step_size: 0.1,
            discount: 0.99,
        }
    }

    fn key(timestep: &TimeStep) -> Vec<u32> {
        timestep.observation.iter().map(|x| x.to_bits()).collect()
    }

    fn values(&mut self, timestep: &TimeStep) -> &mut Vec<f64> {
        let num_actions = self.num_actions;
        self.q
            .entry(Self::key(timestep))
            .or_insert_with(|| vec![0.0; num_actions])
    }
}

impl Agent for TabularQ {
    fn select_action(&mut self, timestep: &TimeStep) -> usize {
        if self.rng.rand() < self.epsilon {
            return self.rng.randint(self.num_actions);
        }
        let values = self.values(timestep).clone();
        let best = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let ties: Vec<usize> = (0..values.len()).filter(|&a| values[a] == best).collect();
        ties[self.rng.randint(ties.len())]
    }

    fn update(&mut self, timestep: &TimeStep, action: usize, new_timestep: &TimeStep) {
        let next = self.values(new_timestep).clone();
        let bootstrap = next.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let target = new_timestep.reward_or_zero()
            + self.discount * new_timestep.discount.unwrap_or(0.0) * bootstrap;
        let step_size = self.step_size;
        let q = &mut self.values(timestep)[action];
        *q += step_size * (target - *q);
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let selectors: Vec<String> = std::env::args().skip(1).collect();
    let selectors = if selectors.is_empty() {
        vec!["bandit/0".into(), "deep_sea/0".into(), "catch/0".into()]
    } else {
        selectors
    };
    let mut ids: Vec<BsuiteId> = Vec::new();
    for selector in &selectors {
        ids.extend(bsuite_envs::select(selector)?);
    }

    let entry = AgentEntry {
        name: "tabular_q",
        description: "tabular Q-learning over exact observations",
        // Its hyperparameters, for --config and the results' manifest: just the seed here.
        keys: &[bsuite_baselines::config::SEED],
        make: |setup| Box::new(TabularQ::new(setup)),
        batching: None, // one id at a time (see `BatchAgent` for lockstep batches)
    };
    let results = PathBuf::from("results/tabular_q");
    let options = RunnerOptions {
        results_dir: results.clone(),
        jobs: 0,          // one id per core
        overwrite: false, // re-running skips finished ids
        seed: 42,
        num_episodes: None, // the reference's episode counts
        ..RunnerOptions::default()
    };
    let reports = runner::run_ids(&ids, entry, &options, &Progress::default(), &|report| {
        println!("{report}")
    })?;
    assert_eq!(reports.len(), ids.len());

    let summary =
        bsuite_analysis::summarize(&bsuite_analysis::AgentResults::load("tabular_q", &results)?);
    for id in &summary.ids {
        println!("{:<16} score {}", id.id.to_string(), id.score);
    }
    for tag in &summary.tags {
        println!("{:<16} score {}", tag.tag.to_string(), tag.score);
    }
    Ok(())
}
