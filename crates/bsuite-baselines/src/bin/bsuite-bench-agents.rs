//! `bsuite-bench-agents`: CPU time per agent step (select_action + env step + update) of
//! the LibTorch agents: one agent at a time, batched as the runner batches them (lockstep
//! batches of the agent's default `--batch-size`) and, for the record, as one lockstep batch
//! of all ids; each next to its hardware floor (a cost model of the agent's arithmetic and
//! memory traffic over rates measured in the same run) and, with `--python`, next to
//! bsuite 0.3.6's own JAX agent. Run it through `cargo xtask bench agents`, which builds it
//! optimised against LibTorch.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

use bsuite_baselines::agents::{ActorCriticConfig, ActorCriticRnnConfig, BootDqnConfig, DqnConfig};
use bsuite_baselines::config::AgentConfig;
use bsuite_baselines::estimate::{cpu_seconds, time_lockstep};
use bsuite_baselines::factory::{self, AgentEntry, AgentSetup, ComputeDevice};
use bsuite_baselines::host::{probe_adam, probe_matmul_256, probe_sum};
use bsuite_baselines::{BatchAgent, OneByOne};
use bsuite_envs::{BsuiteId, Environment};
use clap::Parser;
use tch::{Device, Kind, Tensor};

/// Agent cost per step on bsuite ids: alone, batched where the agent batches, their
/// floors, and optionally the JAX reference.
#[derive(Parser, Debug)]
#[command(name = "bsuite-bench-agents")]
struct Args {
    /// Agents to time (by name): one agent alone on the first id, and agents that batch
    /// also over all ids, in the runner's batches and in one lockstep batch.
    #[arg(long, num_args = 1.., default_values_t = ["dqn".to_string(), "boot_dqn".to_string(), "actor_critic".to_string(), "actor_critic_rnn".to_string()])]
    agents: Vec<String>,
    /// Ids to time them on: ids, experiments or tags (default: catch, its 20 seeds).
    #[arg(long, num_args = 1.., default_values_t = [bsuite_envs::experiments::catch::EXPERIMENT.name.to_string()])]
    ids: Vec<String>,
    /// Ids actor_critic_rnn is also timed on (its own experiment).
    #[arg(long, num_args = 1.., default_values_t = [bsuite_envs::experiments::memory_len::EXPERIMENT.name.to_string()])]
    rnn_ids: Vec<String>,
    /// Agent steps run before timing starts (past the replay warm-up, so SGD runs every
    /// step).
    #[arg(long, default_value_t = 500)]
    warmup: usize,
    /// Timed agent steps (per replica when batched).
    #[arg(long, default_value_t = 3000)]
    steps: usize,
    /// Print `{"agents": {"<agent>": {"single_us", "batched_us", "floor_us", "python_us",
    /// ...}}, "machine": {...}}` (CPU microseconds per agent step) instead of a table.
    #[arg(long)]
    json: bool,
    /// Also time bsuite 0.3.6's JAX `default_agent` of each agent on the first id with this
    /// interpreter (the venv of `tools/reference/setup_jax_agents.sh`).
    #[arg(long, value_name = "PYTHON")]
    python: Option<PathBuf>,
}

fn setup(id: BsuiteId, entry: &AgentEntry) -> (Box<dyn Environment>, AgentSetup) {
    let env = id.load().expect("registry ids load");
    // The agent's default configuration, with seed 0.
    let mut config = AgentConfig::new(entry.name, entry.keys);
    if config.has("seed") {
        config.set("seed", "0").expect("seed 0 is a seed");
    }
    let setup = AgentSetup {
        id,
        observation_spec: env.observation_spec(),
        action_spec: env.action_spec(),
        seed: 0,
        config,
        device: ComputeDevice::Cpu,
    };
    (env, setup)
}

/// What a timed run measured.
#[derive(Clone, Copy)]
struct Timing {
    /// CPU microseconds per agent step, over all replicas.
    us_per_step: f64,
    /// Agent steps per episode during the warm-up.
    episode_len: f64,
    /// The fraction of nonzero observation entries seen.
    density: f64,
}

