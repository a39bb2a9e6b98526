//! One writer per results directory. A run holds an advisory lock (`flock`) on
//! `DIR/.bsuite-lock` while it writes: exclusive for a whole run, shared for a shard, which
//! also holds `DIR/.bsuite-lock-shard-I-of-N` exclusively. So shards of one split share a
//! directory, while a second run of the same ids (or of a shard already running) is turned
//! away at once, told who holds the directory. The kernel drops the lock when its process
//! ends in any way (even `kill -9`), so a lock is never stale; the files stay behind,
//! holding the last owner's description, and are reused by the next run.
//!
//! Python bsuite's readers look only at `bsuite_id_-_*.csv` files and ignore these.

use std::fmt;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::shard::Shard;

/// The name of the directory's lock file.
pub const LOCK_FILE: &str = ".bsuite-lock";

/// Held while a run writes into a results directory; dropping it releases the directory.
#[derive(Debug)]
pub struct DirLock {
    _files: Vec<File>,
}

/// Why a results directory could not be locked.
#[derive(Debug)]
pub enum LockError {
    /// Another run holds it.
    Busy {
        dir: PathBuf,
        /// Who holds it, as its lock file says (empty when it could not be read).
        owner: String,
    },
    /// The lock file could not be opened or locked.
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
}

impl fmt::Display for LockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockError::Busy { dir, owner } => {
                write!(
                    f,
                    "results directory {} is in use by another run",
                    dir.display()
                )?;
                if !owner.is_empty() {
                    write!(f, " ({owner})")?;
                }
                write!(
                    f,
                    "; wait for it to end, or pass another --results (shards of one split, \
                     --shard I/N, may share a directory)"
                )
            }
            LockError::Io { path, error } => write!(f, "locking {}: {error}", path.display()),
        }
    }
}

impl std::error::Error for LockError {}

/// Takes `dir` for a run (of one shard when `shard` is set), or says who has it.
///
/// ```
/// use bsuite_baselines::dir_lock;
///
/// let dir = std::env::temp_dir().join(format!("dir-lock-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let held = dir_lock::lock(&dir, None).unwrap();
/// assert!(dir_lock::lock(&dir, None).is_err());
/// drop(held);
/// assert!(dir_lock::lock(&dir, None).is_ok());
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn lock(dir: &Path, shard: Option<Shard>) -> Result<DirLock, LockError> {
    let whole = dir.join(LOCK_FILE);
    let mut files = Vec::new();
    match shard {
        None => {
            let file = take(dir, &whole, false)?;
            files.push(describe(file, &whole, None)?);
        }
        Some(shard) => {
            files.push(take(dir, &whole, true)?);
            let own = dir.join(format!(
                "{LOCK_FILE}-shard-{}-of-{}",
                shard.index, shard.count
            ));
            let file = take(dir, &own, false)?;
            files.push(describe(file, &own, Some(shard))?);
        }
    }
    Ok(DirLock { _files: files })
}

fn take(dir: &Path, path: &Path, shared: bool) -> Result<File, LockError> {
    let io = |error| LockError::Io {
        path: path.to_path_buf(),
        error,
    };
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(io)?;
    let taken = if shared {
        file.try_lock_shared()
    } else {
        file.try_lock()
    };
    match taken {
        Ok(()) => Ok(file),
        Err(TryLockError::WouldBlock) => Err(LockError::Busy {
            dir: dir.to_path_buf(),
            owner: owners(dir),
        }),
        Err(TryLockError::Error(error)) => Err(io(error)),
    }
}

/// Writes who holds the lock into its file.
fn describe(mut file: File, path: &Path, shard: Option<Shard>) -> Result<File, LockError> {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::env::var("HOSTNAME"))
        .unwrap_or_else(|_| "an unknown host".into());
    let what = match shard {
        Some(s) => format!("shard {}/{}", s.index, s.count),
        None => "a run".into(),
    };
    let text = format!(
        "{what}: pid {} on {} since {since} (Unix seconds)\n",
        std::process::id(),
        host.trim()
    );
    let written = file
        .set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| file.write_all(text.as_bytes()));
    written.map_err(|error| LockError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    Ok(file)
}

/// What the directory's lock files say about their owners, for a refusal.
fn owners(dir: &Path) -> String {
    let mut found = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(LOCK_FILE))
            })
            .collect();
        paths.sort();
        for path in paths {
            let mut text = String::new();
            let held = File::open(&path).is_ok_and(|mut f| {
                // Owners describe themselves in the files they hold exclusively.
                matches!(f.try_lock_shared(), Err(TryLockError::WouldBlock))
                    && f.read_to_string(&mut text).is_ok()
            });
            if held && !text.trim().is_empty() {
                found.push(text.trim().to_string());
            }
        }
    }
    found.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("dir-lock-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn shards_share_a_directory_a_whole_run_does_not() {
        let dir = scratch("shards");
        let shard = |i| Some(Shard { index: i, count: 2 });
        let first = lock(&dir, shard(0)).unwrap();
        let second = lock(&dir, shard(1)).unwrap();
        let again = lock(&dir, shard(0)).unwrap_err().to_string();
        assert!(again.contains("shard 0/2: pid"), "{again}");
        assert!(again.contains(&dir.display().to_string()), "{again}");
        assert!(
            lock(&dir, None).is_err(),
            "a whole run waits for the shards"
        );
        drop((first, second));
        let whole = lock(&dir, None).unwrap();
        assert!(lock(&dir, shard(1)).is_err(), "shards wait for a whole run");
        drop(whole);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
