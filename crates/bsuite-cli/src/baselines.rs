//! The shipped baselines: complete sweeps (all 468 ids, every episode) of the reference
//! agents, each with its run's manifest, as deterministic `<name>.tar.gz` archives. The
//! library carries the repository's `baselines/` built in (`build.rs`), so an installed
//! `bsuite` needs no checkout; `--baselines-dir DIR` reads the archives of another
//! directory instead, and `cargo xtask`'s aliases read the checkout's. `report
//! --baselines`, `compare` and `study --baselines` unpack them beside the user's results;
//! `cargo xtask pack-baseline` makes them.

use std::fs;
use std::path::{Path, PathBuf};

use bsuite_logging::manifest::{RunManifest, MANIFEST_FILE};
use flate2::read::GzDecoder;

/// A baseline built into this library: its name, its archive and the archive's hash.
struct Embedded {
    name: &'static str,
    bytes: &'static [u8],
    hash: u64,
}

/// The repository's `baselines/*.tar.gz` when this library was built, by name.
static EMBEDDED: &[Embedded] = include!(concat!(env!("OUT_DIR"), "/embedded.rs"));

/// Where the shipped baselines come from, and where they are unpacked.
#[derive(Clone, Debug)]
pub struct Baselines {
    archives: Archives,
    unpacked: PathBuf,
}

/// The archives of the shipped baselines.
#[derive(Clone, Debug)]
enum Archives {
    /// Those built into this library.
    Embedded,
    /// `<name>.tar.gz` files in a directory.
    Dir(PathBuf),
}

