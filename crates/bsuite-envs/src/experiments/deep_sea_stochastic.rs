//! `deep_sea_stochastic`: deep_sea with a windy transition (a right move fails with probability 1/N) and Gaussian
//! noise on the corner rewards of the last row.

use crate::environment::{Environment, Episodic};
use crate::environments::deep_sea::{DeepSea, DeepSeaConfig};
use crate::registry::{Experiment, LoadError, SettingValue, Settings, Tag};

/// Episodes per run.
pub const NUM_EPISODES: usize = 10000;

/// The `deep_sea_stochastic` experiment.
pub static EXPERIMENT: Experiment = Experiment {
    name: "deep_sea_stochastic",
    num_episodes: NUM_EPISODES,
    tags: &[Tag::Exploration, Tag::Noise],
    num_settings: 21,
    info_columns: &["total_bad_episodes", "denoised_return"],
    settings,
    load,
    steps_per_episode,
};

fn settings(index: usize) -> Settings {
    vec![
        (
            "size",
            SettingValue::Int(super::deep_sea::size(index) as i64),
        ),
        ("mapping_seed", SettingValue::Int(42)),
    ]
}

fn load(index: usize, env_seed: u32) -> Result<Box<dyn Environment>, LoadError> {
    let mut config = DeepSeaConfig::new(super::deep_sea::size(index));
    config.deterministic = false;
    Ok(Box::new(Episodic::new(
        DeepSea::new(config, env_seed, 42),
        NUM_EPISODES,
    )))
}

/// A learning agent's typical episode length (one step per row).
fn steps_per_episode(index: usize) -> f64 {
    super::deep_sea::size(index) as f64
}
