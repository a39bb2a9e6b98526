//! The statistics of results over seeds, shared by `agree`, `score` and `compare`: a
//! sample's mean and spread, the two-sample permutation test and detectable difference
//! (what [`crate::agreement`] reads), and rliable's (Agarwal et al., NeurIPS 2021)
//! aggregates with stratified bootstrap intervals, the probability of improvement,
//! performance profiles and the seeds a comparison needs.
//!
//! Scores over seeds are *tasks*: one `Vec<f64>` per task (a bsuite experiment), one value
//! per run (a seed) in it. Tasks may hold different numbers of runs (a seed that has not
//! scored an experiment yet); rliable's arrays are rectangular, and on rectangular input
//! every function here is rliable's:
//!
//! - mean: the mean over tasks of each task's mean over runs (`aggregate_mean`);
//! - median: the median over tasks of each task's mean (`aggregate_median`);
//! - IQM: the mean of the middle half of all runs' scores pooled, cutting
//!   `floor(n / 4)` from each end as `scipy.stats.trim_mean(.., 0.25)` does
//!   (`aggregate_iqm`);
//! - optimality gap: 1 minus the mean of scores clipped at 1 (`aggregate_optimality_gap`,
//!   γ = 1, as a bsuite score is at most 1), taken as the mean over tasks;
//! - probability of improvement P(A > B): per task, the chance that a run of A scores above
//!   a run of B, ties counting one half (the Mann-Whitney U over `n·m`), averaged over tasks
//!   (`probability_of_improvement`);
//! - intervals: percentile intervals of a stratified bootstrap ([`Bootstrap`]): each
//!   replicate redraws, within every task, as many runs as it has, with replacement, so a
//!   task is never left out or counted twice; two agents are redrawn independently.
//!
//! ```
//! use bsuite_analysis::stats::{Aggregate, Bootstrap, bootstrap};
//!
//! let tasks = vec![vec![0.1, 0.5], vec![0.3, 0.9], vec![0.2, 0.2]];
//! assert_eq!(Aggregate::Median.of(&tasks), 0.3);
//! let mean = bootstrap(&tasks, |t| Aggregate::Mean.of(t), &Bootstrap::default());
//! assert!(mean.lo <= mean.value && mean.value <= mean.hi);
//! ```

use bsuite_envs::RandomState;
use serde::Serialize;

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

/// How a bootstrap is drawn. The same settings give the same intervals, bit for bit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bootstrap {
    /// Replicates drawn.
    pub reps: usize,
    /// Seed of the `RandomState` that draws them.
    pub seed: u32,
    /// Coverage of the percentile interval, e.g. 0.95.
    pub confidence: f64,
}

/// The replicates a bootstrap interval may be drawn from. Below 1,000, a 95% interval's
/// ends rest on a handful of draws each (one replicate makes both ends one draw, which
/// need not hold the estimate); above 1,000,000, the draws' memory and time are out of
/// proportion to the precision they add (rliable draws 2,000 to 50,000).
pub const REPS: std::ops::RangeInclusive<usize> = 1_000..=1_000_000;

/// A number of bootstrap replicates outside [`REPS`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{reps} bootstrap replicates: give {} to {} (fewer make an interval's ends a handful of \
     draws, which need not hold the estimate; more cost memory and time for no precision \
     that matters)",
    REPS.start(),
    REPS.end()
)]
pub struct RepsError {
    /// The number given.
    pub reps: u128,
}

/// Checks a number of bootstrap replicates (`--reps`, Python's `reps`) against [`REPS`].
///
/// ```
/// use bsuite_analysis::stats::check_reps;
///
/// assert_eq!(check_reps(10_000), Ok(10_000));
/// assert!(check_reps(1).is_err());
/// assert!(check_reps(100_000_000_000).is_err());
/// ```
pub fn check_reps(reps: u128) -> Result<usize, RepsError> {
    match usize::try_from(reps) {
        Ok(n) if REPS.contains(&n) => Ok(n),
        _ => Err(RepsError { reps }),
    }
}

