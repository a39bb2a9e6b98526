//! The run loop that drives an [`Agent`] through an environment (bsuite's
//! `baselines/experiment.py`).

use std::ops::ControlFlow;

use bsuite_envs::{ActionError, ActionSpec, BsuiteInfo, Environment, ObservationSpec, TimeStep};
use bsuite_logging::{Logging, TerminalLogger};

use crate::agent::Agent;

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
