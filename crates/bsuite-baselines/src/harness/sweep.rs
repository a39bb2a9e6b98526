//! A sweep from the command line: the options `bsuite run` (and `cargo xtask bench-all`,
//! its alias) and `bsuite-run` share, the progress display, and the closing summary.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use bsuite_envs::{BsuiteId, IdError, LoadError};

use bsuite_logging::dir_lock::Locking;

use crate::config::{AgentConfig, ConfigError};
use crate::factory::{AgentEntry, ComputeDevice};
use crate::runner::{
    self, AutoShardError, IdReport, Outcome, Progress, Replaced, RunError, RunnerOptions, Shard,
    ShardArg,
};

/// The options of a sweep, as `bsuite run` and `bsuite-run` take them.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct SweepArgs {
    /// The agent: random, dqn, boot_dqn, actor_critic, actor_critic_rnn, or
    /// actor_critic_rnn_reset (actor_critic_rnn with the training state reset at episode
    /// ends; not bsuite's agent).
    pub agent: String,
    /// What to run: bsuite_ids (catch/0), experiments (catch), tags (memory), SWEEP or
    /// TESTING. Default: SWEEP (all 468 ids).
    #[cfg_attr(
        feature = "cli",
        arg(long, num_args = 1.., value_name = "ID|EXPERIMENT|TAG|SWEEP|TESTING")
    )]
    pub ids: Vec<String>,
    /// Results directory (default: `results/<name>`).
    #[cfg_attr(feature = "cli", arg(long, value_name = "DIR"))]
    pub results: Option<PathBuf>,
    /// The run's name: its results go to `results/<name>/` and scores and reports call the
    /// agent by it (default: the agent's name).
    #[cfg_attr(feature = "cli", arg(long, value_name = "NAME"))]
    pub name: Option<String>,
    /// Set a hyperparameter, KEY=VALUE (repeatable; `bsuite agents` lists each
    /// agent's keys). Applied after --config-file.
    #[cfg_attr(feature = "cli", arg(long = "config", value_name = "KEY=VALUE"))]
    pub config: Vec<String>,
    /// Hyperparameters from a TOML file of `key = value` lines.
    #[cfg_attr(feature = "cli", arg(long, value_name = "FILE.toml"))]
    pub config_file: Option<PathBuf>,
    /// Batches of ids run at once (default: one per CPU the process may use: its affinity
    /// mask, its cgroup's cpu.max, SLURM_CPUS_PER_TASK).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 0))]
    pub jobs: usize,
    /// Re-run ids whose results file is already complete, replacing it.
    #[cfg_attr(feature = "cli", arg(long))]
    pub overwrite: bool,
    /// The agent seed, the same for every id (default: the configuration's `seed`, 42).
    #[cfg_attr(feature = "cli", arg(long))]
    pub seed: Option<u32>,
    /// Run several seeds: K seeds from the base seed (`--seed`, default the
    /// configuration's), or the half-open range A..B. Each seed's results go to
    /// `<results>/seed-<s>/` with its own manifest, and resume as a single run does.
    #[cfg_attr(feature = "cli", arg(long, value_name = "K|A..B"))]
    pub seeds: Option<Seeds>,
    /// Episodes per id instead of the reference's counts (at least 1).
    #[cfg_attr(feature = "cli", arg(long, value_name = "N", value_parser = positive))]
    pub num_episodes: Option<usize>,
    /// Run only shard I of N (0-based) of the selected ids, e.g. 0/4, to split a sweep over
    /// machines (shards of one split may share a directory; `bsuite merge` gathers
    /// separate ones). `auto`: the shard of this Slurm array task (`SLURM_ARRAY_TASK_*`)
    /// or Kubernetes Indexed Job pod (`JOB_COMPLETION_INDEX`, with --shards).
    #[cfg_attr(feature = "cli", arg(long, value_name = "I/N|auto"))]
    pub shard: Option<ShardArg>,
    /// `flock` (default) keeps a second writer out of the results directory; `none` takes
    /// no lock, for a filesystem that refuses flock, where you are sure to be the
    /// directory's only writer (one directory per task, gathered by `bsuite merge`).
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value = "flock", value_name = "flock|none")
    )]
    pub lock: Locking,
    /// With `--shard auto`: the number of shards; the array task id (or completion index)
    /// is then the shard number, 0 to N-1.
    #[cfg_attr(feature = "cli", arg(long, value_name = "N"))]
    pub shards: Option<usize>,
    /// Most ids per lockstep batch for agents that batch; 1 runs ids one by one. Results
    /// are the same either way. Default: the agent's own (32 for dqn and actor_critic, 1
    /// for boot_dqn and actor_critic_rnn, whose batches gain nothing or outgrow the
    /// caches).
    #[cfg_attr(feature = "cli", arg(long, default_value_t = 0, value_name = "N"))]
    pub batch_size: usize,
    /// Print one line per finished id instead of a progress bar (the default when standard
    /// error is not a terminal).
    #[cfg_attr(feature = "cli", arg(long))]
    pub plain: bool,
    /// Do not print the bsuite scores of the results directory at the end.
    #[cfg_attr(feature = "cli", arg(long))]
    pub no_score: bool,
    /// Run nothing: project the sweep's agent steps, CPU and wall time and peak memory on
    /// this machine from a short calibration of the agent on each selected experiment
    /// (with `--jobs N` for a machine with N cores); of a sweep being resumed, only the ids
    /// it has left.
    #[cfg_attr(feature = "cli", arg(long))]
    pub estimate: bool,
    /// Where the LibTorch agents compute: cpu, cuda or cuda:N (cuda needs an NVIDIA GPU);
    /// the other agents run on the CPU and refuse cuda.
    #[cfg_attr(
        feature = "cli",
        arg(long, default_value = "cpu", value_parser = clap::value_parser!(ComputeDevice))
    )]
    pub device: ComputeDevice,
}

