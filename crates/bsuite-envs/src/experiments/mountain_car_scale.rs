//! `mountain_car_scale`: `mountain_car` with rewards multiplied by `reward_scale` (five values, four replicas each).

use crate::environment::{Environment, Episodic};
use crate::environments::mountain_car::MountainCar;
use crate::registry::{Experiment, LoadError, SettingValue, Settings, Tag};
use crate::wrappers::RewardScale;

/// Episodes per run.
pub const NUM_EPISODES: usize = 1000;

/// The five reward_scale values; setting `i` uses `REWARD_SCALES[i / 4]`.
pub const REWARD_SCALES: [f64; 5] = [0.001, 0.03, 1.0, 30.0, 1000.0];

/// The `mountain_car_scale` experiment.
pub static EXPERIMENT: Experiment = Experiment {
    name: "mountain_car_scale",
    num_episodes: NUM_EPISODES,
    tags: &[Tag::Scale, Tag::Generalization],
    num_settings: 20,
    info_columns: &["raw_return"],
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
    let inner = Episodic::new(MountainCar::new(1000, env_seed), NUM_EPISODES);
    Ok(Box::new(RewardScale::new(
        inner,
        REWARD_SCALES[index / 4],
        env_seed,
    )))
}

/// A learning agent's typical episode length (a learner takes a few hundred steps up the hill).
fn steps_per_episode(_index: usize) -> f64 {
    300.0
}
