//! Scores and reports of results directories, computed without the GIL.

use std::path::PathBuf;

use bsuite_analysis::score_json::seeded_json;
use bsuite_analysis::seeds::{SeededAgent, SeedsError};
use bsuite_analysis::stats::Bootstrap;
use bsuite_analysis::{Score, Summary};
use bsuite_report::report::is_within;
use pyo3::exceptions::{PyUserWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::errors;

/// Warns (`UserWarning`) about each file a results directory skipped.
fn warn(py: Python<'_>, warnings: &[impl ToString]) -> PyResult<()> {
    let category = py.get_type::<PyUserWarning>();
    for warning in warnings {
        let message = std::ffi::CString::new(warning.to_string().replace('\0', "?"))
            .map_err(|err| PyValueError::new_err(err.to_string()))?;
        PyErr::warn(py, &category, &message, 1)?;
    }
    Ok(())
}

fn score_value(py: Python<'_>, score: Score) -> PyResult<Py<PyAny>> {
    Ok(match score {
        Score::Value(v) => v.into_pyobject(py)?.into_any().unbind(),
        Score::Undefined(_) => py.None(),
    })
}

/// The scores as `cargo xtask score --json` prints them (the keys of bsuite's scorer).
fn summary_dict<'py>(py: Python<'py>, summary: &Summary) -> PyResult<Bound<'py, PyDict>> {
    let experiments = PyDict::new(py);
    let finished = PyDict::new(py);
    for e in &summary.experiments {
        experiments.set_item(e.experiment.name, score_value(py, e.score)?)?;
        finished.set_item(e.experiment.name, e.progress.finished())?;
    }
    let tags = PyDict::new(py);
    for t in &summary.tags {
        tags.set_item(t.tag.as_str(), score_value(py, t.score)?)?;
    }
    let ids = PyDict::new(py);
    for s in &summary.ids {
        ids.set_item(s.id.to_string(), score_value(py, s.score)?)?;
    }
    let out = PyDict::new(py);
    out.set_item("experiments", experiments)?;
    out.set_item("finished", finished)?;
    out.set_item("tags", tags)?;
    out.set_item("ids", ids)?;
    Ok(out)
}

/// bsuite's scores of a results directory: `{"experiments": {name: score}, "finished":
/// {name: bool}, "tags": {tag: score}, "ids": {bsuite_id: score}}`, the keys of `cargo xtask
/// score --json`; a score bsuite leaves undefined (NaN) is `None`. A directory of
/// `seed-<s>/` results directories is one agent over seeds: the same keys hold means over
/// seeds, and `seeds`, `per_seed` and `intervals` are added, as `score --json` prints them
/// (`bootstrap_seed` and `reps` draw the intervals). A malformed file is a `ValueError`
/// naming file and line (`lenient=True` skips it with a warning); seeds of different runs a
/// `ValueError` naming them; a directory that cannot be read, or holds no results, an
/// `OSError`.
///
/// `reps` is a whole number from 1,000 to 1,000,000, as the command line's `--reps` (fewer
/// make an interval's ends a handful of draws; more cost memory for nothing), and
/// `bootstrap_seed` one in `0..=4294967295` (`ValueError` otherwise). Warnings name what is
/// left unread and each seed whose unfinished overwrite leaves another run's files.
#[pyfunction]
#[pyo3(signature = (results_dir, *, lenient=false, reps=None, bootstrap_seed=None))]
pub fn score<'py>(
    py: Python<'py>,
    results_dir: PathBuf,
    lenient: bool,
    reps: Option<&Bound<'py, PyAny>>,
    bootstrap_seed: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let reps = match reps {
        Some(reps) => replicates(reps)?,
        None => Bootstrap::default().reps,
    };
    let bootstrap_seed = match bootstrap_seed {
        Some(seed) => seed.extract::<u32>().map_err(|_| {
            PyValueError::new_err(format!(
                "bootstrap_seed is an integer in 0..=4294967295, not {}",
                shown(seed)
            ))
        })?,
        None => Bootstrap::default().seed,
    };
    let settings = Bootstrap {
        reps,
        seed: bootstrap_seed,
        confidence: 0.95,
    };
    let (agent, summary) = py
        .detach(|| {
            let agent = SeededAgent::load("agent", &results_dir, lenient)?;
            let summary = agent.summarize();
            Ok::<_, SeedsError>((agent, summary))
        })
        .map_err(|err| seeds_error(&err))?;
    // What the command line's readers warn of: files and directories left unread, and
    // each seed whose unfinished overwrite leaves files of another run.
    warn(py, &agent.warnings())?;
    if let [(_, only)] = summary.seeds.as_slice() {
        return Ok(summary_dict(py, only)?.into_any());
    }
    let json = py.detach(|| seeded_json(&summary, &settings).to_string());
    py.import("json")?.call_method1("loads", (json,))
}

