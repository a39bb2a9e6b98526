//! The dm_env-style environment interface: [`TimeStep`], specs and the [`Environment`] trait.

use std::fmt;

use crate::observation::Observation;

/// Where a [`TimeStep`] sits in its episode (dm_env's `StepType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum StepType {
    /// The first timestep of an episode, returned by `reset`; it has no reward or discount.
    #[default]
    First = 0,
    /// Any timestep that is neither the first nor the last.
    Mid = 1,
    /// The last timestep of an episode.
    Last = 2,
}

impl StepType {
    /// dm_env's integer code: 0 FIRST, 1 MID, 2 LAST.
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// One interaction result, as in dm_env: step type, reward, discount and observation.
///
/// The observation is the environment's `float32` array flattened in row-major order; its
/// shape is in [`Environment::observation_spec`]. The buffer is reused by
/// [`Environment::reset_into`] and [`Environment::step_into`], so a loop that keeps two
/// timesteps and swaps them allocates nothing per step.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TimeStep {
    /// FIRST, MID or LAST.
    pub step_type: StepType,
    /// `None` on FIRST timesteps, as in dm_env's `restart`.
    pub reward: Option<f64>,
    /// `None` on FIRST; 1.0 on MID; 0.0 on LAST (bsuite ends every episode with `termination`).
    pub discount: Option<f64>,
    /// Row-major observation values (dereferences to `&[f32]`).
    pub observation: Observation,
}

impl TimeStep {
    /// True on the first timestep of an episode.
    pub fn first(&self) -> bool {
        self.step_type == StepType::First
    }

    /// True on a timestep that is neither first nor last.
    pub fn mid(&self) -> bool {
        self.step_type == StepType::Mid
    }

    /// True on the last timestep of an episode.
    pub fn last(&self) -> bool {
        self.step_type == StepType::Last
    }

    /// The reward, with `None` (FIRST timesteps) read as 0.0, as bsuite's logger does.
    pub fn reward_or_zero(&self) -> f64 {
        self.reward.unwrap_or(0.0)
    }

    /// Makes this a FIRST timestep (no reward, no discount), as dm_env's `restart`; for
    /// [`Dynamics::reset`], which then fills the observation.
    pub fn set_restart(&mut self) {
        self.step_type = StepType::First;
        self.reward = None;
        self.discount = None;
    }

    /// Makes this a MID timestep with `reward` and discount 1, as dm_env's `transition`.
    pub fn set_transition(&mut self, reward: f64) {
        self.step_type = StepType::Mid;
        self.reward = Some(reward);
        self.discount = Some(1.0);
    }

    /// Makes this a LAST timestep with `reward` and discount 0, as dm_env's `termination`.
    pub fn set_termination(&mut self, reward: f64) {
        self.step_type = StepType::Last;
        self.reward = Some(reward);
        self.discount = Some(0.0);
    }

    /// Resizes the observation buffer to `len` zeros and returns it for filling.
    #[inline]
    pub fn zeroed_observation(&mut self, len: usize) -> &mut [f32] {
        self.observation.zeroed(len)
    }
}

/// Shape, dtype and name of an environment's observations (dm_env's `Array` spec).
///
/// Every bsuite observation is `float32`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObservationSpec {
    /// Array shape, e.g. `[10, 5]` for catch.
    pub shape: Vec<usize>,
    /// numpy dtype name; always `"float32"` in bsuite.
    pub dtype: &'static str,
    /// The spec's name: `"observation"`, or `"state"` for cartpole_swingup.
    pub name: &'static str,
}

impl ObservationSpec {
    /// A `float32` spec of `shape`, as every bsuite environment has.
    pub fn float32(shape: Vec<usize>, name: &'static str) -> Self {
        ObservationSpec {
            shape,
            dtype: "float32",
            name,
        }
    }

    /// Number of elements in one observation.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// True when an observation has no elements (never the case in bsuite).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A discrete action space `0..num_actions` (dm_env's `DiscreteArray`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActionSpec {
    /// Number of actions.
    pub num_actions: usize,
    /// numpy dtype name of the reference spec (`"int32"` or `"int64"`).
    pub dtype: &'static str,
}

