//! Fuzz target: the results reader never panics, whatever the bytes and file name, and a
//! table it accepts is consistent.
//!
//! The first two input bytes pick the bsuite_id (big-endian index into the sweep, so every
//! experiment's column checks are reached); the rest is the CSV text. Run with
//! `cargo +nightly fuzz run read_results` from `crates/bsuite-logging`. What is built on
//! accepted tables (scores, plots) is fuzzed by `crates/bsuite-analysis/fuzz`.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [hi, lo, csv @ ..] = data else {
        return;
    };
    let ids: Vec<bsuite_envs::BsuiteId> = bsuite_envs::sweep().collect();
    let id = ids[usize::from(u16::from_be_bytes([*hi, *lo])) % ids.len()];
    // File names: the reader must refuse anything but canonical bsuite names without panicking.
    if let Ok(name) = std::str::from_utf8(csv) {
        let _ = bsuite_logging::results::id_from_file_name(name.lines().next().unwrap_or(""));
    }
    let Ok(run) = bsuite_logging::results::parse_run(id, Path::new("fuzz.csv"), csv) else {
        return;
    };
    assert_eq!(run.id(), id);
    for column in run.columns() {
        assert_eq!(
            column.values().len(),
            run.num_rows(),
            "{id}: column {} has another length",
            column.name()
        );
    }
    assert_eq!(run.episodes().len(), run.num_rows());
    let _ = (run.last_episode(), run.is_finished(), run.settings());
});
