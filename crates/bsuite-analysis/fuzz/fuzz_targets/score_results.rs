//! Fuzz target: the scores and plots built on any table the results reader accepts never
//! panic, and every score is finite and (but for mnist) in [0, 1].
//!
//! The input format is that of bsuite-logging's `read_results` target: the first two bytes
//! pick the bsuite_id (big-endian index into the sweep, so every experiment's scoring is
//! reached), the rest is the CSV text. Run with `cargo +nightly fuzz run score_results` from
//! `crates/bsuite-analysis`.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [hi, lo, csv @ ..] = data else {
        return;
    };
    let ids: Vec<bsuite_envs::BsuiteId> = bsuite_envs::sweep().collect();
    let id = ids[usize::from(u16::from_be_bytes([*hi, *lo])) % ids.len()];
    let Ok(run) = bsuite_logging::results::parse_run(id, Path::new("fuzz.csv"), csv) else {
        return;
    };
    let runs = [&run];
    let score = bsuite_analysis::experiments::score(id.experiment(), &runs);
    if let bsuite_analysis::Score::Value(v) = score {
        assert!(v.is_finite(), "score {v} is not finite");
        // Only mnist's unclipped accuracy half can leave [0, 1], on inconsistent logs.
        let mnist = id.experiment().name.starts_with("mnist");
        assert!(
            mnist || (0.0..=1.0).contains(&v),
            "{id}: score {v} out of [0, 1]"
        );
    }
    let agent = bsuite_analysis::AgentResults {
        name: "fuzz".into(),
        runs: vec![run],
        skipped: Vec::new(),
        manifest: None,
    };
    let summary = bsuite_analysis::summarize(&agent);
    let _ =
        bsuite_analysis::figures::experiment_figures(std::slice::from_ref(&agent), id.experiment());
    let _ = bsuite_analysis::figures::radar_chart(std::slice::from_ref(&summary));
    let _ = bsuite_analysis::figures::bar_chart(std::slice::from_ref(&summary));
});
