//! The agent interface of bsuite's baselines (`select_action` / `update`), and its batched
//! form for replicas that run in lockstep.

use bsuite_envs::TimeStep;

/// An agent as bsuite's run loop drives it.
///
/// `select_action` is never given a LAST timestep: every episode starts with an explicit
/// reset. `update` sees each transition `(timestep, action, new_timestep)` once.
pub trait Agent {
    /// Chooses an action (in `0..num_actions`) for a FIRST or MID timestep.
    fn select_action(&mut self, timestep: &TimeStep) -> usize;

    /// Learns from one transition.
    fn update(&mut self, timestep: &TimeStep, action: usize, new_timestep: &TimeStep);
}

impl<A: Agent + ?Sized> Agent for Box<A> {
    fn select_action(&mut self, timestep: &TimeStep) -> usize {
        (**self).select_action(timestep)
    }

    fn update(&mut self, timestep: &TimeStep, action: usize, new_timestep: &TimeStep) {
        (**self).update(timestep, action, new_timestep)
    }
}

/// Independent agents ("replicas"), one per environment, driven in lockstep: one call acts
/// for every replica and one call learns from every replica's transition, so that an
/// implementation can do all replicas' work as one batched computation.
///
/// Replica `i` of every slice argument belongs to the `i`th agent held. Each replica must
/// behave exactly as if it ran alone through [`Agent`]: it sees the same sequence of calls,
/// and keeps its own parameters, optimiser state, memory and random stream. The lockstep
/// loop ([`crate::experiment::run_lockstep`]) keeps every replica on bsuite's run-loop
/// contract: a replica whose episode ended is reset before it is asked to act again, so
/// `select_actions` never sees a LAST timestep.
pub trait BatchAgent {
    /// The number of replicas held.
    fn len(&self) -> usize;

    /// True when no replica is left.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Chooses `actions[i]` for `timesteps[i]`, a FIRST or MID timestep, for every replica.
    fn select_actions(&mut self, timesteps: &[TimeStep], actions: &mut [usize]);

    /// Learns from every replica's transition `(timesteps[i], actions[i], new_timesteps[i])`.
    fn update(&mut self, timesteps: &[TimeStep], actions: &[usize], new_timesteps: &[TimeStep]);

    /// Keeps the replicas `i` with `keep[i]` and drops the others (their runs are over),
    /// preserving order.
    fn retain(&mut self, keep: &[bool]);
}

/// Any [`Agent`]s as a [`BatchAgent`]: each replica is called in turn.
///
/// ```
/// use bsuite_baselines::{random::Random, BatchAgent, OneByOne};
/// use bsuite_envs::{Environment, TimeStep};
///
/// let spec = bsuite_envs::load("catch/0").unwrap().action_spec();
/// let mut agents = OneByOne(vec![Random::new(spec, 1), Random::new(spec, 2)]);
/// let mut actions = [0; 2];
/// agents.select_actions(&[TimeStep::default(), TimeStep::default()], &mut actions);
/// agents.retain(&[false, true]);
/// assert_eq!(agents.len(), 1);
/// ```
pub struct OneByOne<A>(pub Vec<A>);

impl<A: Agent> BatchAgent for OneByOne<A> {
    fn len(&self) -> usize {
        self.0.len()
    }

    fn select_actions(&mut self, timesteps: &[TimeStep], actions: &mut [usize]) {
        for ((agent, timestep), action) in self.0.iter_mut().zip(timesteps).zip(actions) {
            *action = agent.select_action(timestep);
        }
    }

    fn update(&mut self, timesteps: &[TimeStep], actions: &[usize], new_timesteps: &[TimeStep]) {
        for (i, agent) in self.0.iter_mut().enumerate() {
            agent.update(&timesteps[i], actions[i], &new_timesteps[i]);
        }
    }

    fn retain(&mut self, keep: &[bool]) {
        let mut flags = keep.iter();
        self.0
            .retain(|_| *flags.next().expect("one flag per replica"));
    }
}