/// `repr(value)`, for a message.
fn shown(value: &Bound<'_, PyAny>) -> String {
    value
        .repr()
        .map_or_else(|_| "?".to_string(), |r| r.to_string())
}

/// `reps`: a whole number of at least 1 (`ValueError` otherwise; `MemoryError` past what a
/// `usize` counts, which no memory could hold either).
fn replicates(reps: &Bound<'_, PyAny>) -> PyResult<usize> {
    let range = bsuite_analysis::stats::REPS;
    let bad = || {
        PyValueError::new_err(format!(
            "reps is a whole number of bootstrap replicates, {} to {}, not {}",
            range.start(),
            range.end(),
            shown(reps)
        ))
    };
    if reps.is_instance_of::<pyo3::types::PyBool>() {
        return Err(bad());
    }
    let index = reps.call_method0("__index__").map_err(|_| bad())?;
    // Past u128 is past the range too.
    let count = index.extract::<u128>().unwrap_or(u128::MAX);
    bsuite_analysis::stats::check_reps(count)
        .map_err(|err| PyValueError::new_err(format!("reps={}: {err}", shown(reps))))
}

/// A multi-seed directory that cannot be read as one agent.
fn seeds_error(err: &SeedsError) -> PyErr {
    match err {
        SeedsError::Read(read) => errors::read_error(read),
        SeedsError::List { source, .. } => {
            pyo3::exceptions::PyOSError::new_err((source.raw_os_error(), err.to_string()))
        }
        _ => PyValueError::new_err(err.to_string()),
    }
}

/// Writes the report of `results`, `(name, results directory)` pairs, into `out`: the radar
/// and bar plots, every experiment's plots (SVG and PDF), the LaTeX appendix and
/// `index.html`, as `cargo xtask report` does. A directory of `seed-<s>/` directories is one
/// agent over seeds, drawn with its intervals. Returns `{"out_dir", "files", "figures",
/// "removed", "incomplete"}`.
#[pyfunction]
#[pyo3(signature = (results, out, *, title=None, link=None, overwrite=false, lenient=false))]
pub fn report<'py>(
    py: Python<'py>,
    results: Vec<(String, PathBuf)>,
    out: PathBuf,
    title: Option<String>,
    link: Option<String>,
    overwrite: bool,
    lenient: bool,
) -> PyResult<Bound<'py, PyDict>> {
    for (_, dir) in &results {
        if is_within(&out, dir) {
            return Err(PyValueError::new_err(format!(
                "the report directory {} is inside the results directory {}; choose another \
                 out",
                out.display(),
                dir.display()
            )));
        }
    }
    // A directory of seed-<s>/ directories is one agent over seeds, as in `score`.
    let agents = py
        .detach(|| {
            results
                .iter()
                .map(|(name, dir)| SeededAgent::load(name, dir, lenient))
                .collect::<Result<Vec<_>, _>>()
        })
        .map_err(|err| seeds_error(&err))?;
    for agent in &agents {
        warn(py, &agent.warnings())?;
    }
    let mut options = bsuite_report::Options {
        link,
        overwrite,
        ..bsuite_report::Options::default()
    };
    if let Some(title) = title {
        options.title = title;
    }
    let written = py
        .detach(|| bsuite_report::write_seeded(&agents, &out, &options))
        .map_err(|err| errors::report_error(&err))?;
    // As `str`, losslessly: a path that is not valid UTF-8 comes back as `os.fsdecode`
    // would give it.
    let paths = |files: &[PathBuf]| -> Vec<std::ffi::OsString> {
        files.iter().map(|f| f.as_os_str().to_owned()).collect()
    };
    let incomplete = PyDict::new(py);
    for (agent, lines) in &written.incomplete {
        incomplete.set_item(agent, PyList::new(py, lines)?)?;
    }
    let dict = PyDict::new(py);
    dict.set_item("out_dir", written.out_dir.as_os_str())?;
    dict.set_item("files", paths(&written.files))?;
    dict.set_item("figures", written.figures)?;
    dict.set_item("removed", paths(&written.removed))?;
    dict.set_item("incomplete", incomplete)?;
    Ok(dict)
}
