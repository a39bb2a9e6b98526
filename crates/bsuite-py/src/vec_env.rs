//! [`VecEnv`]: many bsuite ids stepped by one call, without the GIL.
//!
//! The stepping itself is [`Batch`], plain Rust that writes into caller-owned slices; the
//! Python class takes the four result arrays from its pools ([`ArrayPool`]), releases the
//! GIL and lets the batch write straight into them.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use bsuite_envs::{BsuiteId, Environment, StepType, TimeStep};
use bsuite_logging::dir_lock::DirLock;
use bsuite_logging::results::LayoutError;
use bsuite_logging::{CsvLogger, LogError, Logging};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::PyMemoryError;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

use crate::env::{env_seed, info_dict, lock, recording_dir, results_path, run_seed};
use crate::errors;
use crate::memory;
use crate::pool::ArrayPool;
use crate::snapshot::{self, History};

/// One environment of a batch, with its own reused timestep.
struct Slot {
    env: SlotEnv,
    timestep: TimeStep,
}

enum SlotEnv {
    Bare(Box<dyn Environment>),
    /// Boxed: the logger is large, and unlogged slots stay small and close together.
    Logged(Box<Logging<Box<dyn Environment>, CsvLogger>>),
}

impl SlotEnv {
    fn env(&self) -> &dyn Environment {
        match self {
            SlotEnv::Bare(env) => env,
            SlotEnv::Logged(env) => env,
        }
    }
}

/// Why a batch step failed.
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// The actions are not one per environment.
    #[error("expected one action per environment ({expected}), got {found}")]
    ActionCount {
        /// Environments in the batch.
        expected: usize,
        /// Actions given.
        found: usize,
    },
    /// An action outside its environment's range; no environment was stepped.
    #[error(
        "actions[{index}] = {action} is out of range for {id}: valid actions are \
         0..={max}; no environment was stepped",
        max = num_actions - 1
    )]
    Action {
        /// The environment's position in the batch.
        index: usize,
        /// Its bsuite_id.
        id: BsuiteId,
        /// The action given.
        action: i64,
        /// Its number of actions.
        num_actions: usize,
    },
    /// A logger failed (every environment was stepped).
    #[error("{id}: {error}")]
    Log {
        /// The environment's bsuite_id.
        id: BsuiteId,
        /// The logger's error.
        error: LogError,
    },
}

/// The result slices one reset or step writes: `observations` holds one observation per
/// environment, back to back.
pub struct Outputs<'a> {
    /// `num_envs * observation length` values.
    pub observations: &'a mut [f32],
    /// One reward per environment: 0.0 on FIRST timesteps, which have none.
    pub rewards: &'a mut [f64],
    /// One discount per environment: 1.0 on FIRST timesteps, which have none.
    pub discounts: &'a mut [f64],
    /// One dm_env step type code per environment: 0 FIRST, 1 MID, 2 LAST.
    pub step_types: &'a mut [i32],
}

/// Environments of one observation shape, stepped together.
pub struct Batch {
    ids: Vec<BsuiteId>,
    slots: Vec<Slot>,
    num_actions: Vec<usize>,
    shape: Vec<usize>,
    observation_len: usize,
}

/// Where a batch logs: each id's bsuite CSV file in `dir`, or, with `run_seeds` (one per
/// id), in `dir`'s `seed-<s>/` directory for its run seed.
pub struct RecordTo {
    /// The results directory.
    pub dir: PathBuf,
    /// Replace existing results files instead of failing.
    pub overwrite: bool,
    /// The run seed of each id, when the batch runs several seeds of an agent.
    pub run_seeds: Option<Vec<u32>>,
}

