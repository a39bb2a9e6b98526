//! The agent interface of bsuite's baselines (`select_action` / `update`), and its batched
//! form for replicas that run in lockstep.

use bsuite_envs::{ActionSpec, BsuiteId, ObservationSpec, TimeStep};

use crate::config::{AgentConfig, Key};

/// An agent as bsuite's run loop drives it.
///
/// `select_action` is never given a LAST timestep: every episode starts with an explicit
/// reset. `update` sees each transition `(timestep, action, new_timestep)` once.
pub trait Agent {
    /// Chooses an action (in `0..num_actions`) for a FIRST or MID timestep.
    fn select_action(&mut self, timestep: &TimeStep) -> usize;

    /// Learns from one transition.
    fn update(&mut self, timestep: &TimeStep, action: usize, new_timestep: &TimeStep);
}

impl<A: Agent + ?Sized> Agent for Box<A> {
    fn select_action(&mut self, timestep: &TimeStep) -> usize {
        (**self).select_action(timestep)
    }

    fn update(&mut self, timestep: &TimeStep, action: usize, new_timestep: &TimeStep) {
        (**self).update(timestep, action, new_timestep)
    }
}

/// Independent agents ("replicas"), one per environment, driven in lockstep: one call acts
/// for every replica and one call learns from every replica's transition, so that an
/// implementation can do all replicas' work as one batched computation.
///
/// Replica `i` of every slice argument belongs to the `i`th agent held. Each replica must
/// behave exactly as if it ran alone through [`Agent`]: it sees the same sequence of calls,
/// and keeps its own parameters, optimiser state, memory and random stream. The lockstep
/// loop ([`crate::experiment::run_lockstep`]) keeps every replica on bsuite's run-loop
/// contract: a replica whose episode ended is reset before it is asked to act again, so
/// `select_actions` never sees a LAST timestep.
pub trait BatchAgent {
    /// The number of replicas held.
    fn len(&self) -> usize;

    /// True when no replica is left.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Chooses `actions[i]` for `timesteps[i]`, a FIRST or MID timestep, for every replica.
    fn select_actions(&mut self, timesteps: &[TimeStep], actions: &mut [usize]);

    /// Learns from every replica's transition `(timesteps[i], actions[i], new_timesteps[i])`.
    fn update(&mut self, timesteps: &[TimeStep], actions: &[usize], new_timesteps: &[TimeStep]);

    /// Keeps the replicas `i` with `keep[i]` and drops the others (their runs are over),
    /// preserving order.
    fn retain(&mut self, keep: &[bool]);
}

/// Any [`Agent`]s as a [`BatchAgent`]: each replica is called in turn.
///
/// ```
/// use bsuite_baselines::{random::Random, BatchAgent, OneByOne};
/// use bsuite_envs::{Environment, TimeStep};
///
/// let spec = bsuite_envs::load("catch/0").unwrap().action_spec();
/// let mut agents = OneByOne(vec![Random::new(spec, 1), Random::new(spec, 2)]);
/// let mut actions = [0; 2];
/// agents.select_actions(&[TimeStep::default(), TimeStep::default()], &mut actions);
/// agents.retain(&[false, true]);
/// assert_eq!(agents.len(), 1);
/// ```
pub struct OneByOne<A>(pub Vec<A>);

impl<A: Agent> BatchAgent for OneByOne<A> {
    fn len(&self) -> usize {
        self.0.len()
    }

    fn select_actions(&mut self, timesteps: &[TimeStep], actions: &mut [usize]) {
        for ((agent, timestep), action) in self.0.iter_mut().zip(timesteps).zip(actions) {
            *action = agent.select_action(timestep);
        }
    }

    fn update(&mut self, timesteps: &[TimeStep], actions: &[usize], new_timesteps: &[TimeStep]) {
        for (i, agent) in self.0.iter_mut().enumerate() {
            agent.update(&timesteps[i], actions[i], &new_timesteps[i]);
        }
    }

    fn retain(&mut self, keep: &[bool]) {
        let mut flags = keep.iter();
        self.0
            .retain(|_| *flags.next().expect("one flag per replica"));
    }
}

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

impl AgentEntry {
    /// The steps an episode of `id` typically takes this agent, for sweep planning
    /// (`--estimate`, batch order): where the agent's skill sets episode lengths (cartpole
    /// and mountain car), what the agent averaged in its shipped default sweep, else the
    /// experiment's own figure ([`BsuiteId::steps_per_episode`]).
    ///
    /// ```
    /// let dqn = bsuite_baselines::factory::agent("dqn").unwrap();
    /// let random = bsuite_baselines::factory::agent("random").unwrap();
    /// let cartpole = "cartpole/0".parse().unwrap();
    /// assert!(dqn.steps_per_episode(cartpole) > 5.0 * random.steps_per_episode(cartpole));
    /// ```
    pub fn steps_per_episode(&self, id: BsuiteId) -> f64 {
        let experiment = id.experiment();
        crate::agents::steps_per_episode(self.name)
            .iter()
            .find(|(table, _)| std::ptr::eq(*table, experiment))
            .map_or_else(|| id.steps_per_episode(), |&(_, steps)| steps)
    }

    /// The agent steps `episodes` episodes of `id` take this agent, for sweep planning.
    pub fn expected_agent_steps(&self, id: BsuiteId, episodes: usize) -> f64 {
        episodes as f64 * self.steps_per_episode(id).max(1.0)
    }
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
