//! DQN (bsuite's `baselines/jax/dqn`): Q-learning with a target network and uniform replay.

use bsuite_envs::{ActionSpec, ObservationSpec, RandomState, TimeStep};
use tch::Device;

use super::DqnConfig;
use crate::agents::q_learning::greedy;
use crate::agents::q_learning::q_ensemble::{QEnsemble, QEnsembleConfig};
use crate::agents::q_learning::replay::{Replay, Transition};
use crate::subnormals::FlushSubnormals;
use crate::Agent;

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
        crate::libtorch::init_threads();
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
        let _flush = FlushSubnormals::new();
        if self.rng.rand() < self.config.epsilon {
            return self.rng.randint(self.num_actions);
        }
        let q_values = self.q.q_values(0, &timestep.observation);
        greedy(&q_values, &mut self.rng)
    }

    fn update(&mut self, timestep: &TimeStep, action: usize, new_timestep: &TimeStep) {
        let _flush = FlushSubnormals::new();
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
