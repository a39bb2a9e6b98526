//! SimpleBandit: one-step episodes, `num_actions` arms paying `0, 1/(n-1), ..., 1` in an
//! order fixed by the mapping seed. The observation is a constant.

use crate::environment::{ActionSpec, BsuiteInfo, Dynamics, InfoValue, ObservationSpec, TimeStep};
use crate::rng::RandomState;

/// The multi-armed bandit (`bsuite.environments.bandit.SimpleBandit`).
#[derive(Debug, Clone)]
pub struct SimpleBandit {
    rewards: Vec<f64>,
    total_regret: f64,
}

/// `numpy.linspace(0, 1, n)`: `k * step`, with the last value exactly 1.0.
fn linspace_unit(n: usize) -> Vec<f64> {
    if n == 1 {
        return vec![0.0];
    }
    let step = 1.0 / (n - 1) as f64;
    let mut values: Vec<f64> = (0..n).map(|k| k as f64 * step).collect();
    values[n - 1] = 1.0;
    values
}

impl SimpleBandit {
    /// A bandit with `num_actions` arms permuted by `RandomState(mapping_seed)`.
    pub fn new(mapping_seed: u32, num_actions: usize) -> Self {
        assert!(num_actions >= 1, "a bandit needs at least one arm");
        let mut rng = RandomState::new(mapping_seed);
        // `rng.choice(range(n), size=n, replace=False)` is one permutation draw.
        let permutation = rng.permutation(num_actions);
        let levels = linspace_unit(num_actions);
        SimpleBandit {
            rewards: permutation.into_iter().map(|k| levels[k]).collect(),
            total_regret: 0.0,
        }
    }

    /// The reward of each arm.
    pub fn rewards(&self) -> &[f64] {
        &self.rewards
    }
}

impl Dynamics for SimpleBandit {
    const NAME: &'static str = "bandit";

    fn observation_spec(&self) -> ObservationSpec {
        ObservationSpec::float32(vec![1, 1], "observation")
    }

    fn action_spec(&self) -> ActionSpec {
        ActionSpec::new(self.rewards.len(), "int32")
    }

    fn reset(&mut self, out: &mut TimeStep) {
        out.set_restart();
        // Quirk: the observation is 1.0 although the reference docstring says 0.
        out.zeroed_observation(1)[0] = 1.0;
    }

    fn step(&mut self, action: usize, out: &mut TimeStep) {
        let reward = self.rewards[action];
        self.total_regret += 1.0 - reward;
        out.set_termination(reward);
        out.zeroed_observation(1)[0] = 1.0;
    }

    fn bsuite_info(&self) -> BsuiteInfo {
        vec![("total_regret", InfoValue::Float(self.total_regret))]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewards_match_reference_for_mapping_seeds() {
        // Reference values (bsuite 0.3.6).
        assert_eq!(
            SimpleBandit::new(0, 11).rewards(),
            &[
                0.4,
                0.9,
                0.2,
                1.0,
                0.6000000000000001,
                0.1,
                0.7000000000000001,
                0.8,
                0.30000000000000004,
                0.0,
                0.5
            ]
        );
        assert_eq!(
            SimpleBandit::new(3, 11).rewards(),
            &[
                0.5,
                0.4,
                0.1,
                0.2,
                0.9,
                0.6000000000000001,
                0.7000000000000001,
                0.0,
                0.30000000000000004,
                0.8,
                1.0
            ]
        );
    }
}
