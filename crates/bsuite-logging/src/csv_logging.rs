//! [`CsvLogger`]: bsuite-format CSV files, one per bsuite_id, rewritten whole and atomically
//! at every logged row (bsuite's `logging/csv_logging.py`).
//!
//! The text is what bsuite 0.3.6 (pandas `to_csv`) writes: a header, then one line per row;
//! a column that ever holds a float is written as floats in every row, in Python's `repr`.
//!
//! Every rewrite goes to a hidden temporary file in the results directory and is renamed over
//! the result, so a run killed at any moment leaves the previous complete file or the new
//! one, never a torn one. Each logger has a temporary file of its own ([`writer_temp_path`]),
//! so that no writer ever renames another's half-written text into place. That holds for a killed process; to keep files complete across a
//! machine crash or power loss as well, turn on [`CsvLogger::set_sync`] (an `fsync` per
//! write, a few milliseconds each, which bsuite itself does not do either). The file work runs on a background thread that always
//! writes the newest table and skips superseded ones (each file holds all rows, so nothing
//! is lost), which keeps the stepping thread off the disk; [`Logger::flush`] waits for it.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use bsuite_envs::{BsuiteId, InfoValue};

use crate::dir_lock::{DirLock, FileClaim};
use crate::logger::{LogError, Logger, Row};
use crate::pyfmt::write_float_repr;
use crate::results::file_name;

/// The temporary file a one-off rewrite of `path` goes through (a copy by `merge`); hidden,
/// and not ending in `.csv`, so bsuite's loader (which globs `*.csv`) never sees it.
/// Loggers, of which several may start on one file, each use their own
/// ([`writer_temp_path`]).
pub fn temp_path(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!(".{name}.tmp"))
}

/// A temporary file for the rewrites of `path` that no other writer uses: hidden, named
/// after `path`, this process and a count of the loggers it has started
/// (`.bsuite_id_-_catch-0.csv.<pid>-<n>.tmp`).
pub fn writer_temp_path(path: &Path) -> PathBuf {
    static STARTED: AtomicU64 = AtomicU64::new(0);
    let n = STARTED.fetch_add(1, Ordering::Relaxed);
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!(".{name}.{}-{n}.tmp", std::process::id()))
}

/// Removes the temporary files that writers of `path` killed mid-rewrite left behind (the
/// shared [`temp_path`] of older versions and merges, and [`writer_temp_path`]s). Only for
/// the file's one writer: another's live temporary file would be pulled from under it.
pub fn remove_stale_temp_files(path: &Path) -> io::Result<()> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let prefix = format!(".{name}.");
    let dir = match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) => dir,
        None => Path::new("."),
    };
    for entry in fs::read_dir(dir)? {
        let stale = entry?.path();
        let is_temp = stale.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
            n.strip_prefix(&prefix)
                .is_some_and(|rest| rest == "tmp" || rest.ends_with(".tmp"))
        });
        if !is_temp {
            continue;
        }
        match fs::remove_file(&stale) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    Ok(())
}

/// Rows rendered as pandas would, kept rendered so that appending a row usually appends one
/// line instead of re-rendering the table.
#[derive(Default)]
pub struct CsvTable {
    columns: Vec<&'static str>,
    is_float: Vec<bool>,
    rows: Vec<Vec<Option<InfoValue>>>,
    text: String,
}

impl CsvTable {
    /// Adds a row. Columns are the union of the rows' keys in first-seen order; a cell a row
    /// lacks is NaN to pandas, written empty, and makes its column a float column.
    pub fn push(&mut self, row: &Row) {
        let was_float = self.is_float.clone();
        let num_columns = self.columns.len();
        let mut cells = vec![None; num_columns];
        for &(key, value) in row {
            let col = match self.columns.iter().position(|c| *c == key) {
                Some(col) => col,
                None => {
                    self.columns.push(key);
                    // Earlier rows lack it: NaN makes it a float column.
                    self.is_float.push(!self.rows.is_empty());
                    cells.push(None);
                    self.columns.len() - 1
                }
            };
            cells[col] = Some(value);
            if matches!(value, InfoValue::Float(_)) {
                self.is_float[col] = true;
            }
        }
        for (col, cell) in cells.iter().enumerate() {
            if cell.is_none() {
                self.is_float[col] = true;
            }
        }
        self.rows.push(cells);
        if self.columns.len() == num_columns && self.is_float == was_float && !self.text.is_empty()
        {
            let row = self.rows.last().expect("just pushed");
            render_row(&mut self.text, row, &self.is_float);
        } else {
            self.render();
        }
    }

