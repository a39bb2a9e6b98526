//! `bsuite.load(experiment_name, kwargs)`: finding the sweep setting that keyword arguments
//! describe.
//!
//! bsuite builds an environment from any keyword arguments; bsuite-rs builds the settings
//! of bsuite's sweep. So `kwargs` must name one of them: every key the experiment's settings
//! have (a key whose sweep value is `None`, an unseeded generator, may be left out), with
//! the sweep's values, except that such a `None` key (`seed`) may be given an integer, which
//! becomes the env seed.

use bsuite_envs::{BsuiteId, SettingValue};

/// A keyword argument's value, as Python gives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KwValue {
    /// A Python `int`.
    Int(i64),
    /// A Python `float`.
    Float(f64),
    /// Python `None`.
    None,
}

impl std::fmt::Display for KwValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KwValue::Int(v) => write!(f, "{v}"),
            KwValue::Float(v) => write!(f, "{v:?}"),
            KwValue::None => f.write_str("None"),
        }
    }
}

/// Keyword arguments that name no setting of bsuite's sweep.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    /// No experiment has the name.
    #[error("unknown experiment '{name}'; valid experiments: {valid}")]
    UnknownExperiment {
        /// The name given.
        name: String,
        /// Every experiment name.
        valid: String,
    },
    /// A key the experiment's settings do not have.
    #[error("{experiment} takes no argument '{key}'; its settings are {keys}")]
    UnknownKey {
        /// The experiment.
        experiment: &'static str,
        /// The key given.
        key: String,
        /// The keys it takes.
        keys: String,
    },
    /// An env seed that numpy's `RandomState` would refuse.
    #[error("{experiment}: {key}={value} is not a seed; seeds are integers in 0..=4294967295")]
    BadSeed {
        /// The experiment.
        experiment: &'static str,
        /// The key.
        key: &'static str,
        /// The value given.
        value: String,
    },
    /// Arguments that match none of the sweep's settings.
    #[error(
        "no setting of {experiment} in bsuite's sweep has {given}; bsuite-rs builds the \
         sweep's settings ({experiment}/0..={max}), e.g. {example}"
    )]
    NoSuchSetting {
        /// The experiment.
        experiment: &'static str,
        /// The arguments, as a dict literal.
        given: String,
        /// The largest setting index.
        max: usize,
        /// The first setting, as a dict literal.
        example: String,
    },
}

fn dict(items: impl Iterator<Item = (String, String)>) -> String {
    let items: Vec<String> = items.map(|(k, v)| format!("'{k}': {v}")).collect();
    format!("{{{}}}", items.join(", "))
}

fn setting_text(value: SettingValue) -> String {
    match value {
        SettingValue::Int(v) => v.to_string(),
        SettingValue::Float(v) => format!("{v:?}"),
        SettingValue::None => "None".into(),
    }
}

/// Python's `==` between a given value and a sweep value.
fn same(given: KwValue, sweep: SettingValue) -> bool {
    match (given, sweep) {
        (KwValue::None, SettingValue::None) => true,
        (KwValue::Int(a), SettingValue::Int(b)) => a == b,
        (KwValue::Float(a), SettingValue::Float(b)) => a == b,
        (KwValue::Int(a), SettingValue::Float(b)) | (KwValue::Float(b), SettingValue::Int(a)) => {
            a as f64 == b
        }
        _ => false,
    }
}

