//! A standard error that cannot be written (a pipe whose reader has gone, `2>/dev/full`)
//! never stops work or changes the exit status the work earns: the command runs, writes
//! its results and exits as it would have, without a panic (exit 101). Real processes, a
//! real pipe and the real `/dev/full`.

mod common;

use std::fs::{self, File};
use std::process::{ExitStatus, Stdio};

use common::scratch;

/// How standard error is broken.
#[derive(Clone, Copy, Debug)]
enum Broken {
    /// A pipe whose reading end is closed before the command starts.
    ClosedPipe,
    /// `/dev/full`: every write fails with "no space left on device".
    Full,
}

/// Runs `cargo xtask ARGS` with standard error broken as `broken` (and standard output a
/// closed pipe), and returns its exit status.
fn with_broken_stderr(args: &[&str], broken: Broken) -> ExitStatus {
    let mut command = common::xtask();
    command.args(args).stdout(Stdio::piped());
    match broken {
        Broken::ClosedPipe => command.stderr(Stdio::piped()),
        Broken::Full => command.stderr(File::create("/dev/full").expect("/dev/full")),
    };
    let mut child = command.spawn().expect("xtask starts");
    drop(child.stdout.take());
    drop(child.stderr.take());
    let status = child.wait().expect("xtask ends");
    assert_ne!(
        status.code(),
        Some(101),
        "xtask {args:?} panicked ({broken:?})"
    );
    status
}

#[test]
fn a_broken_stderr_stops_no_work_and_changes_no_exit_status() {
    for broken in [Broken::ClosedPipe, Broken::Full] {
        let root = scratch(&format!("stderr-{broken:?}"));
        fs::create_dir_all(&root).unwrap();
        let results = root.join("results");
        let dir = results.to_str().unwrap();
        let run = [
            "bench-all",
            "random",
            "--plain",
            "--ids",
            "catch/0",
            "bandit/0",
            "--num-episodes",
            "5",
            "--results",
            dir,
        ];
        assert!(with_broken_stderr(&run, broken).success(), "{broken:?}");
        for id in ["catch-0", "bandit-0"] {
            let csv = results.join(format!("bsuite_id_-_{id}.csv"));
            assert!(
                csv.is_file(),
                "{broken:?}: {} was not written",
                csv.display()
            );
        }

        let study = root.join("study.toml");
        fs::write(
            &study,
            "title = \"t\"\n[[variant]]\nname = \"one\"\nagent = \"random\"\n\
             definition = \"The random agent.\"\n",
        )
        .unwrap();
        let (variants, out) = (root.join("variants"), root.join("report"));
        let ran = with_broken_stderr(
            &[
                "study",
                study.to_str().unwrap(),
                "--plain",
                "--ids",
                "catch/0",
                "--num-episodes",
                "5",
                "--results",
                variants.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
            broken,
        );
        assert!(ran.success(), "{broken:?}");
        assert!(variants
            .join("one")
            .join("bsuite_id_-_catch-0.csv")
            .is_file());
        assert!(out.join("index.html").is_file(), "{broken:?}: no report");

        // A failure still exits 1, said or not.
        let missing = root.join("missing");
        let failed = with_broken_stderr(&["score", missing.to_str().unwrap()], broken);
        assert_eq!(failed.code(), Some(1), "{broken:?}");
        fs::remove_dir_all(&root).unwrap();
    }
}
