//! The optimisers' steps (Adam, SGD, RMSProp) on flat buffers of parameters, in the forms
//! the reference's optimisers take, and the decay of a moment over steps without
//! gradient that a lazily updated row replays.

use super::dispatch::kernel;
use crate::config::Optimizer;

/// Adam's constants for one step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AdamStep {
    pub(crate) beta1: f32,
    pub(crate) beta2: f32,
    /// `learning_rate / (1 − β1^t)`.
    pub(crate) step_size: f32,
    /// `1 / sqrt(1 − β2^t)`.
    pub(crate) inv_sqrt_bias2: f32,
    pub(crate) eps: f32,
}

impl AdamStep {
    /// Step `t` (1-based) of Adam with these hyperparameters.
    pub(crate) fn new(learning_rate: f64, beta1: f64, beta2: f64, eps: f64, t: u64) -> Self {
        let t = t as i32;
        AdamStep {
            beta1: beta1 as f32,
            beta2: beta2 as f32,
            step_size: (learning_rate / (1.0 - beta1.powi(t))) as f32,
            inv_sqrt_bias2: (1.0 / (1.0 - beta2.powi(t)).sqrt()) as f32,
            eps: eps as f32,
        }
    }
}

kernel! {
    /// One Adam step on `w` with gradient `g` and moments `m`, `v`, in PyTorch's form:
    /// `m = β1·m + (1−β1)·g`, `v = β2·v + (1−β2)·g²`,
    /// `w -= step_size · m / (sqrt(v) / sqrt(1−β2^t) + ε)`; the gradient is zeroed in the
    /// same pass, ready for the next step's accumulation.
    pub(crate) fn adam(w: &mut [f32], m: &mut [f32], v: &mut [f32], g: &mut [f32], step: AdamStep) {
        let AdamStep { beta1, beta2, step_size, inv_sqrt_bias2, eps } = step;
        let (c1, c2) = (1.0 - beta1, 1.0 - beta2);
        let n = w.len();
        let (m, v, g) = (&mut m[..n], &mut v[..n], &mut g[..n]);
        for i in 0..n {
            let gi = g[i];
            let mi = beta1 * m[i] + c1 * gi;
            let vi = beta2 * v[i] + c2 * (gi * gi);
            m[i] = mi;
            v[i] = vi;
            w[i] -= step_size * (mi / (vi.sqrt() * inv_sqrt_bias2 + eps));
            g[i] = 0.0;
        }
    }
}

kernel! {
    /// [`adam`] with a zero gradient, which it does not read: the same operations on a
    /// gradient of `+0.0` (the one a zeroed gradient holds), so the same bits.
    pub(crate) fn adam_without_gradient(w: &mut [f32], m: &mut [f32], v: &mut [f32], step: AdamStep) {
        let AdamStep { beta1, beta2, step_size, inv_sqrt_bias2, eps } = step;
        let (c1, c2) = (1.0 - beta1, 1.0 - beta2);
        let n = w.len();
        let (m, v) = (&mut m[..n], &mut v[..n]);
        let gi = 0.0f32;
        for i in 0..n {
            let mi = beta1 * m[i] + c1 * gi;
            let vi = beta2 * v[i] + c2 * (gi * gi);
            m[i] = mi;
            v[i] = vi;
            w[i] -= step_size * (mi / (vi.sqrt() * inv_sqrt_bias2 + eps));
        }
    }
}

/// RMSProp's constants (optax's `rmsprop`: no momentum, not centred).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RmsPropStep {
    pub(crate) learning_rate: f32,
    /// The decay of `ν` (0.9).
    pub(crate) decay: f32,
    /// `1 − decay`, computed in `f64` and rounded once, as optax's Python float is.
    pub(crate) one_minus_decay: f32,
    pub(crate) eps: f32,
}

impl RmsPropStep {
    /// RMSProp with optax's defaults (decay 0.9, ε 1e-8 inside the square root).
    pub(crate) fn new(learning_rate: f64) -> Self {
        let decay = 0.9f64;
        RmsPropStep {
            learning_rate: learning_rate as f32,
            decay: decay as f32,
            one_minus_decay: (1.0 - decay) as f32,
            eps: 1e-8,
        }
    }
}

/// One step of any of the optimisers, with its constants: what [`apply`] dispatches on,
/// once per call, so that each kernel's loop has no branch on the optimiser.
#[derive(Clone, Copy, Debug)]
pub(crate) enum OptStep {
    /// Adam (state: both moments).
    Adam(AdamStep),
    /// Plain SGD with this learning rate (no state).
    Sgd(f32),
    /// RMSProp (state: `ν`, kept where Adam keeps its second moment).
    RmsProp(RmsPropStep),
}

