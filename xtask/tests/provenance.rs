//! A results directory's manifest never claims what its run did not write, even under
//! races: shards that start together agree on one run or the latecomer is refused; an
//! interrupted `--overwrite` is finished by the resume instead of leaving the old run's
//! files counted as the new run's; a directory of CSVs without a manifest is not adopted.
//! Real processes, started together.

mod common;

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::Instant;

use common::{bench_all_random as bench_all, scratch, stderr};

/// Iterations of the shard race: the reproduction mixed runs in 23 of 30.
const RACES: usize = 200;

fn csv(id: &str) -> String {
    format!("bsuite_id_-_{}.csv", id.replace('/', "-"))
}

fn manifest(dir: &Path) -> serde_json::Value {
    let text = fs::read_to_string(dir.join("bsuite_run.json")).expect("a manifest");
    serde_json::from_str(&text).expect("a manifest in JSON")
}

/// Two shards of one split, started together with another seed (even iterations) or
/// another episode count (odd ones), may never both run: the directory ends with the
/// files of exactly one of them, and its manifest names that one.
#[test]
fn shards_that_start_together_never_mix_runs() {
    let root = scratch("race-shards");
    let start = Instant::now();
    let mut mixed = Vec::new();
    for i in 0..RACES {
        let dir = root.join(i.to_string());
        let runs = [("0/2", "1", "2", "catch/0"), ("1/2", "2", "3", "catch/1")];
        let children: Vec<_> = runs
            .iter()
            .map(|(shard, seed, episodes, _)| {
                let (seed, episodes) = if i % 2 == 0 {
                    (*seed, "2")
                } else {
                    ("1", *episodes)
                };
                let args = [
                    "--ids",
                    "catch/0",
                    "catch/1",
                    "--shard",
                    shard,
                    "--seed",
                    seed,
                    "--num-episodes",
                    episodes,
                ];
                (
                    seed.to_string(),
                    episodes.to_string(),
                    bench_all(&dir, &args)
                        .stdout(Stdio::null())
                        .stderr(Stdio::piped())
                        .spawn()
                        .expect("xtask starts"),
                )
            })
            .collect();
        let outputs: Vec<(String, String, Output)> = children
            .into_iter()
            .map(|(s, e, c)| (s, e, c.wait_with_output().unwrap()))
            .collect();
        let ran: Vec<usize> = (0..2).filter(|&k| outputs[k].2.status.success()).collect();
        for (k, (_, _, output)) in outputs.iter().enumerate() {
            if !output.status.success() {
                let text = stderr(output);
                assert!(text.contains("another run"), "iteration {i}: {text}");
                assert!(!dir.join(csv(runs[k].3)).exists(), "a refused shard wrote");
            }
        }
        assert!(!ran.is_empty(), "iteration {i}: neither shard ran");
        let written = manifest(&dir);
        if ran.len() == 2 {
            mixed.push(i);
        } else {
            let (seed, episodes, _) = &outputs[ran[0]];
            assert_eq!(written["seed"].to_string(), *seed, "iteration {i}");
            assert_eq!(
                written["num_episodes"].to_string(),
                *episodes,
                "iteration {i}"
            );
        }
        fs::remove_dir_all(&dir).unwrap();
    }
    let elapsed = start.elapsed();
    eprintln!("{RACES} shard races in {:.1} s", elapsed.as_secs_f64());
    assert!(
        mixed.is_empty(),
        "both shards ran, mixing two runs under one manifest, in {} of {RACES} races \
         (iterations {mixed:?})",
        mixed.len()
    );
    let _ = fs::remove_dir_all(&root);
}

const IDS: [&str; 6] = [
    "catch/0", "catch/1", "catch/2", "catch/3", "catch/4", "catch/5",
];

fn sweep(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["--ids"];
    args.extend(IDS);
    args.extend(["--num-episodes", "1500"]);
    args.extend(extra);
    bench_all(dir, &args).output().expect("xtask runs")
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    IDS.iter()
        .map(|id| {
            (
                id.to_string(),
                fs::read(dir.join(csv(id))).unwrap_or_default(),
            )
        })
        .collect()
}

