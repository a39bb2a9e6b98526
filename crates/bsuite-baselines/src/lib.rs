//! Agents for bsuite: the [`Agent`] trait users implement, the run loop, and baselines.
//!
//! # Your own agent on the whole suite
//!
//! Implement [`Agent`] (`select_action` and `update`), name its constructor in a
//! [`factory::AgentEntry`], and pass it to [`runner::run_ids`] with the ids to run, e.g.
//! all 468 of [`bsuite_envs::sweep`]: each id gets a fresh agent and one bsuite CSV file,
//! ids run in parallel, and a re-run skips finished ids. `bsuite-analysis` then scores the
//! results directory (`cargo xtask score DIR` prints the scores). The example
//! `examples/custom_agent.rs` does all of this in a page:
//! `cargo run --release -p bsuite-baselines --example custom_agent -- SWEEP`.
//!
//! The LibTorch baselines (`dqn`, `boot_dqn`, `actor_critic`, `actor_critic_rnn`) are in
//! `tch_agents`, built with the `tch` feature; `cargo xtask bench-all dqn` provisions
//! LibTorch and runs them.

pub mod harness;
use harness::{agent, shard};
pub use harness::{config, console, estimate, experiment, factory, runner, sweep};

pub mod agents;
pub mod host;
#[cfg(feature = "libtorch")]
pub mod libtorch;
pub use agents::random;

pub use agent::{Agent, BatchAgent, OneByOne};
pub use experiment::{run, run_lockstep, run_verbose, run_with};

/// One writer per results directory: the lock lives with the results format, in
/// `bsuite-logging`, so that every writer (the Python package's recorders too) takes it.
pub use bsuite_logging::dir_lock;
