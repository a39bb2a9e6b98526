//! `bandit_scale` in the report.

/// One paragraph for readers of the report: the task, what it tests and how it is scored.
pub const DESCRIPTION: &str =
    "The bandit experiment with every reward multiplied by a factor from 0.001 to 1000 (five \
factors, four runs each); regret is measured in the original rewards. It checks that \
learning does not depend on the size of the rewards. The bandit score is computed at each \
reward scale; the experiment's score is the mean of their average and a \
one-standard-deviation lower bound, so uneven performance across reward scales costs points.";
