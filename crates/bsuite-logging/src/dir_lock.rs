//! One writer per results directory. A writer holds an advisory lock (`flock`) on
//! `DIR/.bsuite-lock` while it writes: exclusive for a whole run, shared for a shard, which
//! also holds `DIR/.bsuite-lock-shard-I-of-N` exclusively, and shared for a recorder (one
//! environment recording its CSV, as Python's `load_and_record*` do), which also holds
//! `DIR/.bsuite-lock-recorders` shared. So shards of one split share a directory, and so do
//! recorders, while a second run of the same ids (or of a shard already running) is turned
//! away at once, told who holds the directory. The kernel drops the lock when its process
//! ends in any way (even `kill -9`), so a lock is never stale; the files stay behind,
//! holding the last owner's description, and are reused by the next run.
//!
//! Recorders share a directory but never a file: each holds its results file's own lock,
//! `DIR/.bsuite-lock-of-<file>` ([`claim_file`]), exclusively for as long as it may write
//! it, so a second writer of the file, in another process or in the same one (`flock`
//! locks conflict between two opens of a file within one process too), is refused when it
//! opens rather than overwriting the first's rows.
//!
//! Writers that share a directory decide its provenance (the manifest) one at a time,
//! under [`Provenance`]: the check of the manifest and its writing are one step, so two
//! shards of different runs that start together cannot both pass the check.
//!
//! Python bsuite's readers look only at `bsuite_id_-_*.csv` files and ignore these.

use std::fmt;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// The name of the directory's lock file.
pub const LOCK_FILE: &str = ".bsuite-lock";

/// Held (briefly, exclusively, waited for) while a writer checks and writes the manifest.
const PROVENANCE_FILE: &str = ".bsuite-lock-manifest";

/// Held shared by every recorder for as long as it records.
const RECORDERS_FILE: &str = ".bsuite-lock-recorders";

/// The start of the name of a results file's own lock ([`claim_file`]).
const FILE_CLAIM_PREFIX: &str = ".bsuite-lock-of-";

/// Who takes a results directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holder {
    /// A whole run: nobody else writes while it holds the directory.
    Run,
    /// Shard `index` of `count` of one split, beside the split's other shards.
    Shard {
        /// This shard, `0..count`.
        index: usize,
        /// Number of shards.
        count: usize,
    },
    /// One environment recording its own CSV file, beside other recorders (Python's
    /// `load_and_record*`).
    Recorder,
}

/// Whether a writer takes the directory's locks: `flock` (the default), or none, for a
/// filesystem that refuses `flock` when the writer is sure to be the directory's only one
/// (`--lock none`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Locking {
    /// `flock` on the lock files.
    #[default]
    Flock,
    /// No lock at all: nothing keeps a second writer out.
    Unlocked,
}

impl std::str::FromStr for Locking {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "flock" => Ok(Locking::Flock),
            "none" => Ok(Locking::Unlocked),
            _ => Err(format!("'{s}' is not a lock: flock or none")),
        }
    }
}

impl fmt::Display for Locking {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Locking::Flock => "flock",
            Locking::Unlocked => "none",
        })
    }
}

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
        /// The results directory.
        dir: PathBuf,
        /// Who holds it, as its lock file says (empty when it could not be read).
        owner: String,
    },
    /// Shards of another split (another N) are writing into it: their ids overlap this
    /// shard's.
    OtherSplit {
        /// The results directory.
        dir: PathBuf,
        /// This shard, `index`/`count`.
        ours: (usize, usize),
        /// Who holds the other split's shards, as their lock files say.
        theirs: String,
    },
    /// Another writer holds the results file ([`claim_file`]): a recorder of the same id
    /// into the same directory, in another process or in this one.
    FileInUse {
        /// The results file.
        path: PathBuf,
        /// Who holds it, as its lock file says (empty while that writer is starting).
        owner: String,
        /// The holder is this process (another environment of it records the file).
        this_process: bool,
    },
    /// The filesystem refuses `flock` (`ENOLCK`, `EOPNOTSUPP`, `ENOSYS`): no second
    /// writer can be kept out. `--lock none` runs without the lock.
    Unsupported {
        /// The lock file.
        path: PathBuf,
        /// The OS error.
        error: std::io::Error,
    },
    /// The lock file could not be opened or locked.
    Io {
        /// The lock file.
        path: PathBuf,
        /// The OS error.
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
            LockError::OtherSplit { dir, ours, theirs } => write!(
                f,
                "results directory {} is being written by shards of another split ({theirs}); \
                 this run is --shard {}/{}, whose ids overlap theirs: shards share a \
                 directory only within one split (the same N). Wait for them to end, or pass \
                 their N or another --results",
                dir.display(),
                ours.0,
                ours.1
            ),
            LockError::FileInUse {
                path,
                owner,
                this_process,
            } => {
                write!(f, "results file {} is being written by ", path.display())?;
                match (this_process, owner.is_empty()) {
                    (true, _) => write!(f, "another writer in this process ({owner})")?,
                    (false, true) => f.write_str("another writer that is starting")?,
                    (false, false) => write!(f, "another writer ({owner})")?,
                }
                f.write_str(
                    "; two writers of one file would lose one's rows, so it is refused: close \
                     the other writer first, or write into another directory",
                )
            }
            LockError::Unsupported { path, error } => write!(
                f,
                "the filesystem of {} refuses flock ({error}), so bsuite-rs cannot keep a \
                 second writer out of the directory. Write to a node-local directory (e.g. \
                 $TMPDIR) and gather it with `cargo xtask merge`, or, if you are sure this \
                 run is the only writer of the directory, pass --lock none",
                path.parent().unwrap_or(path).display()
            ),
            LockError::Io { path, error } => write!(f, "locking {}: {error}", path.display()),
        }
    }
}

