//! The engine that computes the reference agents is named where results are recorded, and
//! a build without LibTorch says how to get it. `bsuite-run` is built with the `cli`
//! feature (as `cargo test --workspace` builds it, through xtask).
#![cfg(feature = "cli")]

use std::path::Path;
use std::process::Command;

use bsuite_baselines::factory;
use bsuite_baselines::runner::{self, Progress, RunnerOptions};
use bsuite_envs::BsuiteId;
use bsuite_logging::manifest::RunManifest;

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("bsuite-engines-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn bsuite_run(dir: &Path, extra: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_bsuite-run"))
        .args([
            "dqn",
            "--ids",
            "catch/0",
            "--num-episodes",
            "2",
            "--plain",
            "--results",
        ])
        .arg(dir)
        .args(extra)
        .output()
        .unwrap()
}

/// A host run's manifest says "host engine", never LibTorch.
#[test]
fn the_manifest_names_the_host_engine() {
    let dir = scratch("host");
    let out = bsuite_run(&dir, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let manifest = RunManifest::read(&dir).unwrap().unwrap();
    assert!(
        manifest.description.ends_with("(host engine)"),
        "{}",
        manifest.description
    );
    assert!(!manifest.description.contains("LibTorch"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Without the `libtorch` feature, the LibTorch switches fail before anything is written,
/// saying how to get them.
#[cfg(not(feature = "libtorch"))]
#[test]
fn a_build_without_libtorch_says_how_to_get_it() {
    for extra in [&["--engine", "libtorch"][..], &["--device", "cuda"]] {
        let dir = scratch("no-libtorch");
        let out = bsuite_run(&dir, extra);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{extra:?}: {stderr}");
        assert!(stderr.contains("needs LibTorch"), "{extra:?}: {stderr}");
        assert!(
            stderr.contains("--features libtorch"),
            "{extra:?}: {stderr}"
        );
        assert!(
            !dir.join("bsuite_run.json").exists(),
            "{extra:?} wrote a manifest"
        );
    }
}

/// Results written by an older build, whose manifest called the host agents "(LibTorch)"
/// (as `sweeps/boot_dqn`'s does), resume: the description is not part of what makes two
/// runs the same.
#[test]
fn a_description_written_by_an_older_build_does_not_block_resuming() {
    let dir = scratch("resume");
    let entry = factory::agent("boot_dqn").unwrap();
    let options = |ids: &[&str]| {
        let ids: Vec<BsuiteId> = ids.iter().map(|id| id.parse().unwrap()).collect();
        let options = RunnerOptions {
            results_dir: dir.clone(),
            jobs: 1,
            num_episodes: Some(2),
            ..RunnerOptions::default()
        };
        (ids, options)
    };
    let (ids, first) = options(&["bandit/0"]);
    runner::run_ids(&ids, entry, &first, &Progress::default(), &|_| {}).unwrap();
    // As an older build wrote it.
    let mut manifest = RunManifest::read(&dir).unwrap().unwrap();
    manifest.description =
        "bootstrapped DQN, 20 members with prior networks (scale 5) (LibTorch)".into();
    let path = dir.join("bsuite_run.json");
    let json = std::fs::read_to_string(&path).unwrap();
    let old = json.replace(
        &format!(
            "\"{}\"",
            RunManifest::read(&dir).unwrap().unwrap().description
        ),
        &format!("\"{}\"", manifest.description),
    );
    assert_ne!(json, old, "the description was replaced");
    std::fs::write(&path, old).unwrap();

    let (ids, resumed) = options(&["bandit/0", "bandit/1"]);
    let reports = runner::run_ids(&ids, entry, &resumed, &Progress::default(), &|_| {}).unwrap();
    assert!(
        matches!(reports[0].outcome, runner::Outcome::Skipped { .. }),
        "{:?}",
        reports[0].outcome
    );
    assert!(
        matches!(reports[1].outcome, runner::Outcome::Ran { .. }),
        "{:?}",
        reports[1].outcome
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--engine libtorch` runs the LibTorch definitions, and the manifest says so.
#[cfg(feature = "libtorch")]
#[test]
fn the_manifest_names_the_libtorch_engine() {
    let dir = scratch("libtorch");
    let out = bsuite_run(&dir, &["--engine", "libtorch"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let manifest = RunManifest::read(&dir).unwrap().unwrap();
    assert!(
        manifest.description.ends_with("(LibTorch)"),
        "{}",
        manifest.description
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
