//! The host-side kernels of the lockstep agents: dense and sparse layers, their
//! gradients, ReLU, column sums and the optimisers (Adam, SGD, RMSProp).
//!
//! Every kernel is a plain loop in a fixed order. Rust never fuses a multiply and an add
//! into one rounding unless told to (`mul_add`, which is one rounding everywhere), so a
//! kernel gives the same bits whatever SIMD width the CPU offers; the wide versions are
//! only faster. That is what makes a replica's results independent of which other
//! replicas share its batch.

pub(crate) mod dense;

use bsuite_envs::{ActionSpec, ObservationSpec, RandomState};

use crate::config::Optimizer;

/// What one replica of a host engine is built from: its environment's specs and its seed.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplicaSpec {
    /// The environment's observation spec (observations are flattened).
    pub observation_spec: ObservationSpec,
    /// The environment's action spec.
    pub action_spec: ActionSpec,
    /// The replica's agent seed: all its random draws come from `RandomState(seed)`.
    pub seed: u32,
}

/// `n` draws of Haiku's default Linear weight initialiser: a normal with standard deviation
/// `stddev`, redrawn outside two standard deviations.
pub(crate) fn truncated_normal(rng: &mut RandomState, n: usize, stddev: f64) -> Vec<f32> {
    (0..n)
        .map(|_| loop {
            let z = rng.randn();
            if z.abs() <= 2.0 {
                break (z * stddev) as f32;
            }
        })
        .collect()
}

/// Runs `reps` products of two 256×256 matrices with the kernel the DQN agents' stacked
/// layers use on the host, and returns the floating-point operations done: a bench times
/// it to learn this CPU's matrix-product rate, the compute bound of those agents.
///
/// ```no_run
/// let start = std::time::Instant::now();
/// let flops = bsuite_baselines::host::probe_matmul_256(100);
/// println!("{:.1} GFLOP/s", flops / start.elapsed().as_secs_f64() / 1e9);
/// ```
pub fn probe_matmul_256(reps: u32) -> f64 {
    const N: usize = 256;
    let a: Vec<f32> = (0..N * N)
        .map(|i| ((i * 7919) % 1009) as f32 / 1009.0 - 0.5)
        .collect();
    let b: Vec<f32> = (0..N * N)
        .map(|i| ((i * 104_729) % 1013) as f32 / 1013.0 - 0.5)
        .collect();
    let mut out = vec![0.0f32; N * N];
    for _ in 0..reps {
        matmul(
            &mut out,
            std::hint::black_box(&a),
            (N, 1),
            &b,
            N,
            None,
            Epilogue::Store,
        );
        std::hint::black_box(&mut out);
    }
    2.0 * (N as f64).powi(3) * f64::from(reps)
}

/// Runs `reps` Adam steps of the host kernel the DQN and actor-critic agents use over
/// `params` parameters, and returns the parameter updates done: a bench times it over a
/// set that fits in the L1 cache to learn this CPU's rate for Adam's arithmetic (a square
/// root and a division per parameter), the compute bound of the optimiser's phase.
///
/// ```no_run
/// let start = std::time::Instant::now();
/// let updates = bsuite_baselines::host::probe_adam(2048, 1000);
/// println!("{:.2} ns a parameter", start.elapsed().as_secs_f64() * 1e9 / updates);
/// ```
pub fn probe_adam(params: usize, reps: u32) -> f64 {
    let mut w: Vec<f32> = (0..params).map(|i| (i % 97) as f32 * 1e-2).collect();
    let (mut m, mut v) = (vec![0.0f32; params], vec![0.0f32; params]);
    // The gradients are copied in whole at each step (Adam zeroes them): computing them in
    // place, an integer remainder an element, had doubled the time this probe reports.
    let pattern: Vec<f32> = (0..params)
        .map(|i| ((i % 13) as f32 - 6.0) * 1e-3)
        .collect();
    let mut g = vec![0.0f32; params];
    for t in 1..=u64::from(reps) {
        g.copy_from_slice(&pattern);
        let step = OptStep::new(crate::config::Optimizer::Adam, 1e-3, t);
        apply(std::hint::black_box(&mut w), &mut m, &mut v, &mut g, step);
    }
    std::hint::black_box(&w);
    params as f64 * f64::from(reps)
}

/// Sums `xs` with the host kernels' widest loads, in 128 interleaved partial sums: a bench
/// times it over a buffer of a given size to learn this CPU's read bandwidth from the cache
/// level that holds it, the memory bound of the recurrent agents.
///
/// ```no_run
/// let xs = vec![1.0f32; 1 << 20];
/// let start = std::time::Instant::now();
/// assert_eq!(bsuite_baselines::host::probe_sum(&xs), (1 << 20) as f32);
/// println!("{:.1} GB/s", 4e-9 * xs.len() as f64 / start.elapsed().as_secs_f64());
/// ```
pub fn probe_sum(xs: &[f32]) -> f32 {
    let whole = xs.len() / READ_LANES * READ_LANES;
    let mut lanes = [0.0f32; READ_LANES];
    add_lanes(&mut lanes, &xs[..whole]);
    lanes.iter().chain(&xs[whole..]).sum()
}

