//! `bsuite verify DIR`: whether a results directory holds every id it should, complete,
//! as its manifest vouches; a directory of `seed-<s>/` runs seed by seed.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use bsuite_envs::BsuiteId;
use bsuite_logging::manifest::RunManifest;
use bsuite_logging::results::{file_name, logged_episodes, seed_dir, ReadError};
use clap::Args;

use crate::merge::{existing_dir, manifest_of, seeds_of};

/// Arguments of `bsuite verify`.
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

/// Runs `bsuite verify`: fails unless every selected id is complete and the directory's
/// manifest vouches for them; a directory of `seed-<s>/` runs is verified seed by seed, and
/// fails unless every seed is complete.
pub fn run(args: &VerifyArgs) -> Result<()> {
    let dir = &args.dir;
    existing_dir(dir)?;
    let ids = bsuite_baselines::sweep::select_ids(&args.ids)?;
    let seeds = seeds_of(dir)?;
    if seeds.is_empty() {
        return verify_one(dir, &ids);
    }
    let failed: Vec<u32> = seeds
        .iter()
        .filter(|&&seed| {
            let result = verify_one(&seed_dir(dir, seed), &ids);
            if let Err(error) = &result {
                bsuite_baselines::errln!("seed {seed}: {error:#}");
            }
            result.is_err()
        })
        .copied()
        .collect();
    if !failed.is_empty() {
        let failed: Vec<String> = failed.iter().map(ToString::to_string).collect();
        bail!(
            "{} of the {} seeds of {} are not complete (seeds {})",
            failed.len(),
            seeds.len(),
            dir.display(),
            failed.join(", ")
        );
    }
    bsuite_baselines::outln!("{}: all {} seeds complete", dir.display(), seeds.len());
    Ok(())
}

/// `verify` of one run's directory.
fn verify_one(dir: &Path, ids: &[BsuiteId]) -> Result<()> {
    let manifest = manifest_of(dir, "verify")?;
    let verified = verify_dir(dir, ids, &manifest);
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
