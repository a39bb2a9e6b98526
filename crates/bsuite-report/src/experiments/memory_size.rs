//! `memory_size` in the report.

/// One paragraph for readers of the report: the task, what it tests and how it is scored.
pub const DESCRIPTION: &str =
    "As memory_len with a memory length of 2 steps, but the first observation holds from 1 to \
40 bits and the agent must answer about one of them, chosen at random and revealed only at \
the end (17 settings, 10,000 episodes each). It checks how much the agent can remember. A \
setting counts as learned when the wrong answers, relative to a random guesser's, are \
below 75% at the end of the run; the score is the fraction of settings learned.";