/// `--overwrite` killed after its first id, then resumed without `--overwrite`: the resume
/// reruns every id the overwrite had not replaced, so the directory ends as an
/// uninterrupted run of the new seed, and until then the manifest says the overwrite is
/// unfinished.
#[test]
fn an_interrupted_overwrite_is_finished_by_the_resume() {
    let old = scratch("overwrite-old");
    let fresh = scratch("overwrite-fresh");
    for (dir, seed) in [(&old, "42"), (&fresh, "5")] {
        let done = sweep(dir, &["--seed", seed]);
        assert!(done.status.success(), "{}", stderr(&done));
    }
    let mut child = bench_all(&old, &[])
        .args(["--ids"])
        .args(IDS)
        .args(["--num-episodes", "1500", "--seed", "5", "--overwrite"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    let unfinished = manifest(&old);
    assert!(
        files(&old) == files(&fresh) || !unfinished["overwriting"].is_null(),
        "the manifest claims seed 5 for seed-42 files: {unfinished}"
    );
    if !unfinished["overwriting"].is_null() {
        // `score` says so too, rather than calling every file seed 5's.
        let scored = common::run(&["score", old.to_str().unwrap()]);
        let said = String::from_utf8_lossy(&scored.stdout);
        assert!(
            said.contains("still those of agent random, seed 42"),
            "{said}"
        );
    }
    let resumed = sweep(&old, &["--seed", "5"]);
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    for ((id, ours), (_, theirs)) in files(&old).iter().zip(files(&fresh).iter()) {
        assert!(
            ours == theirs,
            "{id} is not seed 5's after the resume ({first})"
        );
    }
    let finished = manifest(&old);
    assert!(finished["overwriting"].is_null(), "{finished}");
    for dir in [old, fresh] {
        fs::remove_dir_all(dir).unwrap();
    }
}

/// A directory of bsuite CSVs that no manifest vouches for (Python bsuite's, or copied
/// shards) is refused, saying so, and nothing is written; `--overwrite` takes it over
/// with a manifest that names the files it has not replaced.
#[test]
fn csvs_without_a_manifest_are_not_adopted() {
    let source = scratch("unclaimed-source");
    let done = bench_all(
        &source,
        &["--ids", "catch/0", "catch/1", "--num-episodes", "3"],
    )
    .output()
    .unwrap();
    assert!(done.status.success(), "{}", stderr(&done));
    let dir: PathBuf = scratch("unclaimed");
    fs::create_dir_all(&dir).unwrap();
    for id in ["catch/0", "catch/1"] {
        fs::copy(source.join(csv(id)), dir.join(csv(id))).unwrap();
    }
    let before = fs::read(dir.join(csv("catch/0"))).unwrap();
    let args = [
        "--ids",
        "catch/0",
        "catch/1",
        "--num-episodes",
        "3",
        "--seed",
        "7",
    ];
    let refused = bench_all(&dir, &args).output().unwrap();
    let text = stderr(&refused);
    assert!(!refused.status.success(), "adopted: {text}");
    assert!(
        text.contains("no bsuite_run.json") && text.contains("2 results files"),
        "{text}"
    );
    assert!(
        !dir.join("bsuite_run.json").exists(),
        "a manifest was written"
    );
    assert_eq!(fs::read(dir.join(csv("catch/0"))).unwrap(), before);

    let taken = bench_all(
        &dir,
        &["--ids", "catch/0", "--num-episodes", "3", "--seed", "7"],
    )
    .arg("--overwrite")
    .output()
    .unwrap();
    assert!(taken.status.success(), "{}", stderr(&taken));
    let written = manifest(&dir);
    assert_eq!(written["seed"], 7);
    let left = written["overwriting"]["files"].to_string();
    assert!(
        left.contains(&csv("catch/1")) && !left.contains(&csv("catch/0")),
        "{written}"
    );
    for dir in [source, dir] {
        fs::remove_dir_all(dir).unwrap();
    }
}

/// A manifest from a newer bsuite-rs (a version above this one, a field this one does not
/// know) is neither accepted nor rewritten: the run is refused, naming the version.
#[test]
fn a_newer_manifest_is_not_rewritten() {
    let dir = scratch("newer-manifest");
    let done = bench_all(&dir, &["--ids", "catch/0", "--num-episodes", "3"])
        .output()
        .unwrap();
    assert!(done.status.success(), "{}", stderr(&done));
    let mut newer = manifest(&dir);
    newer["bsuite_rs"] = "9.9.9".into();
    newer["provenance_v2"] = serde_json::json!({"hash": "abc"});
    let text = serde_json::to_string_pretty(&newer).unwrap();
    fs::write(dir.join("bsuite_run.json"), &text).unwrap();
    for extra in [&[][..], &["--overwrite"][..]] {
        let refused = bench_all(&dir, &["--ids", "catch/0", "--num-episodes", "3"])
            .args(extra)
            .output()
            .unwrap();
        let said = stderr(&refused);
        assert!(!refused.status.success(), "accepted: {said}");
        assert!(
            said.contains("9.9.9") && said.contains("provenance_v2"),
            "{said}"
        );
        assert_eq!(
            fs::read_to_string(dir.join("bsuite_run.json")).unwrap(),
            text
        );
    }
    fs::remove_dir_all(&dir).unwrap();
}
