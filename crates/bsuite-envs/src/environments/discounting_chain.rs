//! DiscountingChain: the first action picks one of five chains; chain `k` pays its reward
//! after `[1, 3, 10, 30, 100][k]` steps, and the chain chosen by the mapping seed pays 1.1
//! instead of 1.0. Episodes last 100 steps.

use crate::environment::{ActionSpec, BsuiteInfo, Dynamics, ObservationSpec, TimeStep};

const EPISODE_LEN: usize = 100;
const REWARD_TIMESTEPS: [usize; 5] = [1, 3, 10, 30, 100];

/// The discounting chain (`bsuite.environments.discounting_chain.DiscountingChain`).
#[derive(Debug, Clone)]
pub struct DiscountingChain {
    rewards: [f64; 5],
    timestep: usize,
    /// The chain chosen by the first action; `None` before it (shown as -1).
    context: Option<usize>,
}

impl DiscountingChain {
    /// The chain whose horizon `mapping_seed % 5` pays 1.1.
    ///
    /// The reference draws the mapping from numpy's global RNG when no seed is given; every
    /// sweep setting passes one, so we always require it.
    pub fn new(mapping_seed: u64) -> Self {
        let mut rewards = [1.0; 5];
        rewards[(mapping_seed % 5) as usize] += 0.1;
        DiscountingChain {
            rewards,
            timestep: 0,
            context: None,
        }
    }

    fn write_observation(&self, out: &mut TimeStep) {
        let obs = out.zeroed_observation(2);
        obs[0] = self.context.map_or(-1.0, |c| c as f32);
        obs[1] = (self.timestep as f64 / EPISODE_LEN as f64) as f32;
    }
}

impl Dynamics for DiscountingChain {
    const NAME: &'static str = "discounting_chain";

    fn observation_spec(&self) -> ObservationSpec {
        ObservationSpec::float32(vec![1, 2], "observation")
    }

    fn action_spec(&self) -> ActionSpec {
        ActionSpec::new(5, "int32")
    }

    fn reset(&mut self, out: &mut TimeStep) {
        self.timestep = 0;
        self.context = None;
        out.set_restart();
        self.write_observation(out);
    }

    fn step(&mut self, action: usize, out: &mut TimeStep) {
        // Quirk: only the first action of an episode matters; later ones are ignored.
        if self.timestep == 0 {
            self.context = Some(action);
        }
        self.timestep += 1;
        let context = self.context.expect("context is set by the first step");
        let reward = if self.timestep == REWARD_TIMESTEPS[context] {
            self.rewards[context]
        } else {
            0.0
        };
        if self.timestep == EPISODE_LEN {
            out.set_termination(reward);
        } else {
            out.set_transition(reward);
        }
        self.write_observation(out);
    }

    fn bsuite_info(&self) -> BsuiteInfo {
        Vec::new()
    }
}
