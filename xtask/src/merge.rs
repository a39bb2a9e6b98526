//! `cargo xtask merge OUT DIR...` and `cargo xtask verify DIR`: gathering the results
//! directories of a split sweep (one per shard or per node) into one, with their
//! provenance, and checking that a directory holds every id it should, complete.
//!
//! Copying the CSV files alone loses the manifest, and a later run could then claim
//! another run's files; `merge` copies the manifest too, and only of directories that
//! agree on everything that makes them one run.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use bsuite_envs::BsuiteId;
use bsuite_logging::dir_lock::{self, Holder};
use bsuite_logging::manifest::{RunManifest, MANIFEST_FILE};
use bsuite_logging::results::{file_name, logged_episodes, ReadError, FILE_PREFIX};
use clap::Args;

/// Arguments of `cargo xtask merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The directory to gather into (created if missing; one that holds results must be
    /// of the same run).
    #[arg(value_name = "OUT")]
    pub out: PathBuf,
    /// The results directories to gather (shards' or nodes' directories of one run).
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
}

/// Arguments of `cargo xtask verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The results directory.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The ids it should hold: bsuite_ids, experiments, tags, SWEEP or TESTING (default:
    /// SWEEP, all 468).
    #[arg(long, num_args = 1.., value_name = "ID|EXPERIMENT|TAG|SWEEP|TESTING")]
    pub ids: Vec<String>,
}

/// How `a` and `b` differ as runs, `a`'s first; empty when they are one run's.
fn disagreement(a: &RunManifest, b: &RunManifest) -> Vec<String> {
    let mut out = a.differences(b);
    if a.description != b.description {
        out.push(format!("'{}', not '{}'", a.description, b.description));
    }
    if a.bsuite_rs != b.bsuite_rs {
        out.push(format!("bsuite-rs {}, not {}", a.bsuite_rs, b.bsuite_rs));
    }
    if a.git_revision != b.git_revision {
        let show = |r: &Option<String>| r.clone().unwrap_or_else(|| "an unknown build".into());
        out.push(format!(
            "build {}, not {}",
            show(&a.git_revision),
            show(&b.git_revision)
        ));
    }
    out
}

/// A directory's manifest, refusing what cannot be gathered with its provenance.
fn manifest_of(dir: &Path) -> Result<RunManifest> {
    let manifest = RunManifest::read(dir)?;
    let Some(manifest) = manifest else {
        bail!(
            "{} has no {MANIFEST_FILE}, so nothing says which agent, seed and episode count \
             wrote its files; merge gathers only directories written by bsuite-rs runs",
            dir.display()
        );
    };
    if let Some(overwriting) = &manifest.overwriting {
        bail!(
            "{} is in the middle of an --overwrite: {} of its files are still {}'s; run it \
             again to finish before merging",
            dir.display(),
            overwriting.files.len(),
            overwriting.replacing
        );
    }
    Ok(manifest)
}

/// The bsuite results files of `dir`, by name.
fn results_files(dir: &Path) -> Result<BTreeSet<String>> {
    let mut files = BTreeSet::new();
    let entries = fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))?;
    for entry in entries {
        let name = entry?.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with(FILE_PREFIX) && name.ends_with(".csv") {
            files.insert(name.to_string());
        }
    }
    Ok(files)
}

/// Runs `cargo xtask merge`.
pub fn merge(args: &MergeArgs) -> Result<()> {
    let summary = merge_dirs(&args.out, &args.dirs)?;
    bsuite_baselines::outln!("{summary}");
    Ok(())
}

/// Gathers `dirs` into `out`: checks that their manifests (and `out`'s, if it has one) are
/// one run's, that no id has different bytes in two places, then writes the manifest and
/// copies the files. Nothing is written when anything is refused. Returns a line saying
/// what was done.
pub fn merge_dirs(out: &Path, dirs: &[PathBuf]) -> Result<String> {
    fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    // No shard may write a source, nor anyone `out`, while they are gathered.
    let mut locks = vec![dir_lock::lock(out, Holder::Run)?];
    let out_real = out.canonicalize()?;
    for dir in dirs {
        if dir.canonicalize().ok().as_ref() == Some(&out_real) {
            bail!("{} is both OUT and a directory to merge", dir.display());
        }
        locks.push(dir_lock::lock(dir, Holder::Run)?);
    }
    let mut first: Option<(PathBuf, RunManifest)> = None;
    let existing = results_files(out)?;
    match RunManifest::read(out)? {
        Some(_) => first = Some((out.to_path_buf(), manifest_of(out)?)),
        None if !existing.is_empty() => {
            manifest_of(out)?;
        }
        None => {}
    }
    let mut revisions = Vec::new();
    for dir in dirs {
        let manifest = manifest_of(dir)?;
        match &first {
            None => first = Some((dir.clone(), manifest.clone())),
            Some((first_dir, theirs)) => {
                let differences = disagreement(&manifest, theirs);
                if !differences.is_empty() {
                    bail!(
                        "{} and {} hold different runs: {} has {}",
                        dir.display(),
                        first_dir.display(),
                        dir.display(),
                        differences.join(", ")
                    );
                }
            }
        }
        revisions.extend(manifest.earlier_revisions.iter().cloned());
    }
    let (_, agreed) = first.expect("at least one directory");
    // Where each file comes from; the same id in two places must be the same bytes.
    let mut sources: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut conflicts = Vec::new();
    for dir in dirs {
        for name in results_files(dir)? {
            let path = dir.join(&name);
            let earlier = sources
                .get(&name)
                .cloned()
                .or_else(|| existing.contains(&name).then(|| out.join(&name)));
            match earlier {
                Some(earlier) => {
                    if fs::read(&earlier)? != fs::read(&path)? {
                        conflicts.push(format!("{} and {}", earlier.display(), path.display()));
                    }
                }
                None => {
                    sources.insert(name, path);
                }
            }
        }
    }
    if !conflicts.is_empty() {
        bail!(
            "{} results file(s) differ between directories: {}; nothing was merged (verify \
             each directory with `cargo xtask verify`, and keep the complete one)",
            conflicts.len(),
            conflicts.join("; ")
        );
    }
    // The manifest is on the disk before the files it vouches for.
    let mut earlier_revisions = agreed.earlier_revisions.clone();
    for revision in revisions {
        if !earlier_revisions.contains(&revision) {
            earlier_revisions.push(revision);
        }
    }
    let manifest = RunManifest {
        shards: None,
        earlier_revisions,
        ..agreed
    };
    manifest.write(out)?;
    for (name, from) in &sources {
        copy_synced(from, &out.join(name))?;
    }
    drop(locks);
    Ok(format!(
        "merged {} directories into {}: {} files copied, {} already there ({})",
        dirs.len(),
        out.display(),
        sources.len(),
        existing.len(),
        manifest
    ))
}

