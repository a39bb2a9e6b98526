//! Configured agents and studies from the user's side: a bad `--config` is refused, naming
//! the key and what it takes, before anything is built or run; a study runs each variant
//! into its own directory, with its configuration in the manifest, and writes one report
//! with the study's agent definitions.

mod common;

use std::fs;

use common::{run as xtask, scratch, stderr};

#[test]
fn bad_configurations_name_the_key_and_the_valid_choices() {
    let dir = scratch("config-refused");
    let results = dir.to_str().unwrap();
    for (pair, expected) in [
        ("optimizer=adagrad", "expected one of adam, sgd, rmsprop"),
        (
            "learning_rate=-1",
            "learning_rate=-1: expected a number above 0",
        ),
        (
            "nonsense=1",
            "dqn has no key 'nonsense'; its keys are: seed, optimizer",
        ),
        (
            "hidden_sizes=64,x",
            "hidden_sizes=64,x: expected layer widths",
        ),
    ] {
        let args = ["bench-all", "dqn", "--ids", "catch/0", "--results", results];
        let out = xtask(&[&args[..], &["--config", pair]].concat());
        assert!(!out.status.success(), "{pair} was accepted");
        assert!(stderr(&out).contains(expected), "{pair}: {}", stderr(&out));
    }
    assert!(
        !dir.exists(),
        "nothing may be written for a refused configuration"
    );
}

#[test]
fn a_study_runs_its_variants_and_reports_them_with_their_definitions() {
    let dir = scratch("study");
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("seeds.toml");
    fs::write(
        &file,
        r#"title = "Two seeds"

[[variant]]
name = "first"
agent = "random"
definition = "The random agent with seed 1."
config = { seed = 1 }

[[variant]]
name = "second"
agent = "random"
definition = "The random agent with seed 2."
config = { seed = 2 }
"#,
    )
    .unwrap();
    let (results, out) = (dir.join("results"), dir.join("report"));
    let study = |extra: &[&str]| {
        let mut args = vec!["study", file.to_str().unwrap(), "--plain"];
        args.extend(["--ids", "catch/0", "bandit/0", "--num-episodes", "30"]);
        args.extend(["--results", results.to_str().unwrap()]);
        args.extend(["--out", out.to_str().unwrap()]);
        args.extend(extra);
        xtask(&args)
    };
    let ran = study(&[]);
    assert!(ran.status.success(), "{}", stderr(&ran));

    for (variant, seed) in [("first", 1), ("second", 2)] {
        let manifest = fs::read_to_string(results.join(variant).join("bsuite_run.json")).unwrap();
        assert!(
            manifest.contains(&format!("\"seed\": \"{seed}\"")),
            "{manifest}"
        );
    }
    let csv =
        |variant: &str| fs::read(results.join(variant).join("bsuite_id_-_catch-0.csv")).unwrap();
    assert_ne!(csv("first"), csv("second"), "two seeds, two runs");

    let appendix = fs::read_to_string(out.join("bsuite_appendix.tex")).unwrap();
    assert!(appendix.contains(r"\item \textbf{first}: The random agent with seed 1."));
    assert!(appendix.contains(r"\item \textbf{second}: The random agent with seed 2."));
    let page = fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        page.contains(r#">second</dt><dd data-agent="second">The random agent with seed 2."#),
        "the report's agent list: {page}"
    );

    // Run again: every id is complete, so nothing reruns; --report-only runs nothing.
    let again = study(&[]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("ran 0, skipped 2"),
        "{}",
        stderr(&again)
    );
    fs::remove_dir_all(results.join("second")).unwrap();
    let report_only = study(&["--report-only"]);
    assert!(report_only.status.success(), "{}", stderr(&report_only));
    assert!(
        stderr(&report_only).contains("variant second has no results"),
        "{}",
        stderr(&report_only)
    );
    assert!(
        !results.join("second").exists(),
        "--report-only ran a variant"
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// `study --seeds 2`: each variant runs over two seeds from its own into
/// `RESULTS/<variant>/seed-<s>/`, and the report reads each variant over its seeds.
#[test]
fn a_study_over_seeds_runs_every_variant_over_them() {
    let dir = scratch("study-seeds");
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("tiny.toml");
    fs::write(
        &file,
        r#"title = "Tiny over seeds"

[[variant]]
name = "plain"
agent = "random"
definition = "The random agent."

[[variant]]
name = "from7"
agent = "random"
definition = "The random agent from seed 7."
config = { seed = 7 }
"#,
    )
    .unwrap();
    let (results, out) = (dir.join("results"), dir.join("report"));
    let ran = xtask(&[
        "study",
        file.to_str().unwrap(),
        "--plain",
        "--seeds",
        "2",
        "--ids",
        "catch/0",
        "bandit/0",
        "--num-episodes",
        "20",
        "--results",
        results.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ran.status.success(), "{}", stderr(&ran));
    for (variant, seeds) in [("plain", [42, 43]), ("from7", [7, 8])] {
        for seed in seeds {
            let seed_dir = results.join(variant).join(format!("seed-{seed}"));
            let manifest = fs::read_to_string(seed_dir.join("bsuite_run.json")).unwrap();
            assert!(
                manifest.contains(&format!("\"seed\": \"{seed}\"")),
                "{variant}: {manifest}"
            );
            assert!(seed_dir.join("bsuite_id_-_catch-0.csv").is_file());
        }
        let names: Vec<String> = fs::read_dir(results.join(variant))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !n.starts_with('.'))
            .collect();
        assert_eq!(names.len(), 2, "only seed directories: {names:?}");
    }
    let page = fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        page.contains(r#"</dt><dd data-agent="from7">The random agent from seed 7."#),
        "the report's agent list: {page}"
    );
    // Each variant is one agent over its seeds.
    assert!(page.contains("2 seeds (7, 8)"), "the report's seed counts");
    assert!(
        page.contains("2 seeds (42, 43)"),
        "the report's seed counts"
    );
    assert!(
        stderr(&ran).contains("report of 2 variant(s)"),
        "{}",
        stderr(&ran)
    );
    fs::remove_dir_all(&dir).unwrap();
}
