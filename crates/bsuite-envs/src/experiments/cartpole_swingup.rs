//! `cartpole_swingup`: Swing a hanging pole up and keep it balanced; a sparse-reward exploration task with a
//! move cost. Setting `i` uses `height_threshold = i / 20` and `x_reward_threshold = 1 - i / 20`.

use crate::environment::{Environment, Episodic};
use crate::environments::cartpole_swingup::{CartpoleSwingup, SwingupConfig};
use crate::registry::{Experiment, LoadError, SettingValue, Settings, Tag};

/// Episodes per run.
pub const NUM_EPISODES: usize = 1000;

/// The `cartpole_swingup` experiment.
pub static EXPERIMENT: Experiment = Experiment {
    name: "cartpole_swingup",
    num_episodes: NUM_EPISODES,
    tags: &[Tag::Exploration, Tag::Generalization],
    num_settings: 20,
    info_columns: &["raw_return", "total_upright", "best_episode"],
    settings,
    load,
    steps_per_episode,
};

fn settings(index: usize) -> Settings {
    let n = index as f64;
    vec![
        ("height_threshold", SettingValue::Float(n / 20.0)),
        ("x_reward_threshold", SettingValue::Float(1.0 - n / 20.0)),
    ]
}

fn load(index: usize, env_seed: u32) -> Result<Box<dyn Environment>, LoadError> {
    let n = index as f64;
    let config = SwingupConfig {
        height_threshold: n / 20.0,
        x_reward_threshold: 1.0 - n / 20.0,
        ..SwingupConfig::default()
    };
    Ok(Box::new(Episodic::new(
        CartpoleSwingup::new(config, env_seed),
        NUM_EPISODES,
    )))
}

/// A learning agent's typical episode length (a learner swings up and balances for most of the 1000-step limit).
fn steps_per_episode(_index: usize) -> f64 {
    800.0
}
