//! One writer per results directory, with real processes racing: a second run of a
//! directory in use is turned away at once, told who holds it; shards of one split share
//! a directory; a killed owner leaves no stale lock.

mod common;

use std::fs;
use std::path::Path;
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use common::{bench_all_random as bench_all, scratch};

/// Starts a whole sweep (long in a debug build) and waits until it holds `lock_file`.
fn start_owner(dir: &Path, extra: &[&str], lock_file: &str) -> Child {
    let mut args = vec!["--ids", "SWEEP"];
    args.extend(extra);
    let child = bench_all(dir, &args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("xtask starts");
    let owner = format!("pid {}", child.id());
    let start = Instant::now();
    while !fs::read_to_string(dir.join(lock_file)).is_ok_and(|t| t.contains(&owner)) {
        assert!(start.elapsed() < Duration::from_secs(60), "no lock taken");
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

fn run(dir: &Path, extra: &[&str]) -> Output {
    bench_all(dir, extra).output().expect("xtask runs")
}

fn still_running(child: &mut Child) {
    assert!(
        child.try_wait().unwrap().is_none(),
        "the owner finished before the check (the test needs it running)"
    );
}

#[test]
fn a_second_run_is_refused_and_a_killed_owner_leaves_no_lock() {
    let dir = scratch("writer-whole");
    let mut owner = start_owner(&dir, &[], ".bsuite-lock");
    let second = run(&dir, &["--ids", "catch/0"]);
    still_running(&mut owner);
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(!second.status.success(), "{stderr}");
    assert!(stderr.contains("in use by another run"), "{stderr}");
    assert!(stderr.contains(&format!("pid {}", owner.id())), "{stderr}");
    assert!(stderr.contains(&dir.display().to_string()), "{stderr}");
    owner.kill().unwrap();
    owner.wait().unwrap();
    let after = run(&dir, &["--ids", "catch/0"]);
    assert!(
        after.status.success(),
        "{}",
        String::from_utf8_lossy(&after.stderr)
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn shards_of_one_split_share_a_directory() {
    let dir = scratch("writer-shards");
    let mut owner = start_owner(&dir, &["--shard", "0/2"], ".bsuite-lock-shard-0-of-2");
    let other = run(&dir, &["--ids", "catch", "--shard", "1/2"]);
    assert!(
        other.status.success(),
        "{}",
        String::from_utf8_lossy(&other.stderr)
    );
    let same = run(&dir, &["--ids", "catch", "--shard", "0/2"]);
    let whole = run(&dir, &["--ids", "catch/0"]);
    still_running(&mut owner);
    for refused in [same, whole] {
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(!refused.status.success(), "{stderr}");
        assert!(
            stderr.contains(&format!("shard 0/2: pid {}", owner.id())),
            "{stderr}"
        );
    }
    owner.kill().unwrap();
    owner.wait().unwrap();
    fs::remove_dir_all(&dir).unwrap();
}

/// Finding 2 of issue 30: `--shard 0/4` and `--shard 0/3` on one directory ran
/// overlapping ids twice and both failed. A shard of another split is refused at once,
/// naming both splits, and writes nothing.
#[test]
fn a_shard_of_another_split_is_refused() {
    let dir = scratch("writer-splits");
    let mut owner = start_owner(&dir, &["--shard", "0/4"], ".bsuite-lock-shard-0-of-4");
    let other = run(&dir, &["--ids", "catch", "--shard", "0/3"]);
    still_running(&mut owner);
    let stderr = String::from_utf8_lossy(&other.stderr);
    assert!(!other.status.success(), "{stderr}");
    assert!(stderr.contains("this run is --shard 0/3"), "{stderr}");
    assert!(
        stderr.contains(&format!("shard 0/4: pid {}", owner.id())),
        "{stderr}"
    );
    owner.kill().unwrap();
    owner.wait().unwrap();
    let manifest = fs::read_to_string(dir.join("bsuite_run.json")).unwrap();
    assert!(
        manifest.contains("\"shards\": 4"),
        "the manifest records the split: {manifest}"
    );
    fs::remove_dir_all(&dir).unwrap();
}
