//! bsuite's logarithmic logging schedule (`wrappers._logarithmic_logging`).
//!
//! The reference compares `n == 10**e * r` in floating point for the ratios
//! `1, 1.2, 1.4, 1.7, 2, 2.5, 3, ..., 10`; we use the equivalent integer test, which is exact
//! for every `n` and agrees with the reference (verified for all `n <= 200000` and every
//! schedule point up to `10^13`).

/// True when bsuite logs at count `n` (an episode number, or a step number when logging by
/// step): 1, 2, ..., 10, 12, 14, 17, 20, 25, 30, 40, ..., 100, 120, ... Zero is never logged.
///
/// ```
/// use bsuite_logging::schedule::is_log_point;
///
/// let points: Vec<u64> = (0..=30).filter(|&n| is_log_point(n)).collect();
/// assert_eq!(points, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 17, 20, 25, 30]);
/// assert!(is_log_point(10_000) && is_log_point(1_700) && !is_log_point(1_500));
/// ```
#[inline]
pub fn is_log_point(n: u64) -> bool {
    if n == 0 {
        return false;
    }
    if n <= 10 {
        return true;
    }
    // p = 10^(digits(n) - 1), so p <= n < 10p and p >= 10 here.
    let mut p = 1u64;
    while n / p >= 10 {
        p *= 10;
    }
    if n.is_multiple_of(p) {
        // n = m * p with m in 1..=9 (10p has one more digit and is caught as 1 * 10p).
        return true;
    }
    // The non-integer ratios 1.2, 1.4, 1.7 and 2.5: n = k * p / 10 with k in {12, 14, 17, 25}.
    let tenth = p / 10;
    n.is_multiple_of(tenth) && matches!(n / tenth, 12 | 14 | 17 | 25)
}

/// The first schedule point after `n`, so that a counter that grows by one can be checked
/// with one comparison instead of [`is_log_point`]'s divisions.
///
/// ```
/// use bsuite_logging::schedule::next_log_point;
///
/// assert_eq!(next_log_point(0), 1);
/// assert_eq!(next_log_point(10), 12);
/// assert_eq!(next_log_point(2_500), 3_000);
/// assert_eq!(next_log_point(9_000), 10_000);
/// ```
pub fn next_log_point(n: u64) -> u64 {
    if n < 10 {
        return n + 1;
    }
    // With p = 10^(digits(n) - 1), the points of n's decade are p * k / 10 for these k.
    let mut p = 1u64;
    while n / p >= 10 {
        p *= 10;
    }
    [12, 14, 17, 20, 25, 30, 40, 50, 60, 70, 80, 90, 100]
        .iter()
        .map(|&k| p / 10 * k)
        .find(|&point| point > n)
        .expect("10p > n")
}

/// The number of rows bsuite writes for a run of `episodes` episodes when logging by
/// episode (36 for 1000 episodes, 49 for 10000).
///
/// ```
/// assert_eq!(bsuite_logging::schedule::rows_for(10_000), 49);
/// ```
pub fn rows_for(episodes: u64) -> usize {
    (1..=episodes).filter(|&n| is_log_point(n)).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference's float test (the logging schedule in docs/quirks.md).
    fn reference(n: u64) -> bool {
        let ratios = [
            1.0, 1.2, 1.4, 1.7, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0,
        ];
        let e = (n.max(1) as f64).log10().floor() as i32;
        let p = 10f64.powi(e);
        ratios.iter().any(|r| n as f64 == p * r)
    }

    #[test]
    fn integer_schedule_matches_the_float_definition() {
        for n in 0..=200_000 {
            assert_eq!(is_log_point(n), reference(n), "n = {n}");
        }
    }

    #[test]
    fn next_point_walks_the_schedule() {
        let mut n = 0;
        let mut walked = Vec::new();
        while n < 200_000 {
            n = next_log_point(n);
            walked.push(n);
        }
        let expected: Vec<u64> = (1..=200_000).filter(|&n| is_log_point(n)).collect();
        assert_eq!(walked, expected);
        for n in [0, 5, 11, 99, 101, 12_345, 99_999_999] {
            let next = next_log_point(n);
            assert!(next > n && is_log_point(next));
            assert!((n + 1..next).all(|m| !is_log_point(m)), "{n}");
        }
    }

    #[test]
    fn first_points_and_row_counts_match_spec() {
        let first: Vec<u64> = (0..=200_000)
            .filter(|&n| is_log_point(n))
            .take(66)
            .collect();
        assert_eq!(&first[..12], &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14]);
        assert_eq!(*first.last().unwrap(), 200_000);
        assert_eq!(rows_for(1000), 36);
        assert_eq!(rows_for(10_000), 49);
        for k in 1..13 {
            let p = 10u64.pow(k);
            for m in [10, 12, 14, 17, 20, 25, 30, 90] {
                assert!(is_log_point(p / 10 * m), "{}", p / 10 * m);
            }
            assert!(!is_log_point(p + 1) && !is_log_point(p / 10 * 15));
        }
    }
}
