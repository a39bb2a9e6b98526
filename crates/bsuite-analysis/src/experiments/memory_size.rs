//! `memory_size`: scoring and plots.

use bsuite_envs::experiments::memory_size::EXPERIMENT;
use bsuite_logging::results::RunTable;

use crate::experiments::memory_len::score_by_group;
use crate::figure_parts::ExperimentData;
use crate::helpers::only;
use crate::plot::Figure;
use crate::score::Score;

/// Episodes per run.
pub const NUM_EPISODES: u64 = bsuite_envs::experiments::memory_size::NUM_EPISODES as u64;

/// The fraction of context sizes the agent learned to remember.
///
/// As memory_len with a fixed memory length of 2, but the context grows from 1 to 40 bits
/// (`num_bits`), one of which is queried at the end. For each size the fraction of imperfect
/// episodes at the end of the run is compared with random guessing's 50%; the size counts
/// as learned when the ratio is below 0.75. The score is the fraction of sizes learned.
/// Runs of other experiments are ignored.
pub fn score(runs: &[&RunTable]) -> Score {
    score_runs(&only(runs, &EXPERIMENT))
}

pub(crate) fn score_runs(runs: &[&RunTable]) -> Score {
    score_by_group(runs, "num_bits")
}

/// The notebook's plots of memory_size: as memory_len's, per number of bits, with the seeds
/// plot starting after episode 100.
pub fn figures(data: &ExperimentData) -> Vec<Figure> {
    crate::experiments::memory_len::figures_by(data, "num_bits", 100.0)
}

/// `memory_size` in the analysis table.
pub(crate) static ANALYSIS: super::ExperimentAnalysis = super::ExperimentAnalysis {
    experiment: &EXPERIMENT,
    score: score_runs,
    figures,
};