/// [`check_reps`] on the text of a command-line argument.
pub fn parse_reps(text: &str) -> Result<usize, String> {
    let reps: u128 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a whole number of replicates"))?;
    check_reps(reps).map_err(|e| e.to_string())
}

impl Default for Bootstrap {
    /// 10,000 replicates, seed 0, 95% intervals.
    fn default() -> Self {
        Bootstrap {
            reps: 10_000,
            seed: 0,
            confidence: 0.95,
        }
    }
}

/// A point estimate and its bootstrap interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// The statistic on the data as they are.
    pub value: f64,
    /// The interval's lower end.
    pub lo: f64,
    /// The interval's upper end.
    pub hi: f64,
}

impl Estimate {
    /// Whether the interval holds `x`.
    pub fn contains(&self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }
}

impl std::fmt::Display for Estimate {
    /// `0.512 [0.480, 0.545]`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:.3} [{:.3}, {:.3}]", self.value, self.lo, self.hi)
    }
}

/// rliable's aggregate scores over tasks (see the module docs for their definitions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aggregate {
    /// Mean over tasks of the mean over runs.
    Mean,
    /// Median over tasks of the mean over runs.
    Median,
    /// Interquartile mean of all runs' scores.
    Iqm,
    /// 1 minus the mean score clipped at 1.
    OptimalityGap,
}

impl Aggregate {
    /// The four, in rliable's order.
    pub const ALL: [Aggregate; 4] = [
        Aggregate::Mean,
        Aggregate::Median,
        Aggregate::Iqm,
        Aggregate::OptimalityGap,
    ];

    /// `mean`, `median`, `iqm` or `optimality_gap`.
    pub fn as_str(self) -> &'static str {
        match self {
            Aggregate::Mean => "mean",
            Aggregate::Median => "median",
            Aggregate::Iqm => "iqm",
            Aggregate::OptimalityGap => "optimality_gap",
        }
    }

    /// The aggregate of `tasks` (tasks without runs are left out); NaN when no task has a
    /// run.
    pub fn of(self, tasks: &[Vec<f64>]) -> f64 {
        let means = || {
            tasks
                .iter()
                .filter(|t| !t.is_empty())
                .map(|t| mean(t))
                .collect::<Vec<f64>>()
        };
        match self {
            Aggregate::Mean => mean(&means()),
            Aggregate::Median => {
                let mut m = means();
                m.sort_by(f64::total_cmp);
                quantile(&m, 0.5)
            }
            Aggregate::Iqm => {
                let mut all: Vec<f64> = tasks.iter().flatten().copied().collect();
                all.sort_by(f64::total_cmp);
                let cut = all.len() / 4;
                mean(&all[cut..all.len() - cut])
            }
            Aggregate::OptimalityGap => {
                let clipped: Vec<f64> = tasks
                    .iter()
                    .filter(|t| !t.is_empty())
                    .map(|t| t.iter().map(|&s| 1.0 - s.min(1.0)).sum::<f64>() / t.len() as f64)
                    .collect();
                mean(&clipped)
            }
        }
    }
}

/// The mean of `values`; NaN for none.
fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.iter().sum::<f64>() / values.len() as f64
}

/// The `q` quantile of sorted values, interpolating linearly between order statistics
/// (numpy's default `percentile` method); NaN for none.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    let Some(last) = sorted.len().checked_sub(1) else {
        return f64::NAN;
    };
    let position = q.clamp(0.0, 1.0) * last as f64;
    let below = position.floor() as usize;
    let above = (below + 1).min(last);
    let t = position - below as f64;
    sorted[below] + t * (sorted[above] - sorted[below])
}

/// Redraws `tasks` into `out`: within each task, as many runs as it has, with replacement.
fn resample(tasks: &[Vec<f64>], out: &mut [Vec<f64>], rng: &mut RandomState) {
    for (task, drawn) in tasks.iter().zip(out.iter_mut()) {
        for slot in drawn.iter_mut() {
            *slot = task[rng.randint(task.len())];
        }
    }
}

