//! What a results directory holds: `bsuite_run.json`, written by the runner beside the
//! CSV files, names the agent, its seed and the episode count that wrote them, so that a
//! resumed run cannot mix another agent's or seed's episodes into the directory, and
//! `score` and `report` can say what they show. Python bsuite's readers load only
//! `bsuite_id_-_*.csv` files and ignore it.
//!
//! A manifest never claims more than its run wrote: a writer decides it under the
//! directory's [`Provenance`] lock ([`claim`], [`claim_for_recording`]), so that writers
//! that start together cannot both pass the check, and while files of another run are
//! still there (an `--overwrite` under way or interrupted, or files no manifest vouched
//! for) it lists them in [`RunManifest::overwriting`] until they are replaced.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::dir_lock::{self, DirLock, Holder, LockError, Locking, Provenance};
use crate::results::FILE_PREFIX;
pub use crate::results::MANIFEST_FILE;

/// Who wrote a results directory.
///
/// ```
/// use bsuite_logging::manifest::RunManifest;
///
/// let dqn = RunManifest::new("dqn", "bsuite's DQN", 42, None);
/// let other = RunManifest::new("dqn", "bsuite's DQN", 7, Some(100));
/// assert_eq!(dqn.differences(&other), ["seed 42, not 7", "all episodes, not 100 per id"]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunManifest {
    /// The agent's name, as runners accept it.
    pub agent: String,
    /// The agent in a line (its configuration).
    pub description: String,
    /// The agent seed.
    pub seed: u32,
    /// Every hyperparameter of the agent, `key -> value` as `--config` takes them (empty in
    /// manifests written before agents were configurable, and for agents without keys).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub config: BTreeMap<String, String>,
    /// Episodes per id when shortened (`--num-episodes`); `None` for each id's own count.
    pub num_episodes: Option<usize>,
    /// The number of shards of the split (`--shard I/N`) that writes the directory, if it
    /// is split; shards of another split are refused while one of this split writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shards: Option<usize>,
    /// The bsuite-rs version that wrote it.
    pub bsuite_rs: String,
    /// The git revision of the build that wrote it last, when known: a commit, followed by
    /// `-modified` where the build had changes to the agents' sources not yet committed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_revision: Option<String>,
    /// The revisions of the other builds that wrote it before, oldest first: a run resumed
    /// by a newer build keeps the record of the older ones.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub earlier_revisions: Vec<String>,
    /// Results files that are still another run's, while this run replaces them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overwriting: Option<Overwriting>,
}

/// Files of a replaced run that are still in the directory: an `--overwrite` records them
/// before it starts and drops each as its id is rerun, so that a resume reruns the rest
/// instead of counting them as this run's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overwriting {
    /// The run they are from, e.g. `agent random, seed 42`.
    pub replacing: String,
    /// Their file names.
    pub files: BTreeSet<String>,
}

/// The fields this version knows: a manifest with others was written by a newer one, and
/// rewriting it would drop them.
const KNOWN_FIELDS: [&str; 10] = [
    "agent",
    "description",
    "seed",
    "config",
    "num_episodes",
    "shards",
    "bsuite_rs",
    "git_revision",
    "earlier_revisions",
    "overwriting",
];

/// A manifest that could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("reading {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a bsuite-rs run manifest: {source}")]
    Parse {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("writing {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{path} is from bsuite-rs {version}{}, which this bsuite-rs {} cannot read whole; \
         use that version (rewriting it would lose what it records)",
        if .unknown.is_empty() { String::new() } else { format!(" and records {}", .unknown.join(", ")) },
        env!("CARGO_PKG_VERSION")
    )]
    Newer {
        /// The manifest.
        path: PathBuf,
        /// The version it names.
        version: String,
        /// Its fields this version does not know.
        unknown: Vec<String>,
    },
}

