//! `mnist` in the report.

/// One paragraph for readers of the report: the task, what it tests and how it is scored.
pub const DESCRIPTION: &str =
    "MNIST digit classification posed as a contextual bandit: each episode shows one training \
image and the agent picks one of 10 labels, earning +1 if it is right and -1 otherwise; \
10,000 episodes, 20 seeds. It checks learning with a high-dimensional observation that \
must generalise across images. The score averages two halves: the regret score, where \
guessing at random (regret 1.8 per episode) scores 0 and a perfect classifier scores 1, \
and the accuracy over the last 10% of episodes.";
