//! A reader that stops reading (`| head -0`) ends a command's output, not the command:
//! every command run with its standard output already closed does all its work, writes
//! its results, prints no panic and exits 0. Real processes and a real pipe.

mod common;

use std::fs;
use std::path::Path;
use std::process::{Output, Stdio};

use common::scratch;

/// Runs `cargo xtask ARGS` with its standard output a pipe whose reading end is closed
/// before the command starts writing.
fn with_closed_stdout(args: &[&str]) -> Output {
    let mut child = common::xtask()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("xtask starts");
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("xtask ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
        "xtask {args:?} with a closed stdout: {:?}\n{stderr}",
        output.status
    );
    output
}

fn csv_count(dir: &Path) -> usize {
    fs::read_dir(dir)
        .map(|d| {
            d.filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "csv")
            })
            .count()
        })
        .unwrap_or(0)
}

#[test]
fn every_command_finishes_its_work_when_stdout_is_closed() {
    let results = scratch("pipe-results");
    let dir = results.to_str().unwrap();
    let ids = ["catch/0", "bandit/0", "deep_sea/0", "memory_len/0"];
    let mut run = vec![
        "bench-all",
        "random",
        "--plain",
        "--jobs",
        "2",
        "--results",
        dir,
        "--ids",
    ];
    run.extend(ids);
    with_closed_stdout(&run);
    assert_eq!(
        csv_count(&results),
        ids.len(),
        "every id's results are written"
    );

    with_closed_stdout(&["score", dir]);
    with_closed_stdout(&["ids"]);
    with_closed_stdout(&["trace", "catch/0", "--episodes", "3"]);

    let report = scratch("pipe-report");
    with_closed_stdout(&[
        "report",
        "--results",
        dir,
        "--out",
        report.to_str().unwrap(),
    ]);
    assert!(report.join("index.html").is_file(), "the report is written");
    let _ = fs::remove_dir_all(&results);
    let _ = fs::remove_dir_all(&report);
}