/// The percentile interval of `draws` at `confidence`, around `value`.
fn interval(value: f64, mut draws: Vec<f64>, confidence: f64) -> Estimate {
    draws.retain(|d| !d.is_nan());
    draws.sort_by(f64::total_cmp);
    let tail = (1.0 - confidence) / 2.0;
    Estimate {
        value,
        lo: quantile(&draws, tail),
        hi: quantile(&draws, 1.0 - tail),
    }
}

/// `statistic` of `tasks` with its stratified bootstrap interval.
pub fn bootstrap(
    tasks: &[Vec<f64>],
    statistic: impl Fn(&[Vec<f64>]) -> f64,
    settings: &Bootstrap,
) -> Estimate {
    let mut rng = RandomState::new(settings.seed);
    let mut drawn = tasks.to_vec();
    let draws = (0..settings.reps)
        .map(|_| {
            resample(tasks, &mut drawn, &mut rng);
            statistic(&drawn)
        })
        .collect();
    interval(statistic(tasks), draws, settings.confidence)
}

/// `statistic` of two agents' tasks with its stratified bootstrap interval, the two
/// redrawn independently (each replicate draws `a`'s runs, then `b`'s).
pub fn bootstrap_pair(
    a: &[Vec<f64>],
    b: &[Vec<f64>],
    statistic: impl Fn(&[Vec<f64>], &[Vec<f64>]) -> f64,
    settings: &Bootstrap,
) -> Estimate {
    let mut rng = RandomState::new(settings.seed);
    let (mut drawn_a, mut drawn_b) = (a.to_vec(), b.to_vec());
    let draws = (0..settings.reps)
        .map(|_| {
            resample(a, &mut drawn_a, &mut rng);
            resample(b, &mut drawn_b, &mut rng);
            statistic(&drawn_a, &drawn_b)
        })
        .collect();
    interval(statistic(a, b), draws, settings.confidence)
}

/// P(A > B): per task, the fraction of pairs (a run of A, a run of B) where A scores
/// higher, ties counting one half, averaged over the tasks where both have runs. `a` and
/// `b` list the same tasks in the same order. NaN when no task has runs on both sides.
pub fn probability_of_improvement(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    let per_task: Vec<f64> = a
        .iter()
        .zip(b)
        .filter(|(x, y)| !x.is_empty() && !y.is_empty())
        .map(|(x, y)| {
            let wins: f64 = x
                .iter()
                .flat_map(|&xi| {
                    y.iter().map(move |&yj| match xi.partial_cmp(&yj) {
                        Some(std::cmp::Ordering::Greater) => 1.0,
                        Some(std::cmp::Ordering::Equal) => 0.5,
                        _ => 0.0,
                    })
                })
                .sum();
            wins / (x.len() * y.len()) as f64
        })
        .collect();
    mean(&per_task)
}

/// rliable's performance profile over score distributions: at each threshold τ, the
/// fraction of all runs' scores (every task's runs pooled) above τ, with its stratified
/// bootstrap interval.
pub fn performance_profile(
    tasks: &[Vec<f64>],
    thresholds: &[f64],
    settings: &Bootstrap,
) -> Vec<Estimate> {
    thresholds
        .iter()
        .map(|&tau| bootstrap(tasks, |t| fraction_above(t, tau), settings))
        .collect()
}

/// The fraction of all runs' scores above `tau`.
fn fraction_above(tasks: &[Vec<f64>], tau: f64) -> f64 {
    let all = tasks.iter().map(Vec::len).sum::<usize>();
    let above = tasks.iter().flatten().filter(|&&s| s > tau).count();
    above as f64 / all as f64
}

