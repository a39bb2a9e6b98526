//! The LibTorch baselines (feature `tch`): DQN, bootstrapped DQN with randomized prior
//! functions, and feed-forward and recurrent actor-critic, with the network sizes,
//! optimisers and update rules of bsuite's JAX `default_agent`s.
//!
//! Unlike the reference, every random draw an agent makes (initialisation, exploration,
//! replay sampling, bootstrap masks, policy sampling) comes from its own numpy-compatible
//! [`RandomState`](bsuite_envs::RandomState) seeded with the agent seed, so a run is
//! reproducible from (agent, bsuite_id, seed) — the fix of quirk 35 (bsuite samples replay
//! from numpy's global generator). LibTorch's own generator is never used.
//!
//! LibTorch 2.11.0 is needed to build this module: `cargo xtask libtorch` finds or installs
//! it, and `cargo xtask bench-all dqn` or `cargo xtask test` do so on their own.
//!
//! ```no_run
//! use bsuite_baselines::agents::{Dqn, DqnConfig};
//! use bsuite_envs::Environment;
//!
//! let mut env = bsuite_envs::load("catch/0").unwrap();
//! let mut agent = Dqn::new(
//!     &env.observation_spec(),
//!     &env.action_spec(),
//!     DqnConfig::default(),
//!     0,
//!     tch::Device::Cpu,
//! );
//! bsuite_baselines::run(&mut agent, &mut env, 100).unwrap();
//! ```

mod a2c;
mod actor_critic;
mod actor_critic_rnn;
mod boot_dqn;
mod dqn;
mod q_learning;

pub use a2c::host::{ActorCriticReplicas, RecurrentProbe};
pub use actor_critic::libtorch::{ActorCritic, ActorCriticConfig};
pub use actor_critic_rnn::libtorch::{ActorCriticRnn, ActorCriticRnnConfig};
pub use boot_dqn::libtorch::{BootDqn, BootDqnConfig};
pub use dqn::libtorch::{Dqn, DqnConfig};
pub use q_learning::host::{DqnReplicas, ReplicaSpec};
pub use tch::Device;

use crate::host;

use crate::agent::{Agent, BatchAgent, OneByOne};
use crate::config::{self, AgentConfig, Key};
use crate::factory::{AgentEntry, AgentSetup, Batching, ComputeDevice};

/// The LibTorch device of `device`, checking that CUDA is there when asked for.
///
/// ```no_run
/// use bsuite_baselines::factory::ComputeDevice;
///
/// assert_eq!(bsuite_baselines::agents::check_device(ComputeDevice::Cpu), Ok(tch::Device::Cpu));
/// ```
pub fn check_device(device: ComputeDevice) -> Result<Device, DeviceError> {
    let index = match device {
        ComputeDevice::Cpu => return Ok(Device::Cpu),
        ComputeDevice::Cuda(index) => index,
    };
    if !tch::Cuda::is_available() {
        return Err(DeviceError::NoCuda { device });
    }
    let count = tch::Cuda::device_count() as usize;
    if index >= count {
        return Err(DeviceError::NoSuchDevice { device, count });
    }
    Ok(Device::Cuda(index))
}

/// Why the LibTorch agents cannot compute on the asked-for device ([`check_device`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DeviceError {
    /// CUDA was asked for, and this build or machine has none.
    #[error(
        "--device {device}: CUDA is not available to this build (no NVIDIA GPU or driver, \
         or LibTorch's CUDA libraries are not loaded; `cargo xtask bench-all ... --device \
         cuda` installs LibTorch's CUDA variant on a machine with a GPU); use --device cpu"
    )]
    NoCuda {
        /// The device asked for.
        device: ComputeDevice,
    },
    /// A CUDA device beyond those the machine has.
    #[error("--device {device}: only {count} CUDA device(s)")]
    NoSuchDevice {
        /// The device asked for.
        device: ComputeDevice,
        /// The CUDA devices there are.
        count: usize,
    },
}

