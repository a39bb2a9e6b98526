//! `bsuite merge OUT DIR...`: gathering the results directories of a split sweep (one per
//! shard or per node) into one, with their provenance (`bsuite verify` then checks that it
//! holds every id it should, complete).
//!
//! Copying the CSV files alone loses the manifest, and a later run could then claim
//! another run's files; `merge` copies the manifest too, and only of directories that
//! agree on everything that makes them one run. It copies only files the strict reader
//! accepts, regular files under their bsuite names, and takes its place in `OUT`'s layout
//! under `OUT`'s lock as every writer does. Directories of `seed-<s>/` runs are merged and
//! verified seed by seed.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use bsuite_analysis::seeds::read_seed_dirs;
use bsuite_logging::dir_lock::{self, Holder, Locking};
use bsuite_logging::manifest::{claim_layout, RunManifest, MANIFEST_FILE};
use bsuite_logging::results::{read_run, seed_dir, Layout, FILE_PREFIX};
use clap::Args;

/// Arguments of `bsuite merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The directory to gather into (created if missing; one that holds results must be
    /// of the same run).
    #[arg(value_name = "OUT")]
    pub out: PathBuf,
    /// The results directories to gather (shards' or nodes' directories of one run), or
    /// directories of `seed-<s>/` runs, gathered seed by seed into `OUT/seed-<s>/`.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
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

/// A directory's manifest, refusing what `command` (merge or verify) cannot take.
pub(crate) fn manifest_of(dir: &Path, command: &str) -> Result<RunManifest> {
    let manifest = RunManifest::read(dir)?;
    let Some(manifest) = manifest else {
        bail!(
            "{} has no {MANIFEST_FILE}, so nothing says which agent, seed and episode count \
             wrote its files; {command} takes only results directories written by bsuite-rs \
             runs (one seed's, or a directory of seed-<s>/ ones)",
            dir.display()
        );
    };
    if let Some(overwriting) = &manifest.overwriting {
        bail!(
            "{} is in the middle of an --overwrite: {} of its files are still those of {}; \
             run it again to finish before {command}",
            dir.display(),
            overwriting.files.len(),
            overwriting.replacing
        );
    }
    Ok(manifest)
}

/// Refuses a path that is not a directory, saying what it is.
pub(crate) fn existing_dir(dir: &Path) -> Result<()> {
    match fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => bail!(
            "{} is not a directory: name a results directory",
            dir.display()
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!("results directory {} does not exist", dir.display())
        }
        Err(e) => Err(e).with_context(|| format!("reading {}", dir.display())),
    }
}

