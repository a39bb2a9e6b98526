//! The ten bsuite environments, each as [`Dynamics`](crate::Dynamics) wrapped by
//! [`Episodic`](crate::Episodic).
//!
//! Every RNG draw happens in the reference's order and every floating-point expression is
//! evaluated in the reference's order, so the same seed and actions give bit-identical
//! timesteps. Reference quirks that change results are reproduced and marked `Quirk:` at the
//! line where they happen.

pub mod bandit;
pub mod cartpole;
pub mod cartpole_swingup;
pub mod catch;
pub mod deep_sea;
pub mod discounting_chain;
pub mod memory_chain;
pub mod mnist;
pub mod mountain_car;
pub mod umbrella_chain;
