//! Bootstrapped DQN with randomized prior functions (bsuite's `baselines/jax/boot_dqn`).
//!
//! - Configuration: [`BootDqnConfig`], read from the keys of the `boot_dqn` table in
//!   [`crate::config`].
//! - Readable definition: `libtorch.rs` (feature `libtorch`).
//! - Host engine: [`DqnReplicas::bootstrapped`](crate::agents::DqnReplicas::bootstrapped),
//!   shared with DQN in [`crate::agents::q_learning`].
//! - Factory entry: `entry` below.

#[cfg(feature = "libtorch")]
pub(crate) mod libtorch;

use bsuite_envs::{experiments, Experiment};

use crate::agent::{AgentEntry, Batching};
use crate::agents::dqn::DqnConfig;
use crate::agents::q_learning::host::{DqnReplicas, EnsembleSettings, Settings};
use crate::agents::q_learning::replay_keys;
use crate::agents::{described, Engines};
use crate::config::{AgentConfig, Key, Kind, Optimizer, AT_LEAST_ONE, UNIT};
use crate::host::ReplicaSpec;

/// Bootstrapped DQN's hyperparameters; [`Default`] is bsuite's JAX `default_agent`, and
/// [`BootDqnConfig::from_config`] reads them from the keys of [`crate::config`].
#[derive(Clone, Debug, PartialEq)]
pub struct BootDqnConfig {
    /// What it shares with DQN: optimiser (one state per member), learning rate, hidden
    /// sizes (of each member's network and prior network), batch size, discount, replay,
    /// SGD and target periods, and ε (JAX's ε(t) = 0).
    pub base: DqnConfig,
    /// Ensemble members.
    pub num_ensemble: usize,
    /// Scale of the frozen prior network added to each member.
    pub prior_scale: f64,
    /// Probability that a member trains on a transition.
    pub mask_prob: f64,
    /// Scale of the Gaussian noise added to each member's reward: every transition draws
    /// a standard normal `z_k` per member (after its mask), and member `k` trains on
    /// `r + noise_scale·z_k`. bsuite draws `z` even at scale 0 (its default); this agent
    /// draws nothing then, so its random stream differs from bsuite's there as it always
    /// has (quirk 35 already gives each agent its own stream).
    pub noise_scale: f64,
}

impl Default for BootDqnConfig {
    fn default() -> Self {
        BootDqnConfig {
            base: DqnConfig {
                optimizer: Optimizer::Adam,
                hidden: vec![50, 50],
                learning_rate: 1e-3,
                batch_size: 128,
                discount: 0.99,
                replay_capacity: 10_000,
                min_replay_size: 128,
                sgd_period: 1,
                target_update_period: 4,
                epsilon: 0.0,
            },
            num_ensemble: 20,
            prior_scale: 5.0,
            mask_prob: 1.0,
            noise_scale: 0.0,
        }
    }
}

impl BootDqnConfig {
    /// The configuration `config` describes: DQN's keys (see [`DqnConfig::from_config`])
    /// and `num_ensemble`, `prior_scale`, `mask_prob` and `noise_scale`. The defaults of
    /// boot_dqn's table give [`BootDqnConfig::default`].
    ///
    /// ```
    /// use bsuite_baselines::config::AgentConfig;
    /// use bsuite_baselines::agents::BootDqnConfig;
    ///
    /// let mut config = AgentConfig::defaults("boot_dqn").unwrap();
    /// assert_eq!(BootDqnConfig::from_config(&config), BootDqnConfig::default());
    /// config.set_pair("num_ensemble=1").unwrap();
    /// assert_eq!(BootDqnConfig::from_config(&config).num_ensemble, 1);
    /// ```
    ///
    /// Panics when `config` lacks one of these keys (another agent's configuration).
    pub fn from_config(config: &AgentConfig) -> Self {
        BootDqnConfig {
            base: DqnConfig::from_config(config),
            num_ensemble: config.count("num_ensemble"),
            prior_scale: config.float("prior_scale"),
            mask_prob: config.float("mask_prob"),
            noise_scale: config.float("noise_scale"),
        }
    }

    #[cfg(feature = "libtorch")]
    /// The scaled reward noise of one transition, one value per member (drawn in member
    /// order, as numpy's `randn(num_ensemble)`), or nothing at scale 0.
    pub(crate) fn draw_noise(&self, rng: &mut bsuite_envs::RandomState, noise: &mut [f32]) {
        if self.noise_scale > 0.0 {
            let scale = self.noise_scale as f32;
            for z in noise {
                *z = scale * rng.randn() as f32;
            }
        }
    }
}

