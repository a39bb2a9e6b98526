//! `cartpole_swingup` in the report.

/// One paragraph for readers of the report: the task, what it tests and how it is scored.
pub const DESCRIPTION: &str =
    "Cartpole with the pole starting upside down: the agent must swing it up and hold it while \
each move costs a little, so doing nothing looks safe. The 20 settings raise the height \
the pole must reach before any reward is paid (0 to 0.95) and shrink the region the cart \
must stay in; 1,000 episodes each. It checks deep exploration with a continuous state. Per \
setting the score averages a regret score (against a return of 700 per episode) and \
whether the best episode returned more than 100; the experiment's score is the mean over \
settings.";
