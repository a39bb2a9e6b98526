//! One agent over several seeds: a directory whose children are `seed-<s>/` results
//! directories (each a normal results directory with its own `bsuite_run.json` naming seed
//! `s`), scored seed by seed and summarised with the [`crate::stats`] of rliable: per
//! experiment the mean over seeds with its stratified bootstrap interval, per tag the four
//! aggregates with theirs, and between two agents the difference and P(A > B).
//!
//! A plain results directory is the same thing with one seed, so every reader can take
//! either. A directory never mixes runs: the seeds' manifests must name one agent,
//! configuration and episode count, and each the seed its directory is named for.
//!
//! ```no_run
//! use bsuite_analysis::seeds::SeededAgent;
//! use bsuite_analysis::stats::Bootstrap;
//!
//! let dqn = SeededAgent::load("dqn", "results/dqn".as_ref(), false).unwrap();
//! let summary = dqn.summarize();
//! for tag in summary.tag_stats(&Bootstrap::default()) {
//!     println!("{} {} ({} seeds)", tag.tag.as_str(), tag.aggregates[0].1, summary.seeds.len());
//! }
//! ```

use std::path::{Path, PathBuf};

use bsuite_envs::{Experiment, Tag};
use bsuite_logging::manifest::{ManifestError, RunManifest};
use bsuite_logging::results::{ReadError, FILE_PREFIX};

use crate::agent_results::AgentResults;
use crate::plot::RADAR_TAGS;
use crate::stats::{self, Aggregate, Bootstrap, Estimate, Sample};
use crate::summary::{summarize, Summary};
use crate::Score;

pub use bsuite_logging::results::{seed_dir, seed_of_dir_name, SEED_DIR_PREFIX};

/// Why a (multi-seed) results directory could not be read as one agent.
#[derive(Debug, thiserror::Error)]
pub enum SeedsError {
    /// A results directory could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A seed's manifest could not be read.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// Listing the directory failed.
    #[error("reading {}: {source}", .dir.display())]
    List {
        /// The directory.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The directory holds results files beside seed directories.
    #[error(
        "{} holds both results files (e.g. {file}) and seed directories (e.g. {seed_dir}): \
         a multi-seed run keeps each seed's files in its own seed-<s>/ directory",
        .dir.display()
    )]
    MixedLayout {
        /// The directory.
        dir: PathBuf,
        /// One results file in it.
        file: String,
        /// One seed directory in it.
        seed_dir: String,
    },
    /// A seed directory's manifest names another seed.
    #[error(
        "{} is named for seed {named}, but its bsuite_run.json records seed {recorded}",
        .dir.display()
    )]
    SeedMismatch {
        /// The seed directory.
        dir: PathBuf,
        /// The seed its name says.
        named: u32,
        /// The seed its manifest records.
        recorded: u32,
    },
    /// Two seeds were written by different runs.
    #[error(
        "{}: seed {first} and seed {other} are different runs ({}); the seeds of one agent \
         share its agent, configuration, episode count and build family",
        .dir.display(), .differences.join(", ")
    )]
    Mixed {
        /// The multi-seed directory.
        dir: PathBuf,
        /// The first seed.
        first: u32,
        /// The seed that differs from it.
        other: u32,
        /// How `other`'s manifest differs from `first`'s.
        differences: Vec<String>,
    },
    /// Some seeds have a manifest and others do not.
    #[error(
        "{}: seed {with} has a bsuite_run.json but seed {without} has none, so nothing \
         says that seed {without} is the same agent and configuration",
        .dir.display()
    )]
    Unvouched {
        /// The multi-seed directory.
        dir: PathBuf,
        /// A seed with a manifest.
        with: u32,
        /// A seed without one.
        without: u32,
    },
}

/// One seed of an agent.
#[derive(Debug)]
pub struct SeedResults {
    /// The seed: the directory's name (`seed-<s>`), or a single directory's manifest;
    /// `None` for a single directory without a manifest.
    pub seed: Option<u32>,
    /// Its results.
    pub results: AgentResults,
}

/// One agent over one or more seeds.
#[derive(Debug)]
pub struct SeededAgent {
    /// The name shown in tables and legends.
    pub name: String,
    /// Its seeds, in increasing order.
    pub seeds: Vec<SeedResults>,
    /// What a multi-seed directory holds beside its seed directories, left unread, each
    /// with why (e.g. `seed-044`, which is not how seed 44's directory is spelled).
    pub skipped: Vec<String>,
}

/// A multi-seed directory as read: its seed directories, and what else it holds.
#[derive(Debug, Default)]
pub struct SeedDirs {
    /// The `seed-<s>` directories that hold results or a manifest, by seed.
    pub seeds: Vec<(u32, PathBuf)>,
    /// Everything else (hidden files, such as lock files, aside), each with why it is not
    /// read: the names a multi-seed run does not write, and seed directories holding
    /// nothing (left by a run refused before it wrote).
    pub skipped: Vec<String>,
}