impl OptStep {
    /// Step `t` (1-based) of `optimizer` with optax's defaults but for the learning rate.
    pub(crate) fn new(optimizer: Optimizer, learning_rate: f64, t: u64) -> Self {
        match optimizer {
            Optimizer::Adam => OptStep::Adam(AdamStep::new(learning_rate, 0.9, 0.999, 1e-8, t)),
            Optimizer::Sgd => OptStep::Sgd(learning_rate as f32),
            Optimizer::RmsProp => OptStep::RmsProp(RmsPropStep::new(learning_rate)),
        }
    }
}

/// One optimiser step on `w` with gradient `g`, which it zeroes; `m` and `v` are the
/// optimiser's state (Adam's moments; RMSProp keeps `ν` in `v` and leaves `m` alone; SGD
/// touches neither).
pub(crate) fn apply(w: &mut [f32], m: &mut [f32], v: &mut [f32], g: &mut [f32], step: OptStep) {
    match step {
        OptStep::Adam(step) => adam(w, m, v, g, step),
        OptStep::Sgd(learning_rate) => sgd(w, g, learning_rate),
        OptStep::RmsProp(step) => rmsprop(w, v, g, step),
    }
}

kernel! {
    /// One SGD step, optax's `sgd` without momentum: `w -= lr·g`; zeroes the gradient.
    pub(crate) fn sgd(w: &mut [f32], g: &mut [f32], learning_rate: f32) {
        let n = w.len();
        let g = &mut g[..n];
        for i in 0..n {
            w[i] -= learning_rate * g[i];
            g[i] = 0.0;
        }
    }
}

kernel! {
    /// One RMSProp step in optax's form: `ν = (1−ρ)·g² + ρ·ν`, `w -= lr·(g / sqrt(ν + ε))`
    /// (ε inside the square root, unlike PyTorch's); zeroes the gradient.
    pub(crate) fn rmsprop(w: &mut [f32], nu: &mut [f32], g: &mut [f32], step: RmsPropStep) {
        let RmsPropStep { learning_rate, decay, one_minus_decay, eps } = step;
        let n = w.len();
        let (nu, g) = (&mut nu[..n], &mut g[..n]);
        for i in 0..n {
            let gi = g[i];
            let vi = one_minus_decay * (gi * gi) + decay * nu[i];
            nu[i] = vi;
            w[i] -= learning_rate * (gi / (vi + eps).sqrt());
            g[i] = 0.0;
        }
    }
}