/// A hint to fetch the cache line holding `value` (into every level of cache when
/// `nearest`, else into L2 and beyond, where it waits out work that would evict it from
/// L1). A hint only: nothing computed depends on it.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T, nearest: bool) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0, _MM_HINT_T1};
        let p = (value as *const T).cast();
        // SAFETY: SSE is part of x86_64, and a prefetch reads nothing.
        unsafe {
            if nearest {
                _mm_prefetch::<_MM_HINT_T0>(p)
            } else {
                _mm_prefetch::<_MM_HINT_T1>(p)
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (value, nearest);
}

/// Rounds `n` up to a multiple of 16 floats (64 bytes).
pub(crate) fn pad16(n: usize) -> usize {
    n.div_ceil(16) * 16
}

/// Defines a kernel once and compiles it for AVX-512, AVX2 and the baseline, picking the
/// widest the CPU has at run time. All three give the same bits (see the module docs).
///
/// Hand-written rather than `multiversion`'s attribute, which generates the same clones
/// and dispatch: the widths must be selectable on one CPU to compare their bits and speed
/// (`BSUITE_NO_SIMD`, `BSUITE_NO_AVX512`, read by `simd_level`), which multiversion's own
/// detection does not offer, and the macro is the whole of it. `pulp` would change the
/// loops into explicit SIMD types, and with them the order of the sums that pins the bits.
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

/// The widest instruction set the kernels use on this CPU. `BSUITE_NO_SIMD` forces the
/// baseline and `BSUITE_NO_AVX512` at most AVX2, to compare them on one CPU (the bits are
/// the same; on a Zen 4, whose AVX-512 runs at AVX2's width, AVX2 was still slower).
fn simd_level() -> SimdLevel {
    use std::sync::OnceLock;
    static LEVEL: OnceLock<SimdLevel> = OnceLock::new();
    *LEVEL.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            if std::env::var_os("BSUITE_NO_SIMD").is_some() {
                return SimdLevel::Baseline;
            }
            if std::env::var_os("BSUITE_NO_AVX512").is_none()
                && std::arch::is_x86_feature_detected!("avx512f")
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
    /// One member's sparse first layer on a batch of inputs: row `r` of `out` (rows as
    /// wide as `b`) is `relu(b + Σ x_k · w[k])` over the entries `(k, x_k)` of
    /// `inputs[r]` in order, where `w[k]` is `w[k·stride..][..b.len()]` (the member's
    /// block of row `k` of an ensemble's first-layer matrix, `stride` wide). Skipping zero
    /// inputs changes no sum, so this equals the dense layer. Each 16-wide block of an
    /// output is summed in registers and stored once; one call serves a whole batch, so
    /// the rows' short chains of additions overlap.
    pub(crate) fn sparse_relu_layer(
        out: &mut [f32],
        b: &[f32],
        inputs: &[&[Entry]],
        w: &[f32],
        stride: usize,
    ) {
        let width = b.len();
        for (out, entries) in out.chunks_exact_mut(width).zip(inputs) {
            match width {
                16 => sparse_relu_row::<1>(out, b, entries, w, stride),
                32 => sparse_relu_row::<2>(out, b, entries, w, stride),
                48 => sparse_relu_row::<3>(out, b, entries, w, stride),
                64 => sparse_relu_row::<4>(out, b, entries, w, stride),
                _ => {
                    out.copy_from_slice(b);
                    for &(k, x) in *entries {
                        let wk = &w[k as usize * stride..][..width];
                        for (o, &wkj) in out.iter_mut().zip(wk) {
                            *o += x * wkj;
                        }
                    }
                    for o in out.iter_mut() {
                        *o = if *o < 0.0 { 0.0 } else { *o };
                    }
                }
            }
        }
    }
}

/// A row of [`sparse_relu_layer`] `N` blocks of 16 wide, summed in registers: a fixed
/// width keeps the row's sums in registers across the entries, with one bounds check a
/// row and a weight row.
#[inline(always)]
fn sparse_relu_row<const N: usize>(
    out: &mut [f32],
    b: &[f32],
    entries: &[Entry],
    w: &[f32],
    stride: usize,
) {
    let mut acc: [[f32; 16]; N] =
        std::array::from_fn(|v| b[16 * v..][..16].try_into().expect("16 floats"));
    for &(k, x) in entries {
        let wk = &w[k as usize * stride..][..16 * N];
        for (v, acc) in acc.iter_mut().enumerate() {
            for (a, &wkj) in acc.iter_mut().zip(&wk[16 * v..16 * v + 16]) {
                *a += x * wkj;
            }
        }
    }
    for (v, acc) in acc.into_iter().enumerate() {
        let out: &mut [f32; 16] = (&mut out[16 * v..][..16]).try_into().expect("16 floats");
        *out = acc.map(|a| if a < 0.0 { 0.0 } else { a });
    }
}

kernel! {
    /// `out += Σ x_k · w[k]` over a dense input's nonzero entries in order (`w` row-major,
    /// rows as wide as `out`): a linear layer that skips zero inputs.
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

/// A batch's sparse entries grouped by input, rows in order within an input: what
/// [`scatter_sparse_layer`] walks. Kept between calls, so that grouping allocates nothing.
#[derive(Clone, Default)]
pub(crate) struct EntriesByInput {
    /// Input `k`'s entries are `entries[starts[k]..starts[k + 1]]`.
    starts: Vec<u32>,
    /// `(row, value)`.
    entries: Vec<(u32, f32)>,
}

impl EntriesByInput {
    /// Groups the entries of `inputs` (row `r` is `inputs[r]`) by input, in one counting
    /// sort that keeps the rows' order.
    pub(crate) fn group(&mut self, inputs: &[&[Entry]]) {
        // A row's entries are in index order, so its last one has its largest index.
        let n = inputs
            .iter()
            .filter_map(|row| row.last())
            .map(|&(k, _)| k as usize + 1)
            .max()
            .unwrap_or(0);
        let starts = &mut self.starts;
        starts.clear();
        starts.resize(n + 1, 0);
        for &(k, _) in inputs.iter().flat_map(|row| row.iter()) {
            starts[k as usize + 1] += 1;
        }
        for k in 0..n {
            starts[k + 1] += starts[k];
        }
        self.entries.clear();
        self.entries.resize(starts[n] as usize, (0, 0.0));
        // `starts[k]` serves as input k's cursor, which ends at `k + 1`'s start; shifting
        // the cursors up by one input restores the starts.
        for (r, row) in inputs.iter().enumerate() {
            for &(k, x) in *row {
                let at = &mut starts[k as usize];
                self.entries[*at as usize] = (r as u32, x);
                *at += 1;
            }
        }
        starts.copy_within(0..n, 1);
        starts[0] = 0;
    }
}

kernel! {
    /// The weight gradient of [`sparse_relu_layer`] over a batch, rows in order:
    /// `g[k] += x_k · δ_r` for every entry `(k, x_k)` of every row `r` (`inputs`, grouped),
    /// where `δ_r` is row `r` of `deltas` (rows `width` wide) and `g[k]` is
    /// `g[k·stride..][..width]`. Input by input, each `g[k]` is summed in registers over
    /// its rows: the same terms in the same order as adding row by row, without an
    /// addition waiting on the store of the one before.
    pub(crate) fn scatter_sparse_layer(
        g: &mut [f32],
        stride: usize,
        inputs: &EntriesByInput,
        deltas: &[f32],
        width: usize,
    ) {
        for (k, bounds) in inputs.starts.windows(2).enumerate() {
            let rows = &inputs.entries[bounds[0] as usize..bounds[1] as usize];
            if rows.is_empty() {
                continue;
            }
            let g = &mut g[k * stride..][..width];
            match width {
                16 => scatter_input::<1>(g, rows, deltas),
                32 => scatter_input::<2>(g, rows, deltas),
                48 => scatter_input::<3>(g, rows, deltas),
                64 => scatter_input::<4>(g, rows, deltas),
                _ => {
                    for &(r, x) in rows {
                        let delta = &deltas[r as usize * width..][..width];
                        for (gj, &dj) in g.iter_mut().zip(delta) {
                            *gj += x * dj;
                        }
                    }
                }
            }
        }
    }
}

/// One input's gradient row of [`scatter_sparse_layer`], `N` blocks of 16 wide, summed
/// in registers over the rows that have the input.
#[inline(always)]
fn scatter_input<const N: usize>(g: &mut [f32], rows: &[(u32, f32)], deltas: &[f32]) {
    let g: &mut [f32] = &mut g[..16 * N];
    let mut acc: [[f32; 16]; N] =
        std::array::from_fn(|v| g[16 * v..][..16].try_into().expect("16 floats"));
    for &(r, x) in rows {
        let delta = &deltas[r as usize * 16 * N..][..16 * N];
        for (v, acc) in acc.iter_mut().enumerate() {
            for (a, &d) in acc.iter_mut().zip(&delta[16 * v..16 * v + 16]) {
                *a += x * d;
            }
        }
    }
    for (v, acc) in acc.into_iter().enumerate() {
        g[16 * v..][..16].copy_from_slice(&acc);
    }
}

/// `max(x, 0)`, keeping NaN (as LibTorch's relu does; `f32::max` would drop it): one
/// element of [`relu`] and of [`Epilogue::Relu`].
#[inline(always)]
fn relu_of(x: f32) -> f32 {
    if x < 0.0 {
        0.0
    } else {
        x
    }
}

/// `delta · [activation > 0]`: one element of [`relu_backward`] and of
/// [`Epilogue::ReluBackward`].
#[inline(always)]
fn relu_backward_of(delta: f32, activation: f32) -> f32 {
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

/// `sums[j] = Σ_b rows[b][j]`, rows in order: a bias gradient.
pub(crate) fn column_sums(sums: &mut [f32], rows: &[f32]) {
    sums.fill(0.0);
    add_column_sums(sums, rows);
}

kernel! {
    /// `sums[j] += Σ_b rows[b][j]`, rows in order: a bias gradient accumulated. Columns
    /// are summed 64, then 16, at a time in registers, stored once, instead of loading and
    /// storing every sum at every row.
    pub(crate) fn add_column_sums(sums: &mut [f32], rows: &[f32]) {
        let width = sums.len();
        if width == 0 {
            return;
        }
        let mut c = 0;
        while c + 64 <= width {
            column_block::<64>(&mut sums[c..c + 64], rows, width, c);
            c += 64;
        }
        while c + 16 <= width {
            column_block::<16>(&mut sums[c..c + 16], rows, width, c);
            c += 16;
        }
        for row in rows.chunks_exact(width) {
            for (s, &x) in sums[c..].iter_mut().zip(&row[c..]) {
                *s += x;
            }
        }
    }
}

/// Columns `c..c + N` of [`add_column_sums`], the `N` sums held in registers.
#[inline(always)]
fn column_block<const N: usize>(sums: &mut [f32], rows: &[f32], width: usize, c: usize) {
    let mut acc: [f32; N] = sums.try_into().expect("N sums");
    for row in rows.chunks_exact(width) {
        let row: &[f32; N] = row[c..c + N].try_into().expect("N columns");
        for (a, &x) in acc.iter_mut().zip(row) {
            *a += x;
        }
    }
    sums.copy_from_slice(&acc);
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

/// Floats [`add_lanes`] sums at once: eight AVX-512 registers of independent chains, enough
/// that the additions keep up with the loads.
pub(crate) const READ_LANES: usize = 128;

kernel! {
    /// `lanes[l] += Σ xs[l + READ_LANES·i]`: reads `xs` (a multiple of [`READ_LANES`] long)
    /// with the widest loads the CPU has, a probe of its read bandwidth.
    pub(crate) fn add_lanes(lanes: &mut [f32; READ_LANES], xs: &[f32]) {
        let mut acc = *lanes;
        for chunk in xs.chunks_exact(READ_LANES) {
            for (a, &x) in acc.iter_mut().zip(chunk) {
                *a += x;
            }
        }
        *lanes = acc;
    }
}

/// `out[r] += Σ_k input[r][k] · w[k]` for every row `r`: rows of a dense linear layer,
/// `input` being `[rows, in]`, `w` `[in, width]` and `out` `[rows, width]`, row-major.
///
/// Weight rows are taken four at a time, each block read once for all rows and added to an
/// output in index order, `(((o + x₀w₀) + x₁w₁) + x₂w₂) + x₃w₃`, so the output's loads and
/// stores are shared by four products. A block whose four inputs are zero is skipped (most
/// of a one-hot observation's), which changes no sum.
///
/// One row at most 64 wide (an acting or prior network's layer: bootstrapped DQN runs its
/// 20 prior networks at every transition) is summed in registers on AVX-512, the same
/// terms in the same order, its last vector masked to the width: the loop below keeps it
/// in memory, and takes the columns past the last whole vector one by one.
pub(crate) fn add_product(out: &mut [f32], input: &[f32], w: &[f32], width: usize) {
    #[cfg(target_arch = "x86_64")]
    if out.len() == width && width <= 64 && simd_level() == SimdLevel::Avx512 {
        assert!(
            w.len() >= input.len() * width,
            "add_product: {} weights for {} inputs of {width}",
            w.len(),
            input.len()
        );
        // SAFETY: the CPU has AVX-512 (checked by `simd_level`), and every weight row read
        // is within `w` (checked above).
        return unsafe { simd::add_product_row_avx512(out, input, w) };
    }
    add_product_rows(out, input, w, width)
}

kernel! {
    /// [`add_product`] without intrinsics.
    pub(crate) fn add_product_rows(out: &mut [f32], input: &[f32], w: &[f32], width: usize) {
        let rows = out.len() / width;
        let fan_in = input.len() / rows.max(1);
        let blocks = fan_in / 4;
        for block in 0..blocks {
            let k = block * 4;
            let w0 = &w[k * width..][..width];
            let w1 = &w[(k + 1) * width..][..width];
            let w2 = &w[(k + 2) * width..][..width];
            let w3 = &w[(k + 3) * width..][..width];
            for r in 0..rows {
                let x = &input[r * fan_in + k..][..4];
                if x == [0.0; 4] {
                    continue;
                }
                let (x0, x1, x2, x3) = (x[0], x[1], x[2], x[3]);
                let o = &mut out[r * width..][..width];
                for j in 0..width {
                    o[j] = o[j] + x0 * w0[j] + x1 * w1[j] + x2 * w2[j] + x3 * w3[j];
                }
            }
        }
        for k in blocks * 4..fan_in {
            let wk = &w[k * width..][..width];
            for r in 0..rows {
                let x = input[r * fan_in + k];
                if x != 0.0 {
                    let o = &mut out[r * width..][..width];
                    for (o, &w) in o.iter_mut().zip(wk) {
                        *o += x * w;
                    }
                }
            }
        }
    }
}

kernel! {
    /// `g[k] += Σ_r input[r][k] · delta[r]`, rows in order: the weight gradient of
    /// [`add_product`] (`g` is `[in, width]`). Rows are taken four at a time as in
    /// [`add_product`], `(((g + x₀d₀) + x₁d₁) + x₂d₂) + x₃d₃`; blocks of four zero inputs
    /// are skipped.
    pub(crate) fn add_weight_grad(g: &mut [f32], input: &[f32], delta: &[f32], width: usize) {
        let rows = delta.len() / width;
        let fan_in = input.len() / rows.max(1);
        let blocks = rows / 4;
        let xs = |k: usize, r: usize| [0, 1, 2, 3].map(|i| input[(r + i) * fan_in + k]);
        let ds = |r: usize| [0, 1, 2, 3].map(|i| &delta[(r + i) * width..][..width]);
        // `g + x₀d₀ + x₁d₁ + x₂d₂ + x₃d₃` into one gradient row.
        #[inline(always)]
        fn add_block(g: &mut [f32], x: [f32; 4], d: [&[f32]; 4]) {
            let d = d.map(|d| &d[..g.len()]);
            for j in 0..g.len() {
                g[j] = g[j] + x[0] * d[0][j] + x[1] * d[1][j] + x[2] * d[2][j] + x[3] * d[3][j];
            }
        }
        // Two rows of `g` at a time share each block's four loads of deltas.
        let pairs = fan_in / 2;
        for pair in 0..pairs {
            let k = pair * 2;
            let (ga, gb) = g[k * width..][..2 * width].split_at_mut(width);
            for block in 0..blocks {
                let r = block * 4;
                let (xa, xb, d) = (xs(k, r), xs(k + 1, r), ds(r));
                match (xa == [0.0; 4], xb == [0.0; 4]) {
                    (false, false) => {
                        let [d0, d1, d2, d3] = d;
                        for j in 0..width {
                            ga[j] = ga[j] + xa[0] * d0[j] + xa[1] * d1[j] + xa[2] * d2[j] + xa[3] * d3[j];
                            gb[j] = gb[j] + xb[0] * d0[j] + xb[1] * d1[j] + xb[2] * d2[j] + xb[3] * d3[j];
                        }
                    }
                    (false, true) => add_block(ga, xa, d),
                    (true, false) => add_block(gb, xb, d),
                    (true, true) => {}
                }
            }
        }
        for k in pairs * 2..fan_in {
            let gk = &mut g[k * width..][..width];
            for block in 0..blocks {
                let r = block * 4;
                let x = xs(k, r);
                if x != [0.0; 4] {
                    add_block(gk, x, ds(r));
                }
            }
        }
        for k in 0..fan_in {
            let gk = &mut g[k * width..][..width];
            for r in blocks * 4..rows {
                let x = input[r * fan_in + k];
                if x != 0.0 {
                    for (g, &d) in gk.iter_mut().zip(&delta[r * width..][..width]) {
                        *g += x * d;
                    }
                }
            }
        }
    }
}

/// What a product does to each output after its bias, before storing it. A ReLU or its
/// backward applied in the product's registers saves a pass over the outputs.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Epilogue<'a> {
    /// Stores the outputs as they are.
    Store,
    /// [`relu`]'s `max(x, 0)`, keeping NaN.
    Relu,
    /// [`relu_backward`]: zeroes the outputs whose element of this activation, laid out as
    /// the output, is not above zero.
    ReluBackward(&'a [f32]),
}

impl Epilogue<'_> {
    /// [`Epilogue::Relu`] for a hidden layer, [`Epilogue::Store`] for the output layer.
    pub(crate) fn relu_if(hidden: bool) -> Self {
        if hidden {
            Epilogue::Relu
        } else {
            Epilogue::Store
        }
    }

    /// Output `s`, element `at` of the output, after the epilogue.
    #[inline(always)]
    fn apply(self, at: usize, s: f32) -> f32 {
        match self {
            Epilogue::Store => s,
            Epilogue::Relu => relu_of(s),
            Epilogue::ReluBackward(activation) => relu_backward_of(s, activation[at]),
        }
    }

    /// The epilogue for a tile whose first output is element `at` of the output.
    #[cfg(target_arch = "x86_64")]
    fn at(self, at: usize) -> simd::Post {
        match self {
            Epilogue::Store => simd::Post::Store,
            Epilogue::Relu => simd::Post::Relu,
            Epilogue::ReluBackward(a) => simd::Post::ReluBackward(a.as_ptr().wrapping_add(at)),
        }
    }

    /// Panics unless a [`Epilogue::ReluBackward`]'s activation covers `outputs` elements.
    fn check(self, outputs: usize, kernel: &str) {
        if let Epilogue::ReluBackward(a) = self {
            assert!(
                a.len() >= outputs,
                "{kernel}: {} activations for {outputs} outputs",
                a.len()
            );
        }
    }
}

/// `out = a·b`, plus `bias` on every row if given, then `then`: `b` is `[k, n]` and `out`
/// is `[m, n]`, row-major with `n` a multiple of 16, and element `(i, p)` of `a` is
/// `a[i·a_strides.0 + p·a_strides.1]`, so `a` may be stored transposed.
///
/// Each `out[i][j]` is one chain of fused multiply-adds over `p` in order, from zero, with
/// the bias added last. That is the order MKL's sgemm takes on the stacked layers' shapes
/// (a batch of rows by 16 to 128), so these products give the bits LibTorch's `bmm` and
/// `baddbmm` gave there; `mul_add` keeps them the same on every instruction set, and only
/// the tile of outputs summed in registers at once depends on it. Unlike a BLAS, nothing is
/// packed or scaled, which on these small products was 40% of MKL's time.
pub(crate) fn matmul(
    out: &mut [f32],
    a: &[f32],
    a_strides: (usize, usize),
    b: &[f32],
    n: usize,
    bias: Option<&[f32]>,
    then: Epilogue,
) {
    matmul_columns(out, a, a_strides, b, n, bias, then, n)
}

/// [`matmul`]'s first `cols` columns of `out` (a multiple of 16); the others are left as
/// they are. A product whose real outputs end inside a vector computes the vectors before
/// it here and the rest another way ([`matmul_transposed`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn matmul_columns(
    out: &mut [f32],
    a: &[f32],
    a_strides: (usize, usize),
    b: &[f32],
    n: usize,
    bias: Option<&[f32]>,
    then: Epilogue,
    cols: usize,
) {
    assert!(
        n.is_multiple_of(16)
            && cols.is_multiple_of(16)
            && cols <= n
            && out.len().is_multiple_of(n)
            && b.len().is_multiple_of(n),
        "matmul: {cols} of {n} columns, {} outputs, {} weights",
        out.len(),
        b.len()
    );
    let (m, k) = (out.len() / n, b.len() / n);
    if m == 0 {
        return;
    }
    let (a_row, a_col) = a_strides;
    assert!(
        k == 0 || (m - 1) * a_row + (k - 1) * a_col < a.len(),
        "matmul: `a` too short"
    );
    assert!(bias.is_none_or(|c| c.len() >= n), "matmul: bias too short");
    then.check(out.len(), "matmul");
    #[cfg(target_arch = "x86_64")]
    match simd_level() {
        // SAFETY: the CPU has the features (checked by `simd_level`), and every index
        // the kernels read or write is within the slices (checked above).
        SimdLevel::Avx512 => {
            return unsafe { simd::matmul_avx512(out, a, a_strides, b, n, bias, then, cols) };
        }
        SimdLevel::Avx2 => {
            return unsafe { simd::matmul_avx2(out, a, a_strides, b, n, bias, then, cols) };
        }
        SimdLevel::Baseline => {}
    }
    matmul_generic(out, a, a_strides, b, n, bias, then, cols)
}

/// [`matmul`] in tiles of 4 rows by 16 columns, without intrinsics (LLVM vectorises it
/// where it can).
#[allow(clippy::too_many_arguments)]
fn matmul_generic(
    out: &mut [f32],
    a: &[f32],
    a_strides: (usize, usize),
    b: &[f32],
    n: usize,
    bias: Option<&[f32]>,
    then: Epilogue,
    cols: usize,
) {
    let m = out.len() / n;
    let whole = m - m % 4;
    for first in (0..m).step_by(4) {
        for c in (0..cols).step_by(16) {
            if first < whole {
                matmul_tile::<4, 16>(out, (first, c), a, a_strides, b, n, bias, then);
            } else {
                for row in first..m {
                    matmul_tile::<1, 16>(out, (row, c), a, a_strides, b, n, bias, then);
                }
            }
        }
    }
}

/// Columns `cols` of `aᵀ·b`, plus `bias` if given, then `then`, written transposed:
/// `out_t[j − cols.start][i] = Σ_p a[p][i]·b[p][j] (+ bias[j])` for `i < m`, `j` in `cols`
/// and `p < b.len() / n`, where `a[p][i]` is `a[p·a_stride + i]` (`m <= a_stride`), `b` is
/// `[p, n]` row-major and `out_t` is `cols.len()` rows of `m`. Each output is one fused
/// multiply-add chain over `p` in order, from zero, with the bias added last: [`matmul`]'s
/// order, so `out_t` is [`matmul`]'s output on `a` stored transposed, transposed.
///
/// It runs over `i`, 16 at a time, where [`matmul`] runs over `j`. [`matmul`] computes a
/// whole vector of 16 columns per output row, 8 and 5 times the work on the columns a layer
/// has past its last whole vector (a 50-wide layer's last 2, a 3-action head's 3); this
/// computes exactly `cols`, and its output, a layer's activations stored transposed, is
/// the `a` of the next layer's product. A [`Epilogue::ReluBackward`]'s activation is
/// laid out as `out_t`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn matmul_transposed(
    out_t: &mut [f32],
    m: usize,
    a: &[f32],
    a_stride: usize,
    b: &[f32],
    n: usize,
    cols: std::ops::Range<usize>,
    bias: Option<&[f32]>,
    then: Epilogue,
) {
    let k = b.len().checked_div(n).unwrap_or(0);
    assert!(
        n > 0
            && cols.end <= n
            && b.len().is_multiple_of(n)
            && out_t.len() == cols.len() * m
            && m <= a_stride
            && (k == 0 || m == 0 || (k - 1) * a_stride + m <= a.len())
            && bias.is_none_or(|z| z.len() >= cols.end),
        "matmul_transposed: columns {cols:?} of {n}, {} outputs of {m} rows, {} inputs \
         {a_stride} apart, {} weights",
        out_t.len(),
        a.len(),
        b.len()
    );
    then.check(out_t.len(), "matmul_transposed");
    if out_t.is_empty() {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    match simd_level() {
        // SAFETY: the CPU has the features (checked by `simd_level`), and every index
        // the kernels read or write is within the slices (checked above).
        SimdLevel::Avx512 => {
            return unsafe {
                simd::matmul_transposed_avx512(out_t, m, a, a_stride, b, n, cols, bias, then)
            };
        }
        SimdLevel::Avx2 => {
            return unsafe {
                simd::matmul_transposed_avx2(out_t, m, a, a_stride, b, n, cols, bias, then)
            };
        }
        SimdLevel::Baseline => {}
    }
    matmul_transposed_generic(out_t, m, a, a_stride, b, n, cols, bias, then)
}

/// [`matmul_transposed`] output by output, without intrinsics.
#[allow(clippy::too_many_arguments)]
fn matmul_transposed_generic(
    out_t: &mut [f32],
    m: usize,
    a: &[f32],
    a_stride: usize,
    b: &[f32],
    n: usize,
    cols: std::ops::Range<usize>,
    bias: Option<&[f32]>,
    then: Epilogue,
) {
    let k = b.len() / n;
    for (c, (row, j)) in out_t.chunks_exact_mut(m).zip(cols).enumerate() {
        for (i, o) in row.iter_mut().enumerate() {
            let chain = (0..k).fold(0.0f32, |s, p| a[p * a_stride + i].mul_add(b[p * n + j], s));
            *o = then.apply(c * m + i, bias.map_or(chain, |z| chain + z[j]));
        }
    }
}

/// The products ([`matmul`], [`matmul_transposed`], a one-row [`add_product`]) in
/// registers, with intrinsics: LLVM's vectoriser assembled the generic tile's vectors from
/// pieces, at half the speed, and took a row's last partial vector one float at a time.
#[cfg(target_arch = "x86_64")]
mod simd {
    use std::arch::x86_64::*;

    /// An [`super::Epilogue`] at a tile: a [`super::Epilogue::ReluBackward`]'s activation
    /// from the tile's first output on.
    #[derive(Clone, Copy)]
    pub(super) enum Post {
        Store,
        Relu,
        ReluBackward(*const f32),
    }

    /// Outputs `s`, `at` elements past the tile's first, after `post`; only the lanes of
    /// `lanes` are read from the activation.
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn finish_512(s: __m512, post: Post, at: usize, lanes: __mmask16) -> __m512 {
        let zero = _mm512_setzero_ps();
        match post {
            Post::Store => s,
            Post::Relu => _mm512_mask_mov_ps(s, _mm512_cmp_ps_mask::<_CMP_LT_OQ>(s, zero), zero),
            Post::ReluBackward(a) => {
                // SAFETY: the caller's tile is within the activation, laid out as the output.
                let a = unsafe { _mm512_maskz_loadu_ps(lanes, a.wrapping_add(at)) };
                _mm512_maskz_mov_ps(_mm512_cmp_ps_mask::<_CMP_GT_OQ>(a, zero), s)
            }
        }
    }

    /// As `finish_512`, 8 lanes; `lanes` has all bits set in the lanes read.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    unsafe fn finish_256(s: __m256, post: Post, at: usize, lanes: __m256i) -> __m256 {
        let zero = _mm256_setzero_ps();
        match post {
            Post::Store => s,
            Post::Relu => _mm256_blendv_ps(s, zero, _mm256_cmp_ps::<_CMP_LT_OQ>(s, zero)),
            Post::ReluBackward(a) => {
                // SAFETY: as in `finish_512`.
                let a = unsafe { _mm256_maskload_ps(a.wrapping_add(at), lanes) };
                _mm256_and_ps(s, _mm256_cmp_ps::<_CMP_GT_OQ>(a, zero))
            }
        }
    }

    /// [`super::add_product`] of one row at most 64 wide: `V` vectors of sums in
    /// registers, the last masked to the width.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn add_product_row_avx512(out: &mut [f32], input: &[f32], w: &[f32]) {
        // SAFETY: as `add_product` checks.
        unsafe {
            match out.len().div_ceil(16) {
                0 => {}
                1 => row_512::<1>(out, input, w),
                2 => row_512::<2>(out, input, w),
                3 => row_512::<3>(out, input, w),
                _ => row_512::<4>(out, input, w),
            }
        }
    }

    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn row_512<const V: usize>(out: &mut [f32], input: &[f32], w: &[f32]) {
        let width = out.len();
        let masks: [__mmask16; V] = std::array::from_fn(|v| {
            let left = (width - 16 * v).min(16);
            ((1u32 << left) - 1) as __mmask16
        });
        // Unmasked lanes are within `out` and within weight row `k` (`k·width + width <=
        // w.len()` for every input `k`).
        let row = |k: usize, v: usize| unsafe {
            _mm512_maskz_loadu_ps(masks[v], w.as_ptr().add(k * width + 16 * v))
        };
        let mut acc: [__m512; V] = std::array::from_fn(|v| unsafe {
            _mm512_maskz_loadu_ps(masks[v], out.as_ptr().add(16 * v))
        });
        let blocks = input.len() / 4;
        for block in 0..blocks {
            let k = block * 4;
            let x = &input[k..k + 4];
            if x == [0.0; 4] {
                continue;
            }
            let xs = [x[0], x[1], x[2], x[3]].map(|x| _mm512_set1_ps(x));
            for (v, acc) in acc.iter_mut().enumerate() {
                for (i, &x) in xs.iter().enumerate() {
                    *acc = _mm512_add_ps(*acc, _mm512_mul_ps(x, row(k + i, v)));
                }
            }
        }
        for (k, &x) in input.iter().enumerate().skip(blocks * 4) {
            if x != 0.0 {
                let x = _mm512_set1_ps(x);
                for (v, acc) in acc.iter_mut().enumerate() {
                    *acc = _mm512_add_ps(*acc, _mm512_mul_ps(x, row(k, v)));
                }
            }
        }
        for (v, &acc) in acc.iter().enumerate() {
            unsafe { _mm512_mask_storeu_ps(out.as_mut_ptr().add(16 * v), masks[v], acc) };
        }
    }

    /// Tiles of 8 rows by 32 columns (16 accumulators of the 32 registers), or by 48 where
    /// 48 columns are left (24 accumulators: a 50-wide layer's weight gradient, whose 48
    /// whole columns took 21% longer as 32 and then 16 on the Xeon), then 16 columns; a
    /// product 16 columns wide (the 3-action head's) in tiles of 16 rows, 16 chains where
    /// 8 rows kept 8 (10% faster). The rows left over go in tiles of 4, 2 and 1 (a tile of
    /// one row by 16 columns is one chain, which waits out the multiply-add's latency at
    /// every step: a 50-row weight gradient's last two rows took as long as eight).
    #[target_feature(enable = "avx512f")]
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn matmul_avx512(
        out: &mut [f32],
        a: &[f32],
        a_strides: (usize, usize),
        b: &[f32],
        n: usize,
        bias: Option<&[f32]>,
        then: super::Epilogue,
        cols: usize,
    ) {
        let m = out.len() / n;
        let k = b.len() / n;
        let mut first = 0;
        while first < m {
            let rows = match m - first {
                16.. if cols == 16 => 16,
                8.. => 8,
                4..=7 => 4,
                2..=3 => 2,
                _ => 1,
            };
            let mut c = 0;
            while c < cols {
                let vectors = match cols - c {
                    48 => 3,
                    32.. => 2,
                    _ => 1,
                };
                // SAFETY: rows `first..first + rows` and columns `c..` of a tile are within
                // `m` and `n`.
                unsafe {
                    let o = out.as_mut_ptr().add(first * n + c);
                    let x = a.as_ptr().add(first * a_strides.0);
                    let y = b.as_ptr().add(c);
                    let z = bias.map(|z| z.as_ptr().add(c));
                    let t = then.at(first * n + c);
                    match (rows, vectors) {
                        (16, _) => tile_512::<16, 1>(o, x, a_strides, y, n, k, z, t),
                        (8, 3) => tile_512::<8, 3>(o, x, a_strides, y, n, k, z, t),
                        (8, 2) => tile_512::<8, 2>(o, x, a_strides, y, n, k, z, t),
                        (8, _) => tile_512::<8, 1>(o, x, a_strides, y, n, k, z, t),
                        (4, 3) => tile_512::<4, 3>(o, x, a_strides, y, n, k, z, t),
                        (4, 2) => tile_512::<4, 2>(o, x, a_strides, y, n, k, z, t),
                        (4, _) => tile_512::<4, 1>(o, x, a_strides, y, n, k, z, t),
                        (2, 3) => tile_512::<2, 3>(o, x, a_strides, y, n, k, z, t),
                        (2, 2) => tile_512::<2, 2>(o, x, a_strides, y, n, k, z, t),
                        (2, _) => tile_512::<2, 1>(o, x, a_strides, y, n, k, z, t),
                        (_, 3) => tile_512::<1, 3>(o, x, a_strides, y, n, k, z, t),
                        (_, 2) => tile_512::<1, 2>(o, x, a_strides, y, n, k, z, t),
                        (_, _) => tile_512::<1, 1>(o, x, a_strides, y, n, k, z, t),
                    }
                }
                c += 16 * vectors;
            }
            first += rows;
        }
    }

    /// `R` rows by `V` registers of 16 columns; pointers at the tile's first element.
    #[target_feature(enable = "avx512f")]
    #[inline]
    #[allow(clippy::too_many_arguments)]
    unsafe fn tile_512<const R: usize, const V: usize>(
        out: *mut f32,
        a: *const f32,
        (a_row, a_col): (usize, usize),
        b: *const f32,
        n: usize,
        k: usize,
        bias: Option<*const f32>,
        then: Post,
    ) {
        let mut acc = [[_mm512_setzero_ps(); V]; R];
        let mut bp = [_mm512_setzero_ps(); V];
        for p in 0..k {
            for (v, bv) in bp.iter_mut().enumerate() {
                // SAFETY (this block and below): within the tile (see `matmul_avx512`).
                *bv = unsafe { _mm512_loadu_ps(b.add(p * n + 16 * v)) };
            }
            for (r, acc) in acc.iter_mut().enumerate() {
                let x = _mm512_set1_ps(unsafe { *a.add(r * a_row + p * a_col) });
                for (s, &y) in acc.iter_mut().zip(&bp) {
                    *s = _mm512_fmadd_ps(x, y, *s);
                }
            }
        }
        for (r, acc) in acc.iter().enumerate() {
            for (v, &s) in acc.iter().enumerate() {
                let s = match bias {
                    Some(z) => _mm512_add_ps(s, unsafe { _mm512_loadu_ps(z.add(16 * v)) }),
                    None => s,
                };
                let at = r * n + 16 * v;
                let s = unsafe { finish_512(s, then, at, !0) };
                unsafe { _mm512_storeu_ps(out.add(at), s) };
            }
        }
    }

    /// Tiles of 6 rows by 16 columns (12 accumulators of the 16 registers), then single
    /// rows.
    #[target_feature(enable = "avx2,fma")]
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn matmul_avx2(
        out: &mut [f32],
        a: &[f32],
        a_strides: (usize, usize),
        b: &[f32],
        n: usize,
        bias: Option<&[f32]>,
        then: super::Epilogue,
        cols: usize,
    ) {
        let m = out.len() / n;
        let k = b.len() / n;
        let whole = m - m % 6;
        let mut first = 0;
        while first < m {
            for c in (0..cols).step_by(16) {
                // SAFETY: rows `first..` and columns `c..` of a tile are within `m` and `n`.
                unsafe {
                    let o = out.as_mut_ptr().add(first * n + c);
                    let x = a.as_ptr().add(first * a_strides.0);
                    let y = b.as_ptr().add(c);
                    let z = bias.map(|z| z.as_ptr().add(c));
                    let t = then.at(first * n + c);
                    if first < whole {
                        tile_256::<6>(o, x, a_strides, y, n, k, z, t);
                    } else {
                        tile_256::<1>(o, x, a_strides, y, n, k, z, t);
                    }
                }
            }
            first += if first < whole { 6 } else { 1 };
        }
    }

    /// [`super::matmul_transposed`] in tiles of `V` vectors of 16 outputs (`i`) by `C`
    /// columns (`j`), each tile one pass over `p`. A tile keeps at least 8 chains in flight
    /// where it has the columns (4 by 6 over 128 rows, 2 by 6 over a batch of 32, 1 by 8),
    /// enough to hide the multiply-add's latency; 4 by 6 takes 4 loads and 6 broadcasts
    /// to 24 multiply-adds, and ran the target's 50-wide layer in 21% less time than 4 by 3
    /// on the Xeon.
    #[target_feature(enable = "avx512f")]
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn matmul_transposed_avx512(
        out_t: &mut [f32],
        m: usize,
        a: &[f32],
        a_stride: usize,
        b: &[f32],
        n: usize,
        cols: std::ops::Range<usize>,
        bias: Option<&[f32]>,
        then: super::Epilogue,
    ) {
        let then = then.at(0);
        let mut i = 0;
        while i < m {
            let (v, widest) = match m - i {
                49.. => (4, 6),
                17.. => (2, 6),
                _ => (1, 8),
            };
            let mut j = cols.start;
            while j < cols.end {
                let c = (cols.end - j).min(widest);
                let at = (i, j, j - cols.start);
                macro_rules! tiles {
                    ($($v:literal: $($c:literal)+;)+) => {
                        match (v, c) {
                            $($(
                                // SAFETY: the tile's outputs (`i..i + 16·v` clipped to `m`,
                                // columns `j..j + c`) and the inputs it reads are within
                                // the slices.
                                ($v, $c) => unsafe {
                                    transposed_512::<$v, $c>(
                                        out_t, m, a, a_stride, b, n, at, bias, then,
                                    )
                                },
                            )+)+
                            _ => unreachable!("a tile of {v} by {c}"),
                        }
                    };
                }
                tiles!(4: 1 2 3 4 5 6; 2: 1 2 3 4 5 6; 1: 1 2 3 4 5 6 7 8;);
                j += c;
            }
            i += 16 * v;
        }
    }

    /// Outputs `i..i + 16·V` (clipped to `m`) of columns `j..j + C`, which are rows
    /// `row..row + C` of `out_t`.
    #[target_feature(enable = "avx512f")]
    #[inline]
    #[allow(clippy::too_many_arguments)]
    unsafe fn transposed_512<const V: usize, const C: usize>(
        out_t: &mut [f32],
        m: usize,
        a: &[f32],
        a_stride: usize,
        b: &[f32],
        n: usize,
        (i, j, row): (usize, usize, usize),
        bias: Option<&[f32]>,
        then: Post,
    ) {
        let k = b.len() / n;
        // Lanes past `m` read and write nothing.
        let masks: [__mmask16; V] = std::array::from_fn(|v| {
            let left = m.saturating_sub(i + 16 * v).min(16);
            ((1u32 << left) - 1) as __mmask16
        });
        let mut acc = [[_mm512_setzero_ps(); V]; C];
        for p in 0..k {
            // SAFETY (this block and below): unmasked lanes are within `a`'s row `p` (`m <=
            // a_stride`), `j + C <= n`, and `out_t` has `m` outputs a row.
            let xs: [__m512; V] = std::array::from_fn(|v| unsafe {
                let at = a.as_ptr().wrapping_add(p * a_stride + i + 16 * v);
                _mm512_maskz_loadu_ps(masks[v], at)
            });
            for (c, acc) in acc.iter_mut().enumerate() {
                let y = _mm512_set1_ps(unsafe { *b.get_unchecked(p * n + j + c) });
                for (s, &x) in acc.iter_mut().zip(&xs) {
                    *s = _mm512_fmadd_ps(x, y, *s);
                }
            }
        }
        for (c, acc) in acc.iter().enumerate() {
            let z = bias.map(|z| _mm512_set1_ps(z[j + c]));
            for (v, &s) in acc.iter().enumerate() {
                let s = z.map_or(s, |z| _mm512_add_ps(s, z));
                let at = (row + c) * m + i + 16 * v;
                let s = unsafe { finish_512(s, then, at, masks[v]) };
                unsafe { _mm512_mask_storeu_ps(out_t.as_mut_ptr().wrapping_add(at), masks[v], s) };
            }
        }
    }

    /// [`super::matmul_transposed`] in tiles of `V` vectors of 8 outputs by `C` columns, 2
    /// by 4 or 1 by 8 (8 chains, at most 11 of the 16 registers) where it has the columns.
    #[target_feature(enable = "avx2,fma")]
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn matmul_transposed_avx2(
        out_t: &mut [f32],
        m: usize,
        a: &[f32],
        a_stride: usize,
        b: &[f32],
        n: usize,
        cols: std::ops::Range<usize>,
        bias: Option<&[f32]>,
        then: super::Epilogue,
    ) {
        let then = then.at(0);
        let mut i = 0;
        while i < m {
            let (v, widest) = if m - i > 8 { (2, 4) } else { (1, 8) };
            let mut j = cols.start;
            while j < cols.end {
                let c = (cols.end - j).min(widest);
                let at = (i, j, j - cols.start);
                macro_rules! tiles {
                    ($($v:literal: $($c:literal)+;)+) => {
                        match (v, c) {
                            $($(
                                // SAFETY: as in `matmul_transposed_avx512`.
                                ($v, $c) => unsafe {
                                    transposed_256::<$v, $c>(
                                        out_t, m, a, a_stride, b, n, at, bias, then,
                                    )
                                },
                            )+)+
                            _ => unreachable!("a tile of {v} by {c}"),
                        }
                    };
                }
                tiles!(2: 1 2 3 4; 1: 1 2 3 4 5 6 7 8;);
                j += c;
            }
            i += 8 * v;
        }
    }

    /// As `transposed_512`, 8 outputs a vector.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    #[allow(clippy::too_many_arguments)]
    unsafe fn transposed_256<const V: usize, const C: usize>(
        out_t: &mut [f32],
        m: usize,
        a: &[f32],
        a_stride: usize,
        b: &[f32],
        n: usize,
        (i, j, row): (usize, usize, usize),
        bias: Option<&[f32]>,
        then: Post,
    ) {
        let k = b.len() / n;
        let masks: [__m256i; V] = std::array::from_fn(|v| {
            let left = m.saturating_sub(i + 8 * v).min(8) as i32;
            let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            _mm256_cmpgt_epi32(_mm256_set1_epi32(left), lanes)
        });
        let mut acc = [[_mm256_setzero_ps(); V]; C];
        for p in 0..k {
            // SAFETY (this block and below): as in `transposed_512`.
            let xs: [__m256; V] = std::array::from_fn(|v| unsafe {
                let at = a.as_ptr().wrapping_add(p * a_stride + i + 8 * v);
                _mm256_maskload_ps(at, masks[v])
            });
            for (c, acc) in acc.iter_mut().enumerate() {
                let y = _mm256_set1_ps(unsafe { *b.get_unchecked(p * n + j + c) });
                for (s, &x) in acc.iter_mut().zip(&xs) {
                    *s = _mm256_fmadd_ps(x, y, *s);
                }
            }
        }
        for (c, acc) in acc.iter().enumerate() {
            let z = bias.map(|z| _mm256_set1_ps(z[j + c]));
            for (v, &s) in acc.iter().enumerate() {
                let s = z.map_or(s, |z| _mm256_add_ps(s, z));
                let at = (row + c) * m + i + 8 * v;
                let s = unsafe { finish_256(s, then, at, masks[v]) };
                unsafe { _mm256_maskstore_ps(out_t.as_mut_ptr().wrapping_add(at), masks[v], s) };
            }
        }
    }

    /// `R` rows by 16 columns (two registers); pointers at the tile's first element.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    #[allow(clippy::too_many_arguments)]
    unsafe fn tile_256<const R: usize>(
        out: *mut f32,
        a: *const f32,
        (a_row, a_col): (usize, usize),
        b: *const f32,
        n: usize,
        k: usize,
        bias: Option<*const f32>,
        then: Post,
    ) {
        let mut acc = [[_mm256_setzero_ps(); 2]; R];
        for p in 0..k {
            // SAFETY (this block and below): within the tile (see `matmul_avx2`).
            let bp = unsafe {
                [
                    _mm256_loadu_ps(b.add(p * n)),
                    _mm256_loadu_ps(b.add(p * n + 8)),
                ]
            };
            for (r, acc) in acc.iter_mut().enumerate() {
                let x = _mm256_set1_ps(unsafe { *a.add(r * a_row + p * a_col) });
                for (s, &y) in acc.iter_mut().zip(&bp) {
                    *s = _mm256_fmadd_ps(x, y, *s);
                }
            }
        }
        for (r, acc) in acc.iter().enumerate() {
            for (v, &s) in acc.iter().enumerate() {
                let s = match bias {
                    Some(z) => _mm256_add_ps(s, unsafe { _mm256_loadu_ps(z.add(8 * v)) }),
                    None => s,
                };
                let at = r * n + 8 * v;
                let s = unsafe { finish_256(s, then, at, _mm256_set1_epi32(-1)) };
                unsafe { _mm256_storeu_ps(out.add(at), s) };
            }
        }
    }
}