/// Why a shipped baseline cannot be had.
#[derive(Debug, thiserror::Error)]
pub enum BaselinesError {
    /// A name that no archive has.
    #[error("no shipped baseline '{name}'; the repository ships: {} (or 'all')", available.join(", "))]
    Unknown {
        /// The name asked for.
        name: String,
        /// The names there are.
        available: Vec<String>,
    },
    /// A build without the repository's `baselines/` (see `build.rs`).
    #[error(
        "this bsuite was built without the repository's baselines/, so none is built in: pass \
         --baselines-dir DIR, a directory of <name>.tar.gz archives such as a checkout's \
         baselines/"
    )]
    NoneBuiltIn,
    /// The archives' directory cannot be read.
    #[error("reading the baselines directory {dir}: {error}")]
    Dir {
        /// The directory.
        dir: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// An archive or the directory it is unpacked into cannot be read or written.
    #[error("unpacking the shipped baseline {name} into {dir}: {error}")]
    Unpack {
        /// The baseline.
        name: String,
        /// Where it was being unpacked.
        dir: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// An unpacked baseline without a readable manifest.
    #[error("the shipped baseline {name} has no readable {MANIFEST_FILE}: {why}")]
    Manifest {
        /// The baseline.
        name: String,
        /// Why.
        why: String,
    },
}

impl Baselines {
    /// The baselines built into this library, unpacked into the user's cache:
    /// `$XDG_CACHE_HOME/bsuite-rs/baselines`, else `~/.cache/bsuite-rs/baselines`.
    pub fn built_in() -> Baselines {
        Baselines {
            archives: Archives::Embedded,
            unpacked: user_cache().join("baselines"),
        }
    }

    /// The archives `<name>.tar.gz` of `dir`, unpacked into `unpacked`.
    pub fn in_dir(dir: PathBuf, unpacked: PathBuf) -> Baselines {
        Baselines {
            archives: Archives::Dir(dir),
            unpacked,
        }
    }

    /// These baselines, or with `dir` (a command's `--baselines-dir`) the archives there,
    /// unpacked into the same place.
    pub fn or_dir(&self, dir: Option<&Path>) -> Baselines {
        match dir {
            Some(dir) => Baselines::in_dir(dir.to_path_buf(), self.unpacked.clone()),
            None => self.clone(),
        }
    }

    /// The names of the shipped baselines, sorted.
    pub fn names(&self) -> Result<Vec<String>, BaselinesError> {
        match &self.archives {
            Archives::Embedded if EMBEDDED.is_empty() => Err(BaselinesError::NoneBuiltIn),
            Archives::Embedded => Ok(EMBEDDED.iter().map(|e| e.name.to_string()).collect()),
            Archives::Dir(dir) => {
                let error = |error| BaselinesError::Dir {
                    dir: dir.clone(),
                    error,
                };
                let mut names = Vec::new();
                for entry in fs::read_dir(dir).map_err(error)? {
                    let name = entry.map_err(error)?.file_name();
                    if let Some(agent) = name.to_string_lossy().strip_suffix(".tar.gz") {
                        names.push(agent.to_string());
                    }
                }
                names.sort();
                Ok(names)
            }
        }
    }

    /// Resolves `--baselines`: `all`, or names separated by commas.
    pub fn select(&self, spec: &str) -> Result<Vec<String>, BaselinesError> {
        let available = self.names()?;
        if spec == "all" {
            return Ok(available);
        }
        let mut names = Vec::new();
        for name in spec.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            if !available.iter().any(|a| a == name) {
                return Err(BaselinesError::Unknown {
                    name: name.to_string(),
                    available,
                });
            }
            names.push(name.to_string());
        }
        Ok(names)
    }

    /// The shipped baseline `name`, unpacked: its results directory.
    pub fn unpack(&self, name: &str) -> Result<PathBuf, BaselinesError> {
        let archive = match &self.archives {
            Archives::Embedded => match EMBEDDED.iter().find(|e| e.name == name) {
                Some(embedded) => Archive::Bytes(embedded.bytes, embedded.hash),
                None => {
                    return Err(BaselinesError::Unknown {
                        name: name.to_string(),
                        available: self.names()?,
                    })
                }
            },
            Archives::Dir(dir) => Archive::File(dir.join(format!("{name}.tar.gz"))),
        };
        unpack_into(&archive, &self.unpacked, name).map_err(|error| BaselinesError::Unpack {
            name: name.to_string(),
            dir: self.unpacked.clone(),
            error,
        })
    }

    /// Every shipped baseline, unpacked: its name, results directory and manifest.
    pub fn unpack_all(&self) -> Result<Vec<(String, PathBuf, RunManifest)>, BaselinesError> {
        let mut runs = Vec::new();
        for name in self.names()? {
            let dir = self.unpack(&name)?;
            // A baseline of several seeds records its run in each seed's manifest.
            let seeds =
                bsuite_analysis::seeds::seed_dirs(&dir).map_err(|e| BaselinesError::Manifest {
                    name: name.clone(),
                    why: e.to_string(),
                })?;
            let first = seeds.into_iter().next().map_or(dir.clone(), |(_, d)| d);
            let manifest = match RunManifest::read(&first) {
                Ok(Some(manifest)) => manifest,
                Ok(None) => {
                    return Err(BaselinesError::Manifest {
                        name,
                        why: "none in the archive".into(),
                    })
                }
                Err(error) => {
                    return Err(BaselinesError::Manifest {
                        name,
                        why: error.to_string(),
                    })
                }
            };
            runs.push((name, dir, manifest));
        }
        Ok(runs)
    }
}

/// The user's cache directory of bsuite-rs: `$XDG_CACHE_HOME/bsuite-rs`, else
/// `$HOME/.cache/bsuite-rs`, else one in the temporary directory.
fn user_cache() -> PathBuf {
    let set = |name| std::env::var_os(name).filter(|v| Path::new(v).is_absolute());
    if let Some(cache) = set("XDG_CACHE_HOME") {
        return PathBuf::from(cache).join("bsuite-rs");
    }
    if let Some(home) = set("HOME") {
        return PathBuf::from(home).join(".cache").join("bsuite-rs");
    }
    std::env::temp_dir().join("bsuite-rs-cache")
}

/// A baseline's archive: a file, or bytes built in with their hash.
enum Archive {
    File(PathBuf),
    Bytes(&'static [u8], u64),
}

impl Archive {
    /// What identifies the archive in an unpacked copy's stamp: a file's size and
    /// modification time, built-in bytes' size and hash.
    fn identity(&self) -> std::io::Result<String> {
        match self {
            Archive::File(path) => Ok(file_line(path, Path::new("archive"))?),
            Archive::Bytes(bytes, hash) => Ok(format!("built-in {} {hash:016x}\n", bytes.len())),
        }
    }

