//! Agents' hyperparameters as named, typed keys with the reference agents' defaults.
//!
//! Every agent has a table of [`Key`]s (each reference agent's in its folder of
//! [`crate::agents`], listed by [`crate::factory::keys`]); an [`AgentConfig`] holds one value
//! per key, starting from the defaults and changed with `KEY=VALUE` text, so that the command
//! line (`--config`), a config file and a study file all speak the same language, and a
//! results directory's manifest can record the whole configuration. This module knows what a
//! key is and the building blocks of the tables, no agent's.
//!
//! ```
//! use bsuite_baselines::config::{AgentConfig, Optimizer};
//!
//! let mut config = AgentConfig::defaults("dqn").unwrap();
//! config.set("optimizer", "sgd").unwrap();
//! config.set("learning_rate", "1e-2").unwrap();
//! assert_eq!(config.optimizer(), Optimizer::Sgd);
//! assert_eq!(config.float("learning_rate"), 0.01);
//! assert_eq!(config.widths("hidden_sizes"), &[64, 64]);
//! assert_eq!(config.changed(), "optimizer=sgd learning_rate=0.01");
//!
//! let err = config.set("optimizer", "adagrad").unwrap_err().to_string();
//! assert!(err.contains("adam, sgd, rmsprop"), "{err}");
//! ```

use std::fmt;

/// The optimisers every learning agent can use, each with the defaults of optax (the
/// framework of bsuite's JAX agents) for everything but the learning rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Optimizer {
    /// Adam: β1 0.9, β2 0.999, ε 1e-8 (`optax.adam`).
    Adam,
    /// Plain stochastic gradient descent, no momentum (`optax.sgd`).
    Sgd,
    /// RMSProp: decay 0.9, ε 1e-8 inside the square root, no momentum, not centred
    /// (`optax.rmsprop`): `ν ← 0.9·ν + 0.1·g²`, `w ← w − lr·g/√(ν + ε)`.
    RmsProp,
}

impl Optimizer {
    /// The names `optimizer=` accepts.
    pub const NAMES: &'static [&'static str] = &["adam", "sgd", "rmsprop"];

    fn from_name(name: &str) -> Optimizer {
        match name {
            "sgd" => Optimizer::Sgd,
            "rmsprop" => Optimizer::RmsProp,
            _ => Optimizer::Adam,
        }
    }
}

/// What values a key takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// A finite number in `low..=high` (or `low < x` when `low_open`).
    Float {
        /// The smallest value (excluded when `low_open`).
        low: f64,
        /// True when `low` itself is not allowed.
        low_open: bool,
        /// The largest value.
        high: f64,
    },
    /// A whole number in `low..=high`.
    Count {
        /// The smallest value.
        low: usize,
        /// The largest value.
        high: usize,
    },
    /// `true` or `false`.
    Flag,
    /// One of a few names.
    Choice(&'static [&'static str]),
    /// Layer widths, comma-separated (`64,64`); each at least 1, at least one layer.
    Widths,
}

impl Kind {
    fn describe(&self) -> String {
        match *self {
            Kind::Float {
                low,
                low_open: true,
                high,
            } if high == f64::MAX => format!("a number above {low}"),
            Kind::Float {
                low,
                low_open,
                high,
            } => {
                let from = if low_open { "above" } else { "from" };
                format!("a number {from} {low} to {high}")
            }
            Kind::Count { low, high } if high == usize::MAX => {
                format!("a whole number of at least {low}")
            }
            Kind::Count { low, high } => format!("a whole number from {low} to {high}"),
            Kind::Flag => "true or false".into(),
            Kind::Choice(names) => format!("one of {}", names.join(", ")),
            Kind::Widths => "layer widths such as 64,64 (each at least 1)".into(),
        }
    }

    fn parse(&self, text: &str) -> Option<Value> {
        let text = text.trim();
        match *self {
            Kind::Float {
                low,
                low_open,
                high,
            } => {
                let x: f64 = text.parse().ok()?;
                let above = if low_open { x > low } else { x >= low };
                (x.is_finite() && above && x <= high).then_some(Value::Float(x))
            }
            Kind::Count { low, high } => {
                let n: usize = text.parse().ok()?;
                (low..=high).contains(&n).then_some(Value::Count(n))
            }
            Kind::Flag => match text {
                "true" => Some(Value::Flag(true)),
                "false" => Some(Value::Flag(false)),
                _ => None,
            },
            Kind::Choice(names) => names.iter().find(|n| **n == text).map(|n| Value::Choice(n)),
            Kind::Widths => {
                let widths: Option<Vec<usize>> = text
                    .trim_matches(|c| c == '[' || c == ']')
                    .split(',')
                    .map(|w| w.trim().parse().ok().filter(|&w| w >= 1))
                    .collect();
                widths.map(Value::Widths)
            }
        }
    }
}

