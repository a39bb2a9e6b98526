//! `cargo xtask bench ...`: throughput benchmarks, always run on optimised code.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use bsuite_envs::{BsuiteId, Environment, RandomState, TimeStep};
use bsuite_logging::record::load_and_record_to_csv;
use bsuite_logging::results::file_name;
use clap::Subcommand;

#[derive(Subcommand)]
pub enum BenchTarget {
    /// bsuite_rs from Python against bsuite 0.3.6 in one interpreter: steps/s of a Python
    /// loop over `load_from_id` on catch, deep_sea and cartpole, VecEnv over the 20 catch
    /// ids, and bsuite's own run loop and agents on both (identical CSVs). Builds the wheel;
    /// the reference venv comes from tools/reference/setup.sh.
    Python(crate::bench_python::BenchPythonArgs),
    /// Scoring speed on a full 468-id sweep directory, ours and ref_score.py's side by side.
    Score(crate::bench_score::BenchScoreArgs),
    /// CPU time per agent step (select_action + env step + update) of the four LibTorch
    /// agents on catch: one by one, batched over its 20 ids where the agent batches (and
    /// actor_critic_rnn on memory_len), each next to its floor from a cost model over the
    /// matmul rate and read bandwidth measured in the same run. Options go to
    /// bsuite-bench-agents, built against LibTorch: `--json`, `--python PATH` (bsuite's JAX
    /// agents side by side; `tools/reference/setup_jax_agents.sh` builds that venv),
    /// `--agents`, `--ids`, `--steps`, e.g. `cargo xtask bench agents --json`.
    Agents {
        /// Options of bsuite-bench-agents (default: every agent on catch).
        #[arg(
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "ARGS"
        )]
        args: Vec<std::ffi::OsString>,
    },
    /// env.step throughput, bare and with bsuite CSV logging, on the ids of
    /// tools/reference/ref_throughput.py, optionally next to the Python reference.
    Envs {
        /// Print `{"<id>": {"bare": steps_per_s, "logged": steps_per_s}}` (the schema of
        /// ref_throughput.py --json; with --python also "python_bare" and "python_logged").
        #[arg(long)]
        json: bool,
        /// Steps per repeat. Long enough that the logged run's file writes (a whole-file
        /// rewrite at each of the ~70 schedule points) are not what is measured for the
        /// fastest envs, which run 10M bare steps in under 0.1 s.
        #[arg(long, default_value_t = 10_000_000)]
        steps: usize,
        /// Repeats (the median is reported).
        #[arg(long, default_value_t = 7)]
        repeats: usize,
        /// Ids to measure (default: the reference throughput set).
        ids: Vec<String>,
        /// Also run the Python reference with this interpreter (e.g.
        /// .bsuite/reference-venv/bin/python, from tools/reference/setup.sh) and print the ratios.
        #[arg(long, value_name = "PYTHON")]
        python: Option<PathBuf>,
        /// The reference throughput script.
        #[arg(long, value_name = "PATH", default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../tools/reference/ref_throughput.py"))]
        ref_script: PathBuf,
        /// Steps per repeat for the Python reference (its own default).
        #[arg(long, default_value_t = 20_000)]
        python_steps: usize,
        /// Repeats for the Python reference.
        #[arg(long, default_value_t = 7)]
        python_repeats: usize,
    },
}

/// The ids `ref_throughput.py` measures.
pub const THROUGHPUT_IDS: [&str; 9] = [
    "catch/0",
    "deep_sea/20",
    "cartpole/0",
    "mountain_car/0",
    "memory_len/10",
    "umbrella_length/10",
    "discounting_chain/0",
    "bandit/0",
    "mnist/0",
];

