//! Running an agent on many bsuite_ids in parallel, one CSV file per id: the engine behind
//! `cargo xtask bench-all`.
//!
//! Each id runs on its own thread of a rayon pool with the default seeding policy (env seed
//! = setting index) and a fresh agent. Runs are resumable: an id whose results file already
//! reached the episode count is skipped, one with a partial file (from a killed run) is run
//! again from the start, and finished results are only replaced with `overwrite`. A panic
//! or error in one id is reported with the id and does not stop the others.

use std::fs;
use std::io;
use std::ops::ControlFlow;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bsuite_envs::{BsuiteId, Environment};
use bsuite_logging::csv_logging::{file_name, CsvLogger};
use bsuite_logging::Logging;
use rayon::prelude::*;

use crate::experiment::run_with;
use crate::factory::{AgentEntry, AgentSetup};

/// How to run a set of ids.
#[derive(Clone, Debug)]
pub struct RunnerOptions {
    /// Where the CSV files go (created if missing).
    pub results_dir: PathBuf,
    /// Ids run at once; 0 means one per available core.
    pub jobs: usize,
    /// Replace finished results instead of skipping them.
    pub overwrite: bool,
    /// The agent seed, the same for every id (bsuite's `run.py` uses 42).
    pub seed: u32,
    /// Episodes per id instead of the reference's `num_episodes`.
    pub num_episodes: Option<usize>,
}

/// Counters shared with a progress display while a sweep runs.
#[derive(Debug, Default)]
pub struct Progress {
    /// Ids finished (run, skipped or failed).
    pub ids_done: AtomicUsize,
    /// Ids running now.
    pub ids_running: AtomicUsize,
    /// Episodes run so far, over all ids.
    pub episodes: AtomicU64,
    /// Environment steps run so far, over all ids.
    pub steps: AtomicU64,
}

/// What happened to one id.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The id ran to the end and its file is complete.
    Ran {
        /// Episodes run.
        episodes: usize,
        /// Environment steps run.
        steps: u64,
        /// Wall time of the id.
        elapsed: Duration,
        /// True when a partial file from an earlier run was replaced.
        replaced_partial: bool,
    },
    /// The results file already had the episodes; nothing was run.
    Skipped {
        /// Episodes in the existing file.
        episodes: u64,
    },
    /// The id failed; the message says why.
    Failed(String),
}

/// One id's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct IdReport {
    /// The id.
    pub id: BsuiteId,
    /// What happened.
    pub outcome: Outcome,
}

impl std::fmt::Display for IdReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.outcome {
            Outcome::Ran {
                episodes,
                steps,
                elapsed,
                replaced_partial,
            } => {
                let secs = elapsed.as_secs_f64();
                write!(
                    f,
                    "{}: {episodes} episodes, {steps} steps in {secs:.2} s ({:.0} steps/s){}",
                    self.id,
                    *steps as f64 / secs.max(1e-9),
                    if *replaced_partial {
                        ", replacing a partial file"
                    } else {
                        ""
                    }
                )
            }
            Outcome::Skipped { episodes } => {
                write!(
                    f,
                    "{}: skipped, results file has {episodes} episodes",
                    self.id
                )
            }
            Outcome::Failed(message) => write!(f, "{}: FAILED: {message}", self.id),
        }
    }
}

/// A deterministic share `index` of `count` of a list of ids (`--shard I/N`, 0-based `I`).
///
/// ```
/// use bsuite_baselines::runner::Shard;
///
/// let shard: Shard = "1/3".parse().unwrap();
/// assert_eq!(shard.select(&[10, 11, 12, 13, 14]), vec![11, 14]);
/// assert!("3/3".parse::<Shard>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, `0..count`.
    pub index: usize,
    /// Number of shards.
    pub count: usize,
}

impl Shard {
    /// Every `count`-th item starting at `index`: shards are disjoint, cover the list, and
    /// mix experiments so that their run times are similar.
    pub fn select<T: Clone>(&self, items: &[T]) -> Vec<T> {
        items
            .iter()
            .skip(self.index)
            .step_by(self.count)
            .cloned()
            .collect()
    }
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("bad shard '{s}': expected I/N with 0 <= I < N, e.g. 0/4");
        let (index, count) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = index.trim().parse().map_err(|_| bad())?;
        let count: usize = count.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// Runs `agent` on every id in `ids` (in parallel, `options.jobs` at a time) and returns one
/// report per id, in the order of `ids`. `on_done` is called as each id finishes, from the
/// worker thread.
pub fn run_ids(
    ids: &[BsuiteId],
    agent: AgentEntry,
    options: &RunnerOptions,
    progress: &Progress,
    on_done: &(dyn Fn(&IdReport) + Sync),
) -> Result<Vec<IdReport>, String> {
    fs::create_dir_all(&options.results_dir).map_err(|e| {
        format!(
            "creating results directory {}: {e}",
            options.results_dir.display()
        )
    })?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.jobs)
        .thread_name(|i| format!("bsuite-runner-{i}"))
        .build()
        .map_err(|e| format!("starting {} worker threads: {e}", options.jobs))?;
    Ok(pool.install(|| {
        ids.par_iter()
            .with_max_len(1)
            .map(|&id| {
                progress.ids_running.fetch_add(1, Ordering::Relaxed);
                let outcome = match catch_unwind(AssertUnwindSafe(|| {
                    run_one(id, agent, options, progress)
                })) {
                    Ok(Ok(outcome)) => outcome,
                    Ok(Err(message)) => Outcome::Failed(message),
                    Err(panic) => Outcome::Failed(format!("panicked: {}", panic_message(&panic))),
                };
                progress.ids_running.fetch_sub(1, Ordering::Relaxed);
                progress.ids_done.fetch_add(1, Ordering::Relaxed);
                let report = IdReport { id, outcome };
                on_done(&report);
                report
            })
            .collect()
    }))
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".to_string()
    }
}

