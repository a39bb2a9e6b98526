//! Writes reports from the repository's fixtures (bsuite's own random-agent CSVs, five ids per
//! experiment) and checks what lands on disk; compiles the LaTeX where pdflatex is installed
//! (always on CI).

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use bsuite_analysis::experiments::in_plot_order;
use bsuite_analysis::AgentResults;
use bsuite_report::{check, html, latex, Options, Written};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/random_results")
}

/// A fresh, empty directory under the system's temporary directory.
fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("bsuite-report-test-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// One report on two agents (the fixtures under two names), shared by the tests below.
fn two_agent_report() -> &'static (PathBuf, Written) {
    static REPORT: OnceLock<(PathBuf, Written)> = OnceLock::new();
    REPORT.get_or_init(|| {
        let out = scratch("two-agents");
        let agents = vec![
            AgentResults::load("random", &fixtures()).unwrap(),
            AgentResults::load("random_again", &fixtures()).unwrap(),
        ];
        let written = bsuite_report::write(&agents, &out, &Options::default()).unwrap();
        (out, written)
    })
}

#[test]
fn report_has_every_figure_as_svg_and_pdf_and_the_documents() {
    let (out, written) = two_agent_report();
    for name in [
        html::INDEX,
        latex::PREAMBLE,
        latex::APPENDIX,
        latex::DETAILS,
        latex::STANDALONE,
        latex::BIBLIOGRAPHY,
    ] {
        assert!(out.join(name).is_file(), "{name} missing");
    }
    for name in ["scores.csv", "scores.json", "images/figures.json"] {
        assert!(out.join(name).is_file(), "{name} missing");
    }
    // The summary's radar and score grid; two agents' bars side by side in the details.
    for stem in ["radar_plot", "score_grid", "bar_plot_compare"] {
        for ext in ["svg", "pdf"] {
            let path = out.join(format!("images/{stem}.{ext}"));
            assert!(path.is_file(), "{} missing", path.display());
        }
    }
    // Every experiment has data in the fixtures, so every one has its own figures.
    for experiment in in_plot_order().map(|e| e.name) {
        let dir = out.join("images").join(experiment);
        let svgs = fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter(|e| e.as_ref().unwrap().path().extension().unwrap() == "svg")
            .count();
        assert!(svgs >= 2, "{experiment}: {svgs} figures");
    }
    let pdfs = written
        .files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "pdf"))
        .count();
    assert_eq!(pdfs, written.figures);
    for file in &written.files {
        let bytes = fs::read(out.join(file)).unwrap();
        if file.extension().is_some_and(|e| e == "pdf") {
            assert!(bytes.starts_with(b"%PDF-"), "{}", file.display());
        }
        if file.extension().is_some_and(|e| e == "svg") {
            let text = String::from_utf8(bytes).unwrap();
            assert!(
                text.contains("<svg") && !text.contains("<text"),
                "{}",
                file.display()
            );
        }
    }
}

#[test]
fn html_is_self_contained_and_covers_every_experiment() {
    let (out, _) = two_agent_report();
    let page = fs::read_to_string(out.join(html::INDEX)).unwrap();
    assert!(!page.contains("src=\"http"), "the page fetches something");
    assert!(!page.contains("<img"), "figures must be inline");
    assert!(page.contains("@font-face"));
    for experiment in in_plot_order().map(|e| e.name) {
        assert!(
            page.contains(&format!("<section id=\"exp-{experiment}\">")),
            "{experiment} section missing"
        );
    }
    assert!(page.contains(
        r#"<th data-agent="random">random</th><th data-agent="random_again">random_again</th>"#
    ));
    // No path of the machine: a report names agents and its own files only.
    assert!(!page.contains(&fixtures().display().to_string()));
    // The fixtures hold 5 of each experiment's ids, which the page must say.
    assert!(page.contains("partial sweeps"));
}

#[test]
fn appendix_lists_the_agents_and_references_existing_figures() {
    let (out, _) = two_agent_report();
    let appendix = fs::read_to_string(out.join(latex::APPENDIX)).unwrap();
    assert!(appendix.contains(r"\textbf{random}: picks an action uniformly at random"));
    assert!(appendix.contains(r"\textbf{random\_again}: describe this agent here"));
    let details = fs::read_to_string(out.join(latex::DETAILS)).unwrap();
    let mut included = 0;
    for line in details.lines() {
        if let Some(at) = line.find(r"{\bsuitereportdir/") {
            let stem = &line[at + r"{\bsuitereportdir/".len()..line.len() - 1];
            assert!(out.join(format!("{stem}.pdf")).is_file(), "{stem}");
            included += 1;
        }
    }
    assert!(included > in_plot_order().count(), "{included} figures");
}