impl std::error::Error for LockError {}

/// Takes `dir` for `holder`, or says who has it.
///
/// ```
/// use bsuite_logging::dir_lock::{self, Holder};
///
/// let dir = std::env::temp_dir().join(format!("dir-lock-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let held = dir_lock::lock(&dir, Holder::Run).unwrap();
/// assert!(dir_lock::lock(&dir, Holder::Run).is_err());
/// drop(held);
/// assert!(dir_lock::lock(&dir, Holder::Run).is_ok());
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn lock(dir: &Path, holder: Holder) -> Result<DirLock, LockError> {
    lock_with(dir, holder, Locking::Flock)
}

/// [`lock`], or, with [`Locking::Unlocked`], nothing: a `DirLock` that holds no lock.
pub fn lock_with(dir: &Path, holder: Holder, locking: Locking) -> Result<DirLock, LockError> {
    if locking == Locking::Unlocked {
        return Ok(DirLock { _files: Vec::new() });
    }
    let whole = dir.join(LOCK_FILE);
    let mut files = Vec::new();
    match holder {
        Holder::Run => {
            let file = take(dir, &whole, false)?;
            files.push(describe(file, &whole, holder)?);
        }
        Holder::Shard { index, count } => {
            files.push(take(dir, &whole, true)?);
            let own = dir.join(format!("{LOCK_FILE}-shard-{index}-of-{count}"));
            let file = take(dir, &own, false)?;
            files.push(describe(file, &own, holder)?);
            // Each shard looks for other splits after it holds its own file, so of two
            // shards of different splits that start together the later looker sees the
            // other.
            let theirs = other_splits(dir, count);
            if !theirs.is_empty() {
                return Err(LockError::OtherSplit {
                    dir: dir.to_path_buf(),
                    ours: (index, count),
                    theirs,
                });
            }
        }
        Holder::Recorder => files.push(take(dir, &whole, true)?),
    }
    Ok(DirLock { _files: files })
}

/// The right to decide a directory's provenance: while it is held, no other writer of the
/// directory reads or writes its manifest, or starts or stops recording. Held for a moment
/// by each writer as it starts (and as a run marks its progress), so it is waited for.
#[derive(Debug)]
pub struct Provenance {
    dir: PathBuf,
    /// `None` under [`Locking::Unlocked`].
    _file: Option<File>,
}

impl Provenance {
    /// Waits for and takes `dir`'s provenance.
    pub fn take(dir: &Path) -> Result<Self, LockError> {
        Self::take_with(dir, Locking::Flock)
    }

    /// [`Provenance::take`], or, with [`Locking::Unlocked`], a provenance that holds no
    /// lock (and sees no recorders).
    pub fn take_with(dir: &Path, locking: Locking) -> Result<Self, LockError> {
        if locking == Locking::Unlocked {
            return Ok(Provenance {
                dir: dir.to_path_buf(),
                _file: None,
            });
        }
        let path = dir.join(PROVENANCE_FILE);
        let io = |error| LockError::Io {
            path: path.clone(),
            error,
        };
        let file = open_lock_file(&path).map_err(io)?;
        file.lock().map_err(|error| flock_error(&path, error))?;
        Ok(Provenance {
            dir: dir.to_path_buf(),
            _file: Some(file),
        })
    }

