//! Scoring helpers shared by several experiments (`bsuite/utils/plotting.py` in the
//! reference): regret normalisation, the mean-minus-spread rule of the noise and scale
//! experiments, and grouping runs by a sweep setting.
//!
//! The rows of one agent and experiment are the runs' rows concatenated in sweep order (the
//! reference's frame order, up to its filesystem-dependent file order).

use bsuite_envs::Experiment;
use bsuite_logging::results::RunTable;

use crate::numeric;
use crate::score::{Score, Undefined};

/// The runs of `experiment` among `runs`, in the given order.
pub(crate) fn only<'a>(runs: &[&'a RunTable], experiment: &Experiment) -> Vec<&'a RunTable> {
    runs.iter()
        .copied()
        .filter(|r| r.experiment().name == experiment.name)
        .collect()
}

/// The values of a column that the reader guarantees for the run's experiment.
pub(crate) fn column<'r>(run: &'r RunTable, name: &str) -> &'r [f64] {
    match run.values(name) {
        Some(values) => values,
        None => unreachable!(
            "the results reader checks that {} has column {name}",
            run.id()
        ),
    }
}

/// The largest logged episode over `runs`, counting only episodes `<= cap` when a cap is
/// given (the reference's `df[df.episode <= NUM_EPISODES]` preprocessing).
pub(crate) fn max_episode(runs: &[&RunTable], cap: Option<u64>) -> Option<f64> {
    let cap = cap.map_or(f64::INFINITY, |c| c as f64);
    runs.iter()
        .flat_map(|r| r.episodes().iter().copied())
        .filter(|&e| e <= cap)
        .reduce(f64::max)
}

/// `f(run, row)` for every row logged at exactly `episode`, in frame order.
pub(crate) fn values_at(
    runs: &[&RunTable],
    episode: f64,
    f: impl Fn(&RunTable, usize) -> f64,
) -> Vec<f64> {
    let mut out = Vec::new();
    for run in runs {
        for (row, &e) in run.episodes().iter().enumerate() {
            if e == episode {
                out.push(f(run, row));
            }
        }
    }
    out
}

/// The evaluation episode of the regret scores: the furthest logged episode, but at most
/// `num_episodes` (`np.minimum(df.episode.max(), episode)`).
pub(crate) fn evaluation_episode(
    runs: &[&RunTable],
    num_episodes: u64,
    cap: Option<u64>,
) -> Option<f64> {
    max_episode(runs, cap).map(|m| m.min(num_episodes as f64))
}

/// Mean over runs of `f` at the evaluation episode, per episode (`mean(f at n) / n`); NaN
/// when no row sits at that episode.
pub(crate) fn mean_per_episode_at_end(
    runs: &[&RunTable],
    num_episodes: u64,
    cap: Option<u64>,
    f: impl Fn(&RunTable, usize) -> f64,
) -> f64 {
    match evaluation_episode(runs, num_episodes, cap) {
        Some(n) => numeric::mean(&values_at(runs, n, f)) / n,
        None => f64::NAN,
    }
}

/// The reference's `ave_regret_score`: the regret per episode, averaged over the runs that
/// reached the evaluation episode (the furthest logged episode, at most `num_episodes`),
/// normalised so that `baseline_regret` (a random agent's regret per episode) scores 0 and
/// zero regret scores 1, clipped to [0, 1].
///
/// `regret(run, row)` gives the cumulative regret of a row; `cap` drops rows past that
/// episode first. Runs that stopped short of the evaluation episode do not count.
pub fn ave_regret_score(
    runs: &[&RunTable],
    baseline_regret: f64,
    num_episodes: u64,
    cap: Option<u64>,
    regret: impl Fn(&RunTable, usize) -> f64,
) -> Score {
    let mean_regret = mean_per_episode_at_end(runs, num_episodes, cap, regret);
    let unclipped = (baseline_regret - mean_regret) / baseline_regret;
    Score::from_f64(
        numeric::clip01(unclipped),
        Undefined::NoRowAtEvaluationEpisode,
    )
}

/// The `total_regret` column, the regret most experiments log directly.
pub(crate) fn total_regret(run: &RunTable, row: usize) -> f64 {
    column(run, "total_regret")[row]
}

/// The runs grouped by the value of sweep setting `key`, groups sorted by value and runs in
/// frame order, as pandas' `groupby` orders them. Runs without the setting (or with a `None`
/// value) are left out, as pandas drops NaN keys.
pub fn group_by_setting<'a>(runs: &[&'a RunTable], key: &str) -> Vec<(f64, Vec<&'a RunTable>)> {
    let mut groups: Vec<(f64, Vec<&'a RunTable>)> = Vec::new();
    for run in runs {
        let Some(value) = setting(run, key) else {
            continue;
        };
        match groups.iter_mut().find(|(v, _)| *v == value) {
            Some((_, members)) => members.push(run),
            None => groups.push((value, vec![run])),
        }
    }
    groups.sort_by(|a, b| a.0.total_cmp(&b.0));
    groups
}

/// The numeric value of a run's sweep setting, `None` when absent or `None`.
pub fn setting(run: &RunTable, key: &str) -> Option<f64> {
    run.id()
        .settings()
        .into_iter()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v.as_f64())
        .filter(|v| !v.is_nan())
}

/// The reference's `score_by_scaling`, used by every noise and scale experiment: the base
/// experiment's score per noise or reward scale, then the average of the clipped mean and the
/// clipped mean minus one (population) standard deviation across scales, so an agent is
/// rewarded for scoring well and penalised for being inconsistent across scales.
pub fn score_by_scaling(
    runs: &[&RunTable],
    scaling_var: &str,
    score_fn: impl Fn(&[&RunTable]) -> Score,
) -> Score {
    let scores: Vec<Score> = group_by_setting(runs, scaling_var)
        .iter()
        .map(|(_, group)| score_fn(group))
        .collect();
    let values: Vec<f64> = scores.iter().map(|s| s.to_f64()).collect();
    let mean = numeric::mean(&values);
    let spread = numeric::std(&values);
    let result = 0.5 * (numeric::clip01(mean) + numeric::clip01(mean - spread));
    let reason = scores
        .iter()
        .find_map(|s| match s {
            Score::Undefined(u) => Some(*u),
            Score::Value(_) => None,
        })
        .unwrap_or(Undefined::NoRowsToScore);
    Score::from_f64(result, reason)
}

/// The fraction of `values` below `threshold`, where a NaN counts as not below (numpy's
/// comparison semantics), as `np.mean(np.array(values) < threshold)`.
pub(crate) fn fraction_below(values: &[f64], threshold: f64) -> f64 {
    let flags: Vec<f64> = values
        .iter()
        .map(|&v| if v < threshold { 1.0 } else { 0.0 })
        .collect();
    numeric::mean(&flags)
}
