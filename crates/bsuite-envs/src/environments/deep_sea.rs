//! DeepSea: an N x N grid descended one row per step. Only the agent that moves "right" in
//! every row (at a small cost per move) reaches the reward of 1 in the bottom-right corner;
//! which action means "right" is randomised per cell.

use crate::environment::{
    ActionSpec, BsuiteInfo, Dynamics, InfoValue, ObservationSpec, PyNumber, TimeStep,
};
use crate::observation::OneHotPool;
use crate::rng::RandomState;

/// DeepSea parameters; [`DeepSeaConfig::new`] gives bsuite's defaults for a size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeepSeaConfig {
    /// Grid size N (also the episode length).
    pub size: usize,
    /// Without it, a right move fails with probability 1/N and the corner rewards of the
    /// last row get unit Gaussian noise.
    pub deterministic: bool,
    /// Total cost of N right moves.
    pub unscaled_move_cost: f64,
    /// Randomise which action means "right" per cell (otherwise action 1 always does).
    pub randomize_actions: bool,
}

impl DeepSeaConfig {
    /// The deterministic, randomised-action problem of size `size` with move cost 0.01.
    pub fn new(size: usize) -> Self {
        DeepSeaConfig {
            size,
            deterministic: true,
            unscaled_move_cost: 0.01,
            randomize_actions: true,
        }
    }
}

/// The deep-sea exploration problem (`bsuite.environments.deep_sea.DeepSea`).
#[derive(Debug, Clone)]
pub struct DeepSea {
    config: DeepSeaConfig,
    rng: RandomState,
    /// `action_mapping[row * size + column]` is the action that means "right" there.
    action_mapping: Vec<u8>,
    row: usize,
    column: usize,
    bad_episode: bool,
    total_bad_episodes: i64,
    denoised_return: PyNumber,
    observations: OneHotPool,
}

impl DeepSea {
    /// DeepSea with `config`; `seed` drives the stochastic dynamics and `mapping_seed` the
    /// action mapping.
    pub fn new(config: DeepSeaConfig, seed: u32, mapping_seed: u32) -> Self {
        let size = config.size;
        assert!(size >= 1, "deep sea needs size >= 1");
        let action_mapping = if config.randomize_actions {
            // `binomial(1, 0.5, [size, size])`: size^2 draws in row-major order.
            let mut mapping_rng = RandomState::new(mapping_seed);
            (0..size * size)
                .map(|_| mapping_rng.bernoulli(0.5))
                .collect()
        } else {
            vec![1; size * size]
        };
        DeepSea {
            config,
            rng: RandomState::new(seed),
            action_mapping,
            row: 0,
            column: 0,
            bad_episode: false,
            total_bad_episodes: 0,
            denoised_return: PyNumber::int(0),
            observations: OneHotPool::new(size * size),
        }
    }

    /// The action that means "right" in cell `(row, column)`.
    pub fn right_action(&self, row: usize, column: usize) -> usize {
        self.action_mapping[row * self.config.size + column] as usize
    }

    fn write_observation(&mut self, out: &mut TimeStep) {
        let size = self.config.size;
        // The terminal observation (row == size) is all zeros.
        let hot = (self.row < size).then(|| self.row * size + self.column);
        self.observations.write(hot, &mut out.observation);
    }
}

impl Dynamics for DeepSea {
    const NAME: &'static str = "deep_sea";

    fn observation_spec(&self) -> ObservationSpec {
        ObservationSpec::float32(vec![self.config.size, self.config.size], "observation")
    }

    fn action_spec(&self) -> ActionSpec {
        ActionSpec::new(2, "int32")
    }

    fn reset(&mut self, out: &mut TimeStep) {
        self.row = 0;
        self.column = 0;
        self.bad_episode = false;
        out.set_restart();
        self.write_observation(out);
    }

    fn step(&mut self, action: usize, out: &mut TimeStep) {
        let size = self.config.size;
        let mut reward = 0.0;
        let action_right = action == self.right_action(self.row, self.column);
        if self.column == size - 1 && action_right {
            reward += 1.0;
            self.denoised_return.add_float(1.0);
        }
        // Quirk: the corner noise is drawn before the windy-move draw below.
        if !self.config.deterministic
            && self.row == size - 1
            && (self.column == 0 || self.column == size - 1)
        {
            reward += self.rng.randn();
        }
        if action_right {
            // Quirk: `rand()` is drawn before the deterministic flag is checked, so every
            // right move consumes it, even in deterministic mode.
            let wind_allows = self.rng.rand() > 1.0 / size as f64;
            if wind_allows || self.config.deterministic {
                self.column = (self.column + 1).min(size - 1);
            }
            // The move cost applies even when a windy move fails.
            reward -= self.config.unscaled_move_cost / size as f64;
        } else {
            if self.row == self.column {
                // Left the optimal diagonal.
                self.bad_episode = true;
            }
            self.column = self.column.saturating_sub(1);
        }
        self.row += 1;
        if self.row == size {
            if self.bad_episode {
                self.total_bad_episodes += 1;
            }
            out.set_termination(reward);
        } else {
            out.set_transition(reward);
        }
        self.write_observation(out);
    }

    fn bsuite_info(&self) -> BsuiteInfo {
        vec![
            (
                "total_bad_episodes",
                InfoValue::Int(self.total_bad_episodes),
            ),
            ("denoised_return", self.denoised_return.0),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn action_mapping_matches_reference() {
        // Reference value: DeepSea(size=10, mapping_seed=42)
        let rows = [
            "0111000111",
            "0110000100",
            "1000010110",
            "1001110010",
            "0001010110",
            "1111110000",
            "0010010101",
            "1001111000",
            "1100001110",
            "0111101000",
        ];
        let env = DeepSea::new(DeepSeaConfig::new(10), 0, 42);
        for (r, row) in rows.iter().enumerate() {
            let got: String = (0..10)
                .map(|c| char::from(b'0' + env.right_action(r, c) as u8))
                .collect();
            assert_eq!(&got, row);
        }
    }
}
