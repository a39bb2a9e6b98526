//! The reference agents, one folder each: [`random`], [`dqn`], [`boot_dqn`],
//! [`actor_critic`] and [`actor_critic_rnn`] (with its variant `actor_critic_rnn_reset`).
//! A folder holds the agent's configuration, its readable LibTorch definition
//! (`libtorch.rs`, feature `libtorch`), the choice of its host engine and its factory
//! entry. What two agents share lives in a named module: [`q_learning`] for DQN and
//! bootstrapped DQN, [`a2c`] for the actor-critics.
//!
//! Every agent but `random` has two engines that compute the same agent:
//! - the host engine (the default): plain Rust loops over [`crate::host`]'s kernels, one
//!   replica per id, with backward passes written out. It needs no LibTorch and is what
//!   the shipped baselines ran;
//! - the LibTorch engine (feature `libtorch`, [`Engine::LibTorch`]): the readable
//!   definitions, written close to bsuite's JAX agents, run by autograd on the CPU or a
//!   CUDA device. `tests/libtorch_agents.rs` ties the two together.
//!
//! Unlike the reference, every random draw an agent makes (initialisation, exploration,
//! replay sampling, bootstrap masks, policy sampling) comes from its own numpy-compatible
//! [`RandomState`](bsuite_envs::RandomState) seeded with the agent seed, so a run is
//! reproducible from (agent, bsuite_id, seed) — the fix of quirk 35 (bsuite samples replay
//! from numpy's global generator). LibTorch's own generator is never used.
//!
//! ```
//! use bsuite_baselines::agents::{DqnConfig, DqnReplicas, ReplicaSpec};
//! use bsuite_envs::Environment;
//!
//! let mut env = bsuite_envs::load("catch/0").unwrap();
//! let spec = ReplicaSpec {
//!     observation_spec: env.observation_spec(),
//!     action_spec: env.action_spec(),
//!     seed: 0,
//! };
//! let mut agent = DqnReplicas::new(DqnConfig::default(), &[spec]);
//! bsuite_baselines::run(&mut agent, &mut *env, 3).unwrap();
//! ```

pub mod a2c;
pub mod actor_critic;
pub mod actor_critic_rnn;
pub mod boot_dqn;
pub mod dqn;
pub mod q_learning;
pub mod random;

use std::sync::atomic::{AtomicU8, Ordering};

use bsuite_envs::Experiment;

pub use crate::host::ReplicaSpec;
#[cfg(feature = "libtorch")]
pub use crate::libtorch::{check_device, Device, DeviceError};
pub use a2c::host::{ActorCriticReplicas, RecurrentProbe};
#[cfg(feature = "libtorch")]
pub use actor_critic::libtorch::ActorCritic;
pub use actor_critic::ActorCriticConfig;
#[cfg(feature = "libtorch")]
pub use actor_critic_rnn::libtorch::ActorCriticRnn;
pub use actor_critic_rnn::ActorCriticRnnConfig;
#[cfg(feature = "libtorch")]
pub use boot_dqn::libtorch::BootDqn;
pub use boot_dqn::BootDqnConfig;
#[cfg(feature = "libtorch")]
pub use dqn::libtorch::Dqn;
pub use dqn::DqnConfig;
pub use q_learning::host::DqnReplicas;
pub use random::Random;

#[cfg(feature = "libtorch")]
use crate::agent::ComputeDevice;
use crate::agent::{Agent, BatchAgent, OneByOne};
use crate::agent::{AgentEntry, AgentSetup};
use crate::config::AgentConfig;

/// Which implementation computes the reference agents (`bsuite-run --engine`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    /// The host engines: Rust loops, no LibTorch (every build has them).
    #[default]
    Host,
    /// The LibTorch definitions, on the CPU or CUDA (builds with the `libtorch` feature).
    LibTorch,
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Engine::Host => "host",
            Engine::LibTorch => "libtorch",
        })
    }
}

/// An engine name that is not `host` or `libtorch`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown engine '{text}': expected host or libtorch")]
pub struct ParseEngineError {
    /// The text given.
    pub text: String,
}

impl std::str::FromStr for Engine {
    type Err = ParseEngineError;

