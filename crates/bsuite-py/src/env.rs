//! One bsuite environment for Python: [`Env`], the native base of
//! `bsuite_rs.Environment`.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, TryLockError};

use bsuite_envs::{BsuiteId, Environment, InfoValue, TimeStep};
use bsuite_logging::results::{check_layout, seed_dir, Layout, LayoutError};
use bsuite_logging::{Logger, Logging, TerminalLogger};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};

use crate::errors;
use crate::pool::ArrayPool;
use crate::snapshot::{self, History};
use crate::types::types;

/// A bsuite environment, bare or with a logger attached.
pub enum Backend {
    /// No logging.
    Bare(Box<dyn Environment>),
    /// bsuite's `Logging` wrapper with a CSV or terminal logger.
    Logged(Logging<Box<dyn Environment>, Box<dyn Logger>>),
}

/// Where an environment's rows go.
pub enum Record {
    /// Nowhere.
    Off,
    /// One CSV file in this results directory; `overwrite` replaces an existing one.
    Csv {
        /// The results directory (created if missing).
        results_dir: PathBuf,
        /// Replace an existing results file instead of failing.
        overwrite: bool,
    },
    /// Standard error (file descriptor 2, not Python's `sys.stderr`).
    Terminal,
}

/// `results_dir` as given by Python, made absolute against the current directory now, so
/// that a later `os.chdir` does not move where the results go. An empty path is a
/// `ValueError` (bsuite refuses it too), not the current directory.
pub fn results_path(results_dir: &Path, argument: &str) -> PyResult<PathBuf> {
    if results_dir.as_os_str().is_empty() {
        return Err(PyValueError::new_err(format!(
            "{argument} is an empty path; name a directory ('.' for the current one)"
        )));
    }
    std::path::absolute(results_dir).map_err(|err| {
        errors::os_error(
            &err,
            format!(
                "{argument} {} cannot be made absolute: {err}",
                results_dir.display()
            ),
        )
    })
}

/// Where a recorder of run seed `run_seed` writes: `results_dir` itself for a run of no
/// named seed, or its `seed-<s>/` directory, so that a directory of seeds reads as one
/// agent over seeds (`bsuite_rs.score`). Refused when `results_dir` is laid out for the
/// other kind of run.
pub fn recording_dir(results_dir: &Path, run_seed: Option<u32>) -> Result<PathBuf, LayoutError> {
    match run_seed {
        Some(seed) => {
            check_layout(results_dir, Layout::Seeds)?;
            Ok(seed_dir(results_dir, seed))
        }
        None => {
            check_layout(results_dir, Layout::OneSeed)?;
            Ok(results_dir.to_path_buf())
        }
    }
}

impl Backend {
    /// Loads `id` (seeding what bsuite leaves unseeded with `env_seed`, or the setting index)
    /// and attaches the logger of `record`.
    pub fn load(
        py: Python<'_>,
        id: &BsuiteId,
        env_seed: Option<u32>,
        record: Record,
    ) -> PyResult<Self> {
        let seed = env_seed.unwrap_or_else(|| id.default_env_seed(0));
        let env = id
            .load_with_env_seed(seed)
            .map_err(|err| errors::load_error(&err))?;
        let logger: Box<dyn Logger> = match record {
            Record::Off => return Ok(Backend::Bare(env)),
            Record::Csv {
                results_dir,
                overwrite,
            } => {
                let lock = bsuite_logging::record::claim_for_recording(&results_dir)
                    .map_err(|err| errors::record_error(py, &err))?;
                Box::new(
                    bsuite_logging::record::recorder(id, &results_dir, overwrite, lock)
                        .map_err(|err| errors::record_error(py, &err))?,
                )
            }
            Record::Terminal => Box::new(TerminalLogger::stderr()),
        };
        Ok(Backend::Logged(Logging::new(env, logger)))
    }