fn run_one(
    id: BsuiteId,
    agent: AgentEntry,
    options: &RunnerOptions,
    progress: &Progress,
) -> Result<Outcome, String> {
    let start = Instant::now();
    let num_episodes = options.num_episodes.unwrap_or(id.num_episodes());
    let path = options.results_dir.join(file_name(&id));
    let mut overwrite = options.overwrite;
    let mut replaced_partial = false;
    if !overwrite {
        match logged_episodes(&path).map_err(|e| format!("{e}; pass --overwrite to replace it"))? {
            Some(done) if done >= num_episodes as u64 => {
                return Ok(Outcome::Skipped { episodes: done });
            }
            Some(_) => {
                overwrite = true;
                replaced_partial = true;
            }
            None => {}
        }
    }
    let env = id.load().map_err(|e| e.to_string())?;
    let setup = AgentSetup {
        id,
        observation_spec: env.observation_spec(),
        action_spec: env.action_spec(),
        seed: options.seed,
    };
    let logger =
        CsvLogger::create(&id, &options.results_dir, overwrite).map_err(|e| e.to_string())?;
    let mut env = Logging::new(env, logger).final_episode(num_episodes);
    let mut agent = (agent.make)(&setup);
    let mut steps = 0u64;
    let episodes = run_with(&mut *agent, &mut env, num_episodes, |env, end| {
        steps += end.steps as u64;
        progress
            .steps
            .fetch_add(end.steps as u64, Ordering::Relaxed);
        progress.episodes.fetch_add(1, Ordering::Relaxed);
        if env.error().is_some() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .map_err(|e| e.to_string())?;
    env.finish().map_err(|e| e.to_string())?;
    Ok(Outcome::Ran {
        episodes,
        steps,
        elapsed: start.elapsed(),
        replaced_partial,
    })
}

/// The last logged episode of a bsuite results file: `None` if there is no file, `Some(0)`
/// for an empty file or one with only a header. A file that is not a bsuite CSV (no
/// `episode` column, or a last row whose episode is not a number) is an error.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("bsuite-logged-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("bsuite_id_-_catch-0.csv");
/// assert_eq!(bsuite_baselines::runner::logged_episodes(&path).unwrap(), None);
/// std::fs::write(&path, "steps,episode,total_return\n9,1,1.0\n18,2,0.0\n").unwrap();
/// assert_eq!(bsuite_baselines::runner::logged_episodes(&path).unwrap(), Some(2));
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn logged_episodes(path: &Path) -> Result<Option<u64>, String> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("reading {}: {e}", path.display())),
    };
    let mut lines = text.lines().filter(|line| !line.is_empty());
    let Some(header) = lines.next() else {
        return Ok(Some(0));
    };
    let not_bsuite = |why: &str| format!("{} is not a bsuite results file: {why}", path.display());
    let column = header
        .split(',')
        .position(|name| name == "episode")
        .ok_or_else(|| not_bsuite("its header has no 'episode' column"))?;
    let Some(last) = lines.next_back() else {
        return Ok(Some(0));
    };
    let cell = last
        .split(',')
        .nth(column)
        .ok_or_else(|| not_bsuite("its last row is short"))?;
    match cell.parse::<u64>() {
        Ok(episode) => Ok(Some(episode)),
        Err(_) => match cell.parse::<f64>() {
            Ok(x) if x >= 0.0 && x.fract() == 0.0 => Ok(Some(x as u64)),
            _ => Err(not_bsuite(&format!("last episode '{cell}' is not a count"))),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_ids() {
        let ids: Vec<BsuiteId> = bsuite_envs::sweep().collect();
        let mut all: Vec<BsuiteId> = (0..7)
            .flat_map(|i| Shard { index: i, count: 7 }.select(&ids))
            .collect();
        all.sort();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(all, sorted);
        for bad in ["", "1", "0/0", "-1/2", "2/2", "a/b", "1/2/3"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn logged_episodes_reads_the_last_row() {
        let dir = std::env::temp_dir().join(format!("bsuite-runner-test-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.csv");
        for (text, expect) in [
            ("", Ok(Some(0))),
            ("steps,episode\n", Ok(Some(0))),
            ("steps,episode\n1,1\n2,2.0\n", Ok(Some(2))),
        ] {
            fs::write(&path, text).unwrap();
            assert_eq!(logged_episodes(&path), expect, "{text:?}");
        }
        for text in ["a,b\n1,2\n", "steps,episode\n1,x\n", "steps,episode\n1\n"] {
            fs::write(&path, text).unwrap();
            let err = logged_episodes(&path).unwrap_err();
            assert!(err.contains("x.csv is not a bsuite results file"), "{err}");
        }
        fs::remove_dir_all(&dir).unwrap();
    }
}
