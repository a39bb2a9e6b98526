//! `mountain_car`: The classic mountain car task (episodes of up to 1000 steps).

use crate::environment::{Environment, Episodic};
use crate::environments::mountain_car::MountainCar;
use crate::registry::{Experiment, LoadError, SettingValue, Settings, Tag};

/// Episodes per run.
pub const NUM_EPISODES: usize = 1000;

/// The `mountain_car` experiment.
pub static EXPERIMENT: Experiment = Experiment {
    name: "mountain_car",
    num_episodes: NUM_EPISODES,
    tags: &[Tag::Basic, Tag::Generalization],
    num_settings: 20,
    info_columns: &["raw_return"],
    settings,
    load,
    steps_per_episode,
};

fn settings(_index: usize) -> Settings {
    vec![("seed", SettingValue::None)]
}

fn load(_index: usize, env_seed: u32) -> Result<Box<dyn Environment>, LoadError> {
    Ok(Box::new(Episodic::new(
        MountainCar::new(1000, env_seed),
        NUM_EPISODES,
    )))
}

/// A learning agent's typical episode length (a learner takes a few hundred steps up the hill).
fn steps_per_episode(_index: usize) -> f64 {
    300.0
}
