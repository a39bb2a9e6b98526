//! `umbrella_length`: Umbrella chain: the first action decides whether the agent carries an umbrella, and
//! only the last of `chain_length` steps tells whether that was right; 20 distractor bits.

use crate::environment::{Environment, Episodic};
use crate::environments::umbrella_chain::UmbrellaChain;
use crate::registry::{Experiment, LoadError, SettingValue, Settings, Tag};

/// Episodes per run.
pub const NUM_EPISODES: usize = 10000;

/// The chain lengths of the 23 settings.
pub const CHAIN_LENGTHS: [usize; 23] = [
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 17, 20, 25, 30, 40, 50, 60, 70, 80, 90, 100,
];

/// The `umbrella_length` experiment.
pub static EXPERIMENT: Experiment = Experiment {
    name: "umbrella_length",
    num_episodes: NUM_EPISODES,
    tags: &[Tag::CreditAssignment, Tag::Noise],
    num_settings: 23,
    info_columns: &["total_regret"],
    settings,
    load,
    steps_per_episode,
};

fn settings(index: usize) -> Settings {
    vec![
        (
            "chain_length",
            SettingValue::Int(CHAIN_LENGTHS[index] as i64),
        ),
        ("n_distractor", SettingValue::Int(20)),
    ]
}

fn load(index: usize, env_seed: u32) -> Result<Box<dyn Environment>, LoadError> {
    // The reference passes no seed here (OS entropy); we use the env seed.
    Ok(Box::new(Episodic::new(
        UmbrellaChain::new(CHAIN_LENGTHS[index], 20, env_seed),
        NUM_EPISODES,
    )))
}

/// A learning agent's typical episode length (the chain length).
fn steps_per_episode(index: usize) -> f64 {
    CHAIN_LENGTHS[index] as f64
}
