//! Probes of this CPU's rates for the bench's hardware floors: the host kernels run over
//! fixed inputs (a matrix product, Adam's steps, a sum over a buffer), for a bench to time.

use super::dispatch::kernel;
use super::matmul::{matmul, Epilogue};
use super::optimisers::{apply, OptStep};
use crate::config::Optimizer;

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
        let step = OptStep::new(Optimizer::Adam, 1e-3, t);
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