impl ActionSpec {
    /// `num_actions` actions whose reference dtype is `dtype`.
    pub fn new(num_actions: usize, dtype: &'static str) -> Self {
        ActionSpec { num_actions, dtype }
    }
}

/// A number in `bsuite_info()`, keeping Python's int/float distinction, which decides how
/// bsuite's CSV logger renders the column (`0` versus `0.0`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum InfoValue {
    /// A Python `int`.
    Int(i64),
    /// A Python `float`.
    Float(f64),
}

impl InfoValue {
    /// The value as a float.
    pub fn as_f64(self) -> f64 {
        match self {
            InfoValue::Int(v) => v as f64,
            InfoValue::Float(v) => v,
        }
    }
}

impl fmt::Display for InfoValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InfoValue::Int(v) => write!(f, "{v}"),
            InfoValue::Float(v) => write!(f, "{v:?}"),
        }
    }
}

/// A counter that starts as a Python `int` and becomes a `float` on its first float update
/// (e.g. deep_sea's `denoised_return`, memory_chain's `total_regret`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PyNumber(pub(crate) InfoValue);

impl PyNumber {
    pub(crate) fn int(v: i64) -> Self {
        PyNumber(InfoValue::Int(v))
    }

    pub(crate) fn add_float(&mut self, x: f64) {
        self.0 = InfoValue::Float(self.0.as_f64() + x);
    }
}

/// The environment's scoring counters (`bsuite_info()`), in the reference's key order.
pub type BsuiteInfo = Vec<(&'static str, InfoValue)>;

/// An action outside the environment's action range.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{env}: action {action} is out of range; valid actions are 0..={max}")]
pub struct ActionError {
    /// The environment's name.
    pub env: &'static str,
    /// The rejected action.
    pub action: usize,
    /// The largest valid action.
    pub max: usize,
}

/// A bsuite environment with dm_env semantics.
///
/// `step` after a LAST timestep (or before any `reset`) ignores its action and starts a new
/// episode, returning a FIRST timestep, exactly as bsuite's base class does. Actions are
/// checked against the action spec: an out-of-range action is an [`ActionError`], never
/// silently accepted.
///
/// ```
/// let mut env = bsuite_envs::load("catch/0").unwrap();
/// let mut ts = env.reset();
/// while !ts.last() {
///     ts = env.step(1).unwrap();
/// }
/// assert_eq!(ts.discount, Some(0.0));
/// ```
pub trait Environment: Send {
    /// A short name for messages, e.g. `"catch"`.
    fn name(&self) -> &'static str;

    /// Shape, dtype and name of observations.
    fn observation_spec(&self) -> ObservationSpec;

    /// The discrete action space.
    fn action_spec(&self) -> ActionSpec;

    /// Starts a new episode, writing the FIRST timestep into `out`.
    fn reset_into(&mut self, out: &mut TimeStep);

    /// Advances one step with `action`, writing the result into `out`.
    fn step_into(&mut self, action: usize, out: &mut TimeStep) -> Result<(), ActionError>;

    /// The scoring counters bsuite logs as extra CSV columns.
    fn bsuite_info(&self) -> BsuiteInfo;

    /// The number of episodes the experiment runs for.
    fn bsuite_num_episodes(&self) -> usize;

    /// Starts a new episode and returns its FIRST timestep (allocates; see [`Environment::reset_into`]).
    fn reset(&mut self) -> TimeStep {
        let mut ts = TimeStep::default();
        self.reset_into(&mut ts);
        ts
    }

    /// Takes one step and returns the new timestep (allocates; see [`Environment::step_into`]).
    fn step(&mut self, action: usize) -> Result<TimeStep, ActionError> {
        let mut ts = TimeStep::default();
        self.step_into(action, &mut ts)?;
        Ok(ts)
    }
}

impl<E: Environment + ?Sized> Environment for Box<E> {
    fn name(&self) -> &'static str {
        (**self).name()
    }
    fn observation_spec(&self) -> ObservationSpec {
        (**self).observation_spec()
    }
    fn action_spec(&self) -> ActionSpec {
        (**self).action_spec()
    }
    fn reset_into(&mut self, out: &mut TimeStep) {
        (**self).reset_into(out)
    }
    fn step_into(&mut self, action: usize, out: &mut TimeStep) -> Result<(), ActionError> {
        (**self).step_into(action, out)
    }
    fn bsuite_info(&self) -> BsuiteInfo {
        (**self).bsuite_info()
    }
    fn bsuite_num_episodes(&self) -> usize {
        (**self).bsuite_num_episodes()
    }
}

