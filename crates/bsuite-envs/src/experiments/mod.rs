//! One module per bsuite experiment: its sweep settings, episode count, tags and loader.

use crate::registry::Experiment;

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

/// All experiments in the reference's alphabetical order.
pub(crate) static ALL: &[&Experiment] = &[
    &bandit::EXPERIMENT,
    &bandit_noise::EXPERIMENT,
    &bandit_scale::EXPERIMENT,
    &cartpole::EXPERIMENT,
    &cartpole_noise::EXPERIMENT,
    &cartpole_scale::EXPERIMENT,
    &cartpole_swingup::EXPERIMENT,
    &catch::EXPERIMENT,
    &catch_noise::EXPERIMENT,
    &catch_scale::EXPERIMENT,
    &deep_sea::EXPERIMENT,
    &deep_sea_stochastic::EXPERIMENT,
    &discounting_chain::EXPERIMENT,
    &memory_len::EXPERIMENT,
    &memory_size::EXPERIMENT,
    &mnist::EXPERIMENT,
    &mnist_noise::EXPERIMENT,
    &mnist_scale::EXPERIMENT,
    &mountain_car::EXPERIMENT,
    &mountain_car_noise::EXPERIMENT,
    &mountain_car_scale::EXPERIMENT,
    &umbrella_distract::EXPERIMENT,
    &umbrella_length::EXPERIMENT,
];

#[cfg(test)]
mod tests {
    #[test]
    fn info_columns_are_the_environments_bsuite_info_keys() {
        for e in super::ALL {
            for id in e.ids() {
                let env = id.load().unwrap();
                let keys: Vec<&str> = env.bsuite_info().into_iter().map(|(k, _)| k).collect();
                assert_eq!(e.info_columns, keys.as_slice(), "{id}");
            }
        }
    }
}
