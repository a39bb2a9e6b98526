//! Deterministic outputs and checked input, from the user's side: two identical reports
//! are byte-identical (PDFs included, an agent over seeds and its bootstraps included); `--num-episodes 0` and unknown devices are refused
//! for every agent, naming the flag.

mod common;

use std::fs;
use std::path::Path;

use common::run as xtask;

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files(&path));
        } else {
            out.push((path.display().to_string(), fs::read(&path).unwrap()));
        }
    }
    out.sort();
    out
}

#[test]
fn identical_reports_are_identical_bytes() {
    let root = common::scratch("same-report");
    let results = root.join("results");
    let ran = xtask(&[
        "bench-all",
        "random",
        "--no-score",
        "--ids",
        "catch/0",
        "deep_sea/0",
        "--results",
        results.to_str().unwrap(),
    ]);
    assert!(ran.status.success());
    // An agent over seeds beside it: its intervals are bootstraps, drawn with a fixed seed.
    let seeded = root.join("seeded");
    let ran = xtask(&[
        "bench-all",
        "random",
        "--no-score",
        "--ids",
        "catch/0",
        "deep_sea/0",
        "--num-episodes",
        "100",
        "--seeds",
        "3",
        "--results",
        seeded.to_str().unwrap(),
    ]);
    assert!(ran.status.success(), "{}", common::stderr(&ran));
    let report = |out: &str| {
        let out = root.join(out);
        let made = xtask(&[
            "report",
            "--results",
            results.to_str().unwrap(),
            "--results",
            seeded.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(
            made.status.success(),
            "{}",
            String::from_utf8_lossy(&made.stderr)
        );
        let mut found = files(&out);
        for (name, _) in &mut found {
            *name = name.replace(out.to_str().unwrap(), "");
        }
        found
    };
    let (first, second) = (report("a"), report("b"));
    assert!(first.iter().any(|(name, _)| name.ends_with(".pdf")));
    assert!(first
        .iter()
        .any(|(name, _)| name.ends_with("performance_profile.pdf")));
    assert_eq!(first.len(), second.len());
    for ((name, a), (_, b)) in first.iter().zip(&second) {
        assert!(a == b, "{name} differs between two identical reports");
    }
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn zero_episodes_and_unknown_devices_are_refused() {
    for (flag, value) in [("--num-episodes", "0"), ("--device", "gpu")] {
        let refused = xtask(&["bench-all", "random", "--ids", "catch/0", flag, value]);
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(!refused.status.success(), "{flag} {value}");
        assert!(stderr.contains(flag) && stderr.contains(value), "{stderr}");
    }
}