impl Batch {
    /// Loads `ids` (with the default seeding policy, or `env_seeds`), logging each to its CSV
    /// file as `record_to` says when given. All ids must share one observation shape.
    pub fn new(
        ids: Vec<BsuiteId>,
        env_seeds: Option<Vec<u32>>,
        record_to: Option<RecordTo>,
    ) -> Result<Batch, BatchLoadError> {
        if ids.is_empty() {
            return Err(BatchLoadError::Empty);
        }
        let count = |given: &Option<Vec<u32>>, what| match given {
            Some(seeds) if seeds.len() != ids.len() => Err(BatchLoadError::SeedCount {
                what,
                ids: ids.len(),
                seeds: seeds.len(),
            }),
            _ => Ok(()),
        };
        count(&env_seeds, "env_seeds")?;
        let mut copies: Vec<(BsuiteId, usize)> = Vec::new();
        for id in &ids {
            match copies.iter_mut().find(|(seen, _)| seen == id) {
                Some((_, n)) => *n += 1,
                None => copies.push((*id, 1)),
            }
        }
        check_memory(&copies)?;
        // Each slot's results directory, and one lock a directory: it holds the directory
        // as one recorder.
        let mut dirs = Vec::new();
        let mut locks: HashMap<PathBuf, Arc<DirLock>> = HashMap::new();
        if let Some(record_to) = &record_to {
            count(&record_to.run_seeds, "run_seeds")?;
            let mut seen = HashSet::new();
            for (k, id) in ids.iter().enumerate() {
                let run_seed = record_to.run_seeds.as_ref().map(|seeds| seeds[k]);
                if !seen.insert((*id, run_seed)) {
                    return Err(BatchLoadError::Duplicate(*id, run_seed));
                }
                dirs.push(recording_dir(&record_to.dir, run_seed)?);
            }
            // Only once the whole batch is known good, so that a refused one creates nothing.
            for dir in &dirs {
                if !locks.contains_key(dir) {
                    let lock = bsuite_logging::record::claim_for_recording(dir)
                        .map_err(BatchLoadError::Claim)?;
                    locks.insert(dir.clone(), lock);
                }
            }
        }
        let mut slots = Vec::new();
        slots
            .try_reserve_exact(ids.len())
            .map_err(|_| BatchLoadError::Memory {
                envs: ids.len(),
                bytes: ids.len().checked_mul(std::mem::size_of::<Slot>()),
            })?;
        let mut shape: Option<(BsuiteId, Vec<usize>)> = None;
        for (k, id) in ids.iter().enumerate() {
            let seed = env_seeds
                .as_ref()
                .map_or_else(|| id.default_env_seed(0), |seeds| seeds[k]);
            let env = id.load_with_env_seed(seed).map_err(BatchLoadError::Load)?;
            let env_shape = env.observation_spec().shape;
            match &shape {
                Some((first, first_shape)) if *first_shape != env_shape => {
                    return Err(BatchLoadError::Shapes {
                        first: (*first, first_shape.clone()),
                        other: (*id, env_shape),
                    })
                }
                Some(_) => {}
                None => shape = Some((*id, env_shape)),
            }
            let env = match &record_to {
                Some(record_to) => {
                    let logger = bsuite_logging::record::recorder(
                        id,
                        &dirs[k],
                        record_to.overwrite,
                        locks[&dirs[k]].clone(),
                    )
                    .map_err(BatchLoadError::Claim)?;
                    SlotEnv::Logged(Box::new(Logging::new(env, logger)))
                }
                None => SlotEnv::Bare(env),
            };
            slots.push(Slot {
                env,
                timestep: TimeStep::default(),
            });
        }
        let shape = shape.map(|(_, shape)| shape).unwrap_or_default();
        Ok(Batch {
            num_actions: slots
                .iter()
                .map(|s| s.env.env().action_spec().num_actions)
                .collect(),
            observation_len: shape.iter().product(),
            shape,
            ids,
            slots,
        })
    }

    /// The ids, in batch order.
    pub fn ids(&self) -> &[BsuiteId] {
        &self.ids
    }

    /// The environments' common observation shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Each environment's number of actions.
    pub fn num_actions(&self) -> &[usize] {
        &self.num_actions
    }

    /// Starts a new episode in every environment.
    pub fn reset(&mut self, out: Outputs<'_>) {
        for slot in &mut self.slots {
            match &mut slot.env {
                SlotEnv::Bare(env) => env.reset_into(&mut slot.timestep),
                SlotEnv::Logged(env) => env.reset_into(&mut slot.timestep),
            }
        }
        self.write(out);
    }

    /// Starts a new episode in every environment whose latest timestep is LAST, or that has
    /// none yet (never reset or stepped); the others keep their timesteps. Writes every
    /// environment's latest timestep (SB3's autoreset: an ended episode's successor starts
    /// in the step that ended it).
    pub fn reset_ended(&mut self, out: Outputs<'_>) {
        for slot in &mut self.slots {
            if snapshot::ended_or_unstarted(&slot.timestep) {
                match &mut slot.env {
                    SlotEnv::Bare(env) => env.reset_into(&mut slot.timestep),
                    SlotEnv::Logged(env) => env.reset_into(&mut slot.timestep),
                }
            }
        }
        self.write(out);
    }

    /// Replays a pickled history (one byte per environment and call, see
    /// [`crate::snapshot`]) into this freshly loaded, unlogged batch. Fails with the position
    /// and error of an environment whose part does not replay.
    pub fn replay(&mut self, history: &[u8]) -> Result<(), (usize, bsuite_envs::ActionError)> {
        let n = self.slots.len();
        for (k, slot) in self.slots.iter_mut().enumerate() {
            if let SlotEnv::Bare(env) = &mut slot.env {
                snapshot::replay(&mut **env, history, k, n, &mut slot.timestep)
                    .map_err(|err| (k, err))?;
            }
        }
        Ok(())
    }

    /// Steps environment `i` with `actions[i]`. An environment whose last timestep was LAST
    /// starts a new episode instead (its action is ignored), as bsuite's do. Every action is
    /// checked before any environment moves.
    pub fn step(&mut self, actions: &[i64], out: Outputs<'_>) -> Result<(), BatchError> {
        if actions.len() != self.slots.len() {
            return Err(BatchError::ActionCount {
                expected: self.slots.len(),
                found: actions.len(),
            });
        }
        for (index, (&action, &num_actions)) in actions.iter().zip(&self.num_actions).enumerate() {
            if !(0..num_actions as i64).contains(&action) {
                return Err(BatchError::Action {
                    index,
                    id: self.ids[index],
                    action,
                    num_actions,
                });
            }
        }
        for (index, (slot, &action)) in self.slots.iter_mut().zip(actions).enumerate() {
            // In range (checked above), so this does not fail; should it, it is reported.
            let stepped = match &mut slot.env {
                SlotEnv::Bare(env) => env.step_into(action as usize, &mut slot.timestep),
                SlotEnv::Logged(env) => env.step_into(action as usize, &mut slot.timestep),
            };
            if stepped.is_err() {
                return Err(BatchError::Action {
                    index,
                    id: self.ids[index],
                    action,
                    num_actions: self.num_actions[index],
                });
            }
        }
        self.write(out);
        self.check_logs()
    }