    /// The environment, logged or not.
    pub fn env(&self) -> &dyn Environment {
        match self {
            Backend::Bare(env) => env,
            Backend::Logged(env) => env,
        }
    }

    /// The environment, logged or not.
    pub fn env_mut(&mut self) -> &mut dyn Environment {
        match self {
            Backend::Bare(env) => env,
            Backend::Logged(env) => env,
        }
    }

    /// Fails with the logger's first error once there is one. Checked when an episode ends,
    /// where bsuite's logger writes.
    pub fn check_log(&self, py: Python<'_>) -> PyResult<()> {
        match self {
            Backend::Logged(env) => match env.error() {
                Some(err) => Err(errors::log_error(py, err)),
                None => Ok(()),
            },
            Backend::Bare(_) => Ok(()),
        }
    }

    /// Waits until every logged row is in its file; fails with the run's first logging
    /// error.
    pub fn flush(&mut self, py: Python<'_>) -> PyResult<()> {
        match self {
            Backend::Logged(env) => env.finish().map_err(|err| errors::log_error(py, &err)),
            Backend::Bare(_) => Ok(()),
        }
    }

    /// The environment without its logger, which is dropped: a CSV logger's last write is
    /// finished and its directory's lock and file's claim are given back.
    pub fn release(self) -> Self {
        match self {
            Backend::Logged(env) => Backend::Bare(env.into_parts().0),
            bare => bare,
        }
    }
}

/// Reads an action: a Python `int` or anything with `__index__` (numpy and JAX integers,
/// 0-d integer arrays). Anything else, and a negative number, is a `ValueError`.
pub fn action(value: &Bound<'_, PyAny>, env: &dyn Environment) -> PyResult<usize> {
    if let Ok(action) = value.extract::<usize>() {
        return Ok(action);
    }
    let max = env.action_spec().num_actions - 1;
    // An integer past i64 (2**70) is still an integer: `__index__` says so for any kind
    // (and refuses arrays of more than one value).
    let integral = value.extract::<i64>().is_ok() || value.call_method0("__index__").is_ok();
    let what = match integral {
        true => "is out of range",
        false => "is not an integer",
    };
    let shown = value
        .repr()
        .map_or_else(|_| "?".to_string(), |r| r.to_string());
    Err(PyValueError::new_err(format!(
        "{}: action {shown} {what}; valid actions are 0..={max}",
        env.name()
    )))
}

/// An env seed: an integer in `0..=4294967295`, as numpy's `RandomState` takes; anything
/// else is a `ValueError`.
pub fn env_seed(value: &Bound<'_, PyAny>) -> PyResult<u32> {
    seed(value, "an env seed")
}

/// A run seed (the seed of the run whose results a recorder writes, the agent's): an
/// integer in `0..=4294967295`, as the command line's `--seed` takes.
pub fn run_seed(value: &Bound<'_, PyAny>) -> PyResult<u32> {
    seed(value, "a run seed")
}

fn seed(value: &Bound<'_, PyAny>, what: &str) -> PyResult<u32> {
    value.extract::<u32>().map_err(|_| {
        let shown = value
            .repr()
            .map_or_else(|_| "?".to_string(), |r| r.to_string());
        PyValueError::new_err(format!(
            "{what} is an integer in 0..=4294967295, not {shown}"
        ))
    })
}

/// `bsuite_info()` as a dict in the reference's key order, ints as `int` and floats as
/// `float` (the distinction decides how bsuite's CSV renders a column).
pub fn info_dict<'py>(py: Python<'py>, env: &dyn Environment) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (key, value) in env.bsuite_info() {
        match value {
            InfoValue::Int(v) => dict.set_item(key, v)?,
            InfoValue::Float(v) => dict.set_item(key, v)?,
        }
    }
    Ok(dict)
}

