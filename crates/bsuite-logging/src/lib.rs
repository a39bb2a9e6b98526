//! bsuite-format logging: CSV files that Python bsuite reads, terminal logging, and reading
//! results back.

pub mod pyfmt;
pub mod results;
