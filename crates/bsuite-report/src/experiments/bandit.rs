//! `bandit` in the report.

/// One paragraph for readers of the report: the task, what it tests and how it is scored.
pub const DESCRIPTION: &str =
    "A bandit with 11 arms whose deterministic rewards are 0, 0.1, ..., 1, in an order shuffled \
by each of the 20 seeds; one pull per episode for 10,000 episodes. It checks that the \
agent can find and exploit the best of a few actions. The score is the average regret per \
episode at the end of the run, rescaled so that uniformly random pulls (regret 0.5) score \
0 and always pulling the best arm scores 1.";
