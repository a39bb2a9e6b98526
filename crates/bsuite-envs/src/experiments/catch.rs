//! `catch`: Catch a falling ball with a paddle on a 10x5 board.

use crate::environment::{Environment, Episodic};
use crate::environments::catch::Catch;
use crate::registry::{Experiment, LoadError, SettingValue, Settings, Tag};

/// Episodes per run.
pub const NUM_EPISODES: usize = 10000;

/// The `catch` experiment.
pub static EXPERIMENT: Experiment = Experiment {
    name: "catch",
    num_episodes: NUM_EPISODES,
    tags: &[Tag::Basic, Tag::CreditAssignment],
    num_settings: 20,
    info_columns: &["total_regret"],
    settings,
    load,
    steps_per_episode,
};

fn settings(_index: usize) -> Settings {
    vec![("seed", SettingValue::None)]
}

fn load(_index: usize, env_seed: u32) -> Result<Box<dyn Environment>, LoadError> {
    Ok(Box::new(Episodic::new(
        Catch::new(10, 5, env_seed),
        NUM_EPISODES,
    )))
}

/// A learning agent's typical episode length (the ball falls for nine steps).
fn steps_per_episode(_index: usize) -> f64 {
    9.0
}
