//! A gymnasium-style view of an [`Environment`]: `reset` returns an observation, `step`
//! returns `(observation, reward, terminated, truncated)`.
//!
//! bsuite ends every episode with a dm_env `termination` (discount 0), including episodes
//! cut by a time limit, so through this view `truncated` is always false for bsuite
//! environments; it is true only for a LAST timestep whose discount is non-zero.
//!
//! ```
//! use bsuite_envs::gym::GymEnv;
//!
//! let mut env = GymEnv::new(bsuite_envs::load("bandit/0").unwrap());
//! let obs = env.reset();
//! assert_eq!(obs, &[1.0]);
//! let step = env.step(3).unwrap();
//! assert_eq!((step.reward, step.terminated, step.truncated), (1.0, true, false));
//! ```

use crate::environment::{ActionError, Environment, TimeStep};

/// The result of [`GymEnv::step`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GymStep<'a> {
    /// The new observation (row-major).
    pub observation: &'a [f32],
    /// The reward (0.0 on an auto-reset).
    pub reward: f64,
    /// The episode ended in a terminal state (discount 0).
    pub terminated: bool,
    /// The episode was cut short with a non-zero discount.
    pub truncated: bool,
}

/// Gymnasium conventions over a dm_env-style environment.
pub struct GymEnv<E> {
    env: E,
    timestep: TimeStep,
}

impl<E: Environment> GymEnv<E> {
    /// Wraps `env`.
    pub fn new(env: E) -> Self {
        GymEnv {
            env,
            timestep: TimeStep::default(),
        }
    }

    /// The wrapped environment.
    pub fn inner(&self) -> &E {
        &self.env
    }

    /// Starts an episode and returns its first observation.
    pub fn reset(&mut self) -> &[f32] {
        self.env.reset_into(&mut self.timestep);
        &self.timestep.observation
    }

    /// Takes one step. After an episode ends, call [`GymEnv::reset`]; stepping instead
    /// starts a new episode as dm_env does (reward 0, neither flag set).
    pub fn step(&mut self, action: usize) -> Result<GymStep<'_>, ActionError> {
        self.env.step_into(action, &mut self.timestep)?;
        let ts = &self.timestep;
        let ended = ts.last();
        let discount = ts.discount.unwrap_or(1.0);
        Ok(GymStep {
            observation: &ts.observation,
            reward: ts.reward_or_zero(),
            terminated: ended && discount == 0.0,
            truncated: ended && discount != 0.0,
        })
    }
}