kernel! {
    /// `x = β·x`, `times` times over, rounding after each multiplication as `times` Adam
    /// moment (or RMSProp `ν`) updates without gradient would; stops early once no value changes any more
    /// (zero, or a subnormal that rounds back to itself).
    pub(crate) fn decay(x: &mut [f32], beta: f32, times: u64) {
        for _ in 0..times {
            let mut changed = false;
            for v in x.iter_mut() {
                let new = *v * beta;
                changed |= new != *v;
                *v = new;
            }
            if !changed {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adam_matches_the_textbook_update() {
        let step = AdamStep::new(1e-3, 0.9, 0.999, 1e-8, 1);
        let (mut w, mut m, mut v) = (vec![1.0f32; 20], vec![0.0; 20], vec![0.0; 20]);
        let g: Vec<f32> = (0..20).map(|i| i as f32 - 10.0).collect();
        adam(&mut w, &mut m, &mut v, &mut g.clone(), step);
        // The first step moves every weight by about the learning rate against its gradient.
        for i in 0..20 {
            let expect = 1.0 - 1e-3 * g[i].signum() * f32::from(g[i] != 0.0);
            assert!((w[i] - expect).abs() < 1e-6, "{i}: {}", w[i]);
        }
    }

    #[test]
    fn sgd_and_rmsprop_follow_optax() {
        let g: Vec<f32> = (0..20).map(|i| (i as f32 - 10.0) * 0.25).collect();
        let w0: Vec<f32> = (0..20).map(|i| i as f32 * 0.1).collect();
        let (mut w, mut cleared) = (w0.clone(), g.clone());
        apply(
            &mut w,
            &mut [],
            &mut [],
            &mut cleared,
            OptStep::new(Optimizer::Sgd, 0.5, 1),
        );
        assert!(
            cleared.iter().all(|&x| x == 0.0),
            "the gradient is consumed"
        );
        for i in 0..20 {
            assert_eq!(w[i], w0[i] - 0.5 * g[i], "sgd {i}");
        }
        // RMSProp from ν = 0: ν = 0.1·g², so the first step is lr·g/√(0.1·g² + 1e-8),
        // about lr·√10 against the gradient's sign.
        let (mut w, mut m, mut nu) = (w0.clone(), vec![7.0f32; 20], vec![0.0f32; 20]);
        let step = OptStep::new(Optimizer::RmsProp, 1e-3, 1);
        apply(&mut w, &mut m, &mut nu, &mut g.clone(), step);
        assert_eq!(m, vec![7.0f32; 20], "RMSProp keeps no first moment");
        for i in 0..20 {
            let gi = f64::from(g[i]);
            assert!((f64::from(nu[i]) - 0.1 * gi * gi).abs() <= 1e-6 * (1.0 + gi * gi));
            let expect = f64::from(w0[i]) - 1e-3 * gi / (0.1 * gi * gi + 1e-8).sqrt();
            assert!(
                (f64::from(w[i]) - expect).abs() < 1e-6,
                "rmsprop {i}: {}",
                w[i]
            );
        }
        // A second step without gradient decays ν by 0.9 exactly as `decay` does, and
        // leaves the weights alone.
        let (w1, mut decayed) = (w.clone(), nu.clone());
        apply(&mut w, &mut m, &mut nu, &mut [0.0; 20], step);
        decay(&mut decayed, 0.9, 1);
        assert_eq!((w, nu), (w1, decayed));
    }

    #[test]
    fn every_simd_width_gives_the_same_bits() {
        // The dispatching kernels against their baseline bodies, on awkward lengths.
        let mut rng = bsuite_envs::RandomState::new(5);
        let n = 1000 + 7;
        let g: Vec<f32> = (0..n).map(|_| rng.randn() as f32).collect();
        let w0: Vec<f32> = (0..n).map(|_| rng.randn() as f32).collect();
        let m0: Vec<f32> = (0..n).map(|_| rng.randn() as f32 * 0.1).collect();
        let v0: Vec<f32> = (0..n).map(|_| rng.rand() as f32).collect();
        let step = AdamStep::new(1e-3, 0.9, 0.999, 1e-8, 17);
        let (mut w, mut m, mut v, mut cleared) = (w0.clone(), m0.clone(), v0.clone(), g.clone());
        adam(&mut w, &mut m, &mut v, &mut cleared, step);
        assert!(
            cleared.iter().all(|&x| x == 0.0),
            "the gradient is consumed"
        );
        let (c1, c2) = (1.0 - step.beta1, 1.0 - step.beta2);
        // Without a gradient, as with a zeroed one; moments tiny enough that their decay
        // underflows, to -0.0 where negative.
        let tiny: Vec<f32> = m0.iter().map(|&x| x * 1e-38).collect();
        for m_start in [&m0, &tiny] {
            let (mut w, mut m, mut v) = (w0.clone(), m_start.clone(), v0.clone());
            adam_without_gradient(&mut w, &mut m, &mut v, step);
            let (mut w_z, mut m_z, mut v_z) = (w0.clone(), m_start.clone(), v0.clone());
            adam(&mut w_z, &mut m_z, &mut v_z, &mut vec![0.0; n], step);
            for i in 0..n {
                assert_eq!(
                    (w[i].to_bits(), m[i].to_bits(), v[i].to_bits()),
                    (w_z[i].to_bits(), m_z[i].to_bits(), v_z[i].to_bits()),
                    "without a gradient: [{i}]"
                );
            }
        }
        let OptStep::RmsProp(rms) = OptStep::new(Optimizer::RmsProp, 1e-3, 1) else {
            unreachable!()
        };
        let (mut w_rms, mut v_rms) = (w0.clone(), v0.clone());
        rmsprop(&mut w_rms, &mut v_rms, &mut g.clone(), rms);
        let mut w_sgd = w0.clone();
        sgd(&mut w_sgd, &mut g.clone(), 1e-3);
        for i in 0..n {
            let vi = rms.one_minus_decay * (g[i] * g[i]) + rms.decay * v0[i];
            let wi = w0[i] - rms.learning_rate * (g[i] / (vi + rms.eps).sqrt());
            assert_eq!(
                (w_rms[i].to_bits(), v_rms[i].to_bits()),
                (wi.to_bits(), vi.to_bits())
            );
            assert_eq!(w_sgd[i].to_bits(), (w0[i] - 1e-3 * g[i]).to_bits());
        }
        for i in 0..n {
            let mi = step.beta1 * m0[i] + c1 * g[i];
            let vi = step.beta2 * v0[i] + c2 * (g[i] * g[i]);
            let wi = w0[i] - step.step_size * (mi / (vi.sqrt() * step.inv_sqrt_bias2 + step.eps));
            assert_eq!(
                (w[i].to_bits(), m[i].to_bits(), v[i].to_bits()),
                (wi.to_bits(), mi.to_bits(), vi.to_bits())
            );
        }
    }
}
