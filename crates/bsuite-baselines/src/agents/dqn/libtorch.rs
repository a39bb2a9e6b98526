//! DQN (bsuite's `baselines/jax/dqn`): Q-learning with a target network and uniform replay.

use bsuite_envs::{ActionSpec, ObservationSpec, RandomState, TimeStep};
use tch::Device;

use crate::agents::q_learning::q_ensemble::{greedy, QEnsemble, QEnsembleConfig};
use crate::agents::q_learning::replay::{Replay, Transition};
use crate::config::{AgentConfig, Optimizer};
use crate::Agent;

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

/// ε-greedy DQN. Every random draw comes from its own generator seeded with the agent seed.
pub struct Dqn {
    config: DqnConfig,
    num_actions: usize,
    q: QEnsemble,
    replay: Replay,
    rng: RandomState,
    total_steps: u64,
}

impl Dqn {
    /// A DQN agent for these specs (observations are flattened).
    pub fn new(
        observation_spec: &ObservationSpec,
        action_spec: &ActionSpec,
        config: DqnConfig,
        seed: u32,
        device: Device,
    ) -> Self {
        crate::agents::init_threads();
        let obs_len = observation_spec.len();
        let num_actions = action_spec.num_actions;
        let mut rng = RandomState::new(seed);
        let mut sizes = vec![obs_len];
        sizes.extend(&config.hidden);
        sizes.push(num_actions);
        let q = QEnsemble::new(
            &QEnsembleConfig {
                members: 1,
                sizes,
                prior_scale: None,
                optimizer: config.optimizer,
                learning_rate: config.learning_rate,
                discount: config.discount,
            },
            &mut rng,
            device,
        );
        Dqn {
            replay: Replay::new(config.replay_capacity, obs_len, 0, 0, 0),
            config,
            num_actions,
            q,
            rng,
            total_steps: 0,
        }
    }
}

impl Agent for Dqn {
    fn select_action(&mut self, timestep: &TimeStep) -> usize {
        if self.rng.rand() < self.config.epsilon {
            return self.rng.randint(self.num_actions);
        }
        let q_values = self.q.q_values(0, &timestep.observation);
        greedy(&q_values, &mut self.rng)
    }

    fn update(&mut self, timestep: &TimeStep, action: usize, new_timestep: &TimeStep) {
        self.replay.add(Transition {
            o_tm1: &timestep.observation,
            action,
            reward: new_timestep.reward_or_zero() as f32,
            discount: new_timestep.discount.unwrap_or(0.0) as f32,
            o_t: &new_timestep.observation,
            mask: &[],
            prior_tm1: &[],
            prior_t: &[],
            noise: &[],
        });
        self.total_steps += 1;
        if !self.total_steps.is_multiple_of(self.config.sgd_period)
            || self.replay.size() < self.config.min_replay_size
        {
            return;
        }
        let batch = self
            .replay
            .sample(&mut self.rng, self.config.batch_size, self.q.device());
        self.q.sgd_step(&batch);
        // The JAX agent counts SGD steps here; TF's counts environment steps (quirk 34).
        if self
            .q
            .sgd_steps
            .is_multiple_of(self.config.target_update_period)
        {
            self.q.update_targets();
        }
    }
}
