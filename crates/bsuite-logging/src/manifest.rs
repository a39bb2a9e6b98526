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
pub use crate::results::MANIFEST_FILE;
use crate::results::{check_layout, seed_of_dir_name, Layout, LayoutError, FILE_PREFIX};

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
    // The OS's and serde's errors are part of the message, not a `source`: a chain
    // printed whole (`{:#}`) would repeat them.
    #[error("reading {path}: {error}")]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{path} is not a bsuite-rs run manifest: {problem}")]
    Parse { path: PathBuf, problem: String },
    #[error("writing {path}: {error}")]
    Write {
        path: PathBuf,
        error: std::io::Error,
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

/// Why a writer may not take its place in a results directory ([`claim_layout`], and so
/// [`claim`] and [`claim_recording`]): the directory, or the multi-seed directory it is a
/// seed of, is laid out for another kind of writer, a sibling seed is another run's, or
/// the manifest claim itself is refused ([`ClaimError`]).
#[derive(Debug, thiserror::Error)]
pub enum PlaceError {
    /// The directory holds the other layout ([`check_layout`]): one seed's files where
    /// seed directories go, or seed directories where one seed's files go.
    #[error("{error}")]
    Layout {
        /// Which layout it holds.
        error: LayoutError,
    },
    /// Recorders without a seed (`load_and_record*`) write one seed's files into the
    /// directory, where seed directories are to go.
    #[error(
        "{} is being recorded into (load_and_record*, whose files go directly in it), so \
         seed directories cannot go beside them; wait for the recorders to finish, or \
         choose another directory",
        .dir.display()
    )]
    Recording {
        /// The directory.
        dir: PathBuf,
    },
    /// A seed directory (`seed-<s>/`) is to hold another seed's run.
    #[error(
        "{} is the directory of seed {named} of a multi-seed run, but this run has seed \
         {seed}: run seed {named} into it (--seed {named}), or choose another directory",
        .dir.display()
    )]
    SeedOfAnotherDir {
        /// The seed directory.
        dir: PathBuf,
        /// The seed its name gives.
        named: u32,
        /// This run's seed.
        seed: u32,
    },
    /// A sibling seed directory holds another run: the seeds of one directory are one
    /// agent, configuration, episode count and build family.
    #[error(
        "{} holds seed {} of another run ({theirs}); the seeds of {} are one run, and this \
         one has {}: choose another directory for it, or rerun every seed of the directory \
         with --overwrite",
        .sibling.display(), .theirs.seed, .parent.display(), .differences.join(", ")
    )]
    SiblingRun {
        /// The multi-seed directory.
        parent: PathBuf,
        /// The sibling's directory.
        sibling: PathBuf,
        /// The run its manifest records.
        theirs: Box<RunManifest>,
        /// How this run differs from it.
        differences: Vec<String>,
    },
    /// A sibling seed directory holds results files that no manifest vouches for, so
    /// nothing says a new seed beside it is the same run.
    #[error(
        "{} holds results files (e.g. {example}) but no {MANIFEST_FILE}, so nothing says \
         that a run's seed beside it is the same agent and configuration; choose another \
         directory",
        .sibling.display()
    )]
    UnvouchedSibling {
        /// The sibling's directory.
        sibling: PathBuf,
        /// One of its results files.
        example: String,
    },
    /// A recorder's seed would go beside seeds that a run's manifests vouch for.
    #[error(
        "{} holds seed {} of a run ({theirs}, its {MANIFEST_FILE}); a recorded seed beside \
         it would be vouched for by no manifest: record into another directory",
        .sibling.display(), .theirs.seed
    )]
    RunSibling {
        /// The sibling's directory.
        sibling: PathBuf,
        /// The run its manifest records.
        theirs: Box<RunManifest>,
    },
    /// The directory could not be created.
    #[error("creating results directory {}: {error}", .dir.display())]
    CreateDir {
        /// The directory.
        dir: PathBuf,
        /// The OS error.
        error: std::io::Error,
    },
    /// The lock, or the claim of the manifest, refused it.
    #[error("{error}")]
    Claim {
        /// Why.
        error: ClaimError,
    },
}

impl From<ClaimError> for PlaceError {
    fn from(error: ClaimError) -> Self {
        PlaceError::Claim { error }
    }
}

