//! Reading bsuite CSV results back into typed per-id tables.
//!
//! A results directory holds one CSV per bsuite_id, named `bsuite_id_-_<experiment>-<index>.csv`,
//! as bsuite 0.3.6 and our own logger write them. [`load_dir`] reads every such file into a
//! [`RunTable`]: the id, its experiment and sweep settings, and every column by name. Column
//! order is not assumed, extra columns are kept, and integer columns are told apart from float
//! columns as pandas would type them.
//!
//! Reading is strict: a file that bsuite could not have written is an error naming the file,
//! the line and the problem. [`load_dir_lenient`] instead skips bad files and reports them in
//! [`ResultSet::skipped`]. Like the reference, `*.csv` files whose names do not start with
//! `bsuite_id_-_` are skipped with a warning in both modes.
//!
//! ```
//! use bsuite_logging::results::parse_run;
//!
//! let id = "catch/0".parse().unwrap();
//! let csv = "steps,episode,total_return,episode_len,episode_return,total_regret\n\
//!            9,1,-1.0,9,-1.0,2.0\n\
//!            18,2,0.0,9,1.0,2.0\n";
//! let run = parse_run(id, "bsuite_id_-_catch-0.csv".as_ref(), csv.as_bytes()).unwrap();
//! assert_eq!(run.num_rows(), 2);
//! assert_eq!(run.last_episode(), 2);
//! assert_eq!(run.values("total_regret").unwrap(), &[2.0, 2.0]);
//! ```

use std::fmt;
use std::path::{Path, PathBuf};

use bsuite_envs::{BsuiteId, Experiment, Settings};

/// The prefix of every bsuite result file name: bsuite's loader reads only `*.csv` files
/// that start with it.
pub const FILE_PREFIX: &str = "bsuite_id_-_";

/// The file name of a run's manifest in its results directory (what [`crate::manifest`]
/// reads and writes).
pub const MANIFEST_FILE: &str = "bsuite_run.json";

/// A multi-seed run is a directory of results directories, one per seed, each named
/// this prefix and its seed (`seed-42/`), each with its own manifest.
pub const SEED_DIR_PREFIX: &str = "seed-";

/// The seed a directory name stands for: `seed-42` is 42.
pub fn seed_of_dir_name(name: &str) -> Option<u32> {
    let digits = name.strip_prefix(SEED_DIR_PREFIX)?;
    // One spelling per seed: `seed-042` or `seed-+42` would be a second directory for 42.
    let canonical = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'));
    if !canonical {
        return None;
    }
    digits.parse().ok()
}

/// The path of seed `seed`'s results directory under a multi-seed run `dir`.
pub fn seed_dir(dir: &Path, seed: u32) -> PathBuf {
    dir.join(format!("{SEED_DIR_PREFIX}{seed}"))
}

/// How a results directory holds its runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// One seed: the results files and the manifest directly in the directory.
    OneSeed,
    /// Several seeds: one [`seed_dir`] per seed, and nothing else of a run beside them.
    Seeds,
}

/// A results directory already laid out for the other kind of run ([`check_layout`]).
#[derive(Debug, thiserror::Error)]
pub enum LayoutError {
    /// Seed directories are to go where one seed's files are.
    #[error(
        "{} holds the files of a single-seed run ({file}); seed directories never go beside \
         them",
        .dir.display()
    )]
    HoldsOneSeed {
        /// The results directory.
        dir: PathBuf,
        /// One of its results files (or its manifest).
        file: String,
    },
    /// One seed's files are to go where seed directories are.
    #[error(
        "{} holds the seed directories of a multi-seed run ({seed_dir}); a single seed's \
         files never go beside them",
        .dir.display()
    )]
    HoldsSeeds {
        /// The results directory.
        dir: PathBuf,
        /// One of its seed directories.
        seed_dir: String,
    },
}

/// Refuses to write a run of `layout` into `dir` when `dir` holds the other layout, so
/// that one seed's files never land beside seed directories, nor seed directories beside
/// one seed's files. A missing or empty directory suits either.
///
/// This is what the directory holds now; writers decide it under the directory's lock,
/// with the rest of the rule (a seed's siblings, recorders), through
/// [`crate::manifest::claim_layout`].
///
/// ```
/// use bsuite_logging::results::{check_layout, seed_dir, Layout};
///
/// let dir = std::env::temp_dir().join(format!("layout-doc-{}", std::process::id()));
/// std::fs::create_dir_all(seed_dir(&dir, 42)).unwrap();
/// assert!(check_layout(&dir, Layout::Seeds).is_ok());
/// assert!(check_layout(&dir, Layout::OneSeed).is_err());
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn check_layout(dir: &Path, layout: Layout) -> Result<(), LayoutError> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        match layout {
            Layout::Seeds if name.starts_with(FILE_PREFIX) || name == MANIFEST_FILE => {
                return Err(LayoutError::HoldsOneSeed {
                    dir: dir.to_path_buf(),
                    file: name,
                })
            }
            Layout::OneSeed if seed_of_dir_name(&name).is_some() && entry.path().is_dir() => {
                return Err(LayoutError::HoldsSeeds {
                    dir: dir.to_path_buf(),
                    seed_dir: name,
                })
            }
            _ => {}
        }
    }
    Ok(())
}