/// Locks `state` for one call. Contention means another thread is inside a call on the
/// same object (a `VecEnv` step runs without the GIL): waiting for it while holding the GIL
/// could deadlock, so that is an error instead.
pub fn lock<'a, T>(
    state: &'a Mutex<T>,
    what: &dyn std::fmt::Display,
) -> PyResult<MutexGuard<'a, T>> {
    match state.try_lock() {
        Ok(guard) => Ok(guard),
        // Nothing panics while holding the lock; should something, the state is still whole.
        Err(TryLockError::Poisoned(poisoned)) => Ok(poisoned.into_inner()),
        Err(TryLockError::WouldBlock) => Err(PyRuntimeError::new_err(format!(
            "{what} is in use by another thread; use one environment per thread"
        ))),
    }
}

/// The native part of `bsuite_rs.Environment`: stepping, timesteps and logging. Use
/// `bsuite_rs.load_from_id` and friends, or `bsuite_rs.Environment(...)`, which adds the
/// dm_env specs and base class.
#[pyclass(module = "bsuite_rs._core", name = "Env", subclass, weakref, frozen)]
pub struct Env {
    id: BsuiteId,
    /// The env seed it was loaded with (the default one included), for pickling.
    env_seed: u32,
    state: Mutex<State>,
}

/// What a step changes.
struct State {
    /// `None` only while `close` swaps it for its logger-less self.
    backend: Option<Backend>,
    timestep: TimeStep,
    /// The observation arrays handed out, recycled once dropped.
    observations: ArrayPool<f32>,
    closed: bool,
    /// What it was given since it was loaded: its state, for pickling and copying (not kept
    /// while it records, or once closed).
    history: History,
}

impl State {
    fn backend(&self) -> &Backend {
        self.backend.as_ref().expect("close puts the backend back")
    }

    fn backend_mut(&mut self) -> &mut Backend {
        self.backend.as_mut().expect("close puts the backend back")
    }

    fn check_open(&self, id: &BsuiteId) -> PyResult<()> {
        if self.closed {
            return Err(PyValueError::new_err(format!(
                "the environment of {id} is closed"
            )));
        }
        Ok(())
    }

    /// Starts an episode, leaving its first timestep in `self.timestep`.
    fn reset(&mut self, id: &BsuiteId) -> PyResult<()> {
        self.check_open(id)?;
        let timestep = &mut self.timestep;
        self.backend
            .as_mut()
            .expect("close puts the backend back")
            .env_mut()
            .reset_into(timestep);
        self.history.push(std::iter::once(snapshot::RESET));
        Ok(())
    }

    /// The latest timestep as a Python `TimeStep`.
    fn timestep<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let observation = self.observations.filled(py, &self.timestep.observation)?;
        types(py)?.timestep(py, &self.timestep, observation)
    }

    /// Steps with `action`, leaving the result in `self.timestep`.
    fn step(&mut self, py: Python<'_>, id: &BsuiteId, action: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_open(id)?;
        let action = self::action(action, self.backend().env())?;
        let timestep = &mut self.timestep;
        self.backend
            .as_mut()
            .expect("close puts the backend back")
            .env_mut()
            .step_into(action, timestep)
            .map_err(|err| errors::action_error(&err))?;
        self.history.push_actions(std::iter::once(action));
        if self.timestep.last() {
            self.backend().check_log(py)?;
        }
        Ok(())
    }
}

impl Env {
    fn lock(&self) -> PyResult<MutexGuard<'_, State>> {
        lock(&self.state, &format_args!("the environment of {}", self.id))
    }
}