    /// Unpacks the archive into `dir`.
    fn unpack(&self, dir: &Path) -> std::io::Result<()> {
        match self {
            Archive::File(path) => {
                let file = fs::File::open(path).map_err(|e| {
                    std::io::Error::new(e.kind(), format!("opening {}: {e}", path.display()))
                })?;
                tar::Archive::new(GzDecoder::new(file)).unpack(dir)
            }
            Archive::Bytes(bytes, _) => tar::Archive::new(GzDecoder::new(*bytes)).unpack(dir),
        }
    }
}

/// Unpacks `archive` into `root/name`, unless the copy there is what it last unpacked,
/// untouched: a study reports from a dozen baselines, and unpacking them all (about ten
/// thousand files) took most of its time.
fn unpack_into(archive: &Archive, root: &Path, name: &str) -> std::io::Result<PathBuf> {
    let target = root.join(name);
    let stamp_path = root.join(format!(".{name}.unpacked"));
    let recorded = fs::read_to_string(&stamp_path).ok();
    if recorded.is_some() && recorded == stamp(archive, &target).ok() {
        return Ok(target);
    }
    let staging = root.join(format!(".{name}.{}", std::process::id()));
    let _ = fs::remove_dir_all(&staging);
    fs::create_dir_all(&staging)?;
    if let Err(error) = archive.unpack(&staging) {
        let _ = fs::remove_dir_all(&staging);
        return Err(error);
    }
    let _ = fs::remove_dir_all(&target);
    fs::rename(&staging, &target)?;
    // Described as found after the rename: should another process have unpacked too, the
    // stamp still describes what is there.
    fs::write(&stamp_path, stamp(archive, &target)?)?;
    Ok(target)
}

/// One line of a stamp: the path shown, size and modification time of `path`.
fn file_line(path: &Path, shown: &Path) -> std::io::Result<String> {
    let meta = fs::metadata(path)?;
    let modified = meta
        .modified()?
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    Ok(format!(
        "{} {} {}\n",
        shown.display(),
        meta.len(),
        modified.as_nanos()
    ))
}

/// What identifies an unpacked copy: the archive's identity, then the path, size and
/// modification time of every file in `dir` (unpacking keeps the archive's times, so an
/// edited, added or removed file changes it).
fn stamp(archive: &Archive, dir: &Path) -> std::io::Result<String> {
    fn walk(dir: &Path, relative: &Path, out: &mut Vec<String>) -> std::io::Result<()> {
        for entry in fs::read_dir(dir)? {
            let entry = entry?;
            let shown = relative.join(entry.file_name());
            if entry.file_type()?.is_dir() {
                walk(&entry.path(), &shown, out)?;
            } else {
                out.push(file_line(&entry.path(), &shown)?);
            }
        }
        Ok(())
    }
    let mut files = Vec::new();
    walk(dir, Path::new(""), &mut files)?;
    files.sort();
    Ok(archive.identity()? + &files.concat())
}

#[cfg(test)]
mod tests {
    use super::*;
    use bsuite_analysis::AgentResults;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("bsuite-cli-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The repository's baselines/.
    fn shipped() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../baselines")
    }