    fn render(&mut self) {
        self.text.clear();
        self.text.push_str(&self.columns.join(","));
        self.text.push('\n');
        for row in &self.rows {
            render_row(&mut self.text, row, &self.is_float);
        }
    }

    /// The CSV text: header and every row, newline-terminated.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Number of rows pushed.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True before the first row.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

fn render_row(out: &mut String, row: &[Option<InfoValue>], is_float: &[bool]) {
    use std::fmt::Write as _;
    for (col, cell) in row.iter().enumerate() {
        if col > 0 {
            out.push(',');
        }
        match (*cell, is_float[col]) {
            (None, _) => {}
            (Some(InfoValue::Int(v)), false) => {
                let _ = write!(out, "{v}");
            }
            (Some(value), _) => write_float_repr(out, value.as_f64()),
        }
    }
    // Cells of columns added after this row was pushed.
    for _ in row.len()..is_float.len() {
        out.push(',');
    }
    out.push('\n');
}

/// Writes bsuite's CSV file for one bsuite_id (see the [module docs](self)).
///
/// ```
/// use bsuite_envs::Environment;
/// use bsuite_logging::{CsvLogger, Logging};
///
/// let dir = std::env::temp_dir().join(format!("bsuite-doc-{}", std::process::id()));
/// let id = "bandit/0".parse().unwrap();
/// let logger = CsvLogger::create(&id, &dir, true).unwrap();
/// let path = logger.path().to_owned();
/// let mut env = Logging::new(bsuite_envs::load("bandit/0").unwrap(), logger);
/// for _ in 0..3 {
///     env.reset();
///     env.step(0).unwrap();
/// }
/// env.finish().unwrap();
/// let text = std::fs::read_to_string(&path).unwrap();
/// assert!(text.starts_with("steps,episode,total_return,episode_len,episode_return,total_regret\n1,1,"));
/// assert_eq!(text.lines().count(), 4);
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub struct CsvLogger {
    path: PathBuf,
    /// This logger's own temporary file ([`writer_temp_path`]).
    temp: PathBuf,
    table: CsvTable,
    shared: Arc<Shared>,
    writer: Option<JoinHandle<()>>,
    /// The results directory's lock, held while the file may still be written.
    _lock: Option<Arc<DirLock>>,
    /// The claim of the file itself ([`crate::dir_lock::claim_file`]), likewise. Dropped
    /// after the writer thread has finished ([`Drop`] runs before the fields are dropped).
    _claim: Option<FileClaim>,
}

struct Shared {
    state: Mutex<WriterState>,
    wake: Condvar,
    sync: AtomicBool,
}

#[derive(Default)]
struct WriterState {
    /// The newest text not yet taken by the writer.
    pending: Option<String>,
    /// The writer is writing a file now.
    busy: bool,
    /// No more text will come; the writer exits when idle.
    closed: bool,
    /// The writer's first error not yet reported.
    error: Option<LogError>,
    /// Text buffer handed back by the writer for reuse.
    spare: Option<String>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, WriterState> {
        // A panic while holding this lock cannot leave the state inconsistent.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl CsvLogger {
    /// Prepares `results_dir/bsuite_id_-_<experiment>-<index>.csv` ([`file_name`]), creating
    /// the directory.
    ///
    /// An existing file is an error ([`LogError::Exists`]) unless `overwrite`; with
    /// `overwrite` it is replaced at the first row, as in bsuite. Temporary files that
    /// killed writers of the file left behind are removed: the caller is the file's one
    /// writer (it holds the directory, or the file's claim, [`CsvLogger::claiming`]).
    pub fn create(id: &BsuiteId, results_dir: &Path, overwrite: bool) -> Result<Self, LogError> {
        Self::create_at(results_dir.join(file_name(id)), overwrite)
    }

    /// Like [`CsvLogger::create`], with an explicit file path.
    pub fn create_at(path: PathBuf, overwrite: bool) -> Result<Self, LogError> {
        let io_err = |action, path: &Path| {
            let path = path.to_owned();
            move |source| LogError::Io {
                action,
                path,
                error: source,
            }
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir).map_err(io_err("creating results directory", dir))?;
        }
        let exists = path
            .try_exists()
            .map_err(io_err("checking for an existing", &path))?;
        if exists && !overwrite {
            return Err(LogError::Exists { path });
        }
        remove_stale_temp_files(&path)
            .map_err(io_err("removing the stale temporary files of", &path))?;
        let temp = writer_temp_path(&path);
        let shared = Arc::new(Shared {
            state: Mutex::new(WriterState::default()),
            wake: Condvar::new(),
            sync: AtomicBool::new(false),
        });
        let writer = {
            let shared = Arc::clone(&shared);
            let (target, temp) = (path.clone(), temp.clone());
            std::thread::Builder::new()
                .name("bsuite-csv-writer".into())
                .spawn(move || write_loop(&shared, &target, &temp))
                .map_err(io_err("starting the writer thread for", &path))?
        };
        Ok(CsvLogger {
            path,
            temp,
            table: CsvTable::default(),
            shared,
            writer: Some(writer),
            _lock: None,
            _claim: None,
        })
    }