/// Rows `first..first + R` and columns `c..c + C` of [`matmul_generic`]'s `out`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn matmul_tile<const R: usize, const C: usize>(
    out: &mut [f32],
    (first, c): (usize, usize),
    a: &[f32],
    (a_row, a_col): (usize, usize),
    b: &[f32],
    n: usize,
    bias: Option<&[f32]>,
    then: Epilogue,
) {
    let k = b.len() / n;
    let mut acc = [[0.0f32; C]; R];
    for p in 0..k {
        let bp: &[f32; C] = b[p * n + c..][..C].try_into().expect("C floats");
        for (r, acc) in acc.iter_mut().enumerate() {
            let x = a[(first + r) * a_row + p * a_col];
            for (s, &y) in acc.iter_mut().zip(bp) {
                *s = x.mul_add(y, *s);
            }
        }
    }
    for (r, acc) in acc.iter().enumerate() {
        let at = (first + r) * n + c;
        for (j, (o, &s)) in out[at..][..C].iter_mut().zip(acc).enumerate() {
            let s = bias.map_or(s, |bias| s + bias[c + j]);
            *o = then.apply(at + j, s);
        }
    }
}

/// The first `out.len() / rows` columns of `w` (`rows` rows of `cols`, row-major) as
/// the rows of `out`: `out = wᵀ`, or its first rows.
pub(crate) fn transpose(w: &[f32], cols: usize, out: &mut [f32]) {
    let rows = w.len() / cols;
    let out_rows = out.len() / rows.max(1);
    assert!(out_rows <= cols, "transpose: {out_rows} columns of {cols}");
    let (mut done_cols, mut done_rows) = (0, 0);
    #[cfg(target_arch = "x86_64")]
    if simd_level() != SimdLevel::Baseline {
        // SAFETY: the CPU has AVX (checked by `simd_level`), and the blocks are within
        // `w` and `out` (whole blocks of 8 rows of `w`; columns of `w` that exist; rows
        // of `out` that exist).
        done_cols = unsafe { transpose_blocks_avx(w, cols, out, out_rows, rows / 8) };
        done_rows = rows / 8 * 8;
    }
    for j in 0..out_rows {
        let from = if j < done_cols { done_rows } else { 0 };
        for (k, o) in out[j * rows..][..rows].iter_mut().enumerate().skip(from) {
            *o = w[k * cols + j];
        }
    }
}

