//! Issue 55, the multi-seed layer: one layout rule for a results directory, decided
//! under its lock (a single-seed and a multi-seed run started together never both write
//! into one directory); a new seed must be its siblings' run; every reader warns of an
//! unfinished `--overwrite` per seed, naming both runs; the seed reader names what it
//! skips; `--seeds` says what it cannot do. Real processes, real files, real races.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::Instant;

use common::{bench_all_random, run, scratch, stderr};

/// Iterations of the layout race, as the shard race of `provenance.rs`: the issue's
/// reproduction mixed the layouts in 14 of 30.
const RACES: usize = 200;

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A quick random sweep of `ids` into `dir`, `extra` after.
fn random(dir: &Path, ids: &[&str], extra: &[&str]) -> Output {
    let mut command = bench_all_random(dir, &["--num-episodes", "5", "--ids"]);
    command.args(ids).args(extra).stdout(Stdio::null());
    command.output().unwrap()
}

/// The names directly in `dir`, lock files left out.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| !n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Item 2: `bench-all --seeds 2` and a single-seed `bench-all` started together on one
/// directory both exited 0 in 14 of 30 tries, leaving CSVs and a manifest beside
/// `seed-42/` and `seed-43/`. Exactly one may run; the other is refused, names the layout
/// it found, and leaves nothing behind.
#[test]
fn a_single_and_a_multi_seed_run_never_share_a_directory() {
    let root = scratch("layout-race");
    let start = Instant::now();
    let quick = ["--ids", "catch/0", "--num-episodes", "2"];
    let mut mixed = Vec::new();
    for i in 0..RACES {
        let dir = root.join(i.to_string());
        let spawn = |extra: &[&str]| {
            bench_all_random(&dir, &[&quick[..], extra].concat())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("xtask starts")
        };
        // Alternate which starts first.
        let (seeds, single) = if i % 2 == 0 {
            let seeds = spawn(&["--seeds", "2"]);
            (seeds, spawn(&[]))
        } else {
            let single = spawn(&[]);
            (spawn(&["--seeds", "2"]), single)
        };
        let (seeds, single) = (
            seeds.wait_with_output().unwrap(),
            single.wait_with_output().unwrap(),
        );
        let held = names(&dir);
        // Exactly one ran, and the directory holds its layout alone; the other was
        // refused, naming the layout it found, and left nothing.
        let one_ran = if seeds.status.success() && !single.status.success() {
            held == ["seed-42", "seed-43"] && stderr(&single).contains("seed directories")
        } else if single.status.success() && !seeds.status.success() {
            held == ["bsuite_id_-_catch-0.csv", "bsuite_run.json"]
                && stderr(&seeds).contains("single-seed run")
        } else {
            false
        };
        if !one_ran {
            mixed.push((i, held, stderr(&seeds), stderr(&single)));
        }
        fs::remove_dir_all(&dir).unwrap();
    }
    eprintln!(
        "{RACES} layout races in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    assert!(
        mixed.is_empty(),
        "{} of {RACES} races did not end with exactly one run and its layout; the first: \
         {:?}",
        mixed.len(),
        mixed.first()
    );
    let _ = fs::remove_dir_all(&root);
}