/// `--seeds`: how many seeds from the base seed, or an explicit half-open range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seeds {
    /// K seeds from the base seed.
    Count(u32),
    /// Seeds A..B.
    Range(u32, u32),
}

impl std::str::FromStr for Seeds {
    type Err = String;

    /// `K` (at least 1) or `A..B` (A < B).
    fn from_str(text: &str) -> Result<Seeds, String> {
        let number = |t: &str| {
            t.trim()
                .parse::<u32>()
                .map_err(|_| format!("'{text}' is not K or A..B (e.g. 5 or 0..5)"))
        };
        match text.split_once("..") {
            Some((a, b)) => {
                let (a, b) = (number(a)?, number(b)?);
                if a >= b {
                    return Err(format!(
                        "the range {a}..{b} holds no seed (A..B needs A < B)"
                    ));
                }
                Ok(Seeds::Range(a, b))
            }
            None => match number(text)? {
                0 => Err("0 seeds is no run; give at least 1".to_string()),
                k => Ok(Seeds::Count(k)),
            },
        }
    }
}

impl std::fmt::Display for Seeds {
    /// As `--seeds` takes it: `K` or `A..B`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Seeds::Count(k) => write!(f, "{k}"),
            Seeds::Range(a, b) => write!(f, "{a}..{b}"),
        }
    }
}

impl Seeds {
    /// The seeds, counting from `base` for [`Seeds::Count`]; `None` past `u32::MAX`.
    pub fn resolve(self, base: u32) -> Option<std::ops::Range<u32>> {
        match self {
            Seeds::Count(k) => Some(base..base.checked_add(k)?),
            Seeds::Range(a, b) => Some(a..b),
        }
    }
}

/// A run or variant name that cannot be a directory of its own under `results/`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "'{name}' cannot name a directory of its own: a name is letters, digits, '_', '-' and \
     '.', and does not start with '.' (so not '', '.' or '..', and no '/')"
)]
pub struct NameError {
    /// The name given.
    pub name: String,
}

/// Checks that `name` names a directory of its own: `results/<name>/` is neither
/// `results/` itself nor outside it.
///
/// ```
/// use bsuite_baselines::sweep::check_name;
///
/// assert!(check_name("dqn_sgd-1e-2").is_ok());
/// for bad in ["", ".", "..", "../x", "a/b", ".hidden"] {
///     assert!(check_name(bad).is_err(), "{bad}");
/// }
/// ```
pub fn check_name(name: &str) -> Result<(), NameError> {
    let usable = !name.is_empty()
        && !name.starts_with('.')
        && (name.chars()).all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    match usable {
        true => Ok(()),
        false => Err(NameError {
            name: name.to_string(),
        }),
    }
}

/// A count of at least 1, for the command line.
///
/// ```
/// use bsuite_baselines::sweep::{positive, ParseCountError};
///
/// assert_eq!(positive("3"), Ok(3));
/// assert_eq!(positive("0"), Err(ParseCountError::Zero));
/// assert_eq!(positive("0").unwrap_err().to_string(), "must be at least 1");
/// assert!(positive("-1").is_err());
/// ```
pub fn positive(text: &str) -> Result<usize, ParseCountError> {
    match text.parse::<usize>() {
        Ok(0) => Err(ParseCountError::Zero),
        Ok(n) => Ok(n),
        Err(error) => Err(ParseCountError::NotANumber { error }),
    }
}

/// A count ([`positive`]) that is not a whole number of at least 1.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseCountError {
    /// The count is 0.
    #[error("must be at least 1")]
    Zero,
    /// The text is not a whole number.
    #[error("{error}")]
    NotANumber {
        /// Why.
        error: std::num::ParseIntError,
    },
}

