//! What a results directory holds: `bsuite_run.json`, written by the runner beside the
//! CSV files, names the agent, its seed and the episode count that wrote them, so that a
//! resumed run cannot mix another agent's or seed's episodes into the directory, and
//! `score` and `report` can say what they show. Python bsuite's readers load only
//! `bsuite_id_-_*.csv` files and ignore it.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The manifest's file name in a results directory.
pub const MANIFEST_FILE: &str = "bsuite_run.json";

/// Who wrote a results directory.
///
/// ```
/// use bsuite_logging::manifest::RunManifest;
///
/// let dqn = RunManifest::new("dqn", "bsuite's DQN", 42, None);
/// let other = RunManifest::new("dqn", "bsuite's DQN", 7, Some(100));
/// assert_eq!(dqn.differences(&other), ["seed 42, not 7", "all episodes, not 100 per id"]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunManifest {
    /// The agent's name, as runners accept it.
    pub agent: String,
    /// The agent in a line (its configuration).
    pub description: String,
    /// The agent seed.
    pub seed: u32,
    /// Every hyperparameter of the agent, `key -> value` as `--config` takes them (empty in
    /// manifests written before agents were configurable, and for agents without keys).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub config: BTreeMap<String, String>,
    /// Episodes per id when shortened (`--num-episodes`); `None` for each id's own count.
    pub num_episodes: Option<usize>,
    /// The bsuite-rs version that wrote it.
    pub bsuite_rs: String,
    /// The git revision of the build that wrote it last, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_revision: Option<String>,
}

/// A manifest that could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("reading {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a bsuite-rs run manifest: {source}")]
    Parse {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("writing {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl RunManifest {
    /// A manifest for this agent, seed and episode count, from this version of bsuite-rs.
    pub fn new(agent: &str, description: &str, seed: u32, num_episodes: Option<usize>) -> Self {
        RunManifest {
            agent: agent.to_string(),
            description: description.to_string(),
            seed,
            config: BTreeMap::new(),
            num_episodes,
            bsuite_rs: env!("CARGO_PKG_VERSION").to_string(),
            git_revision: None,
        }
    }

    /// The manifest of `dir`, if it has one.
    pub fn read(dir: &Path) -> Result<Option<Self>, ManifestError> {
        let path = dir.join(MANIFEST_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(ManifestError::Read { path, source }),
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|source| ManifestError::Parse { path, source })
    }

    /// Writes the manifest into `dir`, replacing any (through a temporary file, so that a
    /// reader never sees half of one).
    pub fn write(&self, dir: &Path) -> Result<(), ManifestError> {
        let path = dir.join(MANIFEST_FILE);
        let tmp = dir.join(format!("{MANIFEST_FILE}.{}.tmp", std::process::id()));
        let text = serde_json::to_string_pretty(self).expect("a manifest serialises") + "\n";
        std::fs::write(&tmp, text)
            .and_then(|()| std::fs::rename(&tmp, &path))
            .map_err(|source| {
                let _ = std::fs::remove_file(&tmp);
                ManifestError::Write { path, source }
            })
    }

    /// What makes results written under `self` and under `other` different runs (agent,
    /// seed, episode count), each as "`self`'s, not `other`'s".
    pub fn differences(&self, other: &Self) -> Vec<String> {
        let episodes =
            |n: Option<usize>| n.map_or("all episodes".into(), |n| format!("{n} per id"));
        let mut out = Vec::new();
        if self.agent != other.agent {
            out.push(format!("agent {}, not {}", self.agent, other.agent));
        }
        if self.seed != other.seed {
            out.push(format!("seed {}, not {}", self.seed, other.seed));
        }
        // Older manifests recorded no configuration: only a recorded one can differ.
        if !other.config.is_empty() {
            for (key, ours) in self.config.iter().filter(|(k, _)| *k != "seed") {
                match other.config.get(key) {
                    Some(theirs) if theirs == ours => {}
                    Some(theirs) => out.push(format!("{key}={ours}, not {theirs}")),
                    None => out.push(format!("{key}={ours}, not unset")),
                }
            }
            let ours_lacks = |k: &&String| !self.config.contains_key(*k);
            for key in other.config.keys().filter(ours_lacks) {
                out.push(format!("no {key}, not {}", other.config[key]));
            }
        }
        if self.num_episodes != other.num_episodes {
            out.push(format!(
                "{}, not {}",
                episodes(self.num_episodes),
                episodes(other.num_episodes)
            ));
        }
        out
    }
}

impl fmt::Display for RunManifest {
    /// `agent dqn, seed 42` (and the episode count when shortened).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "agent {}, seed {}", self.agent, self.seed)?;
        if let Some(n) = self.num_episodes {
            write!(f, ", {n} episodes per id")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_survives_a_round_trip_and_a_broken_one_is_named() {
        let dir = std::env::temp_dir().join(format!("manifest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(RunManifest::read(&dir).unwrap(), None);
        let manifest = RunManifest::new("boot_dqn", "ensemble of 20", 3, Some(50));
        manifest.write(&dir).unwrap();
        assert_eq!(RunManifest::read(&dir).unwrap(), Some(manifest.clone()));
        assert_eq!(
            manifest.to_string(),
            "agent boot_dqn, seed 3, 50 episodes per id"
        );
        std::fs::write(dir.join(MANIFEST_FILE), "{\"agent\": 1}").unwrap();
        let err = RunManifest::read(&dir).unwrap_err().to_string();
        assert!(err.contains(MANIFEST_FILE), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn another_configuration_is_another_run() {
        let with = |pairs: &[(&str, &str)]| RunManifest {
            config: (pairs.iter())
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..RunManifest::new("dqn", "DQN", 42, None)
        };
        let adam = with(&[
            ("optimizer", "adam"),
            ("learning_rate", "0.001"),
            ("seed", "42"),
        ]);
        let sgd = with(&[
            ("optimizer", "sgd"),
            ("learning_rate", "0.01"),
            ("seed", "42"),
        ]);
        assert_eq!(
            sgd.differences(&adam),
            ["learning_rate=0.01, not 0.001", "optimizer=sgd, not adam"]
        );
        assert!(adam.differences(&adam.clone()).is_empty());
        // A manifest from before configurations were recorded is not another run.
        assert!(adam.differences(&with(&[])).is_empty());
        let newer = with(&[
            ("optimizer", "adam"),
            ("learning_rate", "0.001"),
            ("lr2", "1"),
        ]);
        assert_eq!(adam.differences(&newer), ["no lr2, not 1"]);
    }
}
