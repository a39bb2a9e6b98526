//! The reference's learning-curve smoother (`bsuite/utils/smoothers.py`, `mean`).
//!
//! The x range is cut into `ceil(1 / span)` equal-width bins (numpy `histogram` edges); each
//! non-empty bin gives one point at the mean x and mean y of the points inside it, widened by
//! 5% of a bin width on both sides, with a normal-approximation 95% band of
//! `±1.96 · std(y) / √n`.
//!
//! ```
//! use bsuite_analysis::smoothers::mean;
//!
//! let points: Vec<(f64, f64)> = (1..=100).map(|x| (x as f64, 1.0)).collect();
//! let smooth = mean(&points, 0.1);
//! assert_eq!(smooth.len(), 10);
//! assert_eq!(smooth[0].y, 1.0);
//! ```

use crate::numeric;
use crate::plot::RIBBON_Z;

/// One point of a smoothed curve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SmoothedPoint {
    /// Mean x of the bin.
    pub x: f64,
    /// Mean y of the bin.
    pub y: f64,
    /// Standard error of the mean y (NaN for a bin of one point, as pandas gives).
    pub stderr: f64,
    /// Lower edge of the 95% band.
    pub ymin: f64,
    /// Upper edge of the 95% band.
    pub ymax: f64,
}

/// Fraction of a bin width by which each bin reaches into its neighbours.
pub const EDGE_TOLERANCE: f64 = 0.05;

/// The span the reference's learning plots use.
pub const SPAN: f64 = 0.1;

/// Smooths `(x, y)` points with the reference's binned mean. Non-finite points are ignored.
pub fn mean(points: &[(f64, f64)], span: f64) -> Vec<SmoothedPoint> {
    let points: Vec<(f64, f64)> = points
        .iter()
        .copied()
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .collect();
    let (Some(lo), Some(hi)) = (
        points.iter().map(|p| p.0).reduce(f64::min),
        points.iter().map(|p| p.0).reduce(f64::max),
    ) else {
        return Vec::new();
    };
    let num_bins = (1.0 / span).ceil().max(1.0) as usize;
    let edges = histogram_edges(lo, hi, num_bins);
    let mut counts = vec![0usize; num_bins];
    for &(x, _) in &points {
        counts[bin_of(x, &edges)] += 1;
    }
    let tol = EDGE_TOLERANCE * (edges[1] - edges[0]);
    let mut out = Vec::new();
    for (i, &count) in counts.iter().enumerate() {
        if count == 0 {
            continue;
        }
        let (xs, ys): (Vec<f64>, Vec<f64>) = points
            .iter()
            .filter(|(x, _)| edges[i] - tol < *x && *x < edges[i + 1] + tol)
            .copied()
            .unzip();
        let y = numeric::mean(&ys);
        let stderr = sample_std(&ys) / (ys.len() as f64).sqrt();
        out.push(SmoothedPoint {
            x: numeric::mean(&xs),
            y,
            stderr,
            ymin: y - RIBBON_Z * stderr,
            ymax: y + RIBBON_Z * stderr,
        });
    }
    out
}

/// numpy's `histogram` bin edges for `bins` equal bins over `[lo, hi]`.
fn histogram_edges(mut lo: f64, mut hi: f64, bins: usize) -> Vec<f64> {
    if lo == hi {
        lo -= 0.5;
        hi += 0.5;
    }
    let step = (hi - lo) / bins as f64;
    let mut edges: Vec<f64> = (0..=bins).map(|i| i as f64 * step + lo).collect();
    edges[bins] = hi;
    edges
}

/// The bin numpy's `histogram` puts `x` in: `[edge_i, edge_i+1)`, the last bin closed.
fn bin_of(x: f64, edges: &[f64]) -> usize {
    let bins = edges.len() - 1;
    let k = edges[1..bins].partition_point(|&e| e <= x);
    k.min(bins - 1)
}

/// pandas' `std()` (ddof 1); NaN for fewer than two values.
fn sample_std(values: &[f64]) -> f64 {
    if values.len() < 2 {
        return f64::NAN;
    }
    let m = numeric::sum(values) / values.len() as f64;
    let squares: Vec<f64> = values.iter().map(|v| (m - v) * (m - v)).collect();
    (numeric::sum(&squares) / (values.len() - 1) as f64).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_overlap_by_the_edge_tolerance_and_skip_empty_bins() {
        // x = 0 and 10 only: bins 0 and 9 are non-empty, the eight between are empty.
        let smooth = mean(&[(0.0, 1.0), (0.0, 3.0), (10.0, 5.0)], 0.1);
        assert_eq!(smooth.len(), 2);
        assert_eq!((smooth[0].x, smooth[0].y), (0.0, 2.0));
        assert_eq!(smooth[0].stderr, 2f64.sqrt() / 2f64.sqrt());
        assert!(smooth[1].stderr.is_nan());
        // A point on an inner edge counts in both neighbouring bins' means.
        let pts: Vec<(f64, f64)> = [0.0, 1.0, 2.0, 10.0].iter().map(|&x| (x, x)).collect();
        let smooth = mean(&pts, 0.1);
        assert_eq!(smooth[0].x, 0.5); // bin [0, 1) reaches to 1.05: {0, 1}
        assert_eq!(smooth[1].x, 1.5); // bin [1, 2): {1, 2}
        assert_eq!(bin_of(10.0, &histogram_edges(0.0, 10.0, 10)), 9);
        assert!(mean(&[], 0.1).is_empty());
        assert_eq!(mean(&[(3.0, 1.0)], 0.1).len(), 1);
    }
}
