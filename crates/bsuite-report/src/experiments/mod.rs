//! One module per bsuite experiment, named after it: what the report says about it.

use bsuite_envs::experiments as envs;
use bsuite_envs::Experiment;

pub mod bandit;
pub mod bandit_noise;
pub mod bandit_scale;
pub mod cartpole;
pub mod cartpole_noise;
pub mod cartpole_scale;
pub mod cartpole_swingup;
pub mod catch;
pub mod catch_noise;
pub mod catch_scale;
pub mod deep_sea;
pub mod deep_sea_stochastic;
pub mod discounting_chain;
pub mod memory_len;
pub mod memory_size;
pub mod mnist;
pub mod mnist_noise;
pub mod mnist_scale;
pub mod mountain_car;
pub mod mountain_car_noise;
pub mod mountain_car_scale;
pub mod umbrella_distract;
pub mod umbrella_length;

/// Every experiment's paragraph.
static DESCRIPTIONS: [(&Experiment, &str); 23] = [
    (&envs::bandit::EXPERIMENT, bandit::DESCRIPTION),
    (&envs::bandit_noise::EXPERIMENT, bandit_noise::DESCRIPTION),
    (&envs::bandit_scale::EXPERIMENT, bandit_scale::DESCRIPTION),
    (&envs::cartpole::EXPERIMENT, cartpole::DESCRIPTION),
    (
        &envs::cartpole_noise::EXPERIMENT,
        cartpole_noise::DESCRIPTION,
    ),
    (
        &envs::cartpole_scale::EXPERIMENT,
        cartpole_scale::DESCRIPTION,
    ),
    (
        &envs::cartpole_swingup::EXPERIMENT,
        cartpole_swingup::DESCRIPTION,
    ),
    (&envs::catch::EXPERIMENT, catch::DESCRIPTION),
    (&envs::catch_noise::EXPERIMENT, catch_noise::DESCRIPTION),
    (&envs::catch_scale::EXPERIMENT, catch_scale::DESCRIPTION),
    (&envs::deep_sea::EXPERIMENT, deep_sea::DESCRIPTION),
    (
        &envs::deep_sea_stochastic::EXPERIMENT,
        deep_sea_stochastic::DESCRIPTION,
    ),
    (
        &envs::discounting_chain::EXPERIMENT,
        discounting_chain::DESCRIPTION,
    ),
    (&envs::memory_len::EXPERIMENT, memory_len::DESCRIPTION),
    (&envs::memory_size::EXPERIMENT, memory_size::DESCRIPTION),
    (&envs::mnist::EXPERIMENT, mnist::DESCRIPTION),
    (&envs::mnist_noise::EXPERIMENT, mnist_noise::DESCRIPTION),
    (&envs::mnist_scale::EXPERIMENT, mnist_scale::DESCRIPTION),
    (&envs::mountain_car::EXPERIMENT, mountain_car::DESCRIPTION),
    (
        &envs::mountain_car_noise::EXPERIMENT,
        mountain_car_noise::DESCRIPTION,
    ),
    (
        &envs::mountain_car_scale::EXPERIMENT,
        mountain_car_scale::DESCRIPTION,
    ),
    (
        &envs::umbrella_distract::EXPERIMENT,
        umbrella_distract::DESCRIPTION,
    ),
    (
        &envs::umbrella_length::EXPERIMENT,
        umbrella_length::DESCRIPTION,
    ),
];

/// The report's paragraph on an experiment, or `None` for one bsuite does not have (a
/// user's registered experiment).
///
/// ```
/// let deep_sea = bsuite_envs::experiment("deep_sea").unwrap();
/// let text = bsuite_report::experiments::description(deep_sea).unwrap();
/// assert!(text.contains("2^N"));
/// ```
pub fn description(experiment: &Experiment) -> Option<&'static str> {
    DESCRIPTIONS
        .iter()
        .find(|(e, _)| e.name == experiment.name)
        .map(|(_, text)| *text)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_experiment_has_exactly_one_paragraph() {
        let mut ours: Vec<&str> = super::DESCRIPTIONS.iter().map(|(e, _)| e.name).collect();
        ours.sort_unstable();
        let envs: Vec<&str> = bsuite_envs::experiments().iter().map(|e| e.name).collect();
        assert_eq!(ours, envs);
    }
}
