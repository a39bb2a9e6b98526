//! CartpoleSwingup: the pole starts hanging down; reward 1 only while it is upright, slow
//! and the cart is centred, and every push costs `move_cost`. A sparse-reward exploration
//! task.

use super::cartpole::{initial_state, step_cartpole, CartpoleState};
use crate::environment::{ActionSpec, BsuiteInfo, Dynamics, InfoValue, ObservationSpec, TimeStep};
use crate::rng::RandomState;

/// Swing-up parameters; the defaults are bsuite's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SwingupConfig {
    /// Upright while `cos(theta) > height_threshold`.
    pub height_threshold: f64,
    /// Upright requires `|theta_dot| < theta_dot_threshold`.
    pub theta_dot_threshold: f64,
    /// Upright requires `|x| < x_reward_threshold`.
    pub x_reward_threshold: f64,
    /// Cost of actions 0 and 2.
    pub move_cost: f64,
    /// Episodes end when `|x| > x_threshold`.
    pub x_threshold: f64,
    /// Seconds per step.
    pub timescale: f64,
    /// Episodes end once `time_elapsed > max_time`.
    pub max_time: f64,
    /// Initial state components are uniform in `+-init_range` (theta around pi).
    pub init_range: f64,
}

impl Default for SwingupConfig {
    fn default() -> Self {
        SwingupConfig {
            height_threshold: 0.5,
            theta_dot_threshold: 1.0,
            x_reward_threshold: 1.0,
            move_cost: 0.1,
            x_threshold: 3.0,
            timescale: 0.01,
            max_time: 10.0,
            init_range: 0.05,
        }
    }
}

/// The swing-up task (`bsuite.experiments.cartpole_swingup.CartpoleSwingup`).
#[derive(Debug, Clone)]
pub struct CartpoleSwingup {
    config: SwingupConfig,
    rng: RandomState,
    state: CartpoleState,
    raw_return: f64,
    total_upright: f64,
    best_episode: f64,
    episode_return: f64,
}

impl CartpoleSwingup {
    /// Swing-up with `config`, its initial states drawn from `seed`.
    pub fn new(config: SwingupConfig, seed: u32) -> Self {
        CartpoleSwingup {
            config,
            rng: RandomState::new(seed),
            state: CartpoleState::default(),
            raw_return: 0.0,
            total_upright: 0.0,
            best_episode: 0.0,
            episode_return: 0.0,
        }
    }

    /// The current physical state.
    pub fn state(&self) -> &CartpoleState {
        &self.state
    }

    fn write_observation(&self, out: &mut TimeStep) {
        let s = &self.state;
        let c = &self.config;
        let obs = out.zeroed_observation(8);
        obs[0] = (s.x / c.x_threshold) as f32;
        obs[1] = (s.x_dot / c.x_threshold) as f32;
        obs[2] = s.theta.sin() as f32;
        obs[3] = s.theta.cos() as f32;
        obs[4] = s.theta_dot as f32;
        obs[5] = (s.time_elapsed / c.max_time) as f32;
        obs[6] = if s.x.abs() < c.x_reward_threshold {
            1.0
        } else {
            -1.0
        };
        obs[7] = if s.theta_dot.abs() < c.theta_dot_threshold {
            1.0
        } else {
            -1.0
        };
    }
}

impl Dynamics for CartpoleSwingup {
    const NAME: &'static str = "cartpole_swingup";

    fn observation_spec(&self) -> ObservationSpec {
        // The reference names this spec 'state', not 'observation'.
        ObservationSpec::float32(vec![1, 8], "state")
    }

    fn action_spec(&self) -> ActionSpec {
        ActionSpec::new(3, "int64")
    }

    fn reset(&mut self, out: &mut TimeStep) {
        let mut state = initial_state(&mut self.rng, self.config.init_range);
        state.theta += std::f64::consts::PI;
        self.state = state;
        self.episode_return = 0.0;
        out.set_restart();
        self.write_observation(out);
    }

    fn step(&mut self, action: usize, out: &mut TimeStep) {
        let c = self.config;
        self.state = step_cartpole(action, c.timescale, &self.state);
        let s = self.state;
        let is_upright = s.theta.cos() > c.height_threshold
            && s.theta_dot.abs() < c.theta_dot_threshold
            && s.x.abs() < c.x_reward_threshold;
        // Quirk: action 1 costs -0.0 (a negative zero), as in the reference.
        let mut reward = -(action as f64 - 1.0).abs() * c.move_cost;
        if is_upright {
            reward += 1.0;
            self.total_upright += 1.0;
        }
        self.raw_return += reward;
        self.episode_return += reward;
        // Quirk: as in cartpole, a full episode lasts 1001 steps.
        if s.time_elapsed > c.max_time || s.x.abs() > c.x_threshold {
            self.best_episode = self.episode_return.max(self.best_episode);
            out.set_termination(reward);
        } else {
            out.set_transition(reward);
        }
        self.write_observation(out);
    }

    fn bsuite_info(&self) -> BsuiteInfo {
        vec![
            ("raw_return", InfoValue::Float(self.raw_return)),
            ("total_upright", InfoValue::Float(self.total_upright)),
            ("best_episode", InfoValue::Float(self.best_episode)),
        ]
    }
}