fn host(config: &AgentConfig, specs: &[ReplicaSpec]) -> DqnReplicas {
    DqnReplicas::bootstrapped(BootDqnConfig::from_config(config), specs)
}

#[cfg(feature = "libtorch")]
fn tensor(s: &crate::agent::AgentSetup) -> Box<dyn crate::Agent> {
    Box::new(libtorch::BootDqn::new(
        &s.observation_spec,
        &s.action_spec,
        BootDqnConfig::from_config(&s.config),
        s.seed,
        crate::libtorch::torch_device(s),
    ))
}

const ENGINES: Engines<DqnReplicas> = Engines {
    host,
    #[cfg(feature = "libtorch")]
    libtorch: tensor,
};

/// Bootstrapped DQN's keys: DQN's with its own defaults, and the ensemble's.
pub(crate) static KEYS: [Key; 15] = {
    let base = replay_keys("0.001", "50,50", "128", "128", "0");
    [
        base[0],
        base[1],
        base[2],
        base[3],
        base[4],
        base[5],
        base[6],
        base[7],
        base[8],
        base[9],
        base[10],
        Key {
            name: "num_ensemble",
            kind: AT_LEAST_ONE,
            default: "20",
            doc: "ensemble members, each with its own network, prior and bootstrap mask",
        },
        Key {
            name: "prior_scale",
            kind: Kind::Float {
                low: 0.0,
                low_open: false,
                high: f64::MAX,
            },
            default: "5",
            doc: "scale of each member's fixed random prior network",
        },
        Key {
            name: "mask_prob",
            kind: UNIT,
            default: "1",
            doc: "probability that a member trains on a transition (the bootstrap mask)",
        },
        Key {
            name: "noise_scale",
            kind: Kind::Float {
                low: 0.0,
                low_open: false,
                high: f64::MAX,
            },
            default: "0",
            doc: "scale of the Gaussian noise each member adds to a transition's reward",
        },
    ]
};

/// Mean steps per episode in `baselines/boot_dqn` (seed 42) on the experiments where the
/// agent's skill sets episode lengths; sweep planning only
/// ([`AgentEntry::steps_per_episode`]).
pub(crate) static STEPS_PER_EPISODE: [(&Experiment, f64); 7] = [
    (&experiments::cartpole::EXPERIMENT, 380.0),
    (&experiments::cartpole_noise::EXPERIMENT, 381.0),
    (&experiments::cartpole_scale::EXPERIMENT, 333.0),
    (&experiments::cartpole_swingup::EXPERIMENT, 492.0),
    (&experiments::mountain_car::EXPERIMENT, 167.0),
    (&experiments::mountain_car_noise::EXPERIMENT, 234.0),
    (&experiments::mountain_car_scale::EXPERIMENT, 422.0),
];

/// Bootstrapped DQN's factory entry.
pub(crate) fn entry() -> AgentEntry {
    AgentEntry {
        name: "boot_dqn",
        keys: &KEYS,
        description: described!("bootstrapped DQN, 20 members with prior networks (scale 5)"),
        make: |s| ENGINES.one(s),
        batching: Some(Batching {
            key: |s| DqnReplicas::batch_key(&s.action_spec),
            make: |s| ENGINES.batch(s),
            // A replica's 20 members already make each product a batch; more replicas
            // only add cache pressure (catch: 0.68 ms a step alone, 1.04 ms in a batch
            // of 20, `cargo xtask bench agents`).
            default_size: 1,
        }),
    }
}

impl DqnReplicas {
    /// Bootstrapped DQN with randomized prior functions, one replica (an ensemble) per
    /// spec: every member's online network, then every target, then every prior and every
    /// target's prior, member after member and layer after layer, from the replica's seed.
    pub fn bootstrapped(config: BootDqnConfig, specs: &[ReplicaSpec]) -> Self {
        Self::with_settings(config.into(), specs)
    }
}

/// Bootstrapped DQN is DQN's settings with an ensemble.
impl From<BootDqnConfig> for Settings {
    fn from(c: BootDqnConfig) -> Self {
        Settings {
            members: c.num_ensemble,
            ensemble: Some(EnsembleSettings {
                prior_scale: c.prior_scale as f32,
                mask_prob: c.mask_prob,
                noise_scale: c.noise_scale,
            }),
            ..Settings::from(c.base)
        }
    }
}