/// Why a sweep ([`run_sweep`]) failed. Each message is whole: the underlying error is part of
/// it, not a separate source.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    /// `--seeds` that cannot run.
    #[error("--seeds: {reason}")]
    Seeds {
        /// Why.
        reason: String,
    },
    /// A results directory laid out for the other kind of run (one seed or several).
    #[error("{}: {reason}", .dir.display())]
    Layout {
        /// The results directory.
        dir: PathBuf,
        /// Why.
        reason: String,
    },
    /// A selector names no ids.
    #[error("{error}")]
    Ids {
        /// Why.
        error: IdError,
    },
    /// The calibration of `--estimate` could not load an environment.
    #[error("{error}")]
    Estimate {
        /// Why.
        error: LoadError,
    },
    /// A `--config KEY=VALUE` does not fit the agent.
    #[error("--config {error}")]
    Config {
        /// Why.
        error: ConfigError,
    },
    /// The config file could not be read, or one of its entries does not fit the agent.
    #[error("config file {}: {error}", .path.display())]
    ConfigFile {
        /// The file.
        path: PathBuf,
        /// Why.
        error: String,
    },
    /// `--seed` and `--config seed=` disagree.
    #[error("--seed {flag} and --config seed={config} disagree; give the seed once")]
    TwoSeeds {
        /// `--seed`.
        flag: u32,
        /// `--config seed=`.
        config: u32,
    },
    /// The sweep could not run at all.
    #[error("{error}")]
    Run {
        /// Why.
        error: RunError,
    },
    /// `--name` cannot name a directory of its own under `results/`.
    #[error("--name {error}")]
    Name {
        /// Why.
        error: NameError,
    },
    /// `--shard auto` cannot tell which shard this is.
    #[error("{error}")]
    Shard {
        /// Why.
        error: AutoShardError,
    },
    /// `--device` names an accelerator for an agent that runs on the CPU only.
    #[error(
        "{agent} runs on the CPU only; --device {device} is for the LibTorch agents ({})",
        crate::factory::LIBTORCH_AGENTS.join(", ")
    )]
    Device {
        /// The agent.
        agent: &'static str,
        /// The device asked for.
        device: ComputeDevice,
    },
    /// The sweep ran, but some ids failed (each one's report says why); the other ids'
    /// results are kept.
    #[error(
        "{} id(s) failed: {}; the other ids' results are kept, and re-running resumes",
        .ids.len(),
        .ids.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
    )]
    Failed {
        /// The ids that failed, in the order they were selected.
        ids: Vec<BsuiteId>,
    },
    /// A multi-seed sweep ran, but some (seed, id) pairs failed (each one's report says
    /// why); the other pairs' results are kept.
    #[error(
        "{} (seed, id) pair(s) failed: {}; the other results are kept, and re-running resumes",
        .failed.len(),
        .failed.iter().map(|(seed, id)| format!("{id} (seed {seed})")).collect::<Vec<_>>().join(", ")
    )]
    SeedsFailed {
        /// The seed and id of each failed pair, seed by seed, each seed's in the order the
        /// ids were selected.
        failed: Vec<(u32, BsuiteId)>,
    },
}

impl SweepArgs {
    /// The results directory: `--results`, else `results/<name>` (`--name`, else the
    /// agent's name).
    pub fn results_dir(&self) -> PathBuf {
        let name = self.name.as_deref().unwrap_or(&self.agent);
        self.results
            .clone()
            .unwrap_or_else(|| PathBuf::from("results").join(name))
    }

    /// The agent's configuration: its defaults, then `--config-file`, then each
    /// `--config`, then `--seed`.
    pub fn agent_config(&self, agent: AgentEntry) -> Result<AgentConfig, SweepError> {
        self.configure(AgentConfig::new(agent.name, agent.keys))
    }

    /// Checks `--name`, `--device`, `--config`, `--config-file` and `--seed` against the agent where this
    /// crate knows them (every agent of [`crate::factory::all_keys`]), so that a tool that hands
    /// the sweep to another binary can refuse a bad configuration first.
    pub fn check_config(&self) -> Result<(), SweepError> {
        self.check_name()?;
        self.check_device(&self.agent)?;
        match AgentConfig::defaults(&self.agent) {
            Ok(defaults) => self.configure(defaults).map(|_| ()),
            Err(_) => Ok(()),
        }
    }

    fn configure(&self, mut config: AgentConfig) -> Result<AgentConfig, SweepError> {
        let bad = |error| SweepError::Config { error };
        if let Some(path) = &self.config_file {
            for pair in config_file_pairs(path)? {
                config
                    .set_pair(&pair)
                    .map_err(|error| SweepError::ConfigFile {
                        path: path.clone(),
                        error: error.to_string(),
                    })?;
            }
        }
        for pair in &self.config {
            config.set_pair(pair).map_err(bad)?;
        }
        if let Some(seed) = self.seed {
            if config.has("seed") {
                let given = self
                    .config
                    .iter()
                    .any(|p| p.trim_start().starts_with("seed="));
                if given && config.seed() != seed {
                    return Err(SweepError::TwoSeeds {
                        flag: seed,
                        config: config.seed(),
                    });
                }
                config.set("seed", &seed.to_string()).map_err(bad)?;
            }
        }
        Ok(config)
    }

    /// `--device` is the CPU for an agent without a LibTorch engine.
    fn check_device(&self, agent: &str) -> Result<(), SweepError> {
        let on_cpu_only = !crate::factory::LIBTORCH_AGENTS.contains(&agent);
        match crate::factory::agent(agent) {
            Ok(entry) if on_cpu_only && self.device != ComputeDevice::Cpu => {
                Err(SweepError::Device {
                    agent: entry.name,
                    device: self.device,
                })
            }
            _ => Ok(()),
        }
    }

    /// `--name`, where given, names a directory of its own ([`check_name`]).
    pub fn check_name(&self) -> Result<(), SweepError> {
        match &self.name {
            Some(name) => check_name(name).map_err(|error| SweepError::Name { error }),
            None => Ok(()),
        }
    }

