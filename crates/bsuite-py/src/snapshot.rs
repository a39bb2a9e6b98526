//! Pickling and copying environments: a [`History`] of what was done to them since they were
//! loaded, replayed into a fresh load.
//!
//! Every environment is a deterministic function of its bsuite_id, its env seed and the
//! resets and actions it was given, so those three are its full state, random generators
//! included: a replay reaches exactly the original's state, and the copy and the original
//! then return the same timesteps for the same actions. A history costs one byte per
//! environment step; past [`MAX_HISTORY`] bytes it stops growing and the environment can no
//! longer be pickled (a newly loaded one starts a new history). Environments that can never
//! be copied (recording ones, closed ones) keep none ([`History::not_kept`]).

use bsuite_envs::{ActionError, Environment, TimeStep};
use pyo3::exceptions::PyValueError;
use pyo3::PyErr;

/// The byte of a reset in a history.
pub const RESET: u8 = u8::MAX;
/// The byte of SB3's partial reset ([`crate::vec_env::Batch::reset_ended`]): a reset if the
/// latest timestep is LAST, nothing otherwise.
pub const RESET_IF_ENDED: u8 = u8::MAX - 1;
/// The most bytes (environment steps) a history keeps: 64 MiB.
pub const MAX_HISTORY: usize = 64 << 20;

/// What an environment (or each environment of a batch) was given since it was loaded: one
/// byte per environment and call, the action or [`RESET`] or [`RESET_IF_ENDED`].
pub struct History {
    bytes: Vec<u8>,
    /// Set once the history would pass [`MAX_HISTORY`]; it is then dropped.
    overflowed: bool,
    /// False for an environment that can never be copied: nothing is kept.
    kept: bool,
}

impl Default for History {
    /// An empty history, kept.
    fn default() -> Self {
        History {
            bytes: Vec::new(),
            overflowed: false,
            kept: true,
        }
    }
}

impl History {
    /// The history of an environment that can never be pickled or copied (a recording or
    /// closed one): nothing is kept, so that it costs no memory per step.
    pub fn not_kept() -> History {
        History {
            kept: false,
            ..History::default()
        }
    }

    /// Appends one call's bytes (one per environment).
    pub fn push(&mut self, row: impl ExactSizeIterator<Item = u8>) {
        if self.overflowed || !self.kept {
            return;
        }
        if self.bytes.len() + row.len() > MAX_HISTORY {
            self.overflowed = true;
            self.bytes = Vec::new();
            return;
        }
        self.bytes.extend(row);
    }

    /// Appends one step's actions. Actions are below [`RESET_IF_ENDED`] in every bsuite
    /// environment (at most 11); a larger one would be misread, so it ends the history.
    pub fn push_actions(&mut self, actions: impl ExactSizeIterator<Item = usize>) {
        if self.overflowed || !self.kept {
            return;
        }
        let mut fits = true;
        let row: Vec<u8> = actions
            .map(|a| match u8::try_from(a) {
                Ok(byte) if byte < RESET_IF_ENDED => byte,
                _ => {
                    fits = false;
                    0
                }
            })
            .collect();
        if fits {
            self.push(row.into_iter());
        } else {
            self.overflowed = true;
            self.bytes = Vec::new();
        }
    }

    /// The history, or why there is none to pickle.
    pub fn bytes(&self, what: &dyn std::fmt::Display) -> Result<&[u8], String> {
        if !self.kept {
            return Err(format!(
                "{what} keeps no history, so it cannot be pickled or copied"
            ));
        }
        if self.overflowed {
            // A native environment has no seeded reset; loading one anew is what starts a
            // new history (gymnasium's reset(seed=...) does that too).
            return Err(format!(
                "{what} cannot be pickled or copied: it has taken more than {MAX_HISTORY} \
                 environment steps since it was loaded (a copy replays them); copy it \
                 earlier, or copy a newly loaded one"
            ));
        }
        Ok(&self.bytes)
    }

    /// A history that starts with `bytes` (those of a replay).
    pub fn from_bytes(bytes: &[u8]) -> History {
        History {
            bytes: bytes.to_vec(),
            ..History::default()
        }
    }
}

/// Whether SB3's partial reset ([`RESET_IF_ENDED`]) restarts the environment whose latest
/// timestep is `timestep`: its episode has ended, or it has none yet (it was loaded and
/// never reset or stepped, so `timestep` is the empty default).
pub fn ended_or_unstarted(timestep: &TimeStep) -> bool {
    timestep.last() || timestep.observation.is_empty()
}

/// Replays the calls `bytes[start], bytes[start + stride], ...` into `env`, leaving its
/// latest timestep in `timestep`.
pub fn replay(
    env: &mut dyn Environment,
    bytes: &[u8],
    start: usize,
    stride: usize,
    timestep: &mut TimeStep,
) -> Result<(), ActionError> {
    for &byte in bytes.iter().skip(start).step_by(stride.max(1)) {
        match byte {
            RESET => env.reset_into(timestep),
            RESET_IF_ENDED => {
                if ended_or_unstarted(timestep) {
                    env.reset_into(timestep);
                }
            }
            action => env.step_into(usize::from(action), timestep)?,
        }
    }
    Ok(())
}

/// The error of a history that does not replay (not one of ours).
pub fn replay_error(what: &dyn std::fmt::Display, err: &ActionError) -> PyErr {
    PyValueError::new_err(format!(
        "{what}: this pickled history does not replay ({err}); was it made by another \
         version of bsuite-rs?"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replay_reaches_the_same_state() {
        let mut original = bsuite_envs::load("cartpole/3").unwrap();
        let mut history = History::default();
        let mut ts = TimeStep::default();
        original.reset_into(&mut ts);
        history.push(std::iter::once(RESET));
        for t in 0..500usize {
            original.step_into(t % 3, &mut ts).unwrap();
            history.push_actions(std::iter::once(t % 3));
        }
        let mut copy = bsuite_envs::load("cartpole/3").unwrap();
        let mut copied = TimeStep::default();
        replay(
            &mut *copy,
            history.bytes(&"env").unwrap(),
            0,
            1,
            &mut copied,
        )
        .unwrap();
        assert_eq!(copied, ts);
        for t in 0..300usize {
            original.step_into((t * 7) % 3, &mut ts).unwrap();
            copy.step_into((t * 7) % 3, &mut copied).unwrap();
            assert_eq!(copied, ts, "step {t}");
        }
    }

    #[test]
    fn an_overlong_history_refuses_to_pickle() {
        let mut history = History::default();
        history.push_actions([300usize].into_iter());
        let err = history.bytes(&"catch/0").unwrap_err().to_string();
        assert!(err.contains("cannot be pickled"), "{err}");
    }
}
