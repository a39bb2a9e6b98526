//! What DQN and bootstrapped DQN share: the keys of their tables ([`replay_keys`]), the
//! host engine that runs both (`host/`: one
//! replica per id, DQN as an ensemble of one), its replay (`sparse_replay.rs`), and, for the
//! LibTorch definitions, the Q-network ensemble (`q_ensemble.rs`) and tensor replay
//! (`replay.rs`).

use bsuite_envs::RandomState;

use crate::config::{learning_rate, Key, Kind, AT_LEAST_ONE, DISCOUNT, OPTIMIZER, SEED, UNIT};

pub(crate) mod host;
#[cfg(feature = "libtorch")]
pub(crate) mod q_ensemble;
#[cfg(feature = "libtorch")]
pub(crate) mod replay;
pub(crate) mod sparse_replay;

/// The keys DQN and bootstrapped DQN share, with each one's own defaults.
pub(crate) const fn replay_keys(
    lr: &'static str,
    hidden: &'static str,
    batch: &'static str,
    min_replay: &'static str,
    epsilon: &'static str,
) -> [Key; 11] {
    [
        SEED,
        OPTIMIZER,
        learning_rate(lr),
        DISCOUNT,
        Key {
            name: "hidden_sizes",
            kind: Kind::Widths,
            default: hidden,
            doc: "the Q-network's hidden layer widths (ReLU MLP)",
        },
        Key {
            name: "batch_size",
            kind: AT_LEAST_ONE,
            default: batch,
            doc: "transitions per SGD step",
        },
        Key {
            name: "replay_capacity",
            kind: AT_LEAST_ONE,
            default: "10000",
            doc: "transitions the replay holds (oldest replaced first)",
        },
        Key {
            name: "min_replay_size",
            kind: AT_LEAST_ONE,
            default: min_replay,
            doc: "transitions in the replay before learning starts",
        },
        Key {
            name: "sgd_period",
            kind: AT_LEAST_ONE,
            default: "1",
            doc: "agent steps between SGD steps",
        },
        Key {
            name: "target_update_period",
            kind: AT_LEAST_ONE,
            default: "4",
            doc: "SGD steps between copies of the online network to the target",
        },
        Key {
            name: "epsilon",
            kind: UNIT,
            default: epsilon,
            doc: "probability of a uniformly random action",
        },
    ]
}

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
