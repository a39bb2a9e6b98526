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

/// Every file under `dir`, by path relative to it, with its bytes; the lock files (the
/// multi-seed directory's own among them) and files being written left out.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    for seed in fs::read_dir(dir).unwrap() {
        let seed = seed.unwrap().path();
        if seed.file_name().unwrap().to_string_lossy().starts_with('.') {
            continue;
        }
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
    let output = sweep(&dir, &["--seeds", "43..46"]).output().unwrap();
    let stderr = common::stderr(&output);
    assert!(!output.status.success());
    assert!(stderr.contains("seed 45, not 44"), "{stderr}");
    assert!(
        stderr.contains("seed-45"),
        "the refusal names the seed's directory: {stderr}"
    );
    // Every seed's directory is claimed before the pool runs: seed 44, missing, got no
    // results from the refused run.
    let csvs = |seed: &str| {
        fs::read_dir(dir.join(seed)).map_or(0, |entries| {
            (entries.flatten())
                .filter(|e| e.file_name().to_string_lossy().ends_with(".csv"))
                .count()
        })
    };
    assert_eq!(csvs("seed-44"), 0, "{stderr}");
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

/// The pool's files, seed directory by seed directory, against single-seed runs of each seed
/// into `single/seed-<s>/`: `--seeds 3` on two workers (with dqn's replicas of the three
/// seeds batched together) writes the bytes of three runs alone.
fn pooled_against_single(agent: &str, ids: &[&str], episodes: &str, extra: &[&str]) {
    let pooled = common::scratch(&format!("seeds-pool-{agent}"));
    let single = common::scratch(&format!("seeds-alone-{agent}"));
    let command = |dir: &Path, more: &[&str]| {
        let mut command = common::xtask();
        command
            .args(["bench-all", agent, "--plain", "--no-score", "--ids"])
            .args(ids)
            .args(["--num-episodes", episodes, "--results"])
            .arg(dir)
            .args(extra)
            .args(more)
            .stdout(std::process::Stdio::null());
        command
    };
    let output = command(&pooled, &["--seeds", "3", "--jobs", "2"])
        .output()
        .unwrap();
    let stderr = common::stderr(&output);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("(seed, id) pairs in one pool"), "{stderr}");
    let pairs = 3 * ids.len();
    assert!(
        stderr.contains(&format!(
            "failed 0 of {pairs} (seed, id) pairs over 3 seeds"
        )),
        "{stderr}"
    );
    for seed in ["42", "43", "44"] {
        let alone = single.join(format!("seed-{seed}"));
        let mut run = command(&alone, &["--seed", seed, "--jobs", "1"]);
        assert!(run.status().unwrap().success());
    }
    let files = tree(&pooled);
    assert_eq!(
        files.len(),
        3 * (ids.len() + 1),
        "a CSV per id and a manifest per seed"
    );
    assert!(
        files == tree(&single),
        "{agent}: the pool's bytes differ from single runs"
    );
    fs::remove_dir_all(&pooled).unwrap();
    fs::remove_dir_all(&single).unwrap();
}

#[test]
fn a_pool_of_seeds_writes_the_bytes_of_each_seed_alone() {
    pooled_against_single("random", &IDS, "3", &[]);
    // dqn batches replicas of one action count: here the seeds of one id, two of its three
    // seeds to a batch (three replicas over two workers). 30 episodes take each replica
    // past its replay warm-up into learning.
    pooled_against_single(
        "dqn",
        &["bandit/0", "catch/0", "deep_sea/0"],
        "30",
        &["--batch-size", "8"],
    );
}

#[test]
fn the_estimate_of_several_seeds_is_of_the_whole_pool() {
    let dir = common::scratch("seeds-estimate");
    let output = sweep(&dir, &["--seeds", "3", "--estimate", "--ids", "catch"])
        .stdout(std::process::Stdio::piped())
        .output()
        .unwrap();
    let stderr = common::stderr(&output);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("the projection is of 3 seeds (42..45): 72 (seed, id) pairs"),
        "{stderr}"
    );
    assert!(!stderr.contains("times it"), "{stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    // catch: its 20 ids (IDS's catch/0 among them) for each of the 3 seeds.
    let catch = stdout.lines().find(|l| l.starts_with("catch ")).unwrap();
    assert_eq!(catch.split_whitespace().nth(1), Some("60"), "{stdout}");
    assert!(!dir.exists(), "an estimate writes nothing");
}

