//! `cargo xtask score DIR... [--json]`: bsuite scores of one or more results directories.

use std::fmt::Write as _;
use std::io::Write as _;

use std::collections::BTreeSet;

use anyhow::Result;
use bsuite_analysis::{summarize, AgentResults, Score, Summary};
use bsuite_envs::BsuiteId;
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
    /// Score only these bsuite_ids, experiments or tags (default: SWEEP, all 468); the
    /// selected ids without results are named on standard error.
    #[arg(long, num_args = 1.., value_name = "ID|EXPERIMENT|TAG|SWEEP|TESTING")]
    pub sweep: Vec<String>,
}

/// Runs the command.
pub fn run(args: &ScoreArgs) -> Result<()> {
    let mut agents = load_agents(&args.dirs, args.lenient)?;
    let selected = bsuite_baselines::sweep::select_ids(&args.sweep)?;
    for agent in &mut agents {
        for skipped in &agent.skipped {
            bsuite_baselines::errln!("warning: {skipped}");
        }
        let missing = restrict(agent, &selected);
        if !missing.is_empty() {
            bsuite_baselines::errln!(
                "warning: {}",
                missing_ids(&agent.name, &missing, selected.len())
            );
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

/// Keeps `agent`'s runs of the `selected` ids and returns the selected ids it has no
/// results for: a shard scores its own ids, not its directory's, and ids never run are
/// named rather than left out of the scores silently.
fn restrict(agent: &mut AgentResults, selected: &[BsuiteId]) -> Vec<BsuiteId> {
    let wanted: BTreeSet<BsuiteId> = selected.iter().copied().collect();
    agent.runs.retain(|run| wanted.contains(&run.id()));
    let present: BTreeSet<BsuiteId> = agent.runs.iter().map(|run| run.id()).collect();
    selected
        .iter()
        .filter(|id| !present.contains(id))
        .copied()
        .collect()
}

/// The warning for `missing` ids of `selected` selected ones.
fn missing_ids(agent: &str, missing: &[BsuiteId], selected: usize) -> String {
    let shown: Vec<String> = missing.iter().take(5).map(ToString::to_string).collect();
    let more = match missing.len() > shown.len() {
        true => ", ...",
        false => "",
    };
    format!(
        "{agent}: {} of the {selected} selected bsuite_ids have no results ({}{more}); the \
         scores are of the others only",
        missing.len(),
        shown.join(", ")
    )
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

    /// Finding 4 of issue 30: each shard printed the scores of the whole shared directory,
    /// the other shards' half-written files included. A shard scores its own ids, and
    /// selected ids without results are named.
    #[test]
    fn a_shard_scores_its_own_ids_and_names_the_missing() {
        let dir = fixtures().join("random_results");
        let mut agents = load_agents(&[dir.to_string_lossy().into_owned()], false).unwrap();
        let all: Vec<BsuiteId> = bsuite_envs::sweep().collect();
        let shard = bsuite_baselines::runner::Shard { index: 1, count: 4 }.select(&all);
        let before = agents[0].runs.len();
        let missing = restrict(&mut agents[0], &shard);
        let kept: Vec<BsuiteId> = agents[0].runs.iter().map(|r| r.id()).collect();
        assert!(kept.len() < before && !kept.is_empty());
        assert!(kept.iter().all(|id| shard.contains(id)), "{kept:?}");
        assert_eq!(kept.len() + missing.len(), shard.len());
        assert!(missing.iter().all(|id| !kept.contains(id)));
        let text = missing_ids("random", &missing, shard.len());
        let expected = format!(
            "random: {} of the 117 selected bsuite_ids have no results (",
            missing.len()
        );
        assert!(text.starts_with(&expected), "{text}");
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
