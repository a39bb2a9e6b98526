//! `cargo xtask bench-all` killed with SIGKILL at random moments leaves only complete,
//! loadable CSV files; re-running resumes and ends with the same files as an uninterrupted
//! run (the Python reference's, for these ids); shards run as separate processes add up to
//! the same files; finished results are never touched again without --overwrite.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bsuite_logging::results::{file_name, read_run};

/// Fixture ids that together take about a second in a debug build.
const IDS: [&str; 12] = [
    "bandit/0",
    "bandit_noise/4",
    "catch/0",
    "catch/1",
    "deep_sea/0",
    "deep_sea_stochastic/5",
    "discounting_chain/0",
    "memory_len/0",
    "memory_size/4",
    "mnist/0",
    "umbrella_distract/0",
    "umbrella_length/5",
];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/random_results")
}

fn scratch(name: &str) -> PathBuf {
    common::scratch(&format!("kill-{name}"))
}

fn bench_all(dir: &Path, extra: &[&str]) -> Command {
    let mut cmd = common::xtask();
    cmd.args([
        "bench-all",
        "random",
        "--plain",
        "--no-score",
        "--jobs",
        "2",
    ])
    .arg("--results")
    .arg(dir)
    .arg("--ids")
    .args(IDS)
    .args(extra)
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    cmd
}

/// A small xorshift generator seeded from the clock; the seed is printed so a failure can
/// be replayed with BSUITE_KILL_SEED.
fn rng() -> impl FnMut(u64) -> u64 {
    let mut state = std::env::var("BSUITE_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        })
        | 1;
    println!("BSUITE_KILL_SEED={state}");
    move |bound| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % bound
    }
}

fn parse(text: &str) -> Vec<Vec<f64>> {
    text.lines()
        .skip(1)
        .map(|l| l.split(',').map(|c| c.parse().unwrap()).collect())
        .collect()
}

/// Every CSV in `dir` loads, and holds exactly the reference's first rows.
fn check_only_complete_files(dir: &Path) -> usize {
    let mut count = 0;
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".csv") {
            // Besides results: files being written (a CSV or the manifest), the run's
            // manifest and its lock.
            assert!(
                (name.starts_with('.') && name.ends_with(".tmp"))
                    || name == "bsuite_run.json"
                    || name.starts_with(".bsuite-lock"),
                "{name}"
            );
            continue;
        }
        let table = read_run(&path).unwrap_or_else(|e| panic!("{name} does not load: {e}"));
        let ours = parse(&fs::read_to_string(&path).unwrap());
        let reference = parse(&fs::read_to_string(fixtures().join(&name)).unwrap());
        assert_eq!(ours.len(), table.num_rows());
        assert_eq!(
            ours[..],
            reference[..ours.len()],
            "{name}: not a prefix of the reference"
        );
        count += 1;
    }
    count
}

fn assert_same_as_reference(dir: &Path) {
    for id in IDS {
        let name = file_name(&id.parse().unwrap());
        let ours = fs::read_to_string(dir.join(&name)).unwrap();
        assert_eq!(
            ours,
            fs::read_to_string(fixtures().join(&name)).unwrap(),
            "{name}"
        );
    }
    let csvs = fs::read_dir(dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "csv")
        })
        .count();
    assert_eq!(csvs, IDS.len());
}

#[test]
fn killed_runs_leave_complete_files_and_resume_to_the_reference() {
    let dir = scratch("resume");
    let mut random = rng();
    for round in 0..4 {
        let mut child = bench_all(&dir, &[]).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(random(600)));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let files = if dir.exists() {
            check_only_complete_files(&dir)
        } else {
            0
        };
        println!("round {round}: {files} files after the kill");
    }
    let status = bench_all(&dir, &[]).status().unwrap();
    assert!(status.success());
    assert_same_as_reference(&dir);

    // A re-run skips finished ids and leaves their files alone.
    let before: Vec<_> = IDS
        .iter()
        .map(|id| {
            let path = dir.join(file_name(&id.parse().unwrap()));
            fs::metadata(path).unwrap().modified().unwrap()
        })
        .collect();
    let output = bench_all(&dir, &[])
        .stdout(Stdio::piped())
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(stdout.matches("skipped").count(), IDS.len(), "{stdout}");
    let after: Vec<_> = IDS
        .iter()
        .map(|id| {
            let path = dir.join(file_name(&id.parse().unwrap()));
            fs::metadata(path).unwrap().modified().unwrap()
        })
        .collect();
    assert_eq!(before, after);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn shards_as_processes_add_up_to_one_run() {
    let dir = scratch("shards");
    let children: Vec<_> = (0..3)
        .map(|i| {
            bench_all(&dir, &["--shard", &format!("{i}/3")])
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    assert_same_as_reference(&dir);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_is_explained() {
    let dir = scratch("bad");
    let run = |args: &[&str]| {
        let output = common::xtask()
            .arg("bench-all")
            .args(args)
            .arg("--results")
            .arg(&dir)
            .output()
            .unwrap();
        assert!(!output.status.success(), "{args:?} succeeded");
        String::from_utf8(output.stderr).unwrap()
    };
    assert!(run(&["dqn-ish"]).contains("unknown agent 'dqn-ish'; valid agents: random"));
    assert!(run(&["random", "--ids", "catch/99"]).contains("index 99 is out of range"));
    assert!(run(&["random", "--shard", "3/3"]).contains("bad shard '3/3'"));

    // A file under a results name that is not a bsuite results file is never lost: it is
    // kept as `.corrupt`, said so, and the id run. (In a directory the run's manifest
    // claims: one without is refused whole, `provenance.rs`.)
    let sweep = || {
        common::xtask()
            .args([
                "bench-all",
                "random",
                "--plain",
                "--ids",
                "catch/0",
                "--num-episodes",
                "3",
            ])
            .arg("--results")
            .arg(&dir)
            .output()
            .unwrap()
    };
    assert!(sweep().status.success());
    let path = dir.join("bsuite_id_-_catch-0.csv");
    fs::write(&path, "my notes\n").unwrap();
    let output = sweep();
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && said.contains("damaged"),
        "{said}"
    );
    let kept = dir.join("bsuite_id_-_catch-0.csv.corrupt");
    assert_eq!(fs::read_to_string(kept).unwrap(), "my notes\n");
    fs::remove_dir_all(&dir).unwrap();
}
