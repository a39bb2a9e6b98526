//! Running an agent on many bsuite_ids in parallel, one CSV file per id: the engine behind
//! `bsuite run` (`cargo xtask bench-all`).
//!
//! Every id gets the default seeding policy (env seed = setting index) and a fresh agent.
//! Agents that can run many ids as one lockstep batch ([`crate::factory::Batching`]) get
//! batches of compatible ids; the others run id by id. `jobs` batches run at once, the
//! most expensive first. Runs are resumable: an id whose results file already reached the
//! episode count is skipped, one with a partial file (from a killed run) is run again from
//! the start, and finished results are only replaced with `overwrite`. Since a replica's
//! results do not depend on its batch, a resumed or sharded sweep writes the same files as
//! one uninterrupted run. A panic or error in one id is reported with the id and does not
//! stop the others.

use std::fs;
use std::io;
use std::ops::ControlFlow;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use bsuite_envs::{BsuiteId, Environment, LoadError};
use bsuite_logging::csv_logging::{remove_stale_temp_files, CsvLogger};
use bsuite_logging::dir_lock::{Holder, LockError, Locking};
use bsuite_logging::manifest::{self, ClaimError, ManifestError, PlaceError, RunManifest};
use bsuite_logging::results::{file_name, logged_episodes, Layout, ReadError};
use bsuite_logging::{LogError, Logging};

use crate::config::AgentConfig;
use crate::experiment::{run_lockstep, run_with, ReplicaEnd};
use crate::factory::{AgentEntry, AgentSetup, Batching, ComputeDevice};
pub use crate::shard::{AutoShardError, ParseShardError, Shard, ShardArg};

/// How to run a set of ids.
#[derive(Clone, Debug)]
pub struct RunnerOptions {
    /// Where the CSV files go (created if missing).
    pub results_dir: PathBuf,
    /// Batches (or ids) run at once; 0 means one per CPU this process may use
    /// ([`usable_cpus`]).
    pub jobs: usize,
    /// Replace finished results instead of skipping them.
    pub overwrite: bool,
    /// The agent seed, the same for every id (bsuite's `run.py` uses 42).
    pub seed: u32,
    /// Episodes per id instead of the reference's `num_episodes`.
    pub num_episodes: Option<usize>,
    /// Most ids in one lockstep batch, for agents that batch; 0 means the agent's own
    /// [`Batching::default_size`], 1 runs every id on its own.
    pub batch_size: usize,
    /// The shard of a split sweep this run is, if any: shards of one split may share a
    /// results directory (see [`bsuite_logging::dir_lock`]).
    pub shard: Option<Shard>,
    /// Where the agents compute.
    pub device: ComputeDevice,
    /// The agent's hyperparameters; `None` runs its defaults. Its `seed` is `seed`'s.
    pub config: Option<AgentConfig>,
    /// Whether the run locks its results directory ([`Locking::Unlocked`] only where the
    /// filesystem refuses `flock` and the run is the directory's only writer).
    pub lock: Locking,
}

impl RunnerOptions {
    /// The configuration `agent` runs with: `config`, or the agent's defaults, with the
    /// seed of `seed`.
    pub fn config_for(&self, agent: AgentEntry) -> Result<AgentConfig, RunError> {
        let mut config = match &self.config {
            Some(config) if config.agent() != agent.name => {
                return Err(RunError::ConfigOfAnotherAgent {
                    config: config.agent(),
                    agent: agent.name,
                })
            }
            Some(config) => config.clone(),
            None => AgentConfig::new(agent.name, agent.keys),
        };
        if config.has("seed") {
            let seed = self.seed.to_string();
            if let Err(error) = config.set("seed", &seed) {
                unreachable!("every u32 is a seed: {error}");
            }
        }
        Ok(config)
    }

    /// Episodes this run gives `id`: `num_episodes`, or the id's own count.
    pub fn episodes(&self, id: BsuiteId) -> usize {
        self.num_episodes.unwrap_or(id.num_episodes())
    }

    /// Batches run at once: `jobs`, or [`usable_cpus`] when it is 0.
    pub fn effective_jobs(&self) -> usize {
        if self.jobs == 0 {
            usable_cpus()
        } else {
            self.jobs
        }
    }
}

/// The CPUs this process may use: its affinity mask and its cgroup's `cpu.max` quota (as
/// the standard library reads them), and no more than a Slurm task's
/// `SLURM_CPUS_PER_TASK`, which under `task/none` is neither of those.
pub fn usable_cpus() -> usize {
    let available = std::thread::available_parallelism().map_or(1, |n| n.get());
    cpus_within(
        available,
        std::env::var("SLURM_CPUS_PER_TASK").ok().as_deref(),
    )
}

