//! Scores equal bsuite 0.3.6's own (`ref_score.py`) on pinned reference runs.

use std::path::{Path, PathBuf};

use bsuite_analysis::{summarize, AgentResults, Score, Summary};
use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

/// Checks every number of a `ref_score.py` JSON against `summary`: equal to `tol`, null
/// exactly where our score is undefined, and no key missing or extra.
fn assert_matches_reference(summary: &Summary, reference: &Value, tol: f64) {
    let check = |what: &str, ours: Score, theirs: &Value| match (ours, theirs.as_f64()) {
        (Score::Value(a), Some(b)) => {
            assert!((a - b).abs() <= tol, "{what}: ours {a:?}, reference {b:?}")
        }
        (Score::Undefined(_), None) => assert!(theirs.is_null(), "{what}: {theirs}"),
        _ => panic!("{what}: ours {ours:?}, reference {theirs}"),
    };
    let experiments = reference["experiments"].as_object().unwrap();
    assert_eq!(summary.experiments.len(), experiments.len());
    for (name, theirs) in experiments {
        let ours = summary
            .experiment(name)
            .unwrap_or_else(|| panic!("no score for {name}"));
        check(name, ours.score, theirs);
        assert_eq!(
            ours.progress.finished(),
            reference["finished"][name].as_bool().unwrap(),
            "finished {name}"
        );
    }
    let tags = reference["tags"].as_object().unwrap();
    assert_eq!(summary.tags.len(), tags.len());
    for t in &summary.tags {
        check(t.tag.as_str(), t.score, &tags[t.tag.as_str()]);
    }
    let ids = reference["ids"].as_object().unwrap();
    assert_eq!(summary.ids.len(), ids.len());
    for s in &summary.ids {
        check(&s.id.to_string(), s.score, &ids[&s.id.to_string()]);
    }
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn random_agent_scores_equal_the_reference() {
    let agent = AgentResults::load("random", &fixtures().join("random_results")).unwrap();
    let summary = summarize(&agent);
    assert_matches_reference(
        &summary,
        &read_json(&fixtures().join("random_scores.json")),
        1e-9,
    );
}

/// With exactly parsed CSV floats and files read in sweep order
/// (`tools/reference/ref_score_ordered.py --round-trip`), the reference's numbers are ours to
/// the last bit: the means use numpy's pairwise summation over the rows in the same order.
#[test]
fn random_agent_scores_are_bit_exact_on_exactly_parsed_data() {
    let agent = AgentResults::load("random", &fixtures().join("random_results")).unwrap();
    let summary = summarize(&agent);
    let reference = read_json(&fixtures().join("random_scores_exact.json"));
    assert_matches_reference(&summary, &reference, 0.0);
}

/// Decompresses `tests/fixtures/scripted_results/<name>/*.csv.gz` into a fresh directory.
fn unpack_scripted(name: &str) -> PathBuf {
    use std::io::Read;
    let src = fixtures().join("scripted_results").join(name);
    let dir = std::env::temp_dir().join(format!("bsuite-scripted-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let Some(file) = path
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .strip_suffix(".gz")
        else {
            continue;
        };
        let mut text = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap())
            .read_to_string(&mut text)
            .unwrap();
        std::fs::write(dir.join(file), text).unwrap();
    }
    dir
}

/// Scripted agents that solve tasks part of the time or fully, and runs stopped early
/// (tools/reference/scripted_agents.py), scored by ref_score.py: same numbers, same NaNs.
#[test]
fn scripted_agent_scores_equal_the_reference() {
    for name in ["finished", "unfinished"] {
        let dir = unpack_scripted(name);
        let summary = summarize(&AgentResults::load(name, &dir).unwrap());
        let scores = fixtures().join("scripted_results").join(name);
        assert_matches_reference(&summary, &read_json(&scores.join("scores.json")), 1e-9);
        assert_matches_reference(&summary, &read_json(&scores.join("scores_exact.json")), 0.0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