/// One hyperparameter of an agent.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    /// The name `KEY=VALUE` uses, e.g. `learning_rate`.
    pub name: &'static str,
    /// What values it takes.
    pub kind: Kind,
    /// The reference agent's value, as text.
    pub default: &'static str,
    /// One line for `bsuite agents`.
    pub doc: &'static str,
}

/// A key's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A number.
    Float(f64),
    /// A whole number.
    Count(usize),
    /// A flag.
    Flag(bool),
    /// A name out of a few.
    Choice(&'static str),
    /// Layer widths.
    Widths(Vec<usize>),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Float(x) => write!(f, "{x}"),
            Value::Count(n) => write!(f, "{n}"),
            Value::Flag(b) => write!(f, "{b}"),
            Value::Choice(name) => f.write_str(name),
            Value::Widths(widths) => {
                let text: Vec<String> = widths.iter().map(usize::to_string).collect();
                f.write_str(&text.join(","))
            }
        }
    }
}

/// A configuration that could not be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// The agent has no configuration table (not an agent of this crate).
    #[error("unknown agent '{0}'")]
    UnknownAgent(String),
    /// Not of the form `KEY=VALUE`.
    #[error("'{0}' is not KEY=VALUE")]
    NotKeyValue(String),
    /// The agent has no such key.
    #[error("{agent} has no key '{key}'; its keys are: {}", valid.join(", "))]
    UnknownKey {
        /// The agent.
        agent: String,
        /// The key given.
        key: String,
        /// The agent's keys.
        valid: Vec<&'static str>,
    },
    /// The value does not fit the key.
    #[error("{key}={value}: expected {expected}")]
    BadValue {
        /// The key.
        key: &'static str,
        /// The value given.
        value: String,
        /// What the key takes.
        expected: String,
    },
}

/// One agent's full configuration: a value for every key of its table.
#[derive(Clone, Debug)]
pub struct AgentConfig {
    agent: &'static str,
    keys: &'static [Key],
    values: Vec<Value>,
}

impl PartialEq for AgentConfig {
    fn eq(&self, other: &Self) -> bool {
        self.agent == other.agent && self.values == other.values
    }
}

impl AgentConfig {
    /// The default configuration of any agent, from its own table of keys (a user's agent
    /// can have just [`SEED`], or none).
    pub fn new(agent: &'static str, keys: &'static [Key]) -> AgentConfig {
        let values = keys
            .iter()
            .map(|key| match key.kind.parse(key.default) {
                Some(value) => value,
                None => unreachable!("{agent}'s default {}={} fits", key.name, key.default),
            })
            .collect();
        AgentConfig {
            agent,
            keys,
            values,
        }
    }

    /// The agent this configures.
    pub fn agent(&self) -> &'static str {
        self.agent
    }

    /// Sets `key` from its text form.
    pub fn set(&mut self, key: &str, text: &str) -> Result<(), ConfigError> {
        let k = self
            .keys
            .iter()
            .position(|k| k.name == key)
            .ok_or_else(|| ConfigError::UnknownKey {
                agent: self.agent.to_string(),
                key: key.to_string(),
                valid: self.keys.iter().map(|k| k.name).collect(),
            })?;
        let spec = &self.keys[k];
        self.values[k] = spec.kind.parse(text).ok_or_else(|| ConfigError::BadValue {
            key: spec.name,
            value: text.to_string(),
            expected: spec.kind.describe(),
        })?;
        Ok(())
    }

    /// Sets a key from `KEY=VALUE`.
    pub fn set_pair(&mut self, pair: &str) -> Result<(), ConfigError> {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| ConfigError::NotKeyValue(pair.to_string()))?;
        self.set(key.trim(), value)
    }

    fn value(&self, key: &str) -> &Value {
        match self.keys.iter().position(|k| k.name == key) {
            Some(k) => &self.values[k],
            None => panic!("{} has no key {key}", self.agent),
        }
    }

    /// A number key's value. Panics on a key the agent does not have (a programming error).
    pub fn float(&self, key: &str) -> f64 {
        match self.value(key) {
            Value::Float(x) => *x,
            other => panic!("{key} is not a number: {other}"),
        }
    }

    /// A whole-number key's value.
    pub fn count(&self, key: &str) -> usize {
        match self.value(key) {
            Value::Count(n) => *n,
            other => panic!("{key} is not a whole number: {other}"),
        }
    }

    /// A flag's value.
    pub fn flag(&self, key: &str) -> bool {
        match self.value(key) {
            Value::Flag(b) => *b,
            other => panic!("{key} is not a flag: {other}"),
        }
    }

    /// Layer widths.
    pub fn widths(&self, key: &str) -> &[usize] {
        match self.value(key) {
            Value::Widths(w) => w,
            other => panic!("{key} is not a list of widths: {other}"),
        }
    }

    /// The `optimizer` key.
    pub fn optimizer(&self) -> Optimizer {
        match self.value("optimizer") {
            Value::Choice(name) => Optimizer::from_name(name),
            other => panic!("optimizer is not a choice: {other}"),
        }
    }

    /// The agent seed (the `seed` key every agent of this crate has).
    pub fn seed(&self) -> u32 {
        self.count("seed") as u32
    }

    /// True when the agent has `key`.
    pub fn has(&self, key: &str) -> bool {
        self.keys.iter().any(|k| k.name == key)
    }

    /// Every key with its value, in the table's order.
    pub fn entries(&self) -> impl Iterator<Item = (&'static str, &Value)> + '_ {
        self.keys.iter().map(|k| k.name).zip(&self.values)
    }

    /// The keys that differ from the reference, as `key=value` separated by spaces (empty
    /// for the reference configuration). The seed is left out: every run states it anyway.
    pub fn changed(&self) -> String {
        let mut out = Vec::new();
        for (key, value) in self.keys.iter().zip(&self.values) {
            if key.name != SEED.name && key.kind.parse(key.default).as_ref() != Some(value) {
                out.push(format!("{}={value}", key.name));
            }
        }
        out.join(" ")
    }
}

