//! What the user-side tests share: `cargo xtask` run as a user runs it, and scratch paths.

// Each test file uses a part of this module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// `cargo xtask` as built for the tests: never re-executed as an optimised build, no stdin.
pub fn xtask() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_xtask"));
    command.env("XTASK_NO_REEXEC", "1").stdin(Stdio::null());
    command
}

/// `cargo xtask bench-all random --plain --no-score --jobs 1 --results DIR EXTRA...`: the
/// quickest real sweep, one id at a time.
pub fn bench_all_random(dir: &Path, extra: &[&str]) -> Command {
    let mut command = xtask();
    let args = [
        "bench-all",
        "random",
        "--plain",
        "--no-score",
        "--jobs",
        "1",
    ];
    command.args(args).arg("--results").arg(dir).args(extra);
    command
}

/// Runs `cargo xtask ARGS` to its end.
pub fn run(args: &[&str]) -> Output {
    xtask().args(args).output().expect("xtask runs")
}

/// A temporary path `bsuite-<name>-<pid>`, with anything left there by an earlier run
/// removed.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bsuite-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A process's standard error as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The CSV files directly in `dir`, by name with their bytes, sorted: what two runs must
/// share to be the same run.
pub fn csvs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}