    /// The runner options these arguments ask for `agent`.
    pub fn runner_options(&self, agent: AgentEntry) -> Result<RunnerOptions, SweepError> {
        self.check_name()?;
        self.check_device(agent.name)?;
        let config = self.agent_config(agent)?;
        let seed = match (self.seed, config.has("seed")) {
            (_, true) => config.seed(),
            (Some(seed), false) => seed,
            (None, false) => RunnerOptions::default().seed,
        };
        Ok(RunnerOptions {
            results_dir: self.results_dir(),
            jobs: self.jobs,
            overwrite: self.overwrite,
            seed,
            num_episodes: self.num_episodes,
            batch_size: self.batch_size,
            shard: self.shard()?,
            device: self.device,
            config: Some(config),
            lock: self.lock,
        })
    }

    /// The shard this process runs, if any: `--shard I/N`, or `--shard auto` read from the
    /// cluster's environment ([`ShardArg::resolve`]).
    pub fn shard(&self) -> Result<Option<Shard>, SweepError> {
        let resolve = |arg: ShardArg| arg.resolve(self.shards, |name| std::env::var(name).ok());
        match (self.shard, self.shards) {
            (None, None) => Ok(None),
            (None, Some(shards)) => Err(AutoShardError::ShardsWithoutAuto { shards }),
            (Some(arg), _) => resolve(arg).map(Some),
        }
        .map_err(|error| SweepError::Shard { error })
    }

    /// The ids to run: the selectors resolved, then this shard of them.
    pub fn ids(&self) -> Result<Vec<BsuiteId>, SweepError> {
        let ids = select_ids(&self.ids).map_err(|error| SweepError::Ids { error })?;
        Ok(match self.shard()? {
            Some(shard) => shard.select(&ids),
            None => ids,
        })
    }
}

/// The `key = value` entries of a TOML config file, as `KEY=VALUE` text: numbers, booleans
/// and strings as written, arrays of widths as `64,64`.
#[cfg(feature = "cli")]
fn config_file_pairs(path: &Path) -> Result<Vec<String>, SweepError> {
    let bad = |error: String| SweepError::ConfigFile {
        path: path.to_path_buf(),
        error,
    };
    let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| bad(e.to_string()))?;
    table
        .iter()
        .map(|(key, value)| {
            let text = toml_text(value).map_err(|error| bad(format!("{key}: {error}")))?;
            Ok(format!("{key}={text}"))
        })
        .collect()
}

/// A TOML value as `--config` text: numbers, names and flags as written, arrays joined with
/// commas (`[64, 64]` is `64,64`); tables and dates are errors.
#[cfg(feature = "cli")]
pub fn toml_text(value: &toml::Value) -> Result<String, String> {
    Ok(match value {
        toml::Value::String(s) => s.clone(),
        toml::Value::Integer(n) => n.to_string(),
        toml::Value::Float(x) => x.to_string(),
        toml::Value::Boolean(b) => b.to_string(),
        toml::Value::Array(items) => items
            .iter()
            .map(toml_text)
            .collect::<Result<Vec<_>, _>>()?
            .join(","),
        other => {
            return Err(format!(
                "{} is not a number, name, flag or list",
                other.type_str()
            ))
        }
    })
}

#[cfg(not(feature = "cli"))]
fn config_file_pairs(path: &Path) -> Result<Vec<String>, SweepError> {
    Err(SweepError::ConfigFile {
        path: path.to_path_buf(),
        error: "config files need bsuite-baselines' `cli` feature".into(),
    })
}

/// Resolves selectors (ids, experiments, tags, `SWEEP`, `TESTING`) to ids in sweep order
/// without duplicates; no selectors means all 468 ids.
///
/// ```
/// let ids = bsuite_baselines::sweep::select_ids(&["catch/3".into(), "bandit".into()]).unwrap();
/// assert_eq!(ids.len(), 21);
/// assert_eq!(ids[0].to_string(), "bandit/0");
/// ```
pub fn select_ids(selectors: &[String]) -> Result<Vec<BsuiteId>, IdError> {
    let mut ids = Vec::new();
    if selectors.is_empty() {
        ids.extend(bsuite_envs::sweep());
    }
    for selector in selectors {
        ids.extend(bsuite_envs::select(selector)?);
    }
    ids.sort();
    ids.dedup();
    Ok(ids)
}

