//! Whether two agents are statistically the same agent: one value per seed on each side
//! (a bsuite score, or a run's mean episode return), their means and spreads, a two-sample
//! permutation test, and the smallest difference the samples could have detected; and the
//! learning curves of both sides, mean and spread over seeds.
//!
//! Agents in different frameworks cannot be bit-exact, so agreement is shown on
//! distributions: each side runs several seeds of the same ids, and a difference is called
//! real only when a test says so, and agreement only when the test could have seen a
//! difference of the given size.
//!
//! ```
//! use bsuite_analysis::agreement::{compare, Verdict};
//!
//! let ours = [0.50, 0.55, 0.52, 0.48, 0.51, 0.53, 0.49, 0.50];
//! let theirs = [0.52, 0.50, 0.47, 0.53, 0.51, 0.49, 0.54, 0.50];
//! let c = compare(&ours, &theirs);
//! assert!(c.p_value > 0.05);
//! assert_eq!(c.verdict(0.1), Verdict::Agrees);
//! ```

use std::ops::RangeInclusive;

use bsuite_logging::results::RunTable;

// The two-sample statistics live in `stats`, beside the bootstrap that `score` and
// `compare` use; agreement keeps its names for them.
pub use crate::stats::{compare, Comparison, Sample, Verdict};

/// A run's mean episode return over all its logged episodes: the last row's
/// `total_return` over its episode.
pub fn mean_return(run: &RunTable) -> Option<f64> {
    let total = *run.values("total_return")?.last()?;
    Some(total / run.last_episode().max(1) as f64)
}

/// The smallest and largest logged `episode_return` of some runs: the span the mean
/// return's tolerance is taken relative to.
pub fn return_range<'a>(runs: impl IntoIterator<Item = &'a RunTable>) -> Option<(f64, f64)> {
    let mut range: Option<(f64, f64)> = None;
    for run in runs {
        for &r in run.values("episode_return").unwrap_or_default() {
            let (lo, hi) = range.unwrap_or((r, r));
            range = Some((lo.min(r), hi.max(r)));
        }
    }
    range
}

/// A run's learning curve: at each logged episode, the mean return per episode since the
/// previous logged one (from the cumulative `total_return`).
pub fn learning_curve(run: &RunTable) -> Vec<(f64, f64)> {
    let Some(totals) = run.values("total_return") else {
        return Vec::new();
    };
    let mut previous = (0.0, 0.0);
    run.episodes()
        .iter()
        .zip(totals)
        .filter_map(|(&episode, &total)| {
            let span = episode - previous.0;
            let point = (span > 0.0).then(|| (episode, (total - previous.1) / span));
            previous = (episode, total);
            point
        })
        .collect()
}

/// The episode windows over which two sides' learning curves are compared: the first tenth
/// of `num_episodes`, then up to √10 tenths, then the rest, as `(after, through)` episode
/// pairs. bsuite reads learning on a log scale of episodes, so each window is half a
/// decade of it or more: early learning, the middle, and where runs settle (or, for the
/// recurrent agent, collapse).
///
/// ```
/// use bsuite_analysis::agreement::curve_windows;
///
/// assert_eq!(curve_windows(10_000), [(0, 1000), (1000, 3162), (3162, 10_000)]);
/// ```
pub fn curve_windows(num_episodes: u64) -> [(u64, u64); 3] {
    let tenth = num_episodes / 10;
    let middle = (num_episodes as f64 / 10f64.sqrt()) as u64;
    [(0, tenth), (tenth, middle), (middle, num_episodes)]
}

/// A run's mean return per episode over the episodes after `after` through `through`,
/// from the cumulative `total_return` at the last logged episode at or before each bound,
/// with the episodes that covers. bsuite logs on a schedule that depends only on the
/// episode count, so every run of an id snaps to the same episodes. `None` when no logged
/// episode lies between the two.
pub fn window_return(
    run: &RunTable,
    after: u64,
    through: u64,
) -> Option<(RangeInclusive<u64>, f64)> {
    let totals = run.values("total_return")?;
    let at = |bound: u64| -> (f64, f64) {
        run.episodes()
            .iter()
            .zip(totals)
            .take_while(|(&episode, _)| episode <= bound as f64)
            .last()
            .map_or((0.0, 0.0), |(&episode, &total)| (episode, total))
    };
    let ((from, start), (to, end)) = (at(after), at(through));
    (to > from).then(|| (from as u64 + 1..=to as u64, (end - start) / (to - from)))
}

/// Curves of several seeds as `(episode, mean, sd)` at the episodes all of them logged
/// (bsuite's logging schedule is the same for every run of an id).
pub fn curve_band(curves: &[Vec<(f64, f64)>]) -> Vec<(f64, f64, f64)> {
    let Some(first) = curves.first() else {
        return Vec::new();
    };
    first
        .iter()
        .filter_map(|&(episode, _)| {
            let values: Option<Vec<f64>> = curves
                .iter()
                .map(|c| c.iter().find(|p| p.0 == episode).map(|p| p.1))
                .collect();
            let sample = Sample::of(&values?);
            Some((episode, sample.mean, sample.sd))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn window_returns_come_from_the_logged_totals_at_or_before_each_bound() {
        // catch logs at episodes 1-10, 12, 14, ...; returns +1 then -1 then +1.
        let csv = "steps,episode,total_return,episode_len,episode_return,total_regret\n\
                   9,1,1.0,9,1.0,0.0\n18,2,2.0,9,1.0,0.0\n27,3,1.0,9,-1.0,2.0\n\
                   90,10,-2.0,9,-1.0,8.0\n108,12,0.0,9,1.0,8.0\n";
        let id = "catch/0".parse().unwrap();
        let run =
            bsuite_logging::results::parse_run(id, Path::new("x.csv"), csv.as_bytes()).unwrap();
        assert_eq!(window_return(&run, 0, 2), Some((1..=2, 1.0)));
        // Episode 9 snaps to the row of episode 3; 11 to that of 10.
        assert_eq!(window_return(&run, 2, 9), Some((3..=3, -1.0)));
        assert_eq!(window_return(&run, 9, 11), Some((4..=10, -3.0 / 7.0)));
        assert_eq!(window_return(&run, 10, 12), Some((11..=12, 1.0)));
        // Nothing logged after episode 12, or between 10 and 11.
        assert_eq!(window_return(&run, 12, 20), None);
        assert_eq!(window_return(&run, 10, 11), None);
    }
}
