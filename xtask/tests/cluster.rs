//! A split sweep as a cluster runs it (issue 30): shards in separate directories gathered
//! by `cargo xtask merge` with their provenance, checked by `cargo xtask verify`, and
//! shards that find their number in the cluster's environment (`--shard auto`).

mod common;

use std::fs;
use std::path::Path;

use common::{bench_all_random, csvs, run, scratch, stderr};

const IDS: [&str; 4] = ["bandit/0", "bandit/1", "catch/0", "catch/1"];

/// `bench-all random` on [`IDS`], 20 episodes each, into `dir` with `extra` arguments.
fn random(dir: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["--ids"];
    args.extend(IDS);
    args.extend(["--num-episodes", "20"]);
    args.extend(extra);
    bench_all_random(dir, &args).output().unwrap()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Finding 1: `cp shard*/*.csv merged/` dropped the manifest, and a run with another
/// seed or episode count then claimed the files. The copied directory is refused; `merge`
/// keeps the provenance, so the merged directory refuses another run too, and holds the
/// bytes of one whole run.
#[test]
fn merge_keeps_the_provenance_and_the_bytes() {
    let root = scratch("cluster-merge");
    let (d0, d1, whole) = (root.join("shard0"), root.join("shard1"), root.join("whole"));
    for (dir, extra) in [
        (&d0, vec!["--shard", "0/2"]),
        (&d1, vec!["--shard", "1/2"]),
        (&whole, vec![]),
    ] {
        let out = random(dir, &extra);
        assert!(out.status.success(), "{}", stderr(&out));
    }

    // The README's old way: the CSVs alone.
    let copied = root.join("copied");
    fs::create_dir_all(&copied).unwrap();
    for dir in [&d0, &d1] {
        for (name, bytes) in csvs(dir) {
            fs::write(copied.join(name), bytes).unwrap();
        }
    }
    for extra in [["--seed", "7"], ["--num-episodes", "5"]] {
        let out = bench_all_random(&copied, &extra)
            .args(["--ids", "bandit/0"])
            .output()
            .unwrap();
        assert!(
            !out.status.success(),
            "{extra:?} adopted files nothing vouches for"
        );
        assert!(
            stderr(&out).contains("no bsuite_run.json"),
            "{}",
            stderr(&out)
        );
    }
    let out = run(&["merge", path(&root.join("m0")), path(&copied)]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("has no bsuite_run.json"),
        "{}",
        stderr(&out)
    );

    let merged = root.join("merged");
    let out = run(&["merge", path(&merged), path(&d0), path(&d1)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        csvs(&merged),
        csvs(&whole),
        "the merge is one whole run's bytes"
    );
    let manifest = fs::read_to_string(merged.join("bsuite_run.json")).unwrap();
    assert!(
        manifest.contains("\"seed\": 42") && !manifest.contains("shards"),
        "{manifest}"
    );
    // Merging again is a no-op; the merged directory is one run's.
    let again = run(&["merge", path(&merged), path(&d0), path(&d1)]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(csvs(&merged), csvs(&whole));
    for extra in [["--seed", "7"], ["--num-episodes", "5"]] {
        let out = bench_all_random(&merged, &extra)
            .args(["--ids", "bandit/0"])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{extra:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("another run"), "{}", stderr(&out));
    }
    let resumed = random(&merged, &[]);
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    assert!(
        stderr(&resumed).contains("ran 0, skipped 4"),
        "{}",
        stderr(&resumed)
    );
    let mut ids = vec!["verify", path(&merged), "--ids"];
    ids.extend(IDS);
    let out = run(&ids);
    assert!(out.status.success(), "{}", stderr(&out));

    // Another run's directory, and an id whose bytes differ, are refused, and nothing
    // is written.
    let seven = root.join("seven");
    assert!(random(&seven, &["--shard", "1/2", "--seed", "7"])
        .status
        .success());
    let out = run(&["merge", path(&root.join("m1")), path(&d0), path(&seven)]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("seed 7, not 42"), "{}", stderr(&out));
    assert!(csvs(&root.join("m1")).is_empty());
    let changed = root.join("changed");
    let out = run(&["merge", path(&changed), path(&d1)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (name, mut bytes) = csvs(&changed).remove(0);
    bytes.extend(b"\n");
    fs::write(changed.join(&name), bytes).unwrap();
    let out = run(&["merge", path(&root.join("m2")), path(&d1), path(&changed)]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("differ between directories"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains(&name), "{}", stderr(&out));
    assert!(csvs(&root.join("m2")).is_empty());
    fs::remove_dir_all(&root).unwrap();
}

/// `verify` names missing, partial and damaged ids and fails unless all are complete.
#[test]
fn verify_lists_what_is_not_complete() {
    let root = scratch("cluster-verify");
    let dir = root.join("random");
    assert!(random(&dir, &[]).status.success());
    let file = |id: &str| dir.join(format!("bsuite_id_-_{}.csv", id.replace('/', "-")));
    fs::remove_file(file("bandit/0")).unwrap();
    let text = fs::read_to_string(file("bandit/1")).unwrap();
    let short: Vec<&str> = text.lines().take(4).collect();
    fs::write(file("bandit/1"), short.join("\n") + "\n").unwrap();
    fs::write(file("catch/0"), text.clone() + "1,2\n").unwrap();
    let mut args = vec!["verify", path(&dir), "--ids"];
    args.extend(IDS);
    let out = run(&args);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("4 selected ids: 1 complete, 1 partial, 1 damaged, 1 missing"),
        "{said}"
    );
    assert!(said.contains("partial: bandit/1 (3 episodes)"), "{said}");
    assert!(said.contains("damaged: catch/0: "), "{said}");
    assert!(said.contains("missing: bandit/0"), "{said}");
    assert!(
        stderr(&out).contains("3 of 4 selected ids"),
        "{}",
        stderr(&out)
    );
    fs::remove_dir_all(&root).unwrap();
}

/// Finding 5: `--array=1-10` with `--shard $SLURM_ARRAY_TASK_ID/10` never ran shard 0 and
/// failed task 10. `--shard auto` maps a 1-based array onto the shards, and an Indexed
/// Job's index with `--shards`.
#[test]
fn shard_auto_reads_the_cluster() {
    let root = scratch("cluster-auto");
    let slurm = [
        ("SLURM_ARRAY_TASK_ID", "2"),
        ("SLURM_ARRAY_TASK_MIN", "1"),
        ("SLURM_ARRAY_TASK_MAX", "2"),
        ("SLURM_ARRAY_TASK_COUNT", "2"),
    ];
    let dir = root.join("slurm");
    let mut command = bench_all_random(&dir, &["--shard", "auto", "--num-episodes", "2", "--ids"]);
    let out = command.args(IDS).envs(slurm).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("shard 1/2"), "{}", stderr(&out));
    let names: Vec<String> = csvs(&dir).into_iter().map(|f| f.0).collect();
    assert_eq!(
        names,
        ["bsuite_id_-_bandit-1.csv", "bsuite_id_-_catch-1.csv"]
    );

    let dir = root.join("k8s");
    let mut command = bench_all_random(&dir, &["--shard", "auto", "--num-episodes", "2", "--ids"]);
    let out = command
        .args(IDS)
        .env("JOB_COMPLETION_INDEX", "0")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(stderr(&out).contains("pass --shards N"), "{}", stderr(&out));
    let mut command = bench_all_random(
        &dir,
        &[
            "--shard",
            "auto",
            "--shards",
            "2",
            "--num-episodes",
            "2",
            "--ids",
        ],
    );
    let out = command
        .args(IDS)
        .env("JOB_COMPLETION_INDEX", "0")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let names: Vec<String> = csvs(&dir).into_iter().map(|f| f.0).collect();
    assert_eq!(
        names,
        ["bsuite_id_-_bandit-0.csv", "bsuite_id_-_catch-0.csv"]
    );
    fs::remove_dir_all(&root).unwrap();
}

/// Finding 3: with `--jobs 4` the per-id lines interleaved
/// (`bandit_noisebandit_noise//1513: : 10000 episodes...`). Every line is whole.
#[test]
fn lines_are_whole_with_many_jobs() {
    let root = scratch("cluster-lines");
    for round in 0..3 {
        let dir = root.join(round.to_string());
        let mut command = common::xtask();
        command.args([
            "bench-all",
            "random",
            "--plain",
            "--no-score",
            "--jobs",
            "4",
        ]);
        command.args([
            "--num-episodes",
            "3",
            "--ids",
            "bandit",
            "bandit_noise",
            "catch",
        ]);
        let out = command.arg("--results").arg(&dir).output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let text = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 20 + 20 + 20, "{text}");
        for line in lines {
            let (id, rest) = line.split_once(": ").unwrap_or_else(|| panic!("{line}"));
            assert!(id.parse::<bsuite_envs::BsuiteId>().is_ok(), "{line}");
            assert!(
                rest.starts_with("3 episodes, ") && rest.ends_with(" steps/s)"),
                "{line}"
            );
        }
    }
    fs::remove_dir_all(&root).unwrap();
}

/// Finding 4: each shard printed the scores of the whole shared directory, the other
/// shards' files included. A shard scores its own ids.
#[test]
fn a_shard_scores_its_own_ids() {
    let root = scratch("cluster-shard-score");
    let dir = root.join("random");
    let out = random(&dir, &["--shard", "1/2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut command = common::xtask();
    command.args([
        "bench-all",
        "random",
        "--plain",
        "--jobs",
        "1",
        "--shard",
        "0/2",
    ]);
    command.args(["--num-episodes", "20", "--ids"]).args(IDS);
    let out = command.arg("--results").arg(&dir).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let summary = text
        .lines()
        .find(|l| l.starts_with("random: "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        summary.starts_with("random: 2 bsuite_ids in 2 experiments"),
        "{text}"
    );
    assert_eq!(csvs(&dir).len(), 4, "the directory holds both shards");
    fs::remove_dir_all(&root).unwrap();
}