/// [`transpose`]'s first `out_rows` columns over its first `row_blocks · 8` rows, in
/// blocks of 8 by 8 in registers (a scalar transpose's strided reads were 4% of
/// bootstrapped DQN's step), and returns how many columns it did: all of them where `w`
/// has the columns up to the next multiple of 8, whose last block it reads whole and
/// stores in part (a 50-wide layer's columns 48 and 49 of 64), else the whole blocks.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn transpose_blocks_avx(
    w: &[f32],
    cols: usize,
    out: &mut [f32],
    out_rows: usize,
    row_blocks: usize,
) -> usize {
    use std::arch::x86_64::*;
    let rows = w.len() / cols;
    let col_blocks = if out_rows.next_multiple_of(8) <= cols {
        out_rows.div_ceil(8)
    } else {
        out_rows / 8
    };
    for jb in 0..col_blocks {
        let j = jb * 8;
        let keep = (out_rows - j).min(8);
        for k in (0..row_blocks * 8).step_by(8) {
            // SAFETY (this block): rows `k..k + 8` of `w` and of `out`'s block exist.
            unsafe {
                let r: [__m256; 8] =
                    std::array::from_fn(|i| _mm256_loadu_ps(w.as_ptr().add((k + i) * cols + j)));
                let t0 = _mm256_unpacklo_ps(r[0], r[1]);
                let t1 = _mm256_unpackhi_ps(r[0], r[1]);
                let t2 = _mm256_unpacklo_ps(r[2], r[3]);
                let t3 = _mm256_unpackhi_ps(r[2], r[3]);
                let t4 = _mm256_unpacklo_ps(r[4], r[5]);
                let t5 = _mm256_unpackhi_ps(r[4], r[5]);
                let t6 = _mm256_unpacklo_ps(r[6], r[7]);
                let t7 = _mm256_unpackhi_ps(r[6], r[7]);
                let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
                let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
                let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
                let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
                let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
                let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
                let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
                let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
                let c = [
                    _mm256_permute2f128_ps::<0x20>(u0, u4),
                    _mm256_permute2f128_ps::<0x20>(u1, u5),
                    _mm256_permute2f128_ps::<0x20>(u2, u6),
                    _mm256_permute2f128_ps::<0x20>(u3, u7),
                    _mm256_permute2f128_ps::<0x31>(u0, u4),
                    _mm256_permute2f128_ps::<0x31>(u1, u5),
                    _mm256_permute2f128_ps::<0x31>(u2, u6),
                    _mm256_permute2f128_ps::<0x31>(u3, u7),
                ];
                for (i, c) in c.into_iter().enumerate().take(keep) {
                    _mm256_storeu_ps(out.as_mut_ptr().add((j + i) * rows + k), c);
                }
            }
        }
    }
    (col_blocks * 8).min(out_rows)
}

