//! Agents for bsuite: the [`Agent`] trait users implement, the run loop, and baselines.

mod agent;

pub use agent::Agent;
