//! The bsuite sweep: 23 experiments, 468 `bsuite_id`s, their settings, tags and loaders.
//!
//! ```
//! use bsuite_envs::{BsuiteId, Tag};
//!
//! let id: BsuiteId = "deep_sea/3".parse().unwrap();
//! assert_eq!(id.experiment().name, "deep_sea");
//! assert_eq!(id.num_episodes(), 10_000);
//! assert_eq!(bsuite_envs::sweep().count(), 468);
//! assert_eq!(bsuite_envs::ids_with_tag(Tag::Memory).len(), 40);
//! ```

use std::fmt;
use std::str::FromStr;
use std::sync::RwLock;

use crate::environment::Environment;
use crate::experiments::ALL as ALL_EXPERIMENTS;

/// One of bsuite's seven experiment tags.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tag {
    /// Basic competence.
    Basic,
    /// Robustness to reward noise.
    Noise,
    /// Robustness to reward scale.
    Scale,
    /// Credit assignment over time.
    CreditAssignment,
    /// Generalisation across observations.
    Generalization,
    /// Exploration.
    Exploration,
    /// Memory.
    Memory,
}

impl Tag {
    /// All tags in the reference's first-seen order.
    pub const ALL: [Tag; 7] = [
        Tag::Basic,
        Tag::Noise,
        Tag::Scale,
        Tag::CreditAssignment,
        Tag::Generalization,
        Tag::Exploration,
        Tag::Memory,
    ];