kernel! {
    /// `out += Σ_k x_k · w[k]` over every input in order (`w` row-major, rows as wide as
    /// `out`), each product rounded before its addition: LibTorch's order for a product
    /// of one row. Unlike [`add_dense_rows`] it does not skip zero inputs, so it gives
    /// LibTorch's bits even where a sum is `-0.0`.
    pub(crate) fn add_rows(out: &mut [f32], x: &[f32], w: &[f32]) {
        let width = out.len();
        for (k, &x) in x.iter().enumerate() {
            for (o, &wk) in out.iter_mut().zip(&w[k * width..][..width]) {
                *o += x * wk;
            }
        }
    }
}

/// Lanes of [`dot`]'s partial sums: two AVX2 registers, one AVX-512 register.
const DOT_LANES: usize = 16;

/// `delta_in[r][k] = w[k] · delta[r]` for every row: the input gradient of [`add_product`]
/// (`delta_in` is `[rows, in]`), each a [`dot`].
pub(crate) fn backprop_input(delta_in: &mut [f32], delta: &[f32], w: &[f32], width: usize) {
    #[cfg(target_arch = "x86_64")]
    match simd_level() {
        // SAFETY: the CPU has the features (checked by `simd_level`).
        SimdLevel::Avx512 => return unsafe { backprop_input_avx512(delta_in, delta, w, width) },
        SimdLevel::Avx2 => return unsafe { backprop_input_avx2(delta_in, delta, w, width) },
        SimdLevel::Baseline => {}
    }
    backprop_input_generic(delta_in, delta, w, width)
}