/// Times `ids` in lockstep batches of `size` replicas, one batch after another as the
/// runner runs them: `steps` rounds of each batch after `warmup` rounds, the CPU time of
/// all batches over all their agent steps.
fn time_batches(entry: &AgentEntry, ids: &[BsuiteId], size: usize, args: &Args) -> Timing {
    let (mut seconds, mut steps, mut episodes, mut density) = (0.0, 0, 0, 0.0);
    let batches = ids.chunks(size.max(1));
    let count = batches.len();
    for batch in batches {
        let (mut envs, setups): (Vec<_>, Vec<_>) = batch.iter().map(|&id| setup(id, entry)).unzip();
        let mut agent: Box<dyn BatchAgent> = match &entry.batching {
            Some(batching) if setups.len() > 1 => (batching.make)(&setups),
            _ => Box::new(OneByOne(vec![(entry.make)(&setups[0])])),
        };
        let timing = time_lockstep(&mut *agent, &mut envs, args.warmup, args.steps);
        seconds += timing.seconds;
        steps += timing.agent_steps;
        episodes += timing.warmup_episodes;
        density += timing.nonzero_fraction / count as f64;
    }
    Timing {
        us_per_step: seconds * 1e6 / steps.max(1) as f64,
        episode_len: (args.warmup * ids.len()) as f64 / episodes.max(1) as f64,
        density,
    }
}

/// The work one agent step of one replica needs: the products' floating-point operations
/// and the bytes they move to and from wherever their data lives, and the optimiser's
/// phase, which waits for the products' gradients and so cannot overlap them.
#[derive(Clone, Copy, Debug, Default)]
struct Cost {
    flops: f64,
    /// Bytes a step touches first: read from (and written back to) the level the whole
    /// batch's working sets fit in, since in a lockstep batch every other replica's step
    /// runs between two of this replica's.
    streamed_bytes: f64,
    /// Bytes read again within the same step (a weight read by the forward pass and again
    /// by the backward), from the level one replica's working set fits in.
    reread_bytes: f64,
    /// Bytes of a recurrent matrix read again at every row of an unroll, forward and
    /// backward, from the level the matrix itself fits in: between two of its reads a row
    /// touches only it and that row's activations.
    recurrent_bytes: f64,
    /// The recurrent matrix's own bytes (0 without one).
    recurrent_set: f64,
    /// Bytes of the replica's parameters, gradients and Adam moments.
    working_set: f64,
    /// Parameters Adam updates (per agent step): each costs a square root and a division,
    /// and [`OPTIMIZER_BYTES_PER_PARAM`] bytes moved.
    optimizer_params: f64,
}

/// A dense network's multiply-adds per row and its parameter count; `density` scales the
/// first layer, whose zero inputs the agents skip.
fn mlp(sizes: &[usize], density: f64) -> (f64, f64) {
    let mut macs = 0.0;
    let mut params = 0.0;
    for (i, pair) in sizes.windows(2).enumerate() {
        let scale = if i == 0 { density } else { 1.0 };
        macs += (pair[0] * pair[1]) as f64 * scale;
        params += (pair[0] * pair[1] + pair[1]) as f64;
    }
    (macs, params)
}

/// Bytes an SGD step's products touch first per parameter: the weight read (4) and its
/// gradient written (4).
const SGD_STREAMED_BYTES_PER_PARAM: f64 = 8.0;
/// Bytes an SGD step's products read again per parameter: the weight, by the backward pass.
const SGD_REREAD_BYTES_PER_PARAM: f64 = 4.0;
/// A replica's bytes per parameter: the weight, its gradient and two Adam moments.
const WORKING_SET_BYTES_PER_PARAM: f64 = 16.0;
/// Bytes Adam moves per parameter: the weight, its gradient and both moments read, and
/// each written back (the gradient zeroed for the next step).
const OPTIMIZER_BYTES_PER_PARAM: f64 = 32.0;

