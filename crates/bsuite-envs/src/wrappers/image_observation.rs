//! Turns small vector observations into images (`wrappers.ImageObservation`). No bsuite
//! experiment uses it; it lets image-based agents run on the vector tasks.

use crate::environment::{
    ActionError, ActionSpec, BsuiteInfo, Environment, ObservationSpec, TimeStep,
};

/// Replaces every observation by `to_image(shape, obs)`.
pub struct ImageObservation<E> {
    env: E,
    shape: Vec<usize>,
    inner_shape: Vec<usize>,
    scratch: Vec<f32>,
}

impl<E: Environment> ImageObservation<E> {
    /// Wraps `env`, producing observations of `shape` (at least two dimensions).
    ///
    /// # Panics
    /// If `shape` has fewer than two dimensions, or the inner observation has more than four
    /// elements and more than two dimensions (the reference raises `ValueError` for both).
    pub fn new(env: E, shape: Vec<usize>) -> Self {
        assert!(
            shape.len() >= 2,
            "ImageObservation needs a shape of at least 2 dimensions"
        );
        let inner_shape = env.observation_spec().shape;
        let size: usize = inner_shape.iter().product();
        assert!(
            size <= 4 || inner_shape.len() <= 2,
            "ImageObservation supports observations of at most 4 elements or 2 dimensions"
        );
        ImageObservation {
            env,
            shape,
            inner_shape,
            scratch: Vec::new(),
        }
    }

    fn convert(&mut self, out: &mut TimeStep) {
        to_image(
            &self.shape,
            &self.inner_shape,
            &out.observation,
            &mut self.scratch,
        );
        out.zeroed_observation(self.scratch.len())
            .copy_from_slice(&self.scratch);
    }
}

/// `to_image(shape, obs)` of the reference, writing into `out`.
///
/// Observations of at most four elements are tiled: one value fills the image; two fill the
/// left and right halves; three or four fill the quadrants top-left = `obs[0]`, bottom-left =
/// `obs[1]`, top-right = `obs[2]`, bottom-right = the last element (the reference's comments
/// label these differently; this is what it actually does). Larger 1-D or 2-D observations
/// are resized bilinearly (skimage `resize`, order 1, mirror boundary, clipped to the input
/// range) and repeated over any trailing dimensions of `shape`.
pub fn to_image(shape: &[usize], obs_shape: &[usize], obs: &[f32], out: &mut Vec<f32>) {
    let (h, w) = (shape[0], shape[1]);
    let depth: usize = shape[2..].iter().product();
    out.clear();
    out.resize(h * w * depth, 0.0);
    let plane: Vec<f32> = if obs.len() <= 4 {
        let (half_h, half_w) = (h / 2, w / 2);
        (0..h * w)
            .map(|k| {
                let (r, c) = (k / w, k % w);
                match obs.len() {
                    1 => obs[0],
                    2 => obs[usize::from(c >= half_w)],
                    _ => match (r >= half_h, c >= half_w) {
                        (false, false) => obs[0],
                        (true, false) => obs[1],
                        (false, true) => obs[2],
                        (true, true) => obs[obs.len() - 1],
                    },
                }
            })
            .collect()
    } else {
        let (in_h, in_w) = match obs_shape {
            [n] => (1, *n),
            [a, b] => (*a, *b),
            _ => unreachable!("checked at construction"),
        };
        resize_bilinear(obs, in_h, in_w, h, w)
    };
    for (k, v) in plane.into_iter().enumerate() {
        out[k * depth..(k + 1) * depth].fill(v);
    }
}

/// skimage-style bilinear resize: when an axis shrinks, it is first smoothed with a Gaussian
/// of `sigma = (in / out - 1) / 2` (skimage's anti-aliasing); pixel centres then map as
/// `(i + 0.5) * scale - 0.5`, reflected at the edges, and the result is clipped to the
/// input's range.
fn resize_bilinear(src: &[f32], in_h: usize, in_w: usize, h: usize, w: usize) -> Vec<f32> {
    let (lo, hi) = src
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    let mut image: Vec<f64> = src.iter().map(|&v| f64::from(v)).collect();
    if h < in_h {
        gaussian_along(
            &mut image,
            in_h,
            in_w,
            true,
            (in_h as f64 / h as f64 - 1.0) / 2.0,
        );
    }
    if w < in_w {
        gaussian_along(
            &mut image,
            in_h,
            in_w,
            false,
            (in_w as f64 / w as f64 - 1.0) / 2.0,
        );
    }
    let coords = |out_len: usize, in_len: usize| -> Vec<(usize, usize, f64)> {
        let scale = in_len as f64 / out_len as f64;
        (0..out_len)
            .map(|i| {
                let x = mirror((i as f64 + 0.5) * scale - 0.5, in_len);
                let x0 = x.floor();
                let frac = x - x0;
                let i0 = x0 as usize;
                (i0, (i0 + 1).min(in_len - 1), frac)
            })
            .collect()
    };
    let rows = coords(h, in_h);
    let cols = coords(w, in_w);
    let mut out = Vec::with_capacity(h * w);
    for &(r0, r1, fr) in &rows {
        for &(c0, c1, fc) in &cols {
            let at = |r: usize, c: usize| image[r * in_w + c];
            let top = at(r0, c0) * (1.0 - fc) + at(r0, c1) * fc;
            let bottom = at(r1, c0) * (1.0 - fc) + at(r1, c1) * fc;
            let v = top * (1.0 - fr) + bottom * fr;
            out.push((v as f32).clamp(lo, hi));
        }
    }
    out
}