    /// The logging error of the first environment whose episode just ended with its logger
    /// failed. It stays: every episode end of that environment reports it again, as a
    /// single environment does, until `flush` takes it.
    fn check_logs(&self) -> Result<(), BatchError> {
        for (slot, id) in self.slots.iter().zip(&self.ids) {
            if let SlotEnv::Logged(env) = &slot.env {
                if let (true, Some(error)) = (slot.timestep.last(), env.error()) {
                    return Err(BatchError::Log {
                        id: *id,
                        error: errors::copy_log_error(error),
                    });
                }
            }
        }
        Ok(())
    }

    fn write(&self, out: Outputs<'_>) {
        let chunks = out
            .observations
            .chunks_exact_mut(self.observation_len.max(1));
        for (k, (slot, observation)) in self.slots.iter().zip(chunks).enumerate() {
            let ts = &slot.timestep;
            observation.copy_from_slice(&ts.observation);
            out.rewards[k] = ts.reward.unwrap_or(0.0);
            out.discounts[k] = ts.discount.unwrap_or(1.0);
            out.step_types[k] = i32::from(ts.step_type.code());
        }
    }

    /// Waits until every logged row is in its file; the first logging error.
    pub fn flush(&mut self) -> Result<(), BatchError> {
        let mut first = None;
        for (slot, id) in self.slots.iter_mut().zip(&self.ids) {
            if let SlotEnv::Logged(env) = &mut slot.env {
                if let Err(error) = env.finish() {
                    first.get_or_insert(BatchError::Log { id: *id, error });
                }
            }
        }
        first.map_or(Ok(()), Err)
    }

    /// Drops the loggers (after [`Batch::flush`]): their last writes are finished and the
    /// results directories' locks and files' claims given back. The environments stay.
    pub fn release(&mut self) {
        self.slots = std::mem::take(&mut self.slots)
            .into_iter()
            .map(|slot| Slot {
                env: match slot.env {
                    SlotEnv::Logged(env) => SlotEnv::Bare(env.into_parts().0),
                    bare => bare,
                },
                timestep: slot.timestep,
            })
            .collect();
    }

    /// True when the environments log to CSV files.
    pub fn recording(&self) -> bool {
        matches!(self.slots[0].env, SlotEnv::Logged(_))
    }

    /// The step type of environment `k`'s latest timestep.
    pub fn step_type(&self, k: usize) -> StepType {
        self.slots[k].timestep.step_type
    }
}

/// Why a batch could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BatchLoadError {
    /// No ids.
    #[error("a VecEnv needs at least one bsuite_id")]
    Empty,
    /// `env_seeds` or `run_seeds` is not one seed per id.
    #[error("{seeds} {what} for {ids} bsuite_ids; give one per id")]
    SeedCount {
        /// Which seeds.
        what: &'static str,
        /// Ids given.
        ids: usize,
        /// Seeds given.
        seeds: usize,
    },
    /// An id given twice (of one run seed) while recording: both would write one file.
    #[error(
        "{}{} appears twice; with record_to every id logs to its own file, so each may \
         appear once{}",
        .0,
        .1.map_or(String::new(), |seed| format!(" of run seed {seed}")),
        if .1.is_some() { " per run seed" } else { "" }
    )]
    Duplicate(BsuiteId, Option<u32>),
    /// `record_to` is laid out for the other kind of run (one seed, or several).
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// Two ids whose observations differ in shape cannot share the observation array.
    #[error(
        "{} has observations of shape {:?} but {} of shape {:?}; a VecEnv stacks \
         observations, so its ids need one shape",
        first.0, first.1, other.0, other.1
    )]
    Shapes {
        /// The first id and its shape.
        first: (BsuiteId, Vec<usize>),
        /// The first id with another shape.
        other: (BsuiteId, Vec<usize>),
    },
    /// An environment could not be loaded.
    #[error(transparent)]
    Load(bsuite_envs::LoadError),
    /// A CSV logger could not start.
    #[error(transparent)]
    Log(LogError),
    /// The results directory (or an id's file in it) could not be taken for recording, or
    /// a logger could not start.
    #[error(transparent)]
    Claim(bsuite_logging::record::RecordError),
    /// The environments need more memory than can be allocated now.
    #[error(
        "a VecEnv of {envs} environments needs {}, which cannot be allocated",
        memory::describe(*.bytes)
    )]
    Memory {
        /// Environments asked for.
        envs: usize,
        /// Bytes they need (`None`: more than a `usize` counts).
        bytes: Option<usize>,
    },
}

/// Bytes one slot of a batch holds besides its environment: the slot, its timestep's
/// observation, its action and its id, and the entry of the Python list of ids.
fn slot_overhead(observation_len: usize) -> usize {
    std::mem::size_of::<Slot>()
        + observation_len * std::mem::size_of::<f32>()
        + std::mem::size_of::<i64>()
        + std::mem::size_of::<BsuiteId>()
        + std::mem::size_of::<usize>()
}

