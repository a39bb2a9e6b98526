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
        std::mem::swap(&mut self.scratch, &mut out.observation);
        to_image(
            &self.shape,
            &self.inner_shape,
            &self.scratch,
            &mut out.observation,
        );
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

/// skimage-style bilinear resize: pixel centres map as `(i + 0.5) * scale - 0.5`, reflected
/// at the edges, and the result is clipped to the input's range.
fn resize_bilinear(src: &[f32], in_h: usize, in_w: usize, h: usize, w: usize) -> Vec<f32> {
    let (lo, hi) = src
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
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
            let at = |r: usize, c: usize| src[r * in_w + c] as f64;
            let top = at(r0, c0) * (1.0 - fc) + at(r0, c1) * fc;
            let bottom = at(r1, c0) * (1.0 - fc) + at(r1, c1) * fc;
            let v = top * (1.0 - fr) + bottom * fr;
            out.push((v as f32).clamp(lo, hi));
        }
    }
    out
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
}
