//! A report on agents run over several seeds, built from the random-agent fixtures (each
//! "seed" leaves out a different one of the five ids of every experiment, so the seeds'
//! scores differ): the seed counts, the P(A > B) and difference tables with the numbers
//! `bsuite_analysis` computes, the radar's bands, the performance profile, the learning
//! curves' bands, and the LaTeX compiling.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use bsuite_analysis::plot::RADAR_TAGS;
use bsuite_analysis::seeds::{compare_agents, SeedResults, SeededAgent};
use bsuite_analysis::stats::{Bootstrap, Estimate};
use bsuite_analysis::AgentResults;
use bsuite_report::style::agent_style;
use bsuite_report::{check, Options, Written};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/random_results")
}

/// The fixtures without the `left_out`-th id of each experiment (five ids each).
fn subset(name: &str, left_out: usize) -> AgentResults {
    let mut results = AgentResults::load(name, &fixtures()).unwrap();
    let mut position = 0;
    results.runs.retain(|_| {
        position += 1;
        (position - 1) % 5 != left_out
    });
    results
}

/// An agent whose seed 42 + k leaves out id `left_out[k]` of each experiment.
fn agent(name: &str, left_out: &[usize]) -> SeededAgent {
    SeededAgent {
        name: name.into(),
        seeds: left_out
            .iter()
            .enumerate()
            .map(|(k, &left)| SeedResults {
                seed: Some(42 + k as u32),
                results: subset(name, left),
            })
            .collect(),
        skipped: Vec::new(),
    }
}

fn agents() -> Vec<SeededAgent> {
    vec![
        agent("three", &[0, 1, 2]),
        agent("two", &[3, 4]),
        agent("one", &[0]),
    ]
}

fn report() -> &'static (PathBuf, Written) {
    static REPORT: OnceLock<(PathBuf, Written)> = OnceLock::new();
    REPORT.get_or_init(|| {
        let out = std::env::temp_dir().join(format!("bsuite-report-seeds-{}", std::process::id()));
        let _ = fs::remove_dir_all(&out);
        let written = bsuite_report::write_seeded(&agents(), &out, &Options::default()).unwrap();
        (out, written)
    })
}

fn text(e: &Estimate) -> String {
    if e.value.is_nan() {
        "n/a".into()
    } else {
        e.to_string()
    }
}

/// The cells after `<td>a</td><td>b</td>` in the HTML table with class `class`, if it has
/// that row.
fn html_row(html: &str, class: &str, a: &str, b: &str) -> Option<Vec<String>> {
    let table = &html[html.find(&format!("<table class=\"{class}\">")).unwrap()..];
    let table = &table[..table.find("</table>").unwrap()];
    let start = format!("<td>{a}</td><td>{b}</td>");
    let row = &table[table.find(&start)? + start.len()..];
    let row = &row[..row.find("</tr>").unwrap()];
    Some(
        row.split("</td>")
            .filter(|c| !c.is_empty())
            .map(|c| c[c.find('>').unwrap() + 1..].to_string())
            .collect(),
    )
}

#[test]
fn the_pair_tables_hold_the_analysis_numbers() {
    let (out, _) = report();
    let html = fs::read_to_string(out.join("index.html")).unwrap();
    let latex = fs::read_to_string(out.join("bsuite_details.tex")).unwrap();
    let [three, two, _] = &agents()[..] else {
        unreachable!()
    };
    let (tags, _) = compare_agents(
        &three.summarize(),
        &two.summarize(),
        &Bootstrap::default(),
        0.05,
    );
    assert_eq!(tags.len(), RADAR_TAGS.len());
    let improvement: Vec<String> = tags.iter().map(|c| text(&c.improvement)).collect();
    let difference: Vec<String> = tags.iter().map(|c| text(&c.difference)).collect();
    // Seeds that leave out different ids score differently: the numbers mean something.
    assert!(
        tags.iter().any(|c| c.improvement.lo < c.improvement.hi),
        "{improvement:?}"
    );
    assert_eq!(
        html_row(&html, "pairs-p", "three", "two"),
        Some(improvement)
    );
    assert_eq!(
        html_row(&html, "pairs-diff", "three", "two"),
        Some(difference)
    );
    // The LaTeX gives each estimate to two places, its interval under it.
    let pair = r"\begin{tabular}[t]{@{}l@{}}three\\two\end{tabular} & ";
    let row = &latex[latex.find(pair).expect("the pair's row")..];
    let row = &row[..row.find(" \\\\\n").unwrap()];
    let first = &tags[0].improvement;
    assert!(row.contains(&format!("{:.2}", first.value)), "{row}");
    // A pair with a one-seed agent has no spread to compare: left out, and said once.
    assert_eq!(html_row(&html, "pairs-p", "three", "one"), None);
    assert!(html.contains("Agents with one seed (one) have no spread to compare"));
    assert!(latex.contains("Agents with one seed (one) have no spread to compare"));
}

