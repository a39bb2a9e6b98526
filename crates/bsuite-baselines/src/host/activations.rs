//! Activations and their gradients: ReLU, and the LSTM cell's gates over `exp`, `tanh`
//! and the logistic function written as fixed sequences of IEEE operations, so that they
//! give the same bits on every instruction set and platform.

use super::dispatch::kernel;

/// `max(x, 0)`, keeping NaN (as LibTorch's relu does; `f32::max` would drop it): one
/// element of [`relu`] and of [`Epilogue::Relu`](crate::host::matmul::Epilogue::Relu).
#[inline(always)]
pub(crate) fn relu_of(x: f32) -> f32 {
    if x < 0.0 {
        0.0
    } else {
        x
    }
}

/// `delta · [activation > 0]`: one element of [`relu_backward`] and of
/// [`Epilogue::ReluBackward`](crate::host::matmul::Epilogue::ReluBackward).
#[inline(always)]
pub(crate) fn relu_backward_of(delta: f32, activation: f32) -> f32 {
    if activation > 0.0 {
        delta
    } else {
        0.0
    }
}

kernel! {
    /// `x = max(x, 0)`, keeping NaN.
    pub(crate) fn relu(x: &mut [f32]) {
        for v in x {
            // An unconditional store, so that the loop vectorises to a blend.
            *v = relu_of(*v);
        }
    }
}

kernel! {
    /// `delta = delta · [activation > 0]`, the backward of a ReLU whose outputs are
    /// `activation`.
    pub(crate) fn relu_backward(delta: &mut [f32], activation: &[f32]) {
        for (d, &a) in delta.iter_mut().zip(activation) {
            *d = relu_backward_of(*d, a);
        }
    }
}

/// `e^x` within about an ulp, as a fixed sequence of IEEE operations, so that a loop of it
/// vectorises and gives the same bits on every instruction set and platform (the C
/// library's `expf` does neither): `x = n·ln 2 + r` with `|r| ≤ ln 2 / 2`, `e^r` by its Taylor
/// polynomial of degree 7 (truncation below 0.1 ulp), times `2^n` built in the exponent
/// bits. `x` is clamped to `[-87, 88]`, where `e^x` is a normal float; NaN stays NaN.
#[inline(always)]
pub(crate) fn exp(x: f32) -> f32 {
    // 1.5·2^23: a float in [2^23, 2^24) has no fraction, so adding it rounds to an
    // integer, and its low mantissa bits are then that integer.
    const ROUND: f32 = 12_582_912.0;
    // ln 2 in two parts, the first with trailing zero bits (Cody and Waite).
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    const INV_FACTORIAL: [f32; 8] = [
        1.0,
        1.0,
        0.5,
        1.0 / 6.0,
        1.0 / 24.0,
        1.0 / 120.0,
        1.0 / 720.0,
        1.0 / 5040.0,
    ];
    // `clamp` keeps NaN (unlike `max` and `min`).
    let x = x.clamp(-87.0, 88.0);
    let shifted = x.mul_add(std::f32::consts::LOG2_E, ROUND);
    let n = shifted - ROUND;
    let r = n.mul_add(-LN2_LO, n.mul_add(-LN2_HI, x));
    let poly = INV_FACTORIAL[..7]
        .iter()
        .rev()
        .fold(INV_FACTORIAL[7], |p, &c| p.mul_add(r, c));
    let exponent = shifted
        .to_bits()
        .wrapping_sub(ROUND.to_bits())
        .wrapping_add(127);
    poly * f32::from_bits(exponent << 23)
}

/// `tanh(x)` within about an ulp, from [`exp`]'s operations (so the same bits everywhere):
/// below `|x| = 0.625`, `x + x³·P(x²)` with `P` fitted to `tanh` there (a least-squares fit
/// on Chebyshev nodes, relative error under 0.7 ulp in f32); above, `1 − 2/(e^{2|x|} + 1)`,
/// with `|x|` clamped at 9.5, past which `tanh` rounds to 1.
#[inline(always)]
pub(crate) fn tanh(x: f32) -> f32 {
    const P: [f32; 6] = [
        -0.333_333_3,
        0.133_332_01,
        -0.053_946_253,
        0.021_698_21,
        -0.008_171_788,
        0.002_138_226_3,
    ];
    let a = x.abs();
    let y = a * a;
    let p = P[..5].iter().rev().fold(P[5], |p, &c| p.mul_add(y, c));
    let small = (y * a).mul_add(p, a);
    // A comparison, not `min`, which would turn NaN into 9.5.
    let e = exp(2.0 * if a > 9.5 { 9.5 } else { a });
    let large = 1.0 - 2.0 / (e + 1.0);
    let t = if a < 0.625 { small } else { large };
    t.copysign(x)
}