/// The five columns every bsuite CSV starts with, in the reference's order: the header is
/// these, then the experiment's `bsuite_info()` columns.
pub const STANDARD_COLUMNS: [&str; 5] = [
    "steps",
    "episode",
    "total_return",
    "episode_len",
    "episode_return",
];

/// The file name of a bsuite_id's results, as bsuite writes it: `catch/0` becomes
/// `bsuite_id_-_catch-0.csv`. [`id_from_file_name`] reads it back.
///
/// ```
/// use bsuite_logging::results::file_name;
///
/// let id = "deep_sea_stochastic/12".parse().unwrap();
/// assert_eq!(file_name(&id), "bsuite_id_-_deep_sea_stochastic-12.csv");
/// ```
pub fn file_name(id: &BsuiteId) -> String {
    format!("{FILE_PREFIX}{}-{}.csv", id.experiment().name, id.index())
}

/// Recovers the bsuite_id from a result file name.
///
/// Only the canonical name [`file_name`] produces is accepted: the `.csv` suffix is removed as
/// a suffix (the reference strips the characters `.`, `c`, `s`, `v` from both ends), and
/// spellings such as `catch-00` that the reference would silently drop are refused.
///
/// ```
/// use bsuite_logging::results::id_from_file_name;
///
/// assert_eq!(id_from_file_name("bsuite_id_-_deep_sea-3.csv").unwrap().to_string(), "deep_sea/3");
/// assert!(id_from_file_name("bsuite_id_-_catch-20.csv").is_err()); // catch has 0..=19
/// assert!(id_from_file_name("bsuite_id_-_catch-00.csv").is_err());
/// ```
pub fn id_from_file_name(name: &str) -> Result<BsuiteId, FileNameError> {
    let stem = name
        .strip_suffix(".csv")
        .ok_or(FileNameError::NotCsv)?
        .strip_prefix(FILE_PREFIX)
        .ok_or(FileNameError::NoPrefix)?;
    let (experiment, index) = stem.rsplit_once('-').ok_or(FileNameError::NoIndex)?;
    let id: BsuiteId = format!("{experiment}/{index}")
        .parse()
        .map_err(|e: bsuite_envs::IdError| FileNameError::NotAnId(e.to_string()))?;
    if file_name(&id) != name {
        return Err(FileNameError::NotCanonical(file_name(&id)));
    }
    Ok(id)
}

/// Why a file name does not name a bsuite_id.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FileNameError {
    /// The name does not end in `.csv`.
    #[error("the name does not end in .csv")]
    NotCsv,
    /// The name does not start with `bsuite_id_-_`.
    #[error("the name does not start with {FILE_PREFIX}")]
    NoPrefix,
    /// No `-<index>` after the experiment name.
    #[error("expected bsuite_id_-_<experiment>-<index>.csv")]
    NoIndex,
    /// The experiment or index is not in the sweep.
    #[error("{0}")]
    NotAnId(String),
    /// A valid id spelled differently from bsuite's file name.
    #[error("the id is spelled differently from bsuite's file name {0}")]
    NotCanonical(String),
}

/// Columns that only ever grow in a file bsuite writes (besides `episode`).
pub const CUMULATIVE_COLUMNS: [&str; 4] = [
    "steps",
    "total_regret",
    "total_bad_episodes",
    "total_perfect",
];

/// Whether a column held only integers (pandas `int64`) or some float (`float64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnKind {
    /// Every cell is an integer literal such as `10`.
    Int,
    /// Some cell is a float literal such as `1.0` or `1e-05`.
    Float,
}

/// One column of a run: its name, type and values (integers are stored exactly as `f64`).
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    name: String,
    kind: ColumnKind,
    values: Vec<f64>,
}

impl Column {
    /// The column's name as written in the header.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Integer or float column.
    pub fn kind(&self) -> ColumnKind {
        self.kind
    }

    /// The values, one per row.
    pub fn values(&self) -> &[f64] {
        &self.values
    }
}