/// `available` CPUs, at most `slurm_cpus_per_task` where that is a count.
fn cpus_within(available: usize, slurm_cpus_per_task: Option<&str>) -> usize {
    let slurm = slurm_cpus_per_task.and_then(|n| n.trim().parse::<usize>().ok());
    slurm
        .filter(|&n| n > 0)
        .map_or(available, |n| n.min(available))
        .max(1)
}

impl Default for RunnerOptions {
    /// `results/`, one job per core, no overwriting, seed 42, the reference's episode
    /// counts, default batches.
    fn default() -> Self {
        RunnerOptions {
            results_dir: PathBuf::from("results"),
            jobs: 0,
            overwrite: false,
            seed: 42,
            num_episodes: None,
            batch_size: 0,
            shard: None,
            device: ComputeDevice::Cpu,
            config: None,
            lock: Locking::Flock,
        }
    }
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
        /// What the run replaced, if an earlier file was there.
        replaced: Option<Replaced>,
    },
    /// The results file already had the episodes; nothing was run.
    Skipped {
        /// Episodes in the existing file.
        episodes: u64,
    },
    /// The id failed; the message says why.
    Failed(String),
}

/// An earlier results file that a run replaced.
#[derive(Clone, Debug, PartialEq)]
pub enum Replaced {
    /// A well-formed file with fewer episodes (an interrupted run).
    Partial,
    /// A file the strict reader rejects; it was kept under another name.
    Damaged {
        /// Where the damaged file now is (`<file>.corrupt`, or `.corrupt.N`).
        kept_as: PathBuf,
        /// What is wrong with it, by line.
        problem: String,
    },
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
                replaced,
            } => {
                let secs = elapsed.as_secs_f64();
                write!(
                    f,
                    "{}: {episodes} episodes, {steps} steps in {secs:.2} s ({:.0} steps/s)",
                    self.id,
                    *steps as f64 / secs.max(1e-9),
                )?;
                match replaced {
                    None => Ok(()),
                    Some(Replaced::Partial) => write!(f, ", replacing a partial file"),
                    Some(Replaced::Damaged { kept_as, problem }) => write!(
                        f,
                        ", rerun from the start: its file was damaged ({problem}) and is kept as {}",
                        kept_as.display()
                    ),
                }
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

/// Why [`run_ids`] could not run (one id's failure is that id's [`Outcome::Failed`] instead).
///
/// Each message is whole: the underlying error is part of it, not a separate source.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The configuration given is another agent's.
    #[error("a configuration of {config} cannot configure {agent}")]
    ConfigOfAnotherAgent {
        /// The agent the configuration is for.
        config: &'static str,
        /// The agent run.
        agent: &'static str,
    },
    /// The results directory could not be created.
    #[error("creating results directory {}: {error}", .dir.display())]
    CreateDir {
        /// The results directory.
        dir: PathBuf,
        /// The OS error.
        error: io::Error,
    },
    /// The results path is not a directory (a file, a dangling link, a link loop).
    #[error("results directory {} is {what}; pass another --results", .dir.display())]
    NotADirectory {
        /// The results path.
        dir: PathBuf,
        /// What is there instead.
        what: String,
    },
    /// The results directory could not be locked: another run holds it, or the lock file
    /// failed.
    #[error("{error}")]
    Lock {
        /// Why.
        error: LockError,
    },
    /// The results directory may not take this run's results: it holds another run's,
    /// results no manifest vouches for, or an unreadable manifest (all refused unless
    /// `overwrite`), recorders are writing into it, or it is laid out for another kind of
    /// run (seed directories, or a seed directory whose siblings are another run).
    #[error("{error}{}", overwrite_advice(.error))]
    Claim {
        /// Why.
        error: PlaceError,
    },
    /// The manifest could not be updated as an id of an unfinished overwrite was rerun.
    #[error("{error}")]
    Finish {
        /// Why.
        error: ClaimError,
    },
    /// A worker thread could not be started.
    #[error("starting worker thread {worker}: {error}")]
    Thread {
        /// The worker's number.
        worker: usize,
        /// The OS error.
        error: io::Error,
    },
}

/// What `dir` is, where something other than a directory is there: the OS's own error
/// ("File exists") names none of these.
fn not_a_directory(dir: &Path) -> Option<String> {
    let link = fs::symlink_metadata(dir).ok()?;
    if !link.file_type().is_symlink() {
        return (!link.is_dir()).then(|| "a file, not a directory".into());
    }
    let target = fs::read_link(dir).map_or_else(|_| "?".into(), |t| t.display().to_string());
    Some(match fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => return None,
        Ok(_) => format!("a symbolic link to {target}, a file, not a directory"),
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            format!("a symbolic link to {target}, which does not exist")
        }
        Err(error) if is_loop(&error) => {
            "a symbolic link that leads back to itself (a loop)".into()
        }
        Err(error) => format!("a symbolic link to {target}, which cannot be followed: {error}"),
    })
}