    /// The tag as bsuite spells it, e.g. `"credit_assignment"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Tag::Basic => "basic",
            Tag::Noise => "noise",
            Tag::Scale => "scale",
            Tag::CreditAssignment => "credit_assignment",
            Tag::Generalization => "generalization",
            Tag::Exploration => "exploration",
            Tag::Memory => "memory",
        }
    }

    /// Parses bsuite's spelling of a tag.
    pub fn from_name(name: &str) -> Option<Tag> {
        Tag::ALL.into_iter().find(|t| t.as_str() == name)
    }
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A value of a sweep setting (`sweep.SETTINGS[id][key]`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SettingValue {
    /// A Python int.
    Int(i64),
    /// A Python float.
    Float(f64),
    /// Python `None` (an unseeded RNG in the reference).
    None,
}

impl SettingValue {
    /// The value as a float; `None` is NaN, as pandas renders it after `join_metadata`.
    pub fn as_f64(self) -> f64 {
        match self {
            SettingValue::Int(v) => v as f64,
            SettingValue::Float(v) => v,
            SettingValue::None => f64::NAN,
        }
    }
}

/// The keyword arguments of one bsuite_id, in the reference's key order.
pub type Settings = Vec<(&'static str, SettingValue)>;

/// The static description of one experiment. bsuite's 23 live in their own modules under
/// [`mod@crate::experiments`]; users can describe their own and [`register`] them.
///
/// ```
/// use bsuite_envs::{Environment, Episodic, Experiment, Settings, SettingValue, Tag};
/// use bsuite_envs::environments::bandit::SimpleBandit;
///
/// fn settings(index: usize) -> Settings {
///     vec![("mapping_seed", SettingValue::Int(index as i64))]
/// }
/// fn load(index: usize, _env_seed: u32) -> Result<Box<dyn Environment>, bsuite_envs::LoadError> {
///     Ok(Box::new(Episodic::new(SimpleBandit::new(index as u32, 11), 100)))
/// }
/// static TWO_BANDITS: Experiment = Experiment {
///     name: "two_bandits",
///     num_episodes: 100,
///     tags: &[Tag::Basic],
///     num_settings: 2,
///     info_columns: &["total_regret"],
///     settings,
///     load,
///     steps_per_episode: |_| 1.0,
/// };
///
/// bsuite_envs::register(&TWO_BANDITS).unwrap();
/// let id: bsuite_envs::BsuiteId = "two_bandits/1".parse().unwrap();
/// assert_eq!(id.load().unwrap().action_spec().num_actions, 11);
/// ```
#[derive(Debug)]
pub struct Experiment {
    /// Experiment name, e.g. `"catch_noise"`.
    pub name: &'static str,
    /// Episodes per run (`NUM_EPISODES` in the reference sweep).
    pub num_episodes: usize,
    /// Tags; the first is the experiment's type.
    pub tags: &'static [Tag],
    /// Number of settings (bsuite_ids) in the sweep.
    pub num_settings: usize,
    /// The keys of the environment's `bsuite_info()`: the columns its results files carry
    /// after the standard five.
    pub info_columns: &'static [&'static str],
    /// The keyword arguments of setting `index`, in the reference's key order.
    pub settings: fn(usize) -> Settings,
    /// Builds the environment of setting `index`, seeding every RNG the reference leaves
    /// unseeded with the env seed.
    pub load: fn(usize, u32) -> Result<Box<dyn Environment>, LoadError>,
    /// A learning agent's typical steps per episode in setting `index`: exact where the
    /// environment fixes episode lengths, a planning figure for the control tasks. Only
    /// sweep planning (`--estimate`, batch order) reads it.
    pub steps_per_episode: fn(usize) -> f64,
}

impl Experiment {
    /// The experiment's type: its first tag.
    pub fn kind(&self) -> Tag {
        self.tags[0]
    }

    /// All bsuite_ids of this experiment, in sweep order.
    pub fn ids(&'static self) -> impl Iterator<Item = BsuiteId> {
        (0..self.num_settings).map(move |index| BsuiteId {
            experiment: self,
            index,
        })
    }

    /// True when the experiment belongs to the TESTING set (its name ends in neither
    /// `_noise` nor `_scale`).
    pub fn in_testing(&self) -> bool {
        !self.name.ends_with("_noise") && !self.name.ends_with("_scale")
    }
}

/// An experiment that [`register`] refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RegisterError {
    /// Another experiment, built in or registered, has the name.
    #[error("an experiment named '{0}' already exists")]
    NameTaken(&'static str),
    /// The name could not appear in a bsuite_id or a results file name.
    #[error("'{0}' cannot name an experiment: use lower-case letters, digits and '_'")]
    BadName(&'static str),
    /// The experiment has no settings or no tags.
    #[error("experiment '{0}' needs at least one setting and one tag")]
    Empty(&'static str),
}

static REGISTERED: RwLock<Vec<&'static Experiment>> = RwLock::new(Vec::new());

/// Adds a user-defined experiment, so that its ids parse (`"name/0"`), load, and read back
/// from results files like bsuite's own. It does not join [`experiments`], [`sweep`] or the
/// tag selectors, which stay bsuite's. See [`Experiment`] for an example.
pub fn register(experiment: &'static Experiment) -> Result<(), RegisterError> {
    let name = experiment.name;
    let valid = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if !valid {
        return Err(RegisterError::BadName(name));
    }
    if experiment.num_settings == 0 || experiment.tags.is_empty() {
        return Err(RegisterError::Empty(name));
    }
    let mut registered = REGISTERED.write().unwrap_or_else(|e| e.into_inner());
    if ALL_EXPERIMENTS
        .iter()
        .chain(registered.iter())
        .any(|e| e.name == name)
    {
        return Err(RegisterError::NameTaken(name));
    }
    registered.push(experiment);
    Ok(())
}

/// All 23 experiments, in the reference's (alphabetical) order.
pub fn experiments() -> &'static [&'static Experiment] {
    ALL_EXPERIMENTS
}

/// Looks up an experiment by name: bsuite's, then those [`register`]ed.
pub fn experiment(name: &str) -> Option<&'static Experiment> {
    let registered = || {
        let registered = REGISTERED.read().unwrap_or_else(|e| e.into_inner());
        registered.iter().copied().find(|e| e.name == name)
    };
    ALL_EXPERIMENTS
        .iter()
        .copied()
        .find(|e| e.name == name)
        .or_else(registered)
}

/// A valid bsuite_id such as `catch/0`.
#[derive(Clone, Copy)]
pub struct BsuiteId {
    experiment: &'static Experiment,
    index: usize,
}

impl PartialEq for BsuiteId {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.experiment, other.experiment) && self.index == other.index
    }
}
impl Eq for BsuiteId {}

