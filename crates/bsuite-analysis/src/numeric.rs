//! numpy's and pandas' reductions, reproduced to the last bit.
//!
//! numpy sums float64 arrays pairwise (blocks of 128, eight interleaved accumulators), so a
//! plain left-to-right sum can differ from the reference in the last bits. Scores compare
//! such means against thresholds (`< 0.75`, `> 500`), so we sum exactly as numpy does.

/// `np.sum(values)`: numpy's pairwise summation of a contiguous float64 array.
pub fn sum(values: &[f64]) -> f64 {
    0.0 + pairwise(values)
}

fn pairwise(a: &[f64]) -> f64 {
    const BLOCK: usize = 128;
    let n = a.len();
    if n < 8 {
        let mut res = 0.0;
        for &x in a {
            res += x;
        }
        res
    } else if n <= BLOCK {
        let mut r = [a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]];
        let whole = n - n % 8;
        let mut i = 8;
        while i < whole {
            for (j, acc) in r.iter_mut().enumerate() {
                *acc += a[i + j];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for &x in &a[whole..] {
            res += x;
        }
        res
    } else {
        let mut half = n / 2;
        half -= half % 8;
        pairwise(&a[..half]) + pairwise(&a[half..])
    }
}

/// `np.mean(values)`: NaN for an empty slice, as numpy returns (with a warning).
pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    sum(values) / values.len() as f64
}

/// pandas' `Series.mean()`: skips NaN (summing the others with NaN replaced by 0, as pandas
/// does) and is NaN when nothing is left.
pub fn nanmean(values: &[f64]) -> f64 {
    let count = values.iter().filter(|v| !v.is_nan()).count();
    if count == 0 {
        return f64::NAN;
    }
    if count == values.len() {
        return sum(values) / count as f64;
    }
    let filled: Vec<f64> = values
        .iter()
        .map(|&v| if v.is_nan() { 0.0 } else { v })
        .collect();
    sum(&filled) / count as f64
}

/// `np.std(values)`: the population standard deviation (ddof 0), computed as numpy does.
pub fn std(values: &[f64]) -> f64 {
    let m = mean(values);
    let squares: Vec<f64> = values.iter().map(|v| (v - m) * (v - m)).collect();
    mean(&squares).sqrt()
}

/// `np.clip(x, 0, 1)`, which keeps NaN.
pub fn clip01(x: f64) -> f64 {
    if x.is_nan() {
        x
    } else {
        x.clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // np.sum([1/k for k in 1..=1000]), which recurses past the 128-element block.
    const LONG_HARMONIC: f64 = 7.485470860550345;

    #[test]
    fn pairwise_sum_differs_from_a_naive_sum_as_numpy_does() {
        // numpy: np.sum([1/k for k in 1..=24]) = 3.775958177753507; a left-to-right sum
        // gives 3.7759581777535067.
        let v: Vec<f64> = (1..=24).map(|k| 1.0 / k as f64).collect();
        assert_eq!(sum(&v), 3.775958177753507);
        let naive: f64 = v.iter().fold(0.0, |a, b| a + b);
        assert_eq!(naive, 3.7759581777535067);
        let long: Vec<f64> = (1..=1000).map(|k| 1.0 / k as f64).collect();
        assert_eq!(sum(&long), LONG_HARMONIC);
        assert!(mean(&[]).is_nan());
        assert_eq!(nanmean(&[1.0, f64::NAN, 2.0]), 1.5);
        assert!(nanmean(&[f64::NAN]).is_nan());
        assert_eq!(std(&[1.0, 3.0]), 1.0);
        assert!(clip01(f64::NAN).is_nan());
        assert_eq!(clip01(-0.5), 0.0);
    }
}