#[cfg(unix)]
fn is_loop(error: &io::Error) -> bool {
    error.raw_os_error() == Some(libc::ELOOP)
}

#[cfg(not(unix))]
fn is_loop(_: &io::Error) -> bool {
    false
}

/// What `--overwrite` would do about a refusal, where it would do something.
fn overwrite_advice(error: &PlaceError) -> &'static str {
    let PlaceError::Claim { error } = error else {
        return "";
    };
    match error {
        ClaimError::OtherRun { .. }
        | ClaimError::Unclaimed { .. }
        | ClaimError::Unreadable {
            error: ManifestError::Read { .. } | ManifestError::Parse { .. },
        } => {
            ". Pass another --results, or --overwrite to rerun the selected ids as this run \
             (the manifest lists the files of other ids as another run's until they are rerun)"
        }
        _ => "",
    }
}

/// Checks, as one step with every other writer of `dir`, that it holds this agent's,
/// seed's and episode count's results (or none), then records them in its manifest.
/// Another run's directory is refused unless `options.overwrite` is set. Returns the files
/// of `ids` that are another run's and must be rerun.
fn claim(
    dir: &Path,
    agent: AgentEntry,
    config: &AgentConfig,
    options: &RunnerOptions,
    ids: &[BsuiteId],
    pool: &[u32],
) -> Result<manifest::Claim, RunError> {
    let ours = run_manifest(agent, config, options);
    let selected = ids.iter().map(file_name).collect();
    manifest::claim_in_pool(dir, &ours, options.overwrite, &selected, pool, options.lock)
        .map_err(|error| RunError::Claim { error })
}

/// The manifest a run of `agent` with `options` records (before its claim adds what it
/// finds in the directory).
pub fn run_manifest_of(
    agent: AgentEntry,
    options: &RunnerOptions,
) -> Result<RunManifest, RunError> {
    Ok(run_manifest(agent, &options.config_for(agent)?, options))
}

/// The manifest of a run of `agent` with `config` and `options`.
fn run_manifest(agent: AgentEntry, config: &AgentConfig, options: &RunnerOptions) -> RunManifest {
    // The entry's line describes the defaults; say what this run changed.
    let changed = config.changed();
    let description = match changed.is_empty() {
        true => agent.description.to_string(),
        false => format!("{}; changed: {changed}", agent.description),
    };
    RunManifest {
        git_revision: option_env!("BSUITE_GIT_REVISION").map(str::to_string),
        config: config
            .entries()
            .map(|(key, value)| (key.to_string(), value.to_string()))
            .collect(),
        shards: options.shard.map(|shard| shard.count),
        ..RunManifest::new(agent.name, &description, options.seed, options.num_episodes)
    }
}

/// The ids of `ids` that a run of `agent` with `options` would run rather than skip, as
/// far as reading its results directory can tell: all but those whose file is complete
/// and this run's (the directory's manifest records the same agent, configuration, seed
/// and episode count, and no unfinished overwrite still has the file to replace). A
/// directory the run would refuse or overwrite leaves every id pending. This is what
/// `--estimate` projects when a sweep resumes.
pub fn pending_ids(
    ids: &[BsuiteId],
    agent: AgentEntry,
    options: &RunnerOptions,
) -> Result<Vec<BsuiteId>, RunError> {
    let ours = run_manifest(agent, &options.config_for(agent)?, options);
    let dir = &options.results_dir;
    let theirs = match RunManifest::read(dir) {
        Ok(Some(theirs)) if !options.overwrite && ours.differences(&theirs).is_empty() => theirs,
        _ => return Ok(ids.to_vec()),
    };
    let replacing = theirs.overwriting.map(|o| o.files).unwrap_or_default();
    let complete = |id: &BsuiteId| {
        let file = file_name(id);
        let episodes = options.episodes(*id) as u64;
        !replacing.contains(&file)
            && matches!(logged_episodes(&dir.join(&file)), Ok(Some(n)) if n >= episodes)
    };
    Ok(ids.iter().copied().filter(|id| !complete(id)).collect())
}

/// Runs `agent` on every id in `ids` (`options.jobs` batches at a time) and returns one
/// report per id, in the order of `ids`. `on_done` is called as each id finishes, from the
/// worker thread.
pub fn run_ids(
    ids: &[BsuiteId],
    agent: AgentEntry,
    options: &RunnerOptions,
    progress: &Progress,
    on_done: &(dyn Fn(&IdReport) + Sync),
) -> Result<Vec<IdReport>, RunError> {
    let mut reports = run_pool(
        ids,
        agent,
        std::slice::from_ref(options),
        progress,
        &|_, report| on_done(report),
    )?;
    Ok(reports.pop().expect("one run, one list of reports"))
}

