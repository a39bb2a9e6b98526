//! Results directories named on the command line (`[NAME=]DIR`), read the same way by
//! `score`, `report` and `agree`.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use bsuite_analysis::AgentResults;
use bsuite_logging::results::ReadError;

/// Reads a results argument: `NAME=DIR`, or `DIR` (named after its last component). The
/// older `DIR=NAME` form of `report` is accepted with a hint. Shared by `score` and
/// `report`, so both name agents the same way.
pub fn parse_results(arg: &str) -> Result<(PathBuf, String)> {
    let is_dir = |p: &str| !p.is_empty() && Path::new(p).is_dir();
    let (dir, name) = match arg.split_once('=') {
        Some((left, right)) if is_dir(right) || !is_dir(left) => {
            if left.trim().is_empty() {
                bail!("{arg}: the agent name before '=' is empty (NAME=DIR)");
            }
            (PathBuf::from(right), Some(left.to_string()))
        }
        Some((left, right)) => {
            bsuite_baselines::errln!(
                "note: {arg}: reading it as DIR=NAME; write {right}={left} (NAME=DIR)"
            );
            if right.trim().is_empty() {
                bail!("{arg}: the agent name is empty (NAME=DIR)");
            }
            (PathBuf::from(left), Some(right.to_string()))
        }
        None => (PathBuf::from(arg), None),
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
        Some(name) => name,
        None => {
            let absolute = dir
                .canonicalize()
                .with_context(|| format!("reading results directory {}", dir.display()))?;
            match absolute.file_name().and_then(|n| n.to_str()) {
                Some(n) => n.to_string(),
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

/// Reads `[NAME=]DIR` arguments into agents with distinct names.
pub fn load_agents(dirs: &[String], lenient: bool) -> Result<Vec<AgentResults>> {
    let mut agents: Vec<AgentResults> = Vec::new();
    for arg in dirs {
        let (dir, name) = parse_results(arg)?;
        if agents.iter().any(|a| a.name == name) {
            bail!("two results directories are both named '{name}'; name them with NAME=DIR");
        }
        agents.push(load_agent(&name, &dir, lenient)?);
    }
    Ok(agents)
}

/// Reads one agent's results directory: strictly, or skipping malformed files.
pub fn load_agent(name: &str, dir: &Path, lenient: bool) -> Result<AgentResults> {
    if lenient {
        return Ok(AgentResults::load_lenient(name, dir)?);
    }
    AgentResults::load(name, dir).map_err(|err| match err {
        ReadError::Malformed { .. } | ReadError::FileName { .. } => {
            anyhow!("{err}\n(pass --lenient to skip malformed result files)")
        }
        other => other.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixtures() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/random_results")
    }

    #[test]
    fn agent_name_comes_from_the_directory_unless_given() {
        let dir = fixtures();
        let (_, name) = parse_results(dir.to_str().unwrap()).unwrap();
        assert_eq!(name, "random_results");
        let (path, name) = parse_results(&format!("dqn={}", dir.display())).unwrap();
        assert_eq!((path, name.as_str()), (dir.clone(), "dqn"));
        // The older DIR=NAME form still reads the same.
        let (path, name) = parse_results(&format!("{}=dqn", dir.display())).unwrap();
        assert_eq!((path, name.as_str()), (dir.clone(), "dqn"));
        let (_, name) = parse_results(&format!("{}/", dir.display())).unwrap();
        assert_eq!(name, "random_results");
    }

    #[test]
    fn missing_directories_and_empty_names_are_errors() {
        let err = parse_results("/no/such/results").unwrap_err().to_string();
        assert!(err.contains("/no/such/results does not exist"), "{err}");
        let err = parse_results(&format!("={}", fixtures().display()))
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
