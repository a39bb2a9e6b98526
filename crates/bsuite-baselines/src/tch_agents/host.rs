//! CPU tensors the host reads and writes in place, and the host-side kernels of the
//! lockstep agents: sparse first layers, ReLU backward, column sums and Adam.
//!
//! Every kernel is a plain loop in a fixed order. Rust never fuses a multiply and an add
//! into one rounding, so a kernel gives the same bits whatever SIMD width the CPU offers;
//! the wide versions are only faster. That, and per-replica slabs aligned to 64 bytes for
//! LibTorch's matrix products, is what makes a replica's results independent of which
//! other replicas share its batch.

use tch::{Device, Kind, Tensor};

/// A contiguous `f32` CPU tensor whose memory is also accessed as a slice.
///
/// The tensor is created here and never resized, so its memory stays where it is. LibTorch
/// writes into it only through `*_out` calls made while no slice of it is borrowed.
pub(crate) struct HostTensor {
    tensor: Tensor,
    ptr: *mut f32,
    len: usize,
}

impl HostTensor {
    /// Zeros of `shape`. LibTorch aligns CPU allocations to 64 bytes.
    pub(crate) fn zeros(shape: &[i64]) -> Self {
        let tensor = Tensor::zeros(shape, (Kind::Float, Device::Cpu));
        let len = tensor.numel();
        let ptr = tensor.data_ptr() as *mut f32;
        assert!(len == 0 || (ptr as usize) % 64 == 0, "unaligned CPU tensor");
        HostTensor { tensor, ptr, len }
    }

    /// The tensor, for LibTorch calls.
    pub(crate) fn tensor(&self) -> &Tensor {
        &self.tensor
    }

    pub(crate) fn as_slice(&self) -> &[f32] {
        // SAFETY: `ptr` points to `len` initialised floats owned by `tensor`, which lives as
        // long as `self`; no LibTorch call writes it while this borrow is alive.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    pub(crate) fn as_mut_slice(&mut self) -> &mut [f32] {
        // SAFETY: as in `as_slice`, and `&mut self` makes this the only borrow.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

/// Rounds `n` up to a multiple of 16 floats (64 bytes).
pub(crate) fn pad16(n: usize) -> usize {
    n.div_ceil(16) * 16
}

/// Defines a kernel once and compiles it for AVX-512, AVX2 and the baseline, picking the
/// widest the CPU has at run time. All three give the same bits (see the module docs).
macro_rules! kernel {
    ($(#[$meta:meta])* pub(crate) fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $body:block) => {
        $(#[$meta])*
        pub(crate) fn $name($($arg: $ty),*) {
            #[inline(always)]
            fn generic($($arg: $ty),*) $body
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
                unsafe fn avx512($($arg: $ty),*) {
                    generic($($arg),*)
                }
                #[target_feature(enable = "avx2,fma")]
                unsafe fn avx2($($arg: $ty),*) {
                    generic($($arg),*)
                }
                match simd_level() {
                    // SAFETY: the CPU has these features (checked by `simd_level`).
                    SimdLevel::Avx512 => return unsafe { avx512($($arg),*) },
                    SimdLevel::Avx2 => return unsafe { avx2($($arg),*) },
                    SimdLevel::Baseline => {}
                }
            }
            generic($($arg),*)
        }
    };
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum SimdLevel {
    Baseline,
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Avx2,
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Avx512,
}

fn simd_level() -> SimdLevel {
    use std::sync::OnceLock;
    static LEVEL: OnceLock<SimdLevel> = OnceLock::new();
    *LEVEL.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            if std::env::var_os("BSUITE_NO_SIMD").is_some() {
                return SimdLevel::Baseline;
            }
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512vl")
                && std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                return SimdLevel::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                return SimdLevel::Avx2;
            }
        }
        SimdLevel::Baseline
    })
}

/// A sparse input row: `(index, value)` of its nonzero entries, in index order.
pub(crate) type Entry = (u32, f32);

kernel! {
    /// `out += x_k · w[k]` for each entry `(k, x_k)` in order, `w` being `[in, out.len()]`
    /// row-major: a linear layer that skips zero inputs (adding a zero product changes no
    /// sum, so this equals the dense sum in index order).
    pub(crate) fn add_sparse_rows(out: &mut [f32], entries: &[Entry], w: &[f32]) {
        let width = out.len();
        for &(k, x) in entries {
            let row = &w[k as usize * width..][..width];
            for (o, &wk) in out.iter_mut().zip(row) {
                *o += x * wk;
            }
        }
    }
}

kernel! {
    /// [`add_sparse_rows`] for a dense input: its zero entries are skipped.
    pub(crate) fn add_dense_rows(out: &mut [f32], input: &[f32], w: &[f32]) {
        let width = out.len();
        for (k, &x) in input.iter().enumerate() {
            if x != 0.0 {
                let row = &w[k * width..][..width];
                for (o, &wk) in out.iter_mut().zip(row) {
                    *o += x * wk;
                }
            }
        }
    }
}