/// The logged rows of one bsuite_id.
///
/// Invariants checked on reading: the standard and experiment columns are present, every
/// cell is a finite number, `episode` holds whole numbers that never decrease, the other
/// cumulative counters ([`CUMULATIVE_COLUMNS`]) never decrease, and there is at least one
/// row.
#[derive(Clone, Debug, PartialEq)]
pub struct RunTable {
    id: BsuiteId,
    path: PathBuf,
    columns: Vec<Column>,
    num_rows: usize,
    episode: usize,
}

impl RunTable {
    /// The bsuite_id.
    pub fn id(&self) -> BsuiteId {
        self.id
    }

    /// The id's experiment.
    pub fn experiment(&self) -> &'static Experiment {
        self.id.experiment()
    }

    /// The setting index (the number after the `/`).
    pub fn setting_index(&self) -> usize {
        self.id.index()
    }

    /// The id's sweep settings (`sweep.SETTINGS[id]`).
    pub fn settings(&self) -> Settings {
        self.id.settings()
    }

    /// Where the rows were read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of logged rows.
    pub fn num_rows(&self) -> usize {
        self.num_rows
    }

    /// All columns in file order.
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// The column called `name`.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// The values of the column called `name`.
    pub fn values(&self, name: &str) -> Option<&[f64]> {
        self.column(name).map(Column::values)
    }

    /// The `episode` column.
    pub fn episodes(&self) -> &[f64] {
        &self.columns[self.episode].values
    }

    /// The furthest episode logged (the last row's, since episodes never decrease).
    pub fn last_episode(&self) -> u64 {
        *self.episodes().last().expect("a run has rows") as u64
    }

    /// True when the run logged the experiment's full number of episodes.
    pub fn is_finished(&self) -> bool {
        self.last_episode() >= self.id.num_episodes() as u64
    }
}

/// What is wrong with a file's content.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    /// Zero bytes, or nothing but blank lines.
    #[error("empty file: expected a header line starting with steps,episode,...")]
    Empty,
    /// A header and no rows.
    #[error("no data rows after the header")]
    NoRows,
    /// Required columns are absent.
    #[error("missing column(s) {}; {experiment} files need {}", .missing.join(", "), .required.join(","))]
    MissingColumns {
        /// The absent columns.
        missing: Vec<String>,
        /// The experiment.
        experiment: &'static str,
        /// Every column the experiment needs.
        required: Vec<&'static str>,
    },
    /// A header names the same column twice.
    #[error("column '{0}' appears twice in the header")]
    DuplicateColumn(String),
    /// A header cell is empty.
    #[error("header cell {0} is empty")]
    EmptyColumnName(usize),
    /// A row has a different number of cells from the header.
    #[error("{found} cells, but the header has {expected}")]
    FieldCount {
        /// Cells in the header.
        expected: usize,
        /// Cells in this row.
        found: usize,
    },
    /// A cell that is not a number.
    #[error("column '{column}': '{value}' is not a number")]
    NotANumber {
        /// Column name.
        column: String,
        /// The cell, shortened.
        value: String,
    },
    /// A NaN or infinite cell.
    #[error("column '{column}': '{value}' is not finite")]
    NotFinite {
        /// Column name.
        column: String,
        /// The cell.
        value: String,
    },
    /// An `episode` that is negative or fractional.
    #[error("column 'episode': '{0}' is not a whole number of episodes")]
    BadEpisode(String),
    /// Episodes go backwards: the file holds more than one run, or rows out of order.
    #[error(
        "episode goes back from {previous} to {current}; rows of more than one run in one file?"
    )]
    EpisodeDecreases {
        /// The previous row's episode.
        previous: u64,
        /// This row's episode.
        current: u64,
    },
    /// The last line has no line end: the file was cut off while being written or copied.
    #[error("the last line is cut off (no line end)")]
    TruncatedLastLine,
    /// Two rows for one episode: a row written twice, or rows of more than one run.
    #[error("episode {0} has a second row; rows of more than one run in one file?")]
    EpisodeRepeats(u64),
    /// A cumulative counter other than `episode` goes down (`steps`, `total_regret`,
    /// `total_bad_episodes` or `total_perfect`): the file is corrupt.
    #[error("cumulative column '{column}' goes back from {previous} to {current}")]
    CounterDecreases {
        /// The column.
        column: String,
        /// The previous row's value.
        previous: String,
        /// This row's value.
        current: String,
    },
    /// The bytes are not valid CSV text (e.g. not UTF-8).
    #[error("not CSV text: {0}")]
    Csv(String),
}

/// Why results could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file or directory could not be read.
    #[error("{}: {error}", .path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The OS error.
        error: std::io::Error,
    },
    /// A file name that is not a bsuite id.
    #[error("{}: not a bsuite result file name: {problem}", .path.display())]
    FileName {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        problem: FileNameError,
    },
    /// Bad content at a line of a file.
    #[error("{}:{line}: {problem}", .path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// 1-based line number (the header is line 1).
        line: u64,
        /// What is wrong.
        problem: Problem,
    },
    /// A directory without any readable bsuite result file.
    #[error("{}: no bsuite results: {detail}", .dir.display())]
    NoResults {
        /// The directory.
        dir: PathBuf,
        /// What was found instead.
        detail: String,
    },
}