/// The seeds a side needed for a difference of means of `delta` to be found four times in
/// five by a two-sided test at the 5% level, when the two sides' per-seed values spread
/// with standard deviations `sd_a` and `sd_b`.
///
/// The normal approximation for two independent means: the difference has standard error
/// `√((sd_a² + sd_b²) / n)` with `n` seeds a side, and it is detected with power 1 − β at
/// level α when `delta ≥ (z_{1−α/2} + z_{1−β}) · se`; with α = 0.05 and β = 0.2 the
/// factor is 1.96 + 0.84 = 2.80 (the same one [`compare`]'s detectable difference uses),
/// so `n = ⌈2.80² (sd_a² + sd_b²) / delta²⌉`, and at least 2 (one seed has no spread).
/// `None` when `delta` is not positive.
///
/// ```
/// use bsuite_analysis::stats::seeds_needed;
///
/// // 2.80² × (0.1² + 0.1²) / 0.05² = 62.72.
/// assert_eq!(seeds_needed(0.1, 0.1, 0.05), Some(63));
/// ```
pub fn seeds_needed(sd_a: f64, sd_b: f64, delta: f64) -> Option<usize> {
    if delta.is_nan() || delta <= 0.0 {
        return None;
    }
    let n = (2.80f64.powi(2) * (sd_a.powi(2) + sd_b.powi(2)) / delta.powi(2)).ceil();
    Some((n as usize).max(2))
}

#[cfg(test)]
mod tests {
    use super::*;

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

