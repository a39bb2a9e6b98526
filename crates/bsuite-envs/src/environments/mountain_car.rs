//! MountainCar: drive an under-powered car out of a valley by building momentum. Reward -1
//! per step; the episode ends at the goal or after `max_steps`.

use crate::environment::{ActionSpec, BsuiteInfo, Dynamics, InfoValue, ObservationSpec, TimeStep};
use crate::rng::RandomState;

const MIN_POS: f64 = -1.2;
const MAX_POS: f64 = 0.6;
const MAX_SPEED: f64 = 0.07;
const GOAL_POS: f64 = 0.5;
const FORCE: f64 = 0.001;
const GRAVITY: f64 = 0.0025;

/// The mountain car task (`bsuite.environments.mountain_car.MountainCar`).
#[derive(Debug, Clone)]
pub struct MountainCar {
    max_steps: usize,
    rng: RandomState,
    timestep: usize,
    raw_return: f64,
    position: f64,
    velocity: f64,
}

impl MountainCar {
    /// Mountain car with episodes of at most `max_steps`, start positions drawn from `seed`.
    pub fn new(max_steps: usize, seed: u32) -> Self {
        MountainCar {
            max_steps,
            rng: RandomState::new(seed),
            timestep: 0,
            raw_return: 0.0,
            position: 0.0,
            velocity: 0.0,
        }
    }

    /// `(position, velocity)`.
    pub fn state(&self) -> (f64, f64) {
        (self.position, self.velocity)
    }

    fn write_observation(&self, out: &mut TimeStep) {
        let obs = out.zeroed_observation(3);
        obs[0] = self.position as f32;
        obs[1] = self.velocity as f32;
        obs[2] = (self.timestep as f64 / self.max_steps as f64) as f32;
    }
}

impl Dynamics for MountainCar {
    const NAME: &'static str = "mountain_car";

    fn observation_spec(&self) -> ObservationSpec {
        ObservationSpec::float32(vec![1, 3], "observation")
    }

    fn action_spec(&self) -> ActionSpec {
        ActionSpec::new(3, "int32")
    }

    fn reset(&mut self, out: &mut TimeStep) {
        self.timestep = 0;
        self.position = self.rng.uniform(-0.6, -0.4);
        self.velocity = 0.0;
        out.set_restart();
        self.write_observation(out);
    }

    fn step(&mut self, action: usize, out: &mut TimeStep) {
        self.timestep += 1;
        let reward = -1.0;
        self.raw_return += reward;
        let push = (action as f64 - 1.0) * FORCE + (3.0 * self.position).cos() * (-GRAVITY);
        self.velocity = (self.velocity + push).clamp(-MAX_SPEED, MAX_SPEED);
        self.position = (self.position + self.velocity).clamp(MIN_POS, MAX_POS);
        if self.position == MIN_POS {
            self.velocity = self.velocity.clamp(0.0, MAX_SPEED);
        }
        if self.position >= GOAL_POS || self.timestep >= self.max_steps {
            out.set_termination(reward);
        } else {
            out.set_transition(reward);
        }
        self.write_observation(out);
    }

    fn bsuite_info(&self) -> BsuiteInfo {
        vec![("raw_return", InfoValue::Float(self.raw_return))]
    }
}