/// The episode logic of an environment: what bsuite's subclasses implement as `_reset` and
/// `_step`.
///
/// Wrap it in [`Episodic`] to get an [`Environment`] with the reference's auto-reset rule and
/// action checking. The ten bsuite environments are all built this way.
pub trait Dynamics: Send {
    /// A short name for messages, e.g. `"catch"`.
    const NAME: &'static str;
    /// Shape, dtype and name of observations.
    fn observation_spec(&self) -> ObservationSpec;
    /// The discrete action space.
    fn action_spec(&self) -> ActionSpec;
    /// Starts an episode (`_reset()`), writing a FIRST timestep into `out`.
    fn reset(&mut self, out: &mut TimeStep);
    /// Advances the episode (`_step(action)`); `action` is already range-checked.
    fn step(&mut self, action: usize, out: &mut TimeStep);
    /// The scoring counters (`bsuite_info()`).
    fn bsuite_info(&self) -> BsuiteInfo;
}

/// An [`Environment`] made from [`Dynamics`] with bsuite's auto-reset rule: a `step` before
/// the first `reset` or after a LAST timestep ignores its action and starts a new episode.
///
/// ```
/// use bsuite_envs::environments::catch::Catch;
/// use bsuite_envs::{Environment, Episodic};
///
/// let mut env = Episodic::new(Catch::new(10, 5, 0), 10_000);
/// assert!(env.step(1).unwrap().first()); // auto-reset: the action is ignored
/// ```
pub struct Episodic<D> {
    dynamics: D,
    reset_next_step: bool,
    num_actions: usize,
    num_episodes: usize,
}

impl<D: Dynamics> Episodic<D> {
    /// Wraps `dynamics`; `num_episodes` is what [`Environment::bsuite_num_episodes`] reports.
    pub fn new(dynamics: D, num_episodes: usize) -> Self {
        let num_actions = dynamics.action_spec().num_actions;
        Episodic {
            dynamics,
            reset_next_step: true,
            num_actions,
            num_episodes,
        }
    }

    /// The wrapped episode logic, e.g. to inspect an environment's state.
    pub fn dynamics(&self) -> &D {
        &self.dynamics
    }
}

#[inline]
pub(crate) fn check_action(
    env: &'static str,
    action: usize,
    num_actions: usize,
) -> Result<(), ActionError> {
    if action < num_actions {
        Ok(())
    } else {
        Err(ActionError {
            env,
            action,
            max: num_actions - 1,
        })
    }
}

impl<D: Dynamics> Environment for Episodic<D> {
    fn name(&self) -> &'static str {
        D::NAME
    }
    fn observation_spec(&self) -> ObservationSpec {
        self.dynamics.observation_spec()
    }
    fn action_spec(&self) -> ActionSpec {
        self.dynamics.action_spec()
    }
    fn reset_into(&mut self, out: &mut TimeStep) {
        self.reset_next_step = false;
        self.dynamics.reset(out);
    }
    fn step_into(&mut self, action: usize, out: &mut TimeStep) -> Result<(), ActionError> {
        check_action(D::NAME, action, self.num_actions)?;
        if self.reset_next_step {
            self.reset_into(out);
            return Ok(());
        }
        self.dynamics.step(action, out);
        self.reset_next_step = out.last();
        Ok(())
    }
    fn bsuite_info(&self) -> BsuiteInfo {
        self.dynamics.bsuite_info()
    }
    fn bsuite_num_episodes(&self) -> usize {
        self.num_episodes
    }
}