    fn from_str(text: &str) -> Result<Self, ParseEngineError> {
        match text {
            "host" => Ok(Engine::Host),
            "libtorch" => Ok(Engine::LibTorch),
            _ => Err(ParseEngineError {
                text: text.to_string(),
            }),
        }
    }
}

/// The engine this build was asked for but lacks ([`set_engine`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{what} needs LibTorch, and this build has none: `cargo xtask bench-all AGENT {what}` \
     provisions LibTorch and builds bsuite-run with it (or build it with `--features \
     libtorch` and LIBTORCH set); the host engine (the default) runs every agent on the CPU"
)]
pub struct NoLibTorch {
    /// What asked for LibTorch, as the user wrote it (e.g. `--engine libtorch`).
    pub what: String,
}

static ENGINE: AtomicU8 = AtomicU8::new(0);

/// Makes the reference agents built from now on in this process compute with `engine`
/// (the host engine by default); [`NoLibTorch`] where this build has no LibTorch. The
/// choice is process-wide because a factory entry is a plain function of its setup:
/// `bsuite-run` makes it once, before any agent is built.
pub fn set_engine(engine: Engine) -> Result<(), NoLibTorch> {
    if engine == Engine::LibTorch && !cfg!(feature = "libtorch") {
        return Err(NoLibTorch {
            what: "--engine libtorch".into(),
        });
    }
    ENGINE.store(engine as u8, Ordering::Relaxed);
    Ok(())
}

/// The engine the reference agents compute with ([`set_engine`]).
pub fn engine() -> Engine {
    match ENGINE.load(Ordering::Relaxed) {
        0 => Engine::Host,
        _ => Engine::LibTorch,
    }
}

/// An entry's description, ending with the engine that computes it: the manifests record
/// it, so a results directory says which engine wrote it.
macro_rules! described {
    ($text:expr) => {
        match $crate::agents::engine() {
            $crate::agents::Engine::Host => concat!($text, " (host engine)"),
            $crate::agents::Engine::LibTorch => concat!($text, " (LibTorch)"),
        }
    };
}
pub(crate) use described;

/// An agent's two constructors: its host engine, and its LibTorch definition where the
/// build has LibTorch.
pub(crate) struct Engines<H> {
    /// The host replicas of a batch of specs sharing one configuration.
    pub(crate) host: fn(&AgentConfig, &[ReplicaSpec]) -> H,
    /// The LibTorch agent of one setup.
    #[cfg(feature = "libtorch")]
    pub(crate) libtorch: fn(&AgentSetup) -> Box<dyn Agent>,
}

impl<H: BatchAgent + Agent + 'static> Engines<H> {
    /// Whether `setup` runs on LibTorch: when asked for, and on a GPU (where the host
    /// engines do not run).
    #[cfg(feature = "libtorch")]
    fn on_libtorch(setup: &AgentSetup) -> bool {
        engine() == Engine::LibTorch || setup.device != ComputeDevice::Cpu
    }

    /// An agent for one id.
    pub(crate) fn one(&self, setup: &AgentSetup) -> Box<dyn Agent> {
        #[cfg(feature = "libtorch")]
        if Self::on_libtorch(setup) {
            return (self.libtorch)(setup);
        }
        Box::new((self.host)(&setup.config, &[replica_spec(setup)]))
    }

    /// Agents for many ids: the host replicas in one batch, or LibTorch agents one by one.
    /// The replicas of a batch share one configuration but for their seeds (a run has
    /// one).
    pub(crate) fn batch(&self, setups: &[AgentSetup]) -> Box<dyn BatchAgent> {
        #[cfg(feature = "libtorch")]
        if setups.iter().any(Self::on_libtorch) {
            return Box::new(OneByOne(
                setups.iter().map(self.libtorch).collect::<Vec<_>>(),
            ));
        }
        let Some(first) = setups.first() else {
            return Box::new(OneByOne(Vec::<Box<dyn Agent>>::new()));
        };
        // Each replica has its own seed (in its spec); everything else is shared.
        let unseeded = |c: &AgentConfig| -> Vec<String> {
            c.entries()
                .filter(|(key, _)| *key != "seed")
                .map(|(key, value)| format!("{key}={value}"))
                .collect()
        };
        let shared = unseeded(&first.config);
        assert!(
            setups.iter().all(|s| unseeded(&s.config) == shared),
            "the replicas of a batch share one configuration but for the seed"
        );
        let specs: Vec<ReplicaSpec> = setups.iter().map(replica_spec).collect();
        Box::new((self.host)(&first.config, &specs))
    }
}

