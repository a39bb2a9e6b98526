//! `--shard I/N`: which part of a selection one of N machines runs.

use std::str::FromStr;

/// A deterministic share `index` of `count` of a list of ids (`--shard I/N`, 0-based `I`).
///
/// ```
/// use bsuite_baselines::runner::Shard;
///
/// let shard: Shard = "1/3".parse().unwrap();
/// assert_eq!(shard.select(&[10, 11, 12, 13, 14]), vec![11, 14]);
/// assert!("3/3".parse::<Shard>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, `0..count`.
    pub index: usize,
    /// Number of shards.
    pub count: usize,
}

impl Shard {
    /// Every `count`-th item starting at `index`: shards are disjoint, cover the list, and
    /// mix experiments so that their run times are similar.
    pub fn select<T: Clone>(&self, items: &[T]) -> Vec<T> {
        items
            .iter()
            .skip(self.index)
            .step_by(self.count)
            .cloned()
            .collect()
    }
}

/// A `--shard` that is not `I/N` with `0 <= I < N`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad shard '{text}': expected I/N with 0 <= I < N, e.g. 0/4")]
pub struct ParseShardError {
    /// The text given.
    pub text: String,
}

impl FromStr for Shard {
    type Err = ParseShardError;

    fn from_str(s: &str) -> Result<Self, ParseShardError> {
        let bad = || ParseShardError {
            text: s.to_string(),
        };
        let (index, count) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = index.trim().parse().map_err(|_| bad())?;
        let count: usize = count.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}
