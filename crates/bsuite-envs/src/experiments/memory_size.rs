//! `memory_size`: Memory chain of length 2 with `num_bits` context bits, one of which is queried.

use crate::environment::{Environment, Episodic};
use crate::environments::memory_chain::MemoryChain;
use crate::registry::{Experiment, LoadError, SettingValue, Settings, Tag};

/// Episodes per run.
pub const NUM_EPISODES: usize = 10000;

/// The context sizes of the 17 settings.
pub const NUM_BITS: [usize; 17] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 17, 20, 25, 30, 40];

/// The `memory_size` experiment.
pub static EXPERIMENT: Experiment = Experiment {
    name: "memory_size",
    num_episodes: NUM_EPISODES,
    tags: &[Tag::Memory],
    num_settings: 17,
    info_columns: &["total_perfect", "total_regret"],
    settings,
    load,
    steps_per_episode,
};

fn settings(index: usize) -> Settings {
    vec![("num_bits", SettingValue::Int(NUM_BITS[index] as i64))]
}

fn load(index: usize, _env_seed: u32) -> Result<Box<dyn Environment>, LoadError> {
    Ok(Box::new(Episodic::new(
        MemoryChain::new(2, NUM_BITS[index], 0),
        NUM_EPISODES,
    )))
}

/// A learning agent's typical episode length (context, one step, query).
fn steps_per_episode(_index: usize) -> f64 {
    3.0
}