fn replica_spec(setup: &AgentSetup) -> ReplicaSpec {
    ReplicaSpec {
        observation_spec: setup.observation_spec.clone(),
        action_spec: setup.action_spec,
        seed: setup.seed,
    }
}

/// What the agent named `agent` averaged per episode, in its shipped default sweep, on
/// the experiments whose episode lengths depend on the agent's skill; empty for agents
/// nothing has been measured of. Sweep planning only ([`AgentEntry::steps_per_episode`]).
pub(crate) fn steps_per_episode(agent: &str) -> &'static [(&'static Experiment, f64)] {
    match agent {
        "random" => &random::STEPS_PER_EPISODE,
        "dqn" => &dqn::STEPS_PER_EPISODE,
        "boot_dqn" => &boot_dqn::STEPS_PER_EPISODE,
        "actor_critic" => &actor_critic::STEPS_PER_EPISODE,
        "actor_critic_rnn" | "actor_critic_rnn_reset" => &actor_critic_rnn::STEPS_PER_EPISODE,
        _ => &[],
    }
}

/// The reference agents with two engines, by name, for [`crate::factory`].
pub fn entries() -> Vec<AgentEntry> {
    vec![
        dqn::entry(),
        boot_dqn::entry(),
        actor_critic::entry(),
        actor_critic_rnn::entry(),
        actor_critic_rnn::reset_entry(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tools route these names by `LIBTORCH_AGENTS` (the agents with a LibTorch engine),
    /// so the two lists must agree; and every entry of the table has a configuration table
    /// and a folder of its own here.
    #[test]
    fn every_reference_agent_is_in_the_table() {
        let names: Vec<&str> = super::entries().iter().map(|e| e.name).collect();
        assert_eq!(names, crate::factory::LIBTORCH_AGENTS);
        let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/agents");
        for name in names.iter().chain(&["random"]) {
            assert!(crate::factory::keys(name).is_some(), "{name} has no keys");
            // The variant lives with the agent it varies.
            let folder = name.trim_end_matches("_reset");
            assert!(
                here.join(folder).join("mod.rs").is_file(),
                "{name} has no folder"
            );
        }
    }

    /// The engine's name parses back, and is what the descriptions end with.
    #[test]
    fn engines_parse_and_label_the_descriptions() {
        for engine in [Engine::Host, Engine::LibTorch] {
            assert_eq!(engine.to_string().parse::<Engine>(), Ok(engine));
        }
        assert!("torch".parse::<Engine>().is_err());
        assert_eq!(engine(), Engine::Host, "the host engine is the default");
        for entry in entries() {
            assert!(
                entry.description.ends_with(" (host engine)"),
                "{}",
                entry.description
            );
            assert!(
                !entry.description.contains("LibTorch"),
                "{}",
                entry.description
            );
        }
    }

    /// The tables' defaults build the reference agents, whose bits the other tests pin.
    #[test]
    fn default_configurations_are_the_reference_agents() {
        let defaults = |name| AgentConfig::defaults(name).unwrap();
        assert_eq!(
            DqnConfig::from_config(&defaults("dqn")),
            DqnConfig::default()
        );
        assert_eq!(
            BootDqnConfig::from_config(&defaults("boot_dqn")),
            BootDqnConfig::default()
        );
        assert_eq!(
            ActorCriticConfig::from_config(&defaults("actor_critic")),
            ActorCriticConfig::default()
        );
        assert_eq!(
            ActorCriticRnnConfig::from_config(&defaults("actor_critic_rnn")),
            ActorCriticRnnConfig::default()
        );
        assert_eq!(
            ActorCriticRnnConfig::from_config(&defaults("actor_critic_rnn_reset")),
            ActorCriticRnnConfig {
                reset_unroll_state: true,
                ..ActorCriticRnnConfig::default()
            }
        );
        for entry in entries() {
            let names: Vec<&str> = entry.keys.iter().map(|k| k.name).collect();
            assert!(names.contains(&"seed"), "{}: {names:?}", entry.name);
            assert_eq!(defaults(entry.name).entries().count(), names.len());
        }
    }
}
