//! `cartpole`: scoring and plots.

use bsuite_envs::experiments::cartpole::EXPERIMENT;
use bsuite_logging::results::RunTable;

use crate::figure_parts::{rate, regret_family_figures, ExperimentData, RegretFamily};
use crate::helpers::{ave_regret_score, column, only};
use crate::numeric;
use crate::plot::Figure;
use crate::score::{Score, Undefined};

/// Episodes per run.
pub const NUM_EPISODES: u64 = bsuite_envs::experiments::cartpole::NUM_EPISODES as u64;

/// Regret per episode of a policy that balances for no time at all (+1 per step, 1000 steps).
pub const BASE_REGRET: f64 = 1000.0;

/// A run "solves" cartpole once its best episode returns more than this.
pub const GOOD_EPISODE: f64 = 500.0;

/// Cumulative regret of a row: `1000·episode - raw_return`.
pub(crate) fn regret(run: &RunTable, row: usize) -> f64 {
    BASE_REGRET * run.episodes()[row] - column(run, "raw_return")[row]
}

/// Half regret, half "balanced for a good episode".
///
/// Keeping the pole up earns +1 per step for up to 1,000 steps. The first half is the
/// average-regret score over the first 1,000 episodes (regret per episode against a
/// perfect 1,000-step episode, so 1,000 scores 0 and perfection 1); the second half is the
/// fraction of runs whose best episode so far returned more than 500. Runs of other
/// experiments are ignored.
pub fn score(runs: &[&RunTable]) -> Score {
    score_runs(&only(runs, &EXPERIMENT))
}

pub(crate) fn score_runs(runs: &[&RunTable]) -> Score {
    let regret = ave_regret_score(runs, BASE_REGRET, NUM_EPISODES, Some(NUM_EPISODES), regret);
    let solve = fraction_with_good_episode(runs, NUM_EPISODES, GOOD_EPISODE);
    let reason = match regret {
        Score::Undefined(reason) => reason,
        Score::Value(_) => Undefined::NoRowsToScore,
    };
    Score::from_f64(0.5 * (regret.to_f64() + solve), reason)
}

/// The fraction of runs whose `best_episode` over the rows up to `cap` exceeds `good`
/// (`np.mean(df.groupby('bsuite_id')['best_episode'].max() > good)`); NaN without rows.
pub(crate) fn fraction_with_good_episode(runs: &[&RunTable], cap: u64, good: f64) -> f64 {
    let mut flags = Vec::new();
    for run in runs {
        let best = column(run, "best_episode")
            .iter()
            .zip(run.episodes())
            .filter(|(_, &e)| e <= cap as f64)
            .map(|(&b, _)| b)
            .reduce(f64::max);
        if let Some(best) = best {
            flags.push(if best > good { 1.0 } else { 0.0 });
        }
    }
    numeric::mean(&flags)
}

/// The notebook's plots of cartpole: learning curve and per-run returns.
pub fn figures(data: &ExperimentData) -> Vec<Figure> {
    regret_family_figures(data, &PLOTS, None)
}

/// What cartpole's plots show; its noise and scale variants plot the same per scale.
pub(crate) const PLOTS: RegretFamily<'static> = RegretFamily {
    regret: &regret,
    base_regret: BASE_REGRET,
    bandit_format: false,
    seeds_value: &|run: &RunTable, row: usize, prev: usize| rate(run, "raw_return", row, prev),
    seeds_min_episode: f64::NEG_INFINITY,
    seeds_yintercept: BASE_REGRET,
    seeds_label: "average episodic return",
};

/// `cartpole` in the analysis table.
pub(crate) static ANALYSIS: super::ExperimentAnalysis = super::ExperimentAnalysis {
    experiment: &EXPERIMENT,
    score: score_runs,
    figures,
};
