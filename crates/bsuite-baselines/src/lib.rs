//! Agents for bsuite: the [`Agent`] trait users implement, the run loop, and baselines.

mod agent;
pub mod experiment;
pub mod factory;
pub mod random;
pub mod runner;
#[cfg(feature = "tch")]
pub mod tch_agents;

pub use agent::Agent;
pub use experiment::{run, run_verbose, run_with};