/// The logistic function `1 / (1 + e^{−x})` with [`exp`], within two ulps.
#[inline(always)]
pub(crate) fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + exp(-x))
}

kernel! {
    /// The elementwise part of an LSTM step on one row, `H = c.len()`: over the gates'
    /// pre-activations `[i, g, f, o]` in `gates` (each `H` wide) writes their activations
    /// `σ(i), tanh(g), σ(f + 1), σ(o)` in place, the cell `c = σ(f + 1)·c_prev + σ(i)·tanh(g)`
    /// and the output `h = σ(o)·tanh(c)`.
    pub(crate) fn lstm_cell(gates: &mut [f32], c_prev: &[f32], c: &mut [f32], h: &mut [f32]) {
        let hid = c.len();
        let (i, rest) = gates[..4 * hid].split_at_mut(hid);
        let (g, rest) = rest.split_at_mut(hid);
        let (f, o) = rest.split_at_mut(hid);
        let (c_prev, h) = (&c_prev[..hid], &mut h[..hid]);
        for j in 0..hid {
            let (si, tg, sf, so) = (sigmoid(i[j]), tanh(g[j]), sigmoid(f[j] + 1.0), sigmoid(o[j]));
            (i[j], g[j], f[j], o[j]) = (si, tg, sf, so);
            c[j] = sf * c_prev[j] + si * tg;
            h[j] = so * tanh(c[j]);
        }
    }
}