/// Runs `reps` products of two 256×256 matrices with the kernel the DQN agents' stacked
/// layers use on the host, and returns the floating-point operations done: a bench times
/// it to learn this CPU's matrix-product rate, the compute bound of those agents.
///
/// ```no_run
/// let start = std::time::Instant::now();
/// let flops = bsuite_baselines::agents::host_matmul_256(100);
/// println!("{:.1} GFLOP/s", flops / start.elapsed().as_secs_f64() / 1e9);
/// ```
pub fn host_matmul_256(reps: u32) -> f64 {
    const N: usize = 256;
    let a: Vec<f32> = (0..N * N)
        .map(|i| ((i * 7919) % 1009) as f32 / 1009.0 - 0.5)
        .collect();
    let b: Vec<f32> = (0..N * N)
        .map(|i| ((i * 104_729) % 1013) as f32 / 1013.0 - 0.5)
        .collect();
    let mut out = vec![0.0f32; N * N];
    for _ in 0..reps {
        host::matmul(&mut out, std::hint::black_box(&a), (N, 1), &b, N, None);
        std::hint::black_box(&mut out);
    }
    2.0 * (N as f64).powi(3) * f64::from(reps)
}

/// Runs `reps` Adam steps of the host kernel the DQN and actor-critic agents use over
/// `params` parameters, and returns the parameter updates done: a bench times it over a
/// set that fits in the L1 cache to learn this CPU's rate for Adam's arithmetic (a square
/// root and a division per parameter), the compute bound of the optimiser's phase.
///
/// ```no_run
/// let start = std::time::Instant::now();
/// let updates = bsuite_baselines::agents::host_adam(2048, 1000);
/// println!("{:.2} ns a parameter", start.elapsed().as_secs_f64() * 1e9 / updates);
/// ```
pub fn host_adam(params: usize, reps: u32) -> f64 {
    let mut w: Vec<f32> = (0..params).map(|i| (i % 97) as f32 * 1e-2).collect();
    let (mut m, mut v) = (vec![0.0f32; params], vec![0.0f32; params]);
    let mut g = vec![0.0f32; params];
    for t in 1..=u64::from(reps) {
        for (i, g) in g.iter_mut().enumerate() {
            *g = ((i % 13) as f32 - 6.0) * 1e-3;
        }
        let step = host::OptStep::new(config::Optimizer::Adam, 1e-3, t);
        host::apply(std::hint::black_box(&mut w), &mut m, &mut v, &mut g, step);
    }
    std::hint::black_box(&w);
    params as f64 * f64::from(reps)
}

/// Sums `xs` with the host kernels' widest loads, in 128 interleaved partial sums: a bench
/// times it over a buffer of a given size to learn this CPU's read bandwidth from the cache
/// level that holds it, the memory bound of the recurrent agents.
///
/// ```no_run
/// let xs = vec![1.0f32; 1 << 20];
/// let start = std::time::Instant::now();
/// assert_eq!(bsuite_baselines::agents::host_sum(&xs), (1 << 20) as f32);
/// println!("{:.1} GB/s", 4e-9 * xs.len() as f64 / start.elapsed().as_secs_f64());
/// ```
pub fn host_sum(xs: &[f32]) -> f32 {
    let whole = xs.len() / host::READ_LANES * host::READ_LANES;
    let mut lanes = [0.0f32; host::READ_LANES];
    host::add_lanes(&mut lanes, &xs[..whole]);
    lanes.iter().chain(&xs[whole..]).sum()
}

/// The LibTorch device of an agent's setup (checked by [`check_device`] before a run).
fn torch_device(setup: &AgentSetup) -> Device {
    match setup.device {
        ComputeDevice::Cpu => Device::Cpu,
        ComputeDevice::Cuda(index) => Device::Cuda(index),
    }
}

/// One intra-op thread per worker: these networks are far too small to gain from more, and
/// the runner already keeps every core busy with one id each. LibTorch keeps the setting
/// per thread, so each agent sets it on the thread that builds it.
pub(crate) fn init_threads() {
    tch::set_num_threads(1);
}

fn replica_spec(setup: &AgentSetup) -> ReplicaSpec {
    ReplicaSpec {
        observation_spec: setup.observation_spec.clone(),
        action_spec: setup.action_spec,
        seed: setup.seed,
    }
}

/// An agent for one id: `host`'s replica on the CPU, `tensor`'s agent on a GPU (where the
/// host engines do not run).
fn one<H: Agent + 'static, T: Agent + 'static>(
    setup: &AgentSetup,
    host: fn(&AgentConfig, &[ReplicaSpec]) -> H,
    tensor: fn(&AgentSetup) -> T,
) -> Box<dyn Agent> {
    if setup.device == ComputeDevice::Cpu {
        Box::new(host(&setup.config, &[replica_spec(setup)]))
    } else {
        Box::new(tensor(setup))
    }
}