/// Runs `agent` on every id in `ids` once per run of `runs` (several seeds of one sweep,
/// each into its own results directory), scheduling the (run, id) pairs as one pool:
/// `jobs` workers stay busy across runs, the most expensive batches first, and agents that
/// batch put replicas of one id group from different runs in one batch. A replica's
/// results do not depend on its batch-mates, so every run writes the bytes it would write
/// alone.
///
/// Each run keeps its own directory, lock, manifest and resume. Every directory is locked
/// and claimed before anything runs, so a refusal (another run's manifest, a lock held
/// elsewhere) stops the pool before it writes a result; the locks are released on return.
/// The runs differ only in `results_dir`, `seed` and `config`; the pool's `jobs`,
/// `batch_size` and `device` are the first run's. Returns one list of reports per run,
/// each in the order of `ids`; `on_done` gets the run's index with each report.
pub fn run_pool(
    ids: &[BsuiteId],
    agent: AgentEntry,
    runs: &[RunnerOptions],
    progress: &Progress,
    on_done: &(dyn Fn(usize, &IdReport) + Sync),
) -> Result<Vec<Vec<IdReport>>, RunError> {
    // Every directory is created where the layout allows it, and locked, before any is
    // claimed: a run held elsewhere stops the pool before it records anything, and a
    // refused pool removes the directories it created.
    let mut created = Vec::new();
    let units = lock_and_claim(ids, agent, runs, &mut created).inspect_err(|_| {
        for dir in created.iter().rev() {
            remove_if_unused(dir);
        }
    })?;
    let Some(first) = runs.first() else {
        return Ok(Vec::new());
    };
    // The locks are held until the pool ends.
    let (_locks, units) = units;
    let unfinished = Mutex::new(None);
    let replaced = |unit: &Unit, id: &BsuiteId| {
        let file = file_name(id);
        if unit.claim.rerun.contains(&file) {
            let dir = &unit.options.results_dir;
            if let Err(error) = manifest::finished(dir, &file, unit.options.lock) {
                // The id is rerun again on resume; the run says why at its end.
                let mut first = unfinished.lock().unwrap_or_else(|e| e.into_inner());
                first.get_or_insert(error);
            }
        }
    };
    let reports: Mutex<Vec<Vec<Option<IdReport>>>> =
        Mutex::new(vec![vec![None; ids.len()]; runs.len()]);
    let report = |unit: usize, position: usize, report: IdReport| {
        if matches!(report.outcome, Outcome::Ran { .. }) {
            replaced(&units[unit], &report.id);
        }
        progress.ids_done.fetch_add(1, Ordering::Relaxed);
        on_done(unit, &report);
        reports.lock().unwrap_or_else(|e| e.into_inner())[unit][position] = Some(report);
    };

    // What each (run, id) needs: skipped (complete), failed (unreadable file) or a run.
    let mut pending = Vec::new();
    for (index, unit) in units.iter().enumerate() {
        for (position, &id) in ids.iter().enumerate() {
            let another_runs = unit.claim.rerun.contains(&file_name(&id));
            match plan(id, unit.options, another_runs) {
                Ok(Plan::Skip(outcome)) => report(index, position, IdReport { id, outcome }),
                Ok(Plan::Run(run)) => pending.push(Pending {
                    unit: index,
                    position,
                    id,
                    run,
                }),
                Err(error) => report(
                    index,
                    position,
                    IdReport {
                        id,
                        outcome: Outcome::Failed(error.to_string()),
                    },
                ),
            }
        }
    }

    let jobs = first.effective_jobs();
    let work = make_batches(pending, agent, &units, first, jobs);
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for worker in 0..jobs.min(work.len()) {
            let (work, next, report, units) = (&work, &next, &report, &units);
            std::thread::Builder::new()
                .name(format!("bsuite-runner-{worker}"))
                .spawn_scoped(scope, move || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(batch) = work.get(i) else { break };
                    run_batch(batch, agent, units, progress, report);
                })
                .map_err(|error| RunError::Thread { worker, error })?;
        }
        Ok::<(), RunError>(())
    })?;
    if let Some(error) = unfinished.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(RunError::Finish { error });
    }
    let reports = reports.into_inner().unwrap_or_else(|e| e.into_inner());
    Ok(reports
        .into_iter()
        .map(|run| {
            run.into_iter()
                .map(|r| r.expect("every id is reported"))
                .collect()
        })
        .collect())
}

