//! DQN (bsuite's `baselines/jax/dqn`): Q-learning with a target network and uniform
//! replay, ε-greedy.
//!
//! - Configuration: [`DqnConfig`], read from the keys of the `dqn` table in
//!   [`crate::config`].
//! - Readable definition: `libtorch.rs`, the autograd form to set beside bsuite's JAX agent
//!   (feature `libtorch`).
//! - Host engine: [`DqnReplicas::new`](crate::agents::DqnReplicas::new), shared with
//!   bootstrapped DQN in [`crate::agents::q_learning`].
//! - Factory entry: `entry` below.

#[cfg(feature = "libtorch")]
pub(crate) mod libtorch;

use bsuite_envs::{experiments, Experiment};

use crate::agent::{AgentEntry, Batching};
use crate::agents::q_learning::host::{DqnReplicas, Settings};
use crate::agents::q_learning::replay_keys;
use crate::agents::{described, Engines};
use crate::config::{AgentConfig, Key, Optimizer};
use crate::host::ReplicaSpec;

/// DQN's hyperparameters; [`Default`] is bsuite's JAX `default_agent`, and
/// [`DqnConfig::from_config`] reads them from the keys of [`crate::config`].
#[derive(Clone, Debug, PartialEq)]
pub struct DqnConfig {
    /// The optimiser (Adam in bsuite), with optax's defaults but for the learning rate.
    pub optimizer: Optimizer,
    /// Hidden layer sizes of the Q-network `Flatten → MLP[hidden..., actions]`.
    pub hidden: Vec<usize>,
    /// The optimiser's learning rate.
    pub learning_rate: f64,
    /// Transitions per SGD step.
    pub batch_size: usize,
    /// The agent's discount (multiplies the environment's).
    pub discount: f32,
    /// Replay capacity.
    pub replay_capacity: usize,
    /// Transitions in replay before learning starts.
    pub min_replay_size: usize,
    /// Environment steps per SGD step.
    pub sgd_period: u64,
    /// SGD steps between target network copies.
    pub target_update_period: u64,
    /// Probability of a uniformly random action.
    pub epsilon: f64,
}

impl Default for DqnConfig {
    fn default() -> Self {
        DqnConfig {
            optimizer: Optimizer::Adam,
            hidden: vec![64, 64],
            learning_rate: 1e-3,
            batch_size: 32,
            discount: 0.99,
            replay_capacity: 10_000,
            min_replay_size: 100,
            sgd_period: 1,
            target_update_period: 4,
            epsilon: 0.05,
        }
    }
}

impl DqnConfig {
    /// The configuration `config` describes: its keys `optimizer`, `learning_rate`,
    /// `discount`, `hidden_sizes`, `batch_size`, `replay_capacity`, `min_replay_size`,
    /// `sgd_period`, `target_update_period` and `epsilon` (dqn's and boot_dqn's). The
    /// defaults of dqn's table give [`DqnConfig::default`].
    ///
    /// ```
    /// use bsuite_baselines::config::{AgentConfig, Optimizer};
    /// use bsuite_baselines::agents::DqnConfig;
    ///
    /// let mut config = AgentConfig::defaults("dqn").unwrap();
    /// assert_eq!(DqnConfig::from_config(&config), DqnConfig::default());
    /// config.set_pair("optimizer=rmsprop").unwrap();
    /// assert_eq!(DqnConfig::from_config(&config).optimizer, Optimizer::RmsProp);
    /// ```
    ///
    /// Panics when `config` lacks one of these keys (another agent's configuration).
    pub fn from_config(config: &AgentConfig) -> Self {
        DqnConfig {
            optimizer: config.optimizer(),
            hidden: config.widths("hidden_sizes").to_vec(),
            learning_rate: config.float("learning_rate"),
            batch_size: config.count("batch_size"),
            discount: config.float("discount") as f32,
            replay_capacity: config.count("replay_capacity"),
            min_replay_size: config.count("min_replay_size"),
            sgd_period: config.count("sgd_period") as u64,
            target_update_period: config.count("target_update_period") as u64,
            epsilon: config.float("epsilon"),
        }
    }
}

fn host(config: &AgentConfig, specs: &[ReplicaSpec]) -> DqnReplicas {
    DqnReplicas::new(DqnConfig::from_config(config), specs)
}

#[cfg(feature = "libtorch")]
fn tensor(s: &crate::agent::AgentSetup) -> Box<dyn crate::Agent> {
    Box::new(libtorch::Dqn::new(
        &s.observation_spec,
        &s.action_spec,
        DqnConfig::from_config(&s.config),
        s.seed,
        crate::libtorch::torch_device(s),
    ))
}

const ENGINES: Engines<DqnReplicas> = Engines {
    host,
    #[cfg(feature = "libtorch")]
    libtorch: tensor,
};

/// DQN's keys: bsuite's `default_agent`.
pub(crate) static KEYS: [Key; 11] = replay_keys("0.001", "64,64", "32", "100", "0.05");

/// Mean steps per episode in `baselines/dqn` (5 seeds) on the experiments where the
/// agent's skill sets episode lengths; sweep planning only
/// ([`AgentEntry::steps_per_episode`]).
pub(crate) static STEPS_PER_EPISODE: [(&Experiment, f64); 7] = [
    (&experiments::cartpole::EXPERIMENT, 688.0),
    (&experiments::cartpole_noise::EXPERIMENT, 668.0),
    (&experiments::cartpole_scale::EXPERIMENT, 484.0),
    (&experiments::cartpole_swingup::EXPERIMENT, 924.0),
    (&experiments::mountain_car::EXPERIMENT, 164.0),
    (&experiments::mountain_car_noise::EXPERIMENT, 188.0),
    (&experiments::mountain_car_scale::EXPERIMENT, 266.0),
];

/// DQN's factory entry.
pub(crate) fn entry() -> AgentEntry {
    AgentEntry {
        name: "dqn",
        keys: &KEYS,
        description: described!("DQN: MLP[64,64], Adam 1e-3, batch 32, replay 10000, ε 0.05"),
        make: |s| ENGINES.one(s),
        batching: Some(Batching {
            key: |s| DqnReplicas::batch_key(&s.action_spec),
            make: |s| ENGINES.batch(s),
            // A step makes no LibTorch call to amortise, and a replica alone keeps its
            // data in cache: the 20 catch ids, 1000 episodes, take 2.56-2.65 s one by
            // one against 2.89-2.93 s in a batch of 32 (deep_sea and mnist: 2.9 s
            // against 3.4 s).
            default_size: 1,
        }),
    }
}

impl DqnReplicas {
    /// DQN, one replica per spec, each initialised from its own seed exactly as a lone
    /// agent would be: online weights layer by layer, then target weights (quirk 30: the
    /// target starts from its own draw), TruncatedNormal(1/sqrt(fan_in)), zero biases.
    pub fn new(config: DqnConfig, specs: &[ReplicaSpec]) -> Self {
        Self::with_settings(config.into(), specs)
    }
}

/// DQN is the shared engine with one member and no ensemble.
impl From<DqnConfig> for Settings {
    fn from(c: DqnConfig) -> Self {
        Settings {
            optimizer: c.optimizer,
            hidden: c.hidden,
            learning_rate: c.learning_rate,
            batch_size: c.batch_size,
            discount: c.discount,
            replay_capacity: c.replay_capacity,
            min_replay_size: c.min_replay_size,
            sgd_period: c.sgd_period,
            target_update_period: c.target_update_period,
            epsilon: c.epsilon,
            members: 1,
            ensemble: None,
        }
    }
}