impl std::hash::Hash for BsuiteId {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.experiment.name.hash(state);
        self.index.hash(state);
    }
}

impl PartialOrd for BsuiteId {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Sweep order: experiments alphabetically, then setting index.
impl Ord for BsuiteId {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.experiment.name, self.index).cmp(&(other.experiment.name, other.index))
    }
}

impl fmt::Debug for BsuiteId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BsuiteId({self})")
    }
}

impl fmt::Display for BsuiteId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.experiment.name, self.index)
    }
}

/// A string that is not a valid bsuite_id.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IdError {
    /// Not of the form `<experiment>/<index>`.
    #[error("malformed bsuite_id '{0}': expected <experiment>/<index>, e.g. catch/0")]
    Malformed(String),
    /// The experiment name is unknown.
    #[error(
        "unknown experiment '{name}' in bsuite_id '{id}'; valid experiments: {}",
        valid_experiments()
    )]
    UnknownExperiment {
        /// The full id given.
        id: String,
        /// The unknown name.
        name: String,
    },
    /// The index is past the experiment's settings.
    #[error("bsuite_id '{id}': index {index} is out of range; {experiment} has indices 0..={max}")]
    IndexOutOfRange {
        /// The full id given.
        id: String,
        /// The experiment.
        experiment: &'static str,
        /// The index given.
        index: usize,
        /// The largest valid index.
        max: usize,
    },
    /// A selector that is neither an id, an experiment, a tag, SWEEP nor TESTING.
    #[error("'{0}' is not a bsuite_id, experiment, tag, SWEEP or TESTING; valid experiments: {experiments}; valid tags: {tags}", experiments = valid_experiments(), tags = valid_tags())]
    UnknownSelector(String),
}

fn valid_experiments() -> String {
    ALL_EXPERIMENTS
        .iter()
        .map(|e| format!("{} (0..={})", e.name, e.num_settings - 1))
        .collect::<Vec<_>>()
        .join(", ")
}

fn valid_tags() -> String {
    Tag::ALL.map(Tag::as_str).join(", ")
}

impl FromStr for BsuiteId {
    type Err = IdError;

    fn from_str(s: &str) -> Result<Self, IdError> {
        let malformed = || IdError::Malformed(s.to_string());
        let (name, index) = s.split_once('/').ok_or_else(malformed)?;
        if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) {
            return Err(malformed());
        }
        let experiment = experiment(name).ok_or_else(|| IdError::UnknownExperiment {
            id: s.to_string(),
            name: name.to_string(),
        })?;
        let out_of_range = || IdError::IndexOutOfRange {
            id: s.to_string(),
            experiment: experiment.name,
            index: index.parse().unwrap_or(usize::MAX),
            max: experiment.num_settings - 1,
        };
        let index: usize = index.parse().map_err(|_| out_of_range())?;
        if index >= experiment.num_settings {
            return Err(out_of_range());
        }
        Ok(BsuiteId { experiment, index })
    }
}

