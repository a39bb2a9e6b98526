//! Bootstrapped DQN with randomized prior functions (bsuite's `baselines/jax/boot_dqn`).

use bsuite_envs::{ActionSpec, Observation, ObservationSpec, RandomState, TimeStep};
use tch::Device;

use super::q_ensemble::{greedy, QEnsemble, QEnsembleConfig, QHead};
use super::replay::{Replay, Transition};
use crate::Agent;

/// Bootstrapped DQN's hyperparameters; [`Default`] is bsuite's JAX `default_agent`
/// (reward noise is left out: its scale is 0 there).
#[derive(Clone, Debug, PartialEq)]
pub struct BootDqnConfig {
    /// Ensemble members.
    pub num_ensemble: usize,
    /// Hidden layer sizes of each member's network and prior network.
    pub hidden: Vec<usize>,
    /// Scale of the frozen prior network added to each member.
    pub prior_scale: f64,
    /// Adam's learning rate (one optimiser state per member).
    pub learning_rate: f64,
    /// Transitions per SGD step.
    pub batch_size: usize,
    /// The agent's discount.
    pub discount: f32,
    /// Replay capacity.
    pub replay_capacity: usize,
    /// Transitions in replay before learning starts.
    pub min_replay_size: usize,
    /// Environment steps per SGD step.
    pub sgd_period: u64,
    /// SGD steps between target copies.
    pub target_update_period: u64,
    /// Probability that a member trains on a transition.
    pub mask_prob: f64,
    /// Probability of a uniformly random action (JAX's ε(t) = 0).
    pub epsilon: f64,
}

impl Default for BootDqnConfig {
    fn default() -> Self {
        BootDqnConfig {
            num_ensemble: 20,
            hidden: vec![50, 50],
            prior_scale: 5.0,
            learning_rate: 1e-3,
            batch_size: 128,
            discount: 0.99,
            replay_capacity: 10_000,
            min_replay_size: 128,
            sgd_period: 1,
            target_update_period: 4,
            mask_prob: 1.0,
            epsilon: 0.0,
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
        super::init_threads();
        let obs_len = observation_spec.len();
        let num_actions = action_spec.num_actions;
        let mut rng = RandomState::new(seed);
        let mut sizes = vec![obs_len];
        sizes.extend(&config.hidden);
        sizes.push(num_actions);
        let ensemble = QEnsemble::new(
            &QEnsembleConfig {
                members: config.num_ensemble,
                sizes,
                prior_scale: Some(config.prior_scale),
                learning_rate: config.learning_rate,
                discount: config.discount,
            },
            &mut rng,
            device,
        );
        BootDqn {
            active: ensemble.snapshot(0),
            replay: Replay::new(
                config.replay_capacity,
                obs_len,
                config.num_ensemble,
                config.num_ensemble * num_actions,
            ),
            last_prior: None,
            mask: vec![1.0; config.num_ensemble],
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
        if self.config.epsilon > 0.0 && self.rng.rand() < self.config.epsilon {
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
        });
        self.last_prior = Some((new_timestep.observation.clone(), prior_t));
        if self.replay.size() < self.config.min_replay_size {
            return;
        }
        if self.total_steps.is_multiple_of(self.config.sgd_period) {
            let batch = self.replay.sample(
                &mut self.rng,
                self.config.batch_size,
                self.ensemble.device(),
            );
            self.ensemble.sgd_step(&batch);
        }
        // As in JAX this check runs on every update past the warm-up, SGD or not; all
        // members step together, so one check covers them all.
        if self
            .ensemble
            .sgd_steps
            .is_multiple_of(self.config.target_update_period)
        {
            self.ensemble.update_targets();
        }
    }
}
