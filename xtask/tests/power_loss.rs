//! What a resume trusts survives a power loss, not only a kill: every rewrite of a results
//! file, and the manifest, is on the disk (`fdatasync`) before it is renamed into place,
//! and the directory is synced (`fsync`) once an id's file is final. A power loss cannot be
//! staged in a test; the system calls a real run makes are watched instead (`strace`,
//! where installed).

mod common;

use std::fs;
use std::process::Command;

use common::scratch;

#[test]
fn results_are_synced_before_they_replace_a_file() {
    let dir = scratch("power-loss");
    fs::create_dir_all(&dir).unwrap();
    let log = dir.join("strace.log");
    let results = dir.join("results");
    let traced = Command::new("strace")
        .args([
            "-f",
            "-qq",
            "-e",
            "trace=fdatasync,fsync,rename,renameat,renameat2",
            "-o",
        ])
        .arg(&log)
        .arg(env!("CARGO_BIN_EXE_xtask"))
        .args([
            "bench-all",
            "random",
            "--plain",
            "--no-score",
            "--ids",
            "catch/0",
        ])
        .args(["--num-episodes", "200", "--results"])
        .arg(&results)
        .env("XTASK_NO_REEXEC", "1")
        .output();
    let usable = traced.as_ref().is_ok_and(|out| out.status.success());
    if !usable {
        // No strace, or no ptrace in this sandbox: nothing to watch with.
        eprintln!("skipped: strace could not run xtask ({traced:?})");
        let _ = fs::remove_dir_all(&dir);
        return;
    }
    let calls = fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = calls.lines().collect();
    let renames: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains("rename") && lines[i].contains(".tmp\""))
        .collect();
    assert!(renames.len() >= 2, "a manifest and some rewrites: {calls}");
    for &i in &renames {
        // The rename's own thread synced the file just before.
        let pid = lines[i].split_whitespace().next().unwrap();
        let synced = lines[..i]
            .iter()
            .rev()
            .find(|l| l.starts_with(pid) && !l.contains("resumed>"))
            .is_some_and(|l| l.contains("fdatasync("));
        assert!(synced, "renamed without a sync: {}\n{calls}", lines[i]);
    }
    let last = *renames.last().unwrap();
    assert!(
        lines[last..].iter().any(|l| l.contains("fsync(")),
        "the directory is not synced after the last rename:\n{calls}"
    );
    fs::remove_dir_all(&dir).unwrap();
}
