//! The run loop that drives an [`Agent`] through an environment (bsuite's
//! `baselines/experiment.py`).

use std::ops::ControlFlow;

use bsuite_envs::{ActionError, ActionSpec, BsuiteInfo, Environment, ObservationSpec, TimeStep};
use bsuite_logging::{Logging, TerminalLogger};

use crate::agent::{Agent, BatchAgent};

/// What the run loop reports after each episode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EpisodeEnd {
    /// Episodes finished so far in this run, this one included (1-based).
    pub episode: usize,
    /// Transitions in the episode just finished.
    pub steps: usize,
}

/// Runs `agent` for `num_episodes` episodes, exactly as bsuite's `experiment.run`: every
/// episode starts with `reset`, then `select_action`, `step` and `update` alternate until a
/// LAST timestep. The agent never sees a LAST timestep in `select_action`.
///
/// Two timesteps are swapped in place, so the loop allocates nothing per step.
///
/// ```
/// use bsuite_baselines::{experiment::run, random::Random};
/// use bsuite_envs::Environment;
///
/// let mut env = bsuite_envs::load("catch/0").unwrap();
/// let mut agent = Random::new(env.action_spec(), Random::DEFAULT_SEED);
/// run(&mut agent, &mut env, 3).unwrap();
/// ```
pub fn run<A, E>(agent: &mut A, env: &mut E, num_episodes: usize) -> Result<(), ActionError>
where
    A: Agent + ?Sized,
    E: Environment + ?Sized,
{
    run_with(agent, env, num_episodes, |_, _| ControlFlow::Continue(()))?;
    Ok(())
}

/// [`run`], calling `after_episode` with the environment after every episode; returning
/// `ControlFlow::Break` stops the run early (e.g. when a logger failed). Returns the number
/// of episodes run.
pub fn run_with<A, E, F>(
    agent: &mut A,
    env: &mut E,
    num_episodes: usize,
    mut after_episode: F,
) -> Result<usize, ActionError>
where
    A: Agent + ?Sized,
    E: Environment + ?Sized,
    F: FnMut(&mut E, EpisodeEnd) -> ControlFlow<()>,
{
    let mut timestep = TimeStep::default();
    let mut new_timestep = TimeStep::default();
    for episode in 1..=num_episodes {
        env.reset_into(&mut timestep);
        let mut steps = 0;
        while !timestep.last() {
            let action = agent.select_action(&timestep);
            env.step_into(action, &mut new_timestep)?;
            agent.update(&timestep, action, &new_timestep);
            std::mem::swap(&mut timestep, &mut new_timestep);
            steps += 1;
        }
        if after_episode(env, EpisodeEnd { episode, steps }).is_break() {
            return Ok(episode);
        }
    }
    Ok(num_episodes)
}

/// How a replica's run in [`run_lockstep`] ended.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplicaEnd {
    /// Episodes finished.
    pub episodes: usize,
    /// Transitions over all its episodes.
    pub steps: u64,
    /// Set when the agent chose an invalid action; the replica stopped there.
    pub error: Option<ActionError>,
}

