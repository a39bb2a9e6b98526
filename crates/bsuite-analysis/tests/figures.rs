//! Plot data on the reference random run: the notebook's plots exist for every experiment and
//! their numbers agree with the reference's plotting code.

use std::path::Path;

use bsuite_analysis::figures::{all_figures, bar_chart, experiment_figures, radar_chart};
use bsuite_analysis::plot::{FigureKind, Mark, Shape};
use bsuite_analysis::{summarize, AgentResults};

fn random_agent(name: &str) -> AgentResults {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/random_results");
    AgentResults::load(name, &dir).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1.0)
}

#[test]
fn learning_curve_uses_the_reference_smoother() {
    let agents = [random_agent("random")];
    let catch = bsuite_envs::experiment("catch").unwrap();
    let figures = experiment_figures(&agents, catch);
    let kinds: Vec<FigureKind> = figures.iter().map(|f| f.kind).collect();
    assert_eq!(kinds, [FigureKind::Learning, FigureKind::Seeds]);
    let learning = &figures[0];
    assert_eq!(learning.hlines[0].y, 1.6);
    let json = serde_json::to_string(learning).unwrap();
    assert!(json.contains(r#""kind":"learning""#) && json.contains(r#""type":"smooth""#));
    let series = &learning.panels[0].series;
    assert_eq!(series.len(), 1);
    assert!(matches!(series[0].mark, Mark::Smooth { .. }));
    // bsuite.utils.smoothers.mean over catch/0..4 (x = episode, y = total_regret / episode).
    let reference = [
        (
            187.30555555555554,
            1.5951437337898122,
            1.5629694800508571,
            1.6273179875287673,
        ),
        (
            1460.0,
            1.6045605602240898,
            1.5997711326583137,
            1.6093499877898658,
        ),
        (
            9500.0,
            1.601031111111111,
            1.5963763087340435,
            1.6056859134881787,
        ),
    ];
    let points = &series[0].points;
    assert_eq!(points.len(), 10);
    for (p, (x, y, lo, hi)) in [&points[0], &points[1], &points[9]]
        .into_iter()
        .zip(reference)
    {
        let (plo, phi) = p.band.unwrap();
        assert!(
            close(p.x, x) && close(p.y, y) && close(plo, lo) && close(phi, hi),
            "{p:?}"
        );
    }
}

#[test]
fn every_experiment_has_its_notebook_plots() {
    let agents = [random_agent("a"), random_agent("b")];
    let figures = all_figures(&agents);
    let count = |kind: FigureKind| figures.iter().filter(|f| f.kind == kind).count();
    // 5 base regret experiments x 2 + 10 variants x 3 + swingup 3 + deep_sea* 4 x 2 +
    // discounting_chain 3 + memory 3 x 2 + umbrella 3 x 2.
    assert_eq!(figures.len(), 10 + 30 + 3 + 8 + 3 + 6 + 6);
    assert_eq!(count(FigureKind::Scaling), 2);
    assert_eq!(count(FigureKind::ScalingLog), 2);
    for figure in &figures {
        assert_eq!(figure.panels.len(), 2, "{}", figure.name);
        assert!(figure.note.is_none(), "{}: {:?}", figure.name, figure.note);
        assert!(
            figure.panels[0].series.iter().any(|s| !s.points.is_empty()),
            "{}",
            figure.name
        );
        assert!(figure.panels[0]
            .series
            .iter()
            .all(|s| s.points.iter().all(|p| p.y.is_finite())));
        assert_eq!(figure.size, (13.0, figure.size.1));
    }
    let scaling = figures
        .iter()
        .find(|f| f.name == "deep_sea_scaling")
        .unwrap();
    let unsolved = &scaling.panels[0].series[0];
    assert_eq!(unsolved.label, "unsolved");
    let sizes: Vec<f64> = unsolved.points.iter().map(|p| p.x).collect();
    assert_eq!(sizes, [10.0, 20.0, 30.0, 40.0, 50.0]);
    assert!(matches!(
        unsolved.mark,
        Mark::Points {
            shape: Shape::Circle,
            ..
        }
    ));
    assert_eq!(scaling.y.limits, Some((0.0, 10000.0)));
}

#[test]
fn average_regret_bars_match_the_reference() {
    let agents = [random_agent("random")];
    let figures = experiment_figures(&agents, bsuite_envs::experiment("bandit_noise").unwrap());
    let average = &figures[0];
    assert_eq!(average.kind, FigureKind::Average);
    assert_eq!(
        average.x.categories.as_deref().unwrap(),
        ["0.1", "0.3", "1.0", "3.0", "10.0"]
    );
    // plotting._preprocess_ave_regret: total_regret / 10000 at episode 10000 per noise_scale.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/random_results");
    let run =
        bsuite_logging::results::read_run(&dir.join("bsuite_id_-_bandit_noise-0.csv")).unwrap();
    let want = run.values("total_regret").unwrap().last().unwrap() / 10000.0;
    assert_eq!(average.panels[0].series[0].points[0].y, want);
}

#[test]
fn summary_charts_follow_the_reference_layout() {
    let agents = [random_agent("random"), random_agent("again")];
    let summaries: Vec<_> = agents.iter().map(summarize).collect();
    let radar = radar_chart(&summaries);
    let json = serde_json::to_value(&radar).unwrap();
    assert_eq!(json["tags"][1], "credit_assignment");
    assert_eq!(radar.labels[1], "Credit Assignment");
    assert_eq!(radar.agents[1].colour, "#74add1");
    assert!(radar.agents[0].radii.iter().all(|r| *r >= 0.05));
    assert_eq!(radar.agents[0].scores[2], Some(0.0)); // exploration
    assert_eq!(radar.agents[0].radii[2], 0.05);
    let bars = bar_chart(&summaries);
    assert_eq!(bars.experiments[..3], ["bandit", "mnist", "catch"]);
    assert_eq!(bars.bars.len(), 46);
    assert!(!bars.any_unfinished && bars.bars.iter().all(|b| b.alpha == 1.0));
    let deep_sea = bars
        .bars
        .iter()
        .find(|b| b.experiment == "deep_sea")
        .unwrap();
    assert_eq!(deep_sea.type_colour, "#f46d43");
    assert_eq!(bars.size, (14.0, 7.0));
}

/// ggplot assigns group colours over every agent's data together: a group keeps its colour
/// in every panel even when another agent lacks some groups.
#[test]
fn group_colours_agree_across_agents() {
    let fixtures =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/random_results");
    let partial = std::env::temp_dir().join(format!("bsuite-colours-{}", std::process::id()));
    std::fs::create_dir_all(&partial).unwrap();
    for index in [8, 12, 16] {
        let name = format!("bsuite_id_-_catch_noise-{index}.csv");
        std::fs::copy(fixtures.join(&name), partial.join(&name)).unwrap();
    }
    let agents = [
        random_agent("all"),
        AgentResults::load("some", &partial).unwrap(),
    ];
    std::fs::remove_dir_all(&partial).unwrap();
    let catch_noise = bsuite_envs::experiment("catch_noise").unwrap();
    let figures = experiment_figures(&agents, catch_noise);
    let learning = figures
        .iter()
        .find(|f| f.kind == FigureKind::Learning)
        .expect("a learning figure");
    let colour_of = |panel: usize, label: &str| {
        learning.panels[panel]
            .series
            .iter()
            .find(|s| s.label == label)
            .map(|s| s.colour)
    };
    assert_eq!(learning.panels[1].series.len(), 3);
    for label in ["1.0", "3.0", "10.0"] {
        assert_eq!(colour_of(0, label), colour_of(1, label), "group {label}");
        assert!(colour_of(1, label).is_some(), "group {label}");
    }
}