/// The `seed-<s>` directories of `dir`, by seed; empty for a plain results directory.
pub fn seed_dirs(dir: &Path) -> Result<Vec<(u32, PathBuf)>, SeedsError> {
    Ok(read_seed_dirs(dir)?.seeds)
}

/// Reads `dir` as a multi-seed directory: exactly the names a multi-seed run writes
/// (`seed-<s>`, the canonical spelling of a `u32` seed) are seeds; everything else is
/// named in [`SeedDirs::skipped`]. A plain results directory has no seeds and nothing
/// skipped.
pub fn read_seed_dirs(dir: &Path) -> Result<SeedDirs, SeedsError> {
    let list = |source| SeedsError::List {
        dir: dir.to_path_buf(),
        source,
    };
    let mut seeds = Vec::new();
    let mut empty = Vec::new();
    let mut others = Vec::new();
    let mut results_file = None;
    for entry in std::fs::read_dir(dir).map_err(list)? {
        let entry = entry.map_err(list)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_dir = entry.path().is_dir();
        match seed_of_dir_name(&name) {
            Some(seed) if is_dir && holds_a_run(&entry.path()) => seeds.push((seed, entry.path())),
            Some(_) if is_dir => empty.push(name),
            _ if name.starts_with(FILE_PREFIX) => results_file = Some(name),
            _ if name.starts_with('.') => {}
            _ => others.push((name, is_dir)),
        }
    }
    seeds.sort();
    if seeds.is_empty() {
        return Ok(SeedDirs::default());
    }
    empty.sort();
    others.sort();
    let shown = |name: &str| dir.join(name).display().to_string();
    let mut skipped: Vec<String> = empty
        .iter()
        .map(|name| {
            format!(
                "{}: skipped: a seed directory holding no results and no manifest (left by \
                 a run refused before it wrote?)",
                shown(name)
            )
        })
        .collect();
    skipped.extend(others.iter().map(|(name, is_dir)| {
        let why = match (name.strip_prefix(SEED_DIR_PREFIX), is_dir) {
            (Some(digits), true) => match digits.parse::<u64>() {
                Ok(n) if n <= u64::from(u32::MAX) => {
                    format!("not a seed directory: seed {n}'s is spelled {SEED_DIR_PREFIX}{n}")
                }
                Ok(_) => format!(
                    "not a seed directory: {digits} is past the largest seed, {}",
                    u32::MAX
                ),
                Err(_) => format!("not a seed directory ({SEED_DIR_PREFIX}<s>, s a seed)"),
            },
            _ => "not a seed directory: a multi-seed directory holds seed-<s>/ directories \
                  only"
                .to_string(),
        };
        format!("{}: skipped: {why}", shown(name))
    }));
    if let (Some(file), Some((_, first))) = (results_file, seeds.first()) {
        return Err(SeedsError::MixedLayout {
            dir: dir.to_path_buf(),
            file,
            seed_dir: first
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into(),
        });
    }
    Ok(SeedDirs { seeds, skipped })
}

/// Whether a seed directory holds anything but hidden files (a manifest, results): one
/// that holds only lock files is what a refused run left.
fn holds_a_run(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|mut entries| {
        entries.any(|e| e.is_ok_and(|e| !e.file_name().to_string_lossy().starts_with('.')))
    })
}

impl SeededAgent {
    /// Reads `dir`: a directory of `seed-<s>` directories (each seed's results), or a
    /// plain results directory (one seed). `lenient` skips malformed result files.
    pub fn load(name: &str, dir: &Path, lenient: bool) -> Result<SeededAgent, SeedsError> {
        let read = |dir: &Path| {
            if lenient {
                AgentResults::load_lenient(name, dir)
            } else {
                AgentResults::load(name, dir)
            }
        };
        let SeedDirs {
            seeds: dirs,
            skipped,
        } = read_seed_dirs(dir)?;
        if dirs.is_empty() {
            let results = read(dir)?;
            let seed = results.manifest.as_ref().map(|m| m.seed);
            return Ok(SeededAgent {
                name: name.to_string(),
                seeds: vec![SeedResults { seed, results }],
                skipped,
            });
        }
        let mut seeds = Vec::new();
        for (seed, path) in dirs {
            // Read strictly, so that an unreadable manifest is not taken for a missing one.
            let manifest = RunManifest::read(&path)?;
            if let Some(m) = &manifest {
                if m.seed != seed {
                    return Err(SeedsError::SeedMismatch {
                        dir: path,
                        named: seed,
                        recorded: m.seed,
                    });
                }
            }
            seeds.push(SeedResults {
                seed: Some(seed),
                results: read(&path)?,
            });
        }
        check_one_run(dir, &seeds)?;
        Ok(SeededAgent {
            name: name.to_string(),
            seeds,
            skipped,
        })
    }

