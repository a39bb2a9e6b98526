//! Wrappers that change rewards or observations of any [`Environment`](crate::Environment).

mod image_observation;
mod reward;

pub use image_observation::{to_image, ImageObservation};
pub use reward::{RewardNoise, RewardScale};
