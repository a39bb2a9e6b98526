//! `catch` in the report.

/// One paragraph for readers of the report: the task, what it tests and how it is scored.
pub const DESCRIPTION: &str =
    "A ball falls from a random column at the top of a 10 by 5 grid and the agent moves a \
paddle left or right along the bottom row; catching the ball gives +1, missing it -1; \
10,000 episodes, 20 seeds. It checks simple credit assignment over the nine steps of the \
fall. The score is the average regret per episode at the end of the run, rescaled so that \
a random policy (regret 1.6) scores 0 and catching every ball scores 1.";
