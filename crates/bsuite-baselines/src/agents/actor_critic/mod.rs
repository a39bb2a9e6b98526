//! Feed-forward actor-critic with TD(λ) returns (bsuite's `baselines/jax/actor_critic`).
//!
//! - Configuration: [`ActorCriticConfig`], read from the keys of the `actor_critic` table
//!   in [`crate::config`].
//! - Readable definition: `libtorch.rs` (feature `libtorch`).
//! - Host engine: [`ActorCriticReplicas::feed_forward`](crate::agents::ActorCriticReplicas::feed_forward),
//!   shared with the recurrent agent in [`crate::agents::a2c`].
//! - Factory entry: `entry` below.

#[cfg(feature = "libtorch")]
pub(crate) mod libtorch;

use crate::agent::{AgentEntry, Batching};
use crate::agents::a2c::host::ActorCriticReplicas;
use crate::agents::q_learning::host::ReplicaSpec;
use crate::agents::{described, Engines};
use crate::config::{AgentConfig, Optimizer};

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

fn host(config: &AgentConfig, specs: &[ReplicaSpec]) -> ActorCriticReplicas {
    ActorCriticReplicas::feed_forward(ActorCriticConfig::from_config(config), specs)
}

#[cfg(feature = "libtorch")]
fn tensor(s: &crate::agent::AgentSetup) -> Box<dyn crate::Agent> {
    Box::new(libtorch::ActorCritic::new(
        &s.observation_spec,
        &s.action_spec,
        ActorCriticConfig::from_config(&s.config),
        s.seed,
        crate::libtorch::torch_device(s),
    ))
}

const ENGINES: Engines<ActorCriticReplicas> = Engines {
    host,
    #[cfg(feature = "libtorch")]
    libtorch: tensor,
};

/// The feed-forward actor-critic's factory entry.
pub(crate) fn entry() -> AgentEntry {
    AgentEntry {
        name: "actor_critic",
        keys: crate::agents::keys("actor_critic"),
        description: described!("A2C, MLP[64,64], TD(0.9) over 32 steps, Adam 3e-3"),
        make: |s| ENGINES.one(s),
        batching: Some(Batching {
            key: |_| 0,
            make: |s| ENGINES.batch(s),
            default_size: 32,
        }),
    }
}
