//! `mnist`: A contextual bandit: label an MNIST digit (10 actions, one step per episode).

use crate::environment::{Environment, Episodic};
use crate::environments::mnist::MnistBandit;
use crate::registry::{Experiment, LoadError, SettingValue, Settings, Tag};

/// Episodes per run.
pub const NUM_EPISODES: usize = 10000;

/// The `mnist` experiment.
pub static EXPERIMENT: Experiment = Experiment {
    name: "mnist",
    num_episodes: NUM_EPISODES,
    tags: &[Tag::Basic, Tag::Generalization],
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
        MnistBandit::new(1.0, env_seed)?,
        NUM_EPISODES,
    )))
}

/// A learning agent's typical episode length (one step).
fn steps_per_episode(_index: usize) -> f64 {
    1.0
}