/// [`backprop_input`] dot by dot, without intrinsics.
fn backprop_input_generic(delta_in: &mut [f32], delta: &[f32], w: &[f32], width: usize) {
    let rows = delta.len() / width;
    let fan_in = delta_in.len() / rows.max(1);
    for k in 0..fan_in {
        let wk = &w[k * width..][..width];
        for r in 0..rows {
            delta_in[r * fan_in + k] = dot(wk, &delta[r * width..][..width]);
        }
    }
}

/// [`backprop_input`] on AVX2, weight rows four at a time against each row of `delta`: the
/// four dots are independent chains of additions, so they overlap where a lone dot waits on
/// each addition. Each is [`dot`] to the bit: two 8-lane registers hold its 16 partial sums,
/// with a multiply and an add, each rounded, per element.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn backprop_input_avx2(delta_in: &mut [f32], delta: &[f32], w: &[f32], width: usize) {
    use std::arch::x86_64::*;
    let rows = delta.len() / width;
    let fan_in = delta_in.len() / rows.max(1);
    assert!(w.len() >= fan_in * width && delta_in.len() >= rows * fan_in);
    let whole = width / DOT_LANES * DOT_LANES;
    let mut k = 0;
    while k < fan_in {
        let n = (fan_in - k).min(4);
        // Short blocks repeat their last row; only the first `n` results are kept.
        let wk: [&[f32]; 4] = [0, 1, 2, 3].map(|j| &w[(k + j.min(n - 1)) * width..][..width]);
        for r in 0..rows {
            let d = &delta[r * width..][..width];
            let mut lo = [_mm256_setzero_ps(); 4];
            let mut hi = [_mm256_setzero_ps(); 4];
            let mut i = 0;
            while i < whole {
                // SAFETY: `i + 16 <= width`, within `d` and every `wk[j]`.
                unsafe {
                    let d_lo = _mm256_loadu_ps(d.as_ptr().add(i));
                    let d_hi = _mm256_loadu_ps(d.as_ptr().add(i + 8));
                    for j in 0..4 {
                        let p = wk[j].as_ptr().add(i);
                        lo[j] = _mm256_add_ps(lo[j], _mm256_mul_ps(_mm256_loadu_ps(p), d_lo));
                        hi[j] =
                            _mm256_add_ps(hi[j], _mm256_mul_ps(_mm256_loadu_ps(p.add(8)), d_hi));
                    }
                }
                i += DOT_LANES;
            }
            for j in 0..n {
                let mut acc = [0.0f32; DOT_LANES];
                // SAFETY: `acc` has room for two 8-float stores.
                unsafe {
                    _mm256_storeu_ps(acc.as_mut_ptr(), lo[j]);
                    _mm256_storeu_ps(acc.as_mut_ptr().add(8), hi[j]);
                }
                delta_in[r * fan_in + k + j] = finish_dot(acc, &wk[j][whole..], &d[whole..]);
            }
        }
        k += n;
    }
}

/// [`backprop_input`] on AVX-512: as on AVX2, but eight weight rows at a time, and each
/// dot's 16 partial sums in one register, so one load of `delta` serves eight chains.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn backprop_input_avx512(delta_in: &mut [f32], delta: &[f32], w: &[f32], width: usize) {
    use std::arch::x86_64::*;
    const BLOCK: usize = 8;
    let rows = delta.len() / width;
    let fan_in = delta_in.len() / rows.max(1);
    assert!(w.len() >= fan_in * width && delta_in.len() >= rows * fan_in);
    let whole = width / DOT_LANES * DOT_LANES;
    let mut k = 0;
    while k < fan_in {
        let n = (fan_in - k).min(BLOCK);
        // Short blocks repeat their last row; only the first `n` results are kept.
        let wk: [&[f32]; BLOCK] =
            std::array::from_fn(|j| &w[(k + j.min(n - 1)) * width..][..width]);
        for r in 0..rows {
            let d = &delta[r * width..][..width];
            let mut acc = [_mm512_setzero_ps(); BLOCK];
            let mut i = 0;
            while i < whole {
                // SAFETY: `i + 16 <= width`, within `d` and every `wk[j]`.
                unsafe {
                    let dv = _mm512_loadu_ps(d.as_ptr().add(i));
                    for (acc, wk) in acc.iter_mut().zip(&wk) {
                        let product = _mm512_mul_ps(_mm512_loadu_ps(wk.as_ptr().add(i)), dv);
                        *acc = _mm512_add_ps(*acc, product);
                    }
                }
                i += DOT_LANES;
            }
            for j in 0..n {
                let mut lanes = [0.0f32; DOT_LANES];
                // SAFETY: `lanes` has room for one 16-float store.
                unsafe { _mm512_storeu_ps(lanes.as_mut_ptr(), acc[j]) };
                delta_in[r * fan_in + k + j] = finish_dot(lanes, &wk[j][whole..], &d[whole..]);
            }
        }
        k += n;
    }
}

/// `Σ_i a[i]·b[i]` in a fixed order: element `i` goes to partial sum `i mod 16`, and the
/// 16 partial sums are added pairwise (lane `l` takes lane `l + 8`, then `l + 4`, ...). The
/// order is written out, so every instruction set gives the same bits.
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let mut acc = [0.0f32; DOT_LANES];
    let (a_chunks, b_chunks) = (
        a[..n].chunks_exact(DOT_LANES),
        b[..n].chunks_exact(DOT_LANES),
    );
    let (a_rest, b_rest) = (a_chunks.remainder(), b_chunks.remainder());
    for (x, y) in a_chunks.zip(b_chunks) {
        for l in 0..DOT_LANES {
            acc[l] += x[l] * y[l];
        }
    }
    finish_dot(acc, a_rest, b_rest)
}

