//! `memory_len`: Memory chain with one context bit shown at the start and queried after `memory_length`
//! steps.

use crate::environment::{Environment, Episodic};
use crate::environments::memory_chain::MemoryChain;
use crate::registry::{Experiment, LoadError, SettingValue, Settings, Tag};

/// Episodes per run.
pub const NUM_EPISODES: usize = 10000;

/// The memory lengths of the 23 settings.
pub const LENGTHS: [usize; 23] = [
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 17, 20, 25, 30, 40, 50, 60, 70, 80, 90, 100,
];

/// The `memory_len` experiment.
pub static EXPERIMENT: Experiment = Experiment {
    name: "memory_len",
    num_episodes: NUM_EPISODES,
    tags: &[Tag::Memory],
    num_settings: 23,
    info_columns: &["total_perfect", "total_regret"],
    settings,
    load,
    steps_per_episode,
};

fn settings(index: usize) -> Settings {
    vec![("memory_length", SettingValue::Int(LENGTHS[index] as i64))]
}

fn load(index: usize, _env_seed: u32) -> Result<Box<dyn Environment>, LoadError> {
    Ok(Box::new(Episodic::new(
        MemoryChain::new(LENGTHS[index], 1, 0),
        NUM_EPISODES,
    )))
}

/// A learning agent's typical episode length (the memory length plus the query).
fn steps_per_episode(index: usize) -> f64 {
    (LENGTHS[index] + 1) as f64
}
