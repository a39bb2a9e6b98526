//! Agents by name, for runners that take the agent from the command line: the catalogue
//! of `random` and [`crate::agents`], at the top of the crate.

use crate::config::{AgentConfig, ConfigError, Key};

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
    let mut agents = vec![crate::agents::random::entry()];
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

/// The keys of `agent`, or `None` for a name this crate has no agent of.
pub fn keys(agent: &str) -> Option<&'static [Key]> {
    agents()
        .iter()
        .find(|entry| entry.name == agent)
        .map(|entry| entry.keys)
}

/// Every agent's name and keys, in the order `bsuite agents` lists them.
pub fn all_keys() -> Vec<(&'static str, &'static [Key])> {
    agents()
        .iter()
        .map(|entry| (entry.name, entry.keys))
        .collect()
}

/// The reference configurations live with their agents, so they are found through this
/// catalogue; [`crate::config`] knows only what a key is.
impl AgentConfig {
    /// The reference configuration of one of this crate's agents.
    ///
    /// ```
    /// use bsuite_baselines::config::AgentConfig;
    ///
    /// assert_eq!(AgentConfig::defaults("dqn").unwrap().float("learning_rate"), 1e-3);
    /// assert!(AgentConfig::defaults("dqm").is_err());
    /// ```
    pub fn defaults(agent: &str) -> Result<AgentConfig, ConfigError> {
        let entry = self::agent(agent).map_err(|_| ConfigError::UnknownAgent(agent.to_string()))?;
        Ok(AgentConfig::new(entry.name, entry.keys))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_agents_defaults_parse() {
        for (agent, _) in all_keys() {
            let config = AgentConfig::defaults(agent).unwrap();
            assert_eq!(config.changed(), "", "{agent}");
            assert_eq!(config.seed(), 42);
        }
    }
}
