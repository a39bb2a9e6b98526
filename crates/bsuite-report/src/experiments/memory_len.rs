//! `memory_len` in the report.

/// One paragraph for readers of the report: the task, what it tests and how it is scored.
pub const DESCRIPTION: &str =
    "A context bit is shown on the first step only, and after a given number of steps the agent \
must act on it: a correct answer pays +1, a wrong one -1. The 23 settings vary the memory \
length from 1 to 100 steps; 10,000 episodes each. It checks memory over time. A setting \
counts as learned when the agent's wrong answers, relative to a random guesser's, are \
below 75% (an error rate under 37.5%) at the end of the run; the score is the fraction of \
settings learned.";
