//! A trajectory buffer for the actor-critic agents (bsuite's `baselines/utils/sequence.py`).

use bsuite_envs::TimeStep;

/// Up to `max_len` transitions of one episode: `T + 1` observations, `T` actions, rewards
/// and discounts.
pub(crate) struct Buffer {
    obs_len: usize,
    max_len: usize,
    t: usize,
    needs_reset: bool,
    pub(crate) observations: Vec<f32>,
    pub(crate) actions: Vec<i64>,
    pub(crate) rewards: Vec<f32>,
    pub(crate) discounts: Vec<f32>,
}

impl Buffer {
    pub(crate) fn new(obs_len: usize, max_len: usize) -> Self {
        Buffer {
            obs_len,
            max_len,
            t: 0,
            needs_reset: true,
            observations: Vec::with_capacity((max_len + 1) * obs_len),
            actions: Vec::with_capacity(max_len),
            rewards: Vec::with_capacity(max_len),
            discounts: Vec::with_capacity(max_len),
        }
    }

    /// Appends a transition; the first after a drain or an episode end also records
    /// `timestep`'s observation.
    pub(crate) fn append(&mut self, timestep: &TimeStep, action: usize, new_timestep: &TimeStep) {
        assert!(!self.full(), "appending to a full trajectory buffer");
        if self.needs_reset {
            self.needs_reset = false;
            self.t = 0;
            self.observations.clear();
            self.actions.clear();
            self.rewards.clear();
            self.discounts.clear();
            self.observations.extend_from_slice(&timestep.observation);
        }
        debug_assert_eq!(new_timestep.observation.len(), self.obs_len);
        self.observations
            .extend_from_slice(&new_timestep.observation);
        self.actions.push(action as i64);
        self.rewards.push(new_timestep.reward_or_zero() as f32);
        self.discounts
            .push(new_timestep.discount.unwrap_or(0.0) as f32);
        self.t += 1;
        if new_timestep.last() {
            self.needs_reset = true;
        }
    }

    /// The row the observation acted on next will take: 0 when the next append starts a
    /// trajectory, else the number of transitions held.
    pub(crate) fn next_row(&self) -> usize {
        if self.needs_reset {
            0
        } else {
            self.t
        }
    }

    /// True once `max_len` transitions are held.
    pub(crate) fn full(&self) -> bool {
        self.t == self.max_len
    }

    /// Transitions of the current trajectory, or of the one just drained.
    pub(crate) fn len(&self) -> usize {
        self.actions.len()
    }

    /// Marks the contents as consumed; the next append starts a new trajectory. The data
    /// stays readable until then.
    pub(crate) fn drain(&mut self) -> usize {
        assert!(self.t > 0, "draining an empty trajectory buffer");
        let t = self.t;
        self.t = 0;
        self.needs_reset = true;
        t
    }
}

/// TD(λ) errors of a trajectory (rlax.td_lambda): λ-returns computed backwards from
/// `G_{T-1} = r + γ·v(s_T)`, `G_t = r_t + γ_t·((1-λ)·v(s_{t+1}) + λ·G_{t+1})`, with
/// `γ_t = discount·d_t`. `values` has `T + 1` entries; the returns are targets only (no
/// gradient), so they are computed here rather than in the graph.
pub(crate) fn lambda_returns(
    rewards: &[f32],
    discounts: &[f32],
    values: &[f32],
    discount: f32,
    lambda: f32,
) -> Vec<f32> {
    let t_len = rewards.len();
    let mut returns = vec![0.0f32; t_len];
    let mut g = values[t_len];
    for t in (0..t_len).rev() {
        let gamma = discount * discounts[t];
        g = rewards[t] + gamma * ((1.0 - lambda) * values[t + 1] + lambda * g);
        returns[t] = g;
    }
    returns
}

#[cfg(test)]
mod tests {
    use super::*;
    use bsuite_envs::StepType;

    fn ts(step_type: StepType, x: f32, reward: f64) -> TimeStep {
        TimeStep {
            step_type,
            reward: Some(reward),
            discount: Some(if step_type == StepType::Last {
                0.0
            } else {
                1.0
            }),
            observation: vec![x].into(),
        }
    }

    #[test]
    fn buffer_keeps_one_more_observation_than_transitions() {
        let mut buffer = Buffer::new(1, 2);
        buffer.append(
            &ts(StepType::First, 0.0, 0.0),
            1,
            &ts(StepType::Mid, 1.0, 0.5),
        );
        buffer.append(
            &ts(StepType::Mid, 1.0, 0.5),
            0,
            &ts(StepType::Mid, 2.0, 1.0),
        );
        assert!(buffer.full());
        assert_eq!(buffer.drain(), 2);
        assert_eq!(buffer.observations, [0.0, 1.0, 2.0]);
        assert_eq!(buffer.actions, [1, 0]);
        assert_eq!(buffer.rewards, [0.5, 1.0]);
        buffer.append(
            &ts(StepType::Mid, 2.0, 0.0),
            2,
            &ts(StepType::Last, 3.0, -1.0),
        );
        assert_eq!(
            (buffer.len(), buffer.discounts.as_slice()),
            (1, &[0.0f32][..])
        );
        assert_eq!(buffer.observations, [2.0, 3.0]);
    }

    #[test]
    fn lambda_returns_match_the_recursion() {
        // λ = 1: discounted Monte Carlo returns bootstrapped from v(s_T).
        let g = lambda_returns(&[1.0, 2.0], &[1.0, 1.0], &[0.0, 0.0, 10.0], 0.5, 1.0);
        assert_eq!(g, [1.0 + 0.5 * (2.0 + 0.5 * 10.0), 2.0 + 0.5 * 10.0]);
        // λ = 0: one-step TD targets; a zero env discount cuts the bootstrap.
        let g = lambda_returns(&[1.0, 2.0], &[1.0, 0.0], &[0.0, 3.0, 10.0], 0.5, 0.0);
        assert_eq!(g, [1.0 + 0.5 * 3.0, 2.0]);
    }
}