impl From<LayoutError> for PlaceError {
    fn from(error: LayoutError) -> Self {
        PlaceError::Layout { error }
    }
}

impl From<LockError> for PlaceError {
    fn from(error: LockError) -> Self {
        PlaceError::Claim {
            error: ClaimError::Lock { error },
        }
    }
}

/// A writer's place in a results directory's layout, decided under the directory's
/// [`Provenance`] lock (and, for a seed directory, its multi-seed parent's first): while
/// it is held, no other writer reads or writes the directory's manifest or layout.
/// Dropping it releases them. Drop it before this process claims the directory, its
/// parent or its seeds again: the locks are `flock`s, which a second claim waits for even
/// in the process that holds the first.
#[derive(Debug)]
pub struct LayoutClaim {
    dir: PathBuf,
    /// The multi-seed directory's, for a seed directory.
    _parent: Option<Provenance>,
    provenance: Provenance,
}

/// The one rule for the layout of a results directory, which every writer (a run, a
/// seed of a multi-seed run, `merge`, a recorder) applies under the directory's lock
/// before it writes: a directory is either one run (its results files and manifest) or
/// the parent of `seed-<s>/` runs, and holds nothing else of a run.
///
/// `layout` is what the writer makes of `dir` (created if missing): [`Layout::OneSeed`]
/// for one run's files, [`Layout::Seeds`] for a multi-seed run's parent (then add its
/// seeds with [`LayoutClaim::add_seeds`]). A one-seed writer into a directory named
/// `seed-<s>` is a seed of its parent: under the parent's lock, taken first, the parent
/// must hold seeds only and no recorders, `ours` (the writer's manifest; `None` for a
/// recorder, which writes none) must have seed `s`, and every sibling seed must be the same
/// run ([`RunManifest::sibling_differences`]), but those of `pool`: the seeds that this
/// writer's run claims with it (a `--seeds` pool, whose `--overwrite` replaces them all);
/// the seed directory is created under that lock. A multi-seed parent is refused while
/// recorders write one seed's files into it.
///
/// ```
/// use bsuite_logging::dir_lock::Locking;
/// use bsuite_logging::manifest::{claim_layout, RunManifest};
/// use bsuite_logging::results::{seed_dir, Layout};
///
/// let dir = std::env::temp_dir().join(format!("claim-layout-doc-{}", std::process::id()));
/// let ours = RunManifest::new("random", "random", 42, Some(10));
/// let seeds = claim_layout(&dir, Layout::Seeds, Some(&ours), &[], Locking::Flock).unwrap();
/// seeds.add_seeds(&[42], &ours).unwrap();
/// drop(seeds);
/// ours.write(&seed_dir(&dir, 42)).unwrap();
/// // A single seed's files never go beside seed directories...
/// assert!(claim_layout(&dir, Layout::OneSeed, None, &[], Locking::Flock).is_err());
/// // ...and a new seed must be the same run as its siblings.
/// let other = RunManifest::new("random", "random", 43, Some(50));
/// let err = claim_layout(&seed_dir(&dir, 43), Layout::OneSeed, Some(&other), &[], Locking::Flock)
///     .unwrap_err()
///     .to_string();
/// assert!(err.contains("50 per id, not 10 per id"), "{err}");
/// assert!(!seed_dir(&dir, 43).exists(), "a refused seed leaves no directory");
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn claim_layout(
    dir: &Path,
    layout: Layout,
    ours: Option<&RunManifest>,
    pool: &[u32],
    locking: Locking,
) -> Result<LayoutClaim, PlaceError> {
    let parent = match (layout, seed_parent(dir)) {
        (Layout::OneSeed, Some((parent, seed))) => {
            create_dir(&parent, true)?;
            let provenance = Provenance::take_with(&parent, locking)?;
            if provenance.recorders_active()? {
                return Err(PlaceError::Recording { dir: parent });
            }
            check_layout(&parent, Layout::Seeds)?;
            if let Some(ours) = ours.filter(|ours| ours.seed != seed) {
                return Err(PlaceError::SeedOfAnotherDir {
                    dir: dir.to_path_buf(),
                    named: seed,
                    seed: ours.seed,
                });
            }
            let except: Vec<u32> = pool.iter().copied().chain([seed]).collect();
            check_siblings(&parent, &except, ours)?;
            create_dir(dir, false)?;
            Some(provenance)
        }
        _ => {
            create_dir(dir, true)?;
            None
        }
    };
    let provenance = Provenance::take_with(dir, locking)?;
    if layout == Layout::Seeds && provenance.recorders_active()? {
        return Err(PlaceError::Recording {
            dir: dir.to_path_buf(),
        });
    }
    check_layout(dir, layout)?;
    Ok(LayoutClaim {
        dir: dir.to_path_buf(),
        _parent: parent,
        provenance,
    })
}