/// The id and env seed that `experiment` with `kwargs` describes: the first sweep setting
/// that matches (see the module docs), and the integer given for its `None` key, if any
/// (`None` keeps the default seeding policy of that id).
pub fn resolve(
    experiment: &str,
    kwargs: &[(String, KwValue)],
) -> Result<(BsuiteId, Option<u32>), SettingsError> {
    let unknown = || SettingsError::UnknownExperiment {
        name: experiment.to_string(),
        valid: bsuite_envs::experiments()
            .iter()
            .map(|e| e.name)
            .collect::<Vec<_>>()
            .join(", "),
    };
    let experiment = bsuite_envs::experiment(experiment).ok_or_else(unknown)?;
    let first = (experiment.settings)(0);
    for (key, _) in kwargs {
        if !first.iter().any(|(k, _)| k == key) {
            return Err(SettingsError::UnknownKey {
                experiment: experiment.name,
                key: key.clone(),
                keys: first.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", "),
            });
        }
    }
    let given = |key: &str| kwargs.iter().find(|(k, _)| k == key).map(|(_, v)| *v);
    'settings: for id in experiment.ids() {
        let mut env_seed = None;
        for (key, sweep) in id.settings() {
            match (given(key), sweep) {
                (None, SettingValue::None) => {}
                (Some(KwValue::Int(seed)), SettingValue::None) => {
                    let seed = u32::try_from(seed).map_err(|_| SettingsError::BadSeed {
                        experiment: experiment.name,
                        key,
                        value: seed.to_string(),
                    })?;
                    env_seed = Some(seed);
                }
                (Some(KwValue::Float(value)), SettingValue::None) => {
                    return Err(SettingsError::BadSeed {
                        experiment: experiment.name,
                        key,
                        value: format!("{value:?}"),
                    })
                }
                (Some(value), sweep) if same(value, sweep) => {}
                _ => continue 'settings,
            }
        }
        return Ok((id, env_seed));
    }
    Err(SettingsError::NoSuchSetting {
        experiment: experiment.name,
        given: dict(kwargs.iter().map(|(k, v)| (k.clone(), v.to_string()))),
        max: experiment.num_settings - 1,
        example: dict(first.iter().map(|(k, v)| (k.to_string(), setting_text(*v)))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kw(items: &[(&str, KwValue)]) -> Vec<(String, KwValue)> {
        items.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    fn id(text: &str) -> BsuiteId {
        text.parse().unwrap()
    }

    #[test]
    fn finds_the_sweep_setting_and_the_seed() {
        use KwValue::{Float, Int, None};
        assert_eq!(
            resolve("catch", &[]).unwrap(),
            (id("catch/0"), Option::None)
        );
        assert_eq!(
            resolve("catch", &kw(&[("seed", Int(7))])).unwrap(),
            (id("catch/0"), Some(7))
        );
        assert_eq!(
            resolve("catch", &kw(&[("seed", None)])).unwrap(),
            (id("catch/0"), Option::None)
        );
        assert_eq!(
            resolve("bandit", &kw(&[("mapping_seed", Int(3))])).unwrap(),
            (id("bandit/3"), Option::None)
        );
        let deep_sea = resolve(
            "deep_sea",
            &kw(&[("size", Int(12)), ("mapping_seed", Int(42))]),
        );
        assert_eq!(deep_sea.unwrap(), (id("deep_sea/1"), Option::None));
        // A float and an int that Python calls equal are equal here too.
        let noise = resolve(
            "bandit_noise",
            &kw(&[
                ("noise_scale", Int(1)),
                ("mapping_seed", Int(1)),
                ("seed", Int(0)),
            ]),
        );
        assert_eq!(noise.unwrap(), (id("bandit_noise/9"), Some(0)));
        let noise = resolve(
            "bandit_noise",
            &kw(&[("noise_scale", Float(1.0)), ("mapping_seed", Int(1))]),
        );
        assert_eq!(noise.unwrap(), (id("bandit_noise/9"), Option::None));
    }

    #[test]
    fn explains_what_it_cannot_build() {
        use KwValue::{Float, Int};
        let err = resolve("cat", &[]).unwrap_err().to_string();
        assert!(
            err.starts_with("unknown experiment 'cat'; valid experiments: bandit,"),
            "{err}"
        );
        let err = resolve("catch", &kw(&[("rows", Int(5))]))
            .unwrap_err()
            .to_string();
        assert_eq!(err, "catch takes no argument 'rows'; its settings are seed");
        let err = resolve("bandit", &kw(&[("mapping_seed", Int(99))]))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("no setting of bandit in bsuite's sweep has {'mapping_seed': 99}"),
            "{err}"
        );
        assert!(
            err.ends_with("(bandit/0..=19), e.g. {'mapping_seed': 0}"),
            "{err}"
        );
        // mapping_seed has a value in every setting, so it cannot be left out.
        assert!(resolve("bandit", &[]).is_err());
        let err = resolve("catch", &kw(&[("seed", Int(-1))]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("seed=-1 is not a seed"), "{err}");
        assert!(resolve("catch", &kw(&[("seed", Float(1.0))])).is_err());
    }
}