    /// Whether a recorder ([`Holder::Recorder`]) is writing into the directory now.
    pub fn recorders_active(&self) -> Result<bool, LockError> {
        if self._file.is_none() {
            return Ok(false);
        }
        let path = self.dir.join(RECORDERS_FILE);
        let io = |error| LockError::Io {
            path: path.clone(),
            error,
        };
        let file = open_lock_file(&path).map_err(io)?;
        match file.try_lock() {
            Ok(()) => Ok(false),
            Err(TryLockError::WouldBlock) => Ok(true),
            Err(TryLockError::Error(error)) => Err(flock_error(&path, error)),
        }
    }

    /// Marks `lock` (a recorder's) as recording until it is dropped, so that runs that
    /// check [`Provenance::recorders_active`] see it.
    pub fn start_recording(&self, lock: &mut DirLock) -> Result<(), LockError> {
        let path = self.dir.join(RECORDERS_FILE);
        lock._files.push(take(&self.dir, &path, true)?);
        Ok(())
    }
}

/// Whether `error` from `flock` says the filesystem does not do locks at all (NFS without
/// a lock manager, some FUSE filesystems), rather than that this lock failed.
fn refuses_flock(error: &std::io::Error) -> bool {
    #[cfg(unix)]
    {
        let codes = [libc::ENOLCK, libc::EOPNOTSUPP, libc::ENOTSUP, libc::ENOSYS];
        error
            .raw_os_error()
            .is_some_and(|code| codes.contains(&code))
    }
    #[cfg(not(unix))]
    {
        error.kind() == std::io::ErrorKind::Unsupported
    }
}

/// The error of a failed `flock` on `path`.
fn flock_error(path: &Path, error: std::io::Error) -> LockError {
    let path = path.to_path_buf();
    match refuses_flock(&error) {
        true => LockError::Unsupported { path, error },
        false => LockError::Io { path, error },
    }
}

/// Opens (creating) a lock file.
fn open_lock_file(path: &Path) -> std::io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)?;
    Ok(file)
}

fn take(dir: &Path, path: &Path, shared: bool) -> Result<File, LockError> {
    let io = |error| LockError::Io {
        path: path.to_path_buf(),
        error,
    };
    let file = open_lock_file(path).map_err(io)?;
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
        Err(TryLockError::Error(error)) => Err(flock_error(path, error)),
    }
}

/// Writes who holds the lock into its file.
fn describe(file: File, path: &Path, holder: Holder) -> Result<File, LockError> {
    let what = match holder {
        Holder::Shard { index, count } => format!("shard {index}/{count}"),
        Holder::Run | Holder::Recorder => "a run".into(),
    };
    write_description(file, path, &format!("{what}: {}", this_process()))
}

fn write_description(mut file: File, path: &Path, text: &str) -> Result<File, LockError> {
    let written = file
        .set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| file.write_all(format!("{text}\n").as_bytes()));
    written.map_err(|error| LockError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    Ok(file)
}

/// `pid N on HOST since YYYY-MM-DD HH:MM:SS UTC`: this process, as its lock files say.
fn this_process() -> String {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    format!("{} since {}", process_name(), utc(since))
}

/// `pid N on HOST`, the part of [`this_process`] that tells this process from others.
fn process_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::env::var("HOSTNAME"))
        .unwrap_or_else(|_| "an unknown host".into());
    format!("pid {} on {}", std::process::id(), host.trim())
}

/// Unix time `secs` as `YYYY-MM-DD HH:MM:SS UTC` (the proleptic Gregorian calendar, from
/// the days since 1970-01-01 as in Howard Hinnant's `civil_from_days`).
fn utc(secs: u64) -> String {
    let (days, time) = (secs / 86_400, secs % 86_400);
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        time / 3600,
        time / 60 % 60,
        time % 60
    )
}

/// The claim of one results file by its writer, held for as long as the writer may write
/// it ([`claim_file`]); dropping it lets the next writer in.
#[derive(Debug)]
pub struct FileClaim {
    _file: File,
}

