//! The host-side kernels of the lockstep agents, a module for each kind: the products of
//! the stacked layers (`matmul`) and of the host networks' layers row by row (`linear`),
//! the sparse first layer (`sparse`), activations (`activations`), column sums (`sums`),
//! the optimisers (`optimisers`), and the networks built from them (`dense`); `dispatch`
//! picks each kernel's instruction set, and `probes` time this CPU's rates for the bench.
//!
//! Every kernel is a plain loop in a fixed order. Rust never fuses a multiply and an add
//! into one rounding unless told to (`mul_add`, which is one rounding everywhere), so a
//! kernel gives the same bits whatever SIMD width the CPU offers; the wide versions are
//! only faster. That is what makes a replica's results independent of which other
//! replicas share its batch.

pub(crate) mod activations;
pub(crate) mod dense;
pub(crate) mod dispatch;
pub(crate) mod linear;
pub(crate) mod matmul;
pub(crate) mod optimisers;
mod probes;
pub(crate) mod sparse;
pub(crate) mod sums;

use bsuite_envs::{ActionSpec, ObservationSpec, RandomState};

pub use probes::{probe_adam, probe_matmul_256, probe_sum};

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

/// Rounds `n` up to a multiple of 16 floats (64 bytes).
pub(crate) fn pad16(n: usize) -> usize {
    n.div_ceil(16) * 16
}

/// `len` normal draws of which about a third are zero, as a ReLU's outputs are.
#[cfg(test)]
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
