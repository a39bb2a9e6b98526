//! `bsuite-bench-agents`: agent steps per second (select_action + env step + update) of
//! the LibTorch agents, and the projected wall time of a full sweep. Run it through
//! `cargo xtask bench agents`, which builds it optimised against LibTorch.

use std::process::ExitCode;
use std::time::Instant;

use bsuite_baselines::factory::{self, AgentEntry, AgentSetup};
use bsuite_baselines::random::Random;
use bsuite_baselines::Agent;
use bsuite_envs::{BsuiteId, Environment, TimeStep};
use clap::Parser;

/// Agent throughput on bsuite ids, and a projection of a full sweep's wall time.
#[derive(Parser, Debug)]
#[command(name = "bsuite-bench-agents")]
struct Args {
    /// Agents to time.
    #[arg(long, num_args = 1.., default_values_t = ["dqn".to_string(), "boot_dqn".to_string()])]
    agents: Vec<String>,
    /// Ids to time them on.
    #[arg(long, num_args = 1.., default_values_t = ["catch/0".to_string()])]
    ids: Vec<String>,
    /// Steps run before timing starts (past the replay warm-up, so SGD runs every step).
    #[arg(long, default_value_t = 500)]
    warmup: usize,
    /// Timed steps.
    #[arg(long, default_value_t = 3000)]
    steps: usize,
    /// Also project the wall time of a full 468-id sweep of this agent (timing it on the
    /// first id of every experiment).
    #[arg(long, value_name = "AGENT")]
    project: Option<String>,
    /// Cores the projection assumes (ids run in parallel, one per core).
    #[arg(long, default_value_t = 2)]
    cores: usize,
}

/// Nanoseconds this thread has run on a CPU (Linux's schedstat), so that a busy machine
/// does not distort the per-step cost; `None` elsewhere.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// Steps per second of one agent, by wall clock and by this thread's CPU time.
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

/// Steps per second of `agent` on `id`, counting select_action, the env step and update.
fn steps_per_second(entry: AgentEntry, id: BsuiteId, warmup: usize, steps: usize) -> Rate {
    let mut env = id.load().expect("registry ids load");
    let setup = AgentSetup {
        id,
        observation_spec: env.observation_spec(),
        action_spec: env.action_spec(),
        seed: 0,
    };
    let mut agent = (entry.make)(&setup);
    let mut ts = TimeStep::default();
    let mut new_ts = TimeStep::default();
    env.reset_into(&mut ts);
    let mut start = Instant::now();
    let mut cpu_start = thread_cpu_ns();
    for step in 0..warmup + steps {
        if step == warmup {
            start = Instant::now();
            cpu_start = thread_cpu_ns();
        }
        let action = agent.select_action(&ts);
        env.step_into(action, &mut new_ts).expect("valid action");
        agent.update(&ts, action, &new_ts);
        std::mem::swap(&mut ts, &mut new_ts);
        if ts.last() {
            env.reset_into(&mut ts);
        }
    }
    let wall = steps as f64 / start.elapsed().as_secs_f64();
    let cpu = match (cpu_start, thread_cpu_ns()) {
        (Some(a), Some(b)) if b > a => Some(steps as f64 / ((b - a) as f64 * 1e-9)),
        _ => None,
    };
    Rate { wall, cpu }
}

/// Mean episode length of `id` under the random policy, from a few episodes.
fn random_episode_length(id: BsuiteId, episodes: usize) -> f64 {
    let mut env = id.load().expect("registry ids load");
    let mut agent = Random::new(env.action_spec(), 0);
    let mut total = 0usize;
    for _ in 0..episodes {
        let mut ts = env.reset();
        while !ts.last() {
            let action = agent.select_action(&ts);
            ts = env.step(action).expect("valid action");
            total += 1;
        }
    }
    total as f64 / episodes as f64
}

fn project(entry: AgentEntry, args: &Args) {
    println!(
        "\nprojection of a full {} sweep (468 ids, reference episode counts) on {} cores:",
        entry.name, args.cores
    );
    println!(
        "{:<22} {:>4} {:>13} {:>13} {:>11}",
        "experiment", "ids", "steps (est.)", "cpu step/s", "serial (s)"
    );
    let (mut total_steps, mut total_secs) = (0.0, 0.0);
    for experiment in bsuite_envs::experiments() {
        let ids: Vec<BsuiteId> = experiment.ids().collect();
        let steps: f64 = ids
            .iter()
            .map(|&id| random_episode_length(id, 10) * id.num_episodes() as f64)
            .sum();
        let rate = steps_per_second(entry, ids[0], args.warmup, args.steps / 3).best();
        total_steps += steps;
        total_secs += steps / rate;
        println!(
            "{:<22} {:>4} {:>13.0} {:>13.0} {:>11.0}",
            experiment.name,
            ids.len(),
            steps,
            rate,
            steps / rate
        );
    }
    println!(
        "total: {total_steps:.3e} steps, {:.1} h serial, {:.1} h on {} cores \
         (episode lengths of the random policy, per-step CPU time, ideal parallel speed-up)",
        total_secs / 3600.0,
        total_secs / 3600.0 / args.cores as f64,
        args.cores
    );
}

fn run(args: Args) -> Result<(), String> {
    let ids: Vec<BsuiteId> = args
        .ids
        .iter()
        .map(|s| s.parse().map_err(|e: bsuite_envs::IdError| e.to_string()))
        .collect::<Result<_, _>>()?;
    println!(
        "{:<18} {:<14} {:>12} {:>12} {:>12}",
        "agent", "bsuite_id", "wall step/s", "cpu step/s", "cpu us/step"
    );
    for name in &args.agents {
        let entry = factory::agent(name).map_err(|e| e.to_string())?;
        for &id in &ids {
            let rate = steps_per_second(entry, id, args.warmup, args.steps);
            let cpu = rate.cpu.map_or("n/a".to_string(), |r| format!("{r:.0}"));
            let cpu_us = rate
                .cpu
                .map_or("n/a".to_string(), |r| format!("{:.0}", 1e6 / r));
            println!(
                "{:<18} {:<14} {:>12.0} {:>12} {:>12}",
                name,
                id.to_string(),
                rate.wall,
                cpu,
                cpu_us
            );
        }
    }
    if let Some(name) = &args.project {
        project(factory::agent(name).map_err(|e| e.to_string())?, &args);
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
