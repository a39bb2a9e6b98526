//! `umbrella_distract` in the report.

/// One paragraph for readers of the report: the task, what it tests and how it is scored.
pub const DESCRIPTION: &str =
    "The umbrella problem with a chain of 20 steps and from 1 to 100 random distracting \
features in the observation (23 settings, 10,000 episodes each). It checks credit \
assignment when most of the observation is irrelevant. A setting counts as learned when \
the average regret per episode at the end of the run is below 0.5; the score is the \
fraction of settings learned.";
