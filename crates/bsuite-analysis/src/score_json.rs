//! The scores of results directories as JSON: `ref_score.py`'s object for one seed (what
//! `cargo xtask score --json` prints, and Python's `bsuite_rs.score` returns), its
//! multi-seed form with the intervals, and the export for rliable.

use serde_json::{json, Map, Value};

use crate::seeds::SeededSummary;
use crate::stats::{Bootstrap, Estimate};
use crate::{Score, Summary};

/// A score as JSON: null where bsuite gives NaN.
pub fn number(score: Score) -> Value {
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

/// The export for rliable (`score --export rliable FILE.json`), version 1:
///
/// ```json
/// {
///   "format": "bsuite-rs rliable export 1",
///   "experiments": ["bandit", "catch", ...],
///   "tags": {"basic": ["bandit", "catch", ...], ...},
///   "agents": {"dqn": {"seeds": [42, 43], "scores": [[0.98, 0.71, ...], [0.97, 0.65, ...]]}}
/// }
/// ```
///
/// `experiments` are the columns: every experiment some agent has data for, in bsuite's
/// order; `tags` lists each tag's columns. Each agent's `scores` has one row per seed (in
/// `seeds`' order, `null` for a directory without a manifest) and one column per
/// experiment: the bsuite score, or `null` where that seed has none (no data, or bsuite's
/// NaN). In Python, `np.array(agent["scores"], dtype=float)` is rliable's
/// `(num_runs x num_tasks)` array, with NaN for the nulls; select a tag's columns for its
/// aggregates.
pub fn rliable_export(summaries: &[SeededSummary]) -> Value {
    let columns: Vec<&'static bsuite_envs::Experiment> = bsuite_envs::experiments()
        .iter()
        .copied()
        .filter(|e| {
            summaries
                .iter()
                .any(|s| s.experiments().iter().any(|x| x.name == e.name))
        })
        .collect();
    let tags: Map<String, Value> = crate::plot::RADAR_TAGS
        .iter()
        .map(|tag| {
            let names: Vec<&str> = columns
                .iter()
                .filter(|e| e.tags.contains(tag))
                .map(|e| e.name)
                .collect();
            (tag.as_str().to_string(), json!(names))
        })
        .collect();
    let agents: Map<String, Value> = summaries
        .iter()
        .map(|s| {
            let rows: Vec<Vec<Value>> = s
                .seeds
                .iter()
                .map(|(_, seed)| {
                    columns
                        .iter()
                        .map(|e| {
                            seed.experiment(e.name)
                                .map_or(Value::Null, |x| number(x.score))
                        })
                        .collect()
                })
                .collect();
            let seeds: Vec<Option<u32>> = s.seeds.iter().map(|(seed, _)| *seed).collect();
            (s.agent.clone(), json!({"seeds": seeds, "scores": rows}))
        })
        .collect();
    json!({
        "format": "bsuite-rs rliable export 1",
        "experiments": columns.iter().map(|e| e.name).collect::<Vec<_>>(),
        "tags": tags,
        "agents": agents,
    })
}

/// An estimate as `{value, lo, hi}`, null for what is not a number.
pub fn estimate_json(e: Estimate) -> Value {
    let finite = |x: f64| if x.is_finite() { json!(x) } else { Value::Null };
    json!({"value": finite(e.value), "lo": finite(e.lo), "hi": finite(e.hi)})
}

/// The JSON of an agent over several seeds: `experiments`, `finished`, `tags` and `ids` as
/// for one seed but holding means over seeds (null where no seed has a defined score),
/// then `seeds`, `per_seed` (each seed's own object, keyed by seed) and `intervals`: per
/// experiment the mean's interval and seed count, per tag rliable's four aggregates with
/// theirs, and how the bootstrap was drawn.
pub fn seeded_json(summary: &SeededSummary, settings: &Bootstrap) -> Value {
    let mean = |values: &[f64]| {
        if values.is_empty() {
            Value::Null
        } else {
            json!(values.iter().sum::<f64>() / values.len() as f64)
        }
    };
    let experiment_stats = summary.experiment_stats(settings);
    let tag_stats = summary.tag_stats(settings);
    let mut experiments = Map::new();
    let mut finished = Map::new();
    let mut experiment_intervals = Map::new();
    for e in &experiment_stats {
        experiments.insert(e.experiment.name.into(), mean(&e.values));
        finished.insert(e.experiment.name.into(), json!(e.finished));
        let mut interval = estimate_json(e.mean);
        interval["seeds"] = json!(e.values.len());
        experiment_intervals.insert(e.experiment.name.into(), interval);
    }
    let mut tags = Map::new();
    let mut tag_intervals = Map::new();
    for t in &tag_stats {
        let m = t.mean().value;
        tags.insert(
            t.tag.as_str().into(),
            if m.is_nan() { Value::Null } else { json!(m) },
        );
        let mut entry = Map::new();
        entry.insert("experiments".into(), json!(t.experiments));
        for (aggregate, estimate) in &t.aggregates {
            entry.insert(aggregate.as_str().into(), estimate_json(*estimate));
        }
        tag_intervals.insert(t.tag.as_str().into(), Value::Object(entry));
    }
    // Ids in sweep order, each the mean of the seeds with a defined score.
    let mut ids: Vec<(bsuite_envs::BsuiteId, Vec<f64>)> = Vec::new();
    for (_, seed) in &summary.seeds {
        for id in &seed.ids {
            let at = match ids.iter().position(|(i, _)| *i == id.id) {
                Some(at) => at,
                None => {
                    ids.push((id.id, Vec::new()));
                    ids.len() - 1
                }
            };
            if let Score::Value(v) = id.score {
                ids[at].1.push(v);
            }
        }
    }
    ids.sort_by_key(|(id, _)| bsuite_envs::sweep().position(|s| s == *id));
    let ids: Map<String, Value> = ids
        .iter()
        .map(|(id, v)| (id.to_string(), mean(v)))
        .collect();
    let seed_name = |seed: Option<u32>| seed.map_or("unknown".to_string(), |s| s.to_string());
    let per_seed: Map<String, Value> = summary
        .seeds
        .iter()
        .map(|(seed, s)| (seed_name(*seed), reference_json(s)))
        .collect();
    json!({
        "experiments": experiments,
        "finished": finished,
        "tags": tags,
        "ids": ids,
        "seeds": summary.seeds.iter().map(|(s, _)| *s).collect::<Vec<_>>(),
        "per_seed": per_seed,
        "intervals": {
            "method": "stratified percentile bootstrap over seeds",
            "confidence": settings.confidence,
            "reps": settings.reps,
            "bootstrap_seed": settings.seed,
            "experiments": experiment_intervals,
            "tags": tag_intervals,
        },
    })
}