impl LayoutClaim {
    /// The directory claimed.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Adds `seeds` of the run `ours` to a multi-seed directory claimed as
    /// [`Layout::Seeds`]: every other seed there must be the same run (as [`claim_layout`]
    /// requires of a seed), then each seed's directory is created. Returns each seed's
    /// directory and whether this call created it (so that a run refused later can remove
    /// the directories it left empty).
    pub fn add_seeds(
        &self,
        seeds: &[u32],
        ours: &RunManifest,
    ) -> Result<Vec<(PathBuf, bool)>, PlaceError> {
        check_siblings(&self.dir, seeds, Some(ours))?;
        seeds
            .iter()
            .map(|&seed| {
                let dir = crate::results::seed_dir(&self.dir, seed);
                create_dir(&dir, false).map(|created| (dir, created))
            })
            .collect()
    }
}

/// The multi-seed directory and seed of a directory named `seed-<s>`.
fn seed_parent(dir: &Path) -> Option<(PathBuf, u32)> {
    let seed = seed_of_dir_name(dir.file_name()?.to_str()?)?;
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Some((parent, seed))
}

/// Creates `dir` (and, with `all`, its parents); whether it was created now.
fn create_dir(dir: &Path, all: bool) -> Result<bool, PlaceError> {
    if dir.is_dir() {
        return Ok(false);
    }
    let created = match all {
        true => std::fs::create_dir_all(dir),
        false => std::fs::create_dir(dir),
    };
    match created {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(false),
        Err(error) => Err(PlaceError::CreateDir {
            dir: dir.to_path_buf(),
            error,
        }),
    }
}

/// Checks that the seed directories of `parent` other than `except` hold `ours`'s run
/// (a run's seed), or no run's manifest (`ours` `None`: a recorder's seed).
fn check_siblings(
    parent: &Path,
    except: &[u32],
    ours: Option<&RunManifest>,
) -> Result<(), PlaceError> {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Ok(());
    };
    let mut siblings: Vec<(u32, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let seed = seed_of_dir_name(e.file_name().to_str()?)?;
            (e.path().is_dir() && !except.contains(&seed)).then(|| (seed, e.path()))
        })
        .collect();
    siblings.sort();
    for (_, sibling) in siblings {
        let theirs =
            RunManifest::read(&sibling).map_err(|error| ClaimError::Unreadable { error })?;
        match (theirs, ours) {
            (Some(theirs), Some(ours)) => {
                let differences = ours.sibling_differences(&theirs);
                if !differences.is_empty() {
                    return Err(PlaceError::SiblingRun {
                        parent: parent.to_path_buf(),
                        sibling,
                        theirs: Box::new(theirs),
                        differences,
                    });
                }
            }
            (Some(theirs), None) => {
                return Err(PlaceError::RunSibling {
                    sibling,
                    theirs: Box::new(theirs),
                })
            }
            (None, Some(_)) => {
                let files = results_files(&sibling).unwrap_or_default();
                if let Some(example) = files.into_iter().next() {
                    return Err(PlaceError::UnvouchedSibling { sibling, example });
                }
            }
            (None, None) => {}
        }
    }
    Ok(())
}

/// What a run must do after [`claim`]ing a directory.
#[derive(Debug, Default)]
pub struct Claim {
    /// Files of its selection that are another run's and must be rerun even when
    /// complete; [`finished`] marks each one replaced.
    pub rerun: BTreeSet<String>,
}

