//! `cargo xtask score DIR... [--json]`: bsuite scores of one or more results directories.

use std::fmt::Write as _;
use std::io::Write as _;

use anyhow::Result;
use bsuite_analysis::{summarize, AgentResults, Score, Summary};
use clap::Args;
use serde_json::{json, Map, Value};

use crate::results_dirs::load_agents;

/// Arguments of `cargo xtask score`.
#[derive(Args)]
pub struct ScoreArgs {
    /// Results directories, one per agent: `DIR` (named after its last component) or
    /// `NAME=DIR`. Several directories are scored side by side.
    #[arg(required = true, value_name = "[NAME=]DIR")]
    pub dirs: Vec<std::ffi::OsString>,
    /// Print ref_score.py's JSON (`experiments`, `finished`, `tags`, `ids`; null where
    /// bsuite gives NaN). With several directories: an object keyed by agent name.
    #[arg(long)]
    pub json: bool,
    /// Also list the score of every bsuite_id.
    #[arg(long)]
    pub ids: bool,
    /// Skip malformed result files (reported on stderr) instead of failing.
    #[arg(long)]
    pub lenient: bool,
}

/// Runs the command.
pub fn run(args: &ScoreArgs) -> Result<()> {
    let agents = load_agents(&args.dirs, args.lenient)?;
    for agent in &agents {
        for skipped in &agent.skipped {
            bsuite_baselines::errln!("warning: {skipped}");
        }
    }
    let summaries: Vec<Summary> = agents.iter().map(summarize).collect();
    let out = if args.json {
        let value = match summaries.as_slice() {
            [one] => reference_json(one),
            many => Value::Object(
                many.iter()
                    .map(|s| (s.agent.clone(), reference_json(s)))
                    .collect(),
            ),
        };
        serde_json::to_string_pretty(&value)? + "\n"
    } else {
        table(&agents, &summaries, args.ids)
    };
    let _ = write!(bsuite_baselines::console::Stdout, "{out}");
    Ok(())
}

fn number(score: Score) -> Value {
    match score {
        Score::Value(v) => json!(v),
        Score::Undefined(_) => Value::Null,
    }
}

/// The JSON object `ref_score.py` prints for one results directory.
pub fn reference_json(summary: &Summary) -> Value {
    let mut experiments = Map::new();
    let mut finished = Map::new();
    for e in &summary.experiments {
        experiments.insert(e.experiment.name.into(), number(e.score));
        finished.insert(e.experiment.name.into(), json!(e.progress.finished()));
    }
    let tags: Map<String, Value> = summary
        .tags
        .iter()
        .map(|t| (t.tag.as_str().into(), number(t.score)))
        .collect();
    let ids: Map<String, Value> = summary
        .ids
        .iter()
        .map(|s| (s.id.to_string(), number(s.score)))
        .collect();
    json!({"experiments": experiments, "finished": finished, "tags": tags, "ids": ids})
}

fn cell(score: Score, finished: bool, width: usize) -> String {
    let mark = if finished { ' ' } else { '*' };
    let text = match score {
        Score::Value(v) => format!("{v:.3}"),
        Score::Undefined(_) => "n/a".to_string(),
    };
    format!("{text:>width$}{mark}")
}