impl BsuiteId {
    /// The experiment this id belongs to.
    pub fn experiment(&self) -> &'static Experiment {
        self.experiment
    }

    /// The setting index (the number after the `/`).
    pub fn index(&self) -> usize {
        self.index
    }

    /// The sweep settings (`sweep.SETTINGS[id]`).
    pub fn settings(&self) -> Settings {
        (self.experiment.settings)(self.index)
    }

    /// Episodes the reference runs for this id.
    pub fn num_episodes(&self) -> usize {
        self.experiment.num_episodes
    }

    /// The experiment's tags.
    pub fn tags(&self) -> &'static [Tag] {
        self.experiment.tags
    }

    /// A learning agent's typical steps per episode ([`Experiment::steps_per_episode`]).
    pub fn steps_per_episode(&self) -> f64 {
        (self.experiment.steps_per_episode)(self.index)
    }

    /// The env seed of our default seeding policy: the setting index plus `offset`.
    ///
    /// This is our one deliberate deviation from bsuite 0.3.6, which seeds these RNGs from
    /// OS entropy: every RNG that the reference leaves unseeded (`seed=None` in the sweep, or
    /// a loader that passes no seed) gets this seed instead, so every run is reproducible
    /// and replicate ids (`catch/0..19`) still differ. RNGs the reference seeds explicitly
    /// (bandit mapping seeds, memory and umbrella_distract's `seed=0`, deep_sea's mapping
    /// seed 42) keep their reference seeds.
    pub fn default_env_seed(&self, offset: u32) -> u32 {
        (self.index as u32).wrapping_add(offset)
    }

    /// Loads the environment with the default seeding policy ([`BsuiteId::default_env_seed`]
    /// with offset 0).
    pub fn load(&self) -> Result<Box<dyn Environment>, LoadError> {
        self.load_with_env_seed(self.default_env_seed(0))
    }

    /// Loads the environment, seeding every RNG the reference leaves unseeded with
    /// `env_seed`. This is what `ref_trace.py --env-seed N` and `refcommon.env_seed` do.
    ///
    /// Only MNIST experiments can fail, when `BSUITE_MNIST_DIR` names unreadable data.
    pub fn load_with_env_seed(&self, env_seed: u32) -> Result<Box<dyn Environment>, LoadError> {
        (self.experiment.load)(self.index, env_seed)
    }
}

/// Loads a bsuite_id with the default seeding policy.
///
/// ```
/// let mut env = bsuite_envs::load("catch/0").unwrap();
/// assert_eq!(env.observation_spec().shape, vec![10, 5]);
/// let ts = env.reset();
/// assert!(ts.first());
/// ```
pub fn load(bsuite_id: &str) -> Result<Box<dyn Environment>, LoadError> {
    bsuite_id.parse::<BsuiteId>()?.load()
}