/// Re-runs this command under `cargo run --release` when xtask was built without
/// optimisations, so benchmarks always measure optimised code. Returns false when the
/// caller should go on in this process.
///
/// The optimised run keeps the caller's working directory, so relative paths in the
/// arguments mean the same. Setting `XTASK_NO_REEXEC=1` runs the current build as it is
/// (tests use it to drive the debug binary directly).
pub fn reexec_optimised() -> Result<bool> {
    if !cfg!(debug_assertions) || std::env::var_os("XTASK_NO_REEXEC").is_some() {
        return Ok(false);
    }
    bsuite_baselines::errln!("xtask: building with optimisations...");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.toml");
    // Cargo names itself to what it runs; the build's cargo where it did not.
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
    let mut optimised = std::process::Command::new(cargo);
    optimised
        .args(["run", "--quiet", "--release", "--manifest-path", manifest])
        .args(["--package", "xtask", "--"])
        .args(&args);
    let status = crate::libtorch::dies_with_xtask(&mut optimised).status()?;
    if !status.success() {
        std::process::exit(status.code().unwrap_or(1));
    }
    Ok(true)
}

/// Steps per second of `steps` pre-drawn actions on `env`, resets after each LAST timestep
/// timed but not counted (the method of ref_throughput.py).
fn time_steps<E: Environment + ?Sized>(env: &mut E, actions: &[usize]) -> Result<f64> {
    let mut ts = TimeStep::default();
    let start = Instant::now();
    env.reset_into(&mut ts);
    for &a in actions {
        env.step_into(a, &mut ts)?;
        if ts.last() {
            env.reset_into(&mut ts);
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    std::hint::black_box(&ts);
    Ok(actions.len() as f64 / elapsed)
}

fn actions_for(num_actions: usize, steps: usize) -> Vec<usize> {
    let mut rng = RandomState::new(0);
    (0..steps).map(|_| rng.randint(num_actions)).collect()
}

fn median(mut rates: Vec<f64>) -> f64 {
    rates.sort_by(f64::total_cmp);
    rates[rates.len() / 2]
}

/// Median steps per second of stepping `id` with pre-drawn actions, resets after each LAST
/// timestep timed but not counted (the method of ref_throughput.py).
pub fn bare_steps_per_second(id: &BsuiteId, steps: usize, repeats: usize) -> Result<f64> {
    let mut rates = Vec::with_capacity(repeats);
    for _ in 0..repeats {
        let mut env = id.load()?;
        let actions = actions_for(env.action_spec().num_actions, steps);
        rates.push(time_steps(&mut env, &actions)?);
    }
    Ok(median(rates))
}

/// Like [`bare_steps_per_second`] with bsuite CSV logging into a fresh temporary results
/// directory per repeat (`ref_throughput.py`'s "logged"). The time includes waiting for the
/// last file write to finish.
pub fn logged_steps_per_second(id: &BsuiteId, steps: usize, repeats: usize) -> Result<f64> {
    let mut rates = Vec::with_capacity(repeats);
    for repeat in 0..repeats {
        let dir = std::env::temp_dir().join(format!(
            "bsuite-bench-{}-{}-{repeat}",
            std::process::id(),
            file_name(id)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let mut env = load_and_record_to_csv(id, &dir, false)?;
        let actions = actions_for(env.action_spec().num_actions, steps);
        let start = Instant::now();
        time_steps(&mut env, &actions)?;
        env.finish()?;
        rates.push(steps as f64 / start.elapsed().as_secs_f64());
        drop(env);
        std::fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))?;
    }
    Ok(median(rates))
}

/// Runs `ref_throughput.py --json` with `python` and returns its medians per id.
fn python_reference(
    python: &Path,
    script: &Path,
    ids: &[BsuiteId],
    steps: usize,
    repeats: usize,
) -> Result<serde_json::Value> {
    bsuite_baselines::errln!(
        "xtask: measuring the Python reference ({} --steps {steps} --repeats {repeats})...",
        script.display()
    );
    let output = std::process::Command::new(python)
        .arg(script)
        .args(["--json", "--steps", &steps.to_string()])
        .args(["--repeats", &repeats.to_string()])
        .args(ids.iter().map(|id| id.to_string()))
        .stderr(std::process::Stdio::null())
        .output()
        .with_context(|| format!("running {} {}", python.display(), script.display()))?;
    if !output.status.success() {
        bail!("{} failed with {}", script.display(), output.status);
    }
    serde_json::from_slice(&output.stdout)
        .with_context(|| format!("parsing the JSON of {}", script.display()))
}

/// Options of `cargo xtask bench envs`.
struct EnvsOptions {
    json: bool,
    steps: usize,
    repeats: usize,
    ids: Vec<String>,
    python: Option<PathBuf>,
    ref_script: PathBuf,
    python_steps: usize,
    python_repeats: usize,
}

fn bench_envs(o: EnvsOptions) -> Result<()> {
    let ids: Vec<BsuiteId> = if o.ids.is_empty() {
        THROUGHPUT_IDS
            .iter()
            .map(|s| s.parse())
            .collect::<Result<_, _>>()?
    } else {
        o.ids.iter().map(|s| s.parse()).collect::<Result<_, _>>()?
    };
    let reference = match &o.python {
        Some(python) => Some(python_reference(
            python,
            &o.ref_script,
            &ids,
            o.python_steps,
            o.python_repeats,
        )?),
        None => None,
    };
    let mut results = serde_json::Map::new();
    if !o.json {
        let _ = write!(
            bsuite_baselines::console::Stdout,
            "{:<22} {:>14} {:>14} {:>7}",
            "bsuite_id",
            "bare/s",
            "logged/s",
            "lg/bare"
        );
        if reference.is_some() {
            let _ = write!(
                bsuite_baselines::console::Stdout,
                " {:>11} {:>11} {:>9} {:>9}",
                "py bare/s",
                "py lg/s",
                "bare x",
                "logged x"
            );
        }
        bsuite_baselines::outln!();
    }
    for id in &ids {
        let bare = bare_steps_per_second(id, o.steps, o.repeats)?;
        let logged = logged_steps_per_second(id, o.steps, o.repeats)?;
        let mut entry = serde_json::json!({ "bare": bare, "logged": logged });
        let py = reference.as_ref().map(|r| {
            let get = |k: &str| r[id.to_string()][k].as_f64().unwrap_or(f64::NAN);
            (get("bare"), get("logged"))
        });
        if let Some((py_bare, py_logged)) = py {
            entry["python_bare"] = py_bare.into();
            entry["python_logged"] = py_logged.into();
        }
        if !o.json {
            let _ = write!(
                bsuite_baselines::console::Stdout,
                "{:<22} {bare:>14.0} {logged:>14.0} {:>7.2}",
                id.to_string(),
                logged / bare
            );
            if let Some((py_bare, py_logged)) = py {
                let _ = write!(
                    bsuite_baselines::console::Stdout,
                    " {py_bare:>11.0} {py_logged:>11.0} {:>9.0} {:>9.0}",
                    bare / py_bare,
                    logged / py_logged
                );
            }
            bsuite_baselines::outln!();
        }
        results.insert(id.to_string(), entry);
    }
    if o.json {
        bsuite_baselines::outln!("{}", serde_json::to_string_pretty(&results)?);
    }
    Ok(())
}

pub fn run(target: BenchTarget) -> Result<()> {
    // The agents' benchmark is another (optimised) binary and the Python one runs the
    // (optimised) wheel: xtask's own build does not matter to them.
    let elsewhere = matches!(target, BenchTarget::Agents { .. } | BenchTarget::Python(_));
    if !elsewhere && reexec_optimised()? {
        return Ok(());
    }
    match target {
        BenchTarget::Score(args) => crate::bench_score::run(args),
        BenchTarget::Python(args) => crate::bench_python::run(&args),
        BenchTarget::Agents { args } => crate::libtorch::bench_agents(&args),
        BenchTarget::Envs {
            json,
            steps,
            repeats,
            ids,
            python,
            ref_script,
            python_steps,
            python_repeats,
        } => bench_envs(EnvsOptions {
            json,
            steps,
            repeats,
            ids,
            python,
            ref_script,
            python_steps,
            python_repeats,
        }),
    }
}