/// Refuses ([`BatchLoadError::Memory`]) a batch of `copies` (each id and how many times it
/// appears) that needs more memory than the allocator can give now, before anything is
/// loaded: loading would abort the interpreter at the failed allocation. One environment's
/// size is measured for each id that appears more than once, by loading it (twice: the
/// first load may fill caches that every copy shares, such as MNIST's images).
pub fn check_memory(copies: &[(BsuiteId, usize)]) -> Result<(), BatchLoadError> {
    let envs = copies.iter().map(|(_, n)| n).sum::<usize>();
    let mut total: Option<usize> = Some(0);
    for &(id, n) in copies {
        let per_env = if n > 1 {
            let seed = id.default_env_seed(0);
            drop(id.load_with_env_seed(seed).map_err(BatchLoadError::Load)?);
            let (env, bytes) = memory::measure(|| id.load_with_env_seed(seed));
            let env = env.map_err(BatchLoadError::Load)?;
            bytes + slot_overhead(env.observation_spec().shape.iter().product())
        } else {
            0
        };
        // Half again for the allocator's own bookkeeping and rounding.
        let need = per_env.checked_mul(n).and_then(|b| b.checked_add(b / 2));
        total = total.zip(need).and_then(|(t, b)| t.checked_add(b));
    }
    match memory::available(total) {
        true => Ok(()),
        false => Err(BatchLoadError::Memory { envs, bytes: total }),
    }
}

/// Python's view of a [`BatchError`].
fn batch_error(py: Python<'_>, err: BatchError) -> PyErr {
    match err {
        BatchError::Log { id, error } => match &error {
            // The message names the file already.
            LogError::Exists { .. } => errors::log_error(py, &error),
            LogError::Io { error: io, .. } | LogError::Stream(io) => {
                errors::os_error(io, format!("{id}: {error}"))
            }
        },
        other => PyValueError::new_err(other.to_string()),
    }
}

/// Reads the actions: a 1-D array (or sequence) of integers. Integer arrays are read
/// without a copy when they are `int64`; anything not integral is a `ValueError`, so a
/// float array is never truncated into actions.
fn read_actions(actions: &Bound<'_, PyAny>, out: &mut Vec<i64>) -> PyResult<()> {
    out.clear();
    if let Ok(array) = actions.cast::<PyArray1<i64>>() {
        if copy_actions(array, out) {
            return Ok(());
        }
    }
    let py = actions.py();
    let numpy = py.import("numpy")?;
    let array = numpy.call_method1("asarray", (actions,))?;
    let kind: String = array.getattr("dtype")?.getattr("kind")?.extract()?;
    if !matches!(kind.as_str(), "i" | "u" | "b") {
        return Err(PyValueError::new_err(format!(
            "actions must be integers, got an array of dtype {}",
            array.getattr("dtype")?.str()?
        )));
    }
    let ndim: usize = array.getattr("ndim")?.extract()?;
    if ndim != 1 {
        return Err(PyValueError::new_err(format!(
            "actions must be a 1-D array, one per environment; got {ndim} dimensions"
        )));
    }
    // Unsigned values past i64::MAX would wrap into negative ones: refuse them as they are.
    if kind == "u" {
        let too_large = array.call_method1("__gt__", (i64::MAX,))?;
        let indices = numpy.call_method1("flatnonzero", (too_large,))?;
        if indices.len()? > 0 {
            let index = indices.get_item(0)?;
            let value = array.get_item(&index)?;
            return Err(PyValueError::new_err(format!(
                "actions[{index}] = {value} is out of range: no bsuite id has that many actions"
            )));
        }
    }
    let array = array.call_method1("astype", (numpy.getattr("int64")?,))?;
    // `astype` copies into a new C-ordered array, so this copy cannot fail.
    if copy_actions(&array.cast_into::<PyArray1<i64>>()?, out) {
        Ok(())
    } else {
        Err(PyValueError::new_err("the actions could not be read"))
    }
}

/// Copies a contiguous `int64` array's values into `out`; false for a strided one.
fn copy_actions(array: &Bound<'_, PyArray1<i64>>, out: &mut Vec<i64>) -> bool {
    // SAFETY: the values are copied at once, holding the GIL, so no Python code runs
    // meanwhile (numpy's borrow tracking, which `readonly()` would add, protects against
    // nothing more here and costs as much as a small step).
    match unsafe { array.as_slice() } {
        Ok(values) => {
            out.clear();
            out.extend_from_slice(values);
            true
        }
        Err(_) => false,
    }
}

