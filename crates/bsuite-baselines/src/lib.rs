//! Agents for bsuite: the [`Agent`] trait users implement, the run loop, and baselines.
//!
//! # Your own agent on the whole suite
//!
//! Implement [`Agent`] (`select_action` and `update`), name its constructor in a
//! [`factory::AgentEntry`], and pass it to [`runner::run_ids`] with the ids to run, e.g.
//! all 468 of [`bsuite_envs::sweep`]: each id gets a fresh agent and one bsuite CSV file,
//! ids run in parallel, and a re-run skips finished ids. `bsuite-analysis` then scores the
//! results directory (`bsuite score DIR` prints the scores). The example
//! `examples/custom_agent.rs` does all of this in a page:
//! `cargo run --release -p bsuite-baselines --example custom_agent -- SWEEP`.
//!
//! ```
//! use bsuite_baselines::factory::{AgentEntry, AgentSetup};
//! use bsuite_baselines::runner::{self, Progress, RunnerOptions};
//! use bsuite_baselines::Agent;
//! use bsuite_envs::TimeStep;
//!
//! /// Always stays put (action 1 of catch).
//! struct Stay;
//!
//! impl Agent for Stay {
//!     fn select_action(&mut self, _: &TimeStep) -> usize {
//!         1
//!     }
//!     fn update(&mut self, _: &TimeStep, _: usize, _: &TimeStep) {}
//! }
//!
//! let entry = AgentEntry {
//!     name: "stay",
//!     description: "always action 1",
//!     keys: &[],
//!     make: |_: &AgentSetup| Box::new(Stay),
//!     batching: None,
//! };
//! let dir = std::env::temp_dir().join(format!("bsuite-baselines-doc-{}", std::process::id()));
//! let options = RunnerOptions {
//!     results_dir: dir.clone(),
//!     num_episodes: Some(5),
//!     ..RunnerOptions::default()
//! };
//! let ids = ["catch/0".parse().unwrap()];
//! runner::run_ids(&ids, entry, &options, &Progress::default(), &|_| {}).unwrap();
//! assert!(dir.join("bsuite_id_-_catch-0.csv").is_file());
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```
//!
//! # The reference agents
//!
//! [`agents`] has bsuite's baselines (`dqn`, `boot_dqn`, `actor_critic`,
//! `actor_critic_rnn`), one folder each, on host engines that need no LibTorch; `cargo
//! xtask bench-all dqn` runs them. Their readable LibTorch definitions, and `--engine
//! libtorch` and `--device cuda`, come with the `libtorch` feature. The harness any agent
//! uses is [`harness`], whose modules are re-exported here.

pub mod harness;
use harness::{agent, shard};
pub use harness::{config, console, estimate, experiment, factory, runner, sweep};

pub mod agents;
pub mod host;
#[cfg(feature = "libtorch")]
pub mod libtorch;
mod subnormals;
pub use agents::random;

pub use agent::{Agent, BatchAgent, OneByOne};
pub use experiment::{run, run_lockstep, run_verbose, run_with};

/// One writer per results directory: the lock lives with the results format, in
/// `bsuite-logging`, so that every writer (the Python package's recorders too) takes it.
pub use bsuite_logging::dir_lock;

/// The Rust examples of the README and of the guide (`docs/book/src/`), compiled and run by
/// `cargo test --doc`, so that an example a reader copies cannot fall behind the crates.
/// Each page is here whole (`xtask/tests/guide_examples.rs` checks that every page is);
/// its other blocks (`sh`, `python`, `text`, `toml`) are not Rust, so rustdoc leaves them to
/// their own tests.
#[cfg(doctest)]
mod guide {
    #[doc = include_str!("../../../README.md")]
    struct Readme;
    #[doc = include_str!("../../../docs/book/src/introduction.md")]
    struct Introduction;
    #[doc = include_str!("../../../docs/book/src/getting-started.md")]
    struct GettingStarted;
    #[doc = include_str!("../../../docs/book/src/python-agent.md")]
    struct PythonAgent;
    #[doc = include_str!("../../../docs/book/src/rust-agent.md")]
    struct RustAgent;
    #[doc = include_str!("../../../docs/book/src/comparing.md")]
    struct Comparing;
    #[doc = include_str!("../../../docs/book/src/report.md")]
    struct Report;
    #[doc = include_str!("../../../docs/book/src/studies.md")]
    struct Studies;
    #[doc = include_str!("../../../docs/book/src/clusters.md")]
    struct Clusters;
    #[doc = include_str!("../../../docs/book/src/guarantees.md")]
    struct Guarantees;
    #[doc = include_str!("../../../docs/book/src/performance.md")]
    struct Performance;
    #[doc = include_str!("../../../docs/book/src/reference.md")]
    struct Reference;
    #[doc = include_str!("../../../docs/book/src/conformance.md")]
    struct Conformance;
}