kernel! {
    /// The elementwise part of an LSTM step's backward pass, `H = c.len()`: from the step's
    /// gate activations `acts` (`[σ(i), tanh(g), σ(f + 1), σ(o)]`, as [`lstm_cell`] left
    /// them), its cells `c_prev` and `c`, and the gradients of its output (`delta_h`, from
    /// the loss, plus `dh_next`, from the step after) and of its cell (`dc`, from the step
    /// after), writes the gradients of the gates' pre-activations into `delta` and leaves in
    /// `dc` the gradient of `c_prev`.
    pub(crate) fn lstm_cell_backward(
        acts: &[f32],
        c_prev: &[f32],
        c: &[f32],
        delta_h: &[f32],
        dh_next: &[f32],
        dc: &mut [f32],
        delta: &mut [f32],
    ) {
        let hid = c.len();
        let (si, rest) = acts[..4 * hid].split_at(hid);
        let (tg, rest) = rest.split_at(hid);
        let (sf, so) = rest.split_at(hid);
        let (di, rest) = delta[..4 * hid].split_at_mut(hid);
        let (dg, rest) = rest.split_at_mut(hid);
        let (df, d_o) = rest.split_at_mut(hid);
        let (c_prev, delta_h, dh_next, dc) =
            (&c_prev[..hid], &delta_h[..hid], &dh_next[..hid], &mut dc[..hid]);
        for j in 0..hid {
            let dh = delta_h[j] + dh_next[j];
            let tc = tanh(c[j]);
            let dc_j = dc[j] + dh * so[j] * (1.0 - tc * tc);
            d_o[j] = dh * tc * so[j] * (1.0 - so[j]);
            di[j] = dc_j * tg[j] * si[j] * (1.0 - si[j]);
            dg[j] = dc_j * si[j] * (1.0 - tg[j] * tg[j]);
            df[j] = dc_j * c_prev[j] * sf[j] * (1.0 - sf[j]);
            dc[j] = dc_j * sf[j];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::sums::column_sums;

    #[test]
    fn relu_backward_and_sums() {
        let mut delta = vec![1.0, 2.0, 3.0, 4.0];
        relu_backward(&mut delta, &[0.5, 0.0, -1.0, 2.0]);
        assert_eq!(delta, [1.0, 0.0, 0.0, 4.0]);
        let mut sums = vec![9.0; 2];
        column_sums(&mut sums, &delta);
        assert_eq!(sums, [1.0, 4.0]);
        let mut x = vec![-1.0, 0.5, f32::NAN];
        relu(&mut x);
        assert_eq!(&x[..2], &[0.0, 0.5]);
        assert!(x[2].is_nan());
    }

    /// Distance in units of the last place of `exact` rounded to f32.
    fn ulps(got: f32, exact: f64) -> f64 {
        let rounded = (exact as f32).abs();
        let ulp = f32::from_bits(rounded.to_bits() + 1) - rounded;
        (f64::from(got) - exact).abs() / f64::from(ulp)
    }

    #[test]
    fn exp_tanh_and_sigmoid_are_within_an_ulp_or_two() {
        // Over every 4099th float: 0.88, 1.20 and 1.97 ulps at worst.
        let (mut worst_exp, mut worst_tanh, mut worst_sigmoid) = (0.0f64, 0.0f64, 0.0f64);
        for bits in (0..u32::MAX).step_by(4099) {
            let x = f32::from_bits(bits);
            if !x.is_finite() {
                continue;
            }
            let exact = f64::from(x);
            worst_tanh = worst_tanh.max(ulps(tanh(x), exact.tanh()));
            if (-87.0..=88.0).contains(&x) {
                worst_exp = worst_exp.max(ulps(exp(x), exact.exp()));
            }
            let logistic = 1.0 / (1.0 + (-exact).exp());
            if logistic > 1e-37 {
                worst_sigmoid = worst_sigmoid.max(ulps(sigmoid(x), logistic));
            }
        }
        assert!(worst_exp <= 1.5, "exp: {worst_exp} ulps");
        assert!(worst_tanh <= 1.5, "tanh: {worst_tanh} ulps");
        assert!(worst_sigmoid <= 2.5, "sigmoid: {worst_sigmoid} ulps");
        for x in [0.0f32, -0.0, 1e-30, -1e-30] {
            assert_eq!(tanh(x).to_bits(), x.to_bits(), "tanh({x:e}) is {x:e}");
        }
        assert_eq!((tanh(f32::INFINITY), tanh(f32::NEG_INFINITY)), (1.0, -1.0));
        assert_eq!(
            (tanh(30.0), sigmoid(30.0), sigmoid(f32::INFINITY)),
            (1.0, 1.0, 1.0)
        );
        assert!(sigmoid(f32::NEG_INFINITY) < 1e-38);
        for f in [exp, tanh, sigmoid] {
            assert!(f(f32::NAN).is_nan(), "NaN stays NaN");
        }
    }

    #[test]
    fn lstm_cells_give_the_scalar_bits_on_every_instruction_set() {
        let mut rng = bsuite_envs::RandomState::new(21);
        // 37 units: whole vectors and a remainder at every width; pre-activations and cells
        // spread wide, as a long unroll's cell state grows.
        let hid = 37;
        let mut draw = |n: usize, scale: f64| -> Vec<f32> {
            (0..n).map(|_| (rng.randn() * scale) as f32).collect()
        };
        let (gates, c_prev, delta_h, dh_next, dc_next) = (
            draw(4 * hid, 4.0),
            draw(hid, 30.0),
            draw(hid, 1.0),
            draw(hid, 1.0),
            draw(hid, 1.0),
        );
        let (mut acts, mut c, mut h) = (gates.clone(), vec![0.0; hid], vec![0.0; hid]);
        lstm_cell(&mut acts, &c_prev, &mut c, &mut h);
        let (mut dc, mut delta) = (dc_next.clone(), vec![0.0; 4 * hid]);
        lstm_cell_backward(&acts, &c_prev, &c, &delta_h, &dh_next, &mut dc, &mut delta);
        for j in 0..hid {
            let [i, g, f, o] = [0, 1, 2, 3].map(|k| gates[k * hid + j]);
            let (si, tg, sf, so) = (sigmoid(i), tanh(g), sigmoid(f + 1.0), sigmoid(o));
            let cj = sf * c_prev[j] + si * tg;
            let bits = |xs: &[f32]| xs.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(
                bits(&[
                    acts[j],
                    acts[hid + j],
                    acts[2 * hid + j],
                    acts[3 * hid + j],
                    c[j],
                    h[j]
                ]),
                bits(&[si, tg, sf, so, cj, so * tanh(cj)]),
                "forward, unit {j}"
            );
            let dh = delta_h[j] + dh_next[j];
            let tc = tanh(cj);
            let dcj = dc_next[j] + dh * so * (1.0 - tc * tc);
            assert_eq!(
                bits(&[
                    delta[j],
                    delta[hid + j],
                    delta[2 * hid + j],
                    delta[3 * hid + j],
                    dc[j]
                ]),
                bits(&[
                    dcj * tg * si * (1.0 - si),
                    dcj * si * (1.0 - tg * tg),
                    dcj * c_prev[j] * sf * (1.0 - sf),
                    dh * tc * so * (1.0 - so),
                    dcj * sf,
                ]),
                "backward, unit {j}"
            );
        }
    }
}
