//! One module per bsuite experiment, named after it: its score (and the constants the score
//! uses) and the data behind its standard plots.
//!
//! Each module's `score` takes the runs of one agent, ignores runs of other experiments, and
//! returns what the reference's `experiments/<name>/analysis.py` `score` returns for the same
//! rows, with the reference's NaN made explicit as [`Score::Undefined`].

use bsuite_envs::Experiment;
use bsuite_logging::results::RunTable;

use crate::figure_parts::ExperimentData;
use crate::helpers::only;
use crate::plot::Figure;
use crate::score::{Score, Undefined};

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

/// What the analysis knows of one experiment: its score and its standard plots. Each
/// experiment module defines one as `ANALYSIS`.
#[derive(Debug)]
pub struct ExperimentAnalysis {
    /// The experiment.
    pub experiment: &'static Experiment,
    /// The score of runs that all belong to the experiment.
    score: fn(&[&RunTable]) -> Score,
    /// The standard plots, in the notebook's order.
    figures: fn(&ExperimentData) -> Vec<Figure>,
}

/// Every experiment's analysis, in the order the reference's summary plots list them
/// (`_ORDERED_EXPERIMENTS`): the basic five, their noise and scale variants, then
/// exploration, credit assignment and memory.
static IN_PLOT_ORDER: [&ExperimentAnalysis; 23] = [
    &bandit::ANALYSIS,
    &mnist::ANALYSIS,
    &catch::ANALYSIS,
    &mountain_car::ANALYSIS,
    &cartpole::ANALYSIS,
    &bandit_noise::ANALYSIS,
    &mnist_noise::ANALYSIS,
    &catch_noise::ANALYSIS,
    &mountain_car_noise::ANALYSIS,
    &cartpole_noise::ANALYSIS,
    &bandit_scale::ANALYSIS,
    &mnist_scale::ANALYSIS,
    &catch_scale::ANALYSIS,
    &mountain_car_scale::ANALYSIS,
    &cartpole_scale::ANALYSIS,
    &deep_sea::ANALYSIS,
    &deep_sea_stochastic::ANALYSIS,
    &cartpole_swingup::ANALYSIS,
    &umbrella_length::ANALYSIS,
    &umbrella_distract::ANALYSIS,
    &discounting_chain::ANALYSIS,
    &memory_len::ANALYSIS,
    &memory_size::ANALYSIS,
];

/// bsuite's 23 experiments in the order the summary plots and the report list them (the
/// reference's `_ORDERED_EXPERIMENTS`).
///
/// ```
/// let first: Vec<&str> = bsuite_analysis::experiments::in_plot_order()
///     .take(3)
///     .map(|e| e.name)
///     .collect();
/// assert_eq!(first, ["bandit", "mnist", "catch"]);
/// ```
pub fn in_plot_order() -> impl Iterator<Item = &'static Experiment> {
    IN_PLOT_ORDER.iter().map(|a| a.experiment)
}

fn analysis(experiment: &Experiment) -> Option<&'static ExperimentAnalysis> {
    IN_PLOT_ORDER
        .iter()
        .copied()
        .find(|a| a.experiment.name == experiment.name)
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
    score_same_experiment(experiment, &only(runs, experiment))
}

/// The score of runs that all belong to `experiment`; undefined for an experiment bsuite
/// does not score (one a user registered).
pub(crate) fn score_same_experiment(experiment: &Experiment, runs: &[&RunTable]) -> Score {
    match analysis(experiment) {
        Some(analysis) => (analysis.score)(runs),
        None => Score::Undefined(Undefined::NoScoreDefined),
    }
}

/// The standard plots of the experiment in `data`; none for an experiment bsuite does not
/// plot.
pub(crate) fn figures(data: &ExperimentData) -> Vec<Figure> {
    analysis(data.experiment).map_or_else(Vec::new, |analysis| (analysis.figures)(data))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_table_covers_exactly_bsuites_experiments() {
        let mut ours: Vec<&str> = super::in_plot_order().map(|e| e.name).collect();
        ours.sort_unstable();
        let envs: Vec<&str> = bsuite_envs::experiments().iter().map(|e| e.name).collect();
        assert_eq!(ours, envs);
    }
}
