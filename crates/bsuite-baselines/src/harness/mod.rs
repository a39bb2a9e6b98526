//! The harness any agent uses: the [`Agent`](crate::Agent) traits, the run loops, the
//! runner and sweep, estimates, the shard and console helpers.

pub(crate) mod agent;
pub mod config;
pub mod console;
pub mod estimate;
pub mod experiment;
pub mod factory;
pub mod runner;
pub(crate) mod shard;
pub mod sweep;