/// Steps many bsuite ids in one call: `VecEnv(ids, record_to=None, *, overwrite=False,
/// env_seeds=None, run_seeds=None)`.
///
/// `step(actions)` takes one integer action per id and returns `(observation, reward,
/// discount, step_type)`: arrays of shape `[N, *observation_shape]` (float32), `[N]`
/// (float64), `[N]` (float64) and `[N]` (int32, dm_env's codes 0 FIRST, 1 MID, 2 LAST).
/// Environments reset themselves: the step after a LAST timestep starts a new episode and
/// returns its FIRST timestep (reward 0.0, discount 1.0), ignoring that environment's
/// action, exactly as bsuite's environments do. `reset()` restarts every environment and
/// returns the same four arrays.
///
/// The arrays are yours: an array you still hold (or a view of it) is never written
/// again. Arrays you have dropped are recycled for later results, so a loop allocates
/// nothing per step once warm; each environment's timestep buffer is reused too. The GIL is
/// released while the environments step and write into the arrays.
///
/// `record_to` logs each id to its bsuite CSV file in that directory, as
/// `load_and_record_to_csv` does (then every id may appear once); `overwrite` replaces
/// existing files. `env_seeds` (one per id) seeds what bsuite leaves unseeded; by default
/// each id's setting index. All ids need the same observation shape.
///
/// `run_seeds` (one per id) runs several seeds of an agent in one batch: each id logs to
/// `record_to/seed-<s>/` for its run seed `s` (then every (id, run seed) pair may appear
/// once), and `bsuite_rs.score(record_to)` reads the directory as one agent over seeds.
///
/// `pickle`, `copy.copy` and `copy.deepcopy` carry the full state, random generators
/// included (a copy replays what the batch was given; see `snapshot.rs`); a recording
/// batch refuses.
#[pyclass(module = "bsuite_rs._core", name = "VecEnv", subclass, weakref, frozen)]
pub struct VecEnv {
    ids: Vec<BsuiteId>,
    /// The env seeds they were loaded with (the default ones included), for pickling.
    env_seeds: Vec<u32>,
    shape: Vec<usize>,
    state: Mutex<VecState>,
}

/// What a step changes.
struct VecState {
    batch: Batch,
    /// The actions of the current step, read from Python.
    actions: Vec<i64>,
    observations: ArrayPool<f32>,
    rewards: ArrayPool<f64>,
    discounts: ArrayPool<f64>,
    step_types: ArrayPool<i32>,
    /// What the environments were given since they were loaded, for pickling and copying
    /// (not kept while they record, or once closed).
    history: History,
    /// Set by `close`: the batch steps no more.
    closed: bool,
}

impl VecState {
    /// Takes the four result arrays and lets `fill` write them without the GIL.
    fn run<'py, F>(&mut self, py: Python<'py>, fill: F) -> PyResult<Bound<'py, PyTuple>>
    where
        F: FnOnce(&mut Batch, &[i64], Outputs<'_>) -> Result<(), BatchError> + Send,
    {
        if self.closed {
            return Err(PyValueError::new_err("this VecEnv is closed"));
        }
        let arrays = (
            self.observations.take(py),
            self.rewards.take(py),
            self.discounts.take(py),
            self.step_types.take(py),
        );
        // SAFETY: the arrays are C-contiguous (so their slices cover exactly their elements)
        // and nobody else refers to them; `fill` writes every element before they reach
        // Python (after a failed `fill` they stay in their pools, unseen).
        let outputs = unsafe {
            Outputs {
                observations: arrays.0.as_slice_mut()?,
                rewards: arrays.1.as_slice_mut()?,
                discounts: arrays.2.as_slice_mut()?,
                step_types: arrays.3.as_slice_mut()?,
            }
        };
        let (batch, actions) = (&mut self.batch, &self.actions);
        py.detach(|| fill(batch, actions, outputs))
            .map_err(|err| batch_error(py, err))?;
        arrays.into_pyobject(py)
    }
}

impl VecEnv {
    fn lock(&self) -> PyResult<MutexGuard<'_, VecState>> {
        lock(&self.state, &"this VecEnv")
    }

    /// Runs one of the batch's resets and records it in the history as `byte`.
    fn reset_with<'py>(
        &self,
        py: Python<'py>,
        byte: u8,
        reset: fn(&mut Batch, Outputs<'_>),
    ) -> PyResult<Bound<'py, PyTuple>> {
        let mut state = self.lock()?;
        let result = state.run(py, |batch, _, out| {
            reset(batch, out);
            Ok(())
        })?;
        state
            .history
            .push(std::iter::repeat_n(byte, self.ids.len()));
        Ok(result)
    }
}