/// The cost model of `agent` per agent step on an id with these sizes; `None` for agents
/// without one.
fn cost_model(
    agent: &str,
    obs_len: usize,
    actions: usize,
    episode_len: f64,
    density: f64,
) -> Option<Cost> {
    let f = |x: usize| x as f64;
    match agent {
        "dqn" | "boot_dqn" => {
            let (members, hidden, batch, mask_prob) = if agent == "dqn" {
                let c = DqnConfig::default();
                (1.0, c.hidden, c.batch_size, 1.0)
            } else {
                let c = BootDqnConfig::default();
                (
                    f(c.num_ensemble),
                    c.base.hidden,
                    c.base.batch_size,
                    c.mask_prob,
                )
            };
            // Unpadded widths (padding is the engine's, not the maths').
            let mut sizes = vec![obs_len];
            sizes.extend(hidden);
            sizes.push(actions);
            let (macs, params) = mlp(&sizes, density);
            // A member learns from the samples its bootstrap mask takes only.
            let rows = f(batch) * mask_prob;
            // Acting: one member's forward. SGD every step, per member: online and target
            // forwards of its rows, the backward (weight and input gradients), then Adam
            // as a phase of its own. The target network is read once too; the replay's
            // sampled rows are not counted.
            let sgd_flops = 2.0 * macs * rows * 2.0 + 4.0 * macs * rows;
            Some(Cost {
                flops: 2.0 * macs + members * sgd_flops,
                streamed_bytes: 4.0 * params
                    + members * (SGD_STREAMED_BYTES_PER_PARAM + 4.0) * params,
                reread_bytes: members * SGD_REREAD_BYTES_PER_PARAM * params,
                working_set: (WORKING_SET_BYTES_PER_PARAM + 4.0) * params * members,
                optimizer_params: members * params,
                ..Cost::default()
            })
        }
        "actor_critic" | "actor_critic_rnn" => {
            let rnn = agent == "actor_critic_rnn";
            let (base, lstm) = if rnn {
                let c = ActorCriticRnnConfig::default();
                (c.base, c.lstm_size)
            } else {
                (ActorCriticConfig::default(), 0)
            };
            let hidden = base.hidden;
            let mut torso = vec![obs_len];
            torso.extend(&hidden);
            let width = *torso.last().expect("a torso");
            let (torso_macs, torso_params) = mlp(&torso, density);
            let head_in = if rnn { lstm } else { width };
            let (head_macs, head_params) = mlp(&[head_in, actions + 1], 1.0);
            let (lstm_macs, lstm_params) = mlp(&[width + lstm, 4 * lstm], 1.0);
            let (macs, params) = (
                torso_macs + head_macs + lstm_macs,
                torso_params + head_params + lstm_params,
            );
            // One SGD step per trajectory of T transitions (T + 1 rows).
            let t = episode_len.clamp(1.0, base.sequence_length as f64);
            let rows = t + 1.0;
            let sgd_flops = 2.0 * macs * rows + 4.0 * macs * rows;
            // The recurrent weights are read again for every row, forward and backward.
            let recurrent_set = 4.0 * f(lstm * 4 * lstm);
            let recurrent_bytes = recurrent_set * 2.0 * (rows - 1.0);
            Some(Cost {
                flops: 2.0 * macs + sgd_flops / t,
                streamed_bytes: 4.0 * params + SGD_STREAMED_BYTES_PER_PARAM * params / t,
                reread_bytes: SGD_REREAD_BYTES_PER_PARAM * params / t,
                recurrent_bytes: recurrent_bytes / t,
                recurrent_set,
                working_set: WORKING_SET_BYTES_PER_PARAM * params,
                optimizer_params: params / t,
            })
        }
        _ => None,
    }
}

/// Trials of each rate [`Machine`] measures; it keeps the fastest, the rate the machine
/// can reach (a single trial read L3 at half speed in some runs here, as cloud neighbours
/// come and go).
const TRIALS: usize = 3;

/// The fastest of [`TRIALS`] runs of `f`, which returns a rate.
fn fastest(mut f: impl FnMut() -> f64) -> f64 {
    (0..TRIALS).map(|_| f()).fold(0.0, f64::max)
}

/// This CPU's rates on one thread, measured now.
struct Machine {
    /// Single-precision matrix multiply (256³), FLOP/s: the faster of LibTorch's and the
    /// host kernel the DQN agents use.
    matmul_flops: f64,
    /// Adam's parameter updates per second over a set in the L1 cache (the host kernel).
    adam_params_per_s: f64,
    /// Read bandwidth, B/s, by working-set size in bytes (cached by size).
    bandwidth: BTreeMap<u64, f64>,
}