/// The seeds of a directory of `seed-<s>/` runs; empty for one run's directory.
pub(crate) fn seeds_of(dir: &Path) -> Result<Vec<u32>> {
    let seeds = read_seed_dirs(dir)?;
    for skipped in &seeds.skipped {
        bsuite_baselines::errln!("warning: {skipped}");
    }
    Ok(seeds.seeds.into_iter().map(|(seed, _)| seed).collect())
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

/// Runs `bsuite merge`.
pub fn run(args: &MergeArgs) -> Result<()> {
    let (out, dirs) = (&args.out, &args.dirs);
    let mut seen: Vec<(PathBuf, &PathBuf)> = Vec::new();
    for dir in dirs {
        existing_dir(dir)?;
        let real = dir.canonicalize()?;
        if let Some((_, first)) = seen.iter().find(|(r, _)| *r == real) {
            bail!(
                "{} and {} are one directory, named twice: name each directory to merge once",
                first.display(),
                dir.display()
            );
        }
        if out.canonicalize().ok().as_ref() == Some(&real) {
            bail!("{} is both OUT and a directory to merge", dir.display());
        }
        seen.push((real, dir));
    }
    let kinds: Vec<Vec<u32>> = dirs.iter().map(|d| seeds_of(d)).collect::<Result<_>>()?;
    let summary = match (
        kinds.iter().all(Vec::is_empty),
        kinds.iter().all(|k| !k.is_empty()),
    ) {
        (true, _) => merge_dirs(out, dirs)?,
        (_, true) => merge_seeds(out, dirs, &kinds)?,
        _ => {
            let multi = dirs[kinds.iter().position(|k| !k.is_empty()).expect("some")].display();
            let single = dirs[kinds.iter().position(Vec::is_empty).expect("some")].display();
            bail!(
                "{multi} holds seed-<s>/ directories and {single} one run's files: merge one \
                 seed's directories together (e.g. merge OUT/seed-<s> {multi}/seed-<s> \
                 {single}), or directories of seeds together"
            )
        }
    };
    bsuite_baselines::outln!("{summary}");
    Ok(())
}

/// Gathers directories of `seed-<s>/` runs (their seeds in `seeds`) into `out`, seed by
/// seed: `out/seed-<s>/` gathers every `dir/seed-<s>/` ([`merge_dirs`]), and every seed
/// must be the same run as its siblings.
fn merge_seeds(out: &Path, dirs: &[PathBuf], seeds: &[Vec<u32>]) -> Result<String> {
    drop(claim_layout(out, Layout::Seeds, None, &[], Locking::Flock)?);
    let all: BTreeSet<u32> = seeds.iter().flatten().copied().collect();
    let mut lines = Vec::new();
    for &seed in &all {
        let sources: Vec<PathBuf> = (dirs.iter().zip(seeds))
            .filter(|(_, theirs)| theirs.contains(&seed))
            .map(|(dir, _)| seed_dir(dir, seed))
            .collect();
        lines.push(merge_dirs(&seed_dir(out, seed), &sources)?);
    }
    Ok(format!(
        "merged {} seeds of {} directories into {}:\n{}",
        all.len(),
        dirs.len(),
        out.display(),
        lines.join("\n")
    ))
}

/// Gathers `dirs` into `out`: checks that their manifests (and `out`'s, if it has one) are
/// one run's, that every file is a regular file the strict reader accepts, that no id has
/// different bytes in two places, takes `out`'s place in the layout (as one run's
/// directory; a seed's beside siblings of the same run), then writes the manifest and
/// copies the files. Nothing is written when anything is refused. Returns a line saying
/// what was done.
pub fn merge_dirs(out: &Path, dirs: &[PathBuf]) -> Result<String> {
    // No shard may write a source while they are gathered.
    let mut locks = Vec::new();
    for dir in dirs {
        locks.push(dir_lock::lock(dir, Holder::Run)?);
    }
    let mut first: Option<(PathBuf, RunManifest)> = None;
    let mut revisions = Vec::new();
    let mut manifests = Vec::new();
    for dir in dirs {
        manifests.push(manifest_of(dir, "merge")?);
    }
    // `out` is created and claimed under its lock (a seed's under its parent's first), and
    // nobody else may write it while the files are gathered.
    let layout = claim_layout(out, Layout::OneSeed, manifests.first(), &[], Locking::Flock)?;
    locks.push(dir_lock::lock(out, Holder::Run)?);
    let existing = results_files(out)?;
    match RunManifest::read(out)? {
        Some(_) => first = Some((out.to_path_buf(), manifest_of(out, "merge")?)),
        None if !existing.is_empty() => {
            manifest_of(out, "merge")?;
        }
        None => {}
    }
    for (dir, manifest) in dirs.iter().zip(manifests) {
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
    // Only what a run writes is gathered: regular files (not links, which could lead
    // anywhere), under an id's name, that the strict reader accepts whole.
    let mut bad = Vec::new();
    for dir in dirs.iter().chain([&out.to_path_buf()]) {
        for name in results_files(dir)? {
            if let Err(why) = gatherable(&dir.join(&name)) {
                bad.push(why);
            }
        }
    }
    if !bad.is_empty() {
        bail!(
            "{} results file(s) cannot be gathered: {}; nothing was merged (rerun the shard \
             that holds each into its own directory to replace it, then merge)",
            bad.len(),
            bad.join("; ")
        );
    }
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
             each directory with `bsuite verify`, and keep the complete one)",
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
    drop(layout);
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

/// Why the results file at `path` cannot be gathered, if it cannot: it is not a regular
/// file, its name is no id's, or the strict reader rejects its content.
fn gatherable(path: &Path) -> std::result::Result<(), String> {
    let meta = fs::symlink_metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if meta.file_type().is_symlink() {
        return Err(format!(
            "{} is a symbolic link, not a file a run wrote",
            path.display()
        ));
    }
    read_run(path).map(drop).map_err(|e| e.to_string())
}

/// Copies `from` to `to` through a new temporary file of this process, synced, so that
/// `to` is never half a file, even after a crash.
fn copy_synced(from: &Path, to: &Path) -> Result<()> {
    let bytes = fs::read(from).with_context(|| format!("reading {}", from.display()))?;
    crate::owned_file::write_new(to, |file| file.write_all(&bytes))
        .with_context(|| format!("copying {}", from.display()))?;
    // The rename survives a crash once the directory is synced.
    if let Some(dir) = to.parent() {
        fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .with_context(|| format!("syncing {}", dir.display()))?;
    }
    Ok(())
}
