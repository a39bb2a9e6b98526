//! `bsuite score DIR... [--json]`: bsuite scores of one or more results directories.
//!
//! A directory of `seed-<s>/` results directories is one agent over several seeds
//! (`bsuite_analysis::seeds`): its scores are the means over seeds with 95% stratified
//! bootstrap intervals, and per tag rliable's four aggregates with theirs. A plain results
//! directory prints exactly what it always did.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io::Write as _;

use anyhow::{bail, Result};
use bsuite_analysis::seeds::{SeededAgent, SeededSummary};
use bsuite_analysis::stats::{Bootstrap, Estimate};
use bsuite_analysis::{AgentResults, Score, Summary};
use bsuite_envs::BsuiteId;
use clap::Args;
use serde_json::Value;

use crate::results_dirs::load_seeded_agents;
use bsuite_analysis::score_json::{reference_json, rliable_export, seeded_json};

/// Bootstrap replicates of the intervals unless `--reps` says otherwise.
pub const DEFAULT_REPS: usize = 10_000;

/// Arguments of `bsuite score`.
#[derive(Args, Debug)]
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
    /// Bootstrap replicates behind the intervals over seeds (1000 to 1000000).
    #[arg(long, default_value_t = DEFAULT_REPS, value_name = "N", value_parser = bsuite_analysis::stats::parse_reps)]
    pub reps: usize,
    /// Seed of the bootstrap: the same seed gives the same intervals.
    #[arg(long, default_value_t = 0, value_name = "S")]
    pub bootstrap_seed: u32,
    /// Also write every agent's scores for another tool: `--export rliable FILE.json`
    /// writes, per agent, its (seeds x experiments) array of scores as JSON for rliable
    /// and numpy (format: `bsuite_analysis::score_json::rliable_export`). Repeatable. An
    /// existing file is replaced only with --overwrite, and only if it is an earlier export.
    #[arg(long, num_args = 2, value_names = ["FORMAT", "FILE"])]
    pub export: Vec<std::ffi::OsString>,
    /// Replace export files written by an earlier `score --export`.
    #[arg(long)]
    pub overwrite: bool,
}

impl ScoreArgs {
    /// The bootstrap behind the intervals.
    pub fn bootstrap(&self) -> Bootstrap {
        Bootstrap {
            reps: self.reps,
            seed: self.bootstrap_seed,
            confidence: 0.95,
        }
    }
}

/// The first bytes of every rliable export's `format`.
const EXPORT_FORMAT: &str = "bsuite-rs rliable export";

/// The export files `--export FORMAT FILE ...` names, each checked before any is written:
/// a known format, a `.json` name, each file once, and nothing of anyone else's replaced.
fn exports(args: &ScoreArgs) -> Result<Vec<std::path::PathBuf>> {
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for pair in args.export.chunks(2) {
        let [format, file] = pair else {
            bail!("--export takes a format and a file: --export rliable FILE.json");
        };
        if format != "rliable" {
            bail!(
                "--export {}: the one export format is rliable (--export rliable FILE.json)",
                format.to_string_lossy()
            );
        }
        let file = std::path::PathBuf::from(file);
        if file.extension().is_none_or(|e| e != "json") {
            bail!(
                "--export rliable {}: the export is JSON, so name the file *.json",
                file.display()
            );
        }
        let same = |other: &std::path::PathBuf| {
            *other == file
                || (other.canonicalize().ok()).is_some_and(|o| file.canonicalize().ok() == Some(o))
        };
        if files.iter().any(same) {
            bail!("--export names {} twice", file.display());
        }
        export_file(&file).check(args.overwrite)?;
        files.push(file);
    }
    Ok(files)
}

/// The rliable export at `path`, as a file of `score`'s own.
fn export_file(path: &std::path::Path) -> crate::owned_file::Owned<'_> {
    crate::owned_file::Owned {
        path,
        what: "the rliable export",
        is_ours: |bytes| crate::owned_file::json_format_starts_with(bytes, EXPORT_FORMAT),
    }
}

