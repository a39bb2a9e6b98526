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

use bsuite_envs::RandomState;
use bsuite_logging::results::RunTable;

/// The mean, standard deviation (n − 1) and size of a sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// Mean.
    pub mean: f64,
    /// Standard deviation with Bessel's correction (0 for one value).
    pub sd: f64,
    /// Values.
    pub n: usize,
}

impl Sample {
    /// The statistics of `values`.
    pub fn of(values: &[f64]) -> Sample {
        let n = values.len();
        let mean = values.iter().sum::<f64>() / n.max(1) as f64;
        let ss: f64 = values.iter().map(|v| (v - mean).powi(2)).sum();
        let sd = if n > 1 {
            (ss / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        Sample { mean, sd, n }
    }
}

/// The two sides compared.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Comparison {
    /// Our agent's values.
    pub ours: Sample,
    /// The reference agent's values.
    pub reference: Sample,
    /// Two-sided p-value of the permutation test on the difference of means.
    pub p_value: f64,
    /// The smallest difference of means this test detects four times in five at the 5%
    /// level (normal approximation: 2.80 standard errors of the difference).
    pub detectable: f64,
}

/// What a comparison says at a given tolerance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No significant difference, and the test could have detected one of the tolerance.
    Agrees,
    /// A significant difference (p < 0.05).
    Differs,
    /// No significant difference, but too few or too noisy samples to rule one of the
    /// tolerance out.
    Inconclusive,
}

impl Verdict {
    /// `agrees`, `differs` or `inconclusive`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Agrees => "agrees",
            Verdict::Differs => "differs",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

impl Comparison {
    /// The difference of means, ours minus the reference's.
    pub fn difference(&self) -> f64 {
        self.ours.mean - self.reference.mean
    }

    /// The verdict when differences below `tolerance` do not matter.
    pub fn verdict(&self, tolerance: f64) -> Verdict {
        if self.p_value < 0.05 {
            Verdict::Differs
        } else if self.detectable <= tolerance {
            Verdict::Agrees
        } else {
            Verdict::Inconclusive
        }
    }
}

/// Random relabellings of the permutation test when there are too many to enumerate.
const PERMUTATIONS: usize = 20_000;

/// Compares per-seed values: means, spreads, a two-sided permutation test of the
/// difference of means (all relabellings when there are at most 20,000, else 20,000 drawn
/// with a fixed seed, so the p-value is reproducible) and the detectable difference.
pub fn compare(ours: &[f64], reference: &[f64]) -> Comparison {
    let (a, b) = (Sample::of(ours), Sample::of(reference));
    let se = (a.sd.powi(2) / a.n.max(1) as f64 + b.sd.powi(2) / b.n.max(1) as f64).sqrt();
    Comparison {
        ours: a,
        reference: b,
        p_value: permutation_p_value(ours, reference),
        detectable: 2.80 * se,
    }
}

fn permutation_p_value(a: &[f64], b: &[f64]) -> f64 {
    let pooled: Vec<f64> = a.iter().chain(b).copied().collect();
    let (n, k) = (pooled.len(), a.len());
    if k == 0 || k == n {
        return 1.0;
    }
    let total: f64 = pooled.iter().sum();
    let statistic = |sum_a: f64| (sum_a / k as f64 - (total - sum_a) / (n - k) as f64).abs();
    let observed = statistic(a.iter().sum());
    // A relabelling as extreme as the observed one, up to rounding.
    let extreme = |s: f64| s >= observed * (1.0 - 1e-12) - 1e-15;
    if binomial(n, k) <= PERMUTATIONS as f64 {
        let (mut count, mut all) = (0usize, 0usize);
        let mut chosen: Vec<usize> = (0..k).collect();
        loop {
            let sum: f64 = chosen.iter().map(|&i| pooled[i]).sum();
            count += usize::from(extreme(statistic(sum)));
            all += 1;
            // The next k-combination in lexicographic order.
            let Some(i) = (0..k).rev().find(|&i| chosen[i] < n - k + i) else {
                break;
            };
            chosen[i] += 1;
            for j in i + 1..k {
                chosen[j] = chosen[j - 1] + 1;
            }
        }
        return count as f64 / all as f64;
    }
    let mut rng = RandomState::new(12345);
    let mut order: Vec<usize> = (0..n).collect();
    let mut count = 0usize;
    for _ in 0..PERMUTATIONS {
        // Partial Fisher-Yates: the first k positions are a uniform k-subset.
        for i in 0..k {
            let j = i + rng.randint(n - i);
            order.swap(i, j);
        }
        let sum: f64 = order[..k].iter().map(|&i| pooled[i]).sum();
        count += usize::from(extreme(statistic(sum)));
    }
    (count + 1) as f64 / (PERMUTATIONS + 1) as f64
}

/// `n choose k` as a float.
fn binomial(n: usize, k: usize) -> f64 {
    (0..k.min(n - k)).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

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

    #[test]
    fn exact_permutation_test_on_separated_samples() {
        // 4 vs 4, fully separated: 2 of the 70 relabellings are as extreme.
        let c = compare(&[1.0, 2.0, 3.0, 4.0], &[11.0, 12.0, 13.0, 14.0]);
        assert!((c.p_value - 2.0 / 70.0).abs() < 1e-12, "{}", c.p_value);
        assert_eq!(c.verdict(100.0), Verdict::Differs);
        assert!((c.difference() + 10.0).abs() < 1e-12);
    }

    #[test]
    fn identical_samples_agree_only_when_the_test_is_sharp_enough() {
        let a: Vec<f64> = (0..20).map(|i| 0.5 + 0.01 * (i % 5) as f64).collect();
        let c = compare(&a, &a);
        assert_eq!(c.p_value, 1.0);
        assert_eq!(c.verdict(0.1), Verdict::Agrees);
        // Two noisy seeds each: nothing can be ruled out.
        let c = compare(&[0.0, 1.0], &[0.2, 0.9]);
        assert_eq!(c.verdict(0.1), Verdict::Inconclusive);
    }

    #[test]
    fn sampled_permutation_test_finds_a_real_shift() {
        // 20 vs 20 seeds (1.4e11 relabellings), shifted by one standard deviation.
        let mut rng = RandomState::new(4);
        let a: Vec<f64> = (0..20).map(|_| rng.randn()).collect();
        let b: Vec<f64> = (0..20).map(|_| rng.randn() + 1.5).collect();
        let c = compare(&a, &b);
        assert!(c.p_value < 0.01, "{}", c.p_value);
        let c = compare(&a, &a);
        assert!(c.p_value > 0.9, "{}", c.p_value);
    }
}