/// Copies `from` to `to` through a temporary file, synced, so that `to` is never half a
/// file, even after a crash.
fn copy_synced(from: &Path, to: &Path) -> Result<()> {
    let tmp = bsuite_logging::csv_logging::temp_path(to);
    let bytes = fs::read(from).with_context(|| format!("reading {}", from.display()))?;
    let written = (|| -> std::io::Result<()> {
        let mut file = fs::File::create(&tmp)?;
        file.write_all(&bytes)?;
        file.sync_data()?;
        fs::rename(&tmp, to)?;
        // The rename survives a crash once the directory is synced.
        match to.parent() {
            Some(dir) => fs::File::open(dir)?.sync_all(),
            None => Ok(()),
        }
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written.with_context(|| format!("copying {} to {}", from.display(), to.display()))
}

/// The state of each selected id in a directory.
#[derive(Debug, Default, PartialEq)]
pub struct Verified {
    /// Ids with every episode.
    pub complete: Vec<BsuiteId>,
    /// Ids with fewer episodes than the run's count, with what they have.
    pub partial: Vec<(BsuiteId, u64)>,
    /// Ids whose file the strict reader rejects, with why.
    pub damaged: Vec<(BsuiteId, String)>,
    /// Ids without a file.
    pub missing: Vec<BsuiteId>,
}

/// Checks each of `ids` in `dir` against the episode count of `manifest` (each id's own
/// when it says none).
pub fn verify_dir(dir: &Path, ids: &[BsuiteId], manifest: &RunManifest) -> Verified {
    let mut verified = Verified::default();
    for &id in ids {
        let wanted = manifest.num_episodes.unwrap_or(id.num_episodes()) as u64;
        match logged_episodes(&dir.join(file_name(&id))) {
            Ok(None) => verified.missing.push(id),
            Ok(Some(n)) if n >= wanted => verified.complete.push(id),
            Ok(Some(n)) => verified.partial.push((id, n)),
            Err(ReadError::Io { error, .. }) if error.kind() == std::io::ErrorKind::NotFound => {
                verified.missing.push(id)
            }
            Err(error) => verified.damaged.push((id, error.to_string())),
        }
    }
    verified
}

/// Runs `cargo xtask verify`: fails unless every selected id is complete and the
/// directory's manifest vouches for them.
pub fn verify(args: &VerifyArgs) -> Result<()> {
    let dir = &args.dir;
    if !dir.is_dir() {
        bail!("results directory {} does not exist", dir.display());
    }
    let manifest = manifest_of(dir)?;
    let ids = bsuite_baselines::sweep::select_ids(&args.ids)?;
    let verified = verify_dir(dir, &ids, &manifest);
    let list = |ids: Vec<String>| {
        let more = if ids.len() > 20 { ", ..." } else { "" };
        let shown: Vec<String> = ids.into_iter().take(20).collect();
        format!("{}{more}", shown.join(", "))
    };
    let mut out = format!(
        "{}: {manifest}\n{} selected ids: {} complete, {} partial, {} damaged, {} missing\n",
        dir.display(),
        ids.len(),
        verified.complete.len(),
        verified.partial.len(),
        verified.damaged.len(),
        verified.missing.len()
    );
    if !verified.partial.is_empty() {
        let ids = verified
            .partial
            .iter()
            .map(|(id, n)| format!("{id} ({n} episodes)"));
        out += &format!("partial: {}\n", list(ids.collect()));
    }
    for (id, why) in &verified.damaged {
        out += &format!("damaged: {id}: {why}\n");
    }
    if !verified.missing.is_empty() {
        let ids = verified.missing.iter().map(ToString::to_string);
        out += &format!("missing: {}\n", list(ids.collect()));
    }
    let _ = write!(bsuite_baselines::console::Stdout, "{out}");
    if verified.complete.len() != ids.len() {
        bail!(
            "{} of {} selected ids in {} are not complete; rerun the sweep (or the shards \
             that hold them) into it to finish them",
            ids.len() - verified.complete.len(),
            ids.len(),
            dir.display()
        );
    }
    Ok(())
}