kernel! {
    /// `g[k] += x_k · delta` for each entry `(k, x_k)`: the weight gradient of
    /// [`add_sparse_rows`] for one input row.
    pub(crate) fn scatter_sparse_rows(g: &mut [f32], entries: &[Entry], delta: &[f32]) {
        let width = delta.len();
        for &(k, x) in entries {
            let row = &mut g[k as usize * width..][..width];
            for (gk, &d) in row.iter_mut().zip(delta) {
                *gk += x * d;
            }
        }
    }
}

kernel! {
    /// `x = max(x, 0)`, keeping NaN (as LibTorch's relu does; `f32::max` would drop it).
    pub(crate) fn relu(x: &mut [f32]) {
        for v in x {
            // An unconditional store, so that the loop vectorises to a blend.
            *v = if *v < 0.0 { 0.0 } else { *v };
        }
    }
}

kernel! {
    /// `delta = delta · [activation > 0]`, the backward of a ReLU whose outputs are
    /// `activation`.
    pub(crate) fn relu_backward(delta: &mut [f32], activation: &[f32]) {
        for (d, &a) in delta.iter_mut().zip(activation) {
            *d = if a > 0.0 { *d } else { 0.0 };
        }
    }
}

kernel! {
    /// `sums[j] = Σ_b rows[b][j]`, rows in order: a bias gradient.
    pub(crate) fn column_sums(sums: &mut [f32], rows: &[f32]) {
        sums.fill(0.0);
        for row in rows.chunks_exact(sums.len()) {
            for (s, &x) in sums.iter_mut().zip(row) {
                *s += x;
            }
        }
    }
}

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
    /// `w -= step_size · m / (sqrt(v) / sqrt(1−β2^t) + ε)`.
    pub(crate) fn adam(w: &mut [f32], m: &mut [f32], v: &mut [f32], g: &[f32], step: AdamStep) {
        let AdamStep { beta1, beta2, step_size, inv_sqrt_bias2, eps } = step;
        let (c1, c2) = (1.0 - beta1, 1.0 - beta2);
        let n = w.len();
        let (m, v, g) = (&mut m[..n], &mut v[..n], &g[..n]);
        for i in 0..n {
            let gi = g[i];
            let mi = beta1 * m[i] + c1 * gi;
            let vi = beta2 * v[i] + c2 * (gi * gi);
            m[i] = mi;
            v[i] = vi;
            w[i] -= step_size * (mi / (vi.sqrt() * inv_sqrt_bias2 + eps));
        }
    }
}

kernel! {
    /// `x = β·x`, `times` times over, rounding after each multiplication as `times` Adam
    /// moment updates without gradient would; stops early once no value changes any more
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
    fn sparse_and_dense_rows_agree_and_skip_zeros() {
        let w: Vec<f32> = (0..12).map(|i| i as f32 * 0.5 - 2.0).collect(); // [4, 3]
        let input = [0.0, 2.0, 0.0, -1.5];
        let mut dense = vec![1.0; 3];
        add_dense_rows(&mut dense, &input, &w);
        let mut sparse = vec![1.0; 3];
        add_sparse_rows(&mut sparse, &[(1, 2.0), (3, -1.5)], &w);
        assert_eq!(dense, sparse);
        let expect: Vec<f32> = (0..3)
            .map(|j| 1.0 + 2.0 * w[3 + j] + -1.5 * w[9 + j])
            .collect();
        assert_eq!(dense, expect);

        let mut g = vec![0.0; 12];
        scatter_sparse_rows(&mut g, &[(1, 2.0), (3, -1.5)], &[1.0, 2.0, 3.0]);
        assert_eq!(&g[3..6], &[2.0, 4.0, 6.0]);
        assert_eq!(&g[9..12], &[-1.5, -3.0, -4.5]);
        assert!(g[..3].iter().chain(&g[6..9]).all(|&x| x == 0.0));
    }

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

    #[test]
    fn adam_matches_the_textbook_update() {
        let step = AdamStep::new(1e-3, 0.9, 0.999, 1e-8, 1);
        let (mut w, mut m, mut v) = (vec![1.0f32; 20], vec![0.0; 20], vec![0.0; 20]);
        let g: Vec<f32> = (0..20).map(|i| i as f32 - 10.0).collect();
        adam(&mut w, &mut m, &mut v, &g, step);
        // The first step moves every weight by about the learning rate against its gradient.
        for i in 0..20 {
            let expect = 1.0 - 1e-3 * g[i].signum() * f32::from(g[i] != 0.0);
            assert!((w[i] - expect).abs() < 1e-6, "{i}: {}", w[i]);
        }
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
        let (mut w, mut m, mut v) = (w0.clone(), m0.clone(), v0.clone());
        adam(&mut w, &mut m, &mut v, &g, step);
        let (c1, c2) = (1.0 - step.beta1, 1.0 - step.beta2);
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
