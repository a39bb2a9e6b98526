//! `bandit`: A multi-armed bandit with 11 arms whose rewards are a seeded permutation of 0, 0.1, ..., 1.
//! Tests basic competence at trading off exploration and exploitation.

use crate::environment::{Environment, Episodic};
use crate::environments::bandit::SimpleBandit;
use crate::registry::{Experiment, LoadError, SettingValue, Settings, Tag};

/// Episodes per run.
pub const NUM_EPISODES: usize = 10000;

/// The `bandit` experiment.
pub static EXPERIMENT: Experiment = Experiment {
    name: "bandit",
    num_episodes: NUM_EPISODES,
    tags: &[Tag::Basic],
    num_settings: 20,
    info_columns: &["total_regret"],
    settings,
    load,
    steps_per_episode,
};

fn settings(index: usize) -> Settings {
    vec![("mapping_seed", SettingValue::Int(index as i64))]
}

fn load(index: usize, _env_seed: u32) -> Result<Box<dyn Environment>, LoadError> {
    Ok(Box::new(Episodic::new(
        SimpleBandit::new(index as u32, 11),
        NUM_EPISODES,
    )))
}

/// A learning agent's typical episode length (one step).
fn steps_per_episode(_index: usize) -> f64 {
    1.0
}
