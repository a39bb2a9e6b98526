//! `umbrella_distract`: Umbrella chain of length 20 with `n_distractor` random observation bits.

use crate::environment::{Environment, Episodic};
use crate::environments::umbrella_chain::UmbrellaChain;
use crate::registry::{Experiment, LoadError, SettingValue, Settings, Tag};

/// Episodes per run.
pub const NUM_EPISODES: usize = 10000;

/// The distractor counts of the 23 settings.
pub const N_DISTRACTORS: [usize; 23] = [
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 17, 20, 25, 30, 40, 50, 60, 70, 80, 90, 100,
];

/// The `umbrella_distract` experiment.
pub static EXPERIMENT: Experiment = Experiment {
    name: "umbrella_distract",
    num_episodes: NUM_EPISODES,
    tags: &[Tag::CreditAssignment, Tag::Noise],
    num_settings: 23,
    info_columns: &["total_regret"],
    settings,
    load,
    steps_per_episode,
};

fn settings(index: usize) -> Settings {
    vec![(
        "n_distractor",
        SettingValue::Int(N_DISTRACTORS[index] as i64),
    )]
}

fn load(index: usize, _env_seed: u32) -> Result<Box<dyn Environment>, LoadError> {
    Ok(Box::new(Episodic::new(
        UmbrellaChain::new(20, N_DISTRACTORS[index], 0),
        NUM_EPISODES,
    )))
}

/// A learning agent's typical episode length (the fixed chain of 20).
fn steps_per_episode(_index: usize) -> f64 {
    20.0
}
