//! What a sweep will cost, before it runs: each experiment's agent steps, from the ids'
//! episode counts and the agent's expected episode lengths, times its CPU cost per step,
//! measured here in a short calibration on that experiment's own ids (batched as the runner
//! would batch them), and the memory the concurrent replicas hold.

use std::time::Instant;

use bsuite_envs::{BsuiteId, Environment, LoadError, TimeStep};

use crate::agent::{BatchAgent, OneByOne};
use crate::config::AgentConfig;
use crate::factory::AgentEntry;
use crate::runner::{self, RunnerOptions};

/// What [`time_lockstep`] measured.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// CPU seconds of this thread (wall seconds where the OS does not say).
    pub seconds: f64,
    /// Agent steps timed, over all replicas.
    pub agent_steps: usize,
    /// Episodes that ended during the warm-up, over all replicas.
    pub warmup_episodes: usize,
    /// The fraction of nonzero observation entries seen during the warm-up.
    pub nonzero_fraction: f64,
}

impl Timing {
    /// CPU microseconds per agent step.
    pub fn us_per_step(&self) -> f64 {
        self.seconds * 1e6 / self.agent_steps.max(1) as f64
    }
}

/// Nanoseconds this thread has run on a CPU; `None` where the OS has no such clock.
/// (Linux's schedstat, read before, moves only at the scheduler's 4 ms tick: a tenth of a
/// short calibration.)
#[cfg(unix)]
fn thread_cpu_ns() -> Option<u64> {
    let mut now = std::mem::MaybeUninit::<libc::timespec>::uninit();
    // SAFETY: `now` is a timespec the call may write; it is read only if the call did.
    let now = unsafe {
        if libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, now.as_mut_ptr()) != 0 {
            return None;
        }
        now.assume_init()
    };
    let (seconds, nanos) = (
        u64::try_from(now.tv_sec).ok()?,
        u64::try_from(now.tv_nsec).ok()?,
    );
    Some(seconds * 1_000_000_000 + nanos)
}

#[cfg(not(unix))]
fn thread_cpu_ns() -> Option<u64> {
    None
}

/// Seconds of this thread's CPU time (wall time where unknown) that `f` takes, so that a
/// busy machine does not distort a per-step cost.
pub fn cpu_seconds(f: impl FnOnce()) -> f64 {
    let (wall, cpu) = (Instant::now(), thread_cpu_ns());
    f();
    match (cpu, thread_cpu_ns()) {
        (Some(a), Some(b)) if b > a => (b - a) as f64 * 1e-9,
        _ => wall.elapsed().as_secs_f64(),
    }
}

/// Runs `warmup` and then `steps` lockstep rounds of `agent` over `envs` (an episode that
/// ends is reset at once) and times the second part: what one agent step costs, select +
/// environment step + update, past the agent's warm-up.
pub fn time_lockstep(
    agent: &mut dyn BatchAgent,
    envs: &mut [Box<dyn Environment>],
    warmup: usize,
    steps: usize,
) -> Timing {
    let n = envs.len();
    let mut ts: Vec<TimeStep> = envs.iter_mut().map(|env| env.reset()).collect();
    let mut new_ts = vec![TimeStep::default(); n];
    let mut actions = vec![0; n];
    let (mut episodes, mut nonzero, mut entries) = (0usize, 0usize, 0usize);
    let mut round = |warming: bool, ts: &mut Vec<TimeStep>, new_ts: &mut Vec<TimeStep>| {
        agent.select_actions(ts, &mut actions);
        for (i, env) in envs.iter_mut().enumerate() {
            env.step_into(actions[i], &mut new_ts[i])
                .expect("the agent chose a valid action");
        }
        agent.update(ts, &actions, new_ts);
        std::mem::swap(ts, new_ts);
        for (env, t) in envs.iter_mut().zip(ts.iter_mut()) {
            if warming {
                nonzero += t.observation.iter().filter(|x| **x != 0.0).count();
                entries += t.observation.len();
            }
            if t.last() {
                episodes += usize::from(warming);
                env.reset_into(t);
            }
        }
    };
    for _ in 0..warmup {
        round(true, &mut ts, &mut new_ts);
    }
    let seconds = cpu_seconds(|| {
        for _ in 0..steps {
            round(false, &mut ts, &mut new_ts);
        }
    });
    Timing {
        seconds,
        agent_steps: steps * n,
        warmup_episodes: episodes,
        nonzero_fraction: nonzero as f64 / entries.max(1) as f64,
    }
}