    /// Holds `lock` (the results directory's, [`crate::record::claim_for_recording`]) for
    /// as long as this logger lives, so that no run takes the directory while it records.
    pub fn holding(mut self, lock: Arc<DirLock>) -> Self {
        self._lock = Some(lock);
        self
    }

    /// Holds `claim` (the results file's, [`crate::dir_lock::claim_file`], taken before
    /// [`CsvLogger::create`]) for as long as this logger lives, so that no second writer of
    /// the file starts while it writes.
    pub fn claiming(mut self, claim: FileClaim) -> Self {
        self._claim = Some(claim);
        self
    }

    /// This logger's temporary file, which no other writer uses.
    pub fn temp_path(&self) -> &Path {
        &self.temp
    }

    /// With `sync`, every rewrite is synced to disk before it is renamed into place, and
    /// [`Logger::flush`] syncs the directory, so results also survive a machine crash.
    /// Off by default: renaming already protects against a killed process.
    pub fn set_sync(&mut self, sync: bool) {
        self.shared.sync.store(sync, Ordering::Relaxed);
    }

    /// The results file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The rows logged so far, rendered.
    pub fn table(&self) -> &CsvTable {
        &self.table
    }

    /// Waits for the writer's current write, then writes the newest table from this thread:
    /// waking the writer for it can take longer than the write on a busy machine.
    fn wait_idle(&self) -> Result<(), LogError> {
        let shared = &self.shared;
        let mut state = shared.lock();
        loop {
            while state.busy {
                state = shared.wake.wait(state).unwrap_or_else(|e| e.into_inner());
            }
            let Some(text) = state.pending.take() else {
                break;
            };
            state.busy = true;
            drop(state);
            let sync = shared.sync.load(Ordering::Relaxed);
            let result = write_atomically(&self.path, &self.temp, text.as_bytes(), sync);
            state = shared.lock();
            finish_write(shared, &mut state, text, result);
        }
        state.error.take().map_or(Ok(()), Err)
    }
}

impl Logger for CsvLogger {
    /// Adds the row and hands the whole table to the writer; reports an earlier write's
    /// error, if any.
    fn write(&mut self, row: &Row) -> Result<(), LogError> {
        self.table.push(row);
        let mut state = self.shared.lock();
        if let Some(err) = state.error.take() {
            return Err(err);
        }
        let mut text = state
            .pending
            .take()
            .or_else(|| state.spare.take())
            .unwrap_or_default();
        text.clear();
        text.push_str(self.table.text());
        state.pending = Some(text);
        drop(state);
        self.shared.wake.notify_all();
        Ok(())
    }

