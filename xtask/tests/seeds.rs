//! `bench-all --seeds`: one `seed-<s>/` results directory per seed, each with a manifest
//! naming its seed; killed at random moments and resumed, a multi-seed sweep ends with the
//! bytes of an uninterrupted one; `score` reads the directory as one agent over seeds.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bsuite_logging::manifest::RunManifest;

const IDS: [&str; 5] = [
    "bandit/0",
    "catch/0",
    "deep_sea/0",
    "discounting_chain/0",
    "umbrella_length/5",
];

fn sweep(dir: &Path, extra: &[&str]) -> std::process::Command {
    let mut command = common::bench_all_random(dir, extra);
    command
        .arg("--ids")
        .args(IDS)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    command
}

/// Every file under `dir`, by path relative to it, with its bytes; the lock files and
/// files being written left out.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    for seed in fs::read_dir(dir).unwrap() {
        let seed = seed.unwrap().path();
        for file in fs::read_dir(&seed).unwrap() {
            let path = file.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let relative = path.strip_prefix(dir).unwrap().to_path_buf();
            files.push((relative, fs::read(&path).unwrap()));
        }
    }
    files.sort();
    files
}

#[test]
fn seeds_run_into_their_own_directories_and_score_as_one_agent() {
    let dir = common::scratch("seeds-layout");
    let output = sweep(&dir, &["--seeds", "2"]).output().unwrap();
    assert!(output.status.success(), "{}", common::stderr(&output));
    for seed in [42, 43] {
        let seed_dir = dir.join(format!("seed-{seed}"));
        let manifest = RunManifest::read(&seed_dir).unwrap().unwrap();
        assert_eq!((manifest.agent.as_str(), manifest.seed), ("random", seed));
        assert!(fs::read_dir(&seed_dir).unwrap().count() > IDS.len());
    }
    // Different seeds draw different actions.
    let catch = "bsuite_id_-_catch-0.csv";
    assert_ne!(
        fs::read(dir.join("seed-42").join(catch)).unwrap(),
        fs::read(dir.join("seed-43").join(catch)).unwrap()
    );
    // An explicit range adds seeds beside them; the first two are resumed, not rerun.
    let output = sweep(&dir, &["--seeds", "42..45"]).output().unwrap();
    let stderr = common::stderr(&output);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(stderr.matches("skipped 5").count(), 2, "{stderr}");
    let output = common::run(&["score", dir.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("3 seeds (42, 43, 44)"), "{text}");

    // A single-seed run into the directory of seeds is refused, and the other way round.
    let output = sweep(&dir, &[]).output().unwrap();
    assert!(!output.status.success());
    assert!(common::stderr(&output).contains("holds seed directories"));
    let single = common::scratch("seeds-single");
    assert!(sweep(&single, &["--ids", "bandit/1"])
        .status()
        .unwrap()
        .success());
    let output = sweep(&single, &["--seeds", "2"]).output().unwrap();
    assert!(!output.status.success());
    assert!(common::stderr(&output).contains("holds the files of a single-seed run"));
    // A seed directory holding another seed's run is refused by its manifest.
    fs::rename(dir.join("seed-44"), dir.join("seed-45")).unwrap();
    let output = sweep(&dir, &["--seeds", "45..46"]).output().unwrap();
    assert!(!output.status.success());
    assert!(
        common::stderr(&output).contains("seed 45, not 44"),
        "{}",
        common::stderr(&output)
    );
    fs::remove_dir_all(&dir).unwrap();
    fs::remove_dir_all(&single).unwrap();
}

#[test]
fn a_killed_multi_seed_sweep_resumes_to_the_bytes_of_an_uninterrupted_one() {
    let whole = common::scratch("seeds-whole");
    let output = sweep(&whole, &["--seeds", "3"]).output().unwrap();
    assert!(output.status.success(), "{}", common::stderr(&output));

    let killed = common::scratch("seeds-killed");
    let mut state = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    println!("kill seed {state}");
    for _ in 0..4 {
        let mut child = sweep(&killed, &["--seeds", "3"]).spawn().unwrap();
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        std::thread::sleep(Duration::from_millis(state % 800));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
    }
    let output = sweep(&killed, &["--seeds", "3"]).output().unwrap();
    assert!(output.status.success(), "{}", common::stderr(&output));
    assert_eq!(tree(&killed), tree(&whole));
    fs::remove_dir_all(&whole).unwrap();
    fs::remove_dir_all(&killed).unwrap();
}