/// A file that was not loaded, and why.
#[derive(Debug)]
pub struct Skipped {
    /// The file.
    pub path: PathBuf,
    /// Why it was skipped.
    pub reason: SkipReason,
}

/// Why a file was skipped.
#[derive(Debug)]
pub enum SkipReason {
    /// A `*.csv` file whose name does not start with `bsuite_id_-_` (the reference warns
    /// and skips these too).
    NotBsuite,
    /// A bad bsuite file, skipped in lenient mode.
    Bad(ReadError),
}

impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.reason {
            SkipReason::NotBsuite => write!(
                f,
                "{}: skipped: not a bsuite result file (name does not start with {FILE_PREFIX}); \
                 use a fresh folder for bsuite results",
                self.path.display()
            ),
            SkipReason::Bad(err) => write!(f, "skipped {err}"),
        }
    }
}

/// The runs of one results directory (one agent).
#[derive(Debug)]
pub struct ResultSet {
    /// The directory read.
    pub dir: PathBuf,
    /// One table per bsuite_id, in sweep order.
    pub runs: Vec<RunTable>,
    /// Files not loaded, with the reason: warnings, and bad files in lenient mode.
    pub skipped: Vec<Skipped>,
}

/// Reads every bsuite result file of `dir`; the first bad file is an error.
///
/// Files are the directory's `*.csv` entries (hidden files excluded, as a shell glob does);
/// other files, such as a logger's temporary files, are ignored.
pub fn load_dir(dir: &Path) -> Result<ResultSet, ReadError> {
    load(dir, false)
}

/// Reads every bsuite result file of `dir`, skipping bad files and listing them in
/// [`ResultSet::skipped`]. Fails only when the directory cannot be read or holds no readable
/// result at all.
pub fn load_dir_lenient(dir: &Path) -> Result<ResultSet, ReadError> {
    load(dir, true)
}

fn load(dir: &Path, lenient: bool) -> Result<ResultSet, ReadError> {
    let io = |error| ReadError::Io {
        path: dir.to_path_buf(),
        error,
    };
    let mut names = Vec::new();
    let mut subdirs = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let is_dir = match entry.file_type() {
            Ok(t) if t.is_symlink() => entry.path().is_dir(),
            Ok(t) => t.is_dir(),
            Err(_) => false,
        };
        if is_dir {
            subdirs.push(name);
        } else if name.ends_with(".csv") {
            names.push(name);
        }
    }
    names.sort();
    let mut runs = Vec::new();
    let mut skipped = Vec::new();
    let results = read_runs_in_parallel(dir, &names);
    for (name, result) in names.iter().zip(results) {
        let path = dir.join(name);
        let Some(result) = result else {
            skipped.push(Skipped {
                path,
                reason: SkipReason::NotBsuite,
            });
            continue;
        };
        match result {
            Ok(run) => runs.push(run),
            Err(err) if lenient => skipped.push(Skipped {
                path,
                reason: SkipReason::Bad(err),
            }),
            Err(err) => return Err(err),
        }
    }
    if runs.is_empty() {
        return Err(ReadError::NoResults {
            dir: dir.to_path_buf(),
            detail: no_results_detail(&names, &skipped, subdirs, dir),
        });
    }
    runs.sort_by_key(|r| r.id);
    Ok(ResultSet {
        dir: dir.to_path_buf(),
        runs,
        skipped,
    })
}

