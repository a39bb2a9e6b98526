//! What the user is told names what was wrong, and every refusal can be acted on: the
//! results path's real problem (not "File exists"), the agents a build can run, the config
//! key at fault, run names that would escape `results/`, a device the agent cannot use, a
//! study's own flags, an estimate for the ids there are, and a report that can be rerun
//! after an interruption. Real processes.

mod common;

use std::fs;
use std::os::unix::fs::symlink;

use common::{run as xtask, scratch, stderr};

fn refused(args: &[&str]) -> String {
    let out = xtask(args);
    assert!(!out.status.success(), "{args:?} was accepted");
    stderr(&out)
}

const QUICK: [&str; 6] = [
    "--ids",
    "catch/0",
    "--num-episodes",
    "3",
    "--plain",
    "--no-score",
];

#[test]
fn a_results_path_that_is_not_a_directory_is_named() {
    let dir = scratch("results-kinds");
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("file");
    fs::write(&file, "x").unwrap();
    let dangling = dir.join("dangling");
    symlink(dir.join("nowhere"), &dangling).unwrap();
    let looped = dir.join("loop");
    symlink(&looped, &looped).unwrap();
    for (path, says) in [
        (&file, "is a file, not a directory"),
        (&dangling, "which does not exist"),
        (&looped, "leads back to itself"),
    ] {
        let args = [
            &["bench-all", "random", "--results", path.to_str().unwrap()],
            &QUICK[..],
        ];
        let text = refused(&args.concat());
        assert!(
            text.contains(says) && !text.contains("os error 17"),
            "{text}"
        );
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn names_devices_and_agents_are_checked_with_a_reason() {
    let text = refused(&["bench-all", "randomm"]);
    assert!(
        text.contains("random") && text.contains("actor_critic_rnn_reset"),
        "{text}"
    );

    let root = scratch("names");
    for name in ["", "..", "../x", "a/b"] {
        let args = [&["bench-all", "random", "--name", name], &QUICK[..]];
        let text = refused(&args.concat());
        assert!(
            text.contains("cannot name a directory of its own"),
            "{name:?}: {text}"
        );
    }
    assert!(!root.exists());

    let dir = scratch("device");
    let args = [
        &["bench-all", "random", "--device", "cuda", "--results"],
        &[dir.to_str().unwrap()][..],
        &QUICK[..],
    ];
    let text = refused(&args.concat());
    assert!(text.contains("runs on the CPU only"), "{text}");
    assert!(!dir.exists(), "ran on the CPU when asked for cuda");

    let config = scratch("config-table");
    fs::create_dir_all(&config).unwrap();
    let file = config.join("c.toml");
    fs::write(&file, "[layers]\nwidth = 3\n").unwrap();
    let text = refused(&[
        "bench-all",
        "random",
        "--config-file",
        file.to_str().unwrap(),
    ]);
    assert!(text.contains("layers: table is not a number"), "{text}");
    fs::remove_dir_all(&config).unwrap();
}

#[test]
fn an_estimate_runs_no_more_jobs_than_ids() {
    let out = xtask(&[
        "bench-all",
        "random",
        "--ids",
        "catch/0",
        "--estimate",
        "--jobs",
        "100000",
    ]);
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    assert!(out.status.success(), "{text}");
    assert!(text.contains("on 1 jobs"), "{text}");
}

#[test]
fn study_and_report_refusals_can_be_acted_on() {
    let dir = scratch("study-out");
    fs::create_dir_all(dir.join("out")).unwrap();
    fs::write(dir.join("out").join("notes.txt"), "mine").unwrap();
    let study = dir.join("s.toml");
    fs::write(
        &study,
        "title = \"t\"\n[[variant]]\nname = \"one\"\nagent = \"random\"\ndefinition = \"R.\"\n",
    )
    .unwrap();
    let path = |p: &str| dir.join(p).to_str().unwrap().to_string();
    let (results, out) = (path("results"), path("out"));
    let args = [
        "study",
        study.to_str().unwrap(),
        "--ids",
        "catch/0",
        "--num-episodes",
        "3",
    ];
    let text = refused(
        &[
            &args[..],
            &["--plain", "--results", &results, "--out", &out],
        ]
        .concat(),
    );
    assert!(
        text.contains("notes.txt") && !text.contains("--overwrite"),
        "{text}"
    );

    // An interrupted report leaves its empty images/ behind: its rerun takes the directory.
    let report = dir.join("report");
    fs::create_dir_all(report.join("images")).unwrap();
    let one = format!("{results}/one");
    let written = xtask(&[
        "report",
        "--results",
        &one,
        "--out",
        report.to_str().unwrap(),
    ]);
    assert!(written.status.success(), "{}", stderr(&written));

    // A report is never written into a results directory, not even another run's.
    let other = path("other");
    let ran = xtask(&[&["bench-all", "random", "--results", &other], &QUICK[..]].concat());
    assert!(ran.status.success(), "{}", stderr(&ran));
    let text = refused(&["report", "--results", &one, "--out", &other, "--overwrite"]);
    assert!(text.contains("is a results directory"), "{text}");
    fs::remove_dir_all(&dir).unwrap();
}

/// A results path that is not UTF-8 (Linux paths are bytes) works throughout: bench-all
/// writes and scores it, `score` and `report` read it.
#[test]
fn paths_that_are_not_utf8_work_throughout() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let root = scratch("not-utf8");
    let dir = root.join(OsStr::from_bytes(b"caf\xe9"));
    let mut bench = common::xtask();
    bench.args([
        "bench-all",
        "random",
        "--ids",
        "catch/0",
        "--num-episodes",
        "3",
        "--plain",
    ]);
    let ran = bench.arg("--results").arg(&dir).output().unwrap();
    assert!(ran.status.success(), "{}", stderr(&ran));
    assert!(
        !stderr(&ran).contains("could not score"),
        "{}",
        stderr(&ran)
    );
    let scored = common::xtask().arg("score").arg(&dir).output().unwrap();
    assert!(scored.status.success(), "{}", stderr(&scored));
    let out = root.join("report");
    let report = common::xtask()
        .args(["report", "--results"])
        .arg(&dir)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(report.status.success(), "{}", stderr(&report));
    assert!(out.join("index.html").is_file());
    fs::remove_dir_all(&root).unwrap();
}
