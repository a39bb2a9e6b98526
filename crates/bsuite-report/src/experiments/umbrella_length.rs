//! `umbrella_length` in the report.

/// One paragraph for readers of the report: the task, what it tests and how it is scored.
pub const DESCRIPTION: &str = "The observation shows whether it will rain; the first action (take the umbrella or not) \
decides the final reward (+1 if it matches, -1 if not) that arrives only at the end of a chain, while every step in between pays a random \
reward unrelated to it; the 23 settings vary the chain length from 1 to 100 steps, with 20 \
distracting random features in the observation; 10,000 episodes each. It checks credit \
assignment over long delays amid noise. A setting counts as learned when the average \
regret per episode at the end of the run is below 0.5; the score is the fraction of \
settings learned.";
