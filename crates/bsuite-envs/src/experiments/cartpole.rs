//! `cartpole`: The classic cartpole balancing task (episodes of up to 1001 steps).

use crate::environment::{Environment, Episodic};
use crate::environments::cartpole::{Cartpole, CartpoleConfig};
use crate::registry::{Experiment, LoadError, SettingValue, Settings, Tag};

/// Episodes per run.
pub const NUM_EPISODES: usize = 1000;

/// The `cartpole` experiment.
pub static EXPERIMENT: Experiment = Experiment {
    name: "cartpole",
    num_episodes: NUM_EPISODES,
    tags: &[Tag::Basic, Tag::CreditAssignment, Tag::Generalization],
    num_settings: 20,
    info_columns: &["raw_return", "best_episode"],
    settings,
    load,
    steps_per_episode,
};

fn settings(_index: usize) -> Settings {
    vec![("seed", SettingValue::None)]
}

fn load(_index: usize, env_seed: u32) -> Result<Box<dyn Environment>, LoadError> {
    Ok(Box::new(Episodic::new(
        Cartpole::new(CartpoleConfig::default(), env_seed),
        NUM_EPISODES,
    )))
}

/// A learning agent's typical episode length (a learner balances the pole for most of the 1000-step limit).
fn steps_per_episode(_index: usize) -> f64 {
    800.0
}
