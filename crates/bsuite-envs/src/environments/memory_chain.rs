//! MemoryChain: `num_bits` random context bits are shown at the start; after
//! `memory_length` steps one of them is queried, and the last action must repeat it.

use crate::environment::{
    ActionSpec, BsuiteInfo, Dynamics, InfoValue, ObservationSpec, PyNumber, TimeStep,
};
use crate::rng::RandomState;

/// The memory chain (`bsuite.environments.memory_chain.MemoryChain`).
#[derive(Debug, Clone)]
pub struct MemoryChain {
    memory_length: usize,
    num_bits: usize,
    rng: RandomState,
    context: Vec<u8>,
    query: usize,
    timestep: usize,
    total_perfect: i64,
    total_regret: PyNumber,
}

impl MemoryChain {
    /// A chain of `memory_length` steps with `num_bits` context bits, seeded with `seed`.
    pub fn new(memory_length: usize, num_bits: usize, seed: u32) -> Self {
        assert!(
            memory_length >= 1 && num_bits >= 1,
            "memory chain needs length and bits >= 1"
        );
        let mut chain = MemoryChain {
            memory_length,
            num_bits,
            rng: RandomState::new(seed),
            context: Vec::with_capacity(num_bits),
            query: 0,
            timestep: 0,
            total_perfect: 0,
            total_regret: PyNumber::int(0),
        };
        // Quirk: the constructor draws a context and query that the first reset discards;
        // the RNG position still advances.
        chain.draw_context();
        chain
    }

    fn draw_context(&mut self) {
        self.context.clear();
        for _ in 0..self.num_bits {
            let bit = self.rng.bernoulli_half();
            self.context.push(bit);
        }
        // Quirk: with one bit, `randint(1)` consumes no randomness.
        self.query = self.rng.randint(self.num_bits);
    }

    /// The observation for the current `timestep`.
    fn write_observation(&self, out: &mut TimeStep) {
        let obs = out.zeroed_observation(self.num_bits + 2);
        obs[0] = (1.0 - self.timestep as f64 / self.memory_length as f64) as f32;
        if self.timestep == self.memory_length - 1 {
            obs[1] = self.query as f32;
        }
        if self.timestep == 0 {
            for (slot, &bit) in obs[2..].iter_mut().zip(&self.context) {
                *slot = 2.0 * bit as f32 - 1.0;
            }
        }
    }
}

impl Dynamics for MemoryChain {
    const NAME: &'static str = "memory_chain";

    fn observation_spec(&self) -> ObservationSpec {
        ObservationSpec::float32(vec![1, self.num_bits + 2], "observation")
    }

    fn action_spec(&self) -> ActionSpec {
        ActionSpec::new(2, "int32")
    }

    fn reset(&mut self, out: &mut TimeStep) {
        self.timestep = 0;
        self.draw_context();
        out.set_restart();
        self.write_observation(out);
    }

    fn step(&mut self, action: usize, out: &mut TimeStep) {
        // Quirk: the observation is built before the timestep advances, so the first step
        // repeats the reset observation (the context is shown twice) and episodes last
        // `memory_length + 1` steps.
        self.write_observation(out);
        self.timestep += 1;
        if self.timestep - 1 < self.memory_length {
            out.set_transition(0.0);
            return;
        }
        let reward = if action == self.context[self.query] as usize {
            self.total_perfect += 1;
            1.0
        } else {
            self.total_regret.add_float(2.0);
            -1.0
        };
        out.set_termination(reward);
    }

    fn bsuite_info(&self) -> BsuiteInfo {
        vec![
            ("total_perfect", InfoValue::Int(self.total_perfect)),
            ("total_regret", self.total_regret.0),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resets_draw_reference_contexts() {
        // Reference value: MemoryChain(2, num_bits=3, seed=0)
        let mut chain = MemoryChain::new(2, 3, 0);
        assert_eq!((chain.context.clone(), chain.query), (vec![1, 1, 1], 1));
        let expected = [
            (vec![1, 0, 0], 0),
            (vec![1, 0, 1], 2),
            (vec![1, 1, 0], 1),
            (vec![1, 0, 1], 0),
            (vec![1, 1, 0], 2),
        ];
        let mut ts = TimeStep::default();
        for (context, query) in expected {
            chain.reset(&mut ts);
            assert_eq!((chain.context.clone(), chain.query), (context, query));
        }
    }
}