/// Why a writer may not write into a results directory ([`claim`], [`claim_for_recording`]).
#[derive(Debug, thiserror::Error)]
pub enum ClaimError {
    /// Its manifest records another run.
    #[error("{} holds the results of another run ({theirs}); this one has {}", .dir.display(), .differences.join(", "))]
    OtherRun {
        /// The results directory.
        dir: PathBuf,
        /// The run its manifest records.
        theirs: Box<RunManifest>,
        /// How this run differs, e.g. `seed 7, not 42`.
        differences: Vec<String>,
    },
    /// It holds results files but no manifest, so nothing says whose they are.
    #[error(
        "{} holds {count} results files (e.g. {example}) but no {MANIFEST_FILE}, so nothing \
         says which agent, seed and episode count wrote them (Python bsuite and copies of \
         files write no manifest)",
        .dir.display()
    )]
    Unclaimed {
        /// The results directory.
        dir: PathBuf,
        /// How many results files it holds.
        count: usize,
        /// One of them.
        example: String,
    },
    /// Its manifest cannot be read (or was written by a newer version).
    #[error("{error}")]
    Unreadable {
        /// Why.
        error: ManifestError,
    },
    /// A run's manifest is there: a recorder would mix its file into that run's.
    #[error(
        "{} holds the results of a run ({theirs}, its {MANIFEST_FILE}); recording into it \
         would mix another run's file into them: record into another directory",
        .dir.display()
    )]
    RunsResults {
        /// The results directory.
        dir: PathBuf,
        /// The run its manifest records.
        theirs: Box<RunManifest>,
    },
    /// Recorders (Python's `load_and_record*`) are writing into it.
    #[error(
        "{} is being recorded into (load_and_record*, which write files that no manifest \
         vouches for); wait for them to finish, or pass another --results",
        .dir.display()
    )]
    Recording {
        /// The results directory.
        dir: PathBuf,
    },
    /// Its lock could not be taken.
    #[error("{error}")]
    Lock {
        /// Why.
        error: LockError,
    },
    /// The manifest could not be written.
    #[error("{error}")]
    Write {
        /// Why.
        error: ManifestError,
    },
}

/// What a run must do after [`claim`]ing a directory.
#[derive(Debug, Default)]
pub struct Claim {
    /// Files of its selection that are another run's and must be rerun even when
    /// complete; [`finished`] marks each one replaced.
    pub rerun: BTreeSet<String>,
}

/// Checks, under `dir`'s provenance lock, that it holds `ours`'s results (or none), and
/// records `ours` in its manifest. `selected` are the file names of the ids this writer
/// will write. Another run's directory, an unreadable manifest and results files without
/// one are refused unless `overwrite`; then (and for every `overwrite`) the manifest lists
/// the files that are still another run's, which the returned [`Claim::rerun`] holds
/// where selected. `locking` is the writer's ([`Locking::Unlocked`]: no lock is taken).
pub fn claim(
    dir: &Path,
    ours: &RunManifest,
    overwrite: bool,
    selected: &BTreeSet<String>,
    locking: Locking,
) -> Result<Claim, ClaimError> {
    let provenance =
        Provenance::take_with(dir, locking).map_err(|error| ClaimError::Lock { error })?;
    if provenance
        .recorders_active()
        .map_err(|error| ClaimError::Lock { error })?
    {
        return Err(ClaimError::Recording {
            dir: dir.to_path_buf(),
        });
    }
    let existing = results_files(dir).map_err(|source| ClaimError::Unreadable {
        error: ManifestError::Read {
            path: dir.to_path_buf(),
            source,
        },
    })?;
    let replaced = |replacing: String| Overwriting {
        replacing,
        files: existing.clone(),
    };
    let mut earlier_revisions = Vec::new();
    let overwriting = match RunManifest::read(dir) {
        Ok(Some(theirs)) => {
            let differences = ours.differences(&theirs);
            match (differences.is_empty(), overwrite) {
                (true, _) => {
                    earlier_revisions = theirs.earlier_revisions.clone();
                    let last = theirs.git_revision.iter();
                    for revision in last.filter(|r| ours.git_revision.as_ref() != Some(*r)) {
                        if !earlier_revisions.contains(revision) {
                            earlier_revisions.push(revision.clone());
                        }
                    }
                    let replacing = theirs.run();
                    let mut pending = theirs.overwriting.unwrap_or(Overwriting {
                        replacing,
                        files: BTreeSet::new(),
                    });
                    if overwrite {
                        pending
                            .files
                            .extend(existing.intersection(selected).cloned());
                    }
                    pending
                }
                (false, false) => {
                    return Err(ClaimError::OtherRun {
                        dir: dir.to_path_buf(),
                        theirs: Box::new(theirs),
                        differences,
                    })
                }
                (false, true) => replaced(theirs.run()),
            }
        }
        Ok(None) if existing.is_empty() => replaced(String::new()),
        Ok(None) if overwrite => replaced("results that no manifest vouched for".into()),
        Ok(None) => {
            return Err(ClaimError::Unclaimed {
                dir: dir.to_path_buf(),
                count: existing.len(),
                example: existing.iter().next().cloned().unwrap_or_default(),
            })
        }
        Err(error @ ManifestError::Newer { .. }) => return Err(ClaimError::Unreadable { error }),
        Err(_) if overwrite => replaced("a run whose manifest could not be read".into()),
        Err(error) => return Err(ClaimError::Unreadable { error }),
    };
    let rerun = overwriting.files.intersection(selected).cloned().collect();
    let manifest = RunManifest {
        overwriting: Some(overwriting).filter(|o| !o.files.is_empty()),
        earlier_revisions,
        ..ours.clone()
    };
    manifest
        .write(dir)
        .map_err(|error| ClaimError::Write { error })?;
    drop(provenance);
    Ok(Claim { rerun })
}

