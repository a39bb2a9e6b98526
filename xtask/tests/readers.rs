//! Issue 55, the readers: `compare --lenient` names what it skips; `--reps` is bounded, so
//! no bootstrap aborts the process or draws an interval from one replicate; agents with
//! nothing in common are not compared; errors are said once, in words. Real processes.

mod common;

use std::fs;
use std::path::Path;
use std::process::{Output, Stdio};

use common::{bench_all_random, run, scratch, stderr};

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A quick random sweep of `ids` into `dir`, `extra` after.
fn random(dir: &Path, ids: &[&str], extra: &[&str]) -> Output {
    let mut command = bench_all_random(dir, &["--num-episodes", "5", "--ids"]);
    command.args(ids).args(extra).stdout(Stdio::null());
    let out = command.output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    out
}

/// Item 7: `compare --lenient` dropped a damaged file silently, though its help promised
/// to report it on stderr.
#[test]
fn lenient_compare_names_the_files_it_skips() {
    let root = scratch("lenient-compare");
    let (a, b) = (root.join("a"), root.join("b"));
    random(&a, &["catch/0", "catch/1"], &[]);
    random(&b, &["catch/0", "catch/1"], &[]);
    let damaged = a.join("bsuite_id_-_catch-1.csv");
    let mut bytes = fs::read(&damaged).unwrap();
    bytes.truncate(bytes.len() - 2);
    fs::write(&damaged, bytes).unwrap();
    let out = run(&["compare", "--lenient", path(&a), path(&b)]);
    let text = stderr(&out);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("bsuite_id_-_catch-1.csv") && text.contains("cut off"),
        "{text}"
    );
    fs::remove_dir_all(&root).unwrap();
}

/// Items 9 and 10: `--reps 100000000000` aborted with a failed allocation (exit 134), and
/// `--reps 1` gave intervals that excluded their own estimate and a verdict against it.
/// Replicates are bounded, with the reason.
#[test]
fn replicates_are_bounded() {
    let root = scratch("reps");
    let a = root.join("a");
    random(&a, &["catch/0"], &[]);
    for reps in ["100000000000", "400000000", "1", "0"] {
        for command in ["score", "compare"] {
            let args: Vec<&str> = match command {
                "score" => vec!["score", path(&a), "--reps", reps],
                _ => vec!["compare", path(&a), path(&a), "--reps", reps],
            };
            let out = run(&args);
            let text = stderr(&out);
            assert_eq!(
                out.status.code(),
                Some(2),
                "{command} --reps {reps}: {text}"
            );
            assert!(
                text.contains("1000 to 1000000"),
                "{command} --reps {reps}: {text}"
            );
        }
    }
    fs::remove_dir_all(&root).unwrap();
}

/// Item 12: tags without a shared experiment, and agents of disjoint ids with three seeds
/// a side, were "inconclusive: a side with one seed has no spread". They are not
/// compared, and the verdict says why.
#[test]
fn agents_with_nothing_in_common_are_not_compared() {
    let root = scratch("disjoint");
    let (a, b) = (root.join("a"), root.join("b"));
    random(&a, &["catch/0", "catch/1", "catch/2"], &["--seeds", "3"]);
    random(&b, &["catch/3", "catch/4", "catch/5"], &["--seeds", "3"]);
    let out = run(&["compare", path(&a), path(&b)]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!text.contains("one seed has no spread"), "{text}");
    let catch = text.lines().find(|l| l.starts_with("catch ")).unwrap();
    assert!(catch.contains("not compared"), "{text}");
    let memory = text.lines().find(|l| l.starts_with("memory ")).unwrap();
    assert!(memory.contains("not compared"), "{text}");
    fs::remove_dir_all(&root).unwrap();
}

/// Item 16: an error said its cause twice ("not a regular file (a FIFO)...: not a regular
/// file (a FIFO)..."), serde's internals ("struct RunManifest with 10 elements") reached the
/// user, and `compare "" dqn` looked for `baselines/.tar.gz`.
#[test]
fn errors_are_said_once_in_words() {
    let root = scratch("said-once");
    let dir = root.join("d");
    random(&dir, &["catch/0"], &[]);
    let manifest = dir.join("bsuite_run.json");
    fs::remove_file(&manifest).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&manifest)
        .status()
        .unwrap();
    assert!(made.success());
    for args in [
        vec!["verify", path(&dir), "--ids", "catch/0"],
        vec!["merge", path(&root.join("o")), path(&dir)],
    ] {
        let text = stderr(&run(&args));
        assert_eq!(
            text.matches("not a regular file").count(),
            1,
            "{args:?}: {text}"
        );
    }
    fs::remove_file(&manifest).unwrap();
    fs::write(&manifest, "[]\n").unwrap();
    let out = random_refused(&dir);
    assert!(out.contains("not an object"), "{out}");
    assert!(!out.contains("struct RunManifest"), "{out}");

    let text = stderr(&run(&["compare", "", path(&dir)]));
    assert!(
        text.contains("is empty") && !text.contains(".tar.gz"),
        "{text}"
    );
    fs::remove_dir_all(&root).unwrap();
}

/// A run into `dir` that is refused; its standard error.
fn random_refused(dir: &Path) -> String {
    let out = bench_all_random(dir, &["--num-episodes", "5", "--ids", "catch/0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    stderr(&out)
}