#[test]
fn seed_counts_are_stated() {
    let (out, _) = report();
    let html = fs::read_to_string(out.join("index.html")).unwrap();
    let appendix = fs::read_to_string(out.join("bsuite_appendix.tex")).unwrap();
    for (name, seeds) in [
        ("three", "3 seeds (42, 43, 44)"),
        ("two", "2 seeds (42, 43)"),
        ("one", "1 seed (42)"),
    ] {
        assert!(
            html.contains(&format!("{name} <small>{seeds}</small>")),
            "{name}: {seeds}"
        );
        let count = seeds.split(" (").next().unwrap();
        assert!(
            appendix.contains(&format!(r"\textbf{{{name}}} ({count})")),
            "{name}: {count}"
        );
    }
}

#[test]
fn the_tables_give_the_intervals_of_the_agents_with_seeds() {
    let (out, _) = report();
    let html = fs::read_to_string(out.join("index.html")).unwrap();
    let three = &agents()[0];
    let basic = three.summarize().tag_stats(&Bootstrap::default())[0].mean();
    assert!(basic.lo < basic.hi, "{basic:?}");
    let cell = format!(
        "{:.3} <small>[{:.3}, {:.3}]</small></td>",
        basic.value, basic.lo, basic.hi
    );
    let tags = &html[html.find("id=\"tags\"").unwrap()..];
    let row = &tags[tags.find("<tr><td>basic</td>").unwrap()..];
    let row = &row[..row.find("</tr>").unwrap()];
    assert!(row.contains(&cell), "{cell} not in {row}");
    // The one-seed agent's cell (the last) has no interval.
    assert_eq!(row.matches("<small>").count(), 2, "{row}");
    // Each experiment's section gives it too.
    let catch = three
        .summarize()
        .experiment_stats(&Bootstrap::default())
        .into_iter()
        .find(|e| e.experiment.name == "catch")
        .unwrap()
        .mean;
    let section = &html[html.find("<section id=\"exp-catch\">").unwrap()..];
    let words = format!("[{:.3}, {:.3}] over seeds", catch.lo, catch.hi);
    assert!(section[..section.find("<figure").unwrap()].contains(&words));
}

#[test]
fn the_radar_bands_the_agents_with_seeds_only() {
    let (out, _) = report();
    let radar = fs::read_to_string(out.join("images/radar_plot.svg")).unwrap();
    let band = |k: usize| {
        format!(
            "fill=\"{}\" fill-opacity=\"0.25\"",
            agent_style(k).colour.to_css()
        )
    };
    assert!(radar.contains(&band(0)), "no band for three");
    assert!(radar.contains(&band(1)), "no band for two");
    assert!(!radar.contains(&band(2)), "a band for the one-seed agent");
}

#[test]
fn the_profile_and_the_learning_curve_bands_are_drawn_and_said() {
    let (out, written) = report();
    for ext in ["svg", "pdf"] {
        assert!(out
            .join(format!("images/performance_profile.{ext}"))
            .is_file());
    }
    let html = fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("Performance profile: the fraction of each agent"));
    assert!(html.contains("from the lowest to the highest seed"));
    let details = fs::read_to_string(out.join("bsuite_details.tex")).unwrap();
    assert!(details.contains("images/performance_profile}"));
    // Radar, bar, comparison and profile, then every experiment's plots.
    assert!(written.figures > 4 + 23);
}

#[test]
fn the_latex_compiles() {
    if !common::pdflatex_or_skip("the_latex_compiles") {
        return;
    }
    let (out, written) = report();
    let checked = check::compile_and_check(out).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(checked.figures, written.figures);
}
