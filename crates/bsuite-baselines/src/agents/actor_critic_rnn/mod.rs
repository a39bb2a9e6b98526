//! Recurrent actor-critic (bsuite's `baselines/jax/actor_critic_rnn`), the agent the paper
//! uses for the memory experiments, and `actor_critic_rnn_reset`, our variant that resets
//! its training LSTM state at episode ends (a fix of quirk 33).
//!
//! - Configuration: [`ActorCriticRnnConfig`], read from the keys of the
//!   `actor_critic_rnn` and `actor_critic_rnn_reset` tables in [`crate::config`].
//! - Readable definition: `libtorch.rs` (feature `libtorch`).
//! - Host engine: [`ActorCriticReplicas::recurrent`](crate::agents::ActorCriticReplicas::recurrent),
//!   shared with the feed-forward agent in [`crate::agents::a2c`].
//! - Factory entries: `entry` and `reset_entry` below.

#[cfg(feature = "libtorch")]
pub(crate) mod libtorch;

use bsuite_envs::{experiments, Experiment};

use crate::agent::{AgentEntry, Batching};
use crate::agents::a2c::actor_critic_keys;
use crate::agents::a2c::host::ActorCriticReplicas;
use crate::agents::actor_critic::ActorCriticConfig;
use crate::agents::{described, Engines};
use crate::config::{AgentConfig, Key, Kind, AT_LEAST_ONE};
use crate::host::ReplicaSpec;

/// The recurrent agent's hyperparameters; [`Default`] is bsuite's JAX `default_agent`,
/// and [`ActorCriticRnnConfig::from_config`] reads them from the keys of
/// [`crate::config`].
#[derive(Clone, Debug, PartialEq)]
pub struct ActorCriticRnnConfig {
    /// Optimiser, torso, learning rate, sequence length, discount and λ.
    pub base: ActorCriticConfig,
    /// LSTM width.
    pub lstm_size: usize,
    /// Start training unrolls from a zero state after every episode end. Off by default:
    /// bsuite's JAX agent carries the training state over episode ends (quirk 33), which
    /// lets its cell state grow until the policy stops depending on the input.
    pub reset_unroll_state: bool,
}

impl Default for ActorCriticRnnConfig {
    fn default() -> Self {
        ActorCriticRnnConfig {
            base: ActorCriticConfig {
                hidden: vec![256, 256],
                ..ActorCriticConfig::default()
            },
            lstm_size: 256,
            reset_unroll_state: false,
        }
    }
}

impl ActorCriticRnnConfig {
    /// The configuration `config` describes: the actor-critic's keys (see
    /// [`ActorCriticConfig::from_config`]), `lstm_size` and `reset_training_state` (which
    /// sets `reset_unroll_state`). The defaults of actor_critic_rnn's table give
    /// [`ActorCriticRnnConfig::default`]; actor_critic_rnn_reset's differ in
    /// `reset_unroll_state` alone.
    ///
    /// ```
    /// use bsuite_baselines::config::AgentConfig;
    /// use bsuite_baselines::agents::ActorCriticRnnConfig;
    ///
    /// let config = AgentConfig::defaults("actor_critic_rnn").unwrap();
    /// assert_eq!(ActorCriticRnnConfig::from_config(&config), ActorCriticRnnConfig::default());
    /// let reset = AgentConfig::defaults("actor_critic_rnn_reset").unwrap();
    /// assert!(ActorCriticRnnConfig::from_config(&reset).reset_unroll_state);
    /// ```
    ///
    /// Panics when `config` lacks one of these keys (another agent's configuration).
    pub fn from_config(config: &AgentConfig) -> Self {
        ActorCriticRnnConfig {
            base: ActorCriticConfig::from_config(config),
            lstm_size: config.count("lstm_size"),
            reset_unroll_state: config.flag("reset_training_state"),
        }
    }
}

/// actor_critic_rnn and actor_critic_rnn_reset, which differ in their tables' default of
/// `reset_training_state`.
fn host(config: &AgentConfig, specs: &[ReplicaSpec]) -> ActorCriticReplicas {
    ActorCriticReplicas::recurrent(ActorCriticRnnConfig::from_config(config), specs)
}

