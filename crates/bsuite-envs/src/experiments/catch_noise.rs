//! `catch_noise`: `catch` with Gaussian noise of standard deviation `noise_scale` (five values, four replicas each).
//! The noise RNG is unseeded in the reference; it gets the env seed (the same seed as the
//! environment, as bsuite does whenever a setting passes a seed).

use crate::environment::{Environment, Episodic};
use crate::environments::catch::Catch;
use crate::registry::{Experiment, LoadError, SettingValue, Settings, Tag};
use crate::wrappers::RewardNoise;

/// Episodes per run.
pub const NUM_EPISODES: usize = 10000;

/// The five noise_scale values; setting `i` uses `NOISE_SCALES[i / 4]`.
pub const NOISE_SCALES: [f64; 5] = [0.1, 0.3, 1.0, 3.0, 10.0];

/// The `catch_noise` experiment.
pub static EXPERIMENT: Experiment = Experiment {
    name: "catch_noise",
    num_episodes: NUM_EPISODES,
    tags: &[Tag::Noise, Tag::CreditAssignment],
    num_settings: 20,
    info_columns: &["total_regret"],
    settings,
    load,
    steps_per_episode,
};

fn settings(index: usize) -> Settings {
    vec![
        ("noise_scale", SettingValue::Float(NOISE_SCALES[index / 4])),
        ("seed", SettingValue::None),
    ]
}

fn load(index: usize, env_seed: u32) -> Result<Box<dyn Environment>, LoadError> {
    let inner = Episodic::new(Catch::new(10, 5, env_seed), NUM_EPISODES);
    Ok(Box::new(RewardNoise::new(
        inner,
        NOISE_SCALES[index / 4],
        env_seed,
    )))
}

/// A learning agent's typical episode length (the ball falls for nine steps).
fn steps_per_episode(_index: usize) -> f64 {
    9.0
}