/// Item 3: a new seed of another episode count (or agent) was let in beside its
/// siblings, after which `score` failed. A new seed must be its siblings' run; the same
/// run's new seed is welcome, through `--seeds` or its own directory.
#[test]
fn a_new_seed_must_be_its_siblings_run() {
    let dir = scratch("siblings");
    let ids = ["catch/0", "catch/1"];
    assert!(random(&dir, &ids, &["--seeds", "2"]).status.success());
    let refused = |out: Output, says: &str| {
        assert!(!out.status.success(), "accepted a seed of another run");
        assert!(stderr(&out).contains(says), "{}", stderr(&out));
    };
    let mut fifty = bench_all_random(
        &dir,
        &["--num-episodes", "50", "--seeds", "44..46", "--ids"],
    );
    fifty.args(ids);
    refused(fifty.output().unwrap(), "50 per id, not 5 per id");
    let mut dqn = common::xtask();
    dqn.args([
        "bench-all",
        "dqn",
        "--plain",
        "--no-score",
        "--num-episodes",
        "5",
    ])
    .args(["--seeds", "44..45", "--results", path(&dir), "--ids"])
    .args(ids);
    refused(dqn.output().unwrap(), "agent dqn, not random");
    let seed_44 = dir.join("seed-44");
    let mut seven = bench_all_random(&seed_44, &["--num-episodes", "7", "--seed", "44", "--ids"]);
    seven.args(ids);
    refused(seven.output().unwrap(), "7 per id, not 5 per id");
    refused(
        random(&seed_44, &ids, &["--seed", "7"]),
        "the directory of seed 44",
    );
    assert_eq!(
        names(&dir),
        ["seed-42", "seed-43"],
        "a refused seed leaves no directory"
    );
    let scored = run(&["score", path(&dir)]);
    assert!(scored.status.success(), "{}", stderr(&scored));

    assert!(random(&seed_44, &ids, &["--seed", "44"]).status.success());
    assert!(random(&dir, &ids, &["--seeds", "42..46"]).status.success());
    let scored = run(&["score", path(&dir)]);
    let text = String::from_utf8_lossy(&scored.stdout);
    assert!(
        text.contains("4 seeds (42, 43, 44, 45)"),
        "{text}{}",
        stderr(&scored)
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// Items 1 and 15: after an `--overwrite` of another configuration is cut short, the
/// seeds hold files of both runs. `score`, `compare`, `report` and `--export` said nothing
/// (only a single-seed `score` did, and its message read like the new run's). Every
/// reader warns, seed by seed, naming both configurations.
#[test]
fn every_reader_warns_of_an_unfinished_overwrite_per_seed() {
    let root = scratch("unfinished-overwrite");
    let dir = root.join("OW");
    let dqn = |extra: &[&str]| {
        let mut command = common::xtask();
        command
            .args([
                "bench-all",
                "dqn",
                "--plain",
                "--no-score",
                "--num-episodes",
                "3",
            ])
            .args(["--seeds", "2", "--results", path(&dir)])
            .args(extra)
            .stdout(Stdio::null());
        let out = command.output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    };
    dqn(&["--ids", "catch/0", "catch/1", "catch/2"]);
    // The overwrite selects one id: the other two stay the old run's, listed as such,
    // as they would if it were killed before reaching them.
    dqn(&[
        "--ids",
        "catch/0",
        "--config",
        "learning_rate=0.01",
        "--overwrite",
    ]);
    let export = root.join("export.json");
    let (a, b) = (
        format!("OW={}", path(&dir)),
        format!("again={}", path(&dir)),
    );
    let report = root.join("report");
    let readers: [(&str, Vec<&str>); 4] = [
        ("score", vec!["score", path(&dir)]),
        ("compare", vec!["compare", &a, &b]),
        (
            "export",
            vec![
                "score",
                path(&dir),
                "--json",
                "--export",
                "rliable",
                path(&export),
            ],
        ),
        (
            "report",
            vec!["report", "--results", path(&dir), "--out", path(&report)],
        ),
    ];
    for (reader, args) in readers {
        let out = run(&args);
        let text = stderr(&out);
        assert!(out.status.success(), "{reader}: {text}");
        for seed in [42, 43] {
            let expected = format!(
                "OW seed {seed}: 2 of its files are still those of agent dqn, seed {seed}, 3 \
                 episodes per id, with learning_rate=0.001 (this run: learning_rate=0.01)"
            );
            assert!(text.contains(&expected), "{reader}: {text}");
        }
        assert!(
            text.contains("an unfinished --overwrite"),
            "{reader}: {text}"
        );
    }
    fs::remove_dir_all(&root).unwrap();
}

/// Item 16: the seed reader ignored `seed-044/` and `seed-4294967296/` silently; `--seeds`
/// printed `Count(2)` and ignored `--seed` beside a range; `--seeds 300` under
/// `ulimit -n 256` failed half-way, leaving 252 directories of lock files.
#[test]
fn seeds_say_what_they_skip_and_cannot_do() {
    let dir = scratch("seeds-say");
    assert!(random(&dir, &["catch/0"], &["--seeds", "2"])
        .status
        .success());
    for odd in ["seed-044", "seed-4294967296"] {
        fs::create_dir(dir.join(odd)).unwrap();
    }
    let out = run(&["score", path(&dir)]);
    let text = stderr(&out);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("seed-044: skipped: not a seed directory"),
        "{text}"
    );
    assert!(
        text.contains("seed-4294967296: skipped: not a seed directory"),
        "{text}"
    );

    let out = random(
        &dir,
        &["catch/0"],
        &["--seeds", "2", "--seed", "4294967295"],
    );
    let text = stderr(&out);
    assert!(!out.status.success());
    assert!(
        text.contains("2 seeds from seed 4294967295 run past the largest seed"),
        "{text}"
    );
    assert!(!text.contains("Count("), "{text}");
    let out = random(&dir, &["catch/0"], &["--seeds", "3..5", "--seed", "7"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("--seed 7 would do nothing"),
        "{}",
        stderr(&out)
    );

    let many = scratch("seeds-many");
    let xtask = env!("CARGO_BIN_EXE_xtask");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -n 256 && exec {xtask} bench-all random --plain --no-score --jobs 1 \
             --num-episodes 1 --ids catch/0 --seeds 300 --results {}",
            path(&many)
        ))
        .env("XTASK_NO_REEXEC", "1")
        .output()
        .unwrap();
    let text = stderr(&out);
    assert!(!out.status.success());
    assert!(text.contains("ulimit -n"), "{text}");
    assert!(names(&many).is_empty(), "left {:?}", names(&many));
    let _ = fs::remove_dir_all(&many);
    fs::remove_dir_all(&dir).unwrap();
}

/// The seed directories `bench-all --seeds` made for a pool that was then refused are
/// removed: a refusal leaves the directory as it found it.
#[test]
fn a_refused_pool_leaves_no_seed_directory() {
    let dir = scratch("refused-pool");
    assert!(random(&dir, &["catch/0"], &["--seeds", "2"])
        .status
        .success());
    // Another writer holds seed 43's lock (`flock`, as a run does); the pool 42..46 is
    // refused there, after it made seed-44/ and seed-45/.
    let lock: PathBuf = dir.join("seed-43").join(".bsuite-lock");
    // `-o`: only flock holds the lock, and it ends when its command reads the end of
    // its input.
    let mut holder = std::process::Command::new("flock")
        .arg("-o")
        .arg(&lock)
        .args(["sh", "-c", "echo held; read line"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    let mut held = std::io::BufReader::new(holder.stdout.take().unwrap());
    std::io::BufRead::read_line(&mut held, &mut line).unwrap();
    assert_eq!(line.trim(), "held");
    let out = random(&dir, &["catch/0"], &["--seeds", "42..46"]);
    drop(holder.stdin.take());
    holder.wait().unwrap();
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("in use by another run"),
        "{}",
        stderr(&out)
    );
    assert_eq!(names(&dir), ["seed-42", "seed-43"]);
    fs::remove_dir_all(&dir).unwrap();
}