/// A resumed sweep's estimate is of what is left: the ids a run would skip (complete, and
/// this run's by its directory's manifest) are left out, for one seed and for a pool of
/// seeds; a directory of another run (here another episode count) counts in full.
#[test]
fn the_estimate_of_a_resumed_sweep_is_of_what_is_left() {
    let dir = common::scratch("seeds-estimate-resumed");
    let ran = sweep(&dir, &["--seeds", "2", "--num-episodes", "5"])
        .output()
        .unwrap();
    assert!(ran.status.success(), "{}", common::stderr(&ran));
    let estimate = |results: &Path, extra: &[&str]| {
        let output = sweep(results, &[extra, &["--estimate"]].concat())
            .stdout(std::process::Stdio::piped())
            .output()
            .unwrap();
        let stderr = common::stderr(&output);
        assert!(output.status.success(), "{stderr}");
        (String::from_utf8_lossy(&output.stdout).into_owned(), stderr)
    };
    // The ids column of an experiment's row, if it has one.
    let ids = |stdout: &str, experiment: &str| {
        let row = stdout
            .lines()
            .find(|l| l.starts_with(&format!("{experiment} ")));
        row.map(|row| row.split_whitespace().nth(1).unwrap().to_string())
    };

    let (stdout, stderr) = estimate(&dir, &["--seeds", "3", "--num-episodes", "5"]);
    assert!(
        stderr.contains("10 of the 15 (seed, id) pairs are already complete")
            && stderr.contains("the projection is of 3 seeds (42..45): 5 (seed, id) pairs"),
        "{stderr}"
    );
    assert_eq!(ids(&stdout, "catch").as_deref(), Some("1"), "{stdout}");

    let (stdout, stderr) = estimate(&dir, &["--seeds", "2", "--num-episodes", "5"]);
    assert!(
        stderr.contains("the projection is of the other 0"),
        "{stderr}"
    );
    assert!(!stdout.contains("agent steps"), "{stdout}");

    let (stdout, stderr) = estimate(&dir, &["--seeds", "3"]);
    assert!(!stderr.contains("already complete"), "{stderr}");
    assert_eq!(ids(&stdout, "catch").as_deref(), Some("3"), "{stdout}");

    let seed = dir.join("seed-42");
    fs::remove_file(seed.join("bsuite_id_-_catch-0.csv")).unwrap();
    let (stdout, stderr) = estimate(&seed, &["--num-episodes", "5"]);
    assert!(
        stderr.contains("4 of the 5 ids are already complete")
            && stderr.contains("the projection is of the other 1"),
        "{stderr}"
    );
    assert_eq!(ids(&stdout, "catch").as_deref(), Some("1"), "{stdout}");
    assert_eq!(ids(&stdout, "bandit"), None, "{stdout}");
    fs::remove_dir_all(&dir).unwrap();
}

/// `--shard I/N` with `--seeds` splits the ids, each with all its seeds: the two shards of
/// a split, into one directory, end with the bytes of the unsharded pool, and each seed's
/// manifest records the split.
#[test]
fn shards_of_a_pool_of_seeds_split_the_ids_with_all_their_seeds() {
    let whole = common::scratch("seeds-shard-whole");
    let output = sweep(&whole, &["--seeds", "2"]).output().unwrap();
    assert!(output.status.success(), "{}", common::stderr(&output));
    let sharded = common::scratch("seeds-sharded");
    for shard in ["0/2", "1/2"] {
        let output = sweep(&sharded, &["--seeds", "2", "--shard", shard])
            .output()
            .unwrap();
        let stderr = common::stderr(&output);
        assert!(output.status.success(), "{stderr}");
        // Both seeds of each of the shard's ids; IDS splits 3 and 2.
        let pairs = if shard == "0/2" { 6 } else { 4 };
        assert!(
            stderr.contains(&format!("of {pairs} (seed, id) pairs over 2 seeds")),
            "{stderr}"
        );
    }
    let manifest = RunManifest::read(&sharded.join("seed-43"))
        .unwrap()
        .unwrap();
    assert_eq!(manifest.shards, Some(2));
    let csvs = |files: Vec<(PathBuf, Vec<u8>)>| -> Vec<(PathBuf, Vec<u8>)> {
        (files.into_iter())
            .filter(|(path, _)| path.extension().is_some_and(|e| e == "csv"))
            .collect()
    };
    assert_eq!(csvs(tree(&sharded)), csvs(tree(&whole)));
    fs::remove_dir_all(&whole).unwrap();
    fs::remove_dir_all(&sharded).unwrap();
}
