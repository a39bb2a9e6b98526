//! `mountain_car` in the report.

/// One paragraph for readers of the report: the task, what it tests and how it is scored.
pub const DESCRIPTION: &str =
    "An under-powered car must leave a valley by rocking back and forth to build momentum; \
every step costs -1 and an episode ends on escape or after 1,000 steps; 1,000 episodes, 20 \
seeds. It checks learning from a continuous observation with a delayed payoff. The score \
rescales the average regret per episode against a policy that escapes in 100 steps: never \
escaping scores 0 and escaping that quickly scores 1.";
