//! One module per bsuite experiment, named after it: what the report says about it.

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

/// The report's paragraph on an experiment, or `None` for a name that is not an experiment.
///
/// ```
/// let text = bsuite_report::experiments::description("deep_sea").unwrap();
/// assert!(text.contains("2^N"));
/// ```
pub fn description(experiment: &str) -> Option<&'static str> {
    Some(match experiment {
        "bandit" => bandit::DESCRIPTION,
        "bandit_noise" => bandit_noise::DESCRIPTION,
        "bandit_scale" => bandit_scale::DESCRIPTION,
        "cartpole" => cartpole::DESCRIPTION,
        "cartpole_noise" => cartpole_noise::DESCRIPTION,
        "cartpole_scale" => cartpole_scale::DESCRIPTION,
        "cartpole_swingup" => cartpole_swingup::DESCRIPTION,
        "catch" => catch::DESCRIPTION,
        "catch_noise" => catch_noise::DESCRIPTION,
        "catch_scale" => catch_scale::DESCRIPTION,
        "deep_sea" => deep_sea::DESCRIPTION,
        "deep_sea_stochastic" => deep_sea_stochastic::DESCRIPTION,
        "discounting_chain" => discounting_chain::DESCRIPTION,
        "memory_len" => memory_len::DESCRIPTION,
        "memory_size" => memory_size::DESCRIPTION,
        "mnist" => mnist::DESCRIPTION,
        "mnist_noise" => mnist_noise::DESCRIPTION,
        "mnist_scale" => mnist_scale::DESCRIPTION,
        "mountain_car" => mountain_car::DESCRIPTION,
        "mountain_car_noise" => mountain_car_noise::DESCRIPTION,
        "mountain_car_scale" => mountain_car_scale::DESCRIPTION,
        "umbrella_distract" => umbrella_distract::DESCRIPTION,
        "umbrella_length" => umbrella_length::DESCRIPTION,
        _ => return None,
    })
}