/// [`read_run`] on every bsuite-named file of `names` (`None` for the others), spread over
/// the machine's cores; results in the order of `names`.
fn read_runs_in_parallel(dir: &Path, names: &[String]) -> Vec<Option<Result<RunTable, ReadError>>> {
    let read = |name: &String| {
        name.starts_with(FILE_PREFIX)
            .then(|| read_run(&dir.join(name)))
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(names.len().div_ceil(16));
    if threads <= 1 {
        return names.iter().map(read).collect();
    }
    let chunk = names.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = names
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(read).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

fn no_results_detail(
    names: &[String],
    skipped: &[Skipped],
    subdirs: Vec<String>,
    dir: &Path,
) -> String {
    let mut detail = if names.is_empty() {
        "no *.csv files".to_string()
    } else {
        let bad = skipped
            .iter()
            .filter(|s| matches!(s.reason, SkipReason::Bad(_)))
            .count();
        format!(
            "{} *.csv file(s), {} not named {FILE_PREFIX}<experiment>-<index>.csv, {bad} unreadable",
            names.len(),
            names.len() - bad,
        )
    };
    let mut agents: Vec<String> = subdirs
        .into_iter()
        .filter(|s| {
            std::fs::read_dir(dir.join(s)).is_ok_and(|mut it| {
                it.any(|e| {
                    e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with(FILE_PREFIX))
                })
            })
        })
        .collect();
    agents.sort();
    if !agents.is_empty() {
        detail.push_str(&format!(
            "; its subdirectories {} hold bsuite results: pass each as its own agent",
            agents.join(", ")
        ));
    }
    detail
}

/// Reads one result file; its name gives the bsuite_id.
pub fn read_run(path: &Path) -> Result<RunTable, ReadError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let id = id_from_file_name(&name).map_err(|problem| ReadError::FileName {
        path: path.to_path_buf(),
        problem,
    })?;
    let bytes = regular_file(path)
        .and_then(|()| std::fs::read(path))
        .map_err(|error| ReadError::Io {
            path: path.to_path_buf(),
            error,
        })?;
    parse_run(id, path, &bytes)
}

/// Fails unless `path` is a regular file (or a link to one): a FIFO or a device would block
/// a reader, or never end, so results are read from regular files only.
pub(crate) fn regular_file(path: &Path) -> std::io::Result<()> {
    let kind = std::fs::metadata(path)?.file_type();
    let what = if kind.is_file() {
        return Ok(());
    } else if kind.is_dir() {
        "a directory"
    } else {
        special_file(kind)
    };
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("not a regular file ({what}); only regular files are read"),
    ))
}

#[cfg(unix)]
fn special_file(kind: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "a device"
    }
}

#[cfg(not(unix))]
fn special_file(_: std::fs::FileType) -> &'static str {
    "a special file"
}

/// The last episode the results file at `path` logged, or `None` where there is no file:
/// what a resumed run compares with its episode count. The file is read whole with the strict
/// reader ([`read_run`]), so a damaged file is an error, never a count.
///
/// ```
/// use bsuite_logging::results::{file_name, logged_episodes};
///
/// let dir = std::env::temp_dir().join(format!("bsuite-logged-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join(file_name(&"bandit/0".parse().unwrap()));
/// assert_eq!(logged_episodes(&path).unwrap(), None);
/// let header = "steps,episode,total_return,episode_len,episode_return,total_regret\n";
/// std::fs::write(&path, format!("{header}1,1,1.0,1,1.0,0.0\n2,2,2.0,1,1.0,0.0\n")).unwrap();
/// assert_eq!(logged_episodes(&path).unwrap(), Some(2));
/// std::fs::write(&path, format!("{header}1,1,1.0,1,1.0,0.0\n2,2,nan,1,1.0,0.0\n")).unwrap();
/// let damaged = logged_episodes(&path).unwrap_err().to_string();
/// assert!(damaged.ends_with(".csv:3: column 'total_return': 'nan' is not finite"), "{damaged}");
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn logged_episodes(path: &Path) -> Result<Option<u64>, ReadError> {
    match read_run(path) {
        Ok(run) => Ok(Some(run.last_episode())),
        Err(ReadError::Io { error, .. }) if error.kind() == std::io::ErrorKind::NotFound => {
            Ok(None)
        }
        Err(error) => Err(error),
    }
}