/// Runs replica `i` of `agent` in `envs[i]` for `num_episodes[i]` episodes, all replicas in
/// lockstep: one [`BatchAgent::select_actions`], one step of every environment and one
/// [`BatchAgent::update`] per round. Each replica sees exactly the calls [`run`] would make
/// for it alone: a replica whose episode ended is reset and goes on; one that finished its
/// episodes (or whose `after_episode` returned `Break`, or whose action was invalid) is
/// dropped from the batch with [`BatchAgent::retain`] and handed to `finished` with its
/// environment.
///
/// `after_episode(i, env, end)` runs after each of replica `i`'s episodes.
///
/// ```
/// use std::ops::ControlFlow;
/// use bsuite_baselines::{experiment::run_lockstep, random::Random, OneByOne};
/// use bsuite_envs::Environment;
///
/// let envs: Vec<_> = ["catch/0", "bandit/0"].iter().map(|id| bsuite_envs::load(id).unwrap()).collect();
/// let mut agents = OneByOne(envs.iter().map(|env| Random::new(env.action_spec(), 42)).collect());
/// let mut ends = Vec::new();
/// run_lockstep(&mut agents, envs, &[3, 5], |_, _, _| ControlFlow::Continue(()), |i, _, end| {
///     ends.push((i, end.episodes, end.steps));
/// });
/// // bandit/0 has one-step episodes, so it finishes first.
/// assert_eq!(ends, [(1, 5, 5), (0, 3, 27)]);
/// ```
pub fn run_lockstep<A, E, F, G>(
    agent: &mut A,
    envs: Vec<E>,
    num_episodes: &[usize],
    mut after_episode: F,
    mut finished: G,
) where
    A: BatchAgent + ?Sized,
    E: Environment,
    F: FnMut(usize, &mut E, EpisodeEnd) -> ControlFlow<()>,
    G: FnMut(usize, E, ReplicaEnd),
{
    assert_eq!(envs.len(), agent.len(), "one environment per replica");
    assert_eq!(
        envs.len(),
        num_episodes.len(),
        "one episode count per replica"
    );
    let live: Vec<Live<E>> = envs
        .into_iter()
        .enumerate()
        .map(|(index, env)| Live {
            env: Some(env),
            index,
            episodes: 0,
            episode_steps: 0,
            steps: 0,
            done: num_episodes[index] == 0,
            error: None,
        })
        .collect();
    let n = live.len();
    let mut batch = Batch {
        live,
        timesteps: vec![TimeStep::default(); n],
        new_timesteps: vec![TimeStep::default(); n],
        actions: vec![0; n],
    };
    for (slot, timestep) in batch.live.iter_mut().zip(&mut batch.timesteps) {
        if !slot.done {
            slot.env_mut().reset_into(timestep);
        }
    }
    while batch.drop_finished(agent, &mut finished) {
        agent.select_actions(&batch.timesteps, &mut batch.actions);
        let mut failed = false;
        for (i, slot) in batch.live.iter_mut().enumerate() {
            let action = batch.actions[i];
            if let Err(error) = slot
                .env_mut()
                .step_into(action, &mut batch.new_timesteps[i])
            {
                slot.error = Some(error);
                slot.done = true;
                failed = true;
            }
        }
        // A replica whose step failed has no transition to learn from.
        if failed && !batch.drop_finished(agent, &mut finished) {
            return;
        }
        agent.update(&batch.timesteps, &batch.actions, &batch.new_timesteps);
        std::mem::swap(&mut batch.timesteps, &mut batch.new_timesteps);
        for (slot, timestep) in batch.live.iter_mut().zip(&mut batch.timesteps) {
            slot.episode_steps += 1;
            if !timestep.last() {
                continue;
            }
            slot.episodes += 1;
            slot.steps += slot.episode_steps as u64;
            let end = EpisodeEnd {
                episode: slot.episodes,
                steps: std::mem::take(&mut slot.episode_steps),
            };
            let index = slot.index;
            let flow = after_episode(index, slot.env_mut(), end);
            if flow.is_break() || slot.episodes == num_episodes[index] {
                slot.done = true;
            } else {
                slot.env_mut().reset_into(timestep);
            }
        }
    }
}

/// One replica of a [`run_lockstep`] batch.
struct Live<E> {
    env: Option<E>,
    index: usize,
    episodes: usize,
    episode_steps: usize,
    steps: u64,
    done: bool,
    error: Option<ActionError>,
}

impl<E> Live<E> {
    fn env_mut(&mut self) -> &mut E {
        self.env
            .as_mut()
            .expect("a live replica has its environment")
    }
}

/// The replicas of a [`run_lockstep`] batch, with their timesteps and actions (entry `i`
/// of each belongs to `live[i]`).
struct Batch<E> {
    live: Vec<Live<E>>,
    timesteps: Vec<TimeStep>,
    new_timesteps: Vec<TimeStep>,
    actions: Vec<usize>,
}

impl<E> Batch<E> {
    /// Hands every done replica to `finished` and removes it from the batch and the agent;
    /// false when no replica is left.
    fn drop_finished<A, G>(&mut self, agent: &mut A, finished: &mut G) -> bool
    where
        A: BatchAgent + ?Sized,
        G: FnMut(usize, E, ReplicaEnd),
    {
        if self.live.iter().any(|slot| slot.done) {
            let keep: Vec<bool> = self.live.iter().map(|slot| !slot.done).collect();
            agent.retain(&keep);
            retain_flagged(&mut self.timesteps, &keep);
            retain_flagged(&mut self.new_timesteps, &keep);
            retain_flagged(&mut self.actions, &keep);
            let mut kept = Vec::with_capacity(self.live.len());
            for mut slot in self.live.drain(..) {
                if slot.done {
                    let env = slot.env.take().expect("a live replica has its environment");
                    let end = ReplicaEnd {
                        episodes: slot.episodes,
                        steps: slot.steps,
                        error: slot.error,
                    };
                    finished(slot.index, env, end);
                } else {
                    kept.push(slot);
                }
            }
            self.live = kept;
        }
        !self.live.is_empty()
    }
}

