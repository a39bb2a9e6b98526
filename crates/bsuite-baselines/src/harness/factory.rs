//! Agents by name, for runners that take the agent from the command line: the catalogue
//! of `random` and [`crate::agents`], at the top of the crate.

use crate::agents::random::Random;
use crate::config;

/// The entry types live with the [`Agent`](crate::Agent) trait, so that the agents build
/// entries without importing this catalogue of them.
pub use crate::agent::{AgentEntry, AgentSetup, Batching, ComputeDevice, ParseDeviceError};

/// The names of the reference agents that have a LibTorch engine besides their host one
/// ([`crate::agents::Engine`]); `--device cuda` is for these alone.
pub const LIBTORCH_AGENTS: [&str; 5] = [
    "dqn",
    "boot_dqn",
    "actor_critic",
    "actor_critic_rnn",
    "actor_critic_rnn_reset",
];

/// The agents every build provides: `random` and the reference agents of
/// [`crate::agents`].
pub fn agents() -> Vec<AgentEntry> {
    #[allow(unused_mut)]
    let mut agents = vec![AgentEntry {
        name: "random",
        description: "uniformly random actions, RandomState(seed).randint(num_actions) per step",
        keys: config::keys("random").unwrap_or_default(),
        make: |setup| Box::new(Random::new(setup.action_spec, setup.seed)),
        batching: None,
    }];
    agents.extend(crate::agents::entries());
    agents
}

/// An agent name this build does not provide.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown agent '{name}'; valid agents: {}", valid.join(", "))]
pub struct UnknownAgent {
    /// The name asked for.
    pub name: String,
    /// The names available.
    pub valid: Vec<&'static str>,
}

/// Looks up an agent by name.
///
/// ```
/// let entry = bsuite_baselines::factory::agent("random").unwrap();
/// assert_eq!(entry.name, "random");
/// let err = bsuite_baselines::factory::agent("rnadom").err().unwrap();
/// assert!(err.to_string().starts_with("unknown agent 'rnadom'; valid agents: random, dqn"));
/// ```
pub fn agent(name: &str) -> Result<AgentEntry, UnknownAgent> {
    let all = agents();
    all.iter()
        .find(|entry| entry.name == name)
        .copied()
        .ok_or_else(|| UnknownAgent {
            name: name.to_string(),
            valid: all.iter().map(|entry| entry.name).collect(),
        })
}