/// Records that `file` (of a [`Claim::rerun`]) now holds this run's results.
pub fn finished(dir: &Path, file: &str, locking: Locking) -> Result<(), ClaimError> {
    let _provenance =
        Provenance::take_with(dir, locking).map_err(|error| ClaimError::Lock { error })?;
    let mut manifest = match RunManifest::read(dir) {
        Ok(Some(manifest)) => manifest,
        Ok(None) => return Ok(()),
        Err(error) => return Err(ClaimError::Unreadable { error }),
    };
    let Some(overwriting) = &mut manifest.overwriting else {
        return Ok(());
    };
    if !overwriting.files.remove(file) {
        return Ok(());
    }
    if overwriting.files.is_empty() {
        manifest.overwriting = None;
    }
    manifest
        .write(dir)
        .map_err(|error| ClaimError::Write { error })
}

/// Takes `dir` for one recorder ([`Holder::Recorder`]): refused while a run holds it, or
/// when a run's manifest is there. Recording files carry no manifest, so the recorder
/// is marked as recording until the lock is dropped, for runs to refuse the directory.
pub fn claim_for_recording(dir: &Path) -> Result<DirLock, ClaimError> {
    let lock_error = |error| ClaimError::Lock { error };
    let mut lock = dir_lock::lock(dir, Holder::Recorder).map_err(lock_error)?;
    let provenance = Provenance::take(dir).map_err(lock_error)?;
    match RunManifest::read(dir) {
        Ok(None) => {}
        Ok(Some(theirs)) => {
            return Err(ClaimError::RunsResults {
                dir: dir.to_path_buf(),
                theirs: Box::new(theirs),
            })
        }
        Err(error) => return Err(ClaimError::Unreadable { error }),
    }
    provenance.start_recording(&mut lock).map_err(lock_error)?;
    Ok(lock)
}

/// The names of the bsuite results files in `dir`.
fn results_files(dir: &Path) -> std::io::Result<BTreeSet<String>> {
    let mut files = BTreeSet::new();
    for entry in std::fs::read_dir(dir)? {
        let name = entry?.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with(FILE_PREFIX) && name.ends_with(".csv") {
            files.insert(name.to_string());
        }
    }
    Ok(files)
}

impl RunManifest {
    /// A manifest for this agent, seed and episode count, from this version of bsuite-rs.
    pub fn new(agent: &str, description: &str, seed: u32, num_episodes: Option<usize>) -> Self {
        RunManifest {
            agent: agent.to_string(),
            description: description.to_string(),
            seed,
            config: BTreeMap::new(),
            num_episodes,
            shards: None,
            bsuite_rs: env!("CARGO_PKG_VERSION").to_string(),
            git_revision: None,
            earlier_revisions: Vec::new(),
            overwriting: None,
        }
    }

