//! Malformed and partial input never panics: randomly mutated reference CSVs go through the
//! reader, the scores and the plot data (a stable-Rust complement of the cargo-fuzz target in
//! crates/bsuite-logging/fuzz), and truncated runs give explicit unfinished results.

use std::path::Path;

use bsuite_analysis::figures::{bar_chart, experiment_figures, radar_chart};
use bsuite_analysis::{summarize, AgentResults, Score, Undefined};
use bsuite_logging::results::{parse_run, ResultSet, RunTable};

fn fixture_runs() -> Vec<RunTable> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/random_results");
    bsuite_logging::results::load_dir(&dir).unwrap().runs
}

/// xorshift64*: a tiny deterministic generator for the mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const ALPHABET: &[u8] = b"0123456789.,-+e\n\r\"xnaif ";

fn mutate(rng: &mut Rng, bytes: &mut Vec<u8>) {
    for _ in 0..1 + rng.below(4) {
        if bytes.is_empty() {
            bytes.push(b'1');
        }
        let at = rng.below(bytes.len());
        match rng.below(5) {
            0 => bytes[at] = ALPHABET[rng.below(ALPHABET.len())],
            1 => {
                bytes.remove(at);
            }
            2 => bytes.insert(at, ALPHABET[rng.below(ALPHABET.len())]),
            3 => bytes.truncate(at),
            _ => {
                // Duplicate a slice: repeated rows and columns.
                let end = (at + rng.below(64)).min(bytes.len());
                let piece = bytes[at..end].to_vec();
                let to = rng.below(bytes.len());
                bytes.splice(to..to, piece);
            }
        }
    }
}

#[test]
fn mutated_files_never_panic_and_scores_stay_in_range() {
    let runs = fixture_runs();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut accepted = 0;
    for round in 0..2000 {
        let original = &runs[round % runs.len()];
        let mut bytes = std::fs::read(original.path()).unwrap();
        mutate(&mut rng, &mut bytes);
        let Ok(run) = parse_run(original.id(), original.path(), &bytes) else {
            continue;
        };
        accepted += 1;
        let score = bsuite_analysis::experiments::score(run.experiment(), &[&run]);
        if let Score::Value(v) = score {
            let mnist = run.experiment().name.starts_with("mnist");
            assert!(
                v.is_finite() && (mnist || (0.0..=1.0).contains(&v)),
                "{}: {v}",
                run.id()
            );
        }
        if round % 10 == 0 {
            let experiment = run.experiment();
            let agent = AgentResults::new(
                "mutant",
                ResultSet {
                    dir: "mutant".into(),
                    runs: vec![run],
                    skipped: Vec::new(),
                },
            );
            let summary = summarize(&agent);
            experiment_figures(std::slice::from_ref(&agent), experiment);
            radar_chart(std::slice::from_ref(&summary));
            bar_chart(std::slice::from_ref(&summary));
        }
    }
    assert!(
        accepted > 150,
        "only {accepted} mutants parsed: the mutations are too harsh"
    );
}

/// Keeps only the rows up to `episode` of a fixture run, as a run stopped early would log.
fn truncated(run: &RunTable, episode: f64) -> RunTable {
    let text = std::fs::read_to_string(run.path()).unwrap();
    let header = text.lines().next().unwrap();
    let k = header.split(',').position(|c| c == "episode").unwrap();
    let kept: Vec<&str> = text
        .lines()
        .skip(1)
        .filter(|l| l.split(',').nth(k).unwrap().parse::<f64>().unwrap() <= episode)
        .collect();
    let csv = format!("{header}\n{}\n", kept.join("\n"));
    parse_run(run.id(), run.path(), csv.as_bytes()).unwrap()
}

#[test]
fn unfinished_runs_are_explicit() {
    let runs = fixture_runs();
    let pick = |id: &str| runs.iter().find(|r| r.id().to_string() == id).unwrap();
    let agent = AgentResults::new(
        "partial",
        ResultSet {
            dir: "partial".into(),
            runs: vec![
                truncated(pick("mnist/0"), 5000.0),
                truncated(pick("deep_sea_stochastic/0"), 50.0),
                truncated(pick("catch/0"), 300.0),
                pick("catch/1").clone(),
            ],
            skipped: Vec::new(),
        },
    );
    let summary = summarize(&agent);
    let mnist = summary.experiment("mnist").unwrap();
    assert_eq!(
        mnist.score,
        Score::Undefined(Undefined::NoEpisodeInAccuracyWindow)
    );
    assert!(!mnist.progress.finished());
    assert_eq!(mnist.progress.min_episode, 5000);
    let stochastic = summary.experiment("deep_sea_stochastic").unwrap();
    assert_eq!(stochastic.score, Score::Undefined(Undefined::NoRowsToScore));
    // catch: read at episode 10000, where only catch/1 has a row; unfinished overall.
    let catch = summary.experiment("catch").unwrap();
    assert!(!catch.progress.finished() && catch.score.value().is_some());
    let alone = bsuite_analysis::experiments::score(
        bsuite_envs::experiment("catch").unwrap(),
        &[&agent.runs[3]],
    );
    assert_eq!(catch.score, alone);
    assert!(summary.experiment("bandit").is_none());
    let generalization = summary.tag(bsuite_envs::Tag::Generalization).unwrap();
    assert_eq!(
        generalization.score,
        Score::Undefined(Undefined::NoScoredExperiment)
    );
    assert_eq!(generalization.experiments, 1);
    let bars = bar_chart(std::slice::from_ref(&summary));
    assert!(bars.any_unfinished && bars.bars.iter().all(|b| b.alpha == 0.3));
    assert!(bars.bars.iter().any(|b| b.score.is_none()));
    let figures = experiment_figures(&[agent], bsuite_envs::experiment("mnist").unwrap());
    assert!(!figures.is_empty());
}
