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

use bsuite_envs::{experiments, Experiment};

use crate::agent::{AgentEntry, Batching};
use crate::agents::a2c::actor_critic_keys;
use crate::agents::a2c::host::ActorCriticReplicas;
pub use crate::agents::a2c::ActorCriticConfig;
use crate::agents::{described, Engines};
use crate::config::{AgentConfig, Key};
use crate::host::ReplicaSpec;

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

/// The feed-forward actor-critic's keys: bsuite's `default_agent`.
pub(crate) static KEYS: [Key; 7] = actor_critic_keys("64,64");

/// Mean steps per episode in `baselines/actor_critic` (5 seeds) on the experiments where the
/// agent's skill sets episode lengths; sweep planning only
/// ([`AgentEntry::steps_per_episode`]).
pub(crate) static STEPS_PER_EPISODE: [(&Experiment, f64); 7] = [
    (&experiments::cartpole::EXPERIMENT, 127.0),
    (&experiments::cartpole_noise::EXPERIMENT, 109.0),
    (&experiments::cartpole_scale::EXPERIMENT, 115.0),
    (&experiments::cartpole_swingup::EXPERIMENT, 998.0),
    (&experiments::mountain_car::EXPERIMENT, 1000.0),
    (&experiments::mountain_car_noise::EXPERIMENT, 1000.0),
    (&experiments::mountain_car_scale::EXPERIMENT, 995.0),
];

/// The feed-forward actor-critic's factory entry.
pub(crate) fn entry() -> AgentEntry {
    AgentEntry {
        name: "actor_critic",
        keys: &KEYS,
        description: described!("A2C, MLP[64,64], TD(0.9) over 32 steps, Adam 3e-3"),
        make: |s| ENGINES.one(s),
        batching: Some(Batching {
            key: |_| 0,
            make: |s| ENGINES.batch(s),
            default_size: 32,
        }),
    }
}

impl ActorCriticReplicas {
    /// bsuite's feed-forward `actor_critic`, one replica per spec.
    pub fn feed_forward(config: ActorCriticConfig, specs: &[ReplicaSpec]) -> Self {
        Self::with_parts(config, None, false, specs)
    }
}
