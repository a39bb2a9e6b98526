//! bsuite-rs for Python: the native module `bsuite_rs._core` of the `bsuite-rs` wheel.
//!
//! The Python package (`python/bsuite_rs/`) is a drop-in for `import bsuite`: `load`,
//! `load_from_id`, `load_and_record*`, `sweep`, environments with dm_env's interface, a
//! gymnasium view, a vectorised [`VecEnv`](vec_env::VecEnv), and bsuite's scores and
//! reports. This crate holds what runs per step, in Rust:
//!
//! - [`env::Env`], the native base of `bsuite_rs.Environment`: it steps a `bsuite-envs`
//!   environment (optionally behind `bsuite-logging`'s CSV or terminal logger) and returns
//!   dm_env `TimeStep`s built from cached objects ([`types`]);
//! - [`vec_env::VecEnv`]: many ids per call, stepped without the GIL into the result
//!   arrays;
//! - [`settings`]: which sweep setting `load(experiment_name, kwargs)` means;
//! - [`analysis`]: `score` and `report` over `bsuite-analysis` and `bsuite-report`;
//! - [`cli::main`]: the `bsuite` command of the wheel's console script, bsuite-cli's
//!   program run in the interpreter's process;
//! - [`snapshot`]: pickling and copying, by replaying what an environment was given.
//!
//! Every error becomes a Python exception ([`errors`]): `ValueError` for bad ids, settings
//! and actions, `OSError` for files. Build the wheel with `cargo xtask wheel`.

#![deny(missing_docs)]

pub mod analysis;
pub mod cli;
pub mod env;
pub mod errors;
pub mod memory;
pub mod pool;
pub mod settings;
pub mod snapshot;
pub mod types;
pub mod vec_env;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyTuple};

use settings::KwValue;

/// The sweep as rows `(bsuite_id, experiment, settings, num_episodes, tags)` in the
/// reference's order, from which `bsuite_rs.sweep` builds `SWEEP`, `SETTINGS` and the rest.
#[pyfunction]
fn _sweep_table(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let rows = PyList::empty(py);
    for id in bsuite_envs::sweep() {
        let settings = PyDict::new(py);
        for (key, value) in id.settings() {
            match value {
                bsuite_envs::SettingValue::Int(v) => settings.set_item(key, v)?,
                bsuite_envs::SettingValue::Float(v) => settings.set_item(key, v)?,
                bsuite_envs::SettingValue::None => settings.set_item(key, py.None())?,
            }
        }
        let tags = PyTuple::new(py, id.tags().iter().map(|t| t.as_str()))?;
        rows.append((
            id.to_string(),
            id.experiment().name,
            settings,
            id.num_episodes(),
            tags,
        ))?;
    }
    Ok(rows)
}

/// `(bsuite_id, env_seed)` of the sweep setting that `experiment_name` with `kwargs`
/// describes (see [`settings`]); `env_seed` is `None` for the default seeding.
#[pyfunction]
fn _resolve_setting(
    experiment_name: &str,
    kwargs: &Bound<'_, PyDict>,
) -> PyResult<(String, Option<u32>)> {
    let mut given = Vec::with_capacity(kwargs.len());
    for (key, value) in kwargs.iter() {
        let key: String = key
            .extract()
            .map_err(|_| PyValueError::new_err("setting names must be strings"))?;
        let value = if value.is_none() {
            KwValue::None
        } else if value.is_instance_of::<PyBool>() {
            return Err(PyValueError::new_err(format!(
                "{experiment_name}: {key}={value} is not a setting value (int, float or None)"
            )));
        } else if value.is_instance_of::<PyInt>() {
            KwValue::Int(value.extract().map_err(|_| {
                PyValueError::new_err(format!("{experiment_name}: {key}={value} is too large"))
            })?)
        } else if value.is_instance_of::<PyFloat>() {
            KwValue::Float(value.extract()?)
        } else {
            return Err(PyValueError::new_err(format!(
                "{experiment_name}: {key}={} is not a setting value (int, float or None)",
                value.repr()?
            )));
        };
        given.push((key, value));
    }
    let (id, env_seed) = settings::resolve(experiment_name, &given)
        .map_err(|err| PyValueError::new_err(err.to_string()))?;
    Ok((id.to_string(), env_seed))
}

/// Raises `ValueError` with the reason when `bsuite_id` is not a bsuite_id.
#[pyfunction]
fn _check_id(bsuite_id: &str) -> PyResult<()> {
    bsuite_id
        .parse::<bsuite_envs::BsuiteId>()
        .map(drop)
        .map_err(|err| errors::id_error(&err))
}

/// The bytes the calling thread holds in Rust's heap ([`memory::thread_bytes`]): how the
/// tests see what an environment keeps per step.
#[pyfunction]
fn _heap_bytes() -> isize {
    memory::thread_bytes()
}

/// The native module `bsuite_rs._core`.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<env::Env>()?;
    m.add_class::<vec_env::VecEnv>()?;
    m.add_function(wrap_pyfunction!(analysis::score, m)?)?;
    m.add_function(wrap_pyfunction!(analysis::report, m)?)?;
    m.add_function(wrap_pyfunction!(cli::main, m)?)?;
    m.add_function(wrap_pyfunction!(_sweep_table, m)?)?;
    m.add_function(wrap_pyfunction!(_resolve_setting, m)?)?;
    m.add_function(wrap_pyfunction!(_check_id, m)?)?;
    m.add_function(wrap_pyfunction!(vec_env::_check_vec_env, m)?)?;
    m.add_function(wrap_pyfunction!(_heap_bytes, m)?)?;
    Ok(())
}