/// One experiment's share of a projected sweep.
#[derive(Clone, Debug)]
pub struct ExperimentEstimate {
    /// The experiment's name.
    pub experiment: &'static str,
    /// Its selected ids.
    pub ids: usize,
    /// Expected agent steps over those ids.
    pub agent_steps: f64,
    /// Measured CPU microseconds per agent step.
    pub us_per_step: f64,
    /// Measured resident memory of one replica, in bytes (zero where too small to see).
    pub replica_bytes: f64,
}

/// A projected sweep.
#[derive(Clone, Debug)]
pub struct Estimate {
    /// Per experiment, in sweep order.
    pub experiments: Vec<ExperimentEstimate>,
    /// Workers running at once.
    pub jobs: usize,
    /// Replicas per batch.
    pub batch_size: usize,
    /// Resident memory of the process before any agent was built, in bytes.
    pub base_bytes: f64,
}

impl Estimate {
    /// Expected agent steps of the whole selection.
    pub fn agent_steps(&self) -> f64 {
        self.experiments.iter().map(|e| e.agent_steps).sum()
    }

    /// Expected CPU seconds of the whole selection.
    pub fn cpu_seconds(&self) -> f64 {
        self.experiments
            .iter()
            .map(|e| e.agent_steps * e.us_per_step * 1e-6)
            .sum()
    }

    /// Expected wall seconds on `jobs` workers: the CPU time spread evenly, or the most
    /// expensive single id where that is longer.
    pub fn wall_seconds(&self) -> f64 {
        let longest = self
            .experiments
            .iter()
            .map(|e| e.agent_steps / e.ids.max(1) as f64 * e.us_per_step * 1e-6)
            .fold(0.0, f64::max);
        (self.cpu_seconds() / self.jobs as f64).max(longest)
    }

    /// Expected peak resident memory: the process, plus `jobs` batches of the largest
    /// replicas. Replay buffers keep growing until they are full, so agents with replay
    /// can need more than their calibration showed.
    pub fn peak_bytes(&self) -> f64 {
        let largest = self
            .experiments
            .iter()
            .map(|e| e.replica_bytes)
            .fold(0.0, f64::max);
        // No more replicas run at once than there are ids.
        let ids: usize = self.experiments.iter().map(|e| e.ids).sum();
        let replicas = (self.jobs * self.batch_size).min(ids);
        self.base_bytes + replicas as f64 * largest
    }
}

impl Estimate {
    /// The estimate of the (run, id) pairs of `pending`, one list of ids per run (the seeds
    /// of `--seeds`, or one run), each id run for the episodes `options` gives it, priced
    /// at this estimate's costs per step and run in one pool of `options`' workers at most:
    /// seeds differ in their draws, not in their cost, so an experiment counts each of its
    /// pending pairs, and the pool keeps more workers busy where one run alone had fewer
    /// ids than workers. Experiments with no pending pair drop out. Every pending id's
    /// experiment must be among this estimate's.
    pub fn pooled(
        &self,
        agent: &AgentEntry,
        pending: &[Vec<BsuiteId>],
        options: &RunnerOptions,
    ) -> Estimate {
        let mut pooled = self.clone();
        for e in &mut pooled.experiments {
            let ids = pending.iter().flatten();
            let ids: Vec<_> = ids
                .filter(|id| id.experiment().name == e.experiment)
                .collect();
            e.ids = ids.len();
            e.agent_steps = (ids.iter())
                .map(|&&id| agent.expected_agent_steps(id, options.episodes(id)))
                .sum();
        }
        pooled.experiments.retain(|e| e.ids > 0);
        let ids: usize = pooled.experiments.iter().map(|e| e.ids).sum();
        pooled.jobs = options.effective_jobs().min(ids).max(1);
        pooled
    }
}

