//! Bootstrapped DQN with randomized prior functions (bsuite's `baselines/jax/boot_dqn`).

use bsuite_envs::{ActionSpec, Observation, ObservationSpec, RandomState, TimeStep};
use tch::Device;

use crate::agents::dqn::libtorch::DqnConfig;
use crate::agents::q_learning::q_ensemble::{greedy, QEnsemble, QEnsembleConfig, QHead};
use crate::agents::q_learning::replay::{Replay, Transition};
use crate::config::{AgentConfig, Optimizer};
use crate::Agent;

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

    /// The scaled reward noise of one transition, one value per member (drawn in member
    /// order, as numpy's `randn(num_ensemble)`), or nothing at scale 0.
    pub(crate) fn draw_noise(&self, rng: &mut RandomState, noise: &mut [f32]) {
        if self.noise_scale > 0.0 {
            let scale = self.noise_scale as f32;
            for z in noise {
                *z = scale * rng.randn() as f32;
            }
        }
    }
}

/// An ensemble of Q-networks acting by Thompson sampling: one member, drawn at random at
/// the end of every episode, acts greedily for the next. All members train on the same
/// batch in one batched step.
pub struct BootDqn {
    config: BootDqnConfig,
    num_actions: usize,
    ensemble: QEnsemble,
    /// The acting member. Quirk 32: JAX keeps a snapshot of the member's parameters taken
    /// when it was drawn, so it does not see later SGD steps until the next draw.
    active: QHead,
    replay: Replay,
    rng: RandomState,
    total_steps: u64,
    mask: Vec<f32>,
    /// This transition's scaled reward noise, one per member (empty at scale 0).
    noise: Vec<f32>,
    /// The prior values of the last `o_t`, which is the next transition's `o_tm1` within an
    /// episode.
    last_prior: Option<(Observation, Vec<f32>)>,
}

impl BootDqn {
    /// A bootstrapped DQN agent for these specs (observations are flattened).
    pub fn new(
        observation_spec: &ObservationSpec,
        action_spec: &ActionSpec,
        config: BootDqnConfig,
        seed: u32,
        device: Device,
    ) -> Self {
        crate::agents::init_threads();
        let obs_len = observation_spec.len();
        let num_actions = action_spec.num_actions;
        let mut rng = RandomState::new(seed);
        let mut sizes = vec![obs_len];
        sizes.extend(&config.base.hidden);
        sizes.push(num_actions);
        // Reward noise is stored only where it is drawn.
        let noise_len = if config.noise_scale > 0.0 {
            config.num_ensemble
        } else {
            0
        };
        let ensemble = QEnsemble::new(
            &QEnsembleConfig {
                members: config.num_ensemble,
                sizes,
                prior_scale: Some(config.prior_scale),
                optimizer: config.base.optimizer,
                learning_rate: config.base.learning_rate,
                discount: config.base.discount,
            },
            &mut rng,
            device,
        );
        BootDqn {
            active: ensemble.snapshot(0),
            replay: Replay::new(
                config.base.replay_capacity,
                obs_len,
                config.num_ensemble,
                config.num_ensemble * num_actions,
                noise_len,
            ),
            last_prior: None,
            mask: vec![1.0; config.num_ensemble],
            noise: vec![0.0; noise_len],
            config,
            num_actions,
            ensemble,
            rng,
            total_steps: 0,
        }
    }
}

impl BootDqn {
    fn prior_values(&self, observation: &[f32]) -> Vec<f32> {
        self.ensemble
            .prior_values(observation)
            .expect("bootstrapped DQN has priors")
    }
}

impl Agent for BootDqn {
    fn select_action(&mut self, timestep: &TimeStep) -> usize {
        self.total_steps += 1;
        if self.config.base.epsilon > 0.0 && self.rng.rand() < self.config.base.epsilon {
            return self.rng.randint(self.num_actions);
        }
        let q_values = self
            .active
            .q_values(&timestep.observation, self.ensemble.device());
        greedy(&q_values, &mut self.rng)
    }

    fn update(&mut self, timestep: &TimeStep, action: usize, new_timestep: &TimeStep) {
        if new_timestep.last() {
            let k = self.rng.randint(self.config.num_ensemble);
            self.active = self.ensemble.snapshot(k);
        }
        if self.config.mask_prob < 1.0 {
            for m in &mut self.mask {
                *m = f32::from(self.rng.bernoulli(self.config.mask_prob));
            }
        }
        self.config.draw_noise(&mut self.rng, &mut self.noise);
        let prior_tm1 = match self.last_prior.take() {
            Some((obs, prior)) if obs == timestep.observation => prior,
            _ => self.prior_values(&timestep.observation),
        };
        let prior_t = self.prior_values(&new_timestep.observation);
        self.replay.add(Transition {
            o_tm1: &timestep.observation,
            action,
            reward: new_timestep.reward_or_zero() as f32,
            discount: new_timestep.discount.unwrap_or(0.0) as f32,
            o_t: &new_timestep.observation,
            mask: &self.mask,
            prior_tm1: &prior_tm1,
            prior_t: &prior_t,
            noise: &self.noise,
        });
        self.last_prior = Some((new_timestep.observation.clone(), prior_t));
        if self.replay.size() < self.config.base.min_replay_size {
            return;
        }
        if self.total_steps.is_multiple_of(self.config.base.sgd_period) {
            let batch = self.replay.sample(
                &mut self.rng,
                self.config.base.batch_size,
                self.ensemble.device(),
            );
            self.ensemble.sgd_step(&batch);
        }
        // As in JAX this check runs on every update past the warm-up, SGD or not; all
        // members step together, so one check covers them all.
        if self
            .ensemble
            .sgd_steps
            .is_multiple_of(self.config.base.target_update_period)
        {
            self.ensemble.update_targets();
        }
    }
}
