//! `deep_sea`: Deep-sea exploration: an N x N grid where only always moving right (at a small cost)
//! reaches the treasure. Sizes 10, 12, ..., 50, action mapping seed 42.

use crate::environment::{Environment, Episodic};
use crate::environments::deep_sea::{DeepSea, DeepSeaConfig};
use crate::registry::{Experiment, LoadError, SettingValue, Settings, Tag};

/// Episodes per run.
pub const NUM_EPISODES: usize = 10000;

/// The grid size of setting `index`: 10, 12, ..., 50.
pub fn size(index: usize) -> usize {
    10 + 2 * index
}

/// The `deep_sea` experiment.
pub static EXPERIMENT: Experiment = Experiment {
    name: "deep_sea",
    num_episodes: NUM_EPISODES,
    tags: &[Tag::Exploration],
    num_settings: 21,
    info_columns: &["total_bad_episodes", "denoised_return"],
    settings,
    load,
    steps_per_episode,
};

fn settings(index: usize) -> Settings {
    vec![
        ("size", SettingValue::Int(size(index) as i64)),
        ("mapping_seed", SettingValue::Int(42)),
    ]
}

fn load(index: usize, env_seed: u32) -> Result<Box<dyn Environment>, LoadError> {
    let config = DeepSeaConfig::new(size(index));
    Ok(Box::new(Episodic::new(
        DeepSea::new(config, env_seed, 42),
        NUM_EPISODES,
    )))
}

/// A learning agent's typical episode length (one step per row).
fn steps_per_episode(index: usize) -> f64 {
    size(index) as f64
}
