//! Reward noise and reward scale, the wrappers of the `*_noise` and `*_scale` experiments.

use crate::environment::{
    ActionError, ActionSpec, BsuiteInfo, Environment, ObservationSpec, TimeStep,
};
use crate::rng::RandomState;

/// Adds `noise_scale * randn()` to every non-FIRST reward (`wrappers.RewardNoise`).
///
/// `bsuite_info` is delegated, so the scoring counters stay noise-free; only the logged
/// returns see the noise.
pub struct RewardNoise<E> {
    env: E,
    noise_scale: f64,
    rng: RandomState,
}

impl<E: Environment> RewardNoise<E> {
    /// Wraps `env`; the noise comes from `RandomState(seed)`.
    pub fn new(env: E, noise_scale: f64, seed: u32) -> Self {
        RewardNoise {
            env,
            noise_scale,
            rng: RandomState::new(seed),
        }
    }
}

/// Scales every non-FIRST reward by `reward_scale` (`wrappers.RewardScale`).
///
/// `bsuite_info` is delegated, so the scoring counters are unscaled.
pub struct RewardScale<E> {
    env: E,
    reward_scale: f64,
}

impl<E: Environment> RewardScale<E> {
    /// Wraps `env`. The reference also builds `RandomState(seed)` here but never draws from
    /// it, so the seed has no effect and is only accepted for parity.
    pub fn new(env: E, reward_scale: f64, _seed: u32) -> Self {
        RewardScale { env, reward_scale }
    }
}

/// Implements [`Environment`] for a reward wrapper given how it transforms a reward.
macro_rules! reward_wrapper {
    ($wrapper:ident, |$self_:ident, $reward:ident| $transform:expr) => {
        impl<E: Environment> Environment for $wrapper<E> {
            fn name(&self) -> &'static str {
                self.env.name()
            }
            fn observation_spec(&self) -> ObservationSpec {
                self.env.observation_spec()
            }
            fn action_spec(&self) -> ActionSpec {
                self.env.action_spec()
            }
            fn reset_into(&mut self, out: &mut TimeStep) {
                self.env.reset_into(out)
            }
            fn step_into(&mut self, action: usize, out: &mut TimeStep) -> Result<(), ActionError> {
                self.env.step_into(action, out)?;
                // An auto-reset FIRST timestep passes through untouched, with no RNG draw.
                if let Some($reward) = out.reward {
                    let $self_ = &mut *self;
                    out.reward = Some($transform);
                }
                Ok(())
            }
            fn bsuite_info(&self) -> BsuiteInfo {
                self.env.bsuite_info()
            }
            fn bsuite_num_episodes(&self) -> usize {
                self.env.bsuite_num_episodes()
            }
        }
    };
}

reward_wrapper!(RewardNoise, |wrapper, reward| reward
    + wrapper.noise_scale * wrapper.rng.randn());
reward_wrapper!(RewardScale, |wrapper, reward| reward * wrapper.reward_scale);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::environments::catch::Catch;
    use crate::Episodic;

    #[test]
    fn noisy_catch_matches_reference_rewards() {
        // Reference value: RewardNoise(Catch(seed=0), noise_scale=1.0, seed=0), action 1 every step.
        let expected = [
            1.764052345967664,
            0.4001572083672233,
            0.9787379841057392,
            2.240893199201458,
            1.8675579901499675,
            -0.977277879876411,
            0.9500884175255894,
            -0.1513572082976979,
            -1.103218851793558,
        ];
        let mut env = RewardNoise::new(Episodic::new(Catch::new(10, 5, 0), 10), 1.0, 0);
        env.reset();
        for e in expected {
            assert_eq!(env.step(1).unwrap().reward, Some(e));
        }
    }
}