/// Checks, under `dir`'s provenance lock, that it is laid out for one run
/// ([`claim_layout`]: for a seed directory, that its siblings are the same run) and holds
/// `ours`'s results (or none), and records `ours` in its manifest. `selected` are the
/// file names of the ids this writer will write. Another run's directory, an unreadable
/// manifest and results files without one are refused unless `overwrite`; then (and for
/// every `overwrite`) the manifest lists the files that are still another run's, which
/// the returned [`Claim::rerun`] holds where selected. `locking` is the writer's
/// ([`Locking::Unlocked`]: no lock is taken).
pub fn claim(
    dir: &Path,
    ours: &RunManifest,
    overwrite: bool,
    selected: &BTreeSet<String>,
    locking: Locking,
) -> Result<Claim, PlaceError> {
    claim_in_pool(dir, ours, overwrite, selected, &[], locking)
}

/// [`claim`] for one seed of a pool of seeds that one run claims together (`--seeds`):
/// the pool's other seeds are not siblings it must agree with ([`claim_layout`]).
pub fn claim_in_pool(
    dir: &Path,
    ours: &RunManifest,
    overwrite: bool,
    selected: &BTreeSet<String>,
    pool: &[u32],
    locking: Locking,
) -> Result<Claim, PlaceError> {
    let layout = claim_layout(dir, Layout::OneSeed, Some(ours), pool, locking)?;
    Ok(claim_manifest(&layout, ours, overwrite, selected)?)
}

