//! A user's own experiment, defined and registered through `bsuite-envs`' public API only,
//! runs through the logger and the runner like bsuite's and reads back from its CSVs.

use std::path::PathBuf;

use bsuite_baselines::factory;
use bsuite_baselines::runner::{run_ids, Outcome, Progress, RunnerOptions};
use bsuite_envs::{
    ActionSpec, BsuiteId, BsuiteInfo, Dynamics, Environment, Episodic, Experiment, InfoValue,
    LoadError, ObservationSpec, SettingValue, Settings, Tag, TimeStep,
};

/// Guess the coin: one step per episode, reward 1 for naming the hidden side.
struct Coin {
    side: usize,
    misses: f64,
}

impl Dynamics for Coin {
    const NAME: &'static str = "coin";

    fn observation_spec(&self) -> ObservationSpec {
        ObservationSpec::float32(vec![1], "observation")
    }

    fn action_spec(&self) -> ActionSpec {
        ActionSpec::new(2, "int32")
    }

    fn reset(&mut self, out: &mut TimeStep) {
        out.set_restart();
        out.zeroed_observation(1);
    }

    fn step(&mut self, action: usize, out: &mut TimeStep) {
        let reward = if action == self.side { 1.0 } else { 0.0 };
        self.misses += 1.0 - reward;
        out.set_termination(reward);
        out.zeroed_observation(1);
    }

    fn bsuite_info(&self) -> BsuiteInfo {
        vec![("total_misses", InfoValue::Float(self.misses))]
    }
}

const NUM_EPISODES: usize = 30;

fn settings(index: usize) -> Settings {
    vec![("side", SettingValue::Int(index as i64))]
}

fn load(index: usize, _env_seed: u32) -> Result<Box<dyn Environment>, LoadError> {
    let coin = Coin {
        side: index,
        misses: 0.0,
    };
    Ok(Box::new(Episodic::new(coin, NUM_EPISODES)))
}

static COIN: Experiment = Experiment {
    name: "coin",
    num_episodes: NUM_EPISODES,
    tags: &[Tag::Basic],
    num_settings: 2,
    info_columns: &["total_misses"],
    settings,
    load,
    steps_per_episode: |_| 1.0,
};

#[test]
fn a_registered_experiment_runs_through_the_logger_and_the_runner() {
    bsuite_envs::register(&COIN).unwrap();
    let ids: Vec<BsuiteId> = bsuite_envs::select("coin").unwrap();
    assert_eq!(ids.len(), 2);

    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("custom_experiment");
    let _ = std::fs::remove_dir_all(&dir);
    let options = RunnerOptions {
        results_dir: dir.clone(),
        ..RunnerOptions::default()
    };
    let agent = factory::agent("random").unwrap();
    let reports = run_ids(&ids, agent, &options, &Progress::default(), &|_| {}).unwrap();
    for report in &reports {
        assert!(matches!(report.outcome, Outcome::Ran { .. }), "{report}");
    }

    let results = bsuite_logging::results::load_dir(&dir).unwrap();
    assert_eq!(results.runs.len(), 2);
    for (run, id) in results.runs.iter().zip(&ids) {
        assert_eq!(run.id(), *id);
        assert_eq!(run.last_episode(), NUM_EPISODES as u64);
        let misses = run.values("total_misses").unwrap();
        let episodes = run.episodes();
        let last = misses.len() - 1;
        assert!(misses[last] <= episodes[last], "{id}: {misses:?}");
    }

    // A rerun resumes: both ids are finished, so nothing runs again.
    let agent = factory::agent("random").unwrap();
    let again = run_ids(&ids, agent, &options, &Progress::default(), &|_| {}).unwrap();
    assert!(again
        .iter()
        .all(|r| !matches!(r.outcome, Outcome::Ran { .. })));
}