/// Runs a sweep of `agent` as `args` say, showing progress on standard error (a live bar
/// on a terminal, else one line per finished id on standard output), then a summary line.
/// `name` prefixes the messages. Fails, after the summary, when any id failed; the other
/// ids' results are kept.
pub fn run_sweep(
    name: &str,
    agent: AgentEntry,
    args: &SweepArgs,
) -> Result<Vec<IdReport>, SweepError> {
    if let Some(seeds) = args.seeds {
        return run_seeds(name, agent, args, seeds);
    }
    let ids = args.ids()?;
    let options = args.runner_options(agent)?;
    if !args.estimate {
        check_layout(&options.results_dir, false)?;
    }
    if args.estimate {
        let pending = runner::pending_ids(&ids, agent, &options)
            .map_err(|error| SweepError::Run { error })?;
        let done = ids.len() - pending.len();
        if done > 0 {
            crate::errln!(
                "{name}: {done} of the {} ids are already complete in {}; the projection \
                 is of the other {}",
                ids.len(),
                options.results_dir.display(),
                pending.len()
            );
        }
        if pending.is_empty() {
            return Ok(Vec::new());
        }
        announce_calibration(name, agent, &pending);
        let estimate = crate::estimate::estimate(agent, &pending, &options)
            .map_err(|error| SweepError::Estimate { error })?;
        crate::estimate::print(agent.name, &estimate);
        return Ok(Vec::new());
    }
    let plain = args.plain || !std::io::stderr().is_terminal();
    let mut notes = vec![format!("seed {}", options.seed)];
    let changed = options.config.as_ref().map(AgentConfig::changed);
    notes.extend(changed.filter(|c| !c.is_empty()));
    if args.device != ComputeDevice::Cpu {
        notes.push(format!("device {}", args.device));
    }
    if let Some(shard) = options.shard {
        notes.push(format!("shard {shard}"));
    }
    crate::errln!(
        "{name}: {} on {} ids into {} ({})",
        agent.name,
        ids.len(),
        options.results_dir.display(),
        notes.join(", ")
    );
    if options.lock == Locking::Unlocked {
        crate::errln!(
            "{name}: WARNING: --lock none: {} is not locked. You are the only writer: a \
             second run or shard writing there now would mix or replace results unseen",
            options.results_dir.display()
        );
    }
    let progress = Progress::default();
    let start = Instant::now();
    let display = Display::new(ids.len(), plain, "ids");
    let reports = std::thread::scope(|scope| {
        let ticker = (!plain).then(|| scope.spawn(|| display.tick_until_done(&progress, start)));
        let reports = runner::run_ids(&ids, agent, &options, &progress, &|report| {
            display.finished(report)
        });
        display.close();
        if let Some(ticker) = ticker {
            let _ = ticker.join();
        }
        reports
    })
    .map_err(|error| SweepError::Run { error })?;
    summarise(name, &reports, start.elapsed(), &options.results_dir)?;
    Ok(reports)
}

/// Says what `--estimate` is about to time, before the calibration runs.
fn announce_calibration(name: &str, agent: AgentEntry, ids: &[BsuiteId]) {
    crate::errln!(
        "{name}: calibrating {} on {} experiments (nothing is written)...",
        agent.name,
        ids.chunk_by(|a, b| a.experiment().name == b.experiment().name)
            .count()
    );
}

/// Refuses a results directory laid out for the other kind of run
/// ([`bsuite_logging::results::check_layout`]), saying how to run into it instead.
fn check_layout(dir: &Path, multi_seed: bool) -> Result<(), SweepError> {
    use bsuite_logging::results::{Layout, LayoutError};
    let layout = if multi_seed {
        Layout::Seeds
    } else {
        Layout::OneSeed
    };
    let reason = match bsuite_logging::results::check_layout(dir, layout) {
        Ok(()) => return Ok(()),
        Err(LayoutError::HoldsOneSeed { file, .. }) => format!(
            "holds the files of a single-seed run ({file}), and --seeds writes one \
             seed-<s>/ directory per seed beside nothing else: move those files into \
             seed-<s>/ for the seed their manifest names, or choose another --results"
        ),
        Err(LayoutError::HoldsSeeds { seed_dir, .. }) => format!(
            "holds seed directories ({seed_dir}) of a multi-seed run: run it with \
             --seeds, or one seed with --results {}",
            dir.join(&seed_dir).display()
        ),
    };
    Err(SweepError::Layout {
        dir: dir.to_path_buf(),
        reason,
    })
}

/// Refuses a pool of `seeds` seeds that would run out of file descriptors, before any
/// directory is made: each seed's directory holds its lock files open for the whole run
/// (two for a shard), beside the files the workers write. The soft limit is raised to the
/// hard one first where that is enough.
fn check_open_files(seeds: usize, run: &RunnerOptions) -> Result<(), SweepError> {
    let per_seed = if run.shard.is_some() { 2 } else { 1 };
    // Loggers, temporary files, a provenance lock, the standard streams and the libraries'.
    let needed = seeds * per_seed + 4 * run.effective_jobs() + 64;
    #[cfg(unix)]
    {
        let needed = needed as libc::rlim_t;
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit and setrlimit only read and write the struct passed.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
                return Ok(());
            }
            if limit.rlim_cur < needed && limit.rlim_max >= needed {
                let raised = libc::rlimit {
                    rlim_cur: limit.rlim_max,
                    rlim_max: limit.rlim_max,
                };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                    limit = raised;
                }
            }
        }
        if limit.rlim_cur < needed {
            return Err(SweepError::Seeds {
                reason: format!(
                    "{seeds} seeds hold {} lock files open at once, and with the workers' \
                     files need about {needed} open files, but this process may open {} \
                     (ulimit -n): raise the limit (ulimit -n {needed}), or run the seeds in \
                     smaller ranges (--seeds A..B) one after another",
                    seeds * per_seed,
                    limit.rlim_cur
                ),
            });
        }
    }
    let _ = needed;
    Ok(())
}