/// Claims the results file `path` for one writer: refused ([`LockError::FileInUse`])
/// while another writer holds it, in another process or in this one. The claim is a lock
/// file beside it, `.bsuite-lock-of-<file name without .csv>`, locked exclusively and
/// describing its holder; the kernel drops it when the holder's process ends in any way.
///
/// ```
/// use bsuite_logging::dir_lock::claim_file;
///
/// let dir = std::env::temp_dir().join(format!("file-claim-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let file = dir.join("bsuite_id_-_catch-0.csv");
/// let claim = claim_file(&file).unwrap();
/// assert!(claim_file(&file).unwrap_err().to_string().contains("in this process"));
/// drop(claim);
/// assert!(claim_file(&file).is_ok());
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn claim_file(path: &Path) -> Result<FileClaim, LockError> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let stem = name.strip_suffix(".csv").unwrap_or(&name);
    let lock = path.with_file_name(format!("{FILE_CLAIM_PREFIX}{stem}"));
    let file = open_lock_file(&lock).map_err(|error| LockError::Io {
        path: lock.clone(),
        error,
    })?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let owner = std::fs::read_to_string(&lock).unwrap_or_default();
            let owner = owner.trim().to_string();
            let this_process = owner.starts_with(&format!("a recorder: {} ", process_name()));
            return Err(LockError::FileInUse {
                path: path.to_path_buf(),
                owner,
                this_process,
            });
        }
        Err(TryLockError::Error(error)) => return Err(flock_error(&lock, error)),
    }
    let file = write_description(file, &lock, &format!("a recorder: {}", this_process()))?;
    Ok(FileClaim { _file: file })
}