    #[test]
    fn an_unpacked_copy_is_reused_only_while_untouched() {
        use std::os::unix::fs::MetadataExt as _;
        let root = scratch("unpack-reuse");
        let archive = Archive::File(shipped().join("boot_dqn_1.tar.gz"));
        let dir = unpack_into(&archive, &root, "b").unwrap();
        // A results file of one seed's sweep or of seed 42's, as the baseline ships.
        let csv = ["", "seed-42"]
            .iter()
            .map(|sub| dir.join(sub).join("bsuite_id_-_catch-0.csv"))
            .find(|csv| csv.is_file())
            .unwrap();
        let original = fs::read_to_string(&csv).unwrap();
        // A fresh unpacking renames a new directory into place.
        let inode = |dir: &Path| fs::metadata(dir).unwrap().ino();

        // Read (as a report reads it: one seed's directory of it), it is still as unpacked,
        // so it is reused.
        AgentResults::load("b", csv.parent().unwrap()).unwrap();
        let first = inode(&dir);
        unpack_into(&archive, &root, "b").unwrap();
        assert_eq!(inode(&dir), first);

        // An edited file is replaced by the archive's.
        fs::write(&csv, "edited").unwrap();
        unpack_into(&archive, &root, "b").unwrap();
        assert_ne!(inode(&dir), first);
        assert_eq!(fs::read_to_string(&csv).unwrap(), original);
        // So is a removed one, and an added one is removed.
        fs::remove_file(&csv).unwrap();
        fs::write(dir.join("extra.csv"), "x").unwrap();
        unpack_into(&archive, &root, "b").unwrap();
        assert_eq!(fs::read_to_string(&csv).unwrap(), original);
        assert!(!dir.join("extra.csv").exists());
        // Another archive under the same name is unpacked afresh.
        let other = Archive::File(shipped().join("dqn_sgd.tar.gz"));
        unpack_into(&other, &root, "b").unwrap();
        assert_ne!(fs::read_to_string(&csv).ok(), Some(original));
        fs::remove_dir_all(&root).unwrap();
    }

    /// The built-in baselines are the repository's, byte for byte, and unpack as its
    /// archives do; a built-in archive of another build is unpacked afresh.
    #[test]
    fn the_built_in_baselines_are_the_repositorys() {
        let root = scratch("built-in");
        let built_in = Baselines {
            archives: Archives::Embedded,
            unpacked: root.join("built-in"),
        };
        let checkout = Baselines::in_dir(shipped(), root.join("checkout"));
        let names = built_in.names().unwrap();
        assert_eq!(names, checkout.names().unwrap());
        assert!(names.contains(&"dqn".to_string()), "{names:?}");
        for embedded in EMBEDDED {
            let file = fs::read(shipped().join(format!("{}.tar.gz", embedded.name))).unwrap();
            assert!(file == embedded.bytes, "{} differs", embedded.name);
        }
        let (a, b) = (
            built_in.unpack("random").unwrap(),
            checkout.unpack("random").unwrap(),
        );
        // Every file of the archive (its seeds' directories) with its bytes.
        fn files(dir: &Path, relative: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
            for entry in fs::read_dir(dir).unwrap().map(|e| e.unwrap()) {
                let shown = relative.join(entry.file_name());
                match entry.file_type().unwrap().is_dir() {
                    true => files(&entry.path(), &shown, out),
                    false => out.push((shown, fs::read(entry.path()).unwrap())),
                }
            }
        }
        let (mut from_built_in, mut from_checkout) = (Vec::new(), Vec::new());
        files(&a, Path::new(""), &mut from_built_in);
        files(&b, Path::new(""), &mut from_checkout);
        from_built_in.sort();
        from_checkout.sort();
        assert!(from_built_in.len() > 468, "{}", from_built_in.len());
        assert!(from_built_in == from_checkout);
        let stamp_path = root.join("built-in/.random.unpacked");
        let stamp = fs::read_to_string(&stamp_path).unwrap();
        assert!(stamp.starts_with("built-in "), "{stamp}");
        let other_build = stamp.replacen("built-in ", "built-in 1", 1);
        fs::write(&stamp_path, &other_build).unwrap();
        built_in.unpack("random").unwrap();
        assert_eq!(fs::read_to_string(&stamp_path).unwrap(), stamp);

        let err = built_in.select("dqn,dqn2").unwrap_err().to_string();
        assert!(
            err.starts_with("no shipped baseline 'dqn2'; the repository ships: "),
            "{err}"
        );
        let err = Baselines::in_dir(root.join("none"), root.clone())
            .names()
            .unwrap_err()
            .to_string();
        assert!(err.contains("reading the baselines directory"), "{err}");
        fs::remove_dir_all(&root).unwrap();
    }
}