    /// What a reader says before it shows this agent's scores, one line each: the
    /// entries of a multi-seed directory left unread, the files skipped (names that are
    /// not bsuite results, and when lenient the damaged ones), and each seed whose
    /// `--overwrite` is unfinished, naming the run whose files are still there and the
    /// run that replaces them (the scores mix the two).
    pub fn warnings(&self) -> Vec<String> {
        let mut out = self.skipped.clone();
        let several = self.seeds.len() > 1;
        for seed in &self.seeds {
            out.extend(seed.results.skipped.iter().map(ToString::to_string));
            let Some(manifest) = &seed.results.manifest else {
                continue;
            };
            let Some(overwriting) = &manifest.overwriting else {
                continue;
            };
            let who = match (several, seed.seed) {
                (true, Some(s)) => format!("{} seed {s}", self.name),
                _ => self.name.clone(),
            };
            out.push(format!(
                "{who}: {} of its files are still those of {}, not of its run ({}: {}): an \
                 unfinished --overwrite, so its scores mix the two runs; run it again to \
                 finish",
                overwriting.files.len(),
                overwriting.replacing,
                manifest.run(),
                manifest.description
            ));
        }
        out
    }

    /// The agent's seeds, in order.
    pub fn seed_list(&self) -> Vec<Option<u32>> {
        self.seeds.iter().map(|s| s.seed).collect()
    }

    /// Scores every seed.
    pub fn summarize(&self) -> SeededSummary {
        SeededSummary {
            agent: self.name.clone(),
            seeds: self
                .seeds
                .iter()
                .map(|s| (s.seed, summarize(&s.results)))
                .collect(),
        }
    }
}

/// Refuses seeds whose manifests record different runs (agent, configuration, episodes).
fn check_one_run(dir: &Path, seeds: &[SeedResults]) -> Result<(), SeedsError> {
    let seed = |s: &SeedResults| s.seed.unwrap_or_default();
    let with = seeds.iter().find(|s| s.results.manifest.is_some());
    let without = seeds.iter().find(|s| s.results.manifest.is_none());
    let Some(first) = with else {
        return Ok(());
    };
    if let Some(without) = without {
        return Err(SeedsError::Unvouched {
            dir: dir.to_path_buf(),
            with: seed(first),
            without: seed(without),
        });
    }
    let first_manifest = first.results.manifest.as_ref().expect("found with one");
    for other in seeds {
        let theirs = other.results.manifest.as_ref().expect("all have one");
        // The rule every writer applied before it wrote the seed.
        let differences = theirs.sibling_differences(first_manifest);
        if !differences.is_empty() {
            return Err(SeedsError::Mixed {
                dir: dir.to_path_buf(),
                first: seed(first),
                other: seed(other),
                differences,
            });
        }
    }
    Ok(())
}

/// Every seed's scores of one agent.
#[derive(Clone, Debug)]
pub struct SeededSummary {
    /// The agent's name.
    pub agent: String,
    /// Each seed and its scores, in seed order.
    pub seeds: Vec<(Option<u32>, Summary)>,
}

/// An experiment's scores over seeds.
#[derive(Clone, Debug)]
pub struct ExperimentSeeds {
    /// The experiment.
    pub experiment: &'static Experiment,
    /// Each seed's score, in seed order; `None` where that seed has no data for it.
    pub per_seed: Vec<Option<Score>>,
    /// The seeds with a defined score.
    pub values: Vec<f64>,
    /// Their mean, with its bootstrap interval (NaN when no seed has a defined score).
    pub mean: Estimate,
    /// Whether every seed with data finished the experiment.
    pub finished: bool,
}

/// A tag's aggregates over seeds.
#[derive(Clone, Debug)]
pub struct TagSeeds {
    /// The tag.
    pub tag: Tag,
    /// The experiments with data that carry it.
    pub experiments: usize,
    /// rliable's four aggregates with their stratified bootstrap intervals, in
    /// [`Aggregate::ALL`]'s order.
    pub aggregates: [(Aggregate, Estimate); 4],
}

impl TagSeeds {
    /// The mean over the tag's experiments of the mean over seeds.
    pub fn mean(&self) -> Estimate {
        self.aggregates[0].1
    }
}

impl SeededSummary {
    /// The number of seeds.
    pub fn num_seeds(&self) -> usize {
        self.seeds.len()
    }