/// [`claim`]'s decision about the manifest, under `layout`'s lock.
fn claim_manifest(
    layout: &LayoutClaim,
    ours: &RunManifest,
    overwrite: bool,
    selected: &BTreeSet<String>,
) -> Result<Claim, ClaimError> {
    let dir = layout.dir();
    if layout
        .provenance
        .recorders_active()
        .map_err(|error| ClaimError::Lock { error })?
    {
        return Err(ClaimError::Recording {
            dir: dir.to_path_buf(),
        });
    }
    let existing = results_files(dir).map_err(|error| ClaimError::Unreadable {
        error: ManifestError::Read {
            path: dir.to_path_buf(),
            error,
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
                (false, true) => replaced(theirs.replaced_by(ours)),
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

/// Takes `dir` for one recorder ([`Holder::Recorder`]) as [`claim_for_recording`] does,
/// after deciding its place in the layout ([`claim_layout`]): a recorder's directory
/// holds one seed's files, so it is refused where seed directories are; a directory named
/// `seed-<s>` is a seed of its parent, created under the parent's lock and refused beside
/// seeds that a run's manifest vouches for. Hold the lock while recording.
pub fn claim_recording(dir: &Path) -> Result<DirLock, PlaceError> {
    let layout = claim_layout(dir, Layout::OneSeed, None, &[], Locking::Flock)?;
    let mut lock = dir_lock::lock(dir, Holder::Recorder)?;
    match RunManifest::read(dir) {
        Ok(None) => {}
        Ok(Some(theirs)) => {
            return Err(ClaimError::RunsResults {
                dir: dir.to_path_buf(),
                theirs: Box::new(theirs),
            }
            .into())
        }
        Err(error) => return Err(ClaimError::Unreadable { error }.into()),
    }
    layout.provenance.start_recording(&mut lock)?;
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
            Err(error) => return Err(ManifestError::Read { path, error }),
        };
        let parse = |problem: String| ManifestError::Parse {
            path: path.clone(),
            problem,
        };
        let value: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| parse(format!("not JSON ({e})")))?;
        if !value.is_object() {
            return Err(parse(
                "its JSON is not an object of fields (agent, seed, ...)".into(),
            ));
        }
        let unknown: Vec<String> = value
            .as_object()
            .into_iter()
            .flat_map(|fields| fields.keys())
            .filter(|key| !KNOWN_FIELDS.contains(&key.as_str()))
            .cloned()
            .collect();
        let manifest: RunManifest =
            serde_json::from_value(value).map_err(|e| parse(e.to_string()))?;
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
        write_synced().map_err(|error| {
            let _ = std::fs::remove_file(&tmp);
            ManifestError::Write { path, error }
        })
    }

    /// The run alone, without the files of another run that may still be there.
    pub fn run(&self) -> String {
        RunManifest {
            overwriting: None,
            ..self.clone()
        }
        .to_string()
    }

    /// The run `self`, as replaced by `ours`: [`RunManifest::run`], and where their
    /// configurations differ, both, so that a file still `self`'s never reads as `ours`'s
    /// (`agent dqn, seed 42, with learning_rate=0.001 (this run: learning_rate=0.01)`).
    fn replaced_by(&self, ours: &RunManifest) -> String {
        // A manifest from before configurations were recorded names none to compare.
        let (theirs_side, ours_side) = match self.config.is_empty() {
            true => Default::default(),
            false => config_sides(self, ours),
        };
        match theirs_side.is_empty() {
            true => self.run(),
            false => format!(
                "{}, with {} (this run: {})",
                self.run(),
                theirs_side.join(", "),
                ours_side.join(", ")
            ),
        }
    }

    /// What makes `self` and `other` seeds of different runs, each as "`self`'s, not
    /// `other`'s": the agent, the configuration (where both record one), the episode count
    /// and the build family (the bsuite-rs release). The seed, the build's commit and the
    /// engine may differ: the engines run one arithmetic, and the shipped actor_critic_rnn
    /// has seeds of both.
    pub fn sibling_differences(&self, other: &Self) -> Vec<String> {
        let mut out = Vec::new();
        if self.agent != other.agent {
            out.push(format!("agent {}, not {}", self.agent, other.agent));
        }
        if !self.config.is_empty() && !other.config.is_empty() {
            let (ours, theirs) = config_sides(self, other);
            out.extend(
                ours.iter()
                    .zip(&theirs)
                    .map(|(o, t)| format!("{o}, not {t}")),
            );
        }
        let episodes =
            |n: Option<usize>| n.map_or("all episodes".into(), |n| format!("{n} per id"));
        if self.num_episodes != other.num_episodes {
            out.push(format!(
                "{}, not {}",
                episodes(self.num_episodes),
                episodes(other.num_episodes)
            ));
        }
        if self.bsuite_rs != other.bsuite_rs {
            out.push(format!(
                "bsuite-rs {}, not {}",
                self.bsuite_rs, other.bsuite_rs
            ));
        }
        out
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

/// The configuration keys (but `seed`) where `a` and `b` differ, as `key=value` on each
/// side (`key unset` where one has none), in key order.
fn config_sides(a: &RunManifest, b: &RunManifest) -> (Vec<String>, Vec<String>) {
    let keys: BTreeSet<&String> = a.config.keys().chain(b.config.keys()).collect();
    let side = |m: &RunManifest, key: &str| match m.config.get(key) {
        Some(value) => format!("{key}={value}"),
        None => format!("{key} unset"),
    };
    keys.into_iter()
        .filter(|key| *key != "seed" && a.config.get(*key) != b.config.get(*key))
        .map(|key| (side(a, key), side(b, key)))
        .unzip()
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
    use crate::results::seed_dir;

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

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("manifest-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    /// Issue 55, items 2 and 3: the layout is one rule, applied under the lock by every
    /// writer. A seed joins only siblings of its own run (agent, configuration, episodes,
    /// build family); a single seed's files never go beside seed directories, nor seed
    /// directories beside them; a recorder's seed never goes beside a run's seeds.
    #[test]
    fn the_layout_rule_keeps_seeds_and_runs_apart() {
        let dir = scratch("layout");
        let seed = |s: u32, episodes: usize| {
            let mut m = RunManifest::new("random", "random", s, Some(episodes));
            m.config.insert("seed".into(), s.to_string());
            m
        };
        let layout = claim_layout(
            &dir,
            Layout::Seeds,
            Some(&seed(42, 20)),
            &[],
            Locking::Flock,
        );
        let added = layout.unwrap().add_seeds(&[42, 43], &seed(42, 20)).unwrap();
        assert!(added.iter().all(|(_, created)| *created));
        for s in [42, 43] {
            claim(
                &seed_dir(&dir, s),
                &seed(s, 20),
                false,
                &BTreeSet::new(),
                Locking::Flock,
            )
            .unwrap();
        }
        // Another episode count as a new seed, through --seeds or into its directory.
        let other = seed(44, 50);
        let layout = claim_layout(&dir, Layout::Seeds, Some(&other), &[], Locking::Flock).unwrap();
        let err = layout.add_seeds(&[44, 45], &other).unwrap_err();
        drop(layout);
        assert!(matches!(err, PlaceError::SiblingRun { .. }), "{err}");
        assert!(
            err.to_string().contains("50 per id, not 20 per id"),
            "{err}"
        );
        assert!(
            !seed_dir(&dir, 44).exists(),
            "nothing is created when refused"
        );
        let selected = BTreeSet::new();
        let err = claim(&seed_dir(&dir, 44), &other, true, &selected, Locking::Flock);
        assert!(matches!(err, Err(PlaceError::SiblingRun { .. })), "{err:?}");
        assert!(!seed_dir(&dir, 44).exists());
        let mut dqn = seed(44, 20);
        dqn.agent = "dqn".into();
        let err = claim(&seed_dir(&dir, 44), &dqn, false, &selected, Locking::Flock);
        assert!(err
            .unwrap_err()
            .to_string()
            .contains("agent dqn, not random"));
        // A seed directory is its seed's.
        let err = claim(
            &seed_dir(&dir, 44),
            &seed(7, 20),
            false,
            &selected,
            Locking::Flock,
        );
        assert!(matches!(
            err,
            Err(PlaceError::SeedOfAnotherDir {
                named: 44,
                seed: 7,
                ..
            })
        ));
        // The same run's new seed is welcome; one seed's files are not.
        claim(
            &seed_dir(&dir, 44),
            &seed(44, 20),
            false,
            &selected,
            Locking::Flock,
        )
        .unwrap();
        let err = claim(&dir, &seed(42, 20), false, &selected, Locking::Flock).unwrap_err();
        assert!(matches!(
            err,
            PlaceError::Layout {
                error: LayoutError::HoldsSeeds { .. }
            }
        ));
        // A recorder's seed beside a run's seeds.
        let err = claim_recording(&seed_dir(&dir, 9)).unwrap_err();
        assert!(matches!(err, PlaceError::RunSibling { .. }), "{err}");
        assert!(!seed_dir(&dir, 9).exists());
        std::fs::remove_dir_all(&dir).unwrap();

        // One seed's run: no seed directory beside it, from a run or a recorder.
        let single = scratch("layout-single");
        claim(&single, &seed(42, 20), false, &selected, Locking::Flock).unwrap();
        let err = claim_layout(&single, Layout::Seeds, None, &[], Locking::Flock).unwrap_err();
        assert!(matches!(
            err,
            PlaceError::Layout {
                error: LayoutError::HoldsOneSeed { .. }
            }
        ));
        let err = claim_recording(&seed_dir(&single, 42)).unwrap_err();
        assert!(matches!(err, PlaceError::Layout { .. }), "{err}");
        assert!(!seed_dir(&single, 42).exists());
        std::fs::remove_dir_all(&single).unwrap();
    }

    /// Issue 55, item 15: an unfinished overwrite names the configuration of the files
    /// still there, and this run's, so the two never read the same.
    #[test]
    fn an_overwrite_names_both_configurations() {
        let dir = scratch("both-configs");
        let with = |rate: &str| {
            let mut m = RunManifest::new("dqn", "DQN", 43, Some(2000));
            m.config.insert("learning_rate".into(), rate.into());
            m
        };
        let files: BTreeSet<String> = ["bsuite_id_-_catch-0.csv".to_string()].into();
        std::fs::create_dir_all(&dir).unwrap();
        claim(&dir, &with("0.001"), false, &files, Locking::Flock).unwrap();
        std::fs::write(dir.join("bsuite_id_-_catch-0.csv"), "x").unwrap();
        claim(&dir, &with("0.01"), true, &files, Locking::Flock).unwrap();
        let text = RunManifest::read(&dir).unwrap().unwrap().to_string();
        assert!(
            text.contains(
                "1 files are still those of agent dqn, seed 43, 2000 episodes per id, with \
                 learning_rate=0.001 (this run: learning_rate=0.01)"
            ),
            "{text}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 55, item 16: a manifest's problem is said once, in words, not serde's.
    #[test]
    fn a_bad_manifest_is_described_in_words() {
        let dir = scratch("bad-manifest");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(MANIFEST_FILE), "[1, 2]").unwrap();
        let err = RunManifest::read(&dir).unwrap_err();
        assert!(!err.to_string().contains("struct RunManifest"), "{err}");
        assert!(err.to_string().contains("not an object"), "{err}");
        assert!(
            std::error::Error::source(&err).is_none(),
            "said once: {err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
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