/// Why an environment could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The id is not a valid bsuite_id.
    #[error(transparent)]
    Id(#[from] IdError),
    /// The MNIST data could not be read.
    #[error(transparent)]
    Mnist(#[from] crate::mnist_data::MnistError),
    /// A [`register`]ed experiment's loader failed.
    #[error(transparent)]
    Other(Box<dyn std::error::Error + Send + Sync>),
}

/// All 468 bsuite_ids in the reference's `SWEEP` order.
pub fn sweep() -> impl Iterator<Item = BsuiteId> {
    ALL_EXPERIMENTS.iter().flat_map(|e| e.ids())
}

/// The 13 ids of the reference's `TESTING` set: `name/0` of every experiment that is not a
/// noise or scale variant.
pub fn testing() -> Vec<BsuiteId> {
    ALL_EXPERIMENTS
        .iter()
        .filter(|e| e.in_testing())
        .flat_map(|e| e.ids().take(1))
        .collect()
}

/// All ids whose experiment carries `tag`, in sweep order.
pub fn ids_with_tag(tag: Tag) -> Vec<BsuiteId> {
    sweep().filter(|id| id.tags().contains(&tag)).collect()
}

/// Resolves a selector to ids: a bsuite_id (`catch/0`), an experiment name (`catch`, or the
/// reference's upper-case `CATCH`), a tag (`memory`), `SWEEP` (all 468) or `TESTING`.
///
/// ```
/// assert_eq!(bsuite_envs::select("catch").unwrap().len(), 20);
/// assert_eq!(bsuite_envs::select("TESTING").unwrap().len(), 13);
/// assert!(bsuite_envs::select("nonsense").is_err());
/// ```
pub fn select(selector: &str) -> Result<Vec<BsuiteId>, IdError> {
    if selector.contains('/') {
        return Ok(vec![selector.parse()?]);
    }
    match selector {
        "SWEEP" => return Ok(sweep().collect()),
        "TESTING" => return Ok(testing()),
        _ => {}
    }
    if let Some(e) = experiment(selector).or_else(|| experiment(&selector.to_ascii_lowercase())) {
        if selector == e.name || selector == e.name.to_ascii_uppercase() {
            return Ok(e.ids().collect());
        }
    }
    if let Some(tag) = Tag::from_name(selector) {
        return Ok(ids_with_tag(tag));
    }
    Err(IdError::UnknownSelector(selector.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweep_has_468_ids_and_tag_sizes_match_reference() {
        assert_eq!(sweep().count(), 468);
        let sizes: Vec<usize> = Tag::ALL.iter().map(|t| ids_with_tag(*t).len()).collect();
        assert_eq!(sizes, vec![100, 167, 100, 146, 200, 62, 40]);
        assert_eq!(testing().len(), 13);
    }

    #[test]
    fn ids_round_trip_through_strings() {
        for id in sweep() {
            assert_eq!(id.to_string().parse::<BsuiteId>().unwrap(), id);
        }
    }

    #[test]
    fn bad_ids_are_explained() {
        let err = "catch/20".parse::<BsuiteId>().unwrap_err().to_string();
        assert!(err.contains("0..=19"), "{err}");
        let err = "cat/0".parse::<BsuiteId>().unwrap_err().to_string();
        assert!(err.contains("unknown experiment 'cat'") && err.contains("deep_sea (0..=20)"));
        assert!(matches!(
            "catch".parse::<BsuiteId>(),
            Err(IdError::Malformed(_))
        ));
        assert!(matches!(
            "catch/-1".parse::<BsuiteId>(),
            Err(IdError::Malformed(_))
        ));
        assert!(matches!(
            "catch/0/1".parse::<BsuiteId>(),
            Err(IdError::Malformed(_))
        ));
        assert!(matches!(
            "catch/99999999999999999999999".parse::<BsuiteId>(),
            Err(IdError::IndexOutOfRange { .. })
        ));
    }

    fn toy(name: &'static str, num_settings: usize) -> Experiment {
        let catch = &crate::experiments::catch::EXPERIMENT;
        Experiment {
            name,
            num_episodes: 10,
            tags: catch.tags,
            num_settings,
            info_columns: catch.info_columns,
            settings: catch.settings,
            load: catch.load,
            steps_per_episode: catch.steps_per_episode,
        }
    }

    #[test]
    fn registering_refuses_taken_and_unusable_names() {
        let leak = |e: Experiment| -> &'static Experiment { Box::leak(Box::new(e)) };
        let taken = register(leak(toy("catch", 1)));
        assert_eq!(taken, Err(RegisterError::NameTaken("catch")));
        let bad = register(leak(toy("my/catch", 1)));
        assert_eq!(bad, Err(RegisterError::BadName("my/catch")));
        let empty = register(leak(toy("no_settings", 0)));
        assert_eq!(empty, Err(RegisterError::Empty("no_settings")));

        assert!(experiment("short_catch").is_none());
        register(leak(toy("short_catch", 2))).unwrap();
        let id: BsuiteId = "short_catch/1".parse().unwrap();
        assert_eq!(id.num_episodes(), 10);
        assert!(id.load().unwrap().reset().first());
        assert!("short_catch/2".parse::<BsuiteId>().is_err());
        let again = register(leak(toy("short_catch", 2)));
        assert_eq!(again, Err(RegisterError::NameTaken("short_catch")));
        assert_eq!(sweep().count(), 468, "bsuite's sweep stays bsuite's");
    }

    #[test]
    fn selectors_cover_ids_experiments_tags_and_sets() {
        assert_eq!(select("DEEP_SEA").unwrap().len(), 21);
        assert_eq!(select("memory").unwrap().len(), 40);
        assert_eq!(select("SWEEP").unwrap().len(), 468);
        assert_eq!(select("bandit/3").unwrap()[0].to_string(), "bandit/3");
        assert!(select("Catch").is_err());
    }
}