#[cfg(feature = "libtorch")]
fn tensor(s: &crate::agent::AgentSetup) -> Box<dyn crate::Agent> {
    Box::new(libtorch::ActorCriticRnn::new(
        &s.observation_spec,
        &s.action_spec,
        ActorCriticRnnConfig::from_config(&s.config),
        s.seed,
        crate::libtorch::torch_device(s),
    ))
}

const ENGINES: Engines<ActorCriticReplicas> = Engines {
    host,
    #[cfg(feature = "libtorch")]
    libtorch: tensor,
};

/// The recurrent actor-critic's keys: bsuite's `default_agent`.
pub(crate) static KEYS: [Key; 9] = rnn_keys("false");

/// The variant's keys: the same, resetting the training state at episode ends.
pub(crate) static RESET_KEYS: [Key; 9] = rnn_keys("true");

const fn rnn_keys(reset: &'static str) -> [Key; 9] {
    let base = actor_critic_keys("256,256");
    [
        base[0],
        base[1],
        base[2],
        base[3],
        base[4],
        base[5],
        base[6],
        Key {
            name: "lstm_size",
            kind: AT_LEAST_ONE,
            default: "256",
            doc: "the LSTM's width",
        },
        Key {
            name: "reset_training_state",
            kind: Kind::Flag,
            default: reset,
            doc: "reset the training unroll's LSTM state at episode ends (bsuite's agent \
                  carries it over, see docs/quirks.md, quirk 33)",
        },
    ]
}

/// Mean steps per episode in `baselines/actor_critic_rnn` (3 seeds) on the experiments where the
/// agent's skill sets episode lengths; sweep planning only
/// ([`AgentEntry::steps_per_episode`]).
pub(crate) static STEPS_PER_EPISODE: [(&Experiment, f64); 7] = [
    (&experiments::cartpole::EXPERIMENT, 64.0),
    (&experiments::cartpole_noise::EXPERIMENT, 64.0),
    (&experiments::cartpole_scale::EXPERIMENT, 99.0),
    (&experiments::cartpole_swingup::EXPERIMENT, 991.0),
    (&experiments::mountain_car::EXPERIMENT, 1000.0),
    (&experiments::mountain_car_noise::EXPERIMENT, 1000.0),
    (&experiments::mountain_car_scale::EXPERIMENT, 1000.0),
];

/// The recurrent actor-critic's factory entry.
pub(crate) fn entry() -> AgentEntry {
    AgentEntry {
        name: "actor_critic_rnn",
        keys: &KEYS,
        description: described!("recurrent A2C, MLP[256,256] + LSTM 256"),
        make: |s| ENGINES.one(s),
        batching: Some(Batching {
            key: |_| 0,
            make: |s| ENGINES.batch(s),
            // Each replica streams its own 2.4 MB of weights every step, and its 9.7 MB
            // of weights, gradients and Adam moments every SGD step: one at a time they
            // stay in the L3 cache, while a batch of 20 streams them from DRAM, whose
            // floor is 2.3x higher and which runs 2.3x slower per step (`cargo xtask
            // bench agents`, its lockstep column).
            default_size: 1,
        }),
    }
}

/// The variant's factory entry.
pub(crate) fn reset_entry() -> AgentEntry {
    AgentEntry {
        name: "actor_critic_rnn_reset",
        keys: &RESET_KEYS,
        description: described!(
            "actor_critic_rnn with its training LSTM state reset at episode ends \
             (a fix of quirk 33; not bsuite's agent)"
        ),
        make: |s| ENGINES.one(s),
        batching: None,
    }
}

impl ActorCriticReplicas {
    /// bsuite's `actor_critic_rnn`, one replica per spec.
    pub fn recurrent(config: ActorCriticRnnConfig, specs: &[ReplicaSpec]) -> Self {
        Self::with_parts(
            config.base,
            Some(config.lstm_size),
            config.reset_unroll_state,
            specs,
        )
    }
}