/// Runs `--seeds`: the (seed, id) pairs of every seed as one pool of `--jobs` workers
/// ([`runner::run_pool`]), each seed into `<results>/seed-<s>/` with its own manifest, lock
/// and resume, then a line per seed and one for them all. Fails after the pool ran when any
/// pair failed.
///
/// A shard (`--shard I/N`) holds ids with all their seeds, not (seed, id) pairs: every
/// seed's directory then holds the same shard of the same split, so its manifest's
/// `shards` and `bsuite merge` see a seed directory exactly as a single-seed run's,
/// and the shards of one seed directory are the shards of every other.
fn run_seeds(
    name: &str,
    agent: AgentEntry,
    args: &SweepArgs,
    seeds: Seeds,
) -> Result<Vec<IdReport>, SweepError> {
    if args
        .config
        .iter()
        .any(|c| c.trim_start().starts_with("seed="))
    {
        return Err(SweepError::Seeds {
            reason: "give the base seed with --seed, not --config seed=".to_string(),
        });
    }
    if let (Seeds::Range(..), Some(seed)) = (seeds, args.seed) {
        return Err(SweepError::Seeds {
            reason: format!(
                "{seeds} names its seeds, so --seed {seed} would do nothing: drop --seed, or \
                 give a count (--seeds K) to run K seeds from it"
            ),
        });
    }
    let base = args.runner_options(agent)?.seed;
    let range = seeds.resolve(base).ok_or_else(|| SweepError::Seeds {
        reason: format!(
            "{seeds} seeds from seed {base} run past the largest seed, {}",
            u32::MAX
        ),
    })?;
    let dir = args.results_dir();
    let seeds: Vec<u32> = range.clone().collect();
    let runs = (seeds.iter())
        .map(|&seed| {
            let one = SweepArgs {
                seeds: None,
                seed: Some(seed),
                results: Some(bsuite_logging::results::seed_dir(&dir, seed)),
                ..args.clone()
            };
            one.runner_options(agent)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let ids = args.ids()?;
    let pairs = ids.len() * seeds.len();
    if args.estimate {
        let pending = (runs.iter())
            .map(|run| runner::pending_ids(&ids, agent, run))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| SweepError::Run { error })?;
        let left: usize = pending.iter().map(Vec::len).sum();
        if left < pairs {
            crate::errln!(
                "{name}: {} of the {pairs} (seed, id) pairs are already complete in {}; the \
                 projection is of the other {left}",
                pairs - left,
                dir.display()
            );
        }
        // Every pending id's experiment is calibrated once: seeds differ in their draws,
        // not in their cost, so one seed's calibration prices every seed's share.
        let mut calibrated: Vec<BsuiteId> = pending.iter().flatten().copied().collect();
        calibrated.sort();
        calibrated.dedup();
        if calibrated.is_empty() {
            return Ok(Vec::new());
        }
        announce_calibration(name, agent, &calibrated);
        let estimate = crate::estimate::estimate(agent, &calibrated, &runs[0])
            .map_err(|error| SweepError::Estimate { error })?;
        let pooled = estimate.pooled(&agent, &pending, &runs[0]);
        crate::estimate::print(agent.name, &pooled);
        crate::errln!(
            "{name}: the projection is of {} seeds ({}..{}): {left} (seed, id) pairs in one \
             pool",
            seeds.len(),
            range.start,
            range.end
        );
        return Ok(Vec::new());
    }
    check_layout(&dir, true)?;
    check_open_files(seeds.len(), &runs[0])?;
    // The seeds' directories are created under the multi-seed directory's lock, beside
    // siblings of this run only; a pool refused before it runs removes those it created.
    let ours =
        runner::run_manifest_of(agent, &runs[0]).map_err(|error| SweepError::Run { error })?;
    let created: Vec<PathBuf> = {
        let refused = |error| SweepError::Run {
            error: RunError::Claim { error },
        };
        let layout = bsuite_logging::manifest::claim_layout(
            &dir,
            bsuite_logging::results::Layout::Seeds,
            Some(&ours),
            &[],
            args.lock,
        )
        .map_err(refused)?;
        let added = layout.add_seeds(&seeds, &ours).map_err(refused)?;
        added
            .into_iter()
            .filter(|(_, new)| *new)
            .map(|(d, _)| d)
            .collect()
    };
    let plain = args.plain || !std::io::stderr().is_terminal();
    let mut notes = Vec::new();
    let changed = runs[0].config.as_ref().map(AgentConfig::changed);
    notes.extend(changed.filter(|c| !c.is_empty()));
    if args.device != ComputeDevice::Cpu {
        notes.push(format!("device {}", args.device));
    }
    if let Some(shard) = runs[0].shard {
        notes.push(format!("shard {shard}"));
    }
    crate::errln!(
        "{name}: {} on {} ids x {} seeds ({}..{}), {pairs} (seed, id) pairs in one pool, into \
         {}/seed-<s>/{}",
        agent.name,
        ids.len(),
        seeds.len(),
        range.start,
        range.end,
        dir.display(),
        match notes.is_empty() {
            true => String::new(),
            false => format!(" ({})", notes.join(", ")),
        }
    );
    if args.lock == Locking::Unlocked {
        crate::errln!(
            "{name}: WARNING: --lock none: the seed directories of {} are not locked. You are \
             the only writer: a second run or shard writing there now would mix or replace \
             results unseen",
            dir.display()
        );
    }
    let progress = Progress::default();
    let start = Instant::now();
    let display = Display::new(pairs, plain, "(seed, id) pairs");
    let reports = std::thread::scope(|scope| {
        let ticker = (!plain).then(|| scope.spawn(|| display.tick_until_done(&progress, start)));
        let reports = runner::run_pool(&ids, agent, &runs, &progress, &|run, report| {
            display.finished_seed(Some(seeds[run]), report)
        });
        display.close();
        if let Some(ticker) = ticker {
            let _ = ticker.join();
        }
        reports
    })
    .map_err(|error| {
        for dir in &created {
            runner::remove_if_unused(dir);
        }
        SweepError::Run { error }
    })?;
    summarise_seeds(name, &seeds, &reports, start.elapsed(), &dir)?;
    Ok(reports.into_iter().flatten().collect())
}

/// What a set of reports holds: counts, steps, and the failed ones.
#[derive(Default)]
struct Tally<'a> {
    ran: usize,
    skipped: usize,
    steps: u64,
    failed: Vec<&'a IdReport>,
}

