//! Files a command writes beside the user's own (`score --export`, `pack-baseline`,
//! `cluster`): written whole through a rename, as regular files of the command's own,
//! never through a symbolic link, never in place of a results file, manifest or lock, and
//! over an earlier one only with `--overwrite` and only where it is that command's output.

use std::fs;
use std::io::Write as _;
use std::path::Path;

use anyhow::{bail, Context, Result};
use bsuite_logging::dir_lock::LOCK_FILE;
use bsuite_logging::manifest::MANIFEST_FILE;
use bsuite_logging::results::FILE_PREFIX;

/// A file a command is about to write: what it is, for messages, and how to recognise an
/// earlier one of its own.
pub struct Owned<'a> {
    /// The file.
    pub path: &'a Path,
    /// What it is, e.g. `the rliable export`.
    pub what: &'a str,
    /// Whether the bytes of an existing file are this command's earlier output.
    pub is_ours: fn(&[u8]) -> bool,
}

impl Owned<'_> {
    /// Refuses to write the file where it would replace anything but this command's own
    /// earlier output, and that only with `overwrite`. Call it for every file of a command
    /// before it writes any.
    pub fn check(&self, overwrite: bool) -> Result<()> {
        let path = self.path;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name == MANIFEST_FILE || name.starts_with(FILE_PREFIX) || name.starts_with(LOCK_FILE) {
            bail!(
                "{} is named as a results directory's own file (a results file, its \
                 {MANIFEST_FILE} or a lock), which {} never replaces: name another file",
                path.display(),
                self.what
            );
        }
        let meta = match fs::symlink_metadata(path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
        let kind = meta.file_type();
        if kind.is_symlink() {
            bail!(
                "{} is a symbolic link; {} is written only as a regular file of its own, \
                 never through a link: remove the link or name another file",
                path.display(),
                self.what
            );
        }
        if !kind.is_file() {
            let what = if kind.is_dir() {
                "a directory"
            } else {
                "not a regular file"
            };
            bail!(
                "{} is {what}: name a file for {}",
                path.display(),
                self.what
            );
        }
        if !overwrite {
            bail!(
                "{} exists; pass --overwrite to replace it with {}, or name another file",
                path.display(),
                self.what
            );
        }
        let bytes = fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        if !(self.is_ours)(&bytes) {
            bail!(
                "{} exists and is not {} written by an earlier run of this command, so \
                 --overwrite leaves it as it is: name another file",
                path.display(),
                self.what
            );
        }
        Ok(())
    }

    /// Writes `bytes` as the file: into a new temporary file beside it (created, never
    /// opened if there), synced, then renamed over the name, so the name never holds half
    /// a file and a link there is replaced, not followed.
    pub fn write(&self, bytes: &[u8]) -> Result<()> {
        write_new(self.path, |file| file.write_all(bytes))
    }
}

/// Writes `path` through a temporary file of this process beside it, created new (so a
/// link or another writer's file there is never written into), filled by `fill`, synced
/// and renamed into place.
pub fn write_new(
    path: &Path,
    fill: impl FnOnce(&mut fs::File) -> std::io::Result<()>,
) -> Result<()> {
    let name = path
        .file_name()
        .with_context(|| format!("{} names no file", path.display()))?;
    let tmp = path.with_file_name(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let written = (|| -> std::io::Result<()> {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        fill(&mut file)?;
        file.sync_data()?;
        drop(file);
        fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written.with_context(|| format!("writing {}", path.display()))
}

/// Whether `bytes` are JSON whose `format` field starts with `prefix`.
pub fn json_format_starts_with(bytes: &[u8], prefix: &str) -> bool {
    serde_json::from_slice::<serde_json::Value>(bytes).is_ok_and(|value| {
        value
            .get("format")
            .and_then(|f| f.as_str())
            .is_some_and(|f| f.starts_with(prefix))
    })
}