/// Agents for many ids: `host`'s replicas in one batch on the CPU, `tensor`'s agents one by
/// one on a GPU. The replicas of a batch share one configuration but for their seeds (a
/// run has one).
fn batch<H: BatchAgent + 'static, T: Agent + 'static>(
    setups: &[AgentSetup],
    host: fn(&AgentConfig, &[ReplicaSpec]) -> H,
    tensor: fn(&AgentSetup) -> T,
) -> Box<dyn BatchAgent> {
    if setups.iter().all(|s| s.device == ComputeDevice::Cpu) {
        let Some(first) = setups.first() else {
            return Box::new(OneByOne(Vec::<T>::new()));
        };
        // Each replica has its own seed (in its spec); everything else is shared.
        let unseeded = |c: &AgentConfig| -> Vec<String> {
            c.entries()
                .filter(|(key, _)| *key != "seed")
                .map(|(key, value)| format!("{key}={value}"))
                .collect()
        };
        let shared = unseeded(&first.config);
        assert!(
            setups.iter().all(|s| unseeded(&s.config) == shared),
            "the replicas of a batch share one configuration but for the seed"
        );
        let specs: Vec<ReplicaSpec> = setups.iter().map(replica_spec).collect();
        Box::new(host(&first.config, &specs))
    } else {
        Box::new(OneByOne(setups.iter().map(tensor).collect()))
    }
}

fn host_dqn(config: &AgentConfig, specs: &[ReplicaSpec]) -> DqnReplicas {
    DqnReplicas::new(DqnConfig::from_config(config), specs)
}

fn tensor_dqn(s: &AgentSetup) -> Dqn {
    Dqn::new(
        &s.observation_spec,
        &s.action_spec,
        DqnConfig::from_config(&s.config),
        s.seed,
        torch_device(s),
    )
}

fn host_boot_dqn(config: &AgentConfig, specs: &[ReplicaSpec]) -> DqnReplicas {
    DqnReplicas::bootstrapped(BootDqnConfig::from_config(config), specs)
}

fn tensor_boot_dqn(s: &AgentSetup) -> BootDqn {
    BootDqn::new(
        &s.observation_spec,
        &s.action_spec,
        BootDqnConfig::from_config(&s.config),
        s.seed,
        torch_device(s),
    )
}

fn host_actor_critic(config: &AgentConfig, specs: &[ReplicaSpec]) -> ActorCriticReplicas {
    ActorCriticReplicas::feed_forward(ActorCriticConfig::from_config(config), specs)
}

fn tensor_actor_critic(s: &AgentSetup) -> ActorCritic {
    ActorCritic::new(
        &s.observation_spec,
        &s.action_spec,
        ActorCriticConfig::from_config(&s.config),
        s.seed,
        torch_device(s),
    )
}

/// actor_critic_rnn and actor_critic_rnn_reset, which differ in their tables' default of
/// `reset_training_state`.
fn host_actor_critic_rnn(config: &AgentConfig, specs: &[ReplicaSpec]) -> ActorCriticReplicas {
    ActorCriticReplicas::recurrent(ActorCriticRnnConfig::from_config(config), specs)
}

fn tensor_actor_critic_rnn(s: &AgentSetup) -> ActorCriticRnn {
    ActorCriticRnn::new(
        &s.observation_spec,
        &s.action_spec,
        ActorCriticRnnConfig::from_config(&s.config),
        s.seed,
        torch_device(s),
    )
}

/// The keys of one of [`crate::factory::LIBTORCH_AGENTS`].
fn keys(name: &str) -> &'static [Key] {
    crate::config::keys(name).unwrap_or_default()
}