    /// The manifest of `dir`, if it has one. One written by a newer version of bsuite-rs,
    /// or with fields this one does not know, is [`ManifestError::Newer`].
    pub fn read(dir: &Path) -> Result<Option<Self>, ManifestError> {
        let path = dir.join(MANIFEST_FILE);
        let text = match crate::results::regular_file(&path)
            .and_then(|()| std::fs::read_to_string(&path))
        {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(ManifestError::Read { path, source }),
        };
        let parse = |source| ManifestError::Parse {
            path: path.clone(),
            source,
        };
        let value: serde_json::Value = serde_json::from_str(&text).map_err(parse)?;
        let unknown: Vec<String> = value
            .as_object()
            .into_iter()
            .flat_map(|fields| fields.keys())
            .filter(|key| !KNOWN_FIELDS.contains(&key.as_str()))
            .cloned()
            .collect();
        let manifest: RunManifest = serde_json::from_value(value).map_err(parse)?;
        if !unknown.is_empty() || newer(&manifest.bsuite_rs, env!("CARGO_PKG_VERSION")) {
            return Err(ManifestError::Newer {
                path,
                version: manifest.bsuite_rs,
                unknown,
            });
        }
        Ok(Some(manifest))
    }

    /// Writes the manifest into `dir`, replacing any (through a temporary file, so that a
    /// reader never sees half of one), and syncs it and the directory: the manifest must be
    /// on the disk before the files it vouches for, even across a power loss.
    pub fn write(&self, dir: &Path) -> Result<(), ManifestError> {
        let path = dir.join(MANIFEST_FILE);
        // Hidden like the CSVs' temporary files, since a kill can leave it behind; per
        // process, since the shards of one run share the directory.
        let tmp = dir.join(format!(".{MANIFEST_FILE}.{}.tmp", std::process::id()));
        let text = serde_json::to_string_pretty(self).expect("a manifest serialises") + "\n";
        let write_synced = || -> std::io::Result<()> {
            let mut file = std::fs::File::create(&tmp)?;
            std::io::Write::write_all(&mut file, text.as_bytes())?;
            file.sync_data()?;
            drop(file);
            std::fs::rename(&tmp, &path)?;
            crate::csv_logging::sync_dir(&path)
        };
        write_synced().map_err(|source| {
            let _ = std::fs::remove_file(&tmp);
            ManifestError::Write { path, source }
        })
    }

    /// The run alone, without the files of another run that may still be there.
    fn run(&self) -> String {
        RunManifest {
            overwriting: None,
            ..self.clone()
        }
        .to_string()
    }

    /// What makes results written under `self` and under `other` different runs (agent,
    /// seed, episode count), each as "`self`'s, not `other`'s".
    pub fn differences(&self, other: &Self) -> Vec<String> {
        let episodes =
            |n: Option<usize>| n.map_or("all episodes".into(), |n| format!("{n} per id"));
        let mut out = Vec::new();
        if self.agent != other.agent {
            out.push(format!("agent {}, not {}", self.agent, other.agent));
        }
        if self.seed != other.seed {
            out.push(format!("seed {}, not {}", self.seed, other.seed));
        }
        // Older manifests recorded no configuration: only a recorded one can differ.
        if !other.config.is_empty() {
            for (key, ours) in self.config.iter().filter(|(k, _)| *k != "seed") {
                match other.config.get(key) {
                    Some(theirs) if theirs == ours => {}
                    Some(theirs) => out.push(format!("{key}={ours}, not {theirs}")),
                    None => out.push(format!("{key}={ours}, not unset")),
                }
            }
            let ours_lacks = |k: &&String| !self.config.contains_key(*k);
            for key in other.config.keys().filter(ours_lacks) {
                out.push(format!("no {key}, not {}", other.config[key]));
            }
        }
        if self.num_episodes != other.num_episodes {
            out.push(format!(
                "{}, not {}",
                episodes(self.num_episodes),
                episodes(other.num_episodes)
            ));
        }
        out
    }
}