fn retain_flagged<T>(items: &mut Vec<T>, keep: &[bool]) {
    let mut flags = keep.iter();
    items.retain(|_| *flags.next().expect("one flag per item"));
}

/// [`run`] with bsuite's `verbose=True`: the environment is wrapped once more in a terminal
/// logger that prints every episode (on standard error).
pub fn run_verbose<A, E>(agent: &mut A, env: &mut E, num_episodes: usize) -> Result<(), ActionError>
where
    A: Agent + ?Sized,
    E: Environment + ?Sized,
{
    let mut env = Logging::new(ByRef(env), TerminalLogger::stderr())
        .log_every(true)
        .final_episode(num_episodes);
    run(agent, &mut env, num_episodes)
}

/// Lends an environment to a wrapper that wants to own one.
struct ByRef<'a, E: ?Sized>(&'a mut E);

impl<E: Environment + ?Sized> Environment for ByRef<'_, E> {
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn observation_spec(&self) -> ObservationSpec {
        self.0.observation_spec()
    }
    fn action_spec(&self) -> ActionSpec {
        self.0.action_spec()
    }
    fn reset_into(&mut self, out: &mut TimeStep) {
        self.0.reset_into(out)
    }
    fn step_into(&mut self, action: usize, out: &mut TimeStep) -> Result<(), ActionError> {
        self.0.step_into(action, out)
    }
    fn bsuite_info(&self) -> BsuiteInfo {
        self.0.bsuite_info()
    }
    fn bsuite_num_episodes(&self) -> usize {
        self.0.bsuite_num_episodes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records what the loop shows it, and checks the loop's contract.
    struct Probe {
        selects: usize,
        updates: usize,
        action: usize,
    }
    impl Agent for Probe {
        fn select_action(&mut self, timestep: &TimeStep) -> usize {
            assert!(!timestep.last(), "select_action saw a LAST timestep");
            self.selects += 1;
            self.action
        }
        fn update(&mut self, timestep: &TimeStep, _action: usize, new_timestep: &TimeStep) {
            assert!(!timestep.last() && !new_timestep.first());
            self.updates += 1;
        }
    }

    #[test]
    fn one_select_and_update_per_transition() {
        let mut env = bsuite_envs::load("deep_sea/0").unwrap();
        let mut agent = Probe {
            selects: 0,
            updates: 0,
            action: 0,
        };
        let mut ends = Vec::new();
        let ran = run_with(&mut agent, &mut env, 5, |_, end| {
            ends.push(end);
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(ran, 5);
        assert_eq!((agent.selects, agent.updates), (50, 50));
        assert_eq!(
            ends[4],
            EpisodeEnd {
                episode: 5,
                steps: 10
            }
        );

        let ran = run_with(&mut agent, &mut env, 5, |_, end| {
            if end.episode == 2 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .unwrap();
        assert_eq!(ran, 2);
    }

    type Log = std::rc::Rc<std::cell::RefCell<Vec<(Vec<f32>, usize, f64)>>>;

    /// Wraps an agent and records what it is shown and what it does.
    struct Recorder<A> {
        agent: A,
        log: Log,
    }
    impl<A: Agent> Agent for Recorder<A> {
        fn select_action(&mut self, timestep: &TimeStep) -> usize {
            assert!(!timestep.last(), "select_action saw a LAST timestep");
            self.agent.select_action(timestep)
        }
        fn update(&mut self, timestep: &TimeStep, action: usize, new_timestep: &TimeStep) {
            self.log.borrow_mut().push((
                timestep.observation.to_vec(),
                action,
                new_timestep.reward_or_zero(),
            ));
            self.agent.update(timestep, action, new_timestep);
        }
    }

    fn recorder(id: &str, seed: u32) -> (Recorder<crate::random::Random>, Log) {
        let spec = bsuite_envs::load(id).unwrap().action_spec();
        let log = Log::default();
        let agent = Recorder {
            agent: crate::random::Random::new(spec, seed),
            log: log.clone(),
        };
        (agent, log)
    }

    #[test]
    fn lockstep_replicas_see_what_they_would_see_alone() {
        let ids = [
            "catch/0",
            "bandit/0",
            "deep_sea/0",
            "cartpole/3",
            "memory_len/2",
        ];
        let episodes = [4, 9, 0, 3, 6];
        let envs: Vec<_> = ids
            .iter()
            .map(|id| bsuite_envs::load(id).unwrap())
            .collect();
        let (agents, logs): (Vec<_>, Vec<_>) = ids
            .iter()
            .enumerate()
            .map(|(i, id)| recorder(id, i as u32))
            .unzip();
        let mut batch = crate::OneByOne(agents);
        let mut after = vec![Vec::new(); ids.len()];
        let mut ends = vec![None; ids.len()];
        let mut order = Vec::new();
        run_lockstep(
            &mut batch,
            envs,
            &episodes,
            |i, _, end| {
                after[i].push(end);
                ControlFlow::Continue(())
            },
            |i, env, end| {
                assert_eq!(env.name(), bsuite_envs::load(ids[i]).unwrap().name());
                order.push(i);
                ends[i] = Some(end);
            },
        );
        assert!(batch.0.is_empty(), "finished replicas are dropped");
        // The zero-episode replica leaves first; the one-step bandit before catch.
        assert_eq!(order[0], 2);
        assert!(order.iter().position(|&i| i == 1) < order.iter().position(|&i| i == 0));

        // Each replica alone, through the sequential loop, as reference.
        for (i, id) in ids.iter().enumerate() {
            let mut env = bsuite_envs::load(id).unwrap();
            let (mut alone, alone_log) = recorder(id, i as u32);
            let mut alone_after = Vec::new();
            run_with(&mut alone, &mut env, episodes[i], |_, end| {
                alone_after.push(end);
                ControlFlow::Continue(())
            })
            .unwrap();
            assert_eq!(after[i], alone_after, "{id}: episode ends");
            let end = ends[i].clone().unwrap();
            assert_eq!(end.episodes, episodes[i]);
            assert_eq!(end.steps as usize, alone_log.borrow().len(), "{id}");
            assert_eq!(*logs[i].borrow(), *alone_log.borrow(), "{id}: transitions");
            assert_eq!(end.error, None);
        }
    }

    #[test]
    fn lockstep_stops_a_replica_on_break_or_bad_action_and_keeps_the_rest() {
        let envs: Vec<_> = ["catch/0", "catch/1", "bandit/0"]
            .iter()
            .map(|id| bsuite_envs::load(id).unwrap())
            .collect();
        // Replica 0 picks action 3 of 3 (invalid); replica 1 is stopped after its second
        // episode; replica 2 runs to the end.
        let mut batch = crate::OneByOne(vec![
            Probe {
                selects: 0,
                updates: 0,
                action: 3,
            },
            Probe {
                selects: 0,
                updates: 0,
                action: 1,
            },
            Probe {
                selects: 0,
                updates: 0,
                action: 0,
            },
        ]);
        let mut ends = vec![None; 3];
        run_lockstep(
            &mut batch,
            envs,
            &[5, 5, 5],
            |i, _, end| {
                if i == 1 && end.episode == 2 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
            |i, _, end| ends[i] = Some(end),
        );
        let ends: Vec<ReplicaEnd> = ends.into_iter().map(Option::unwrap).collect();
        assert_eq!(ends[0].episodes, 0);
        assert_eq!(ends[0].error.as_ref().map(|e| e.action), Some(3));
        assert_eq!(
            (ends[1].episodes, ends[1].steps, ends[1].error.clone()),
            (2, 18, None)
        );
        assert_eq!(
            (ends[2].episodes, ends[2].steps, ends[2].error.clone()),
            (5, 5, None)
        );
    }

    #[test]
    fn bad_actions_are_errors() {
        let mut env = bsuite_envs::load("catch/0").unwrap();
        let mut agent = Probe {
            selects: 0,
            updates: 0,
            action: 3,
        };
        let err = run(&mut agent, &mut env, 1).unwrap_err();
        assert_eq!(err.action, 3);
        run_verbose(&mut agent, &mut env, 0).unwrap();
    }
}
