//! The uniformly random agent (bsuite's `baselines/random`).

use bsuite_envs::{experiments, ActionSpec, Experiment, RandomState, TimeStep};

use crate::agent::{Agent, AgentEntry};
use crate::config::{Key, SEED};

/// Picks actions uniformly at random with numpy's legacy generator:
/// `RandomState(seed).randint(num_actions)` per step, draw for draw what bsuite's `Random`
/// agent does, so with the same seed both take the same actions.
///
/// ```
/// use bsuite_baselines::{random::Random, Agent};
/// use bsuite_envs::Environment;
///
/// let env = bsuite_envs::load("catch/0").unwrap();
/// let mut agent = Random::new(env.action_spec(), Random::DEFAULT_SEED);
/// let action = agent.select_action(&Default::default());
/// assert!(action < 3);
/// ```
#[derive(Clone)]
pub struct Random {
    rng: RandomState,
    num_actions: usize,
}

impl Random {
    /// The seed bsuite's `run.py` passes for every bsuite_id.
    pub const DEFAULT_SEED: u32 = 42;

    /// A random agent for `action_spec`, seeded with `seed`.
    pub fn new(action_spec: ActionSpec, seed: u32) -> Self {
        Random {
            rng: RandomState::new(seed),
            num_actions: action_spec.num_actions,
        }
    }
}

impl Agent for Random {
    #[inline]
    fn select_action(&mut self, _timestep: &TimeStep) -> usize {
        self.rng.randint(self.num_actions)
    }

    #[inline]
    fn update(&mut self, _timestep: &TimeStep, _action: usize, _new_timestep: &TimeStep) {}
}

/// bsuite's `default_agent` for the random baseline, with the seed bsuite's `run.py` uses
/// (the reference's own default is an unseeded generator).
pub fn default_agent(action_spec: ActionSpec) -> Random {
    Random::new(action_spec, Random::DEFAULT_SEED)
}

/// The random agent's one key.
pub(crate) static KEYS: [Key; 1] = [SEED];

/// Mean steps per episode in `baselines/random` (5 seeds) on the experiments where the
/// agent's skill sets episode lengths; sweep planning only
/// ([`AgentEntry::steps_per_episode`]).
pub(crate) static STEPS_PER_EPISODE: [(&Experiment, f64); 7] = [
    (&experiments::cartpole::EXPERIMENT, 81.0),
    (&experiments::cartpole_noise::EXPERIMENT, 81.0),
    (&experiments::cartpole_scale::EXPERIMENT, 81.0),
    (&experiments::cartpole_swingup::EXPERIMENT, 544.0),
    (&experiments::mountain_car::EXPERIMENT, 1000.0),
    (&experiments::mountain_car_noise::EXPERIMENT, 1000.0),
    (&experiments::mountain_car_scale::EXPERIMENT, 1000.0),
];

/// The random agent's factory entry.
pub(crate) fn entry() -> AgentEntry {
    AgentEntry {
        name: "random",
        description: "uniformly random actions, RandomState(seed).randint(num_actions) per step",
        keys: &KEYS,
        make: |setup| Box::new(Random::new(setup.action_spec, setup.seed)),
        batching: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_like_numpy_randint() {
        let env = bsuite_envs::load("catch/0").unwrap();
        let mut agent = default_agent(bsuite_envs::Environment::action_spec(&env));
        let ts = TimeStep::default();
        let actions: Vec<usize> = (0..10).map(|_| agent.select_action(&ts)).collect();
        // numpy: np.random.RandomState(42).randint(3, size=10)
        assert_eq!(actions, [2, 0, 2, 2, 0, 0, 2, 1, 2, 2]);
    }
}