#[pymethods]
impl VecEnv {
    #[new]
    #[pyo3(signature = (ids, record_to=None, *, overwrite=false, env_seeds=None, run_seeds=None))]
    fn new(
        py: Python<'_>,
        ids: &Bound<'_, PyAny>,
        record_to: Option<PathBuf>,
        overwrite: bool,
        env_seeds: Option<&Bound<'_, PyAny>>,
        run_seeds: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        if ids.is_instance_of::<PyString>() {
            return Err(PyValueError::new_err(
                "ids must be a sequence of bsuite_ids, e.g. sweep.CATCH or ['catch/0'], not one \
                 string",
            ));
        }
        let ids = ids
            .try_iter()?
            .map(|id| {
                let id = id?;
                let text: &str = &id.cast::<PyString>()?.to_cow()?;
                text.parse::<BsuiteId>()
                    .map_err(|err| errors::id_error(&err))
            })
            .collect::<PyResult<Vec<BsuiteId>>>()?;
        let seeds = |given: Option<&Bound<'_, PyAny>>, parse: fn(&Bound<'_, PyAny>) -> _| {
            given
                .map(|seeds| {
                    seeds
                        .try_iter()?
                        .map(|seed| parse(&seed?))
                        .collect::<PyResult<Vec<u32>>>()
                })
                .transpose()
        };
        let env_seeds = seeds(env_seeds, env_seed)?;
        let run_seeds = seeds(run_seeds, run_seed)?;
        if run_seeds.is_some() && record_to.is_none() {
            return Err(PyValueError::new_err(
                "run_seeds name the seed directories of record_to that the results go to; \
                 give record_to too",
            ));
        }
        let record_to = record_to
            .map(|dir| {
                PyResult::Ok(RecordTo {
                    dir: results_path(&dir, "record_to")?,
                    overwrite,
                    run_seeds,
                })
            })
            .transpose()?;
        let env_seeds = match env_seeds {
            Some(seeds) => seeds,
            None => ids.iter().map(|id| id.default_env_seed(0)).collect(),
        };
        let batch =
            Batch::new(ids, Some(env_seeds.clone()), record_to).map_err(|err| match err {
                BatchLoadError::Load(err) => errors::load_error(&err),
                BatchLoadError::Log(err) => errors::log_error(py, &err),
                BatchLoadError::Claim(err) => errors::record_error(py, &err),
                BatchLoadError::Layout(err) => errors::layout_error(&err),
                memory @ BatchLoadError::Memory { .. } => {
                    PyMemoryError::new_err(memory.to_string())
                }
                other => PyValueError::new_err(other.to_string()),
            })?;
        let n = batch.ids().len();
        // A recording batch refuses to be copied, so it keeps no history.
        let history = match batch.recording() {
            true => History::not_kept(),
            false => History::default(),
        };
        let mut observation_shape = vec![n];
        observation_shape.extend_from_slice(batch.shape());
        Ok(VecEnv {
            ids: batch.ids().to_vec(),
            env_seeds,
            shape: batch.shape().to_vec(),
            state: Mutex::new(VecState {
                batch,
                actions: Vec::with_capacity(n),
                observations: ArrayPool::new(observation_shape),
                rewards: ArrayPool::new(vec![n]),
                discounts: ArrayPool::new(vec![n]),
                step_types: ArrayPool::new(vec![n]),
                history,
                closed: false,
            }),
        })
    }

    /// Restarts every environment: `(observation, reward, discount, step_type)` of their
    /// FIRST timesteps.
    fn reset<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.reset_with(py, snapshot::RESET, Batch::reset)
    }

    /// Starts a new episode in each environment whose episode has just ended (its latest
    /// timestep is LAST), leaving the others where they are, and returns every
    /// environment's latest `(observation, reward, discount, step_type)`: the ended ones'
    /// FIRST timesteps and the others' unchanged. For trainers that reset in the step that
    /// ends an episode (SB3); without it the next `step` does the same.
    fn reset_ended<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.reset_with(py, snapshot::RESET_IF_ENDED, Batch::reset_ended)
    }

    /// Steps every environment with its action (see the class docs).
    fn step<'py>(
        &self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let mut state = self.lock()?;
        read_actions(actions, &mut state.actions)?;
        let result = state.run(py, |batch, actions, out| batch.step(actions, out))?;
        let state = &mut *state;
        // In range: `step` checked every action.
        state
            .history
            .push_actions(state.actions.iter().map(|&a| a as usize));
        Ok(result)
    }

    /// Gymnasium's step for `bsuite_rs.gym.VectorEnv`: `(observation, reward, terminated,
    /// truncated)`, the flags as bool arrays (an episode that ends with discount 0 is
    /// terminated, any other end truncated), made here because four numpy operations on
    /// the step's arrays would cost more than the step.
    fn _gym_step<'py>(
        &self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let result = self.step(py, actions)?;
        let discount = result.get_item(2)?.cast_into::<PyArray1<f64>>()?;
        let step_type = result.get_item(3)?.cast_into::<PyArray1<i32>>()?;
        let (discount, step_type) = (discount.readonly(), step_type.readonly());
        let ends = || {
            let pairs = discount.as_slice().into_iter().flatten();
            pairs.zip(step_type.as_slice().into_iter().flatten())
        };
        let terminated = PyArray1::from_iter(py, ends().map(|(&d, &s)| s == 2 && d == 0.0));
        let truncated = PyArray1::from_iter(py, ends().map(|(&d, &s)| s == 2 && d != 0.0));
        (
            result.get_item(0)?,
            result.get_item(1)?,
            terminated,
            truncated,
        )
            .into_pyobject(py)
    }

    /// Pickling (and `copy.copy`, `copy.deepcopy`): `(restore, (class, ids, env_seeds,
    /// history))`, from which `bsuite_rs._pickle.restore_vec_env` rebuilds this state exactly
    /// (see `snapshot.rs`). A logging batch refuses.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.get();
        let state = this.lock()?;
        if state.closed {
            return Err(PyValueError::new_err(
                "this VecEnv is closed and cannot be pickled or copied",
            ));
        }
        if state.batch.recording() {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "this VecEnv logs its results to CSV files and cannot be pickled or copied: a \
                 copy would log the same episodes again. Copy a VecEnv made without record_to",
            ));
        }
        let history = state
            .history
            .bytes(&"this VecEnv")
            .map_err(PyValueError::new_err)?;
        let restore = py.import("bsuite_rs._pickle")?.getattr("restore_vec_env")?;
        let ids: Vec<String> = this.ids.iter().map(ToString::to_string).collect();
        let args = (
            slf.get_type(),
            ids,
            this.env_seeds.clone(),
            pyo3::types::PyBytes::new(py, history),
        );
        (restore, args).into_pyobject(py)
    }

    /// Replays a pickled history into this freshly loaded batch.
    fn _replay(&self, history: &[u8]) -> PyResult<()> {
        let mut state = self.lock()?;
        let n = self.ids.len();
        if history.len() % n != 0 {
            return Err(PyValueError::new_err(format!(
                "a history of {} bytes is not one of {n} environments",
                history.len()
            )));
        }
        state.batch.replay(history).map_err(|(k, err)| {
            snapshot::replay_error(&format_args!("environment {k} ({})", self.ids[k]), &err)
        })?;
        state.history = History::from_bytes(history);
        Ok(())
    }

    /// The env seed of each environment, in order.
    #[getter]
    fn env_seeds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.env_seeds)
    }

    /// The bsuite_ids, in order.
    #[getter]
    fn ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.ids.iter().map(|id| id.to_string()))
    }

    /// The number of environments.
    #[getter]
    fn num_envs(&self) -> usize {
        self.ids.len()
    }

    fn __len__(&self) -> usize {
        self.ids.len()
    }

    /// The shape of one environment's observation.
    #[getter]
    fn observation_shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.shape)
    }

    /// Each environment's number of actions.
    #[getter]
    fn num_actions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.lock()?.batch.num_actions())
    }

    /// True when the environments log to CSV files.
    #[getter]
    fn recording(&self) -> PyResult<bool> {
        Ok(self.lock()?.batch.recording())
    }

    /// Each environment's `bsuite_info()`, in order.
    fn bsuite_info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let state = self.lock()?;
        let infos = state
            .batch
            .slots
            .iter()
            .map(|slot| info_dict(py, slot.env.env()))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, infos)
    }

    /// Each environment's number of episodes, in order: bsuite's `bsuite_num_episodes`.
    #[getter]
    fn bsuite_num_episodes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.ids.iter().map(BsuiteId::num_episodes))
    }

    /// Waits until every logged row is in its file, raising `OSError` if logging failed.
    fn flush(&self, py: Python<'_>) -> PyResult<()> {
        let mut state = self.lock()?;
        let batch = &mut state.batch;
        py.detach(|| batch.flush())
            .map_err(|err| batch_error(py, err))
    }

    /// Flushes the logs and closes the batch: stepping or resetting it afterwards is a
    /// `ValueError`. The loggers are dropped at once, so the results directory and files are
    /// free for the next writer as soon as this returns. Closing twice is harmless.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let mut state = self.lock()?;
        if state.closed {
            return Ok(());
        }
        state.closed = true;
        state.history = History::not_kept();
        let batch = &mut state.batch;
        let flushed = py.detach(|| {
            let flushed = batch.flush();
            batch.release();
            flushed
        });
        flushed.map_err(|err| batch_error(py, err))
    }

    /// The batch itself, for a `with` block that closes it.
    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// Closes the batch at the end of a `with` block; an exception goes on.
    fn __exit__(
        &self,
        py: Python<'_>,
        kind: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
        traceback: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        let _ = (kind, value, traceback);
        self.close(py)?;
        Ok(false)
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let class = slf.get_type().qualname()?;
        let this = slf.get();
        let shown: Vec<String> = this.ids.iter().take(3).map(ToString::to_string).collect();
        let more = if this.ids.len() > 3 { ", ..." } else { "" };
        let closed = if this.lock()?.closed { ", closed" } else { "" };
        Ok(format!(
            "<{class} of {} ids: {}{more}{closed}>",
            this.ids.len(),
            shown.join(", ")
        ))
    }
}

