//! `discounting_chain` in the report.

/// One paragraph for readers of the report: the task, what it tests and how it is scored.
pub const DESCRIPTION: &str =
    "The first action chooses one of five chains; chain k pays a reward after 1, 3, 10, 30 or \
100 steps, and one chain (set by the seed) pays 1.1 instead of 1. Episodes last 100 steps; \
1,000 episodes, 20 seeds. It checks that the agent values rewards at different horizons \
correctly rather than discounting distant ones away. The score is 1 - 10 (1.1 - r), \
clipped to [0, 1], where r is the average return per episode at the end of the run: only \
nearly always choosing the best chain scores well.";