/// The process's resident memory in bytes (Linux), else 0.
fn resident_bytes() -> f64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|text| text.split_whitespace().nth(1)?.parse::<f64>().ok())
        .map_or(0.0, |pages| pages * 4096.0)
}

/// Agent steps of the calibration's warm-up rounds: past every agent's replay warm-up
/// (bootstrapped DQN learns from its 128th transition).
const CALIBRATION_WARMUP: usize = 300;
/// Timed rounds per experiment.
const CALIBRATION_ROUNDS: usize = 300;

/// Projects a sweep of `agent` over `ids` with `options` (jobs and batch size as the
/// runner would use them): a short calibration per experiment, nothing written. Fails only
/// where an environment cannot be loaded.
pub fn estimate(
    agent: AgentEntry,
    ids: &[BsuiteId],
    options: &RunnerOptions,
) -> Result<Estimate, LoadError> {
    // The runner starts no more workers than it has ids to give them.
    let jobs = options.effective_jobs().min(ids.len()).max(1);
    let batch_size = match (agent.batching, options.batch_size) {
        (Some(b), 0) => b.default_size,
        (Some(_), n) => n,
        (None, _) => 1,
    };
    let config =
        (options.config.clone()).unwrap_or_else(|| AgentConfig::new(agent.name, agent.keys));
    let base_bytes = resident_bytes();
    let mut experiments: Vec<ExperimentEstimate> = Vec::new();
    for group in ids.chunk_by(|a, b| a.experiment().name == b.experiment().name) {
        let steps: Vec<f64> = group
            .iter()
            .map(|&id| agent.expected_agent_steps(id, options.episodes(id)))
            .collect();
        let agent_steps: f64 = steps.iter().sum();
        let members = &group[calibration_window(&steps, batch_size)];
        let mut envs = Vec::new();
        let mut setups = Vec::new();
        for &id in members {
            let env = id.load()?;
            setups.push(runner::agent_setup(id, &*env, &config, options));
            envs.push(env);
        }
        let before = resident_bytes();
        let mut replicas: Box<dyn BatchAgent> = match agent.batching.filter(|_| members.len() > 1) {
            Some(batching) => (batching.make)(&setups),
            None => Box::new(OneByOne(setups.iter().map(|s| (agent.make)(s)).collect())),
        };
        let timing = time_lockstep(
            &mut *replicas,
            &mut envs,
            CALIBRATION_WARMUP,
            CALIBRATION_ROUNDS,
        );
        let replica_bytes = (resident_bytes() - before).max(0.0) / members.len() as f64;
        experiments.push(ExperimentEstimate {
            experiment: group[0].experiment().name,
            ids: group.len(),
            agent_steps,
            us_per_step: timing.us_per_step(),
            replica_bytes,
        });
    }
    Ok(Estimate {
        experiments,
        jobs,
        batch_size,
        base_bytes,
    })
}

/// The ids of an experiment the calibration runs, by their agent steps `steps`: `n` of them
/// (all where there are fewer) around the id where half of the experiment's steps have been
/// counted, so that the ids holding most of its steps set its cost per step. (The first ids
/// are often the shortest settings: a step of umbrella_length/0's one-step chain, an SGD
/// step at every episode's end, costs the recurrent agent four times one of the whole
/// experiment.)
fn calibration_window(steps: &[f64], n: usize) -> std::ops::Range<usize> {
    let n = n.max(1).min(steps.len());
    let half = steps.iter().sum::<f64>() / 2.0;
    let mut counted = 0.0;
    let median = steps
        .iter()
        .position(|&s| {
            counted += s;
            counted >= half
        })
        .unwrap_or(0);
    let start = median.saturating_sub(n / 2).min(steps.len() - n);
    start..start + n
}

