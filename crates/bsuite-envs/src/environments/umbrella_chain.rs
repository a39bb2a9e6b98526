//! UmbrellaChain: the first action decides whether the agent carries an umbrella; only the
//! last of `chain_length` steps reveals whether it was needed. Intermediate rewards are
//! random +-1 and `n_distractor` observation bits are noise.

use crate::environment::{ActionSpec, BsuiteInfo, Dynamics, ObservationSpec, PyNumber, TimeStep};
use crate::rng::RandomState;

/// The umbrella chain (`bsuite.environments.umbrella_chain.UmbrellaChain`).
#[derive(Debug, Clone)]
pub struct UmbrellaChain {
    chain_length: usize,
    n_distractor: usize,
    rng: RandomState,
    timestep: usize,
    need_umbrella: u8,
    has_umbrella: u8,
    total_regret: PyNumber,
}

impl UmbrellaChain {
    /// A chain of `chain_length` steps with `n_distractor` noise bits, seeded with `seed`.
    pub fn new(chain_length: usize, n_distractor: usize, seed: u32) -> Self {
        assert!(chain_length >= 1, "umbrella chain needs length >= 1");
        let mut rng = RandomState::new(seed);
        // Quirk: the constructor draws `need_umbrella`, which the first reset discards; the
        // RNG position still advances.
        let need_umbrella = rng.bernoulli(0.5);
        UmbrellaChain {
            chain_length,
            n_distractor,
            rng,
            timestep: 0,
            need_umbrella,
            has_umbrella: 0,
            total_regret: PyNumber::int(0),
        }
    }

    /// Quirk: building an observation redraws the distractor bits, consuming RNG each time.
    fn write_observation(&mut self, out: &mut TimeStep) {
        let obs = out.zeroed_observation(3 + self.n_distractor);
        obs[0] = self.need_umbrella as f32;
        obs[1] = self.has_umbrella as f32;
        obs[2] = (1.0 - self.timestep as f64 / self.chain_length as f64) as f32;
        self.rng.fill_bernoulli_half(&mut obs[3..]);
    }
}

impl Dynamics for UmbrellaChain {
    const NAME: &'static str = "umbrella_chain";

    fn observation_spec(&self) -> ObservationSpec {
        ObservationSpec::float32(vec![1, 3 + self.n_distractor], "observation")
    }

    fn action_spec(&self) -> ActionSpec {
        ActionSpec::new(2, "int32")
    }

    fn reset(&mut self, out: &mut TimeStep) {
        self.timestep = 0;
        self.need_umbrella = self.rng.bernoulli_half();
        // Quirk: the reset observation shows a random `has_umbrella`.
        self.has_umbrella = self.rng.bernoulli_half();
        out.set_restart();
        self.write_observation(out);
    }

    fn step(&mut self, action: usize, out: &mut TimeStep) {
        self.timestep += 1;
        if self.timestep == 1 {
            self.has_umbrella = action as u8;
        }
        if self.timestep == self.chain_length {
            let reward = if self.has_umbrella == self.need_umbrella {
                1.0
            } else {
                self.total_regret.add_float(2.0);
                -1.0
            };
            self.write_observation(out);
            out.set_termination(reward);
        } else {
            // Quirk: intermediate rewards are random +-1, drawn before the distractors.
            let reward = 2.0 * self.rng.bernoulli_half() as f64 - 1.0;
            self.write_observation(out);
            out.set_transition(reward);
        }
    }

    fn bsuite_info(&self) -> BsuiteInfo {
        vec![("total_regret", self.total_regret.0)]
    }
}
