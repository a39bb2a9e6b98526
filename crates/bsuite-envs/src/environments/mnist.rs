//! MNISTBandit: a contextual bandit; each one-step episode shows a digit and pays +1 for
//! the right label and -1 otherwise.

use std::sync::Arc;

use crate::environment::{ActionSpec, BsuiteInfo, Dynamics, InfoValue, ObservationSpec, TimeStep};
use crate::mnist_data::{self, MnistData, MnistError, PIXELS};
use crate::rng::RandomState;

/// The MNIST contextual bandit (`bsuite.environments.mnist.MNISTBandit`).
#[derive(Debug, Clone)]
pub struct MnistBandit {
    data: Arc<MnistData>,
    num_data: usize,
    rng: RandomState,
    /// The image indices of the next resets, drawn `LOOKAHEAD` resets ahead (see `reset`).
    upcoming: std::collections::VecDeque<usize>,
    correct_label: u8,
    total_regret: f64,
}

impl MnistBandit {
    /// The bandit over the first `fraction` of the training set, images drawn from `seed`.
    ///
    /// The data is the standard training set read from `$BSUITE_MNIST_DIR` when that is set,
    /// and otherwise the 5000-digit subset embedded in this crate (see [`mnist_data`]).
    pub fn new(fraction: f64, seed: u32) -> Result<Self, MnistError> {
        Ok(Self::with_data(mnist_data::default_data()?, fraction, seed))
    }

    /// The bandit over the first `fraction` of `data`.
    pub fn with_data(data: Arc<MnistData>, fraction: f64, seed: u32) -> Self {
        let num_data = (fraction * data.len() as f64) as usize;
        assert!(num_data >= 1, "MNIST bandit needs at least one image");
        MnistBandit {
            data,
            num_data,
            rng: RandomState::new(seed),
            upcoming: std::collections::VecDeque::with_capacity(LOOKAHEAD + 1),
            correct_label: 0,
            total_regret: 0.0,
        }
    }
}

impl Dynamics for MnistBandit {
    const NAME: &'static str = "mnist";

    fn observation_spec(&self) -> ObservationSpec {
        ObservationSpec::float32(vec![28, 28], "observation")
    }

    fn action_spec(&self) -> ActionSpec {
        ActionSpec::new(10, "int32")
    }

    fn reset(&mut self, out: &mut TimeStep) {
        // The RNG serves only resets, so drawing each reset's index a few resets early leaves
        // every index exactly as the reference draws it. Knowing the coming images lets us
        // prefetch them: a random image of the 15 MB data set is otherwise a cache miss that
        // dominates the cost of an episode.
        while self.upcoming.len() <= LOOKAHEAD {
            let ahead = self.rng.randint(self.num_data);
            prefetch(self.data.image(ahead));
            self.upcoming.push_back(ahead);
        }
        let index = self.upcoming.pop_front().expect("filled above");
        self.correct_label = self.data.label(index);
        out.set_restart();
        out.observation.clear();
        out.observation.extend_from_slice(self.data.image(index));
    }

    fn step(&mut self, action: usize, out: &mut TimeStep) {
        let reward = if action == self.correct_label as usize {
            1.0
        } else {
            -1.0
        };
        self.total_regret += 1.0 - reward;
        out.set_termination(reward);
        out.zeroed_observation(PIXELS);
    }

    fn bsuite_info(&self) -> BsuiteInfo {
        vec![("total_regret", InfoValue::Float(self.total_regret))]
    }
}

/// How many resets ahead image indices are drawn and prefetched.
const LOOKAHEAD: usize = 4;

/// Hints the CPU to start loading `values` into cache; no effect on results.
#[inline]
fn prefetch(values: &[f32]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        const LINE: usize = 64 / std::mem::size_of::<f32>();
        for k in (0..values.len()).step_by(LINE) {
            // SAFETY: prefetch is a hint for an address inside `values`; it never faults and
            // SSE is part of the x86_64 baseline.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(values.as_ptr().add(k).cast::<i8>()) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = values;
}
