//! Fast, seed-exact bsuite environments.
//!
//! `bsuite-envs` is a Rust port of the ten environments of DeepMind's Behaviour Suite for
//! Reinforcement Learning (bsuite 0.3.6), the reward wrappers, and the registry of its 23
//! experiments and 468 `bsuite_id`s. With the same seeds and actions it produces the same
//! timesteps as the Python reference, bit for bit, including numpy's legacy random number
//! generator ([`RandomState`]).
//!
//! ```
//! use bsuite_envs::Environment;
//!
//! let mut env = bsuite_envs::load("catch/0").unwrap();
//! let mut ts = env.reset();
//! let mut episode_return = 0.0;
//! while !ts.last() {
//!     ts = env.step(1).unwrap(); // 0 = left, 1 = stay, 2 = right
//!     episode_return += ts.reward.unwrap();
//! }
//! assert!(episode_return == 1.0 || episode_return == -1.0);
//! ```
//!
//! # Seeding
//!
//! bsuite 0.3.6 seeds many environments from OS entropy (`seed=None` in the sweep). We are
//! reproducible instead: every RNG the reference leaves unseeded gets the id's setting index
//! (plus an optional offset; see [`BsuiteId::default_env_seed`]), or an explicit seed via
//! [`BsuiteId::load_with_env_seed`]. This is our one deliberate deviation from the
//! reference; with the same seed the dynamics are identical.
//!
//! # Hot loops
//!
//! [`Environment::reset_into`] and [`Environment::step_into`] write into a caller-owned
//! [`TimeStep`], so a loop that keeps two timesteps and swaps them allocates nothing per step.

#![warn(missing_docs)]

mod environment;
pub mod environments;
pub mod experiments;
pub mod gym;
pub mod mnist_data;
mod observation;
mod registry;
mod rng;
pub mod wrappers;

pub use environment::{
    ActionError, ActionSpec, BsuiteInfo, Dynamics, Environment, Episodic, InfoValue,
    ObservationSpec, StepType, TimeStep,
};
pub use observation::Observation;
pub use registry::{
    experiment, experiments, ids_with_tag, load, register, select, sweep, testing, BsuiteId,
    Experiment, IdError, LoadError, RegisterError, SettingValue, Settings, Tag,
};
pub use rng::RandomState;