    // The hand-checked example: task means 0.3, 0.6, 0.2; pooled and sorted
    // 0.1 0.2 0.2 0.3 0.5 0.9.
    fn example() -> Vec<Vec<f64>> {
        vec![vec![0.1, 0.5], vec![0.3, 0.9], vec![0.2, 0.2]]
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn aggregates_of_a_hand_checked_example() {
        let t = example();
        assert!(close(Aggregate::Mean.of(&t), 1.1 / 3.0));
        assert!(close(Aggregate::Median.of(&t), 0.3));
        // trim_mean cuts floor(6 / 4) = 1 from each end: (0.2 + 0.2 + 0.3 + 0.5) / 4.
        assert!(close(Aggregate::Iqm.of(&t), 0.3));
        // 1 - 2.2 / 6.
        assert!(close(Aggregate::OptimalityGap.of(&t), 1.0 - 2.2 / 6.0));
        // Scores above 1 count as 1 in the gap; an even number of tasks takes the middle two.
        let t = vec![vec![1.5], vec![0.5]];
        assert!(close(Aggregate::OptimalityGap.of(&t), 0.25));
        assert!(close(Aggregate::Median.of(&t), 1.0));
    }

    #[test]
    fn quantiles_interpolate_as_numpy_does() {
        let v = [1.0, 2.0, 3.0, 4.0];
        // np.percentile([1, 2, 3, 4], [0, 25, 50, 97.5, 100])
        assert!(close(quantile(&v, 0.0), 1.0));
        assert!(close(quantile(&v, 0.25), 1.75));
        assert!(close(quantile(&v, 0.5), 2.5));
        assert!(close(quantile(&v, 0.975), 3.925));
        assert!(close(quantile(&v, 1.0), 4.0));
        assert!(quantile(&[], 0.5).is_nan());
    }

    #[test]
    fn probability_of_improvement_counts_pairs_and_halves_ties() {
        // Task 1: of the pairs (1,0) (1,1.5) (2,0) (2,1.5), three favour A: 3/4.
        // Task 2: a tie: 1/2. The mean over tasks: 5/8.
        let a = vec![vec![1.0, 2.0], vec![0.7]];
        let b = vec![vec![0.0, 1.5], vec![0.7]];
        assert!(close(probability_of_improvement(&a, &b), 0.625));
        assert!(close(probability_of_improvement(&b, &a), 0.375));
        assert!(close(probability_of_improvement(&a, &a), 0.5));
    }

    #[test]
    fn a_stratified_bootstrap_keeps_every_task_once() {
        // All runs of a task agree, so each replicate's mean is exactly 0.5; a bootstrap
        // that redrew tasks, or runs across tasks, would spread.
        let t = vec![vec![0.0; 3], vec![1.0; 3]];
        let e = bootstrap(&t, |t| Aggregate::Mean.of(t), &Bootstrap::default());
        assert_eq!((e.value, e.lo, e.hi), (0.5, 0.5, 0.5));
        // One run: no spread to draw from.
        let e = bootstrap(
            &[vec![0.4]],
            |t| Aggregate::Mean.of(t),
            &Bootstrap::default(),
        );
        assert_eq!((e.lo, e.hi), (0.4, 0.4));
    }

    #[test]
    fn bootstrap_intervals_match_the_exact_resampling_distribution() {
        // Two runs 0 and 1: a replicate's mean is 0, 1/2 or 1 with chances 1/4, 1/2, 1/4,
        // so the 95% interval is [0, 1] and the 40% one (30th to 70th percentile) [1/2, 1/2].
        let t = vec![vec![0.0, 1.0]];
        let mean = |t: &[Vec<f64>]| Aggregate::Mean.of(t);
        let e = bootstrap(&t, mean, &Bootstrap::default());
        assert_eq!((e.value, e.lo, e.hi), (0.5, 0.0, 1.0));
        let narrow = Bootstrap {
            confidence: 0.4,
            ..Bootstrap::default()
        };
        let e = bootstrap(&t, mean, &narrow);
        assert_eq!((e.lo, e.hi), (0.5, 0.5));
    }

    #[test]
    fn bootstraps_are_reproducible_and_seeded() {
        let mut rng = RandomState::new(9);
        let t: Vec<Vec<f64>> = (0..5)
            .map(|_| (0..6).map(|_| rng.rand()).collect())
            .collect();
        let iqm = |t: &[Vec<f64>]| Aggregate::Iqm.of(t);
        let settings = Bootstrap::default();
        assert_eq!(bootstrap(&t, iqm, &settings), bootstrap(&t, iqm, &settings));
        let other = Bootstrap {
            seed: 1,
            ..settings
        };
        assert_ne!(bootstrap(&t, iqm, &settings), bootstrap(&t, iqm, &other));
    }

    #[test]
    fn pair_bootstrap_of_a_difference_excludes_zero_for_a_clear_shift() {
        let mut rng = RandomState::new(3);
        let a: Vec<Vec<f64>> = (0..4)
            .map(|_| (0..5).map(|_| 0.6 + 0.05 * rng.randn()).collect())
            .collect();
        let b: Vec<Vec<f64>> = (0..4)
            .map(|_| (0..5).map(|_| 0.4 + 0.05 * rng.randn()).collect())
            .collect();
        let diff = |a: &[Vec<f64>], b: &[Vec<f64>]| Aggregate::Mean.of(a) - Aggregate::Mean.of(b);
        let e = bootstrap_pair(&a, &b, diff, &Bootstrap::default());
        assert!(e.lo > 0.1 && e.hi < 0.3, "{e}");
        let p = bootstrap_pair(&a, &b, probability_of_improvement, &Bootstrap::default());
        assert!(p.value > 0.95 && p.hi <= 1.0, "{p}");
    }

    #[test]
    fn performance_profile_is_the_fraction_of_runs_above_each_threshold() {
        let p = performance_profile(&example(), &[0.0, 0.2, 0.4, 1.0], &Bootstrap::default());
        let values: Vec<f64> = p.iter().map(|e| e.value).collect();
        // Above 0.2 (strictly): 0.3 0.5 0.9.
        assert_eq!(values, [1.0, 0.5, 2.0 / 6.0, 0.0]);
        assert!(p.iter().all(|e| e.lo <= e.value && e.value <= e.hi));
    }

    #[test]
    fn seeds_needed_follows_the_normal_power_formula() {
        assert_eq!(seeds_needed(0.1, 0.1, 0.05), Some(63));
        // 7.84 × 0.05² / 0.1² = 1.96: never fewer than two seeds.
        assert_eq!(seeds_needed(0.05, 0.0, 0.1), Some(2));
        assert_eq!(seeds_needed(0.1, 0.1, 0.0), None);
    }
}
