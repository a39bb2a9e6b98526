//! One module per bsuite experiment, named after it: its score (and the constants the score
//! uses) and the data behind its standard plots.
//!
//! Each module's `score` takes the runs of one agent, ignores runs of other experiments, and
//! returns what the reference's `experiments/<name>/analysis.py` `score` returns for the same
//! rows, with the reference's NaN made explicit as [`Score::Undefined`].

use bsuite_envs::Experiment;
use bsuite_logging::results::RunTable;

use crate::figures::ExperimentData;
use crate::plot::Figure;
use crate::score::Score;

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

/// The runs of `experiment` among `runs`, in the given order.
pub(crate) fn only<'a>(runs: &[&'a RunTable], experiment: &str) -> Vec<&'a RunTable> {
    runs.iter()
        .copied()
        .filter(|r| r.experiment().name == experiment)
        .collect()
}

/// The score of `experiment` over the given runs (runs of other experiments are ignored).
///
/// ```no_run
/// use bsuite_logging::results::load_dir;
///
/// let results = load_dir("results/dqn".as_ref()).unwrap();
/// let runs: Vec<_> = results.runs.iter().collect();
/// let catch = bsuite_envs::experiment("catch").unwrap();
/// println!("{}", bsuite_analysis::experiments::score(catch, &runs));
/// ```
pub fn score(experiment: &Experiment, runs: &[&RunTable]) -> Score {
    let runs = only(runs, experiment.name);
    score_same_experiment(experiment, &runs)
}

/// The score of runs that all belong to `experiment`.
pub(crate) fn score_same_experiment(experiment: &Experiment, runs: &[&RunTable]) -> Score {
    match experiment.name {
        "bandit" => bandit::score_runs(runs),
        "bandit_noise" => bandit_noise::score_runs(runs),
        "bandit_scale" => bandit_scale::score_runs(runs),
        "cartpole" => cartpole::score_runs(runs),
        "cartpole_noise" => cartpole_noise::score_runs(runs),
        "cartpole_scale" => cartpole_scale::score_runs(runs),
        "cartpole_swingup" => cartpole_swingup::score_runs(runs),
        "catch" => catch::score_runs(runs),
        "catch_noise" => catch_noise::score_runs(runs),
        "catch_scale" => catch_scale::score_runs(runs),
        "deep_sea" => deep_sea::score_runs(runs),
        "deep_sea_stochastic" => deep_sea_stochastic::score_runs(runs),
        "discounting_chain" => discounting_chain::score_runs(runs),
        "memory_len" => memory_len::score_runs(runs),
        "memory_size" => memory_size::score_runs(runs),
        "mnist" => mnist::score_runs(runs),
        "mnist_noise" => mnist_noise::score_runs(runs),
        "mnist_scale" => mnist_scale::score_runs(runs),
        "mountain_car" => mountain_car::score_runs(runs),
        "mountain_car_noise" => mountain_car_noise::score_runs(runs),
        "mountain_car_scale" => mountain_car_scale::score_runs(runs),
        "umbrella_distract" => umbrella_distract::score_runs(runs),
        "umbrella_length" => umbrella_length::score_runs(runs),
        other => unreachable!("bsuite-envs has no experiment {other}"),
    }
}

/// The standard plots of the experiment in `data`.
pub(crate) fn figures(data: &ExperimentData) -> Vec<Figure> {
    match data.experiment.name {
        "bandit" => bandit::figures(data),
        "bandit_noise" => bandit_noise::figures(data),
        "bandit_scale" => bandit_scale::figures(data),
        "cartpole" => cartpole::figures(data),
        "cartpole_noise" => cartpole_noise::figures(data),
        "cartpole_scale" => cartpole_scale::figures(data),
        "cartpole_swingup" => cartpole_swingup::figures(data),
        "catch" => catch::figures(data),
        "catch_noise" => catch_noise::figures(data),
        "catch_scale" => catch_scale::figures(data),
        "deep_sea" => deep_sea::figures(data),
        "deep_sea_stochastic" => deep_sea_stochastic::figures(data),
        "discounting_chain" => discounting_chain::figures(data),
        "memory_len" => memory_len::figures(data),
        "memory_size" => memory_size::figures(data),
        "mnist" => mnist::figures(data),
        "mnist_noise" => mnist_noise::figures(data),
        "mnist_scale" => mnist_scale::figures(data),
        "mountain_car" => mountain_car::figures(data),
        "mountain_car_noise" => mountain_car_noise::figures(data),
        "mountain_car_scale" => mountain_car_scale::figures(data),
        "umbrella_distract" => umbrella_distract::figures(data),
        "umbrella_length" => umbrella_length::figures(data),
        other => unreachable!("bsuite-envs has no experiment {other}"),
    }
}