/// CI installs TeX Live (see `.ci/run`); elsewhere the test is skipped when pdflatex is
/// missing, with a message.
#[test]
fn latex_compiles_with_a_one_page_summary_and_all_figures() {
    if !common::pdflatex_or_skip("latex_compiles_with_a_one_page_summary_and_all_figures") {
        return;
    }
    let (out, written) = two_agent_report();
    let checked = check::compile_and_check(out).unwrap_or_else(|e| panic!("{e}"));
    assert!(checked.pages > 2, "{} pages", checked.pages);
    // The appendix includes the radar and bar plots, the details every other figure.
    assert_eq!(checked.figures, written.figures);
}

/// A study's report (six variants, each with its definition) keeps the summary on one
/// page: the figures give back the room the longer lists take.
#[test]
fn six_agents_keep_the_summary_on_one_page() {
    let names = ["a", "b", "c", "d", "e", "f"];
    let agents: Vec<AgentResults> = names
        .iter()
        .map(|name| AgentResults::load(*name, &fixtures()).unwrap())
        .collect();
    let options = Options {
        definitions: names
            .iter()
            .map(|n| {
                (
                    n.to_string(),
                    format!("variant {n}, a sentence long enough to wrap."),
                )
            })
            .collect(),
        ..Options::default()
    };
    let out = scratch("six-agents");
    bsuite_report::write(&agents, &out, &options).unwrap();
    let appendix = fs::read_to_string(out.join(latex::APPENDIX)).unwrap();
    assert!(appendix.contains(r"\item \textbf{f}: variant f, a sentence long enough to wrap."));
    // Several agents: their bars side by side in the details.
    let details = fs::read_to_string(out.join(latex::DETAILS)).unwrap();
    assert!(details.contains("images/bar_plot_compare}"));
    if check::pdflatex_available() {
        check::compile_and_check(&out).unwrap_or_else(|e| panic!("{e}"));
    } else {
        assert!(std::env::var_os("CI").is_none(), "CI must install pdflatex");
    }
}

#[test]
fn rewriting_replaces_only_the_reports_own_files() {
    let results = scratch("partial-results");
    for name in ["bsuite_id_-_bandit-0.csv", "bsuite_id_-_deep_sea-0.csv"] {
        fs::copy(fixtures().join(name), results.join(name)).unwrap();
    }
    let out = scratch("rewrite");
    // A directory no report wrote is taken only when empty, or with overwrite.
    fs::write(out.join("index.html"), "my page").unwrap();
    let both = AgentResults::load("agent", &results).unwrap();
    let refused = bsuite_report::write(std::slice::from_ref(&both), &out, &Options::default())
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("index.html") && refused.contains("--overwrite"),
        "{refused}"
    );
    assert_eq!(
        fs::read_to_string(out.join("index.html")).unwrap(),
        "my page"
    );
    assert_eq!(fs::read_dir(&out).unwrap().count(), 1, "nothing written");
    fs::remove_file(out.join("index.html")).unwrap();
    // Another report inside it (a study's, as report/appendix_c/ in report/) is not
    // foreign, and is left as it was.
    let study = out.join("appendix_c");
    bsuite_report::write(std::slice::from_ref(&both), &study, &Options::default()).unwrap();
    let study_page = fs::read_to_string(study.join("index.html")).unwrap();
    let first = bsuite_report::write(&[both], &out, &Options::default()).unwrap();
    // Files put beside a report are left alone by the next one.
    fs::write(out.join("notes.txt"), "mine").unwrap();
    assert!(out.join("images/deep_sea").is_dir());
    assert_eq!(first.incomplete.len(), 1);
    assert!(first.incomplete[0].1[0].contains("no results for 21 of 23 experiments"));

    fs::remove_file(results.join("bsuite_id_-_deep_sea-0.csv")).unwrap();
    let bandit_only = AgentResults::load("agent", &results).unwrap();
    let second = bsuite_report::write(&[bandit_only], &out, &Options::default()).unwrap();
    assert!(!second.removed.is_empty());
    assert!(second
        .removed
        .iter()
        .all(|p| p.starts_with("images/deep_sea")));
    assert!(!out.join("images/deep_sea").exists(), "stale figures left");
    assert!(out.join("images/bandit").is_dir());
    assert_eq!(fs::read_to_string(out.join("notes.txt")).unwrap(), "mine");
    assert_eq!(
        fs::read_to_string(study.join("index.html")).unwrap(),
        study_page
    );
    assert!(
        study.join("images/deep_sea").is_dir(),
        "the study's report kept"
    );
    assert!(results.join("bsuite_id_-_bandit-0.csv").is_file());

    // With overwrite, a foreign file at a report's name is replaced.
    let foreign = scratch("overwrite");
    fs::write(foreign.join("index.html"), "my page").unwrap();
    let options = Options {
        overwrite: true,
        ..Options::default()
    };
    let agent = AgentResults::load("agent", &results).unwrap();
    bsuite_report::write(&[agent], &foreign, &options).unwrap();
    assert_ne!(
        fs::read_to_string(foreign.join("index.html")).unwrap(),
        "my page"
    );
}