/// Creates, locks and claims the directory of every run of a pool; `created` collects the
/// directories created here (to remove if the pool is refused).
fn lock_and_claim<'a>(
    ids: &[BsuiteId],
    agent: AgentEntry,
    runs: &'a [RunnerOptions],
    created: &mut Vec<PathBuf>,
) -> Result<(Vec<bsuite_logging::dir_lock::DirLock>, Vec<Unit<'a>>), RunError> {
    // The seeds of one pool are claimed by one run: none is another's sibling to agree
    // with (an `--overwrite` of the pool replaces them all).
    let pool: Vec<u32> = runs.iter().map(|options| options.seed).collect();
    let mut locks = Vec::with_capacity(runs.len());
    for options in runs {
        let dir = &options.results_dir;
        let existed = dir.is_dir();
        let ours = run_manifest(agent, &options.config_for(agent)?, options);
        // Created under the lock of the layout it joins: a seed directory under its
        // multi-seed parent's, beside siblings of its own run only.
        let layout = manifest::claim_layout(dir, Layout::OneSeed, Some(&ours), &pool, options.lock)
            .map_err(|error| match error {
                PlaceError::CreateDir { error, .. } => match not_a_directory(dir) {
                    Some(what) => RunError::NotADirectory {
                        dir: dir.clone(),
                        what,
                    },
                    None => RunError::CreateDir {
                        dir: dir.clone(),
                        error,
                    },
                },
                error => RunError::Claim { error },
            });
        if !existed && dir.is_dir() {
            created.push(dir.clone());
        }
        drop(layout?);
        let holder = match options.shard {
            Some(Shard { index, count }) => Holder::Shard { index, count },
            None => Holder::Run,
        };
        let lock = bsuite_logging::dir_lock::lock_with(dir, holder, options.lock)
            .map_err(|error| RunError::Lock { error })?;
        locks.push(lock);
    }
    let mut units = Vec::with_capacity(runs.len());
    for options in runs {
        let config = options.config_for(agent)?;
        let claim = claim(&options.results_dir, agent, &config, options, ids, &pool)?;
        units.push(Unit {
            options,
            config,
            claim,
        });
    }
    Ok((locks, units))
}

/// Removes `dir` if it holds nothing but lock files (a directory a refused run created),
/// so that a refusal leaves no empty results or seed directory behind.
pub fn remove_if_unused(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let names: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    let lock_file = |p: &PathBuf| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(bsuite_logging::dir_lock::LOCK_FILE))
    };
    if names.iter().all(lock_file) {
        for name in &names {
            let _ = fs::remove_file(name);
        }
        let _ = fs::remove_dir(dir);
    }
}

/// One run of a pool: its options, the configuration its agents get, and its claim on its
/// directory.
struct Unit<'a> {
    options: &'a RunnerOptions,
    config: AgentConfig,
    claim: manifest::Claim,
}

/// What an id needs.
enum Plan {
    Skip(Outcome),
    Run(RunPlan),
}

#[derive(Clone)]
struct RunPlan {
    num_episodes: usize,
    /// An existing file is replaced.
    overwrite: bool,
    replaced: Option<Replaced>,
}

/// An id waiting to run for the run `unit` of the pool, at `position` in the caller's list.
#[derive(Clone)]
struct Pending {
    unit: usize,
    position: usize,
    id: BsuiteId,
    run: RunPlan,
}

/// Why an id could not start; its report gives the message as [`Outcome::Failed`].
#[derive(Debug, thiserror::Error)]
enum StartError {
    #[error("reading {}: {error}", .path.display())]
    Read { path: PathBuf, error: io::Error },
    #[error(
        "setting the damaged {} aside as {}: {error}",
        .path.display(),
        .kept_as.display()
    )]
    SetAside {
        path: PathBuf,
        kept_as: PathBuf,
        error: io::Error,
    },
    #[error("{error}")]
    Load { error: LoadError },
    #[error("{error}")]
    Log { error: LogError },
}

/// What `id` needs; `another_runs` says its file is another run's (an unfinished
/// overwrite), to be replaced even when complete.
fn plan(id: BsuiteId, options: &RunnerOptions, another_runs: bool) -> Result<Plan, StartError> {
    let num_episodes = options.episodes(id);
    let mut run = RunPlan {
        num_episodes,
        overwrite: options.overwrite || another_runs,
        replaced: None,
    };
    if run.overwrite {
        return Ok(Plan::Run(run));
    }
    // The file is checked whole with the reader `score` uses, not trusted for its last
    // row: a damaged file is set aside (never deleted) and the id rerun from its start.
    let path = options.results_dir.join(file_name(&id));
    // A rewrite that a kill or a full disk interrupted left its temporary file; a run of
    // the id would remove it, a skipped id must too. (Only this run writes this id.)
    let _ = remove_stale_temp_files(&path);
    match logged_episodes(&path) {
        Ok(Some(episodes)) if episodes >= num_episodes as u64 => {
            return Ok(Plan::Skip(Outcome::Skipped { episodes }));
        }
        Ok(Some(_)) => run.replaced = Some(Replaced::Partial),
        Ok(None) => {}
        Err(ReadError::Io { path, error }) => return Err(StartError::Read { path, error }),
        Err(damaged) => {
            let kept_as = set_aside(&path)?;
            run.replaced = Some(Replaced::Damaged {
                kept_as,
                problem: damaged.to_string(),
            });
        }
    }
    if run.replaced.is_some() {
        run.overwrite = true;
    }
    Ok(Plan::Run(run))
}