    /// The experiments some seed has data for, in the order of [`bsuite_envs::experiments()`].
    pub fn experiments(&self) -> Vec<&'static Experiment> {
        bsuite_envs::experiments()
            .iter()
            .filter(|e| {
                self.seeds
                    .iter()
                    .any(|(_, s)| s.experiment(e.name).is_some())
            })
            .copied()
            .collect()
    }

    /// The defined scores of each experiment over seeds: rliable's tasks, one per
    /// experiment in `experiments`' order.
    pub fn tasks(&self, experiments: &[&Experiment]) -> Vec<Vec<f64>> {
        experiments
            .iter()
            .map(|e| {
                self.seeds
                    .iter()
                    .filter_map(|(_, s)| match s.experiment(e.name)?.score {
                        Score::Value(v) => Some(v),
                        Score::Undefined(_) => None,
                    })
                    .collect()
            })
            .collect()
    }

    /// Per experiment with data: the scores over seeds and their mean with its interval.
    pub fn experiment_stats(&self, settings: &Bootstrap) -> Vec<ExperimentSeeds> {
        self.experiments()
            .into_iter()
            .map(|experiment| {
                let per_seed: Vec<Option<Score>> = self
                    .seeds
                    .iter()
                    .map(|(_, s)| s.experiment(experiment.name).map(|e| e.score))
                    .collect();
                let values = self.tasks(&[experiment]).remove(0);
                let mean = stats::bootstrap(
                    std::slice::from_ref(&values),
                    |t| Aggregate::Mean.of(t),
                    settings,
                );
                let finished = self.seeds.iter().all(|(_, s)| {
                    s.experiment(experiment.name)
                        .map_or(true, |e| e.progress.finished())
                });
                ExperimentSeeds {
                    experiment,
                    per_seed,
                    values,
                    mean,
                    finished,
                }
            })
            .collect()
    }

    /// The experiments with data that carry `tag`.
    pub fn experiments_of(&self, tag: Tag) -> Vec<&'static Experiment> {
        self.experiments()
            .into_iter()
            .filter(|e| e.tags.contains(&tag))
            .collect()
    }

    /// Per tag (all seven, sorted): rliable's aggregates over the tag's experiments with
    /// their stratified bootstrap intervals.
    pub fn tag_stats(&self, settings: &Bootstrap) -> Vec<TagSeeds> {
        RADAR_TAGS
            .iter()
            .map(|&tag| {
                let experiments = self.experiments_of(tag);
                let tasks = self.tasks(&experiments);
                let aggregates =
                    Aggregate::ALL.map(|a| (a, stats::bootstrap(&tasks, |t| a.of(t), settings)));
                TagSeeds {
                    tag,
                    experiments: experiments.len(),
                    aggregates,
                }
            })
            .collect()
    }

    /// Each seed's mean score over `experiments` (undefined scores left out), for the
    /// seeds with one: the per-seed values whose spread sizes a comparison.
    pub fn per_seed_means(&self, experiments: &[&Experiment]) -> Vec<f64> {
        self.seeds
            .iter()
            .filter_map(|(_, s)| {
                let values: Vec<f64> = experiments
                    .iter()
                    .filter_map(|e| match s.experiment(e.name)?.score {
                        Score::Value(v) => Some(v),
                        Score::Undefined(_) => None,
                    })
                    .collect();
                (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
            })
            .collect()
    }
}

/// What a comparison of two agents concludes about one experiment or tag, by the rule
/// stated in the README: differences within the tolerance do not matter, so the agents
/// are equivalent when the difference's interval lies within ±tolerance, one is better
/// when the interval lies wholly beyond the tolerance on its side, and otherwise the
/// evidence is not enough.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Conclusion {
    /// The difference's interval lies above the tolerance: A is better.
    ABetter,
    /// The difference's interval lies below minus the tolerance: B is better.
    BBetter,
    /// The difference's interval lies within the tolerance either side of 0.
    Equivalent,
    /// Neither: the interval straddles +tolerance or −tolerance, and about `seeds` seeds a
    /// side would settle it, by narrowing the interval until it clears the boundary
    /// nearest the difference ([`stats::seeds_needed`] on that margin, and always more
    /// than either side has: a difference at the tolerance needs many); `None` when a side
    /// has fewer than two seeds to size it with.
    Inconclusive {
        /// Seeds a side needed.
        seeds: Option<usize>,
    },
    /// Nothing to compare: no experiment (of the tag) that both agents ran on a common
    /// bsuite_id.
    NotCompared,
}

/// Past this many seeds a side, an inconclusive verdict says the difference is the
/// tolerance for all practical purposes instead of naming the seeds.
const MOST_SEEDS_NAMED: usize = 100_000;

/// Two agents compared on one experiment or tag.
#[derive(Clone, Debug)]
pub struct PairComparison {
    /// The experiment's or tag's name.
    pub name: String,
    /// The experiments compared (those both agents have scores for).
    pub experiments: usize,
    /// Mean of A minus mean of B, with its interval.
    pub difference: Estimate,
    /// P(A > B), with its interval.
    pub improvement: Estimate,
    /// The conclusion.
    pub conclusion: Conclusion,
}