/// Parses the CSV text of `id`'s results; `path` only names the file in errors.
///
/// Never panics, whatever the bytes.
pub fn parse_run(id: BsuiteId, path: &Path, bytes: &[u8]) -> Result<RunTable, ReadError> {
    let malformed = |line: u64, problem: Problem| ReadError::Malformed {
        path: path.to_path_buf(),
        line,
        problem,
    };
    let tail = bytes.rsplit(|&b| b == b'\n').next().unwrap_or_default();
    if !tail.trim_ascii().is_empty() {
        let line = bytes.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        return Err(malformed(line, Problem::TruncatedLastLine));
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut header = csv::ByteRecord::new();
    match reader.read_byte_record(&mut header) {
        Ok(false) => return Err(malformed(1, Problem::Empty)),
        Err(err) => return Err(csv_problem(path, err)),
        Ok(true) => {}
    }
    let header_line = header.position().map_or(1, |p| p.line());
    let mut names: Vec<String> = Vec::with_capacity(header.len());
    for (k, cell) in header.iter().enumerate() {
        let name = std::str::from_utf8(cell)
            .map_err(|_| malformed(header_line, Problem::Csv("header is not UTF-8".into())))?
            .trim()
            .to_string();
        if name.is_empty() {
            if header.len() == 1 {
                return Err(malformed(header_line, Problem::Empty));
            }
            return Err(malformed(header_line, Problem::EmptyColumnName(k + 1)));
        }
        if names.contains(&name) {
            return Err(malformed(header_line, Problem::DuplicateColumn(name)));
        }
        names.push(name);
    }
    let experiment = id.experiment();
    let required: Vec<&'static str> = STANDARD_COLUMNS
        .iter()
        .chain(experiment.info_columns)
        .copied()
        .collect();
    let missing: Vec<String> = required
        .iter()
        .filter(|r| !names.iter().any(|n| n == *r))
        .map(|r| r.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(malformed(
            header_line,
            Problem::MissingColumns {
                missing,
                experiment: experiment.name,
                required,
            },
        ));
    }
    let episode = names
        .iter()
        .position(|n| n == "episode")
        .expect("checked above");
    let mut columns: Vec<Column> = names
        .into_iter()
        .map(|name| Column {
            name,
            kind: ColumnKind::Int,
            values: Vec::new(),
        })
        .collect();
    let cumulative: Vec<usize> = columns
        .iter()
        .enumerate()
        .filter(|(_, c)| CUMULATIVE_COLUMNS.contains(&c.name.as_str()))
        .map(|(k, _)| k)
        .collect();
    let mut num_rows = 0;
    let mut previous_episode = 0u64;
    let mut record = csv::ByteRecord::new();
    while reader
        .read_byte_record(&mut record)
        .map_err(|err| csv_problem(path, err))?
    {
        let line = record.position().map_or(0, |p| p.line());
        if record.len() == 1 && record[0].trim_ascii().is_empty() {
            continue; // a blank line, as pandas skips them
        }
        if record.len() != columns.len() {
            return Err(malformed(
                line,
                Problem::FieldCount {
                    expected: columns.len(),
                    found: record.len(),
                },
            ));
        }
        for (column, cell) in columns.iter_mut().zip(record.iter()) {
            let (value, is_int) =
                parse_cell(cell).map_err(|bad| malformed(line, bad.problem(&column.name, cell)))?;
            if !is_int {
                column.kind = ColumnKind::Float;
            }
            column.values.push(value);
        }
        let ep = columns[episode].values[num_rows];
        if ep < 0.0 || ep.fract() != 0.0 || ep > 2f64.powi(53) {
            return Err(malformed(
                line,
                Problem::BadEpisode(String::from_utf8_lossy(&record[episode]).into_owned()),
            ));
        }
        let ep = ep as u64;
        if ep < previous_episode {
            return Err(malformed(
                line,
                Problem::EpisodeDecreases {
                    previous: previous_episode,
                    current: ep,
                },
            ));
        }
        if num_rows > 0 && ep == previous_episode {
            return Err(malformed(line, Problem::EpisodeRepeats(ep)));
        }
        previous_episode = ep;
        if num_rows > 0 {
            for &k in &cumulative {
                let (before, now) = (columns[k].values[num_rows - 1], columns[k].values[num_rows]);
                if now < before {
                    return Err(malformed(
                        line,
                        Problem::CounterDecreases {
                            column: columns[k].name.clone(),
                            previous: before.to_string(),
                            current: now.to_string(),
                        },
                    ));
                }
            }
        }
        num_rows += 1;
    }
    if num_rows == 0 {
        return Err(malformed(header_line, Problem::NoRows));
    }
    Ok(RunTable {
        id,
        path: path.to_path_buf(),
        columns,
        num_rows,
        episode,
    })
}

/// A cell that is not a finite number.
enum BadCell {
    NotANumber,
    NotFinite,
}

impl BadCell {
    fn problem(self, column: &str, cell: &[u8]) -> Problem {
        let mut value: String = String::from_utf8_lossy(cell).chars().take(40).collect();
        if value.len() < cell.len() {
            value.push('…');
        }
        let column = column.to_string();
        match self {
            BadCell::NotANumber => Problem::NotANumber { column, value },
            BadCell::NotFinite => Problem::NotFinite { column, value },
        }
    }
}

/// Parses a cell as pandas would type it: an integer literal stays an integer, anything else
/// must be a float literal. Returns the value and whether it was an integer.
fn parse_cell(cell: &[u8]) -> Result<(f64, bool), BadCell> {
    let text = std::str::from_utf8(cell)
        .map_err(|_| BadCell::NotANumber)?
        .trim();
    if let Ok(v) = text.parse::<i64>() {
        return Ok((v as f64, true));
    }
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok((v, false)),
        Ok(_) => Err(BadCell::NotFinite),
        Err(_) => Err(BadCell::NotANumber),
    }
}

