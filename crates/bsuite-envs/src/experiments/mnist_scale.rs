//! `mnist_scale`: `mnist` with rewards multiplied by `reward_scale` (five values, four replicas each).

use crate::environment::{Environment, Episodic};
use crate::environments::mnist::MnistBandit;
use crate::registry::{Experiment, LoadError, SettingValue, Settings, Tag};
use crate::wrappers::RewardScale;

/// Episodes per run.
pub const NUM_EPISODES: usize = 10000;

/// The five reward_scale values; setting `i` uses `REWARD_SCALES[i / 4]`.
pub const REWARD_SCALES: [f64; 5] = [0.001, 0.03, 1.0, 30.0, 1000.0];

/// The `mnist_scale` experiment.
pub static EXPERIMENT: Experiment = Experiment {
    name: "mnist_scale",
    num_episodes: NUM_EPISODES,
    tags: &[Tag::Scale, Tag::Generalization],
    num_settings: 20,
    info_columns: &["total_regret"],
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
    let inner = Episodic::new(MnistBandit::new(1.0, env_seed)?, NUM_EPISODES);
    Ok(Box::new(RewardScale::new(
        inner,
        REWARD_SCALES[index / 4],
        env_seed,
    )))
}

/// A learning agent's typical episode length (one step).
fn steps_per_episode(_index: usize) -> f64 {
    1.0
}
