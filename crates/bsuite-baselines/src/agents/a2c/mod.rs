//! What the feed-forward and recurrent actor-critic agents share: their hyperparameters
//! ([`ActorCriticConfig`], the recurrent agent's `base`), the host engine that runs both
//! (`host.rs`), the trajectory buffer and TD(λ) returns (`sequence.rs`), and softmax
//! sampling.

use bsuite_envs::RandomState;

use crate::config::{learning_rate, AgentConfig, Key, Kind, Optimizer};
use crate::config::{AT_LEAST_ONE, DISCOUNT, OPTIMIZER, SEED, UNIT};

pub(crate) mod host;
pub(crate) mod sequence;

/// The actor-critic agents' hyperparameters; [`Default`] is bsuite's JAX `default_agent`
/// of the feed-forward agent, and [`ActorCriticConfig::from_config`] reads them from the
/// keys of [`crate::config`].
#[derive(Clone, Debug, PartialEq)]
pub struct ActorCriticConfig {
    /// The optimiser (Adam in bsuite), with optax's defaults but for the learning rate.
    pub optimizer: Optimizer,
    /// Torso layer sizes (no ReLU after the last; see quirk 31).
    pub hidden: Vec<usize>,
    /// The optimiser's learning rate.
    pub learning_rate: f64,
    /// Transitions per SGD step (fewer at episode ends).
    pub sequence_length: usize,
    /// The agent's discount.
    pub discount: f32,
    /// λ of the TD(λ) returns.
    pub td_lambda: f32,
}

impl Default for ActorCriticConfig {
    fn default() -> Self {
        ActorCriticConfig {
            optimizer: Optimizer::Adam,
            hidden: vec![64, 64],
            learning_rate: 3e-3,
            sequence_length: 32,
            discount: 0.99,
            td_lambda: 0.9,
        }
    }
}

impl ActorCriticConfig {
    /// The configuration `config` describes: its keys `optimizer`, `learning_rate`,
    /// `discount`, `hidden_sizes`, `sequence_length` and `td_lambda` (every actor-critic's).
    /// The defaults of actor_critic's table give [`ActorCriticConfig::default`].
    ///
    /// ```
    /// use bsuite_baselines::config::AgentConfig;
    /// use bsuite_baselines::agents::ActorCriticConfig;
    ///
    /// let config = AgentConfig::defaults("actor_critic").unwrap();
    /// assert_eq!(ActorCriticConfig::from_config(&config), ActorCriticConfig::default());
    /// ```
    ///
    /// Panics when `config` lacks one of these keys (another agent's configuration).
    pub fn from_config(config: &AgentConfig) -> Self {
        ActorCriticConfig {
            optimizer: config.optimizer(),
            hidden: config.widths("hidden_sizes").to_vec(),
            learning_rate: config.float("learning_rate"),
            sequence_length: config.count("sequence_length"),
            discount: config.float("discount") as f32,
            td_lambda: config.float("td_lambda") as f32,
        }
    }
}

/// The keys both actor-critics have, with each one's own hidden sizes.
pub(crate) const fn actor_critic_keys(hidden: &'static str) -> [Key; 7] {
    [
        SEED,
        OPTIMIZER,
        learning_rate("0.003"),
        DISCOUNT,
        Key {
            name: "hidden_sizes",
            kind: Kind::Widths,
            default: hidden,
            doc: "the torso's hidden layer widths (ReLU MLP)",
        },
        Key {
            name: "sequence_length",
            kind: AT_LEAST_ONE,
            default: "32",
            doc: "agent steps per update (the unroll length)",
        },
        Key {
            name: "td_lambda",
            kind: UNIT,
            default: "0.9",
            doc: "λ of the TD(λ) returns",
        },
    ]
}

/// Samples an action from `softmax(logits)` with one uniform draw.
pub(crate) fn sample_softmax(logits: &[f32], rng: &mut RandomState) -> usize {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let weights: Vec<f64> = logits.iter().map(|&l| f64::from(l - max).exp()).collect();
    let total: f64 = weights.iter().sum();
    let mut u = rng.rand() * total;
    for (a, w) in weights.iter().enumerate() {
        if u < *w {
            return a;
        }
        u -= w;
    }
    logits.len() - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn softmax_sampling_follows_the_probabilities() {
        let mut rng = RandomState::new(1);
        let logits = [0.0f32, (3.0f32).ln(), f32::NEG_INFINITY];
        let n = 4000;
        let ones = (0..n)
            .filter(|_| sample_softmax(&logits, &mut rng) == 1)
            .count();
        // P(1) = 3/4; 4000 draws put the count within ±4 sd of 3000 (sd ≈ 27).
        assert!((2890..3110).contains(&ones), "{ones}");
    }
}
