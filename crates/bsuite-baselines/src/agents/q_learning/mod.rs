//! What DQN and bootstrapped DQN share: the host engine that runs both (`host.rs`: one
//! replica per id, DQN as an ensemble of one), its replay (`sparse_replay.rs`), and, for the
//! LibTorch definitions, the Q-network ensemble (`q_ensemble.rs`) and tensor replay
//! (`replay.rs`).

use bsuite_envs::RandomState;

pub(crate) mod host;
#[cfg(feature = "libtorch")]
pub(crate) mod q_ensemble;
#[cfg(feature = "libtorch")]
pub(crate) mod replay;
pub(crate) mod sparse_replay;

/// A greedy action with ties broken uniformly (`np.random.choice` over the argmax set); the
/// generator is only drawn from when there is a tie.
pub(crate) fn greedy(q_values: &[f32], rng: &mut RandomState) -> usize {
    let max = q_values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let best: Vec<usize> = (0..q_values.len())
        .filter(|&a| q_values[a] == max)
        .collect();
    match best.len() {
        0 => rng.randint(q_values.len()), // all NaN: any action
        1 => best[0],
        n => best[rng.randint(n)],
    }
}