    /// Waits until the newest table is in the file (and, with [`CsvLogger::set_sync`],
    /// syncs the directory entry).
    fn flush(&mut self) -> Result<(), LogError> {
        self.wait_idle()?;
        if self.table.is_empty() || !self.shared.sync.load(Ordering::Relaxed) {
            return Ok(());
        }
        sync_dir(&self.path).map_err(|source| LogError::Io {
            action: "syncing the directory of",
            path: self.path.clone(),
            error: source,
        })
    }
}

impl Drop for CsvLogger {
    /// Finishes the last write (errors are lost here; call [`Logger::flush`] to see them).
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.wake.notify_all();
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

fn write_loop(shared: &Shared, path: &Path, temp: &Path) {
    let mut state = shared.lock();
    loop {
        if state.busy {
            // `flush` is writing from the logger's thread.
            state = shared.wake.wait(state).unwrap_or_else(|e| e.into_inner());
        } else if let Some(text) = state.pending.take() {
            state.busy = true;
            drop(state);
            let sync = shared.sync.load(Ordering::Relaxed);
            let result = write_atomically(path, temp, text.as_bytes(), sync);
            state = shared.lock();
            finish_write(shared, &mut state, text, result);
        } else if state.closed {
            return;
        } else {
            state = shared.wake.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }
}

fn finish_write(
    shared: &Shared,
    state: &mut WriterState,
    text: String,
    result: Result<(), LogError>,
) {
    state.busy = false;
    state.spare = Some(text);
    if let Err(err) = result {
        state.error.get_or_insert(err);
    }
    shared.wake.notify_all();
}

/// Writes `contents` to `temp`, syncs it if asked, and renames it over `path`.
fn write_atomically(path: &Path, temp: &Path, contents: &[u8], sync: bool) -> Result<(), LogError> {
    let io_err = |action, path: &Path| {
        let path = path.to_owned();
        move |source| LogError::Io {
            action,
            path,
            error: source,
        }
    };
    let mut file = File::create(temp).map_err(io_err("creating", temp))?;
    let written = file
        .write_all(contents)
        .map_err(io_err("writing", temp))
        .and_then(|()| match sync {
            true => file.sync_data().map_err(io_err("syncing", temp)),
            false => Ok(()),
        });
    drop(file);
    let result = written.and_then(|()| {
        fs::rename(temp, path).map_err(io_err("renaming the temporary file onto", path))
    });
    if result.is_err() {
        // A full disk would otherwise keep the partial file until the id's next run.
        let _ = fs::remove_file(temp);
    }
    result
}

/// Syncs the directory that holds `path`, so that a rename into it survives a crash.
#[cfg(unix)]
pub(crate) fn sync_dir(path: &Path) -> io::Result<()> {
    match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) => File::open(dir)?.sync_all(),
        None => File::open(".")?.sync_all(),
    }
}

#[cfg(not(unix))]
pub(crate) fn sync_dir(_: &Path) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(values: &[(&'static str, InfoValue)]) -> Vec<(&'static str, InfoValue)> {
        values.to_vec()
    }

    #[test]
    fn int_column_turns_float_retroactively() {
        use InfoValue::{Float, Int};
        let mut table = CsvTable::default();
        table.push(&row(&[("a", Int(1)), ("b", Int(0))]));
        table.push(&row(&[("a", Int(2)), ("b", Int(0))]));
        assert_eq!(table.text(), "a,b\n1,0\n2,0\n");
        table.push(&row(&[("a", Int(3)), ("b", Float(0.1 + 0.2))]));
        assert_eq!(table.text(), "a,b\n1,0.0\n2,0.0\n3,0.30000000000000004\n");
        table.push(&row(&[("a", Int(4)), ("c", Int(7))]));
        assert_eq!(
            table.text(),
            "a,b,c\n1,0.0,\n2,0.0,\n3,0.30000000000000004,\n4,,7.0\n"
        );
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("bsuite-csv-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn never_clobbers_without_overwrite() {
        let dir = scratch("clobber");
        let id: BsuiteId = "catch/3".parse().unwrap();
        let mut logger = CsvLogger::create(&id, &dir, false).unwrap();
        logger.write(&[("x", InfoValue::Int(1))]).unwrap();
        logger.flush().unwrap();
        drop(logger);
        let path = dir.join("bsuite_id_-_catch-3.csv");
        let err = CsvLogger::create(&id, &dir, false).err().unwrap();
        let msg = err.to_string();
        assert!(msg.contains(&*path.to_string_lossy()) && msg.contains("--overwrite"));
        assert_eq!(fs::read_to_string(&path).unwrap(), "x\n1\n");
        // Overwrite replaces the file only at the first row.
        let mut logger = CsvLogger::create(&id, &dir, true).unwrap();
        logger.set_sync(true);
        assert_eq!(fs::read_to_string(&path).unwrap(), "x\n1\n");
        logger.write(&[("y", InfoValue::Int(2))]).unwrap();
        logger.flush().unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "y\n2\n");
        drop(logger);
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["bsuite_id_-_catch-3.csv"], "no temporary file left");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn io_errors_are_reported_with_the_file() {
        let dir = scratch("ioerr");
        let id: BsuiteId = "catch/3".parse().unwrap();
        let mut logger = CsvLogger::create(&id, &dir, false).unwrap();
        fs::remove_dir_all(&dir).unwrap();
        logger.write(&[("x", InfoValue::Int(1))]).unwrap();
        let msg = logger.flush().unwrap_err().to_string();
        let temp = logger.temp_path().to_string_lossy().into_owned();
        assert!(
            temp.contains(".bsuite_id_-_catch-3.csv.") && msg.contains(&temp),
            "{msg}"
        );
        // A directory that cannot be created is reported at creation.
        let blocker = scratch("blocker");
        fs::write(&blocker, "").unwrap();
        let msg = CsvLogger::create(&id, &blocker.join("sub"), false)
            .err()
            .unwrap()
            .to_string();
        assert!(msg.contains("creating results directory"), "{msg}");
        fs::remove_file(&blocker).unwrap();
    }

    /// Issue 55, item 19: every writer of an id used the same temporary file, so one
    /// writer's rename could take another's half-written text, or find it gone. Two loggers
    /// of one file (which only a writer without the file's claim can start) write through
    /// temporary files of their own, and each write is whole.
    #[test]
    fn loggers_of_one_file_never_share_a_temporary_file() {
        let dir = scratch("temps");
        let id: BsuiteId = "catch/3".parse().unwrap();
        let mut first = CsvLogger::create(&id, &dir, true).unwrap();
        let mut second = CsvLogger::create(&id, &dir, true).unwrap();
        assert_ne!(first.temp_path(), second.temp_path());
        for n in 0..200 {
            first.write(&[("x", InfoValue::Int(n))]).unwrap();
            second.write(&[("y", InfoValue::Int(n))]).unwrap();
        }
        first.flush().unwrap();
        second.flush().unwrap();
        let text = fs::read_to_string(first.path()).unwrap();
        assert!(text.lines().count() == 201, "{text}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A writer killed mid-rewrite leaves its temporary file; the file's next writer
    /// removes those of its file (the shared name of older versions included), and no
    /// other file's.
    #[test]
    fn stale_temporary_files_of_the_file_are_removed() {
        let dir = scratch("stale");
        fs::create_dir_all(&dir).unwrap();
        let stale = [
            ".bsuite_id_-_catch-3.csv.tmp",
            ".bsuite_id_-_catch-3.csv.4242-7.tmp",
        ];
        let kept = [".bsuite_id_-_catch-30.csv.4242-7.tmp", "notes.tmp"];
        for name in stale.iter().chain(&kept) {
            fs::write(dir.join(name), "a rewrite cut short").unwrap();
        }
        let id: BsuiteId = "catch/3".parse().unwrap();
        let logger = CsvLogger::create(&id, &dir, false).unwrap();
        for name in stale {
            assert!(!dir.join(name).exists(), "{name}");
        }
        for name in kept {
            assert!(dir.join(name).exists(), "{name}");
        }
        drop(logger);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
