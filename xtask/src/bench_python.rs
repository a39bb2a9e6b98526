//! `cargo xtask bench python`: bsuite_rs from Python against bsuite 0.3.6, side by side in
//! one interpreter (`crates/bsuite-py/bench/bench_python.py`), then the gymnasium and SB3
//! adapters against those libraries' own vector environments (`bench_adapters.py`).
//!
//! The wheel is built and installed (`pip install --target`) into `.bsuite/py-bench-site`,
//! which goes on the `PYTHONPATH` of the reference venv's interpreter, so both libraries
//! run in the same process with the same numpy.

use std::path::PathBuf;
use std::process::Command;

use anyhow::{bail, Context, Result};
use clap::Args;

use crate::libtorch::{run_status, workspace_root};
use crate::wheel;

/// Options of `cargo xtask bench python`.
#[derive(Args, Debug)]
pub struct BenchPythonArgs {
    /// An interpreter with bsuite 0.3.6 (default: .bsuite/reference-venv/bin/python, made by
    /// tools/reference/setup.sh when missing).
    #[arg(long, value_name = "PYTHON")]
    pub python: Option<PathBuf>,
    /// An interpreter with bsuite's JAX agents for the DQN drop-in check (default:
    /// .bsuite/jax-venv/bin/python when it exists, from tools/reference/setup_jax_agents.sh;
    /// the check is skipped without one).
    #[arg(long, value_name = "PYTHON")]
    pub jax_python: Option<PathBuf>,
    /// Environment steps per repeat of each single-environment loop.
    #[arg(long, default_value_t = 200_000)]
    pub steps: usize,
    /// Repeats, interleaved between the two libraries (medians are reported).
    #[arg(long, default_value_t = 5)]
    pub repeats: usize,
    /// Episodes of the DQN drop-in check.
    #[arg(long, default_value_t = 100)]
    pub dqn_episodes: usize,
    /// Print the figures as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The reference venv's interpreter, made by `tools/reference/setup.sh` if missing.
pub fn reference_python() -> Result<PathBuf> {
    let root = workspace_root();
    let python = wheel::venv_python(&root.join(".bsuite").join("reference-venv"));
    if python.exists() {
        return Ok(python);
    }
    bsuite_baselines::errln!(
        "xtask: no reference venv; running tools/reference/setup.sh (bsuite 0.3.6, once)"
    );
    let mut setup = Command::new("bash");
    setup.arg(root.join("tools/reference/setup.sh"));
    run_status(setup, "tools/reference/setup.sh")?;
    if !python.exists() {
        bail!(
            "tools/reference/setup.sh did not create {}",
            python.display()
        );
    }
    Ok(python)
}

/// Runs the benchmark.
pub fn run(args: &BenchPythonArgs) -> Result<()> {
    let python = match &args.python {
        Some(python) => python.clone(),
        None => reference_python()?,
    };
    let wheel = wheel::build(&wheel::default_out_dir())?;
    let site = workspace_root().join(".bsuite").join("py-bench-site");
    if site.exists() {
        std::fs::remove_dir_all(&site).with_context(|| format!("removing {}", site.display()))?;
    }
    let mut install = Command::new(&python);
    install
        .args(wheel::pip_install())
        .args(["--no-deps", "--target"])
        .arg(&site)
        .arg(&wheel);
    run_status(install, &format!("pip install --target {}", site.display()))?;
    let script = wheel::crate_dir().join("bench").join("bench_python.py");
    let python_path = match std::env::var_os("PYTHONPATH") {
        Some(existing) => {
            let mut paths = vec![site.clone()];
            paths.extend(std::env::split_paths(&existing));
            std::env::join_paths(paths)?
        }
        None => site.clone().into_os_string(),
    };

    let mut bench = Command::new(&python);
    bench
        .arg(&script)
        .args(["--steps", &args.steps.to_string()])
        .args(["--repeats", &args.repeats.to_string()])
        .env("PYTHONPATH", &python_path);
    if args.json {
        bench.arg("--json");
    }
    bsuite_baselines::errln!(
        "xtask: {} {} (bsuite 0.3.6 and bsuite_rs in one process)",
        python.display(),
        script.display()
    );
    run_status(bench, "bench_python.py")?;
    adapters(&wheel, args.json)?;

    let jax = args.jax_python.clone().or_else(|| {
        let default = wheel::venv_python(&workspace_root().join(".bsuite").join("jax-venv"));
        default.exists().then_some(default)
    });
    match jax {
        Some(jax) => {
            let mut dqn = Command::new(&jax);
            dqn.arg(&script)
                .args(["--agent", "dqn"])
                .args(["--episodes", &args.dqn_episodes.to_string()])
                .env("PYTHONPATH", &python_path);
            if args.json {
                dqn.arg("--json");
            }
            bsuite_baselines::errln!("xtask: bsuite's JAX DQN on both ({})", jax.display());
            run_status(dqn, "bench_python.py --agent dqn")
        }
        None => {
            bsuite_baselines::errln!(
                "xtask: no JAX venv (.bsuite/jax-venv), so bsuite's DQN drop-in check is \
                 skipped; tools/reference/setup_jax_agents.sh makes one"
            );
            Ok(())
        }
    }
}

/// The trainers' vector APIs (`bench/bench_adapters.py`): `bsuite_rs.gym.VectorEnv` beside
/// gymnasium's sync `make_vec`, and `bsuite_rs.sb3.VecEnv` beside SB3's `DummyVecEnv`, at 16
/// and 256 environments, in the test venv (gymnasium and SB3 on the CPU torch).
fn adapters(wheel: &std::path::Path, json: bool) -> Result<()> {
    let python = wheel::venv("py-test-venv", &wheel::test_requirements()?)?;
    wheel::install(&python, wheel, false)?;
    crate::py_torch::provision(&python)?;
    let script = wheel::crate_dir().join("bench").join("bench_adapters.py");
    let mut bench = Command::new(&python);
    bench.arg(&script).args(["--envs", "16", "256"]);
    if json {
        bench.arg("--json");
    }
    bsuite_baselines::errln!("xtask: the gymnasium and SB3 adapters against their own vector envs");
    run_status(bench, "bench_adapters.py")
}