/// The building blocks of the agents' tables (each agent keeps its table in its folder).
pub(crate) const POSITIVE: Kind = Kind::Float {
    low: 0.0,
    low_open: true,
    high: f64::MAX,
};
pub(crate) const UNIT: Kind = Kind::Float {
    low: 0.0,
    low_open: false,
    high: 1.0,
};
pub(crate) const AT_LEAST_ONE: Kind = Kind::Count {
    low: 1,
    high: usize::MAX,
};

/// The agent seed, a key of every agent of this crate.
pub const SEED: Key = Key {
    name: "seed",
    kind: Kind::Count {
        low: 0,
        high: u32::MAX as usize,
    },
    default: "42",
    doc: "the agent seed: every random draw of the agent comes from it (--seed sets it too)",
};
pub(crate) const OPTIMIZER: Key = Key {
    name: "optimizer",
    kind: Kind::Choice(Optimizer::NAMES),
    default: "adam",
    doc: "adam, sgd or rmsprop, with optax's defaults but for the learning rate",
};
pub(crate) const DISCOUNT: Key = Key {
    name: "discount",
    kind: UNIT,
    default: "0.99",
    doc: "the discount of future rewards",
};

/// The optimiser's learning rate, with an agent's default.
pub(crate) const fn learning_rate(default: &'static str) -> Key {
    Key {
        name: "learning_rate",
        kind: POSITIVE,
        default,
        doc: "the optimiser's learning rate",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_keys_and_values_name_the_key_and_the_valid_choices() {
        let mut config = AgentConfig::defaults("boot_dqn").unwrap();
        let err = config.set_pair("nonsense=1").unwrap_err().to_string();
        assert!(err.contains("no key 'nonsense'"), "{err}");
        assert!(
            err.contains("num_ensemble") && err.contains("learning_rate"),
            "{err}"
        );
        let err = config.set_pair("learning_rate=-1").unwrap_err().to_string();
        assert_eq!(err, "learning_rate=-1: expected a number above 0");
        let err = config.set_pair("num_ensemble=0").unwrap_err().to_string();
        assert_eq!(err, "num_ensemble=0: expected a whole number of at least 1");
        let err = config
            .set_pair("hidden_sizes=64,,64")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("hidden_sizes=64,,64: expected layer widths"),
            "{err}"
        );
        assert!(config.set_pair("epsilon=1.5").is_err());
        assert!(config.set_pair("learning_rate").is_err());
        assert!(config.set_pair("seed=4294967296").is_err());
        assert_eq!(
            config,
            AgentConfig::defaults("boot_dqn").unwrap(),
            "nothing changed"
        );
        assert!(AgentConfig::defaults("dqn2").is_err());
    }

    #[test]
    fn values_read_back_as_set() {
        let mut config = AgentConfig::defaults("actor_critic_rnn").unwrap();
        config.set_pair("hidden_sizes=[128, 32]").unwrap();
        config.set_pair("reset_training_state=true").unwrap();
        config.set_pair("optimizer=rmsprop").unwrap();
        config.set_pair("seed=7").unwrap();
        assert_eq!(config.widths("hidden_sizes"), &[128, 32]);
        assert!(config.flag("reset_training_state"));
        assert_eq!(config.optimizer(), Optimizer::RmsProp);
        assert_eq!(config.seed(), 7);
        assert_eq!(
            config.changed(),
            "optimizer=rmsprop hidden_sizes=128,32 reset_training_state=true"
        );
        let reset = AgentConfig::defaults("actor_critic_rnn_reset").unwrap();
        assert!(reset.flag("reset_training_state"));
    }
}