/// Runs `bsuite score`.
pub fn run(args: &ScoreArgs) -> Result<()> {
    let export_files = exports(args)?;
    let mut agents = load_seeded_agents(&args.dirs, args.lenient)?;
    let selected = bsuite_baselines::sweep::select_ids(&args.sweep)?;
    for agent in &mut agents {
        for warning in agent.warnings() {
            bsuite_baselines::errln!("warning: {warning}");
        }
        let several = agent.seeds.len() > 1;
        for seed in &mut agent.seeds {
            let missing = restrict(&mut seed.results, &selected);
            if !missing.is_empty() {
                let name = match (several, seed.seed) {
                    (true, Some(s)) => format!("{} seed {s}", agent.name),
                    _ => agent.name.clone(),
                };
                bsuite_baselines::errln!(
                    "warning: {}",
                    missing_ids(&name, &missing, selected.len())
                );
            }
        }
    }
    let summaries: Vec<SeededSummary> = agents.iter().map(SeededAgent::summarize).collect();
    let settings = args.bootstrap();
    if !export_files.is_empty() {
        let text = serde_json::to_string_pretty(&rliable_export(&summaries))? + "\n";
        for file in &export_files {
            // Checked again as it is written: the file may have appeared meanwhile.
            let owned = export_file(file);
            owned.check(args.overwrite)?;
            owned.write(text.as_bytes())?;
            bsuite_baselines::errln!("score: wrote the rliable export {}", file.display());
        }
    }
    let out = if args.json {
        // A single seed prints ref_score.py's object, as it always did.
        let one = |s: &SeededSummary| match s.seeds.as_slice() {
            [(_, only)] => reference_json(only),
            _ => seeded_json(s, &settings),
        };
        let value = match summaries.as_slice() {
            [single] => one(single),
            many => Value::Object(many.iter().map(|s| (s.agent.clone(), one(s))).collect()),
        };
        serde_json::to_string_pretty(&value)? + "\n"
    } else if summaries.iter().all(|s| s.num_seeds() == 1) {
        let results: Vec<&AgentResults> = agents.iter().map(|a| &a.seeds[0].results).collect();
        let single: Vec<Summary> = summaries.iter().map(|s| s.seeds[0].1.clone()).collect();
        table(&results, &single, args.ids)
    } else {
        seeds_table(&agents, &summaries, &settings, args.ids)
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

fn cell(score: Score, finished: bool, width: usize) -> String {
    let mark = if finished { ' ' } else { '*' };
    let text = match score {
        Score::Value(v) => format!("{v:.3}"),
        Score::Undefined(_) => "n/a".to_string(),
    };
    format!("{text:>width$}{mark}")
}

/// The readable report: experiments and tags with one score column per agent, then notes.
fn table(agents: &[&AgentResults], summaries: &[Summary], with_ids: bool) -> String {
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

/// `0.512 [0.480, 0.545]`, or `n/a`, right-aligned in `width`, then the unfinished mark.
fn interval_cell(e: Estimate, finished: bool, width: usize) -> String {
    let mark = if finished { ' ' } else { '*' };
    let text = if e.value.is_nan() {
        "n/a".to_string()
    } else {
        e.to_string()
    };
    format!("{text:>width$}{mark}")
}

/// The readable report of agents over seeds: per experiment and tag, the mean over seeds
/// with its interval and the number of seeds; then, per agent, rliable's aggregates per tag.
fn seeds_table(
    agents: &[SeededAgent],
    summaries: &[SeededSummary],
    settings: &Bootstrap,
    with_ids: bool,
) -> String {
    let mut out = String::new();
    let w = summaries.iter().map(|s| s.agent.len()).fold(20, usize::max);
    for (agent, summary) in agents.iter().zip(summaries) {
        let seeds: Vec<String> = agent
            .seed_list()
            .iter()
            .map(|s| s.map_or("?".into(), |s| s.to_string()))
            .collect();
        let runs: usize = agent.seeds.iter().map(|s| s.results.runs.len()).sum();
        let written_by = agent.seeds[0]
            .results
            .manifest
            .as_ref()
            .map_or(String::new(), |m| {
                format!(", agent {}: {}", m.agent, m.description)
            });
        let count = summary.num_seeds();
        let plural = if count == 1 { "" } else { "s" };
        let _ = writeln!(
            out,
            "{}: {count} seed{plural} ({}), {runs} runs in {} experiments{written_by}",
            agent.name,
            seeds.join(", "),
            summary.experiments().len()
        );
    }
    let _ = writeln!(
        out,
        "mean over seeds [{:.0}% stratified bootstrap interval: {} replicates, seed {}]",
        settings.confidence * 100.0,
        settings.reps,
        settings.seed
    );
    let experiment_stats: Vec<_> = summaries
        .iter()
        .map(|s| s.experiment_stats(settings))
        .collect();
    let tag_stats: Vec<_> = summaries.iter().map(|s| s.tag_stats(settings)).collect();
    let _ = write!(out, "\n{:<22}", "experiment");
    for s in summaries {
        let _ = write!(out, " {:>w$} ", s.agent);
    }
    let _ = writeln!(out, "  seeds");
    for experiment in bsuite_envs::experiments() {
        let entries: Vec<_> = experiment_stats
            .iter()
            .map(|stats| stats.iter().find(|e| e.experiment.name == experiment.name))
            .collect();
        if entries.iter().all(Option::is_none) {
            continue;
        }
        let _ = write!(out, "{:<22}", experiment.name);
        let mut counts = Vec::new();
        for entry in &entries {
            match entry {
                Some(e) => {
                    let _ = write!(out, " {}", interval_cell(e.mean, e.finished, w));
                    counts.push(e.values.len().to_string());
                }
                None => {
                    let _ = write!(out, " {:>w$} ", "-");
                    counts.push("-".into());
                }
            }
        }
        let _ = writeln!(out, "  {}", counts.join(" | "));
    }
    let _ = write!(out, "\n{:<22}", "tag");
    for s in summaries {
        let _ = write!(out, " {:>w$} ", s.agent);
    }
    let _ = writeln!(out, "  seeds");
    for (k, tag) in tag_stats[0].iter().enumerate() {
        let _ = write!(out, "{:<22}", tag.tag.as_str());
        for stats in &tag_stats {
            let _ = write!(out, " {}", interval_cell(stats[k].mean(), true, w));
        }
        let counts: Vec<String> = summaries
            .iter()
            .map(|s| s.num_seeds().to_string())
            .collect();
        let _ = writeln!(out, "  {}", counts.join(" | "));
    }
    for (summary, stats) in summaries.iter().zip(&tag_stats) {
        let count = summary.num_seeds();
        let plural = if count == 1 { "" } else { "s" };
        let _ = writeln!(
            out,
            "\n{}, {count} seed{plural}: rliable's aggregates per tag",
            summary.agent
        );
        let _ = write!(out, "{:<22}", "tag");
        for name in ["mean", "median", "IQM", "optimality gap"] {
            let _ = write!(out, " {name:>20} ");
        }
        let _ = writeln!(out);
        for tag in stats {
            let _ = write!(out, "{:<22}", tag.tag.as_str());
            for (_, estimate) in &tag.aggregates {
                let _ = write!(out, " {}", interval_cell(*estimate, true, 20));
            }
            let _ = writeln!(out);
        }
    }
    if with_ids {
        for summary in summaries {
            let seeds: Vec<String> = summary
                .seeds
                .iter()
                .map(|(s, _)| s.map_or("?".into(), |s| s.to_string()))
                .collect();
            let _ = writeln!(
                out,
                "\n{}: per bsuite_id, each seed's score (seeds {})",
                summary.agent,
                seeds.join(", ")
            );
            for id in bsuite_envs::sweep() {
                let per_seed: Vec<Option<&bsuite_analysis::IdScore>> = summary
                    .seeds
                    .iter()
                    .map(|(_, s)| s.ids.iter().find(|i| i.id == id))
                    .collect();
                if per_seed.iter().all(Option::is_none) {
                    continue;
                }
                let cells: Vec<String> = per_seed
                    .iter()
                    .map(|i| match i {
                        Some(i) => cell(i.score, i.finished(), 6),
                        None => format!("{:>6} ", "-"),
                    })
                    .collect();
                let _ = writeln!(out, "{:<22} {}", id.to_string(), cells.join(" "));
            }
        }
    }
    let _ = writeln!(
        out,
        "\n* = unfinished: some seed's bsuite_id has not reached the experiment's episodes.\n\
         Intervals resample seeds within each experiment (rliable's stratified bootstrap); with\n\
         one seed there is nothing to resample and the interval is the score itself."
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::PathBuf;

    fn fixtures() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
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

    fn load(args: &[String]) -> (Vec<SeededAgent>, Vec<SeededSummary>) {
        let agents = load_seeded_agents(args, false).unwrap();
        let summaries = agents.iter().map(SeededAgent::summarize).collect();
        (agents, summaries)
    }

    #[test]
    fn json_equals_ref_score_on_the_random_run() {
        let dir = fixtures().join("random_results");
        let (_, summaries) = load(&[dir.to_string_lossy().into_owned()]);
        let ours = reference_json(&summaries[0].seeds[0].1);
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
        let (mut agents, _) = load(&[dir.to_string_lossy().into_owned()]);
        let results = &mut agents[0].seeds[0].results;
        let all: Vec<BsuiteId> = bsuite_envs::sweep().collect();
        let shard = bsuite_baselines::runner::Shard { index: 1, count: 4 }.select(&all);
        let before = results.runs.len();
        let missing = restrict(results, &shard);
        let kept: Vec<BsuiteId> = results.runs.iter().map(|r| r.id()).collect();
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

    /// `score` on a single-seed directory prints what it printed before seeds existed:
    /// `random_score_output.{json,txt}` are the outputs of the build before them.
    #[test]
    fn single_seed_output_is_unchanged_byte_for_byte() {
        let dir = fixtures().join("random_results");
        let args = ScoreArgs {
            dirs: vec![dir.clone().into_os_string()],
            json: true,
            ids: true,
            lenient: false,
            sweep: Vec::new(),
            reps: 10_000,
            bootstrap_seed: 0,
            export: Vec::new(),
            overwrite: false,
        };
        let (agents, summaries) = load(&[dir.to_string_lossy().into_owned()]);
        let json =
            serde_json::to_string_pretty(&reference_json(&summaries[0].seeds[0].1)).unwrap() + "\n";
        let golden = std::fs::read_to_string(fixtures().join("random_score_output.json")).unwrap();
        assert_eq!(json, golden);
        let results: Vec<&AgentResults> = agents.iter().map(|a| &a.seeds[0].results).collect();
        let text = table(&results, &[summaries[0].seeds[0].1.clone()], args.ids);
        let golden = std::fs::read_to_string(fixtures().join("random_score_output.txt")).unwrap();
        assert_eq!(text, golden);
    }

    #[test]
    fn table_marks_unfinished_and_names_agents() {
        let dir = fixtures().join("random_results");
        let arg = format!("rand={}", dir.display());
        let (agents, summaries) = load(std::slice::from_ref(&arg));
        let results: Vec<&AgentResults> = agents.iter().map(|a| &a.seeds[0].results).collect();
        let single: Vec<Summary> = summaries.iter().map(|s| s.seeds[0].1.clone()).collect();
        let text = table(&results, &single, true);
        assert!(text.starts_with("rand: 115 bsuite_ids in 23 experiments (0 unfinished)"));
        assert!(
            text.contains("discounting_chain       0.200   5/20 @ 1000/1000"),
            "{text}"
        );
        assert!(text.contains("deep_sea/20"));
        let err = load_seeded_agents(&[arg.clone(), arg], false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("both named 'rand'"), "{err}");
    }

    /// Copies the fixture's files whose names contain one of `keep` into `dir/seed-<seed>`,
    /// with a manifest naming `seed`.
    fn seed_copy(dir: &std::path::Path, seed: u32, keep: &[&str]) {
        let to = dir.join(format!("seed-{seed}"));
        std::fs::create_dir_all(&to).unwrap();
        let from = fixtures().join("random_results");
        for entry in std::fs::read_dir(&from).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if keep.iter().any(|k| name.contains(k)) {
                std::fs::copy(from.join(&name), to.join(&name)).unwrap();
            }
        }
        bsuite_logging::manifest::RunManifest::new("random", "random", seed, None)
            .write(&to)
            .unwrap();
    }

    #[test]
    fn multi_seed_json_adds_seeds_and_intervals_to_the_single_seed_keys() {
        let dir = std::env::temp_dir().join(format!("bsuite-score-seeds-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        seed_copy(&dir, 42, &["bsuite_id"]);
        seed_copy(&dir, 43, &["bandit-"]);
        let (agents, summaries) = load(&[dir.to_string_lossy().into_owned()]);
        let settings = Bootstrap::default();
        let json = seeded_json(&summaries[0], &settings);
        assert_eq!(json["seeds"], json!([42, 43]));
        // Each seed's object is what that seed's directory gives alone.
        let alone = |seed: u32| {
            let (_, s) = load(&[dir
                .join(format!("seed-{seed}"))
                .to_string_lossy()
                .into_owned()]);
            reference_json(&s[0].seeds[0].1)
        };
        assert_eq!(json["per_seed"]["42"], alone(42));
        assert_eq!(json["per_seed"]["43"], alone(43));
        // Seed 43 repeats seed 42's bandit runs: the mean is that score, the interval a point.
        let bandit = &json["per_seed"]["42"]["experiments"]["bandit"];
        assert_eq!(&json["experiments"]["bandit"], bandit);
        let interval = &json["intervals"]["experiments"]["bandit"];
        assert_eq!((&interval["lo"], &interval["hi"]), (bandit, bandit));
        assert_eq!(interval["seeds"], json!(2));
        assert_eq!(json["intervals"]["experiments"]["catch"]["seeds"], json!(1));
        assert_eq!(
            json["experiments"]["catch"],
            json["per_seed"]["42"]["experiments"]["catch"]
        );
        let tags = json["intervals"]["tags"].as_object().unwrap();
        assert_eq!(tags.len(), 7);
        assert_eq!(tags["basic"]["experiments"], json!(5));
        // The readable table says how many seeds each score rests on.
        let text = seeds_table(&agents, &summaries, &settings, true);
        assert!(text.contains("2 seeds (42, 43)"), "{text}");
        assert!(text.contains("rliable's aggregates per tag"), "{text}");
        // Per id, a column per seed: catch/0 only in seed 42.
        assert!(text.contains("per bsuite_id, each seed's score"), "{text}");
        let catch = text.lines().find(|l| l.starts_with("catch/0 ")).unwrap();
        assert!(catch.trim_end().ends_with('-'), "{catch}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
