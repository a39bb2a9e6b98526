//! The shipped baselines from the user's side: `report --baselines` puts them beside the
//! user's results without running anything, an unknown name lists what ships, and
//! `pack-baseline` refuses what is not a complete sweep, or a configuration other than the
//! default under the agent's own name.

mod common;

use std::path::{Path, PathBuf};

use common::{run as xtask, scratch, stderr};

fn fixtures() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/random_results"
    ))
}

/// The repository's shipped baselines.
fn shipped() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../baselines")
}

/// The shipped baseline `name`, unpacked into a new scratch directory `scratch_name`.
fn unpacked_baseline(name: &str, scratch_name: &str) -> PathBuf {
    let dir = scratch(scratch_name);
    std::fs::create_dir_all(&dir).unwrap();
    let unpacked = std::process::Command::new("tar")
        .arg("xzf")
        .arg(shipped().join(format!("{name}.tar.gz")))
        .arg("-C")
        .arg(&dir)
        .status()
        .unwrap();
    assert!(unpacked.success());
    dir
}

#[test]
fn a_report_takes_the_shipped_baselines_beside_the_users_results() {
    let out = scratch("baselines-report");
    let mine = format!("mine={}", fixtures().display());
    let args = ["report", "--results", &mine, "--baselines", "all"];
    let report = xtask(&[&args[..], &["--out", out.to_str().unwrap()]].concat());
    assert!(report.status.success(), "{}", stderr(&report));
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(page.contains("<b>mine</b>") && page.contains("<b>random</b>"));

    let unknown = xtask(&["report", "--results", &mine, "--baselines", "dqn2"]);
    assert!(!unknown.status.success());
    let err = stderr(&unknown);
    assert!(
        err.contains("no shipped baseline 'dqn2'; the repository ships: "),
        "{err}"
    );
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn only_complete_default_sweeps_are_packed() {
    let partial = scratch("baselines-partial");
    let run = xtask(&[
        "bench-all",
        "random",
        "--ids",
        "catch/0",
        "--plain",
        "--no-score",
        "--results",
        partial.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let refused = xtask(&[
        "pack-baseline",
        partial.to_str().unwrap(),
        "--name",
        "never",
    ]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("holds 1 of 468 ids"),
        "{}",
        stderr(&refused)
    );
    let archive = shipped().join("never.tar.gz");
    assert!(!archive.exists());
    std::fs::remove_dir_all(&partial).unwrap();
}

/// `pack-baseline` writes where `--out` says (the repository's `baselines/` by default) and
/// never replaces an archive there without `--overwrite`: a shipped baseline was replaced
/// silently before.
#[test]
fn a_packed_baseline_is_not_replaced_without_overwrite() {
    let dir = unpacked_baseline("random", "baselines-sweep");
    let shipped = shipped();
    let before = std::fs::read(shipped.join("random.tar.gz")).unwrap();
    let sweep = dir.to_str().unwrap();
    let refused = xtask(&["pack-baseline", sweep]);
    assert!(!refused.status.success(), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("random.tar.gz exists; pass --overwrite"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(
        std::fs::read(shipped.join("random.tar.gz")).unwrap(),
        before
    );

    let out = scratch("baselines-out");
    let out_dir = out.to_str().unwrap();
    let packed = xtask(&["pack-baseline", sweep, "--out", out_dir]);
    assert!(packed.status.success(), "{}", stderr(&packed));
    assert_eq!(std::fs::read(out.join("random.tar.gz")).unwrap(), before);
    let again = xtask(&["pack-baseline", sweep, "--out", out_dir]);
    assert!(!again.status.success());
    let replaced = xtask(&["pack-baseline", sweep, "--out", out_dir, "--overwrite"]);
    assert!(replaced.status.success(), "{}", stderr(&replaced));
    for dir in [dir, out] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

/// A complete sweep of another configuration ships under a name of its own, never under
/// its agent's, which stands for the default.
#[test]
fn another_configuration_ships_under_its_own_name() {
    // A one-seed sweep of dqn (with RMSProp; seed 42's where it ships several), its
    // manifest changed below.
    let unpacked = unpacked_baseline("dqn_rmsprop", "baselines-named");
    let dir = match unpacked.join("seed-42") {
        seed_42 if seed_42.is_dir() => seed_42,
        _ => unpacked.clone(),
    };
    // The shipped sweep's manifest, as a run with SGD would have written it.
    let manifest = dir.join("bsuite_run.json");
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    json["config"] = serde_json::json!({"optimizer": "sgd", "learning_rate": "0.01"});
    std::fs::write(&manifest, json.to_string()).unwrap();
    let sweep = dir.to_str().unwrap();
    let out = scratch("baselines-named-out");
    let out_dir = out.to_str().unwrap();

    let refused = xtask(&["pack-baseline", sweep, "--out", out_dir]);
    assert!(!refused.status.success());
    let err = stderr(&refused);
    assert!(
        err.contains("not dqn's default") && err.contains("--name"),
        "{err}"
    );
    assert!(!out.join("dqn.tar.gz").exists());

    let packed = xtask(&[
        "pack-baseline",
        sweep,
        "--out",
        out_dir,
        "--name",
        "dqn_sgd",
    ]);
    assert!(packed.status.success(), "{}", stderr(&packed));
    let scores = std::fs::read_to_string(out.join("dqn_sgd.scores.json")).unwrap();
    assert!(scores.contains("\"tags\""), "{scores}");
    for dir in [unpacked, out] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

/// A directory of seeds packs into one archive holding every seed's directory, the same
/// bytes each time (the shipped random baseline's, 5 seeds, repacked), with the scores over
/// seeds beside it; unpacked, it scores and reports as one agent.
#[test]
fn a_baseline_of_several_seeds_packs_every_seed_deterministically() {
    let seeds = unpacked_baseline("random", "baselines-seeds");
    let out: Vec<PathBuf> = (0..2)
        .map(|k| scratch(&format!("baselines-seeds-out-{k}")))
        .collect();
    for dir in &out {
        let packed = xtask(&[
            "pack-baseline",
            seeds.to_str().unwrap(),
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert!(packed.status.success(), "{}", stderr(&packed));
    }
    let archive = |k: usize| std::fs::read(out[k].join("random.tar.gz")).unwrap();
    assert_eq!(archive(0), archive(1));
    assert!(
        archive(0) == std::fs::read(shipped().join("random.tar.gz")).unwrap(),
        "repacking the shipped random baseline changed its bytes"
    );
    let scores = std::fs::read_to_string(out[0].join("random.scores.json")).unwrap();
    assert_eq!(
        scores,
        std::fs::read_to_string(shipped().join("random.scores.json")).unwrap()
    );
    let scores: serde_json::Value = serde_json::from_str(&scores).unwrap();
    assert_eq!(scores["seeds"], serde_json::json!([42, 43, 44, 45, 46]));

    let unpacked = scratch("baselines-seeds-unpacked");
    std::fs::create_dir_all(&unpacked).unwrap();
    let status = std::process::Command::new("tar")
        .arg("xzf")
        .arg(out[0].join("random.tar.gz"))
        .arg("-C")
        .arg(&unpacked)
        .status()
        .unwrap();
    assert!(status.success());
    let mut names: Vec<String> = std::fs::read_dir(&unpacked)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["seed-42", "seed-43", "seed-44", "seed-45", "seed-46"]
    );
    let score = xtask(&["score", unpacked.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&score.stdout);
    assert!(text.contains("5 seeds (42, 43, 44, 45, 46)"), "{text}");
    // The report reads it as one agent over seeds too (as `--baselines` unpacks it).
    let report = scratch("baselines-seeds-report");
    let made = xtask(&[
        "report",
        "--results",
        &format!("random={}", unpacked.display()),
        "--out",
        report.to_str().unwrap(),
    ]);
    assert!(made.status.success(), "{}", stderr(&made));
    let html = std::fs::read_to_string(report.join("index.html")).unwrap();
    assert!(
        html.contains(r#"<dt data-agent="random">random <small>5 seeds (42, 43, 44, 45, 46)"#),
        "no agent, or no seed count, in the report"
    );
    assert!(report.join("images/performance_profile.pdf").is_file());
    for dir in out.iter().chain([&seeds, &unpacked, &report]) {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

/// Seeds run later join a shipped baseline with `--add-seeds`, from a one-seed archive up
/// (the shipped random baseline's 5 seeds, shipped as seed 42, then 43, then 44 to 46,
/// give the shipped bytes); a partial seed and a seed on both sides are refused, and
/// `--overwrite` never drops a seed the archive holds.
#[test]
fn seeds_join_a_baseline_and_are_never_dropped() {
    let seeds = unpacked_baseline("random", "baselines-add");
    let part = |name: &str, seeds_in: &[u32]| {
        let dir = scratch(name);
        std::fs::create_dir_all(&dir).unwrap();
        for seed in seeds_in {
            let from = seeds.join(format!("seed-{seed}"));
            std::fs::rename(from, dir.join(format!("seed-{seed}"))).unwrap();
        }
        dir
    };
    let d43 = part("baselines-add-43", &[43]);
    let d44 = part("baselines-add-44-46", &[44, 45, 46]);
    let s42 = seeds.join("seed-42");
    let out = scratch("baselines-add-out");
    let pack = |dir: &Path, flag: Option<&str>| {
        let mut args = vec![
            "pack-baseline",
            dir.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend(flag);
        xtask(&args)
    };
    let archive = || std::fs::read(out.join("random.tar.gz")).unwrap();

    let first = pack(&s42, None);
    assert!(first.status.success(), "{}", stderr(&first));
    let one_seed = archive();
    // A seed short of one id (a sweep still running) is refused by its own directory's name.
    let partial = scratch("baselines-add-partial");
    let partial_seed = partial.join("seed-43");
    std::fs::create_dir_all(&partial_seed).unwrap();
    for entry in std::fs::read_dir(d43.join("seed-43")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), partial_seed.join(entry.file_name())).unwrap();
    }
    std::fs::remove_file(partial_seed.join("bsuite_id_-_catch-0.csv")).unwrap();
    let refused = pack(&partial, Some("--add-seeds"));
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains(&format!("{} holds 467 of 468 ids", partial_seed.display()))
            && stderr(&refused).contains("Only a complete sweep ships"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(
        archive(),
        one_seed,
        "a refused partial seed changed the archive"
    );
    let dropping = pack(&d44, Some("--overwrite"));
    assert!(!dropping.status.success());
    assert!(
        stderr(&dropping).contains("holds seed(s) 42 that")
            && stderr(&dropping).contains("--add-seeds"),
        "{}",
        stderr(&dropping)
    );
    assert_eq!(
        archive(),
        one_seed,
        "a refused --overwrite changed the archive"
    );

    for dir in [&d43, &d44] {
        let added = pack(dir, Some("--add-seeds"));
        assert!(added.status.success(), "{}", stderr(&added));
    }
    assert!(
        archive() == std::fs::read(shipped().join("random.tar.gz")).unwrap(),
        "seeds added one pack at a time are not the shipped random baseline's bytes"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("random.scores.json")).unwrap(),
        std::fs::read_to_string(shipped().join("random.scores.json")).unwrap()
    );
    let full = archive();
    let twice = pack(&d43, Some("--add-seeds"));
    assert!(!twice.status.success());
    assert!(
        stderr(&twice).contains("seed(s) 43 are both in"),
        "{}",
        stderr(&twice)
    );
    assert_eq!(archive(), full, "a refused --add-seeds changed the archive");
    for dir in [&seeds, &d43, &d44, &partial, &out] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

/// The per-tag tables of the README and of the guide's "Their scores" are the shipped
/// scores: a row for every baseline, with its seed count, its archive's size (the guide) and
/// each tag's mean with its interval over seeds, as `<name>.scores.json` has them. The tables
/// are written by hand when a baseline ships, so this is what keeps them from drifting.
#[test]
fn the_documented_score_tables_are_the_shipped_scores() {
    let mut names: Vec<String> = std::fs::read_dir(shipped())
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.strip_suffix(".scores.json").map(str::to_owned)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 11, "baselines: {names:?}");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let guide = std::fs::read_to_string(root.join("docs/book/src/comparing.md")).unwrap();
    let mut wrong = Vec::new();
    for name in &names {
        let text = std::fs::read_to_string(shipped().join(format!("{name}.scores.json"))).unwrap();
        let scores: serde_json::Value = serde_json::from_str(&text).unwrap();
        let seeds = scores["seeds"].as_array().map_or(1, Vec::len);
        // The tables' columns are the radar's tags, sorted by name.
        let cells: Vec<String> = bsuite_analysis::plot::RADAR_TAGS
            .iter()
            .map(|tag| tag.as_str())
            .map(
                |tag| match scores["intervals"]["tags"][tag]["mean"].as_object() {
                    Some(mean) => {
                        let at = |key: &str| mean[key].as_f64().unwrap();
                        format!("{:.2} [{:.2}, {:.2}]", at("value"), at("lo"), at("hi"))
                    }
                    None => format!("{:.2}", scores["tags"][tag].as_f64().unwrap()),
                },
            )
            .collect();
        let bytes = std::fs::metadata(shipped().join(format!("{name}.tar.gz")))
            .unwrap()
            .len();
        let kilobytes = (bytes as f64 / 1024.0).round();
        let expected = [
            (
                "README.md",
                &readme,
                format!("| {name} | {seeds} | {} |", cells.join(" | ")),
            ),
            (
                "comparing.md",
                &guide,
                format!(
                    "| {name} | {seeds} | {kilobytes} KB | {} |",
                    cells.join(" | ")
                ),
            ),
        ];
        for (file, text, row) in expected {
            let prefix = format!("| {name} |");
            let found: Vec<&str> = text.lines().filter(|l| l.starts_with(&prefix)).collect();
            if found != [row.as_str()] {
                wrong.push(format!("{file}: {found:?}\n  should be: {row}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
