//! Bootstrapped DQN with randomized prior functions (bsuite's `baselines/jax/boot_dqn`).

use bsuite_envs::{ActionSpec, Observation, ObservationSpec, RandomState, TimeStep};
use tch::Device;

use super::BootDqnConfig;
use crate::agents::q_learning::greedy;
use crate::agents::q_learning::q_ensemble::{QEnsemble, QEnsembleConfig, QHead};
use crate::agents::q_learning::replay::{Replay, Transition};
use crate::subnormals::FlushSubnormals;
use crate::Agent;

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
        crate::libtorch::init_threads();
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
        let _flush = FlushSubnormals::new();
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
        let _flush = FlushSubnormals::new();
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
