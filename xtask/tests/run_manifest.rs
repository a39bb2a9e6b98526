//! A results directory knows what it holds: a run records its agent, seed and episode
//! count in `bsuite_run.json`; resuming with another seed or episode count is refused
//! with what differs, until `--overwrite`; `score` names what the directory holds.

mod common;

use std::fs;
use std::path::Path;
use std::process::Output;

use common::{run as xtask, scratch, stderr};

fn bench_all(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "bench-all",
        "random",
        "--plain",
        "--no-score",
        "--ids",
        "catch/0",
    ];
    args.extend(["--results", dir.to_str().unwrap()]);
    args.extend(extra);
    xtask(&args)
}

#[test]
fn resuming_as_another_run_is_refused_until_overwrite() {
    let dir = scratch("manifest-resume");
    let first = bench_all(&dir, &["--seed", "1"]);
    assert!(first.status.success(), "{}", stderr(&first));
    let manifest = fs::read_to_string(dir.join("bsuite_run.json")).unwrap();
    assert!(manifest.contains("\"agent\": \"random\"") && manifest.contains("\"seed\": 1"));
    if let Some(revision) = checkout_revision() {
        let recorded = format!("\"git_revision\": \"{revision}\"");
        assert!(manifest.contains(&recorded), "{recorded}: {manifest}");
    }
    let csv = fs::read(dir.join("bsuite_id_-_catch-0.csv")).unwrap();

    for (extra, says) in [
        (vec!["--seed", "2"], "seed 2, not 1"),
        (
            vec!["--seed", "1", "--num-episodes", "5"],
            "5 per id, not all episodes",
        ),
    ] {
        let refused = bench_all(&dir, &extra);
        let text = stderr(&refused);
        assert!(!refused.status.success(), "{text}");
        assert!(
            text.contains(says) && text.contains("agent random, seed 1"),
            "{text}"
        );
        assert!(
            text.contains("--overwrite") && text.contains("--results"),
            "{text}"
        );
        assert_eq!(fs::read(dir.join("bsuite_id_-_catch-0.csv")).unwrap(), csv);
    }
    let same = bench_all(&dir, &["--seed", "1"]);
    assert!(same.status.success(), "{}", stderr(&same));

    let score = xtask(&["score", dir.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&score.stdout);
    assert!(text.contains("agent random, seed 1"), "{text}");

    let replaced = bench_all(&dir, &["--seed", "2", "--overwrite"]);
    assert!(replaced.status.success(), "{}", stderr(&replaced));
    let manifest = fs::read_to_string(dir.join("bsuite_run.json")).unwrap();
    assert!(manifest.contains("\"seed\": 2"), "{manifest}");
    assert_ne!(fs::read(dir.join("bsuite_id_-_catch-0.csv")).unwrap(), csv);

    let report = scratch("manifest-report");
    let written = xtask(&[
        "report",
        "--results",
        dir.to_str().unwrap(),
        "--out",
        report.to_str().unwrap(),
    ]);
    assert!(written.status.success(), "{}", stderr(&written));
    let html = fs::read_to_string(report.join("index.html")).unwrap();
    assert!(
        html.contains("Its run records agent <code>random</code>, seed 2:"),
        "{html}"
    );
    fs::remove_dir_all(&dir).unwrap();
    fs::remove_dir_all(&report).unwrap();
}

/// The revision a build of this checkout records: HEAD, marked `-modified` while the
/// agents' sources (the baselines, the environments, the logging, `Cargo.lock`) differ
/// from it; `None` outside a git checkout.
fn checkout_revision() -> Option<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let git = |args: &[&str]| {
        let output = std::process::Command::new("git")
            .args(args)
            .current_dir(&root)
            .output()
            .ok()?;
        output
            .status
            .success()
            .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
    };
    let head = git(&["rev-parse", "HEAD"])?;
    let changes = git(&[
        "diff",
        "--name-only",
        "HEAD",
        "--",
        "crates/bsuite-baselines",
        "crates/bsuite-envs",
        "crates/bsuite-logging",
        "Cargo.lock",
    ])?;
    Some(match changes.is_empty() {
        true => head,
        false => format!("{head}-modified"),
    })
}
