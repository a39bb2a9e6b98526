//! Only regular files are read as results: a FIFO named like a results file or like the
//! manifest is refused at once, named, instead of blocking `bench-all` (with the
//! directory locked) or `score` forever. Real FIFOs (`mkfifo`), real processes.

mod common;

use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{scratch, stderr};

/// Runs `command` to its end, or kills it and fails after 60 s (a blocked read).
fn within_a_minute(mut command: Command, what: &str) -> Output {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("xtask starts");
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{what} blocked on a FIFO");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(made.success());
}

fn bench_all(dir: &Path) -> Command {
    common::bench_all_random(dir, &["--ids", "catch/0", "catch/1", "--num-episodes", "3"])
}

#[test]
fn fifos_are_refused_not_read() {
    let dir = scratch("fifo");
    let done = within_a_minute(bench_all(&dir), "a first run");
    assert!(done.status.success(), "{}", stderr(&done));
    let csv = dir.join("bsuite_id_-_catch-0.csv");
    fs::remove_file(&csv).unwrap();
    mkfifo(&csv);

    let resumed = within_a_minute(bench_all(&dir), "bench-all");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&resumed.stdout),
        stderr(&resumed)
    );
    assert!(!resumed.status.success(), "{said}");
    assert!(
        said.contains("not a regular file") && said.contains("catch-0.csv"),
        "{said}"
    );

    let mut score = common::xtask();
    score.arg("score").arg(&dir);
    let scored = within_a_minute(score, "score");
    assert!(!scored.status.success());
    assert!(
        stderr(&scored).contains("not a regular file"),
        "{}",
        stderr(&scored)
    );

    fs::remove_file(&csv).unwrap();
    let manifest = dir.join("bsuite_run.json");
    fs::remove_file(&manifest).unwrap();
    mkfifo(&manifest);
    let refused = within_a_minute(bench_all(&dir), "bench-all on a FIFO manifest");
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("not a regular file"),
        "{}",
        stderr(&refused)
    );
    fs::remove_dir_all(&dir).unwrap();
}