/// The readable report: experiments and tags with one score column per agent, then notes.
fn table(agents: &[AgentResults], summaries: &[Summary], with_ids: bool) -> String {
    let mut out = String::new();
    let w = summaries.iter().map(|s| s.agent.len()).fold(6, usize::max);
    for (agent, summary) in agents.iter().zip(summaries) {
        let dirs_ids = agent.runs.len();
        let unfinished = summary
            .experiments
            .iter()
            .filter(|e| !e.progress.finished())
            .count();
        let written_by = agent.manifest.as_ref().map_or(String::new(), |m| {
            format!(", written by {m}: {}", m.description)
        });
        let _ = writeln!(
            out,
            "{}: {dirs_ids} bsuite_ids in {} experiments ({unfinished} unfinished){written_by}",
            agent.name,
            summary.experiments.len()
        );
    }
    let _ = write!(out, "\n{:<22}", "experiment");
    for s in summaries {
        let _ = write!(out, " {:>w$} ", s.agent);
    }
    let _ = writeln!(out, "  ids / episodes");
    for experiment in bsuite_envs::experiments() {
        let entries: Vec<_> = summaries
            .iter()
            .map(|s| s.experiment(experiment.name))
            .collect();
        if entries.iter().all(Option::is_none) {
            continue;
        }
        let _ = write!(out, "{:<22}", experiment.name);
        for entry in &entries {
            match entry {
                Some(e) => {
                    let _ = write!(out, " {}", cell(e.score, e.progress.finished(), w));
                }
                None => {
                    let _ = write!(out, " {:>w$} ", "-");
                }
            }
        }
        let progress: Vec<String> = entries
            .iter()
            .map(|e| match e {
                Some(e) => format!(
                    "{}/{} @ {}/{}",
                    e.progress.ids,
                    e.progress.sweep_ids,
                    e.progress.min_episode,
                    e.progress.num_episodes
                ),
                None => "no data".into(),
            })
            .collect();
        let _ = writeln!(out, "  {}", progress.join(" | "));
    }
    let _ = write!(out, "\n{:<22}", "tag");
    for s in summaries {
        let _ = write!(out, " {:>w$} ", s.agent);
    }
    let _ = writeln!(out);
    for (k, tag) in summaries[0].tags.iter().enumerate() {
        let _ = write!(out, "{:<22}", tag.tag.as_str());
        for s in summaries {
            let _ = write!(out, " {}", cell(s.tags[k].score, true, w));
        }
        let _ = writeln!(out);
    }
    if with_ids {
        for s in summaries {
            let _ = writeln!(out, "\n{}: per bsuite_id", s.agent);
            for id in &s.ids {
                let _ = writeln!(
                    out,
                    "{:<22} {}  episode {}",
                    id.id.to_string(),
                    cell(id.score, id.finished(), 6),
                    id.last_episode
                );
            }
        }
    }
    let mut notes = Vec::new();
    for s in summaries {
        for e in &s.experiments {
            if let Score::Undefined(why) = e.score {
                notes.push(format!("{} {}: n/a = {why}", s.agent, e.experiment.name));
            }
        }
    }
    let _ = writeln!(
        out,
        "\n* = unfinished: some bsuite_id has not reached the experiment's episodes; its score\n    \
         uses the furthest episode logged. 'ids / episodes' = ids with data / ids in the sweep\n    \
         @ fewest episodes logged by an id / episodes per run."
    );
    for note in notes {
        let _ = writeln!(out, "{note}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn fixtures() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
    }

    /// Compares two ref_score.py JSON objects: same keys in the same order, numbers equal
    /// to `tol`, nulls and booleans equal.
    fn assert_json_close(ours: &Value, theirs: &Value, tol: f64, path: &str) {
        match (ours, theirs) {
            (Value::Object(a), Value::Object(b)) => {
                let ka: Vec<&String> = a.keys().collect();
                let kb: Vec<&String> = b.keys().collect();
                assert_eq!(ka, kb, "keys of {path}");
                for (k, v) in a {
                    assert_json_close(v, &b[k], tol, &format!("{path}.{k}"));
                }
            }
            (Value::Number(a), Value::Number(b)) => {
                let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
                assert!((a - b).abs() <= tol, "{path}: ours {a:?}, reference {b:?}");
            }
            _ => assert_eq!(ours, theirs, "{path}"),
        }
    }

    #[test]
    fn json_equals_ref_score_on_the_random_run() {
        let dir = fixtures().join("random_results");
        let agents = load_agents(&[dir.to_string_lossy().into_owned()], false).unwrap();
        let ours = reference_json(&summarize(&agents[0]));
        let text = std::fs::read_to_string(fixtures().join("random_scores.json")).unwrap();
        let theirs: Value = serde_json::from_str(&text).unwrap();
        assert_json_close(&ours, &theirs, 1e-9, "");
    }

    #[test]
    fn table_marks_unfinished_and_names_agents() {
        let dir = fixtures().join("random_results");
        let arg = format!("rand={}", dir.display());
        let agents = load_agents(std::slice::from_ref(&arg), false).unwrap();
        let summaries: Vec<Summary> = agents.iter().map(summarize).collect();
        let text = table(&agents, &summaries, true);
        assert!(text.starts_with("rand: 115 bsuite_ids in 23 experiments (0 unfinished)"));
        assert!(
            text.contains("discounting_chain       0.200   5/20 @ 1000/1000"),
            "{text}"
        );
        assert!(text.contains("deep_sea/20"));
        let err = load_agents(&[arg.clone(), arg], false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("both named 'rand'"), "{err}");
    }
}
