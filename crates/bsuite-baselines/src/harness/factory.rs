//! Agents by name, for runners that take the agent from the command line.

use bsuite_envs::{ActionSpec, BsuiteId, ObservationSpec};

use crate::agent::{Agent, BatchAgent};
use crate::config::{self, AgentConfig, Key};
use crate::random::Random;

/// Where an agent computes: the CPU, or CUDA device N (LibTorch agents only; others
/// compute on the CPU whatever it says).
///
/// ```
/// use bsuite_baselines::factory::ComputeDevice;
///
/// assert_eq!("cpu".parse(), Ok(ComputeDevice::Cpu));
/// assert_eq!("cuda".parse(), Ok(ComputeDevice::Cuda(0)));
/// assert_eq!("cuda:1".parse::<ComputeDevice>().unwrap().to_string(), "cuda:1");
/// for bad in ["gpu", "cuda:", "cuda:x", "CPU"] {
///     assert!(bad.parse::<ComputeDevice>().is_err(), "{bad}");
/// }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ComputeDevice {
    /// The CPU.
    #[default]
    Cpu,
    /// CUDA device N.
    Cuda(usize),
}

/// A device name that is not `cpu`, `cuda` or `cuda:N`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown device '{text}': expected cpu, cuda or cuda:N")]
pub struct ParseDeviceError {
    /// The text given.
    pub text: String,
}

impl std::str::FromStr for ComputeDevice {
    type Err = ParseDeviceError;

    /// `cpu`, `cuda` (device 0) or `cuda:N`.
    fn from_str(text: &str) -> Result<Self, ParseDeviceError> {
        match text {
            "cpu" => Ok(ComputeDevice::Cpu),
            "cuda" => Ok(ComputeDevice::Cuda(0)),
            _ => text
                .strip_prefix("cuda:")
                .and_then(|n| n.parse().ok())
                .map(ComputeDevice::Cuda)
                .ok_or_else(|| ParseDeviceError {
                    text: text.to_string(),
                }),
        }
    }
}

impl std::fmt::Display for ComputeDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ComputeDevice::Cpu => write!(f, "cpu"),
            ComputeDevice::Cuda(n) => write!(f, "cuda:{n}"),
        }
    }
}

/// What an agent is built from: the id it will run on, its specs, the agent seed, its
/// configuration and where it computes.
#[derive(Clone, Debug)]
pub struct AgentSetup {
    /// The bsuite_id the agent will run on.
    pub id: BsuiteId,
    /// The environment's observation spec.
    pub observation_spec: ObservationSpec,
    /// The environment's action spec.
    pub action_spec: ActionSpec,
    /// The agent's seed (42 by default, as bsuite's `run.py` passes); equal to the
    /// configuration's `seed` where the agent has that key.
    pub seed: u32,
    /// The agent's hyperparameters: a value for each of its [`AgentEntry::keys`].
    pub config: AgentConfig,
    /// Where the agent computes.
    pub device: ComputeDevice,
}

/// A named agent constructor.
#[derive(Clone, Copy)]
pub struct AgentEntry {
    /// The name runners accept, e.g. `"random"`.
    pub name: &'static str,
    /// One line for help texts.
    pub description: &'static str,
    /// Its hyperparameters ([`crate::config`]); `&[]` for an agent without any.
    pub keys: &'static [Key],
    /// Builds a fresh agent for one bsuite_id.
    pub make: fn(&AgentSetup) -> Box<dyn Agent>,
    /// How to run many ids as one lockstep batch, for agents that can; `None` runs each id
    /// on its own.
    pub batching: Option<Batching>,
}

/// How an agent runs many bsuite_ids as one [`BatchAgent`], one replica per id. Each
/// replica must compute exactly what the agent built by [`AgentEntry::make`] computes for
/// that id alone, so results do not depend on how the runner batches ids.
#[derive(Clone, Copy)]
pub struct Batching {
    /// Ids whose setups have equal keys may share a batch.
    pub key: fn(&AgentSetup) -> u64,
    /// Builds one replica per setup, in order.
    pub make: fn(&[AgentSetup]) -> Box<dyn BatchAgent>,
    /// Most replicas per batch unless the runner is told otherwise: as many as amortise
    /// the agent's per-call costs, 1 where a batch's working set outgrows the caches.
    pub default_size: usize,
}

/// The names of the agents that need LibTorch (the `tch` feature), known to every build
/// so that tools which do not link LibTorch (`cargo xtask`) can send them to one that does.
pub const LIBTORCH_AGENTS: [&str; 5] = [
    "dqn",
    "boot_dqn",
    "actor_critic",
    "actor_critic_rnn",
    "actor_critic_rnn_reset",
];

/// The agents this build provides. The LibTorch agents join this list when the crate is
/// built with their feature.
pub fn agents() -> Vec<AgentEntry> {
    #[allow(unused_mut)]
    let mut agents = vec![AgentEntry {
        name: "random",
        description: "uniformly random actions, RandomState(seed).randint(num_actions) per step",
        keys: config::keys("random").unwrap_or_default(),
        make: |setup| Box::new(Random::new(setup.action_spec, setup.seed)),
        batching: None,
    }];
    #[cfg(feature = "tch")]
    agents.extend(crate::agents::entries());
    agents
}

/// An agent name this build does not provide.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown agent '{name}'; valid agents: {}{}",
    valid.join(", "),
    if libtorch.is_empty() {
        String::new()
    } else {
        format!(", and with LibTorch (cargo xtask bench-all): {}", libtorch.join(", "))
    }
)]
pub struct UnknownAgent {
    /// The name asked for.
    pub name: String,
    /// The names available.
    pub valid: Vec<&'static str>,
    /// The LibTorch agents this build lacks (it was built without the `tch` feature),
    /// which `cargo xtask bench-all` runs through a build that has them.
    pub libtorch: Vec<&'static str>,
}

/// Looks up an agent by name.
///
/// ```
/// let entry = bsuite_baselines::factory::agent("random").unwrap();
/// assert_eq!(entry.name, "random");
/// let err = bsuite_baselines::factory::agent("rnadom").err().unwrap();
/// // The LibTorch agents follow with the `tch` feature.
/// assert!(err.to_string().starts_with("unknown agent 'rnadom'; valid agents: random"));
/// ```
pub fn agent(name: &str) -> Result<AgentEntry, UnknownAgent> {
    let all = agents();
    all.iter()
        .find(|entry| entry.name == name)
        .copied()
        .ok_or_else(|| {
            let valid: Vec<&'static str> = all.iter().map(|entry| entry.name).collect();
            UnknownAgent {
                name: name.to_string(),
                libtorch: (LIBTORCH_AGENTS.iter())
                    .filter(|agent| !valid.contains(agent))
                    .copied()
                    .collect(),
                valid,
            }
        })
}