#[pymethods]
impl Env {
    /// Loads `bsuite_id`. `env_seed` seeds every random generator bsuite 0.3.6 leaves
    /// unseeded (default: the setting index, so every run is reproducible); generators the
    /// reference seeds itself keep its seeds. `results_dir` logs bsuite's CSV file for the
    /// id there (`overwrite` replaces an existing one); `terminal` logs to standard error.
    /// `run_seed` names the seed of the run the results belong to (your agent's seed): the
    /// file then goes to `results_dir/seed-<run_seed>/`, and a directory of such seeds is
    /// one agent over seeds for `bsuite_rs.score` and the report.
    #[new]
    #[pyo3(signature = (bsuite_id, *, env_seed=None, results_dir=None, overwrite=false, terminal=false, run_seed=None))]
    fn new(
        py: Python<'_>,
        bsuite_id: &str,
        env_seed: Option<&Bound<'_, PyAny>>,
        results_dir: Option<PathBuf>,
        overwrite: bool,
        terminal: bool,
        run_seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let id: BsuiteId = bsuite_id.parse().map_err(|err| errors::id_error(&err))?;
        let env_seed = env_seed.map(self::env_seed).transpose()?;
        let run_seed = run_seed.map(self::run_seed).transpose()?;
        if run_seed.is_some() && results_dir.is_none() {
            return Err(PyValueError::new_err(
                "run_seed names the seed directory of results_dir that the results go to; \
                 give results_dir too",
            ));
        }
        let record = match (results_dir, terminal) {
            (Some(_), true) => {
                return Err(PyValueError::new_err(
                    "log to a results directory or to the terminal, not both",
                ))
            }
            (Some(results_dir), false) => Record::Csv {
                results_dir: recording_dir(&results_path(&results_dir, "results_dir")?, run_seed)
                    .map_err(|err| errors::layout_error(&err))?,
                overwrite,
            },
            (None, true) => Record::Terminal,
            (None, false) => Record::Off,
        };
        let env_seed = env_seed.unwrap_or_else(|| id.default_env_seed(0));
        let backend = Backend::load(py, &id, Some(env_seed), record)?;
        let shape = backend.env().observation_spec().shape;
        // A logging environment refuses to be copied, so it keeps no history.
        let history = match backend {
            Backend::Logged(_) => History::not_kept(),
            Backend::Bare(_) => History::default(),
        };
        Ok(Env {
            id,
            env_seed,
            state: Mutex::new(State {
                backend: Some(backend),
                timestep: TimeStep::default(),
                observations: ArrayPool::new(shape),
                closed: false,
                history,
            }),
        })
    }

