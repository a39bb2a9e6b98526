//! The reports a researcher makes from the shipped baselines, checked as the paper's page:
//! appendix C's study (4 agents) and every baseline at once pass `report-check` in all
//! three geometries (one summary page, no overfull box, no figure text under 6 pt as
//! placed), the page of every baseline stays well under 3 MB, and seeds that disagree reach
//! the figures whole: every setting of every seed of actor_critic_rnn's memory_len and
//! dqn's deep_sea is in the merged figure's data.
//!
//! These need optimised builds (the reports read 30 sweeps) and pdflatex: `cargo xtask
//! test` runs them with `--release -- --ignored`, as it runs the Slurm test.

mod common;

use std::path::Path;

use bsuite_analysis::plot::{Figure, Mark};
use bsuite_analysis::seeds::SeededAgent;
use common::{run, scratch, stderr};

fn repository() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

#[test]
#[ignore = "optimised builds only: cargo xtask test runs it"]
fn the_shipped_reports_pass_report_check_in_every_geometry() {
    let study = scratch("shipped-appendix-c");
    let file = repository().join("studies/appendix_c.toml");
    let made = run(&[
        "study",
        file.to_str().unwrap(),
        "--report-only",
        "--baselines",
        "--out",
        study.to_str().unwrap(),
    ]);
    assert!(made.status.success(), "{}", stderr(&made));
    let png = study.join("page1.png");
    let checked = run(&[
        "report-check",
        study.to_str().unwrap(),
        "--png",
        png.to_str().unwrap(),
    ]);
    assert!(checked.status.success(), "appendix C: {}", stderr(&checked));
    assert!(
        std::fs::metadata(&png).unwrap().len() > 10_000,
        "no page 1 PNG"
    );

    let every = scratch("shipped-every-baseline");
    let made = run(&[
        "report",
        "--baselines",
        "all",
        "--out",
        every.to_str().unwrap(),
    ]);
    assert!(made.status.success(), "{}", stderr(&made));
    let checked = run(&["report-check", every.to_str().unwrap()]);
    assert!(
        checked.status.success(),
        "every baseline: {}",
        stderr(&checked)
    );
    let page = std::fs::metadata(every.join("index.html")).unwrap().len();
    assert!(
        page < 2_500_000,
        "the page of every baseline is {page} bytes"
    );
    for dir in [study, every] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

/// A shipped baseline unpacked into `root`, read as one agent over its seeds.
fn baseline(name: &str, root: &Path) -> SeededAgent {
    let archive = repository().join(format!("baselines/{name}.tar.gz"));
    let file = std::fs::File::open(&archive).unwrap();
    let dir = root.join(name);
    tar::Archive::new(flate2::read::GzDecoder::new(file))
        .unpack(&dir)
        .unwrap();
    SeededAgent::load(name, &dir, false).unwrap()
}

/// Every point (x, y) of a figure's points series, and every x of its lines and bars, in
/// `panel`.
fn data(figure: &Figure, panel: usize) -> (Vec<(f64, f64)>, Vec<f64>) {
    let mut points = Vec::new();
    let mut xs = Vec::new();
    for series in &figure.panels[panel].series {
        match series.mark {
            Mark::Points { .. } => points.extend(series.points.iter().map(|p| (p.x, p.y))),
            _ => xs.extend(series.points.iter().map(|p| p.x)),
        }
    }
    (points, xs)
}

#[test]
#[ignore = "optimised builds only: cargo xtask test runs it"]
fn every_setting_of_every_seed_reaches_the_figures() {
    let root = scratch("shipped-seeds-disagree");
    for (agent, experiment, plots) in [
        (
            "actor_critic_rnn",
            "memory_len",
            &["memory_len_scale", "memory_len_learning"][..],
        ),
        (
            "dqn",
            "deep_sea",
            &["deep_sea_scaling", "deep_sea_regret"][..],
        ),
    ] {
        let seeded = baseline(agent, &root);
        assert!(
            seeded.seeds.len() >= 3,
            "{agent}: {} seeds",
            seeded.seeds.len()
        );
        let merged = bsuite_report::figures_over_seeds(std::slice::from_ref(&seeded));
        let experiment = bsuite_envs::experiments()
            .iter()
            .find(|e| e.name == experiment)
            .unwrap();
        for plot in plots {
            let figure = merged.iter().find(|f| f.name == *plot).unwrap();
            let (points, xs) = data(figure, 0);
            let mut disagree = false;
            let mut seen: Option<Vec<(f64, f64)>> = None;
            for seed in &seeded.seeds {
                let own = bsuite_analysis::figures::experiment_figures(
                    std::slice::from_ref(&seed.results),
                    experiment,
                );
                let own = own.iter().find(|f| f.name == *plot).unwrap();
                let (seed_points, seed_xs) = data(own, 0);
                for point in &seed_points {
                    assert!(
                        points.contains(point),
                        "{agent} {plot}: seed {:?}'s point {point:?} is not in the figure",
                        seed.seed
                    );
                }
                for x in &seed_xs {
                    assert!(
                        xs.contains(x),
                        "{agent} {plot}: seed {:?}'s x {x} is missing",
                        seed.seed
                    );
                }
                disagree |= seen.as_ref().is_some_and(|s| *s != seed_points);
                seen = Some(seed_points);
            }
            // The scale and scaling plots are where these seeds disagree on what passed.
            if plot.ends_with("_scale") || plot.ends_with("_scaling") {
                assert!(
                    disagree,
                    "{agent} {plot}: the seeds agree, so this proves nothing"
                );
            }
        }
    }
    std::fs::remove_dir_all(&root).unwrap();
}

/// `bench-all random` writes seed 42 of the shipped random baseline (every id, the same
/// bytes, another build): a report of both draws that run once, as the user's agent over
/// the baseline's seeds, and says so.
#[test]
#[ignore = "optimised builds only: cargo xtask test runs it"]
fn the_shipped_baseline_of_the_users_own_run_is_reported_once() {
    let mine = scratch("shipped-mine-random");
    let ran = run(&[
        "bench-all",
        "random",
        "--plain",
        "--no-score",
        "--results",
        mine.to_str().unwrap(),
    ]);
    assert!(ran.status.success(), "{}", stderr(&ran));
    let out = scratch("shipped-mine-report");
    let made = run(&[
        "report",
        "--results",
        &format!("random={}", mine.display()),
        "--baselines",
        "random,dqn",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(made.status.success(), "{}", stderr(&made));
    assert!(
        stderr(&made).contains("holds 1 of the shipped baseline random's 5 seeds"),
        "{}",
        stderr(&made)
    );
    let scores = std::fs::read_to_string(out.join("scores.csv")).unwrap();
    let agents: std::collections::BTreeSet<&str> = scores
        .lines()
        .skip(1)
        .filter_map(|l| l.split(',').next())
        .collect();
    assert_eq!(agents.into_iter().collect::<Vec<_>>(), ["dqn", "random"]);
    for dir in [mine, out] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}