/// A 1-D Gaussian filter (ndimage's `gaussian_filter1d`: truncated at 4 sigma, mirror
/// boundary) along rows (`vertical`) or columns of a `rows x cols` image.
fn gaussian_along(image: &mut [f64], rows: usize, cols: usize, vertical: bool, sigma: f64) {
    if sigma <= 0.0 {
        return;
    }
    let radius = (4.0 * sigma + 0.5) as isize;
    let weights: Vec<f64> = (-radius..=radius)
        .map(|x| (-0.5 * (x * x) as f64 / (sigma * sigma)).exp())
        .collect();
    let total: f64 = weights.iter().sum();
    let (len, lines) = if vertical { (rows, cols) } else { (cols, rows) };
    let index = |line: usize, k: usize| {
        if vertical {
            k * cols + line
        } else {
            line * cols + k
        }
    };
    let mut buffer = vec![0.0; len];
    for line in 0..lines {
        for (k, slot) in buffer.iter_mut().enumerate() {
            *slot = weights
                .iter()
                .enumerate()
                .map(|(j, w)| {
                    let at = mirror(k as f64 + j as f64 - radius as f64, len) as usize;
                    w * image[index(line, at)]
                })
                .sum::<f64>()
                / total;
        }
        for (k, &v) in buffer.iter().enumerate() {
            image[index(line, k)] = v;
        }
    }
}

/// Reflects a coordinate into `[0, len - 1]` (ndimage's `mirror` mode).
fn mirror(x: f64, len: usize) -> f64 {
    if len == 1 {
        return 0.0;
    }
    let max = (len - 1) as f64;
    let period = 2.0 * max;
    let mut y = x.rem_euclid(period);
    if y > max {
        y = period - y;
    }
    y
}

impl<E: Environment> Environment for ImageObservation<E> {
    fn name(&self) -> &'static str {
        self.env.name()
    }
    fn observation_spec(&self) -> ObservationSpec {
        let inner = self.env.observation_spec();
        ObservationSpec {
            shape: self.shape.clone(),
            ..inner
        }
    }
    fn action_spec(&self) -> ActionSpec {
        self.env.action_spec()
    }
    fn reset_into(&mut self, out: &mut TimeStep) {
        self.env.reset_into(out);
        self.convert(out);
    }
    fn step_into(&mut self, action: usize, out: &mut TimeStep) -> Result<(), ActionError> {
        self.env.step_into(action, out)?;
        self.convert(out);
        Ok(())
    }
    fn bsuite_info(&self) -> BsuiteInfo {
        self.env.bsuite_info()
    }
    fn bsuite_num_episodes(&self) -> usize {
        self.env.bsuite_num_episodes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_states_tile_quadrants_as_the_reference_does() {
        let mut out = Vec::new();
        to_image(&[4, 4], &[1, 3], &[1.0, 2.0, 3.0], &mut out);
        #[rustfmt::skip]
        let expected = vec![
            1.0, 1.0, 3.0, 3.0,
            1.0, 1.0, 3.0, 3.0,
            2.0, 2.0, 3.0, 3.0,
            2.0, 2.0, 3.0, 3.0,
        ];
        assert_eq!(out, expected);
        to_image(&[2, 4, 2], &[2], &[5.0, 6.0], &mut out);
        assert_eq!(
            out,
            vec![5.0, 5.0, 5.0, 5.0, 6.0, 6.0, 6.0, 6.0, 5.0, 5.0, 5.0, 5.0, 6.0, 6.0, 6.0, 6.0]
        );
    }

    fn assert_close(ours: &[f32], reference: &[f64]) {
        assert_eq!(ours.len(), reference.len());
        for (k, (&o, &r)) in ours.iter().zip(reference).enumerate() {
            assert!(
                (f64::from(o) - r).abs() < 1e-6,
                "element {k}: ours {o}, skimage {r}"
            );
        }
    }

    /// Values from bsuite's `to_image` (skimage 0.26 `resize`) on the same inputs.
    #[test]
    fn interpolation_matches_skimage_up_and_down() {
        let mut out = Vec::new();
        let row = [0.1, 0.5, -0.3, 0.9, 0.2, 0.7];
        to_image(&[3, 8], &[1, 6], &row, &mut out);
        let first_row = [
            0.15000000596046448,
            0.3499999940395355,
            0.19999998807907104,
            -0.15000000596046448,
            0.75,
            0.4625000059604645,
            0.38749998807907104,
            0.637499988079071,
        ];
        assert_close(&out, &[first_row, first_row, first_row].concat());
        let grid: Vec<f32> = (0..12).map(|v| v as f32 / 7.0).collect();
        to_image(&[5, 6], &[3, 4], &grid, &mut out);
        assert_close(
            &out[..6],
            &[
                0.13809524476528168,
                0.18571428954601288,
                0.2809523940086365,
                0.3761904835700989,
                0.4714285731315613,
                0.5190476179122925,
            ],
        );
        assert_close(
            &out[24..],
            &[
                1.0523810386657715,
                1.100000023841858,
                1.1952381134033203,
                1.2904762029647827,
                1.3857142925262451,
                1.4333332777023315,
            ],
        );
        to_image(&[2, 2], &[3, 4], &grid, &mut out);
        assert_close(
            &out,
            &[
                0.22989340126514435,
                0.48496702313423157,
                1.0864615440368652,
                1.3415350914001465,
            ],
        );
    }
}