/// The remainder and the pairwise reduction of [`dot`].
#[inline(always)]
fn finish_dot(mut acc: [f32; DOT_LANES], a_rest: &[f32], b_rest: &[f32]) -> f32 {
    for (l, (x, y)) in a_rest.iter().zip(b_rest).enumerate() {
        acc[l] += x * y;
    }
    let mut width = DOT_LANES;
    while width > 1 {
        width /= 2;
        for l in 0..width {
            acc[l] += acc[l + width];
        }
    }
    acc[0]
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
    fn sparse_layers_equal_the_dense_layer_member_by_member() {
        // Two members 19 wide (a width the register rows do not take) side by side in one
        // matrix, 4 inputs of which 2 are zero.
        let (members, width, inputs) = (2, 19, 4);
        let row = members * width;
        let w: Vec<f32> = (0..inputs * row).map(|i| (i as f32 * 0.37).sin()).collect();
        let b: Vec<f32> = (0..row).map(|i| (i as f32 * 0.11).cos() - 0.5).collect();
        let input = [0.0, 2.0, 0.0, -1.5];
        let entries = [(1, 2.0), (3, -1.5)];
        for m in 0..members {
            let mut out = vec![f32::NAN; width];
            let bias = &b[m * width..][..width];
            sparse_relu_layer(&mut out, bias, &[&entries], &w[m * width..], row);
            let member_w: Vec<f32> = (0..inputs)
                .flat_map(|k| w[k * row + m * width..][..width].to_vec())
                .collect();
            let mut dense = bias.to_vec();
            add_dense_rows(&mut dense, &input, &member_w);
            relu(&mut dense);
            assert_eq!(out, dense, "member {m}");
            assert!(dense.iter().any(|&x| x > 0.0) && dense.contains(&0.0));
            let j = 17; // in the tail
            let by_hand = bias[j] + 2.0 * w[row + m * width + j] - 1.5 * w[3 * row + m * width + j];
            assert_eq!(out[j], by_hand.max(0.0));
        }

        // Member 1's gradient, twice for input 3: member 0's block and the zero inputs'
        // rows stay untouched.
        let delta: Vec<f32> = (0..width).map(|i| i as f32 * 0.25 - 3.0).collect();
        let mut g = vec![0.0f32; inputs * row];
        let twice = [&entries[..], &entries[1..]];
        let deltas = [&delta[..], &delta[..]].concat();
        let mut grouped = EntriesByInput::default();
        grouped.group(&twice);
        scatter_sparse_layer(&mut g[width..], row, &grouped, &deltas, width);
        for (k, &x) in input.iter().enumerate() {
            for j in 0..width {
                let once = x * delta[j];
                let expect = if k == 3 { once + once } else { once };
                assert_eq!(g[k * row + width + j], expect, "g[{k}], {j}");
                assert_eq!(g[k * row + j].to_bits(), 0, "member 0 got a gradient");
            }
        }
        assert!(g[..row]
            .iter()
            .chain(&g[2 * row..3 * row])
            .all(|x| x.to_bits() == 0));
    }

    /// The gradient of a batch, input by input in registers, adds each input's terms in
    /// the rows' order, as adding row by row into memory does, bit for bit: at the widths
    /// summed in registers and one that is not, with inputs that rows share, skip or take
    /// alone, an empty row, and a grouping reused for a smaller batch.
    #[test]
    fn the_sparse_gradient_adds_rows_in_order_at_every_width() {
        let batches: [&[&[Entry]]; 2] = [
            &[
                &[(0, 1.0), (5, -2.0)],
                &[],
                &[(0, 0.5), (3, 1.5), (5, -1.0)],
                &[(0, -0.25), (2, 3.0), (5, 0.125)],
            ],
            &[&[(1, 0.75)], &[(0, -1.25), (1, 2.5)]],
        ];
        let mut grouped = EntriesByInput::default();
        for width in [16, 32, 48, 64, 19] {
            let stride = 2 * width;
            for rows in batches {
                let deltas: Vec<f32> = (0..rows.len() * width)
                    .map(|i| (i as f32 * 0.29).sin())
                    .collect();
                let start: Vec<f32> = (0..6 * stride).map(|i| (i as f32 * 0.13).cos()).collect();
                let mut g = start.clone();
                grouped.group(rows);
                scatter_sparse_layer(&mut g[width..], stride, &grouped, &deltas, width);
                let mut by_row = start;
                for (r, entries) in rows.iter().enumerate() {
                    for &(k, x) in *entries {
                        for j in 0..width {
                            by_row[k as usize * stride + width + j] += x * deltas[r * width + j];
                        }
                    }
                }
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(
                    bits(&g),
                    bits(&by_row),
                    "width {width}, {} rows",
                    rows.len()
                );
            }
        }
    }

    /// A batch of rows through [`sparse_relu_layer`], at the widths summed in registers
    /// and at one that is not, equals each row's dense layer, row by row (an empty input
    /// gives `relu(b)`), rows that share their inputs and rows that do not.
    #[test]
    fn sparse_layer_rows_equal_the_dense_layer_at_every_width() {
        let inputs = 6;
        for width in [16, 32, 48, 64, 19] {
            let stride = 3 * width;
            let w: Vec<f32> = (0..inputs * stride)
                .map(|i| (i as f32 * 0.23).sin())
                .collect();
            let b: Vec<f32> = (0..width).map(|i| (i as f32 * 0.31).cos() - 0.4).collect();
            let rows: [&[Entry]; 12] = [
                &[(0, 1.0), (5, -2.0)],
                &[(0, 0.5), (5, 3.0)],
                &[(0, -1.0), (5, 0.25)],
                &[(0, 2.0), (5, -0.5)],
                &[],
                &[(2, 0.5), (3, 1.5), (4, -1.0)],
                &[(2, -0.5), (3, 0.5), (4, 1.0)],
                &[(2, 1.25), (3, -1.5), (4, 0.75)],
                &[(1, 1.0)],
                &[(1, -2.0), (2, 1.0)],
                &[(1, 0.5), (2, -1.0)],
                &[(1, 3.0)],
            ];
            let mut out = vec![f32::NAN; rows.len() * width];
            sparse_relu_layer(&mut out, &b, &rows, &w[width..], stride);
            let member_w: Vec<f32> = (0..inputs)
                .flat_map(|k| w[k * stride + width..][..width].to_vec())
                .collect();
            for (r, entries) in rows.iter().enumerate() {
                let mut dense_input = vec![0.0f32; inputs];
                for &(k, x) in *entries {
                    dense_input[k as usize] = x;
                }
                let mut dense = b.clone();
                add_dense_rows(&mut dense, &dense_input, &member_w);
                relu(&mut dense);
                assert_eq!(
                    out[r * width..][..width],
                    dense[..],
                    "width {width}, row {r}"
                );
            }
        }
    }

    /// Column sums in registers add each column's rows in order, as a running sum stored
    /// at every row does, bit for bit, for widths of whole blocks and with tails.
    #[test]
    fn column_sums_add_rows_in_order() {
        for width in [0, 3, 16, 20, 64, 80, 100] {
            let rows = 37;
            let data: Vec<f32> = (0..rows * width)
                .map(|i| ((i * 7919) % 1013) as f32 * 1e-3 - 0.4)
                .collect();
            let start: Vec<f32> = (0..width).map(|j| j as f32 * 0.1).collect();
            let mut sums = start.clone();
            add_column_sums(&mut sums, &data);
            let mut plain = start;
            for row in data
                .chunks_exact(width.max(1))
                .take(if width == 0 { 0 } else { rows })
            {
                for (s, &x) in plain.iter_mut().zip(row) {
                    *s += x;
                }
            }
            assert_eq!(sums, plain, "width {width}");
        }
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
    fn weight_gradients_sum_rows_in_blocks_of_four_in_order() {
        // Five inputs (two pairs and one alone), ten rows (two blocks of four and two more),
        // with blocks of zero inputs for one input of a pair, for both, and for the lone one.
        let (fan_in, rows, width) = (5, 10, 37);
        let mut rng = bsuite_envs::RandomState::new(3);
        let mut input: Vec<f32> = (0..rows * fan_in).map(|_| rng.randn() as f32).collect();
        for (r, k) in [
            (0, 1),
            (1, 1),
            (2, 1),
            (3, 1),
            (4, 2),
            (5, 2),
            (6, 2),
            (7, 2),
        ] {
            input[r * fan_in + k] = 0.0;
        }
        for r in 4..8 {
            input[r * fan_in + 3] = 0.0;
            input[r * fan_in + 4] = 0.0;
        }
        let delta: Vec<f32> = (0..rows * width).map(|_| rng.randn() as f32).collect();
        let g0: Vec<f32> = (0..fan_in * width).map(|_| rng.randn() as f32).collect();
        let mut g = g0.clone();
        add_weight_grad(&mut g, &input, &delta, width);
        for k in 0..fan_in {
            for j in 0..width {
                let (x, d) = (
                    |r: usize| input[r * fan_in + k],
                    |r: usize| delta[r * width + j],
                );
                let mut expect = g0[k * width + j];
                for r in [0, 4] {
                    if (r..r + 4).any(|r| x(r) != 0.0) {
                        expect = expect
                            + x(r) * d(r)
                            + x(r + 1) * d(r + 1)
                            + x(r + 2) * d(r + 2)
                            + x(r + 3) * d(r + 3);
                    }
                }
                for r in (8..10).filter(|&r| x(r) != 0.0) {
                    expect += x(r) * d(r);
                }
                assert_eq!(g[k * width + j].to_bits(), expect.to_bits(), "g[{k}][{j}]");
            }
        }
    }

    #[test]
    fn backprop_input_is_dot_by_dot_on_every_instruction_set() {
        let mut rng = bsuite_envs::RandomState::new(8);
        type BackpropInput = fn(&mut [f32], &[f32], &[f32], usize);
        let mut kernels: Vec<(&str, BackpropInput)> = vec![
            ("dispatched", backprop_input),
            ("generic", backprop_input_generic),
        ];
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx2") {
                // SAFETY: the CPU has AVX2.
                kernels.push(("avx2", |i, d, w, n| unsafe {
                    backprop_input_avx2(i, d, w, n)
                }));
            }
            if has!("avx512f") {
                // SAFETY: the CPU has AVX-512.
                kernels.push(("avx512", |i, d, w, n| unsafe {
                    backprop_input_avx512(i, d, w, n)
                }));
            }
        }
        // Eleven inputs: whole blocks of weight rows and a short one on every instruction
        // set; three rows of deltas.
        let (fan_in, rows) = (11, 3);
        for ((name, kernel), width) in kernels
            .into_iter()
            .flat_map(|k| [3, 16, 37, 1024].map(|width| (k, width)))
        {
            let w: Vec<f32> = (0..fan_in * width).map(|_| rng.randn() as f32).collect();
            let delta: Vec<f32> = (0..rows * width).map(|_| rng.randn() as f32).collect();
            let mut delta_in = vec![f32::NAN; rows * fan_in];
            kernel(&mut delta_in, &delta, &w, width);
            for r in 0..rows {
                for k in 0..fan_in {
                    let (wk, d) = (&w[k * width..][..width], &delta[r * width..][..width]);
                    let plain = dot(wk, d);
                    let got = delta_in[r * fan_in + k];
                    assert_eq!(
                        got.to_bits(),
                        plain.to_bits(),
                        "{name}, width {width}, [{r}][{k}]"
                    );
                    let exact: f64 = wk
                        .iter()
                        .zip(d)
                        .map(|(x, y)| f64::from(*x) * f64::from(*y))
                        .sum();
                    assert!((f64::from(plain) - exact).abs() < 1e-4 * (1.0 + exact.abs()));
                }
            }
        }
    }

    #[test]
    fn add_product_gives_a_row_alone_the_bits_it_has_among_others() {
        // Widths with and without a whole 16, and past the one-row path's 64; inputs with
        // blocks of four zeros (skipped), lone zeros and -0.0 (added), and a last partial
        // block; sums that start at -0.0, where adding a zero product is not a no-op.
        let mut rng = bsuite_envs::RandomState::new(31);
        let fan_in = 39;
        for width in [3, 16, 21, 48, 50, 64, 70] {
            let mut x = relu_outputs(&mut rng, 3 * fan_in);
            for k in [4, 5, 6, 7, 20, 21, 22, 23, 37] {
                x[fan_in + k] = if k == 21 { -0.0 } else { 0.0 };
            }
            let w: Vec<f32> = (0..fan_in * width).map(|_| rng.randn() as f32).collect();
            let start: Vec<f32> = (0..3 * width)
                .map(|i| if i % 5 == 0 { -0.0 } else { rng.randn() as f32 })
                .collect();
            let mut rows = start.clone();
            add_product(&mut rows, &x, &w, width);
            let mut alone = start[width..2 * width].to_vec();
            add_product(&mut alone, &x[fan_in..2 * fan_in], &w, width);
            for (j, (a, r)) in alone.iter().zip(&rows[width..2 * width]).enumerate() {
                assert_eq!(a.to_bits(), r.to_bits(), "width {width}, column {j}");
            }
        }
    }

    #[test]
    fn matmul_is_one_fused_chain_per_output_then_the_bias_then_the_epilogue() {
        // On every instruction set: 13 and 15 rows, whole tiles and every size of tile for
        // the rows left over, by 48 columns (three vectors) and 64 (two and two); 37 rows
        // of 16 columns, in tiles of 16 rows and the rest.
        for (m, n) in [(13, 48), (15, 48), (13, 64), (37, 16)] {
            matmul_matches_its_chains(m, n);
        }
    }

    /// `len` normal draws of which about a third are zero, as a ReLU's outputs are.
    fn relu_outputs(rng: &mut bsuite_envs::RandomState, len: usize) -> Vec<f32> {
        (0..len)
            .map(|_| {
                if rng.rand() < 0.33 {
                    0.0
                } else {
                    rng.randn() as f32
                }
            })
            .collect()
    }

    fn matmul_matches_its_chains(m: usize, n: usize) {
        let mut rng = bsuite_envs::RandomState::new(11);
        let k = 37;
        let a = relu_outputs(&mut rng, m * k);
        let b: Vec<f32> = (0..k * n).map(|_| rng.randn() as f32).collect();
        let bias: Vec<f32> = (0..n).map(|_| rng.randn() as f32).collect();
        let mut a_t = vec![0.0f32; k * m];
        transpose(&a, k, &mut a_t);
        // Zeros, -0.0 and NaN among the activations a ReLU's backward reads.
        let mut activation = relu_outputs(&mut rng, m * n);
        activation[1] = -0.0;
        activation[2] = f32::NAN;
        type Matmul =
            fn(&mut [f32], &[f32], (usize, usize), &[f32], usize, Option<&[f32]>, Epilogue);
        let mut kernels: Vec<(&str, Matmul)> = vec![
            ("dispatched", matmul),
            ("generic", |o, a, s, b, n, c, t| {
                matmul_generic(o, a, s, b, n, c, t, n)
            }),
        ];
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx2") && has!("fma") {
                // SAFETY: the CPU has AVX2 and FMA, and the slices are as `matmul` checks.
                kernels.push(("avx2", |o, a, s, b, n, c, t| unsafe {
                    simd::matmul_avx2(o, a, s, b, n, c, t, n)
                }));
            }
            if has!("avx512f") {
                // SAFETY: as above, with AVX-512.
                kernels.push(("avx512", |o, a, s, b, n, c, t| unsafe {
                    simd::matmul_avx512(o, a, s, b, n, c, t, n)
                }));
            }
        }
        let epilogues = [
            Epilogue::Store,
            Epilogue::Relu,
            Epilogue::ReluBackward(&activation),
        ];
        for (name, kernel) in kernels {
            for (stored, strides, add) in [(&a, (k, 1), Some(&bias[..])), (&a_t, (1, m), None)] {
                for then in epilogues {
                    let mut out = vec![f32::NAN; m * n];
                    kernel(&mut out, stored, strides, &b, n, add, then);
                    // The epilogue is the kernels that run it apart.
                    let mut expect = vec![0.0f32; m * n];
                    for i in 0..m {
                        for j in 0..n {
                            let chain =
                                (0..k).fold(0.0f32, |s, p| a[i * k + p].mul_add(b[p * n + j], s));
                            expect[i * n + j] = add.map_or(chain, |c| chain + c[j]);
                        }
                    }
                    match then {
                        Epilogue::Store => {}
                        Epilogue::Relu => relu(&mut expect),
                        Epilogue::ReluBackward(x) => relu_backward(&mut expect, x),
                    }
                    for (at, (got, want)) in out.iter().zip(&expect).enumerate() {
                        let (i, j) = (at / n, at % n);
                        assert_eq!(got.to_bits(), want.to_bits(), "{name} {then:?} [{i}][{j}]");
                    }
                }
            }
        }
    }

    #[test]
    fn matmul_transposed_is_matmuls_chains_on_every_instruction_set() {
        // As the stacked layers use it: a 50-wide layer's last 2 weight-gradient columns of
        // 64 and a head's 3 of 16 (50 and 64 outputs `i`, inputs 64 apart); a target
        // network's layer of 50 and head of 3 over 128 and 61 rows, and DQN's 64-wide
        // layer over its batch of 32, with the bias. Then outputs that end inside a vector
        // of either width (37, 13 and 9), and 64 rows in tiles of every width (10 and 11
        // columns: 6 and 4, 6 and 5).
        let mut rng = bsuite_envs::RandomState::new(23);
        for (m, a_stride, k, n, cols, biased) in [
            (50, 64, 13, 64, 48..50, false),
            (64, 64, 13, 16, 0..3, false),
            (50, 64, 13, 16, 0..3, false),
            (128, 128, 50, 64, 0..50, true),
            (61, 64, 50, 16, 0..3, true),
            (32, 32, 64, 64, 0..64, true),
            (37, 37, 13, 16, 1..6, true),
            (13, 16, 7, 16, 2..9, false),
            (9, 9, 4, 16, 0..16, true),
            (64, 64, 9, 16, 0..10, true),
            (64, 64, 9, 16, 3..14, false),
        ] {
            let a = relu_outputs(&mut rng, k * a_stride);
            let b: Vec<f32> = (0..k * n).map(|_| rng.randn() as f32).collect();
            let bias: Vec<f32> = (0..n).map(|_| rng.randn() as f32).collect();
            let bias = biased.then_some(&bias[..]);
            type Kernel = fn(
                &mut [f32],
                usize,
                &[f32],
                usize,
                &[f32],
                usize,
                std::ops::Range<usize>,
                Option<&[f32]>,
                Epilogue,
            );
            let mut kernels: Vec<(&str, Kernel)> = vec![
                ("dispatched", matmul_transposed),
                ("generic", matmul_transposed_generic),
            ];
            #[cfg(target_arch = "x86_64")]
            {
                use std::arch::is_x86_feature_detected as has;
                if has!("avx2") && has!("fma") {
                    // SAFETY: the CPU has AVX2 and FMA, and the slices are as
                    // `matmul_transposed` checks.
                    kernels.push(("avx2", |o, m, a, s, b, n, c, z, t| unsafe {
                        simd::matmul_transposed_avx2(o, m, a, s, b, n, c, z, t)
                    }));
                }
                if has!("avx512f") {
                    // SAFETY: as above, with AVX-512.
                    kernels.push(("avx512", |o, m, a, s, b, n, c, z, t| unsafe {
                        simd::matmul_transposed_avx512(o, m, a, s, b, n, c, z, t)
                    }));
                }
            }
            // `matmul` on `a` stored transposed: `out[i][j] = Σ_p a[p][i]·b[p][j]`.
            let mut full = vec![0.0f32; m * n];
            matmul(&mut full, &a, (1, a_stride), &b, n, bias, Epilogue::Store);
            // The ReLU's activations, laid out as `out_t`.
            let activation = relu_outputs(&mut rng, cols.len() * m);
            let epilogues = [
                Epilogue::Store,
                Epilogue::Relu,
                Epilogue::ReluBackward(&activation),
            ];
            for (name, kernel) in &kernels {
                for then in epilogues {
                    // A row of `out_t` past the columns, which must stay as it is.
                    let mut out_t = vec![f32::NAN; (cols.len() + 1) * m];
                    let (ours, after) = out_t.split_at_mut(cols.len() * m);
                    kernel(ours, m, &a, a_stride, &b, n, cols.clone(), bias, then);
                    assert!(
                        after.iter().all(|x| x.is_nan()),
                        "{name} wrote past its outputs"
                    );
                    for (c, j) in cols.clone().enumerate() {
                        for i in 0..m {
                            let at = c * m + i;
                            let want = then.apply(at, full[i * n + j]);
                            let got = out_t[at];
                            assert_eq!(got.to_bits(), want.to_bits(), "{name} {m}x{n} [{i}][{j}]");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn transpose_writes_the_first_columns_as_rows() {
        // w is 2 × 3: [[0, 1, 2], [3, 4, 5]]; its first two columns become two rows.
        let w = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
        let mut out = [f32::NAN; 4];
        transpose(&w, 3, &mut out);
        assert_eq!(out, [0.0, 3.0, 1.0, 4.0]);
        // Blocks of 8 by 8 and the columns and rows after them, as the stacked layers use
        // it (weights 64 or 16 rows long, a member's activations 128 or 61); a last block
        // of columns stored in part, and (20 columns) one that `w` is too narrow for.
        for (rows, cols, out_rows) in [
            (64, 64, 50),
            (16, 16, 3),
            (8, 32, 17),
            (64, 16, 16),
            (128, 64, 50),
            (61, 64, 50),
            (13, 16, 9),
            (5, 16, 16),
            (16, 20, 19),
        ] {
            let w: Vec<f32> = (0..rows * cols).map(|i| i as f32).collect();
            let mut out = vec![f32::NAN; out_rows * rows];
            transpose(&w, cols, &mut out);
            for j in 0..out_rows {
                for k in 0..rows {
                    assert_eq!(
                        out[j * rows + k],
                        w[k * cols + j],
                        "{rows}x{cols}: ({j}, {k})"
                    );
                }
            }
        }
    }

    #[test]
    fn add_rows_rounds_each_product_and_keeps_zero_inputs() {
        let (k, width) = (5, 19);
        let w: Vec<f32> = (0..k * width).map(|i| (i as f32 * 0.29).sin()).collect();
        let x = [0.5, 0.0, -1.25, 0.0, 2.0];
        let mut out = vec![-0.0f32; width];
        add_rows(&mut out, &x, &w);
        for j in 0..width {
            let expect = (0..k).fold(-0.0f32, |o, p| o + x[p] * w[p * width + j]);
            assert_eq!(out[j].to_bits(), expect.to_bits(), "[{j}]");
        }
        // LibTorch adds a zero input's product too, and `-0.0 + 0·w` is `+0.0`.
        let mut zero = [-0.0f32; 3];
        add_rows(&mut zero, &[0.0], &[1.0, 2.0, 3.0]);
        assert_eq!(zero.map(f32::to_bits), [0.0f32.to_bits(); 3]);
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
