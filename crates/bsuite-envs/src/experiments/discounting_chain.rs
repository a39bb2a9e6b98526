//! `discounting_chain`: Discounting chain: the first action picks one of five chains whose reward arrives after
//! 1, 3, 10, 30 or 100 steps; one of them pays 1.1 instead of 1.

use crate::environment::{Environment, Episodic};
use crate::environments::discounting_chain::DiscountingChain;
use crate::registry::{Experiment, LoadError, SettingValue, Settings, Tag};

/// Episodes per run.
pub const NUM_EPISODES: usize = 1000;

/// The `discounting_chain` experiment.
pub static EXPERIMENT: Experiment = Experiment {
    name: "discounting_chain",
    num_episodes: NUM_EPISODES,
    tags: &[Tag::CreditAssignment],
    num_settings: 20,
    info_columns: &[],
    settings,
    load,
    steps_per_episode,
};

fn settings(index: usize) -> Settings {
    vec![("mapping_seed", SettingValue::Int(index as i64))]
}

fn load(index: usize, _env_seed: u32) -> Result<Box<dyn Environment>, LoadError> {
    Ok(Box::new(Episodic::new(
        DiscountingChain::new(index as u64),
        NUM_EPISODES,
    )))
}

/// A learning agent's typical episode length (the chain's fixed length).
fn steps_per_episode(_index: usize) -> f64 {
    100.0
}