    /// Starts a new episode and returns its FIRST `TimeStep`.
    fn reset<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut state = self.lock()?;
        state.reset(&self.id)?;
        state.timestep(py)
    }

    /// Takes `action` and returns the new `TimeStep`. After a LAST timestep (or before any
    /// reset) the action is ignored and a new episode starts, as in bsuite. An action outside
    /// `0..num_values` is a `ValueError`; a logger that fails raises `OSError` when the
    /// episode ends.
    fn step<'py>(
        &self,
        py: Python<'py>,
        action: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut state = self.lock()?;
        state.step(py, &self.id, action)?;
        state.timestep(py)
    }

    /// bsuite's scoring counters (e.g. `total_regret`) as a dict.
    fn bsuite_info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        info_dict(py, self.lock()?.backend().env())
    }

    /// The number of episodes the experiment runs for.
    #[getter]
    fn bsuite_num_episodes(&self) -> usize {
        self.id.num_episodes()
    }

    /// The bsuite_id, e.g. `"catch/0"`.
    #[getter]
    fn bsuite_id(&self) -> String {
        self.id.to_string()
    }

    /// True when the environment logs its rows (to a CSV file or the terminal); false once
    /// it is closed.
    #[getter]
    fn recording(&self) -> PyResult<bool> {
        Ok(matches!(self.lock()?.backend(), Backend::Logged(_)))
    }

    /// Waits until every logged row is in its file, raising `OSError` if logging failed.
    /// Nothing to do without logging. bsuite flushes after the experiment's last episode;
    /// call this (or `close`) after a shorter run.
    fn flush(&self, py: Python<'_>) -> PyResult<()> {
        self.lock()?.backend_mut().flush(py)
    }

    /// Flushes the log and closes the environment; stepping it afterwards is a `ValueError`.
    /// The logger is dropped at once, so the results directory and file are free for the
    /// next writer as soon as this returns. Closing twice is harmless.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let mut state = self.lock()?;
        if state.closed {
            return Ok(());
        }
        state.closed = true;
        state.history = History::not_kept();
        let flushed = state.backend_mut().flush(py);
        state.backend = state.backend.take().map(Backend::release);
        flushed
    }

    /// `(shape, name, num_actions, action_dtype, environment name)`, from which the Python
    /// class builds dm_env's specs.
    fn _spec_parts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let state = self.lock()?;
        let env = state.backend().env();
        let observation = env.observation_spec();
        let action = env.action_spec();
        (
            PyTuple::new(py, &observation.shape)?,
            observation.name,
            action.num_actions,
            action.dtype,
            env.name(),
        )
            .into_pyobject(py)
    }

    /// Gymnasium's `reset`: the first observation of a new episode.
    fn _gym_reset<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut state = self.lock()?;
        let state = &mut *state;
        state.reset(&self.id)?;
        Ok(state
            .observations
            .filled(py, &state.timestep.observation)?
            .into_any())
    }

    /// Gymnasium's `step` without the info dict: `(observation, reward, terminated,
    /// truncated)`. bsuite ends every episode with discount 0, so `truncated` is false for
    /// bsuite's environments; stepping after the end starts a new episode with reward 0.
    fn _gym_step<'py>(
        &self,
        py: Python<'py>,
        action: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let mut state = self.lock()?;
        let state = &mut *state;
        state.step(py, &self.id, action)?;
        let ts = &state.timestep;
        let ended = ts.last();
        let discount = ts.discount.unwrap_or(1.0);
        (
            state.observations.filled(py, &ts.observation)?,
            ts.reward_or_zero(),
            ended && discount == 0.0,
            ended && discount != 0.0,
        )
            .into_pyobject(py)
    }

    /// Pickling (and `copy.copy`, `copy.deepcopy`): `(restore, (class, bsuite_id, env_seed,
    /// history))`, from which `bsuite_rs._pickle.restore` rebuilds this state exactly (see
    /// `snapshot.rs`). A logging or closed environment refuses.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.get();
        let state = this.lock()?;
        let what = format_args!("the environment of {}", this.id);
        if let Backend::Logged(_) = state.backend() {
            return Err(PyTypeError::new_err(format!(
                "{what} logs its results (to a CSV file or the terminal) and cannot be \
                 pickled or copied: a copy would log the same episodes again. Copy an \
                 environment loaded without logging"
            )));
        }
        if state.closed {
            return Err(PyValueError::new_err(format!(
                "{what} is closed and cannot be pickled or copied"
            )));
        }
        let history = state.history.bytes(&what).map_err(PyValueError::new_err)?;
        let restore = py.import("bsuite_rs._pickle")?.getattr("restore_env")?;
        let args = (
            slf.get_type(),
            this.id.to_string(),
            this.env_seed,
            PyBytes::new(py, history),
        );
        (restore, args).into_pyobject(py)
    }

    /// Replays a pickled history into this freshly loaded environment.
    fn _replay(&self, history: &[u8]) -> PyResult<()> {
        let mut state = self.lock()?;
        let state = &mut *state;
        let what = format_args!("the environment of {}", self.id);
        let timestep = &mut state.timestep;
        let env = state
            .backend
            .as_mut()
            .expect("close puts the backend back")
            .env_mut();
        snapshot::replay(env, history, 0, 1, timestep)
            .map_err(|err| snapshot::replay_error(&what, &err))?;
        state.history = History::from_bytes(history);
        Ok(())
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let class = slf.get_type().qualname()?;
        let this = slf.get();
        let state = this.lock()?;
        let mode = match (state.backend(), state.closed) {
            (_, true) => ", closed",
            (Backend::Logged(_), false) => ", recording",
            (Backend::Bare(_), false) => "",
        };
        Ok(format!("<{class} {}{mode}>", this.id))
    }
}
