//! MNISTBandit: a contextual bandit; each one-step episode shows a digit and pays +1 for
//! the right label and -1 otherwise.

use std::sync::Arc;

use crate::environment::{ActionSpec, BsuiteInfo, Dynamics, InfoValue, ObservationSpec, TimeStep};
use crate::mnist_data::{self, MnistData, MnistError};
use crate::rng::RandomState;

/// The MNIST contextual bandit (`bsuite.environments.mnist.MNISTBandit`).
#[derive(Debug, Clone)]
pub struct MnistBandit {
    data: Arc<MnistData>,
    num_data: usize,
    rng: RandomState,
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
        let index = self.rng.randint(self.num_data);
        self.correct_label = self.data.label(index);
        out.set_restart();
        // Shared, not copied: the data set already holds every image as an observation.
        out.observation.share(self.data.shared_image(index));
    }

    fn step(&mut self, action: usize, out: &mut TimeStep) {
        let reward = if action == self.correct_label as usize {
            1.0
        } else {
            -1.0
        };
        self.total_regret += 1.0 - reward;
        out.set_termination(reward);
        out.observation.share(self.data.shared_zeros());
    }

    fn bsuite_info(&self) -> BsuiteInfo {
        vec![("total_regret", InfoValue::Float(self.total_regret))]
    }
}
