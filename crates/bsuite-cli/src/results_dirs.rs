//! Results directories named on the command line (`[NAME=]DIR`), read the same way by
//! `score`, `report` and `agree`.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use bsuite_analysis::seeds::SeededAgent;
use bsuite_logging::results::ReadError;

/// Reads a results argument: `NAME=DIR`, or `DIR` (named after its last component). The
/// older `DIR=NAME` form of `report` is accepted with a hint. Shared by `score` and
/// `report`, so both name agents the same way. Paths need not be UTF-8; names shown are.
pub fn parse_results(arg: impl AsRef<OsStr>) -> Result<(PathBuf, String)> {
    let raw = arg.as_ref();
    let arg = raw.to_string_lossy();
    let is_dir = |p: &OsStr| !p.is_empty() && Path::new(p).is_dir();
    let (dir, name) = match split_at_equals(raw) {
        Some((left, right)) if is_dir(&right) || !is_dir(&left) => {
            if left.to_string_lossy().trim().is_empty() {
                bail!("{arg}: the agent name before '=' is empty (NAME=DIR)");
            }
            (PathBuf::from(right), Some(left))
        }
        Some((left, right)) => {
            let (left_text, right_text) = (left.to_string_lossy(), right.to_string_lossy());
            bsuite_baselines::errln!(
                "note: {arg}: reading it as DIR=NAME; write {right_text}={left_text} (NAME=DIR)"
            );
            if right_text.trim().is_empty() {
                bail!("{arg}: the agent name is empty (NAME=DIR)");
            }
            (PathBuf::from(left), Some(right))
        }
        None => (PathBuf::from(raw), None),
    };
    if dir.as_os_str().is_empty() {
        bail!("{arg}: the directory is empty (NAME=DIR)");
    }
    if !dir.exists() {
        bail!("results directory {} does not exist", dir.display());
    }
    if !dir.is_dir() {
        bail!("results path {} is not a directory", dir.display());
    }
    let name = match name {
        Some(name) => name.to_string_lossy().into_owned(),
        None => {
            let absolute = dir
                .canonicalize()
                .with_context(|| format!("reading results directory {}", dir.display()))?;
            match absolute.file_name() {
                // A name is a label: one that is not UTF-8 is shown as near as text can.
                Some(n) => n.to_string_lossy().into_owned(),
                None => bail!(
                    "cannot name the agent of {}; give a name with NAME={}",
                    dir.display(),
                    dir.display()
                ),
            }
        }
    };
    Ok((dir, name))
}

/// `arg` split at its first `=`, bytes as they are (a path need not be UTF-8).
#[cfg(unix)]
fn split_at_equals(arg: &OsStr) -> Option<(OsString, OsString)> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = arg.as_bytes();
    let at = bytes.iter().position(|&b| b == b'=')?;
    let part = |b: &[u8]| OsStr::from_bytes(b).to_os_string();
    Some((part(&bytes[..at]), part(&bytes[at + 1..])))
}

#[cfg(not(unix))]
fn split_at_equals(arg: &OsStr) -> Option<(OsString, OsString)> {
    let (left, right) = arg.to_str()?.split_once('=')?;
    Some((left.into(), right.into()))
}

/// Reads `[NAME=]DIR` arguments into agents with distinct names, each a results directory
/// (one seed) or a directory of `seed-<s>/` results directories.
pub fn load_seeded_agents(dirs: &[impl AsRef<OsStr>], lenient: bool) -> Result<Vec<SeededAgent>> {
    let mut agents: Vec<SeededAgent> = Vec::new();
    for arg in dirs {
        let (dir, name) = parse_results(arg)?;
        if agents.iter().any(|a| a.name == name) {
            bail!("two results directories are both named '{name}'; name them with NAME=DIR");
        }
        agents.push(load_seeded(&name, &dir, lenient)?);
    }
    Ok(agents)
}

/// Reads one agent's directory: a results directory (one seed) or a directory of
/// `seed-<s>/` results directories; strictly, or skipping malformed files.
pub fn load_seeded(name: &str, dir: &Path, lenient: bool) -> Result<SeededAgent> {
    SeededAgent::load(name, dir, lenient).map_err(|err| match err {
        bsuite_analysis::seeds::SeedsError::Read(
            ReadError::Malformed { .. } | ReadError::FileName { .. },
        ) => anyhow!("{err}\n(pass --lenient to skip malformed result files)"),
        other => other.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixtures() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/random_results")
    }

    #[test]
    fn agent_name_comes_from_the_directory_unless_given() {
        let dir = fixtures();
        let (_, name) = parse_results(dir.to_str().unwrap()).unwrap();
        assert_eq!(name, "random_results");
        let (path, name) = parse_results(format!("dqn={}", dir.display())).unwrap();
        assert_eq!((path, name.as_str()), (dir.clone(), "dqn"));
        // The older DIR=NAME form still reads the same.
        let (path, name) = parse_results(format!("{}=dqn", dir.display())).unwrap();
        assert_eq!((path, name.as_str()), (dir.clone(), "dqn"));
        let (_, name) = parse_results(format!("{}/", dir.display())).unwrap();
        assert_eq!(name, "random_results");
    }

    #[test]
    fn missing_directories_and_empty_names_are_errors() {
        let err = parse_results("/no/such/results").unwrap_err().to_string();
        assert!(err.contains("/no/such/results does not exist"), "{err}");
        let err = parse_results(format!("={}", fixtures().display()))
            .unwrap_err()
            .to_string();
        assert!(err.contains("agent name before '=' is empty"), "{err}");
        let file = fixtures().join("bsuite_id_-_bandit-0.csv");
        let err = parse_results(file.to_str().unwrap())
            .unwrap_err()
            .to_string();
        assert!(err.contains("is not a directory"), "{err}");
    }
}
