//! `mnist_noise` in the report.

/// One paragraph for readers of the report: the task, what it tests and how it is scored.
pub const DESCRIPTION: &str =
    "The MNIST contextual bandit with Gaussian noise added to every reward, at five noise \
scales from 0.1 to 10 with four runs each. It checks that learning is robust to noisy \
rewards. The mnist score is computed at each noise scale; the experiment's score is the \
mean of their average and a one-standard-deviation lower bound, so uneven performance \
across noise scales costs points.";