impl<'a> Tally<'a> {
    fn add(&mut self, reports: &'a [IdReport]) {
        for report in reports {
            match &report.outcome {
                Outcome::Ran { steps, .. } => {
                    self.ran += 1;
                    self.steps += steps;
                }
                Outcome::Skipped { .. } => self.skipped += 1,
                Outcome::Failed(_) => self.failed.push(report),
            }
        }
    }
}

/// The closing lines of a pooled multi-seed run: one per seed, then the pool's, counting
/// (seed, id) pairs; fails when any pair failed.
fn summarise_seeds(
    name: &str,
    seeds: &[u32],
    reports: &[Vec<IdReport>],
    elapsed: Duration,
    dir: &Path,
) -> Result<(), SweepError> {
    let mut all = Tally::default();
    let mut failed = Vec::new();
    for (&seed, reports) in seeds.iter().zip(reports) {
        let mut one = Tally::default();
        one.add(reports);
        crate::errln!(
            "{name}: seed {seed}: ran {}, skipped {} (already complete), failed {} of {} ids; \
             results in {}",
            one.ran,
            one.skipped,
            one.failed.len(),
            reports.len(),
            bsuite_logging::results::seed_dir(dir, seed).display()
        );
        failed.extend(one.failed.iter().map(|r| (seed, *r)));
        all.add(reports);
    }
    let secs = elapsed.as_secs_f64();
    crate::errln!(
        "{name}: ran {}, skipped {} (already complete), failed {} of {} (seed, id) pairs over \
         {} seeds; {} steps in {secs:.1} s ({:.0} steps/s); results in {}/seed-<s>/",
        all.ran,
        all.skipped,
        all.failed.len(),
        reports.iter().map(Vec::len).sum::<usize>(),
        seeds.len(),
        all.steps,
        all.steps as f64 / secs.max(1e-9),
        dir.display()
    );
    if failed.is_empty() {
        return Ok(());
    }
    for (seed, report) in &failed {
        crate::errln!("  seed {seed}: {report}");
    }
    Err(SweepError::SeedsFailed {
        failed: failed.iter().map(|(seed, r)| (*seed, r.id)).collect(),
    })
}

fn summarise(
    name: &str,
    reports: &[IdReport],
    elapsed: Duration,
    results_dir: &Path,
) -> Result<(), SweepError> {
    let mut tally = Tally::default();
    tally.add(reports);
    let Tally {
        ran,
        skipped,
        steps,
        failed,
    } = tally;
    let secs = elapsed.as_secs_f64();
    crate::errln!(
        "{name}: ran {ran}, skipped {skipped} (already complete), failed {} of {} ids; \
         {steps} steps in {secs:.1} s ({:.0} steps/s); results in {}",
        failed.len(),
        reports.len(),
        steps as f64 / secs.max(1e-9),
        results_dir.display()
    );
    if failed.is_empty() {
        return Ok(());
    }
    for report in &failed {
        crate::errln!("  {report}");
    }
    Err(SweepError::Failed {
        ids: failed.iter().map(|r| r.id).collect(),
    })
}

/// A progress bar on a terminal, or one line per finished id otherwise.
struct Display {
    bar: Option<indicatif::ProgressBar>,
    done: Mutex<bool>,
    wake: Condvar,
}

impl Display {
    /// A display of `num_ids` runs of an id, each counted as one `unit` (`ids`, or
    /// `(seed, id) pairs` in a multi-seed run).
    fn new(num_ids: usize, plain: bool, unit: &str) -> Self {
        let bar = (!plain).then(|| {
            let bar = indicatif::ProgressBar::new(num_ids as u64);
            bar.set_style(
                indicatif::ProgressStyle::with_template(&format!(
                    "{{elapsed_precise}} [{{bar:30}}] {{pos}}/{{len}} {unit}, {{msg}}, ETA {{eta}}"
                ))
                .expect("valid template")
                .progress_chars("=> "),
            );
            bar
        });
        Display {
            bar,
            done: Mutex::new(false),
            wake: Condvar::new(),
        }
    }

    fn finished(&self, report: &IdReport) {
        self.finished_seed(None, report)
    }

    /// `seed` names the seed of a multi-seed run's report.
    fn finished_seed(&self, seed: Option<u32>, report: &IdReport) {
        let line = match seed {
            Some(seed) => format!("seed {seed}: {report}"),
            None => report.to_string(),
        };
        match &self.bar {
            Some(bar) => {
                bar.inc(1);
                // Failures and set-aside files are said even under the bar.
                let damaged = matches!(
                    report.outcome,
                    Outcome::Ran {
                        replaced: Some(Replaced::Damaged { .. }),
                        ..
                    }
                );
                if damaged || matches!(report.outcome, Outcome::Failed(_)) {
                    bar.println(line);
                }
            }
            None => crate::outln!("{line}"),
        }
    }