/// The LibTorch agents by name, for [`crate::factory`].
pub fn entries() -> Vec<AgentEntry> {
    vec![
        AgentEntry {
            name: "dqn",
            keys: keys("dqn"),
            description: "DQN: MLP[64,64], Adam 1e-3, batch 32, replay 10000, ε 0.05 (LibTorch)",
            make: |s| one(s, host_dqn, tensor_dqn),
            batching: Some(Batching {
                key: |s| DqnReplicas::batch_key(&s.action_spec),
                make: |s| batch(s, host_dqn, tensor_dqn),
                // A step makes no LibTorch call to amortise, and a replica alone keeps its
                // data in cache: the 20 catch ids, 1000 episodes, take 2.56-2.65 s one by
                // one against 2.89-2.93 s in a batch of 32 (deep_sea and mnist: 2.9 s
                // against 3.4 s).
                default_size: 1,
            }),
        },
        AgentEntry {
            name: "boot_dqn",
            keys: keys("boot_dqn"),
            description: "bootstrapped DQN, 20 members with prior networks (scale 5) (LibTorch)",
            make: |s| one(s, host_boot_dqn, tensor_boot_dqn),
            batching: Some(Batching {
                key: |s| DqnReplicas::batch_key(&s.action_spec),
                make: |s| batch(s, host_boot_dqn, tensor_boot_dqn),
                // A replica's 20 members already make each product a batch; more replicas
                // only add cache pressure (catch: 0.68 ms a step alone, 1.04 ms in a batch
                // of 20, `cargo xtask bench agents`).
                default_size: 1,
            }),
        },
        AgentEntry {
            name: "actor_critic",
            keys: keys("actor_critic"),
            description: "A2C, MLP[64,64], TD(0.9) over 32 steps, Adam 3e-3 (LibTorch)",
            make: |s| one(s, host_actor_critic, tensor_actor_critic),
            batching: Some(Batching {
                key: |_| 0,
                make: |s| batch(s, host_actor_critic, tensor_actor_critic),
                default_size: 32,
            }),
        },
        AgentEntry {
            name: "actor_critic_rnn",
            keys: keys("actor_critic_rnn"),
            description: "recurrent A2C, MLP[256,256] + LSTM 256 (LibTorch)",
            make: |s| one(s, host_actor_critic_rnn, tensor_actor_critic_rnn),
            batching: Some(Batching {
                key: |_| 0,
                make: |s| batch(s, host_actor_critic_rnn, tensor_actor_critic_rnn),
                // Each replica streams its own 2.4 MB of weights every step, and its 9.7 MB
                // of weights, gradients and Adam moments every SGD step: one at a time they
                // stay in the L3 cache, while a batch of 20 streams them from DRAM, whose
                // floor is 2.3x higher and which runs 2.3x slower per step (`cargo xtask
                // bench agents`, its lockstep column).
                default_size: 1,
            }),
        },
        AgentEntry {
            name: "actor_critic_rnn_reset",
            keys: keys("actor_critic_rnn_reset"),
            description: "actor_critic_rnn with its training LSTM state reset at episode ends \
                          (a fix of quirk 33; not bsuite's agent) (LibTorch)",
            make: |s| one(s, host_actor_critic_rnn, tensor_actor_critic_rnn),
            batching: None,
        },
    ]
}

#[cfg(test)]
mod tests {
    /// Tools that do not link LibTorch route these names by `LIBTORCH_AGENTS`, so the two
    /// lists must agree.
    #[test]
    fn the_libtorch_agent_names_are_the_entries() {
        let names: Vec<&str> = super::entries().iter().map(|e| e.name).collect();
        assert_eq!(names, crate::factory::LIBTORCH_AGENTS);
    }

    /// The bench's bandwidth probe reads every element once, lanes and remainder alike.
    #[test]
    fn host_sum_reads_every_element() {
        for n in [0, 5, 128, 300, 4096] {
            let xs: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
            let exact: f32 = (0..n).map(|i| (i % 7) as f32).sum();
            assert_eq!(super::host_sum(&xs), exact, "{n} elements");
        }
    }

    /// The tables' defaults build the reference agents, whose bits the other tests pin.
    #[test]
    fn default_configurations_are_the_reference_agents() {
        use super::*;
        let defaults = |name| AgentConfig::defaults(name).unwrap();
        assert_eq!(
            DqnConfig::from_config(&defaults("dqn")),
            DqnConfig::default()
        );
        assert_eq!(
            BootDqnConfig::from_config(&defaults("boot_dqn")),
            BootDqnConfig::default()
        );
        assert_eq!(
            ActorCriticConfig::from_config(&defaults("actor_critic")),
            ActorCriticConfig::default()
        );
        assert_eq!(
            ActorCriticRnnConfig::from_config(&defaults("actor_critic_rnn")),
            ActorCriticRnnConfig::default()
        );
        assert_eq!(
            ActorCriticRnnConfig::from_config(&defaults("actor_critic_rnn_reset")),
            ActorCriticRnnConfig {
                reset_unroll_state: true,
                ..ActorCriticRnnConfig::default()
            }
        );
        for entry in entries() {
            let names: Vec<&str> = entry.keys.iter().map(|k| k.name).collect();
            assert!(names.contains(&"seed"), "{}: {names:?}", entry.name);
            assert_eq!(defaults(entry.name).entries().count(), names.len());
        }
    }
}
