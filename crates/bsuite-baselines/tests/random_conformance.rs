//! Our random agent, run loop and CSV logger reproduce bsuite 0.3.6's random-agent results
//! (`tests/fixtures/random_results/`, made by `ref_run.py --agent random --seed 42`).
//!
//! The default test runs in full every fixture id of at most 200,000 steps and the first 100
//! episodes of the others, to stay fast in debug builds. The whole set in full:
//!
//!     cargo test -p bsuite-baselines --release --test random_conformance -- --ignored
//!
//! or `cargo xtask bench-all random --ids $(cat tests/fixtures/random_ids.txt) --results DIR`
//! followed by `diff -r DIR tests/fixtures/random_results`.

use std::fs;
use std::path::{Path, PathBuf};

use bsuite_baselines::factory::{self, AgentEntry, AgentSetup, Batching};
use bsuite_baselines::random::Random;
use bsuite_baselines::runner::{run_ids, Outcome, Progress, RunnerOptions};
use bsuite_baselines::{BatchAgent, OneByOne};
use bsuite_envs::BsuiteId;
use bsuite_logging::results::file_name;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/random_results")
}

/// The fixture ids with the step count of their last row.
fn fixture_ids() -> Vec<(BsuiteId, u64)> {
    let text = fs::read_to_string(fixtures().join("../random_ids.txt")).unwrap();
    let ids: Vec<(BsuiteId, u64)> = text
        .split_whitespace()
        .map(|s| {
            let id: BsuiteId = s.parse().unwrap();
            let csv = fs::read_to_string(fixtures().join(file_name(&id))).unwrap();
            let last = csv.lines().last().unwrap();
            (id, last.split(',').next().unwrap().parse().unwrap())
        })
        .collect();
    assert_eq!(ids.len(), 115);
    ids
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bsuite-conf-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    dir
}

fn run_random(ids: &[BsuiteId], dir: &Path, num_episodes: Option<usize>) {
    run_agent(factory::agent("random").unwrap(), ids, dir, num_episodes, 0);
}

fn run_agent(
    agent: AgentEntry,
    ids: &[BsuiteId],
    dir: &Path,
    num_episodes: Option<usize>,
    batch_size: usize,
) {
    let options = RunnerOptions {
        results_dir: dir.to_owned(),
        num_episodes,
        batch_size,
        ..RunnerOptions::default()
    };
    let reports = run_ids(ids, agent, &options, &Progress::default(), &|_| {}).unwrap();
    for report in reports {
        assert!(matches!(report.outcome, Outcome::Ran { .. }), "{report}");
    }
}

/// Parses CSV text into a header and rows of floats.
fn parse(text: &str) -> (Vec<String>, Vec<Vec<f64>>) {
    let mut lines = text.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| l.split(',').map(|c| c.parse().unwrap()).collect())
        .collect();
    (header, rows)
}

fn check_full(ids: &[BsuiteId], dir: &Path) {
    for id in ids {
        let name = file_name(id);
        let ours = fs::read_to_string(dir.join(&name)).unwrap();
        let theirs = fs::read_to_string(fixtures().join(&name)).unwrap();
        // Same rows, columns and values; in fact the same text.
        assert_eq!(parse(&ours), parse(&theirs), "{id}: values differ");
        assert_eq!(ours, theirs, "{id}: text differs");
    }
    // Besides the results: the run's manifest and lock files, and no temporary files.
    let files = fs::read_dir(dir)
        .unwrap()
        .filter(|e| {
            !e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with(".bsuite-lock")
        })
        .count();
    assert!(dir.join("bsuite_run.json").is_file() && dir.join(".bsuite-lock").is_file());
    assert_eq!(
        files,
        ids.len() + 1,
        "one file per id and no temporary files"
    );
}

#[test]
fn reproduces_cheap_ids_in_full_and_the_start_of_the_others() {
    let (cheap, costly): (Vec<_>, Vec<_>) = fixture_ids()
        .into_iter()
        .partition(|&(_, steps)| steps <= 200_000);
    let cheap: Vec<BsuiteId> = cheap.into_iter().map(|(id, _)| id).collect();
    let costly: Vec<BsuiteId> = costly.into_iter().map(|(id, _)| id).collect();
    assert!(cheap.len() >= 80, "{}", cheap.len());

    let dir = scratch("cheap");
    run_random(&cheap, &dir, None);
    check_full(&cheap, &dir);
    fs::remove_dir_all(&dir).unwrap();

    // 100 is a schedule point, so a 100-episode run logs the reference's first 23 rows (a
    // column may still be int where the full file has turned it float: compare values).
    let dir = scratch("costly");
    run_random(&costly, &dir, Some(100));
    for id in &costly {
        let name = file_name(id);
        let (header, rows) = parse(&fs::read_to_string(dir.join(&name)).unwrap());
        let (ref_header, ref_rows) = parse(&fs::read_to_string(fixtures().join(&name)).unwrap());
        assert_eq!(header, ref_header, "{id}");
        assert_eq!(rows.len(), 23, "{id}");
        assert_eq!(rows, ref_rows[..23], "{id}");
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// The random agent as lockstep replicas, so the batched runner must match the reference.
fn batched_random() -> AgentEntry {
    AgentEntry {
        batching: Some(Batching {
            key: |setup: &AgentSetup| setup.action_spec.num_actions as u64 % 2,
            make: |setups: &[AgentSetup]| -> Box<dyn BatchAgent> {
                let agents = setups
                    .iter()
                    .map(|s| Random::new(s.action_spec, s.seed))
                    .collect();
                Box::new(OneByOne(agents))
            },
            default_size: 32,
        }),
        ..factory::agent("random").unwrap()
    }
}

#[test]
fn lockstep_batches_reproduce_the_reference_too() {
    let cheap: Vec<BsuiteId> = fixture_ids()
        .into_iter()
        .filter(|&(_, steps)| steps <= 50_000)
        .map(|(id, _)| id)
        .collect();
    assert!(cheap.len() >= 30, "{}", cheap.len());
    let dir = scratch("batched");
    run_agent(batched_random(), &cheap, &dir, None, 7);
    check_full(&cheap, &dir);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[ignore = "about 30 s in debug builds; `cargo xtask test` runs it in release"]
fn reproduces_every_fixture_in_full() {
    let ids: Vec<BsuiteId> = fixture_ids().into_iter().map(|(id, _)| id).collect();
    let dir = scratch("all");
    run_random(&ids, &dir, None);
    check_full(&ids, &dir);
    fs::remove_dir_all(&dir).unwrap();
}