/// Renames a damaged results file to `<name>.corrupt` (or `.corrupt.N`, the first free),
/// where no reader looks for results.
fn set_aside(path: &Path) -> Result<PathBuf, StartError> {
    let name = path
        .file_name()
        .map_or_else(Default::default, |n| n.to_string_lossy().into_owned());
    let kept_as = (0..)
        .map(|n| match n {
            0 => path.with_file_name(format!("{name}.corrupt")),
            n => path.with_file_name(format!("{name}.corrupt.{n}")),
        })
        .find(|candidate| !candidate.exists())
        .expect("a free name");
    fs::rename(path, &kept_as).map_err(|error| StartError::SetAside {
        path: path.to_path_buf(),
        kept_as: kept_as.clone(),
        error,
    })?;
    Ok(kept_as)
}

/// Ids that run together on one worker: as replicas of one lockstep batch (`lockstep`),
/// or one after another through the plain run loop.
struct Batch {
    lockstep: Option<Batching>,
    members: Vec<Pending>,
}

/// The ids to run, in batches that run one after another on a worker, the most expensive
/// first. Agents without [`Batching`], and `batch_size` 1, give plain batches of one id.
/// Replicas of different runs of the pool share a batch where their key does (the key is
/// computed from each replica's own setup, seed included).
fn make_batches(
    pending: Vec<Pending>,
    agent: AgentEntry,
    units: &[Unit],
    options: &RunnerOptions,
    jobs: usize,
) -> Vec<Batch> {
    let max = |batching: &Batching| match options.batch_size {
        0 => batching.default_size,
        n => n,
    };
    let Some(batching) = agent.batching.filter(|b| max(b) > 1) else {
        let plain = |p| Batch {
            lockstep: None,
            members: vec![p],
        };
        return pending.into_iter().map(plain).collect();
    };
    // Ids of one key, longest first, so that a batch's replicas finish at about the same
    // time; the key is the agent's, computed from the specs.
    let mut keyed: Vec<(u64, f64, Pending)> = pending
        .into_iter()
        .map(|p| {
            let unit = &units[p.unit];
            let (key, cost) = match p.id.load() {
                Ok(env) => (
                    (batching.key)(&agent_setup(p.id, &*env, &unit.config, unit.options)),
                    estimated_cost(&agent, p.id, &*env, p.run.num_episodes),
                ),
                Err(_) => (u64::MAX, 0.0),
            };
            (key, cost, p)
        })
        .collect();
    keyed.sort_by(|a, b| {
        (a.0.cmp(&b.0))
            .then(b.1.total_cmp(&a.1))
            .then(a.2.position.cmp(&b.2.position))
            .then(a.2.unit.cmp(&b.2.unit))
    });
    let mut batches: Vec<(f64, Batch)> = Vec::new();
    for members in keyed.chunk_by(|a, b| a.0 == b.0) {
        // Small selections still spread over every worker.
        let size = max(&batching).min(members.len().div_ceil(jobs)).max(1);
        for chunk in members.chunks(size) {
            let cost = chunk.iter().map(|k| k.1).fold(0.0, f64::max) * chunk.len() as f64;
            let batch = Batch {
                lockstep: Some(batching),
                members: chunk.iter().map(|k| k.2.clone()).collect(),
            };
            batches.push((cost, batch));
        }
    }
    batches.sort_by(|a, b| b.0.total_cmp(&a.0));
    batches.into_iter().map(|(_, batch)| batch).collect()
}

/// A rough cost of running `id` for `episodes` episodes, only to order batches: the
/// expected agent steps, weighted by observation size.
fn estimated_cost(agent: &AgentEntry, id: BsuiteId, env: &dyn Environment, episodes: usize) -> f64 {
    let observation = env.observation_spec().shape.iter().product::<usize>() as f64;
    agent.expected_agent_steps(id, episodes) * (1.0 + observation / 400.0)
}

