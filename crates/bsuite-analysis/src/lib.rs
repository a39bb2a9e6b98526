//! bsuite's scores, tag summaries and plot data, equal to bsuite 0.3.6's own numbers.
//!
//! `bsuite-analysis` reads results through `bsuite-logging` and computes what the reference's
//! `experiments/*/analysis.py` and `summary_analysis.py` compute: one score per experiment
//! in [0, 1], averages per tag, and the data behind the standard plots ([`plot`]).

pub mod plot;
