//! `--shard I/N`: which part of a selection one of N machines runs.

use std::fmt;
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

/// `--shard`: a given `I/N`, or `auto`, which a cluster's array task reads from its
/// environment ([`ShardArg::resolve`]).
///
/// ```
/// use bsuite_baselines::runner::{Shard, ShardArg};
///
/// let slurm = |name: &str| match name {
///     "SLURM_ARRAY_TASK_ID" => Some("10".to_string()),
///     "SLURM_ARRAY_TASK_MIN" => Some("1".to_string()),
///     "SLURM_ARRAY_TASK_MAX" => Some("10".to_string()),
///     "SLURM_ARRAY_TASK_COUNT" => Some("10".to_string()),
///     _ => None,
/// };
/// let auto: ShardArg = "auto".parse().unwrap();
/// assert_eq!(auto.resolve(None, slurm), Ok(Shard { index: 9, count: 10 }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShardArg {
    /// `--shard I/N`.
    Given(Shard),
    /// `--shard auto`.
    Auto,
}

impl FromStr for ShardArg {
    type Err = ParseShardError;

    fn from_str(s: &str) -> Result<Self, ParseShardError> {
        match s.trim() {
            "auto" => Ok(ShardArg::Auto),
            _ => s.parse().map(ShardArg::Given),
        }
    }
}

impl From<Shard> for ShardArg {
    fn from(shard: Shard) -> Self {
        ShardArg::Given(shard)
    }
}