/// Whether version `theirs` (`major.minor.patch`) is newer than `ours`; a version that is
/// not three numbers is taken as newer, since this one cannot have written it.
fn newer(theirs: &str, ours: &str) -> bool {
    let parts = |v: &str| -> Option<Vec<u64>> {
        let core = v.split(['-', '+']).next()?;
        core.split('.').map(|p| p.parse().ok()).collect()
    };
    match (parts(theirs), parts(ours)) {
        (Some(theirs), Some(ours)) => theirs > ours,
        _ => true,
    }
}

impl fmt::Display for RunManifest {
    /// `agent dqn, seed 42` (and the episode count when shortened, and the files of
    /// another run still there).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "agent {}, seed {}", self.agent, self.seed)?;
        if let Some(n) = self.num_episodes {
            write!(f, ", {n} episodes per id")?;
        }
        if let Some(o) = &self.overwriting {
            write!(
                f,
                "; {} files are still those of {} (an unfinished --overwrite: run it again \
                 to finish)",
                o.files.len(),
                o.replacing
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_survives_a_round_trip_and_a_broken_one_is_named() {
        let dir = std::env::temp_dir().join(format!("manifest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(RunManifest::read(&dir).unwrap(), None);
        let manifest = RunManifest::new("boot_dqn", "ensemble of 20", 3, Some(50));
        manifest.write(&dir).unwrap();
        assert_eq!(RunManifest::read(&dir).unwrap(), Some(manifest.clone()));
        assert_eq!(
            manifest.to_string(),
            "agent boot_dqn, seed 3, 50 episodes per id"
        );
        std::fs::write(dir.join(MANIFEST_FILE), "{\"agent\": 1}").unwrap();
        let err = RunManifest::read(&dir).unwrap_err().to_string();
        assert!(err.contains(MANIFEST_FILE), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn another_configuration_is_another_run() {
        let with = |pairs: &[(&str, &str)]| RunManifest {
            config: (pairs.iter())
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..RunManifest::new("dqn", "DQN", 42, None)
        };
        let adam = with(&[
            ("optimizer", "adam"),
            ("learning_rate", "0.001"),
            ("seed", "42"),
        ]);
        let sgd = with(&[
            ("optimizer", "sgd"),
            ("learning_rate", "0.01"),
            ("seed", "42"),
        ]);
        assert_eq!(
            sgd.differences(&adam),
            ["learning_rate=0.01, not 0.001", "optimizer=sgd, not adam"]
        );
        assert!(adam.differences(&adam.clone()).is_empty());
        // A manifest from before configurations were recorded is not another run.
        assert!(adam.differences(&with(&[])).is_empty());
        let newer = with(&[
            ("optimizer", "adam"),
            ("learning_rate", "0.001"),
            ("lr2", "1"),
        ]);
        assert_eq!(adam.differences(&newer), ["no lr2, not 1"]);
    }

    /// A run resumed by other builds records each of them once, oldest first, and the
    /// last in `git_revision`; another run starts its own record.
    #[test]
    fn a_resumed_run_keeps_the_builds_that_wrote_it() {
        let dir = std::env::temp_dir().join(format!("manifest-builds-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let by = |revision: &str, seed: u32| RunManifest {
            git_revision: Some(revision.to_string()),
            ..RunManifest::new("boot_dqn", "ensemble", seed, None)
        };
        let selected = BTreeSet::new();
        let recorded = |dir: &Path| {
            let manifest = RunManifest::read(dir).unwrap().unwrap();
            (manifest.git_revision.unwrap(), manifest.earlier_revisions)
        };
        for (revision, last, earlier) in [
            ("aaa", "aaa", vec![]),
            ("aaa", "aaa", vec![]),
            ("bbb", "bbb", vec!["aaa"]),
            ("aaa", "aaa", vec!["aaa", "bbb"]),
            ("ccc", "ccc", vec!["aaa", "bbb"]),
        ] {
            claim(&dir, &by(revision, 42), false, &selected, Locking::Flock).unwrap();
            let earlier: Vec<String> = earlier.iter().map(|r| r.to_string()).collect();
            assert_eq!(
                recorded(&dir),
                (last.to_string(), earlier),
                "after {revision}"
            );
        }
        claim(&dir, &by("ddd", 7), true, &selected, Locking::Flock).unwrap();
        assert_eq!(recorded(&dir), ("ddd".to_string(), vec![]), "another run");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
