//! `deep_sea_stochastic` in the report.

/// One paragraph for readers of the report: the task, what it tests and how it is scored.
pub const DESCRIPTION: &str =
    "Deep sea with noise: a move to the right fails with probability 1/N and the rewards at the \
bottom corners carry standard Gaussian noise. Sizes N = 10, 12, ..., 50, 10,000 episodes \
each. It checks deep exploration when the environment is not deterministic. Ignoring the \
first 100 episodes, a size counts as learned once the running fraction of episodes that \
left the optimal path falls below 80%; the score is the fraction of sizes learned before \
episode 2^N + 100.";