/// Refuses with `MemoryError`, before a list of ids is even made, a batch of `num_envs`
/// copies of `bsuite_id` that needs more memory than can be allocated now (a `ValueError`
/// for a bad id): what `make` and the gymnasium and SB3 vector environments ask first.
#[pyfunction]
pub fn _check_vec_env(bsuite_id: &str, num_envs: usize) -> PyResult<()> {
    let id: BsuiteId = bsuite_id.parse().map_err(|err| errors::id_error(&err))?;
    check_memory(&[(id, num_envs)]).map_err(|err| match err {
        BatchLoadError::Load(err) => errors::load_error(&err),
        other => PyMemoryError::new_err(other.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Observations, rewards, discounts and step types of one step.
    type Results = (Vec<f32>, Vec<f64>, Vec<f64>, Vec<i32>);

    fn run(batch: &mut Batch, actions: &[i64]) -> Result<Results, BatchError> {
        let n = batch.ids().len();
        let len: usize = batch.shape().iter().product();
        let (mut o, mut r, mut d, mut s) =
            (vec![0.0; n * len], vec![0.0; n], vec![0.0; n], vec![0; n]);
        batch.step(
            actions,
            Outputs {
                observations: &mut o,
                rewards: &mut r,
                discounts: &mut d,
                step_types: &mut s,
            },
        )?;
        Ok((o, r, d, s))
    }

    fn ids(names: &[&str]) -> Vec<BsuiteId> {
        names.iter().map(|s| s.parse().unwrap()).collect()
    }

    #[test]
    fn steps_like_separate_environments_and_resets_itself() {
        let names = ["catch/0", "catch/1", "catch/7"];
        let mut batch = Batch::new(ids(&names), None, None).unwrap();
        let mut single: Vec<Box<dyn Environment>> = names
            .iter()
            .map(|n| bsuite_envs::load(n).unwrap())
            .collect();
        let mut timesteps = vec![TimeStep::default(); names.len()];
        // Before any reset every environment starts an episode, as bsuite's do.
        for t in 0..40i64 {
            let actions: Vec<i64> = (0..3).map(|k| (t + k) % 3).collect();
            let (o, r, d, s) = run(&mut batch, &actions).unwrap();
            for (k, env) in single.iter_mut().enumerate() {
                env.step_into(actions[k] as usize, &mut timesteps[k])
                    .unwrap();
                let ts = &timesteps[k];
                assert_eq!(
                    &o[k * 50..(k + 1) * 50],
                    &ts.observation[..],
                    "t {t} env {k}"
                );
                assert_eq!(r[k], ts.reward.unwrap_or(0.0));
                assert_eq!(d[k], ts.discount.unwrap_or(1.0));
                assert_eq!(s[k], i32::from(ts.step_type.code()));
            }
        }
        assert!((0..3).any(|k| batch.step_type(k) != StepType::Mid));
    }

    #[test]
    fn bad_actions_move_nothing() {
        let mut batch = Batch::new(ids(&["deep_sea/0", "deep_sea/0"]), None, None).unwrap();
        let first = run(&mut batch, &[0, 1]).unwrap();
        let err = run(&mut batch, &[0, 2]).unwrap_err().to_string();
        assert!(
            err.starts_with("actions[1] = 2 is out of range for deep_sea/0"),
            "{err}"
        );
        let err = run(&mut batch, &[-1, 0]).unwrap_err().to_string();
        assert!(err.contains("actions[0] = -1"), "{err}");
        let err = run(&mut batch, &[0]).unwrap_err().to_string();
        assert!(
            err.contains("one action per environment (2), got 1"),
            "{err}"
        );
        // Still at the start of the episode: the next step is the first move.
        let second = run(&mut batch, &[0, 0]).unwrap();
        assert_eq!(first.3, [0, 0]);
        assert_eq!(second.3, [1, 1]);
    }

    #[test]
    fn refuses_mixed_shapes_duplicates_when_recording_and_wrong_seed_counts() {
        let err = Batch::new(ids(&["catch/0", "deep_sea/0"]), None, None)
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains("catch/0 has observations of shape [10, 5] but deep_sea/0"),
            "{err}"
        );
        let dir = std::env::temp_dir().join(format!("bsuite-py-dup-{}", std::process::id()));
        let record_to = |run_seeds: Option<Vec<u32>>| {
            Some(RecordTo {
                dir: dir.clone(),
                overwrite: false,
                run_seeds,
            })
        };
        let err = Batch::new(ids(&["catch/0", "catch/0"]), None, record_to(None))
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("catch/0 appears twice"), "{err}");
        assert!(!dir.exists(), "nothing is created for a refused batch");
        let err = Batch::new(ids(&["catch/0"]), Some(vec![1, 2]), None)
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("2 env_seeds for 1 bsuite_ids"), "{err}");
        assert!(Batch::new(Vec::new(), None, None).is_err());
        let err = Batch::new(
            ids(&["catch/0", "catch/1", "catch/0"]),
            None,
            record_to(Some(vec![1, 2, 1])),
        )
        .err()
        .unwrap()
        .to_string();
        assert!(
            err.contains("catch/0 of run seed 1 appears twice") && err.ends_with("per run seed"),
            "{err}"
        );
        let err = Batch::new(ids(&["catch/0"]), None, record_to(Some(vec![1, 2])))
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("2 run_seeds for 1 bsuite_ids"), "{err}");
        assert!(!dir.exists(), "nothing is created for a refused batch");
    }

    #[test]
    fn run_seeds_record_each_seed_into_its_seed_directory() {
        let dir = std::env::temp_dir().join(format!("bsuite-py-seeds-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let record_to = |run_seeds: Option<Vec<u32>>| {
            Some(RecordTo {
                dir: dir.clone(),
                overwrite: false,
                run_seeds,
            })
        };
        // The same id under two run seeds: two files, one in each seed's directory.
        let mut batch = Batch::new(
            ids(&["catch/0", "catch/0", "catch/1"]),
            None,
            record_to(Some(vec![3, 4, 3])),
        )
        .unwrap();
        // A file is written once its first episode ends (catch's take 9 steps).
        for _ in 0..10 {
            run(&mut batch, &[0, 1, 2]).unwrap();
        }
        batch.flush().unwrap();
        drop(batch);
        for file in [
            "seed-3/bsuite_id_-_catch-0.csv",
            "seed-4/bsuite_id_-_catch-0.csv",
        ] {
            assert!(dir.join(file).exists(), "{file}");
        }
        assert!(dir.join("seed-3/bsuite_id_-_catch-1.csv").exists());
        // A directory of seeds takes no single-seed recording, and the reverse.
        let err = Batch::new(ids(&["catch/2"]), None, record_to(None))
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("holds the seed directories"), "{err}");
        let single = dir.join("seed-3");
        let err = Batch::new(
            ids(&["catch/2"]),
            None,
            Some(RecordTo {
                dir: single.clone(),
                overwrite: false,
                run_seeds: Some(vec![0]),
            }),
        )
        .err()
        .unwrap()
        .to_string();
        assert!(
            err.contains("holds the files of a single-seed run"),
            "{err}"
        );
        assert!(!single.join("seed-0").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
