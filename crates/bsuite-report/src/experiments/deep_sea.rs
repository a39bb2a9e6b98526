//! `deep_sea` in the report.

/// One paragraph for readers of the report: the task, what it tests and how it is scored.
pub const DESCRIPTION: &str =
    "An N by N grid: the agent starts in the top-left corner and descends one row per step, \
choosing left or right (the meaning of the actions differs from cell to cell). Moving \
right costs 0.01/N, and only the one policy that always moves right reaches the treasure \
(+1) in the bottom-right corner. Sizes N = 10, 12, ..., 50, 10,000 episodes each. It \
checks deep exploration: dithering strategies such as epsilon-greedy need about 2^N \
episodes to find the treasure. A size counts as learned once the running fraction of \
episodes that missed the treasure falls below 90%; the score is the fraction of sizes \
learned before episode 2^N + 100.";