    fn tick_until_done(&self, progress: &Progress, start: Instant) {
        let Some(bar) = &self.bar else { return };
        let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        while !*done {
            let secs = start.elapsed().as_secs_f64().max(1e-9);
            let running = progress.ids_running.load(Ordering::Relaxed);
            let left = (bar.length().unwrap_or(0)).saturating_sub(bar.position() + running as u64);
            bar.set_message(format!(
                "{running} running, {left} left, {:.0} episodes/s, {:.0} steps/s",
                progress.episodes.load(Ordering::Relaxed) as f64 / secs,
                progress.steps.load(Ordering::Relaxed) as f64 / secs,
            ));
            done = self
                .wake
                .wait_timeout(done, Duration::from_millis(200))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        bar.finish_and_clear();
    }

    fn close(&self) {
        *self.done.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.wake.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_are_merged_in_sweep_order() {
        let ids = select_ids(&["catch/3".into(), "bandit".into(), "catch/3".into()]).unwrap();
        assert_eq!(ids.len(), 21);
        assert_eq!(ids[0].to_string(), "bandit/0");
        assert_eq!(select_ids(&[]).unwrap().len(), 468);
        let err = select_ids(&["nope".into()]).unwrap_err().to_string();
        assert!(err.contains("'nope' is not a bsuite_id"), "{err}");
    }

    #[test]
    fn episode_counts_must_be_positive() {
        assert_eq!(positive("3"), Ok(3));
        assert_eq!(positive("0"), Err(ParseCountError::Zero));
        assert_eq!(positive("0").unwrap_err().to_string(), "must be at least 1");
        let err = positive("-1").unwrap_err();
        assert!(matches!(err, ParseCountError::NotANumber { .. }), "{err}");
        assert_eq!(err.to_string(), "invalid digit found in string");
    }

    #[test]
    fn seeds_are_a_count_or_a_range() {
        assert_eq!("3".parse(), Ok(Seeds::Count(3)));
        assert_eq!("0..5".parse(), Ok(Seeds::Range(0, 5)));
        assert_eq!(Seeds::Count(3).resolve(42), Some(42..45));
        assert_eq!(Seeds::Range(0, 5).resolve(42), Some(0..5));
        for text in ["3", "0..5"] {
            assert_eq!(text.parse::<Seeds>().unwrap().to_string(), text);
        }
        assert_eq!(Seeds::Count(2).resolve(u32::MAX), None);
        assert!("0".parse::<Seeds>().unwrap_err().contains("at least 1"));
        assert!("5..5"
            .parse::<Seeds>()
            .unwrap_err()
            .contains("holds no seed"));
        assert!("x"
            .parse::<Seeds>()
            .unwrap_err()
            .contains("is not K or A..B"));
    }

    #[test]
    fn single_and_multi_seed_layouts_never_share_a_directory() {
        let dir = std::env::temp_dir().join(format!("bsuite-layout-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("seed-42")).unwrap();
        assert!(check_layout(&dir, true).is_ok());
        let err = check_layout(&dir, false).unwrap_err().to_string();
        assert!(err.contains("holds seed directories (seed-42)"), "{err}");
        std::fs::remove_dir_all(dir.join("seed-42")).unwrap();
        std::fs::write(dir.join("bsuite_id_-_catch-0.csv"), "").unwrap();
        assert!(check_layout(&dir, false).is_ok());
        let err = check_layout(&dir, true).unwrap_err().to_string();
        assert!(
            err.contains("single-seed run (bsuite_id_-_catch-0.csv)"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn failed_ids_are_listed() {
        let ids = select_ids(&["catch/3".into(), "bandit/0".into()]).unwrap();
        assert_eq!(
            SweepError::Failed { ids }.to_string(),
            "2 id(s) failed: bandit/0, catch/3; the other ids' results are kept, and \
             re-running resumes"
        );
    }

    #[test]
    fn shards_and_defaults_come_from_the_arguments() {
        let args = SweepArgs {
            agent: "random".into(),
            ids: vec!["catch".into()],
            results: None,
            name: None,
            config: Vec::new(),
            config_file: None,
            jobs: 0,
            overwrite: false,
            seed: None,
            seeds: None,
            num_episodes: None,
            shard: Some("1/4".parse().unwrap()),
            shards: None,
            lock: Locking::Flock,
            batch_size: 0,
            plain: true,
            no_score: false,
            estimate: false,
            device: ComputeDevice::Cpu,
        };
        assert_eq!(args.results_dir(), PathBuf::from("results/random"));
        let options = args.runner_options(crate::factory::agent("random").unwrap());
        assert_eq!(options.unwrap().seed, 42);
        let named = SweepArgs {
            name: Some("mine".into()),
            seed: Some(7),
            ..args.clone()
        };
        assert_eq!(named.results_dir(), PathBuf::from("results/mine"));
        let options = named.runner_options(crate::factory::agent("random").unwrap());
        assert_eq!(options.unwrap().config.unwrap().seed(), 7);
        let ids: Vec<String> = args
            .ids()
            .unwrap()
            .iter()
            .map(|id| id.to_string())
            .collect();
        assert_eq!(
            ids,
            ["catch/1", "catch/5", "catch/9", "catch/13", "catch/17"]
        );
    }
}