impl PairComparison {
    /// The verdict in words, e.g. `A better`, or `inconclusive: about 12 seeds a side
    /// would detect 0.05`.
    pub fn verdict(&self, a: &str, b: &str, tolerance: f64) -> String {
        match self.conclusion {
            Conclusion::ABetter => format!("{a} better"),
            Conclusion::BBetter => format!("{b} better"),
            Conclusion::Equivalent => format!("equivalent within {tolerance}"),
            Conclusion::Inconclusive { seeds: Some(n) } if n > MOST_SEEDS_NAMED => format!(
                "inconclusive: the difference is the tolerance, {tolerance}, to within what \
                 any practical number of seeds resolves"
            ),
            Conclusion::Inconclusive { seeds: Some(n) } => {
                format!("inconclusive: about {n} seeds a side would settle it at {tolerance}")
            }
            Conclusion::Inconclusive { seeds: None } => {
                "inconclusive: a side with one seed has no spread; run 2 or more seeds a side"
                    .to_string()
            }
            Conclusion::NotCompared => {
                "not compared: no experiment that both ran on a common bsuite_id".to_string()
            }
        }
    }
}

/// Compares two agents per tag (all seven) and per experiment both have: the difference of
/// means and P(A > B), each with a stratified bootstrap interval over the experiments both
/// agents scored, and a [`Conclusion`] at `tolerance`. A conclusion needs two seeds a side:
/// one seed has no spread, and its interval would be a point. An experiment is compared
/// only where the two agents ran some bsuite_id of it in common: scores of disjoint ids
/// are scores of different problems.
pub fn compare_agents(
    a: &SeededSummary,
    b: &SeededSummary,
    settings: &Bootstrap,
    tolerance: f64,
) -> (Vec<PairComparison>, Vec<PairComparison>) {
    let both: Vec<&'static Experiment> = a
        .experiments()
        .into_iter()
        .filter(|e| b.experiments().iter().any(|f| f.name == e.name))
        .collect();
    let comparable = |e: &&'static Experiment| {
        let ids = |s: &SeededSummary| -> std::collections::BTreeSet<bsuite_envs::BsuiteId> {
            (s.seeds.iter())
                .flat_map(|(_, summary)| &summary.ids)
                .filter(|i| i.id.experiment().name == e.name)
                .map(|i| i.id)
                .collect()
        };
        !ids(a).is_disjoint(&ids(b))
    };
    let pair = |name: String, experiments: &[&'static Experiment]| {
        let experiments: Vec<&'static Experiment> =
            experiments.iter().copied().filter(comparable).collect();
        let experiments = experiments.as_slice();
        let (ta, tb) = (a.tasks(experiments), b.tasks(experiments));
        // Only tasks both sides scored, so the difference is over the same experiments.
        let (ta, tb): (Vec<Vec<f64>>, Vec<Vec<f64>>) = ta
            .into_iter()
            .zip(tb)
            .filter(|(x, y)| !x.is_empty() && !y.is_empty())
            .unzip();
        let difference = stats::bootstrap_pair(
            &ta,
            &tb,
            |x, y| Aggregate::Mean.of(x) - Aggregate::Mean.of(y),
            settings,
        );
        let improvement =
            stats::bootstrap_pair(&ta, &tb, stats::probability_of_improvement, settings);
        let spread = |s: &SeededSummary| Sample::of(&s.per_seed_means(experiments));
        let (sa, sb) = (spread(a), spread(b));
        let conclusion = if ta.is_empty() || difference.value.is_nan() {
            Conclusion::NotCompared
        } else if sa.n < 2 || sb.n < 2 {
            // One seed has no spread: neither a verdict nor a size can rest on it (the
            // other side's spread says nothing of this one's).
            Conclusion::Inconclusive { seeds: None }
        } else if difference.lo > tolerance {
            Conclusion::ABetter
        } else if difference.hi < -tolerance {
            Conclusion::BBetter
        } else if -tolerance <= difference.lo && difference.hi <= tolerance {
            Conclusion::Equivalent
        } else {
            // What settles it is an interval clear of the boundary nearest the difference
            // (beyond it: better; inside both: equivalent), so the seeds are sized on that
            // margin, not on the tolerance: a difference of 0.046 at a tolerance of 0.05
            // is settled only by an interval within 0.004 of it, however well the seeds
            // would detect a difference of 0.05.
            let margin = (difference.value.abs() - tolerance).abs();
            let seeds = stats::seeds_needed(sa.sd, sb.sd, margin.max(f64::MIN_POSITIVE))
                .map(|n| n.max(sa.n.max(sb.n) + 1));
            Conclusion::Inconclusive { seeds }
        };
        PairComparison {
            name,
            experiments: ta.len(),
            difference,
            improvement,
            conclusion,
        }
    };
    let tags = RADAR_TAGS
        .iter()
        .map(|&tag| {
            let experiments: Vec<&'static Experiment> = both
                .iter()
                .copied()
                .filter(|e| e.tags.contains(&tag))
                .collect();
            pair(tag.as_str().to_string(), &experiments)
        })
        .collect();
    let experiments = both
        .iter()
        .map(|&e| pair(e.name.to_string(), &[e]))
        .collect();
    (tags, experiments)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/random_results")
    }

    /// A fresh directory for a test.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("bsuite-seeds-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Copies the fixture's files whose names contain one of `keep` into `dir/seed-<seed>`,
    /// with a manifest for `agent` and `seed`.
    fn seed_copy(dir: &Path, seed: u32, agent: &str, keep: &[&str]) -> PathBuf {
        let to = seed_dir(dir, seed);
        std::fs::create_dir_all(&to).unwrap();
        for entry in std::fs::read_dir(fixture()).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if keep.iter().any(|k| name.contains(k)) {
                std::fs::copy(fixture().join(&name), to.join(&name)).unwrap();
            }
        }
        RunManifest::new(agent, "random", seed, None)
            .write(&to)
            .unwrap();
        to
    }

    #[test]
    fn seed_directory_names_have_one_spelling() {
        assert_eq!(seed_of_dir_name("seed-42"), Some(42));
        assert_eq!(seed_of_dir_name("seed-0"), Some(0));
        assert_eq!(seed_of_dir_name("seed-042"), None);
        assert_eq!(seed_of_dir_name("seed-"), None);
        assert_eq!(seed_of_dir_name("seed-x"), None);
        assert_eq!(seed_of_dir_name("seed-+42"), None);
        assert_eq!(seed_of_dir_name("bsuite_id_-_catch-0.csv"), None);
    }

    #[test]
    fn a_plain_directory_is_one_seed_with_the_same_scores() {
        let agent = SeededAgent::load("random", &fixture(), false).unwrap();
        assert_eq!(agent.seed_list(), [None]);
        let summary = agent.summarize();
        let single = summarize(&AgentResults::load("random", &fixture()).unwrap());
        assert_eq!(summary.seeds[0].1, single);
        // One seed: the tag mean is the plain tag score, and no interval to speak of.
        for (t, s) in summary
            .tag_stats(&Bootstrap::default())
            .iter()
            .zip(&single.tags)
        {
            let mean = t.mean();
            assert!(
                (mean.value - s.score.to_f64()).abs() < 1e-12,
                "{}",
                t.tag.as_str()
            );
            assert_eq!((mean.lo, mean.hi), (mean.value, mean.value));
        }
    }

    #[test]
    fn seeds_are_scored_apart_and_averaged() {
        let dir = scratch("two");
        seed_copy(&dir, 42, "random", &["bandit-", "catch-"]);
        seed_copy(&dir, 43, "random", &["bandit-"]);
        let agent = SeededAgent::load("random", &dir, false).unwrap();
        assert_eq!(agent.seed_list(), [Some(42), Some(43)]);
        let summary = agent.summarize();
        let stats = summary.experiment_stats(&Bootstrap::default());
        let names: Vec<&str> = stats.iter().map(|e| e.experiment.name).collect();
        assert_eq!(names, ["bandit", "catch"]);
        // Both seeds hold the same bandit runs: the mean is their score, exactly.
        let bandit = &stats[0];
        assert_eq!(bandit.values.len(), 2);
        assert_eq!(bandit.values[0], bandit.values[1]);
        assert_eq!(
            (bandit.mean.lo, bandit.mean.hi),
            (bandit.values[0], bandit.values[0])
        );
        // catch comes from seed 42 alone.
        assert_eq!(stats[1].per_seed[1], None);
        assert_eq!(stats[1].values.len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn seeds_of_different_runs_never_mix() {
        let dir = scratch("mixed");
        seed_copy(&dir, 42, "random", &["bandit-"]);
        seed_copy(&dir, 43, "dqn", &["bandit-"]);
        let err = SeededAgent::load("x", &dir, false).unwrap_err().to_string();
        assert!(
            err.contains("seed 42 and seed 43 are different runs"),
            "{err}"
        );
        assert!(err.contains("agent dqn, not random"), "{err}");

        // A seed directory whose manifest names another seed.
        std::fs::remove_dir_all(seed_dir(&dir, 43)).unwrap();
        let moved = seed_copy(&dir, 44, "random", &["bandit-"]);
        std::fs::rename(&moved, seed_dir(&dir, 45)).unwrap();
        let err = SeededAgent::load("x", &dir, false).unwrap_err().to_string();
        assert!(
            err.contains("named for seed 45, but its bsuite_run.json records seed 44"),
            "{err}"
        );

        // A seed without a manifest.
        std::fs::remove_file(seed_dir(&dir, 45).join("bsuite_run.json")).unwrap();
        let err = SeededAgent::load("x", &dir, false).unwrap_err().to_string();
        assert!(
            err.contains("seed 42 has a bsuite_run.json but seed 45 has none"),
            "{err}"
        );

        // Results files beside seed directories.
        std::fs::remove_dir_all(seed_dir(&dir, 45)).unwrap();
        let file = "bsuite_id_-_bandit-0.csv";
        std::fs::copy(fixture().join(file), dir.join(file)).unwrap();
        let err = SeededAgent::load("x", &dir, false).unwrap_err().to_string();
        assert!(
            err.contains("both results files (e.g. bsuite_id_-_bandit-0.csv)"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A summary whose experiment `bandit` scores `values` over seeds.
    fn bandit_summary(name: &str, scores: &[f64]) -> SeededSummary {
        let base = summarize(&AgentResults::load(name, &fixture()).unwrap());
        let seeds = scores
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                let mut s = base.clone();
                s.experiments.retain(|e| e.experiment.name == "bandit");
                s.experiments[0].score = Score::Value(v);
                (Some(i as u32), s)
            })
            .collect();
        SeededSummary {
            agent: name.into(),
            seeds,
        }
    }

    /// Issue 55, item 11: deep_sea_stochastic's 0.029 [0.010, 0.048] was "dqn better",
    /// though the help says differences below the tolerance do not matter. The rule is the
    /// documented one: equivalent within ±tolerance, better only beyond it, and
    /// inconclusive when the interval straddles its edge.
    #[test]
    fn verdicts_follow_the_tolerance_rule() {
        let settings = Bootstrap::default();
        let verdict = |a: &[f64], b: &[f64]| {
            let (_, rows) = compare_agents(
                &bandit_summary("a", a),
                &bandit_summary("b", b),
                &settings,
                0.05,
            );
            (rows[0].difference, rows[0].conclusion)
        };
        // A small, sure difference: within the tolerance, so equivalent.
        let (difference, conclusion) =
            verdict(&[0.53, 0.531, 0.529, 0.53], &[0.5, 0.501, 0.499, 0.5]);
        assert!(difference.lo > 0.0 && difference.hi < 0.05, "{difference}");
        assert_eq!(conclusion, Conclusion::Equivalent);
        // Sure to exceed 0 but not the tolerance: not enough to call a winner.
        let (difference, conclusion) = verdict(&[0.52, 0.56, 0.54, 0.58], &[0.5, 0.51, 0.5, 0.51]);
        assert!(
            difference.lo > 0.0 && difference.lo < 0.05 && difference.hi > 0.05,
            "{difference}"
        );
        assert!(
            matches!(conclusion, Conclusion::Inconclusive { .. }),
            "{conclusion:?}"
        );
        // Beyond the tolerance on either side.
        let (_, conclusion) = verdict(&[0.5, 0.52, 0.51, 0.53], &[0.9, 0.92, 0.91, 0.93]);
        assert_eq!(conclusion, Conclusion::BBetter);
    }

    /// Issue 55, item 12: tags without a shared experiment, and experiments whose ids do
    /// not overlap, were "inconclusive: a side with one seed has no spread" with three
    /// seeds a side. They are not compared, and say so.
    #[test]
    fn nothing_in_common_is_not_compared() {
        let settings = Bootstrap::default();
        let keep = |mut s: SeededSummary, ids: &[usize]| {
            for (_, summary) in &mut s.seeds {
                summary
                    .ids
                    .retain(|i| i.id.experiment().name == "bandit" && ids.contains(&i.id.index()));
            }
            s
        };
        let a = keep(bandit_summary("a", &[0.5, 0.52, 0.51]), &[0]);
        let b = keep(bandit_summary("b", &[0.5, 0.52, 0.51]), &[1]);
        let (tags, experiments) = compare_agents(&a, &b, &settings, 0.05);
        assert_eq!(experiments[0].conclusion, Conclusion::NotCompared);
        assert!(tags.iter().all(|t| t.conclusion == Conclusion::NotCompared));
        let text = experiments[0].verdict("a", "b", 0.05);
        assert!(
            text.starts_with("not compared: no experiment that both ran"),
            "{text}"
        );
        // Shared ids: compared; a tag without the experiment is not.
        let b = keep(bandit_summary("b", &[0.5, 0.52, 0.51]), &[0, 1]);
        let (tags, experiments) = compare_agents(&a, &b, &settings, 0.05);
        assert_eq!(experiments[0].conclusion, Conclusion::Equivalent);
        let memory = tags.iter().find(|t| t.name == "memory").unwrap();
        assert_eq!(memory.conclusion, Conclusion::NotCompared);
    }

    /// Issue 55, item 16: `seed-044/` and `seed-4294967296/` were ignored silently. The
    /// reader takes exactly the names a run writes and names everything else it skips.
    #[test]
    fn the_seed_reader_names_what_it_skips() {
        let dir = scratch("skips");
        seed_copy(&dir, 42, "random", &["bandit-"]);
        seed_copy(&dir, 43, "random", &["bandit-"]);
        for odd in ["seed-044", "seed-4294967296", "notes"] {
            std::fs::create_dir(dir.join(odd)).unwrap();
        }
        std::fs::create_dir(seed_dir(&dir, 45)).unwrap();
        std::fs::write(seed_dir(&dir, 45).join(".bsuite-lock"), "").unwrap();
        std::fs::write(dir.join(".bsuite-lock-manifest"), "").unwrap();
        let agent = SeededAgent::load("x", &dir, false).unwrap();
        assert_eq!(agent.seed_list(), [Some(42), Some(43)]);
        let warnings = agent.warnings().join("\n");
        assert!(
            warnings
                .contains("seed-044: skipped: not a seed directory: seed 44's is spelled seed-44"),
            "{warnings}"
        );
        assert!(
            warnings.contains("seed-4294967296: skipped: not a seed directory: 4294967296 is past"),
            "{warnings}"
        );
        assert!(warnings.contains("notes: skipped"), "{warnings}");
        assert!(
            warnings.contains("seed-45: skipped: a seed directory holding no results"),
            "{warnings}"
        );
        assert!(!warnings.contains(".bsuite-lock"), "{warnings}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn comparisons_conclude_only_on_evidence() {
        let settings = Bootstrap::default();
        let a = bandit_summary("a", &[0.9, 0.92, 0.91, 0.93]);
        let b = bandit_summary("b", &[0.5, 0.52, 0.51, 0.49]);
        let (tags, experiments) = compare_agents(&a, &b, &settings, 0.05);
        assert_eq!(experiments.len(), 1);
        let e = &experiments[0];
        assert!(
            (e.difference.value - 0.41).abs() < 1e-12,
            "{:?}",
            e.difference
        );
        // Every run of a beats every run of b.
        assert_eq!((e.improvement.value, e.improvement.lo), (1.0, 1.0));
        assert_eq!(e.conclusion, Conclusion::ABetter);
        let basic = tags.iter().find(|t| t.name == "basic").unwrap();
        assert_eq!(basic.conclusion, Conclusion::ABetter);
        // Overlapping noisy seeds: not enough; the seeds named follow the power formula
        // on the per-seed spreads.
        let c = bandit_summary("c", &[0.2, 0.8]);
        let d = bandit_summary("d", &[0.3, 0.7]);
        let (_, experiments) = compare_agents(&c, &d, &settings, 0.05);
        let (sc, sd) = (Sample::of(&[0.2, 0.8]).sd, Sample::of(&[0.3, 0.7]).sd);
        let expected = stats::seeds_needed(sc, sd, 0.05);
        assert_eq!(
            experiments[0].conclusion,
            Conclusion::Inconclusive { seeds: expected }
        );
        // 2.80² × (0.18 + 0.08) / 0.05² = 815.36.
        assert_eq!(expected, Some(816));
        assert_eq!(
            experiments[0].verdict("c", "d", 0.05),
            "inconclusive: about 816 seeds a side would settle it at 0.05"
        );
        // A difference near the tolerance, over five seeds a side with little spread: its
        // interval straddles 0.05, and what settles it is an interval clear of 0.05, far
        // narrower than one that detects 0.05, so it needs many more seeds than five.
        let near_a = [0.50, 0.52, 0.48, 0.51, 0.49];
        let near_b = near_a.map(|x| x - 0.046);
        let (_, experiments) = compare_agents(
            &bandit_summary("near_a", &near_a),
            &bandit_summary("near_b", &near_b),
            &settings,
            0.05,
        );
        let near = &experiments[0];
        assert!(near.difference.lo < 0.05 && 0.05 < near.difference.hi);
        let margin = 0.05 - near.difference.value;
        assert!((margin - 0.004).abs() < 1e-9, "{margin}");
        let spread = Sample::of(&near_a).sd;
        let expected = stats::seeds_needed(spread, spread, margin).unwrap();
        assert!(expected > 100, "{expected}");
        assert_eq!(
            near.conclusion,
            Conclusion::Inconclusive {
                seeds: Some(expected)
            }
        );
        // At the tolerance itself, no practical number of seeds settles it.
        let at = PairComparison {
            conclusion: Conclusion::Inconclusive {
                seeds: Some(usize::MAX),
            },
            ..near.clone()
        };
        assert!(
            at.verdict("a", "b", 0.05)
                .starts_with("inconclusive: the difference is the tolerance, 0.05,"),
            "{}",
            at.verdict("a", "b", 0.05)
        );
        // One seed a side: never a conclusion, whatever the difference.
        let (_, experiments) = compare_agents(
            &bandit_summary("e", &[1.0]),
            &bandit_summary("f", &[0.0]),
            &settings,
            0.05,
        );
        assert_eq!(
            experiments[0].conclusion,
            Conclusion::Inconclusive { seeds: None }
        );
        // Four seeds against one: the one seed's spread is unknown, so nothing is sized.
        let (_, experiments) = compare_agents(
            &bandit_summary("g", &[0.9, 0.92, 0.91, 0.93]),
            &bandit_summary("h", &[0.5]),
            &settings,
            0.05,
        );
        assert_eq!(
            experiments[0].conclusion,
            Conclusion::Inconclusive { seeds: None }
        );
    }
}
