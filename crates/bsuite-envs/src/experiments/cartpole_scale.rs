//! `cartpole_scale`: `cartpole` with rewards multiplied by `reward_scale` (five values, four replicas each).

use crate::environment::{Environment, Episodic};
use crate::environments::cartpole::{Cartpole, CartpoleConfig};
use crate::registry::{Experiment, LoadError, SettingValue, Settings, Tag};
use crate::wrappers::RewardScale;

/// Episodes per run.
pub const NUM_EPISODES: usize = 1000;

/// The five reward_scale values; setting `i` uses `REWARD_SCALES[i / 4]`.
pub const REWARD_SCALES: [f64; 5] = [0.001, 0.03, 1.0, 30.0, 1000.0];

/// The `cartpole_scale` experiment.
pub static EXPERIMENT: Experiment = Experiment {
    name: "cartpole_scale",
    num_episodes: NUM_EPISODES,
    tags: &[Tag::Scale, Tag::Generalization],
    num_settings: 20,
    info_columns: &["raw_return", "best_episode"],
    settings,
    load,
    steps_per_episode,
};

fn settings(index: usize) -> Settings {
    vec![
        (
            "reward_scale",
            SettingValue::Float(REWARD_SCALES[index / 4]),
        ),
        ("seed", SettingValue::None),
    ]
}

fn load(index: usize, env_seed: u32) -> Result<Box<dyn Environment>, LoadError> {
    let inner = Episodic::new(
        Cartpole::new(CartpoleConfig::default(), env_seed),
        NUM_EPISODES,
    );
    Ok(Box::new(RewardScale::new(
        inner,
        REWARD_SCALES[index / 4],
        env_seed,
    )))
}

/// A learning agent's typical episode length (a learner balances the pole for most of the 1000-step limit).
fn steps_per_episode(_index: usize) -> f64 {
    800.0
}
