//! `bsuite-bench-agents`: agent steps per second (select_action + env step + update) of
//! the LibTorch agents, one agent at a time and, for agents that batch, as lockstep
//! replicas side by side. Run it through `cargo xtask bench agents`, which builds it
//! optimised against LibTorch.

use std::process::ExitCode;
use std::time::Instant;

use bsuite_baselines::factory::{self, AgentSetup};
use bsuite_baselines::tch_agents::{Device, Dqn, DqnConfig};
use bsuite_baselines::{BatchAgent, OneByOne};
use bsuite_envs::{BsuiteId, Environment, TimeStep};
use clap::Parser;

/// Agent throughput on bsuite ids: one by one, and batched where the agent batches.
#[derive(Parser, Debug)]
#[command(name = "bsuite-bench-agents")]
struct Args {
    /// Agents to time (by name), one agent at a time on the first id; agents that batch
    /// also as one batch over all ids.
    #[arg(long, num_args = 1.., default_values_t = ["dqn".to_string(), "boot_dqn".to_string()])]
    agents: Vec<String>,
    /// Ids to time them on: ids, experiments or tags (default: catch, its 20 seeds).
    #[arg(long, num_args = 1.., default_values_t = ["catch".to_string()])]
    ids: Vec<String>,
    /// Agent steps run before timing starts (past the replay warm-up, so SGD runs every
    /// step).
    #[arg(long, default_value_t = 500)]
    warmup: usize,
    /// Timed agent steps (per replica when batched).
    #[arg(long, default_value_t = 3000)]
    steps: usize,
}

/// Nanoseconds this thread has run on a CPU (Linux's schedstat), so that a busy machine
/// does not distort the per-step cost; `None` elsewhere.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// Agent steps per second, by wall clock and by this thread's CPU time.
#[derive(Clone, Copy)]
struct Rate {
    wall: f64,
    cpu: Option<f64>,
}

impl Rate {
    /// The CPU-time rate where known (what an otherwise idle core gives), else the wall one.
    fn best(self) -> f64 {
        self.cpu.unwrap_or(self.wall)
    }
}

fn setup(id: BsuiteId) -> (Box<dyn Environment>, AgentSetup) {
    let env = id.load().expect("registry ids load");
    let setup = AgentSetup {
        id,
        observation_spec: env.observation_spec(),
        action_spec: env.action_spec(),
        seed: 0,
    };
    (env, setup)
}

/// Times `steps` lockstep rounds of `agent` over `envs` after `warmup` rounds; an episode
/// that ends is reset at once. The rate counts agent steps over all replicas.
fn time_rounds(
    agent: &mut dyn BatchAgent,
    envs: &mut [Box<dyn Environment>],
    warmup: usize,
    steps: usize,
) -> Rate {
    let n = envs.len();
    let mut ts: Vec<TimeStep> = envs.iter_mut().map(|env| env.reset()).collect();
    let mut new_ts = vec![TimeStep::default(); n];
    let mut actions = vec![0; n];
    let mut start = Instant::now();
    let mut cpu_start = thread_cpu_ns();
    for round in 0..warmup + steps {
        if round == warmup {
            start = Instant::now();
            cpu_start = thread_cpu_ns();
        }
        agent.select_actions(&ts, &mut actions);
        for (i, env) in envs.iter_mut().enumerate() {
            env.step_into(actions[i], &mut new_ts[i])
                .expect("valid action");
        }
        agent.update(&ts, &actions, &new_ts);
        std::mem::swap(&mut ts, &mut new_ts);
        for (env, t) in envs.iter_mut().zip(&mut ts) {
            if t.last() {
                env.reset_into(t);
            }
        }
    }
    let total = (steps * n) as f64;
    let wall = total / start.elapsed().as_secs_f64();
    let cpu = match (cpu_start, thread_cpu_ns()) {
        (Some(a), Some(b)) if b > a => Some(total / ((b - a) as f64 * 1e-9)),
        _ => None,
    };
    Rate { wall, cpu }
}

fn print_row(agent: &str, how: &str, rate: Rate, baseline: Option<f64>) {
    let cpu = rate.cpu.map_or("n/a".to_string(), |r| format!("{r:.0}"));
    let us = 1e6 / rate.best();
    let ratio = baseline.map_or(String::new(), |b| format!("{:.1}x", rate.best() / b));
    println!(
        "{:<10} {:<38} {:>12.0} {:>12} {:>10.1} {:>9}",
        agent, how, rate.wall, cpu, us, ratio
    );
}

fn run(args: Args) -> Result<(), String> {
    let mut ids: Vec<BsuiteId> = Vec::new();
    for selector in &args.ids {
        ids.extend(bsuite_envs::select(selector).map_err(|e| e.to_string())?);
    }
    let Some(&first) = ids.first() else {
        return Err("no ids selected".to_string());
    };
    println!(
        "{:<10} {:<38} {:>12} {:>12} {:>10} {:>9}",
        "agent",
        "how (agent steps = select + env step + update)",
        "wall step/s",
        "cpu step/s",
        "cpu us",
        "vs first"
    );
    for name in &args.agents {
        let entry = factory::agent(name).map_err(|e| e.to_string())?;
        let (env, s) = setup(first);
        let mut envs = vec![env];
        let mut baseline = None;
        if name == "dqn" {
            // What every id ran before the lockstep engine, and what --device cuda runs.
            let mut agent = OneByOne(vec![Dqn::new(
                &s.observation_spec,
                &s.action_spec,
                DqnConfig::default(),
                s.seed,
                Device::Cpu,
            )]);
            let rate = time_rounds(&mut agent, &mut envs, args.warmup, args.steps);
            print_row(
                name,
                &format!("{first}, tensor ops + autograd, alone"),
                rate,
                None,
            );
            baseline = Some(rate.best());
        }
        let mut agent = OneByOne(vec![(entry.make)(&s)]);
        let rate = time_rounds(&mut agent, &mut envs, args.warmup, args.steps);
        print_row(name, &format!("{first}, one by one"), rate, baseline);
        let baseline = baseline.unwrap_or(rate.best());
        if let Some(batching) = entry.batching {
            let (mut envs, setups): (Vec<_>, Vec<_>) = ids.iter().map(|&id| setup(id)).unzip();
            let mut agent = (batching.make)(&setups);
            let rate = time_rounds(&mut *agent, &mut envs, args.warmup, args.steps);
            let how = format!("{} ids in one lockstep batch", ids.len());
            print_row(name, &how, rate, Some(baseline));
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