/// Who holds shard lock files of splits other than `count` in `dir` now.
fn other_splits(dir: &Path, count: usize) -> String {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return String::new();
    };
    let prefix = format!("{LOCK_FILE}-shard-");
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let split = name
                .strip_prefix(&prefix)
                .and_then(|rest| rest.split_once("-of-"));
            split.is_some_and(|(_, n)| n.parse::<usize>().is_ok_and(|n| n != count))
        })
        .collect();
    paths.sort();
    let mut found = Vec::new();
    for path in paths {
        let mut text = String::new();
        let held = File::open(&path).is_ok_and(|mut f| {
            matches!(f.try_lock_shared(), Err(TryLockError::WouldBlock))
                && f.read_to_string(&mut text).is_ok()
        });
        if held {
            // A shard that has just taken its file may not have described itself yet.
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            let text = text.trim();
            found.push(match text.is_empty() {
                true => format!("a shard starting, {}", name.unwrap_or_default()),
                false => text.to_string(),
            });
        }
    }
    found.join("; ")
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
                    // Recorders' claims of their files: the recorders are named below, once.
                    .is_some_and(|n| n.starts_with(LOCK_FILE) && !n.starts_with(FILE_CLAIM_PREFIX))
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
    // Recorders hold their lock shared, so they cannot describe themselves in it.
    let recording = File::open(dir.join(RECORDERS_FILE))
        .is_ok_and(|f| matches!(f.try_lock(), Err(TryLockError::WouldBlock)));
    if recording {
        found.push("being recorded into by load_and_record* or VecEnv(record_to=...)".into());
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
        let shard = |index| Holder::Shard { index, count: 2 };
        let first = lock(&dir, shard(0)).unwrap();
        let second = lock(&dir, shard(1)).unwrap();
        let again = lock(&dir, shard(0)).unwrap_err().to_string();
        assert!(again.contains("shard 0/2: pid"), "{again}");
        assert!(again.contains(&dir.display().to_string()), "{again}");
        assert!(
            lock(&dir, Holder::Run).is_err(),
            "a whole run waits for the shards"
        );
        drop((first, second));
        let whole = lock(&dir, Holder::Run).unwrap();
        assert!(lock(&dir, shard(1)).is_err(), "shards wait for a whole run");
        assert!(lock(&dir, Holder::Recorder).is_err(), "so do recorders");
        drop(whole);
        let mut recorder = lock(&dir, Holder::Recorder).unwrap();
        let provenance = Provenance::take(&dir).unwrap();
        assert!(!provenance.recorders_active().unwrap());
        provenance.start_recording(&mut recorder).unwrap();
        assert!(provenance.recorders_active().unwrap());
        let busy = lock(&dir, Holder::Run).unwrap_err().to_string();
        assert!(busy.contains("being recorded into"), "{busy}");
        drop(recorder);
        assert!(!provenance.recorders_active().unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 55, item 21: a refusal showed its holder's start as raw Unix seconds.
    #[test]
    fn holders_say_when_they_started_in_calendar_time() {
        for (secs, text) in [
            (0, "1970-01-01 00:00:00 UTC"),
            (951_782_400, "2000-02-29 00:00:00 UTC"),
            (1_709_210_096, "2024-02-29 12:34:56 UTC"),
            (4_102_444_799, "2099-12-31 23:59:59 UTC"),
            (253_402_300_799, "9999-12-31 23:59:59 UTC"),
        ] {
            assert_eq!(utc(secs), text);
        }
        let dir = scratch("since");
        let held = lock(&dir, Holder::Run).unwrap();
        let busy = lock(&dir, Holder::Run).unwrap_err().to_string();
        assert!(!busy.contains("Unix"), "{busy}");
        let since = busy.split(" since ").nth(1).unwrap_or_default();
        let shape = |c: char| c.is_ascii_digit() || "-: ".contains(c);
        assert!(
            since.len() > 23 && since[..19].chars().all(shape) && since[19..].starts_with(" UTC"),
            "{busy}"
        );
        drop(held);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 55, item 19: two recorders of one id were both accepted and the later one's
    /// file replaced the first's. A file's claim refuses a second one within this process
    /// (`flock` locks conflict between two opens of one file) and names it; other ids and a
    /// claim given back are free, and a run's refusal does not list the files' claims.
    #[test]
    fn a_results_file_has_one_writer() {
        let dir = scratch("claims");
        let file = dir.join("bsuite_id_-_catch-3.csv");
        let claim = claim_file(&file).unwrap();
        let second = claim_file(&file).unwrap_err();
        assert!(
            matches!(
                second,
                LockError::FileInUse {
                    this_process: true,
                    ..
                }
            ),
            "{second}"
        );
        let message = second.to_string();
        assert!(message.contains(&*file.to_string_lossy()), "{message}");
        assert!(
            message.contains("in this process (a recorder: pid"),
            "{message}"
        );
        assert!(message.contains("UTC)"), "{message}");
        let other = claim_file(&dir.join("bsuite_id_-_catch-30.csv")).unwrap();
        let recorder = lock(&dir, Holder::Recorder).unwrap();
        let provenance = Provenance::take(&dir).unwrap();
        let mut recorder = recorder;
        provenance.start_recording(&mut recorder).unwrap();
        drop(provenance);
        let busy = lock(&dir, Holder::Run).unwrap_err().to_string();
        assert!(!busy.contains("a recorder: pid"), "{busy}");
        drop((claim, other, recorder));
        assert!(claim_file(&file).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Finding 7 of issue 30: on a filesystem without `flock` every run failed with a bare
    /// OS error. The refusal is recognised and says what to do.
    #[test]
    fn a_filesystem_without_flock_is_named() {
        let path = Path::new("/cluster/results/.bsuite-lock");
        for code in [libc::ENOLCK, libc::EOPNOTSUPP, libc::ENOSYS] {
            let error = flock_error(path, std::io::Error::from_raw_os_error(code));
            assert!(matches!(error, LockError::Unsupported { .. }), "{error}");
            let message = error.to_string();
            assert!(
                message.contains("/cluster/results refuses flock"),
                "{message}"
            );
            assert!(message.contains("--lock none"), "{message}");
            assert!(message.contains("xtask merge"), "{message}");
        }
        let denied = flock_error(path, std::io::Error::from_raw_os_error(libc::EACCES));
        assert!(matches!(denied, LockError::Io { .. }), "{denied}");
    }

    /// Finding 2 of issue 30: `--shard 0/4` and `--shard 0/3` on one directory ran
    /// overlapping ids twice and both failed. A shard of another split is refused while
    /// one of the first split holds the directory, naming both splits; once they are
    /// gone, another split may resume the directory.
    #[test]
    fn splits_of_different_n_are_refused() {
        let dir = scratch("splits");
        let shard = |index, count| Holder::Shard { index, count };
        let four = lock(&dir, shard(0, 4)).unwrap();
        let three = lock(&dir, shard(0, 3)).unwrap_err();
        assert!(matches!(three, LockError::OtherSplit { .. }), "{three}");
        let message = three.to_string();
        assert!(message.contains("--shard 0/3"), "{message}");
        assert!(message.contains("shard 0/4: pid"), "{message}");
        assert!(lock(&dir, shard(2, 3)).is_err());
        let other = lock(&dir, shard(3, 4)).unwrap();
        drop((four, other));
        let three = lock(&dir, shard(2, 3)).unwrap();
        assert!(lock(&dir, shard(1, 4)).is_err(), "and the other way round");
        drop(three);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