impl Machine {
    fn measure() -> Self {
        tch::set_num_threads(1);
        let a = Tensor::randn([256, 256], (Kind::Float, Device::Cpu));
        let b = Tensor::randn([256, 256], (Kind::Float, Device::Cpu));
        let _ = a.mm(&b);
        let reps = 200;
        let libtorch = fastest(|| {
            let seconds = cpu_seconds(|| {
                for _ in 0..reps {
                    let _ = a.mm(&b);
                }
            });
            2.0 * 256f64.powi(3) * f64::from(reps) / seconds
        });
        let host = fastest(|| {
            let mut flops = 0.0;
            let seconds = cpu_seconds(|| flops = probe_matmul_256(reps));
            flops / seconds
        });
        // 2048 parameters: weights, gradients and moments, 32 KB.
        let adam_params_per_s = fastest(|| {
            let mut updates = 0.0;
            let seconds = cpu_seconds(|| updates = probe_adam(2048, 2000));
            updates / seconds
        });
        Machine {
            matmul_flops: libtorch.max(host),
            adam_params_per_s,
            bandwidth: BTreeMap::new(),
        }
    }

    /// The read bandwidth over a working set of `bytes` (whole 4 KB pages): the host
    /// kernels' widest loads sum a buffer of that size again and again, so it is read from
    /// the cache level it fits in. (LibTorch's `sum` over a repeating view, used before,
    /// read a 4 MB set at either 84 or 168 GB/s from one run to the next.)
    fn bandwidth(&mut self, bytes: f64) -> f64 {
        let bytes = (bytes.max(16.0 * 1024.0) as u64).div_ceil(4096) * 4096;
        *self.bandwidth.entry(bytes).or_insert_with(|| {
            let xs = vec![1.0f32; (bytes / 4) as usize];
            let passes = ((640 << 20) / bytes).max(1);
            std::hint::black_box(probe_sum(&xs));
            fastest(|| {
                let seconds = cpu_seconds(|| {
                    for _ in 0..passes {
                        std::hint::black_box(probe_sum(std::hint::black_box(&xs)));
                    }
                });
                (bytes * passes) as f64 / seconds
            })
        })
    }

    /// The floor of a step of a replica in a lockstep batch of `replicas`: the larger of
    /// the products' arithmetic time and their memory time (and which of the two it is),
    /// plus the optimiser's phase, the larger of its arithmetic and its traffic to where
    /// the batch's working sets fit.
    fn floor(&mut self, cost: Cost, replicas: usize) -> (f64, &'static str) {
        let batch_set = cost.working_set * replicas as f64;
        let compute = cost.flops / self.matmul_flops;
        let mut memory = cost.streamed_bytes / self.bandwidth(batch_set)
            + cost.reread_bytes / self.bandwidth(cost.working_set);
        if cost.recurrent_bytes > 0.0 {
            memory += cost.recurrent_bytes / self.bandwidth(cost.recurrent_set);
        }
        let optimizer = (cost.optimizer_params / self.adam_params_per_s)
            .max(cost.optimizer_params * OPTIMIZER_BYTES_PER_PARAM / self.bandwidth(batch_set));
        let bound = if compute >= memory {
            "compute"
        } else {
            "memory"
        };
        ((compute.max(memory) + optimizer) * 1e6, bound)
    }
}

/// One agent's figures.
#[derive(Default)]
struct AgentReport {
    single_us: Option<f64>,
    /// The runner's batches of `batch_size`.
    batched_us: Option<f64>,
    batch_size: Option<usize>,
    /// All ids in one lockstep batch (the batched run itself where the runner's batch
    /// holds them all).
    lockstep_us: Option<f64>,
    floor_us: Option<f64>,
    /// The floor of a replica in the lockstep batch of all ids.
    lockstep_floor_us: Option<f64>,
    bound: Option<&'static str>,
    lockstep_bound: Option<&'static str>,
    python_us: Option<f64>,
    /// Extra rows (e.g. actor_critic_rnn on memory_len): label -> its timings.
    extra: Vec<(String, Runs)>,
}

fn select(selectors: &[String]) -> Result<Vec<BsuiteId>, String> {
    let mut ids = Vec::new();
    for selector in selectors {
        ids.extend(bsuite_envs::select(selector).map_err(|e| e.to_string())?);
    }
    if ids.is_empty() {
        return Err("no ids selected".to_string());
    }
    Ok(ids)
}

/// One agent's timings over a set of ids.
struct Runs {
    /// Alone, on the first id.
    single: Timing,
    /// As the runner batches the ids, and the batch size; `None` for agents that do not
    /// batch.
    batched: Option<(Timing, usize)>,
    /// One lockstep batch of all ids (the runner's batch where it holds them all).
    lockstep: Option<Timing>,
}

