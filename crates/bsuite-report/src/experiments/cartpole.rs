//! `cartpole` in the report.

/// One paragraph for readers of the report: the task, what it tests and how it is scored.
pub const DESCRIPTION: &str =
    "The classic pole-balancing task: the agent pushes a cart left or right (or not at all) to \
keep a pole upright, earning reward while it stays up, for up to 1,000 steps per episode; \
1,000 episodes, 20 seeds. It checks learning from a continuous observation with long-term \
consequences. The score averages two halves: the regret score against balancing for all \
1,000 steps, and the fraction of runs whose best episode lasted more than 500 steps.";