#[test]
fn an_unwritable_directory_is_named_once_and_leaves_nothing() {
    let results = scratch("unwritable-results");
    fs::copy(
        fixtures().join("bsuite_id_-_bandit-0.csv"),
        results.join("bsuite_id_-_bandit-0.csv"),
    )
    .unwrap();
    let agent = AgentResults::load("agent", &results).unwrap();
    let out = Path::new("/proc/bsuite-report");
    let err = bsuite_report::write(&[agent], out, &Options::default()).unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with("creating the directory /proc/bsuite-report: "),
        "{text}"
    );
    assert!(
        std::error::Error::source(&err).is_none(),
        "the cause is said once"
    );
}

#[test]
fn no_agents_or_two_agents_with_one_name_are_errors() {
    let out = scratch("errors");
    let err = bsuite_report::write(&[], &out, &Options::default()).unwrap_err();
    assert!(err.to_string().contains("no results"), "{err}");
    let results = scratch("one-id");
    fs::copy(
        fixtures().join("bsuite_id_-_bandit-0.csv"),
        results.join("bsuite_id_-_bandit-0.csv"),
    )
    .unwrap();
    let agents = vec![
        AgentResults::load("same", &results).unwrap(),
        AgentResults::load("same", &results).unwrap(),
    ];
    let err = bsuite_report::write(&agents, &out, &Options::default()).unwrap_err();
    assert!(err.to_string().contains("'same'"), "{err}");
    assert_eq!(
        fs::read_dir(&out).unwrap().count(),
        0,
        "wrote despite the error"
    );
}

/// The same run under two names would count twice: refused, naming both. Results are the
/// same run when their manifests name the same agent, configuration, seed and episodes,
/// whichever build wrote them, and their rows are the same.
#[test]
fn the_same_run_given_twice_is_refused() {
    let copy = |name: &str, revision: &str| {
        let dir = scratch(name);
        for entry in fs::read_dir(fixtures()).unwrap() {
            let path = entry.unwrap().path();
            fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
        }
        let manifest = format!(
            r#"{{"agent": "random", "description": "uniformly random actions", "seed": 42,
               "num_episodes": null, "bsuite_rs": "0.1.0", "git_revision": "{revision}"}}"#
        );
        fs::write(dir.join("bsuite_run.json"), manifest).unwrap();
        dir
    };
    let (a, b) = (copy("same-run-a", "1111111"), copy("same-run-b", "2222222"));
    let agents = vec![
        AgentResults::load("random", &a).unwrap(),
        AgentResults::load("random_again", &b).unwrap(),
    ];
    assert!(agents[0].manifest.is_some(), "the manifest was not read");
    let out = scratch("same-run-report");
    let err = bsuite_report::write(&agents, &out, &Options::default()).unwrap_err();
    assert!(
        matches!(&err, bsuite_report::Error::SameRun { first, second, seed: Some(42) }
            if first == "random" && second == "random_again"),
        "{err}"
    );
    // Another seed is another run.
    let manifest = fs::read_to_string(b.join("bsuite_run.json")).unwrap();
    fs::write(
        b.join("bsuite_run.json"),
        manifest.replace("\"seed\": 42", "\"seed\": 43"),
    )
    .unwrap();
    let agents = vec![
        AgentResults::load("random", &a).unwrap(),
        AgentResults::load("random_again", &b).unwrap(),
    ];
    bsuite_report::write(&agents, &out, &Options::default()).unwrap();
    for dir in [a, b, out] {
        fs::remove_dir_all(dir).unwrap();
    }
}
