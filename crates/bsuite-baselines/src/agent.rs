//! The agent interface of bsuite's baselines (`select_action` / `update`).

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