/// What an agent of `id` is built from: the environment's specs, the run's seed,
/// configuration and device.
pub(crate) fn agent_setup(
    id: BsuiteId,
    env: &dyn Environment,
    config: &AgentConfig,
    options: &RunnerOptions,
) -> AgentSetup {
    AgentSetup {
        id,
        observation_spec: env.observation_spec(),
        action_spec: env.action_spec(),
        seed: options.seed,
        config: config.clone(),
        device: options.device,
    }
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

type LoggedEnv = Logging<Box<dyn Environment>, CsvLogger>;

/// Runs one batch: one id on its own through the plain run loop (agents without
/// batching), or every id as a replica of one lockstep batch.
fn run_batch(
    batch: &Batch,
    agent: AgentEntry,
    units: &[Unit],
    progress: &Progress,
    report: &(dyn Fn(usize, usize, IdReport) + Sync),
) {
    let start = Instant::now();
    let fail = |p: &Pending, message: String| {
        report(
            p.unit,
            p.position,
            IdReport {
                id: p.id,
                outcome: Outcome::Failed(message),
            },
        )
    };
    // Environments and loggers first; an id that cannot start fails alone.
    let mut members = Vec::with_capacity(batch.members.len());
    for p in &batch.members {
        let unit = &units[p.unit];
        match open(p, &unit.config, unit.options) {
            Ok((env, setup)) => members.push((p.clone(), env, setup)),
            Err(error) => fail(p, error.to_string()),
        }
    }
    if members.is_empty() {
        return;
    }
    progress
        .ids_running
        .fetch_add(members.len(), Ordering::Relaxed);
    let pendings: Vec<Pending> = members.iter().map(|m| m.0.clone()).collect();
    let finished = Mutex::new(vec![false; members.len()]);
    let ran = |i: usize, mut env: LoggedEnv, end: ReplicaEnd| {
        finished.lock().unwrap_or_else(|e| e.into_inner())[i] = true;
        progress.ids_running.fetch_sub(1, Ordering::Relaxed);
        let p = &pendings[i];
        let result = match end.error {
            Some(error) => Err(error.to_string()),
            None => env.finish().map_err(|e| e.to_string()),
        };
        let outcome = match result {
            Ok(()) => Outcome::Ran {
                episodes: end.episodes,
                steps: end.steps,
                elapsed: start.elapsed(),
                replaced: p.run.replaced.clone(),
            },
            Err(message) => Outcome::Failed(message),
        };
        report(p.unit, p.position, IdReport { id: p.id, outcome });
    };
    let after_episode = |env: &mut LoggedEnv, steps: usize| {
        progress.steps.fetch_add(steps as u64, Ordering::Relaxed);
        progress.episodes.fetch_add(1, Ordering::Relaxed);
        if env.error().is_some() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| match batch.lockstep {
        Some(batching) => {
            let setups: Vec<AgentSetup> = members.iter().map(|m| m.2.clone()).collect();
            let episodes: Vec<usize> = pendings.iter().map(|p| p.run.num_episodes).collect();
            let envs: Vec<LoggedEnv> = members.into_iter().map(|m| m.1).collect();
            let mut agent = (batching.make)(&setups);
            run_lockstep(
                &mut *agent,
                envs,
                &episodes,
                |_, env, end| after_episode(env, end.steps),
                ran,
            );
        }
        _ => {
            for (i, (p, mut env, setup)) in members.into_iter().enumerate() {
                let mut agent = (agent.make)(&setup);
                let mut steps = 0u64;
                let result = run_with(&mut *agent, &mut env, p.run.num_episodes, |env, end| {
                    steps += end.steps as u64;
                    after_episode(env, end.steps)
                });
                let (episodes, error) = match result {
                    Ok(episodes) => (episodes, None),
                    Err(error) => (0, Some(error)),
                };
                ran(
                    i,
                    env,
                    ReplicaEnd {
                        episodes,
                        steps,
                        error,
                    },
                );
            }
        }
    }));
    if let Err(panic) = outcome {
        let message = format!("panicked: {}", panic_message(&panic));
        let finished = finished.lock().unwrap_or_else(|e| e.into_inner());
        for (p, done) in pendings.iter().zip(finished.iter()) {
            if !done {
                progress.ids_running.fetch_sub(1, Ordering::Relaxed);
                fail(p, message.clone());
            }
        }
    }
}