fn time_agent(name: &str, ids: &[BsuiteId], args: &Args) -> Result<Runs, String> {
    let entry = factory::agent(name).map_err(|e| e.to_string())?;
    let single = time_batches(&entry, &ids[..1], 1, args);
    let Some(batching) = entry.batching.as_ref().filter(|_| ids.len() > 1) else {
        return Ok(Runs {
            single,
            batched: None,
            lockstep: None,
        });
    };
    let size = batching.default_size;
    let batched = time_batches(&entry, ids, size, args);
    let lockstep = if size < ids.len() {
        time_batches(&entry, ids, ids.len(), args)
    } else {
        batched
    };
    Ok(Runs {
        single,
        batched: Some((batched, size)),
        lockstep: Some(lockstep),
    })
}

/// Microseconds per agent step of bsuite's JAX agent `name` on `id`.
fn python_us(python: &PathBuf, name: &str, id: BsuiteId) -> Result<f64, String> {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tools/reference/jax_agent.py"
    );
    // boot_dqn trains from its 128th transition on, and is slow: fewer, later episodes.
    let (episodes, warmup) = if name == "boot_dqn" {
        ("30", "20")
    } else {
        ("200", "20")
    };
    let output = Command::new(python)
        .args([script, "bench", "--agent", name, "--id", &id.to_string()])
        .args(["--episodes", episodes, "--warmup", warmup])
        .output()
        .map_err(|e| format!("running {}: {e}", python.display()))?;
    if !output.status.success() {
        return Err(format!(
            "{} {script} bench --agent {name} failed: {}",
            python.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text.lines().last().unwrap_or_default();
    let key = "\"cpu_us_per_step\":";
    let value = line
        .split_once(key)
        .and_then(|(_, rest)| rest.split([',', '}']).next())
        .and_then(|v| v.trim().parse::<f64>().ok())
        .ok_or_else(|| format!("no {key} in the JAX bench output: {line}"))?;
    Ok(value)
}

fn json_number(x: Option<f64>) -> String {
    x.map_or("null".to_string(), |x| format!("{x:.3}"))
}

fn run(args: Args) -> Result<(), String> {
    let ids = select(&args.ids)?;
    let rnn_ids = select(&args.rnn_ids)?;
    let mut machine = Machine::measure();
    let mut reports: Vec<(String, AgentReport)> = Vec::new();
    for name in &args.agents {
        let runs = time_agent(name, &ids, &args)?;
        let mut report = AgentReport {
            single_us: Some(runs.single.us_per_step),
            batched_us: runs.batched.map(|(t, _)| t.us_per_step),
            batch_size: runs.batched.map(|(_, size)| size),
            lockstep_us: runs.lockstep.map(|t| t.us_per_step),
            ..AgentReport::default()
        };
        let env = ids[0].load().expect("registry ids load");
        let obs_len = env.observation_spec().len();
        let actions = env.action_spec().num_actions;
        let (episode_len, density) = (runs.single.episode_len, runs.single.density);
        if let Some(cost) = cost_model(name, obs_len, actions, episode_len, density) {
            let (floor, bound) = machine.floor(cost, 1);
            (report.floor_us, report.bound) = (Some(floor), Some(bound));
            if runs.lockstep.is_some() {
                let (floor, bound) = machine.floor(cost, ids.len());
                (report.lockstep_floor_us, report.lockstep_bound) = (Some(floor), Some(bound));
            }
        }
        if name == "actor_critic_rnn" {
            report
                .extra
                .push((args.rnn_ids.join(" "), time_agent(name, &rnn_ids, &args)?));
        }
        if let Some(python) = &args.python {
            report.python_us = Some(python_us(python, name, ids[0])?);
        }
        reports.push((name.clone(), report));
    }
    let bandwidths: Vec<String> = machine
        .bandwidth
        .iter()
        .map(|(bytes, bw)| format!("\"{bytes}\": {:.2}", bw / 1e9))
        .collect();
    let us = |t: Option<Timing>| t.map(|t| t.us_per_step);
    if args.json {
        let bound = |b: Option<&str>| b.map_or("null".to_string(), |b| format!("\"{b}\""));
        let agents: Vec<String> = reports
            .iter()
            .map(|(name, r)| {
                let mut fields = vec![
                    format!("\"single_us\": {}", json_number(r.single_us)),
                    format!("\"batched_us\": {}", json_number(r.batched_us)),
                    format!(
                        "\"batch_size\": {}",
                        r.batch_size.map_or("null".to_string(), |n| n.to_string())
                    ),
                    format!("\"lockstep_us\": {}", json_number(r.lockstep_us)),
                    format!("\"floor_us\": {}", json_number(r.floor_us)),
                    format!(
                        "\"lockstep_floor_us\": {}",
                        json_number(r.lockstep_floor_us)
                    ),
                    format!("\"python_us\": {}", json_number(r.python_us)),
                    format!("\"bound\": {}", bound(r.bound)),
                    format!("\"lockstep_bound\": {}", bound(r.lockstep_bound)),
                ];
                for (label, runs) in &r.extra {
                    fields.push(format!(
                        "\"{label}\": {{\"single_us\": {}, \"batched_us\": {}, \"lockstep_us\": {}}}",
                        json_number(Some(runs.single.us_per_step)),
                        json_number(us(runs.batched.map(|(t, _)| t))),
                        json_number(us(runs.lockstep)),
                    ));
                }
                format!("\"{name}\": {{{}}}", fields.join(", "))
            })
            .collect();
        bsuite_baselines::outln!(
            "{{\"ids\": \"{}\", \"agents\": {{{}}}, \"machine\": {{\"matmul_gflops\": {:.2}, \"adam_ns_per_param\": {:.3}, \"read_gbs_by_bytes\": {{{}}}}}}}",
            ids[0],
            agents.join(", "),
            machine.matmul_flops / 1e9,
            1e9 / machine.adam_params_per_s,
            bandwidths.join(", ")
        );
        return Ok(());
    }
    bsuite_baselines::outln!(
        "CPU us per agent step (select + env step + update), one thread; single: {} alone; \
         batched: {} ids in the runner's batches of `batch`; lockstep: all {} in one batch",
        ids[0],
        ids.len(),
        ids.len()
    );
    bsuite_baselines::outln!(
        "machine: matmul {:.1} GFLOP/s; Adam {:.2} ns a parameter; read GB/s by working set: {}",
        machine.matmul_flops / 1e9,
        1e9 / machine.adam_params_per_s,
        bandwidths.join(", ")
    );
    bsuite_baselines::outln!(
        "{:<18} {:>8} {:>8} {:>5} {:>8} {:>8} {:>8} {:>10} {:>8} {:>9} {:>9} {:>8}",
        "agent",
        "single",
        "batched",
        "batch",
        "floor",
        "bound",
        "lockstep",
        "lk floor",
        "python",
        "vs floor",
        "lk/floor",
        "vs JAX"
    );
    let fmt = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.1}"));
    let ratio = |num: Option<f64>, den: Option<f64>| match (num, den) {
        (Some(n), Some(d)) => format!("{:.2}x", n / d),
        _ => "-".to_string(),
    };
    for (name, r) in &reports {
        let best = match (r.single_us, r.batched_us) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        bsuite_baselines::outln!(
            "{:<18} {:>8} {:>8} {:>5} {:>8} {:>8} {:>8} {:>10} {:>8} {:>9} {:>9} {:>8}",
            name,
            fmt(r.single_us),
            fmt(r.batched_us),
            r.batch_size.map_or("-".to_string(), |n| n.to_string()),
            fmt(r.floor_us),
            r.bound.unwrap_or("-"),
            fmt(r.lockstep_us),
            format!(
                "{} {}",
                fmt(r.lockstep_floor_us),
                r.lockstep_bound.map_or("", |b| &b[..3])
            ),
            fmt(r.python_us),
            ratio(best, r.floor_us),
            ratio(r.lockstep_us, r.lockstep_floor_us),
            ratio(r.python_us, best),
        );
        for (label, runs) in &r.extra {
            bsuite_baselines::outln!(
                "  {:<16} {:>8} {:>8} {:>5} {:>8} {:>8} {:>8}",
                label,
                fmt(Some(runs.single.us_per_step)),
                fmt(us(runs.batched.map(|(t, _)| t))),
                "",
                "",
                "",
                fmt(us(runs.lockstep))
            );
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