fn csv_problem(path: &Path, err: csv::Error) -> ReadError {
    let line = err.position().map_or(0, |p| p.line());
    ReadError::Malformed {
        path: path.to_path_buf(),
        line,
        problem: Problem::Csv(err.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catch0() -> BsuiteId {
        "catch/0".parse().unwrap()
    }

    fn parse(text: &str) -> Result<RunTable, ReadError> {
        parse_run(
            catch0(),
            Path::new("bsuite_id_-_catch-0.csv"),
            text.as_bytes(),
        )
    }

    fn problem(text: &str) -> (u64, Problem) {
        match parse(text) {
            Err(ReadError::Malformed { line, problem, .. }) => (line, problem),
            other => panic!("expected a malformed-file error, got {other:?}"),
        }
    }

    const HEADER: &str = "steps,episode,total_return,episode_len,episode_return,total_regret\n";

    #[test]
    fn columns_are_found_by_name_in_any_order() {
        let run = parse(
            "total_regret,episode_return,episode_len,total_return,episode,steps,extra\n\
             2.0,-1.0,9,-1.0,1,9,7\n4.0,-1.0,9,-2.0,2,18,8\n",
        )
        .unwrap();
        assert_eq!(run.values("steps").unwrap(), &[9.0, 18.0]);
        assert_eq!(run.episodes(), &[1.0, 2.0]);
        assert_eq!(run.column("extra").unwrap().kind(), ColumnKind::Int);
        assert_eq!(
            run.column("total_regret").unwrap().kind(),
            ColumnKind::Float
        );
        assert_eq!(run.last_episode(), 2);
        assert!(!run.is_finished());
        assert_eq!(run.settings(), catch0().settings());
    }

    #[test]
    fn an_int_column_with_one_float_becomes_float() {
        let run = parse(&format!("{HEADER}9,1,-1,9,-1,2\n18,2,0.5,9,1,2\n")).unwrap();
        assert_eq!(
            run.column("total_return").unwrap().kind(),
            ColumnKind::Float
        );
        assert_eq!(run.column("steps").unwrap().kind(), ColumnKind::Int);
        assert_eq!(run.values("total_return").unwrap(), &[-1.0, 0.5]);
    }

    #[test]
    fn malformed_content_names_line_and_problem() {
        assert_eq!(problem(""), (1, Problem::Empty));
        assert_eq!(problem("\n\n"), (1, Problem::Empty));
        assert_eq!(problem(HEADER), (1, Problem::NoRows));
        let (line, p) =
            problem("steps,episode,total_return,episode_len,episode_return\n1,1,1,1,1\n");
        assert_eq!(line, 1);
        assert!(
            matches!(p, Problem::MissingColumns { ref missing, .. } if missing == &["total_regret"])
        );
        let (line, p) = problem(&format!("{HEADER}9,1,-1.0,9,-1.0,2.0\n18,2,x,9,1.0,2.0\n"));
        assert_eq!(line, 3);
        assert_eq!(p.to_string(), "column 'total_return': 'x' is not a number");
        assert_eq!(
            problem(&format!("{HEADER}9,1,-1.0,9,-1.0\n")),
            (
                2,
                Problem::FieldCount {
                    expected: 6,
                    found: 5
                }
            )
        );
        assert_eq!(
            problem(&format!("{HEADER}9,2,0,9,0,0\n9,1,0,9,0,0\n")),
            (
                3,
                Problem::EpisodeDecreases {
                    previous: 2,
                    current: 1
                }
            )
        );
        assert_eq!(
            problem(&format!("{HEADER}9,1,0,9,0,0\n9,1,0,9,0,0\n")),
            (3, Problem::EpisodeRepeats(1))
        );
        assert_eq!(
            problem(&format!("{HEADER}9,1,0,9,0,0\n18,2,0,9,0,0.")),
            (3, Problem::TruncatedLastLine)
        );
        assert!(matches!(
            problem(&format!("{HEADER}9,1.5,0,9,0,0\n")),
            (2, Problem::BadEpisode(_))
        ));
        let (line, p) = problem(&format!("{HEADER}9,1,0,9,0,4.0\n18,2,0,9,0,2.0\n"));
        assert_eq!(line, 3);
        assert_eq!(
            p.to_string(),
            "cumulative column 'total_regret' goes back from 4 to 2"
        );
        assert!(matches!(
            problem(&format!("{HEADER}9,1,nan,9,0,0\n")),
            (2, Problem::NotFinite { .. })
        ));
        assert!(matches!(
            problem(&format!("{HEADER}9,1,,9,0,0\n")),
            (2, Problem::NotANumber { .. })
        ));
        assert!(matches!(
            problem("steps,steps,episode\n"),
            (1, Problem::DuplicateColumn(ref c)) if c == "steps"
        ));
        let err = parse(&format!("{HEADER}9,1,\"-1\n")).unwrap_err();
        assert!(
            err.to_string().starts_with("bsuite_id_-_catch-0.csv:"),
            "{err}"
        );
    }

    #[test]
    fn file_names_must_be_canonical_bsuite_ids() {
        assert_eq!(
            id_from_file_name("bsuite_id_-_catch-0.csv").unwrap(),
            catch0()
        );
        // Quirk 17: a suffix strip, not a character strip (the reference would turn
        // "bsuite_id_-_catch-0.csv.csv" into catch/0).
        assert!(id_from_file_name("bsuite_id_-_catch-0.csv.csv").is_err());
        assert!(matches!(
            id_from_file_name("bsuite_id_-_nonsense-0.csv"),
            Err(FileNameError::NotAnId(msg)) if msg.contains("unknown experiment 'nonsense'")
        ));
        for bad in [
            "bsuite_id_-_catch.csv",
            "bsuite_id_-_catch-x.csv",
            "bsuite_id_-_catch-+1.csv",
            "bsuite_id_-_catch-01.csv",
            "bsuite_id_-_catch-0.CSV",
            "catch-0.csv",
        ] {
            assert!(id_from_file_name(bad).is_err(), "{bad}");
        }
        for id in bsuite_envs::sweep() {
            assert_eq!(id_from_file_name(&file_name(&id)).unwrap(), id);
        }
    }

    fn fixtures() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/random_results")
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("bsuite-results-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn reads_the_reference_random_run() {
        let set = load_dir(&fixtures()).unwrap();
        assert_eq!(set.runs.len(), 115);
        assert!(set.skipped.is_empty());
        assert!(set.runs.windows(2).all(|w| w[0].id() < w[1].id()));
        assert!(set.runs.iter().all(RunTable::is_finished));
        let bandit = &set.runs[0];
        assert_eq!(bandit.id().to_string(), "bandit/0");
        assert_eq!(bandit.num_rows(), 49);
        // Reference value: the final row of bandit/0.
        let last = |c: &str| *bandit.values(c).unwrap().last().unwrap();
        assert_eq!(last("total_return"), 4952.799999999973);
        assert_eq!(last("total_regret"), 5047.200000000025);
        let deep_sea = set
            .runs
            .iter()
            .find(|r| r.id().to_string() == "deep_sea/0")
            .unwrap();
        assert_eq!(
            deep_sea.column("denoised_return").unwrap().kind(),
            ColumnKind::Float
        );
        assert_eq!(
            deep_sea.column("total_bad_episodes").unwrap().kind(),
            ColumnKind::Int
        );
    }

    #[test]
    fn lenient_mode_skips_and_reports_bad_files() {
        let dir = temp_dir("lenient");
        let good = "bsuite_id_-_catch-0.csv";
        std::fs::copy(fixtures().join(good), dir.join(good)).unwrap();
        std::fs::write(dir.join("notes.csv"), "a,b\n1,2\n").unwrap();
        std::fs::write(
            dir.join("bsuite_id_-_catch-1.csv"),
            format!("{HEADER}9,1,oops,9,0,0\n"),
        )
        .unwrap();
        std::fs::write(dir.join("bsuite_id_-_catch-99.csv"), HEADER).unwrap();
        std::fs::write(dir.join(".bsuite_id_-_catch-2.csv.tmp"), "partial").unwrap();

        let err = load_dir(&dir).unwrap_err().to_string();
        assert!(
            err.contains("bsuite_id_-_catch-1.csv:2: column 'total_return': 'oops'"),
            "{err}"
        );

        let set = load_dir_lenient(&dir).unwrap();
        assert_eq!(set.runs.len(), 1);
        let skipped: Vec<String> = set.skipped.iter().map(ToString::to_string).collect();
        assert_eq!(skipped.len(), 3, "{skipped:?}");
        assert!(skipped[0].contains("catch-1.csv:2:"), "{skipped:?}");
        assert!(
            skipped[1].contains("catch-99.csv: not a bsuite result file name"),
            "{skipped:?}"
        );
        assert!(
            skipped[2].contains("notes.csv: skipped: not a bsuite result file"),
            "{skipped:?}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn directories_without_results_are_errors() {
        let dir = temp_dir("empty");
        let err = load_dir(&dir).unwrap_err().to_string();
        assert!(err.ends_with("no bsuite results: no *.csv files"), "{err}");
        std::fs::create_dir(dir.join("dqn")).unwrap();
        std::fs::write(dir.join("dqn/bsuite_id_-_catch-0.csv"), "").unwrap();
        let err = load_dir_lenient(&dir).unwrap_err().to_string();
        assert!(
            err.contains("subdirectories dqn hold bsuite results"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(matches!(load_dir(&dir), Err(ReadError::Io { .. })));
    }
}