/// The logged environment and agent setup of an id about to run.
fn open(
    p: &Pending,
    config: &AgentConfig,
    options: &RunnerOptions,
) -> Result<(LoggedEnv, AgentSetup), StartError> {
    let env = p.id.load().map_err(|error| StartError::Load { error })?;
    let setup = agent_setup(p.id, &*env, config, options);
    let mut logger = CsvLogger::create(&p.id, &options.results_dir, p.run.overwrite)
        .map_err(|error| StartError::Log { error })?;
    // A resume trusts what it finds after a crash too: each rewrite is on the disk before
    // it replaces the file, and the directory is synced when the id ends, before an
    // unfinished overwrite marks the file as this run's.
    logger.set_sync(true);
    Ok((
        Logging::new(env, logger).final_episode(p.run.num_episodes),
        setup,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bsuite_logging::csv_logging::{temp_path, writer_temp_path};

    /// Finding 5 of issue 30: under Slurm's `task/none` a 1-CPU task saw the machine's 2
    /// cores and ran 2 jobs. The task's CPUs bound the default.
    #[test]
    fn jobs_default_to_the_tasks_cpus() {
        assert_eq!(cpus_within(2, Some("1")), 1);
        assert_eq!(cpus_within(16, Some("8")), 8);
        assert_eq!(
            cpus_within(4, Some("8")),
            4,
            "the affinity mask bounds it too"
        );
        assert_eq!(cpus_within(4, None), 4);
        assert_eq!(cpus_within(4, Some("x")), 4);
        assert_eq!(cpus_within(4, Some("0")), 4);
        // The affinity mask, as the standard library reads it, is the other bound.
        let mask = std::thread::available_parallelism().unwrap().get();
        assert!(usable_cpus() <= mask);
    }

    /// `--lock none` (issue 30 finding 7): a run on a filesystem that refuses `flock`
    /// takes no lock at all, and still writes its manifest and results.
    #[test]
    fn an_unlocked_run_takes_no_lock() {
        let dir =
            std::env::temp_dir().join(format!("bsuite-runner-unlocked-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let options = RunnerOptions {
            results_dir: dir.clone(),
            num_episodes: Some(3),
            lock: Locking::Unlocked,
            ..RunnerOptions::default()
        };
        let ids: Vec<BsuiteId> = vec!["bandit/0".parse().unwrap()];
        let agent = crate::factory::agent("random").unwrap();
        let reports = run_ids(&ids, agent, &options, &Progress::default(), &|_| ()).unwrap();
        assert!(matches!(
            reports[0].outcome,
            Outcome::Ran { episodes: 3, .. }
        ));
        let mut names: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["bsuite_id_-_bandit-0.csv", "bsuite_run.json"]);
        fs::remove_dir_all(&dir).unwrap();
    }

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

    /// A results file is trusted only when the strict reader accepts it whole: a damaged
    /// one is set aside (never deleted, never overwritten) and its id rerun from the
    /// start; a well-formed short one is rerun; a complete one is skipped.
    #[test]
    fn damaged_files_are_set_aside_and_rerun() {
        let dir = std::env::temp_dir().join(format!("bsuite-runner-plan-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let options = RunnerOptions {
            results_dir: dir.clone(),
            num_episodes: Some(2),
            ..RunnerOptions::default()
        };
        let id: BsuiteId = "bandit/0".parse().unwrap();
        let path = dir.join(file_name(&id));
        let header = "steps,episode,total_return,episode_len,episode_return,total_regret\n";
        let complete = format!("{header}1,1,1.0,1,1.0,0.0\n2,2,2.0,1,1.0,0.0\n");
        fs::write(&path, &complete).unwrap();
        // The shared name of older versions, and a killed writer's own.
        let stale = [temp_path(&path), writer_temp_path(&path)];
        for temp in &stale {
            fs::write(temp, "a rewrite cut short").unwrap();
        }
        assert!(matches!(plan(id, &options, false), Ok(Plan::Skip(_))));
        for temp in &stale {
            assert!(!temp.exists(), "a stale temporary file is removed");
        }
        fs::write(&path, format!("{header}1,1,1.0,1,1.0,0.0\n")).unwrap();
        assert!(matches!(
            plan(id, &options, false),
            Ok(Plan::Run(RunPlan {
                replaced: Some(Replaced::Partial),
                overwrite: true,
                ..
            }))
        ));
        for (n, damaged) in [
            format!("{header}1,1,1.0,1,1.0,0.0\n2,2,nan,1,1.0,0.0\n"),
            format!("{header}1,1,1.0,1,1.0,0.0\n2,2,2.0,1\n"),
        ]
        .into_iter()
        .enumerate()
        {
            fs::write(&path, &damaged).unwrap();
            let Ok(Plan::Run(run)) = plan(id, &options, false) else {
                panic!("a damaged file is rerun");
            };
            let Some(Replaced::Damaged { kept_as, problem }) = run.replaced else {
                panic!("a damaged file is reported");
            };
            let suffix = if n == 0 {
                String::new()
            } else {
                format!(".{n}")
            };
            assert_eq!(
                kept_as,
                path.with_file_name(format!("{}.corrupt{suffix}", file_name(&id)))
            );
            assert_eq!(fs::read_to_string(&kept_as).unwrap(), damaged);
            assert!(problem.contains(".csv:3:"), "{problem}");
            assert!(!path.exists() && run.overwrite);
        }
        fs::remove_dir_all(&dir).unwrap();
    }
}