/// Why `--shard auto` (or `--shards`) cannot say which shard this process is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AutoShardError {
    /// Neither a Slurm array task nor a Kubernetes Indexed Job.
    #[error(
        "--shard auto: neither SLURM_ARRAY_TASK_ID (a Slurm array task) nor \
         JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) is set; pass --shard I/N"
    )]
    NoCluster,
    /// A variable is not a whole number.
    #[error("--shard auto: {name}={value:?} is not a whole number")]
    NotANumber {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
    },
    /// A Slurm array without `MIN`/`MAX`/`COUNT`, or one that is not a contiguous range
    /// (a step, a list): its tasks would not cover the ids.
    #[error(
        "--shard auto: the Slurm array ({what}) is not one contiguous range of task ids, so \
         its tasks do not cover every id; submit --array=0-{{N-1}} and pass --shards N, \
         whose task ids are the shard numbers"
    )]
    NotARange {
        /// What the array is.
        what: String,
    },
    /// A task id or completion index outside `0..shards`.
    #[error(
        "--shard auto: {name}={index} is not a shard of --shards {count} (0 to {}); with \
         --shards the task ids are the shard numbers",
        .count - 1
    )]
    OutOfRange {
        /// The variable.
        name: &'static str,
        /// Its value.
        index: usize,
        /// `--shards`.
        count: usize,
    },
    /// A Kubernetes Indexed Job does not say how many completions it has.
    #[error(
        "--shard auto: JOB_COMPLETION_INDEX={index} says which shard, not how many; pass \
         --shards N (the Job's completions)"
    )]
    NoCount {
        /// `JOB_COMPLETION_INDEX`.
        index: usize,
    },
    /// `--shards` is for `--shard auto` only.
    #[error("--shards {shards} is for --shard auto (--shard I/N says N itself)")]
    ShardsWithoutAuto {
        /// `--shards`.
        shards: usize,
    },
    /// `--shards 0`.
    #[error("--shards must be at least 1")]
    NoShards,
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl ShardArg {
    /// The shard this process runs. `auto` reads the environment through `var`:
    /// `SLURM_ARRAY_TASK_ID` (with `--shards N` it is the shard number, `0..N`; without,
    /// the array must be one contiguous range, `SLURM_ARRAY_TASK_MIN`..`MAX` with
    /// `COUNT` tasks, and shard `ID - MIN` of `COUNT`, so `--array=1-10` is shards 0 to 9
    /// of 10), else `JOB_COMPLETION_INDEX` of `--shards N`.
    pub fn resolve(
        self,
        shards: Option<usize>,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Shard, AutoShardError> {
        if shards == Some(0) {
            return Err(AutoShardError::NoShards);
        }
        if let ShardArg::Given(given) = self {
            return match shards {
                Some(shards) => Err(AutoShardError::ShardsWithoutAuto { shards }),
                None => Ok(given),
            };
        }
        let number = |name: &'static str| -> Result<Option<usize>, AutoShardError> {
            match var(name) {
                None => Ok(None),
                Some(value) => match value.trim().parse() {
                    Ok(n) => Ok(Some(n)),
                    Err(_) => Err(AutoShardError::NotANumber { name, value }),
                },
            }
        };
        let within = |name, index, count| match index < count {
            true => Ok(Shard { index, count }),
            false => Err(AutoShardError::OutOfRange { name, index, count }),
        };
        if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
            if let Some(count) = shards {
                return within("SLURM_ARRAY_TASK_ID", id, count);
            }
            let (min, max) = (
                number("SLURM_ARRAY_TASK_MIN")?,
                number("SLURM_ARRAY_TASK_MAX")?,
            );
            let tasks = number("SLURM_ARRAY_TASK_COUNT")?;
            return match (min, max, tasks) {
                (Some(min), Some(max), Some(tasks))
                    if min <= id && id <= max && max - min + 1 == tasks =>
                {
                    Ok(Shard {
                        index: id - min,
                        count: tasks,
                    })
                }
                _ => Err(AutoShardError::NotARange {
                    what: format!(
                        "task {id} of {} from {} to {}",
                        tasks.map_or("? tasks".into(), |n| format!("{n} tasks")),
                        min.map_or("?".into(), |n| n.to_string()),
                        max.map_or("?".into(), |n| n.to_string()),
                    ),
                }),
            };
        }
        if let Some(index) = number("JOB_COMPLETION_INDEX")? {
            return match shards {
                Some(count) => within("JOB_COMPLETION_INDEX", index, count),
                None => Err(AutoShardError::NoCount { index }),
            };
        }
        Err(AutoShardError::NoCluster)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            (pairs.iter())
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        }
    }

    fn slurm(id: usize, min: usize, max: usize, count: usize) -> Vec<(String, String)> {
        [("ID", id), ("MIN", min), ("MAX", max), ("COUNT", count)]
            .iter()
            .map(|(k, v)| (format!("SLURM_ARRAY_TASK_{k}"), v.to_string()))
            .collect()
    }

    fn auto(pairs: &[(String, String)], shards: Option<usize>) -> Result<Shard, AutoShardError> {
        let pairs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (&**k, &**v)).collect();
        ShardArg::Auto.resolve(shards, env(&pairs))
    }

    /// Finding 5 of issue 30: `--array=1-10` with `--shard $SLURM_ARRAY_TASK_ID/10` failed
    /// task 10 and never ran shard 0. `auto` maps any contiguous array onto the shards.
    #[test]
    fn a_one_based_or_offset_array_covers_every_shard() {
        for (min, max) in [(0, 9), (1, 10), (100, 109)] {
            let shards: Vec<Shard> = (min..=max)
                .map(|id| auto(&slurm(id, min, max, 10), None).unwrap())
                .collect();
            let expected: Vec<Shard> = (0..10).map(|index| Shard { index, count: 10 }).collect();
            assert_eq!(shards, expected, "--array={min}-{max}");
        }
    }

    #[test]
    fn arrays_that_do_not_cover_the_ids_are_refused() {
        // --array=0-9:2 (5 tasks from 0 to 8) and --array=3,7.
        for (id, min, max, count) in [(4, 0, 8, 5), (7, 3, 7, 2)] {
            let error = auto(&slurm(id, min, max, count), None).unwrap_err();
            assert!(matches!(error, AutoShardError::NotARange { .. }), "{error}");
            assert!(error.to_string().contains("--shards N"), "{error}");
        }
        // With --shards the task ids are the shard numbers: a resubmitted task 7 of 10
        // is shard 7, task 10 is none.
        assert_eq!(
            auto(&slurm(7, 3, 7, 2), Some(10)),
            Ok(Shard {
                index: 7,
                count: 10
            })
        );
        let error = auto(&slurm(10, 1, 10, 10), Some(10))
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("SLURM_ARRAY_TASK_ID=10 is not a shard of --shards 10"),
            "{error}"
        );
        let missing = vec![("SLURM_ARRAY_TASK_ID".to_string(), "3".to_string())];
        assert!(matches!(
            auto(&missing, None),
            Err(AutoShardError::NotARange { .. })
        ));
    }

    #[test]
    fn an_indexed_job_needs_its_completions() {
        let k8s = vec![("JOB_COMPLETION_INDEX".to_string(), "3".to_string())];
        assert_eq!(auto(&k8s, Some(4)), Ok(Shard { index: 3, count: 4 }));
        assert_eq!(auto(&k8s, None), Err(AutoShardError::NoCount { index: 3 }));
        assert!(matches!(
            auto(&k8s, Some(3)),
            Err(AutoShardError::OutOfRange { .. })
        ));
        assert_eq!(auto(&[], Some(4)), Err(AutoShardError::NoCluster));
        let bad = vec![("JOB_COMPLETION_INDEX".to_string(), "x".to_string())];
        assert!(matches!(
            auto(&bad, Some(4)),
            Err(AutoShardError::NotANumber { .. })
        ));
        let given = ShardArg::Given(Shard { index: 0, count: 2 });
        assert!(given.resolve(Some(2), |_| None).is_err());
        assert_eq!("auto".parse::<ShardArg>(), Ok(ShardArg::Auto));
        assert_eq!(
            "1/2".parse::<ShardArg>(),
            Ok(ShardArg::Given(Shard { index: 1, count: 2 }))
        );
    }
}