/// Human units: `1.2 h`, `3.4 min`, `56 s`.
pub fn format_seconds(seconds: f64) -> String {
    if seconds >= 5400.0 {
        format!("{:.1} h", seconds / 3600.0)
    } else if seconds >= 90.0 {
        format!("{:.1} min", seconds / 60.0)
    } else {
        format!("{seconds:.0} s")
    }
}

/// Prints an estimate as a table and a summary.
pub fn print(agent: &str, estimate: &Estimate) {
    crate::outln!(
        "{:<22} {:>5} {:>14} {:>10} {:>12} {:>12}",
        "experiment",
        "ids",
        "agent steps",
        "cpu us",
        "cpu time",
        "MB/replica"
    );
    for e in &estimate.experiments {
        crate::outln!(
            "{:<22} {:>5} {:>14.0} {:>10.1} {:>12} {:>12.1}",
            e.experiment,
            e.ids,
            e.agent_steps,
            e.us_per_step,
            format_seconds(e.agent_steps * e.us_per_step * 1e-6),
            e.replica_bytes / 1e6
        );
    }
    crate::outln!(
        "{agent}: about {:.0} million agent steps, {} of CPU; on {} jobs about {} wall and \
         {:.0} MB resident at peak (batches of {}; replays grow until full, so agents with \
         replay can need more)",
        estimate.agent_steps() / 1e6,
        format_seconds(estimate.cpu_seconds()),
        estimate.jobs,
        format_seconds(estimate.wall_seconds()),
        estimate.peak_bytes() / 1e6,
        estimate.batch_size
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_random_sweep_of_catch_and_bandit_is_projected_from_its_episodes() {
        let ids = crate::sweep::select_ids(&["catch".into(), "bandit/3".into()]).unwrap();
        let agent = crate::factory::agent("random").unwrap();
        let options = RunnerOptions {
            jobs: 2,
            ..RunnerOptions::default()
        };
        let estimate = estimate(agent, &ids, &options).unwrap();
        let names: Vec<_> = estimate.experiments.iter().map(|e| e.experiment).collect();
        assert_eq!(names, ["bandit", "catch"]);
        // catch: 20 ids × 10,000 episodes × 9 steps; bandit/3: 10,000 one-step episodes.
        assert_eq!(estimate.agent_steps(), 20.0 * 10_000.0 * 9.0 + 10_000.0);
        assert!(estimate.experiments.iter().all(|e| e.us_per_step > 0.0));
        let (cpu, wall) = (estimate.cpu_seconds(), estimate.wall_seconds());
        assert!(wall >= cpu / 2.0 && wall <= cpu, "wall {wall}, cpu {cpu}");
        assert!(format_seconds(wall).ends_with(" s"));
        assert_eq!(format_seconds(7200.0), "2.0 h");
    }

    /// `--seeds 3` projects the pool of all three seeds: three times the steps and CPU,
    /// spread over the workers the pool keeps busy (more than one seed's 2 ids could); a
    /// seed that has already finished an id leaves it out.
    #[test]
    fn a_pool_of_seeds_is_projected_as_a_whole() {
        let catch = |i: usize| -> BsuiteId { format!("catch/{i}").parse().unwrap() };
        // catch/0 and catch/1: 10,000 episodes of 9 steps each.
        let one = Estimate {
            experiments: vec![ExperimentEstimate {
                experiment: "catch",
                ids: 2,
                agent_steps: 180_000.0,
                us_per_step: 2.0,
                replica_bytes: 1e6,
            }],
            jobs: 2,
            batch_size: 1,
            base_bytes: 0.0,
        };
        let random = crate::factory::agent("random").unwrap();
        let options = |num_episodes: Option<usize>, jobs: usize| RunnerOptions {
            num_episodes,
            jobs,
            ..RunnerOptions::default()
        };
        let all = vec![vec![catch(0), catch(1)]; 3];
        let pooled = one.pooled(&random, &all, &options(None, 4));
        assert_eq!(pooled.experiments[0].ids, 6);
        assert_eq!(pooled.agent_steps(), 3.0 * 180_000.0);
        let cpu = 3.0 * one.cpu_seconds();
        assert!((pooled.cpu_seconds() - cpu).abs() < 1e-12 * cpu, "{cpu}");
        assert_eq!(pooled.jobs, 4);
        assert_eq!(pooled.wall_seconds(), pooled.cpu_seconds() / 4.0);
        assert_eq!(
            one.pooled(&random, &all, &options(None, 16)).jobs,
            6,
            "no more workers than (seed, id) pairs"
        );
        assert_eq!(pooled.peak_bytes(), 4e6);

        let resumed = [vec![catch(1)], vec![], vec![catch(0), catch(1)]];
        let left = one.pooled(&random, &resumed, &options(None, 4));
        assert_eq!(left.experiments[0].ids, 3);
        assert_eq!(left.agent_steps(), 3.0 * 90_000.0);
        assert_eq!(left.jobs, 3);
        let shortened = one.pooled(&random, &resumed, &options(Some(100), 4));
        assert_eq!(shortened.agent_steps(), 3.0 * 900.0);
        let done = one.pooled(&random, &[vec![], vec![]], &options(None, 4));
        assert!(done.experiments.is_empty());
        assert_eq!(done.agent_steps(), 0.0);
    }

    /// Where episodes last as long as the agent keeps going, each agent is priced at its
    /// own episode lengths; elsewhere the experiment fixes them for every agent.
    #[test]
    fn control_tasks_are_priced_at_the_agents_own_episode_lengths() {
        let id = |s: &str| -> BsuiteId { s.parse().unwrap() };
        let agent = |name| crate::factory::agent(name).unwrap();
        let (random, boot_dqn) = (agent("random"), agent("boot_dqn"));
        assert_eq!(
            random.expected_agent_steps(id("cartpole/3"), 1000),
            81_000.0
        );
        assert_eq!(
            boot_dqn.expected_agent_steps(id("cartpole/3"), 1000),
            380_000.0
        );
        assert_eq!(
            boot_dqn.expected_agent_steps(id("mountain_car/0"), 10),
            1670.0
        );
        for name in ["random", "boot_dqn"] {
            assert_eq!(agent(name).steps_per_episode(id("catch/0")), 9.0);
        }
        // Every agent's table is what its estimates read, once per experiment, at lengths
        // the experiment allows. (A table cannot name an experiment that does not exist:
        // it holds the experiments' own statics.)
        for entry in crate::factory::agents() {
            for &(experiment, steps) in crate::agents::steps_per_episode(entry.name) {
                let first = experiment.ids().next().expect("an experiment has settings");
                assert_eq!(entry.steps_per_episode(first), steps, "{}", experiment.name);
                assert!(
                    (1.0..=1000.0).contains(&steps),
                    "{}: {steps}",
                    experiment.name
                );
            }
        }
    }

    #[test]
    fn the_calibration_runs_the_ids_that_hold_most_of_the_steps() {
        assert_eq!(calibration_window(&[1.0, 1.0, 1.0, 10.0], 1), 3..4);
        assert_eq!(calibration_window(&[1.0, 1.0, 1.0, 10.0], 2), 2..4);
        assert_eq!(calibration_window(&[1.0, 1.0, 1.0, 10.0], 9), 0..4);
        assert_eq!(calibration_window(&[5.0; 20], 1), 9..10);
        assert_eq!(calibration_window(&[5.0; 20], 4), 7..11);
        assert_eq!(calibration_window(&[], 3), 0..0);
    }

    #[cfg(unix)]
    #[test]
    fn the_cpu_clock_resolves_microseconds() {
        let first = thread_cpu_ns().expect("a thread CPU clock on this OS");
        let next = loop {
            let now = thread_cpu_ns().unwrap();
            if now != first {
                break now;
            }
        };
        assert!(
            next - first < 100_000,
            "the clock moved {} ns",
            next - first
        );
    }
}
