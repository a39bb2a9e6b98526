//! The LibTorch engine's building blocks: the device check and thread setting, and networks
//! as plain tensors (MLPs stacked over an ensemble, an LSTM cell, Haiku's initialisation
//! drawn from the agent's own generator) and the optimisers.

use bsuite_envs::RandomState;
pub use tch::Device;
use tch::{nn, Kind, Tensor};

use crate::agent::{AgentSetup, ComputeDevice};
use crate::config::Optimizer;
use crate::host::truncated_normal;

/// The LibTorch device of `device`, checking that CUDA is there when asked for.
///
/// ```no_run
/// use bsuite_baselines::factory::ComputeDevice;
///
/// assert_eq!(bsuite_baselines::libtorch::check_device(ComputeDevice::Cpu), Ok(tch::Device::Cpu));
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

/// The LibTorch device of an agent's setup (checked by [`check_device`] before a run).
pub(crate) fn torch_device(setup: &AgentSetup) -> Device {
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

/// A tensor of `shape` with `values`, on `device`.
pub(crate) fn tensor(values: &[f32], shape: &[i64], device: Device) -> Tensor {
    let t = Tensor::from_slice(values).view(shape);
    if device == Device::Cpu {
        t
    } else {
        t.to_device(device)
    }
}

/// How a parameter is created: a trainable variable of a [`nn::VarStore`] or a constant.
pub(crate) enum Params<'a> {
    /// Registered in the store, so the optimiser updates it.
    Trainable(nn::Path<'a>),
    /// Plain tensors without gradients (target networks, prior functions).
    Fixed(Device),
}

impl Params<'_> {
    fn make(&self, name: &str, values: &[f32], shape: &[i64]) -> Tensor {
        match self {
            Params::Trainable(path) => {
                let init = tensor(values, shape, path.device());
                path.var_copy(name, &init)
            }
            Params::Fixed(device) => tensor(values, shape, *device),
        }
    }
}

/// `members` MLPs of the same shape, evaluated together with batched matmuls: layer `l`
/// has weights `[members, sizes[l], sizes[l+1]]` and biases `[members, 1, sizes[l+1]]`.
/// ReLU between layers, none after the last (Haiku's `MLP`, `activate_final=False`).
pub(crate) struct StackedMlp {
    layers: Vec<(Tensor, Tensor)>,
}

impl StackedMlp {
    /// Member after member and layer after layer, weights ~ TruncatedNormal(1/sqrt(fan_in))
    /// and zero biases, as Haiku's `Linear` initialises them.
    pub(crate) fn new(
        params: &Params<'_>,
        rng: &mut RandomState,
        members: usize,
        sizes: &[usize],
    ) -> Self {
        let mut weights: Vec<Vec<f32>> = vec![Vec::new(); sizes.len() - 1];
        for _ in 0..members {
            for (l, pair) in sizes.windows(2).enumerate() {
                let stddev = 1.0 / (pair[0] as f64).sqrt();
                weights[l].extend(truncated_normal(rng, pair[0] * pair[1], stddev));
            }
        }
        let k = members as i64;
        let layers = sizes
            .windows(2)
            .zip(&weights)
            .enumerate()
            .map(|(l, (pair, w))| {
                let (fan_in, fan_out) = (pair[0] as i64, pair[1] as i64);
                let zeros = vec![0.0f32; members * pair[1]];
                (
                    params.make(&format!("w{l}"), w, &[k, fan_in, fan_out]),
                    params.make(&format!("b{l}"), &zeros, &[k, 1, fan_out]),
                )
            })
            .collect();
        StackedMlp { layers }
    }

    /// `x` is `[batch, in]` (shared by all members) or `[members, batch, in]`; the result
    /// is `[members, batch, out]`.
    pub(crate) fn forward(&self, x: &Tensor) -> Tensor {
        let last = self.layers.len() - 1;
        let mut h = x.shallow_clone();
        for (l, (w, b)) in self.layers.iter().enumerate() {
            h = h.matmul(w) + b;
            if l < last {
                h = h.relu();
            }
        }
        h
    }

    /// Overwrites these parameters with `other`'s (a target network update).
    pub(crate) fn copy_from(&mut self, other: &StackedMlp) {
        tch::no_grad(|| {
            for ((w, b), (ow, ob)) in self.layers.iter_mut().zip(&other.layers) {
                w.copy_(ow);
                b.copy_(ob);
            }
        });
    }

    /// A frozen copy of member `k` alone, which later updates of `self` do not change.
    pub(crate) fn snapshot(&self, k: usize) -> StackedMlp {
        let k = k as i64;
        tch::no_grad(|| StackedMlp {
            layers: self
                .layers
                .iter()
                .map(|(w, b)| (w.narrow(0, k, 1).copy(), b.narrow(0, k, 1).copy()))
                .collect(),
        })
    }

    /// Member `k` alone, sharing storage with `self` (for parameters that never change).
    pub(crate) fn member_view(&self, k: usize) -> StackedMlp {
        let k = k as i64;
        StackedMlp {
            layers: self
                .layers
                .iter()
                .map(|(w, b)| (w.narrow(0, k, 1), b.narrow(0, k, 1)))
                .collect(),
        }
    }
}

/// Haiku's `LSTM` core: one Linear over `[x, h]` to the gates `[i, g, f, o]`, with 1 added
/// to the forget gate's input, `c' = σ(f + 1)·c + σ(i)·tanh(g)`, `h' = σ(o)·tanh(c')`.
pub(crate) struct Lstm {
    /// The rows of the Linear that see `x`: `[input, 4H]`.
    w_x: Tensor,
    /// The rows that see `h`: `[H, 4H]`.
    w_h: Tensor,
    bias: Tensor,
}

/// An LSTM state `(h, c)`, each `[1, H]`.
pub(crate) struct LstmState {
    pub(crate) h: Tensor,
    pub(crate) c: Tensor,
}

impl LstmState {
    pub(crate) fn zeros(hidden: usize, device: Device) -> Self {
        let zeros = || Tensor::zeros([1, hidden as i64], (Kind::Float, device));
        LstmState {
            h: zeros(),
            c: zeros(),
        }
    }

    pub(crate) fn detach(&self) -> Self {
        LstmState {
            h: self.h.detach(),
            c: self.c.detach(),
        }
    }
}

impl Lstm {
    /// Weights ~ TruncatedNormal(1/sqrt(input + hidden)) (the fan-in of the concatenated
    /// input), zero biases.
    pub(crate) fn new(
        path: nn::Path<'_>,
        rng: &mut RandomState,
        input: usize,
        hidden: usize,
    ) -> Self {
        let fan_in = input + hidden;
        let w = truncated_normal(rng, fan_in * 4 * hidden, 1.0 / (fan_in as f64).sqrt());
        let (w_x, w_h) = w.split_at(input * 4 * hidden);
        let params = Params::Trainable(path);
        let gates = 4 * hidden as i64;
        Lstm {
            w_x: params.make("w_x", w_x, &[input as i64, gates]),
            w_h: params.make("w_h", w_h, &[hidden as i64, gates]),
            bias: params.make("b", &vec![0.0; 4 * hidden], &[gates]),
        }
    }

    /// The input part of the gates for a whole sequence `[T, input]` in one matmul.
    pub(crate) fn input_gates(&self, x: &Tensor) -> Tensor {
        x.matmul(&self.w_x) + &self.bias
    }

    /// One step from precomputed input gates `[1, 4H]`.
    pub(crate) fn step(&self, input_gates: &Tensor, state: &LstmState) -> LstmState {
        let gates = input_gates + state.h.matmul(&self.w_h);
        let parts = gates.chunk(4, 1);
        let (i, g, f, o) = (&parts[0], &parts[1], &parts[2], &parts[3]);
        let c = (f + 1.0).sigmoid() * &state.c + i.sigmoid() * g.tanh();
        let h = o.sigmoid() * c.tanh();
        LstmState { h, c }
    }
}

/// The optimiser of a tensor agent over every trainable variable of its
/// [`nn::VarStore`], with optax's defaults but for the learning rate. The optimisers are
/// elementwise, so one over parameters stacked along an ensemble axis equals one per member.
pub(crate) enum TrainOptimizer {
    /// Adam (β1 0.9, β2 0.999, ε 1e-8: optax's and Sonnet's defaults) or plain SGD, as
    /// LibTorch implements them.
    Torch(nn::Optimizer),
    /// optax's RMSProp: `ν ← 0.1·g² + 0.9·ν`, `w ← w − lr·g/√(ν + 1e-8)`, ν starting at 0
    /// (PyTorch's RMSprop puts ε outside the square root, so it is written out here).
    RmsProp {
        vars: Vec<Tensor>,
        nu: Vec<Tensor>,
        learning_rate: f64,
    },
}

impl TrainOptimizer {
    /// `optimizer` over every trainable variable of `vs` (all created by now).
    pub(crate) fn new(vs: &nn::VarStore, optimizer: Optimizer, learning_rate: f64) -> Self {
        use tch::nn::OptimizerConfig;
        let torch = match optimizer {
            Optimizer::Adam => nn::Adam {
                beta1: 0.9,
                beta2: 0.999,
                wd: 0.0,
                eps: 1e-8,
                amsgrad: false,
            }
            .build(vs, learning_rate),
            Optimizer::Sgd => nn::Sgd {
                momentum: 0.0,
                dampening: 0.0,
                wd: 0.0,
                nesterov: false,
            }
            .build(vs, learning_rate),
            Optimizer::RmsProp => {
                let vars = vs.trainable_variables();
                let nu = vars.iter().map(Tensor::zeros_like).collect();
                return TrainOptimizer::RmsProp {
                    vars,
                    nu,
                    learning_rate,
                };
            }
        };
        TrainOptimizer::Torch(torch.expect("creating an optimiser"))
    }

    /// Zeroes the gradients of every variable.
    pub(crate) fn zero_grad(&mut self) {
        match self {
            TrainOptimizer::Torch(optimizer) => optimizer.zero_grad(),
            TrainOptimizer::RmsProp { vars, .. } => vars.iter_mut().for_each(Tensor::zero_grad),
        }
    }

    /// One step with the gradients the last backward pass left.
    pub(crate) fn step(&mut self) {
        match self {
            TrainOptimizer::Torch(optimizer) => optimizer.step(),
            TrainOptimizer::RmsProp {
                vars,
                nu,
                learning_rate,
            } => tch::no_grad(|| {
                const DECAY: f64 = 0.9;
                for (w, nu) in vars.iter_mut().zip(nu.iter_mut()) {
                    let g = w.grad();
                    if !g.defined() {
                        continue;
                    }
                    let new_nu = g.square() * (1.0 - DECAY) + &*nu * DECAY;
                    nu.copy_(&new_nu);
                    let update = (&g / (&*nu + 1e-8).sqrt()) * *learning_rate;
                    *w -= &update;
                }
            }),
        }
    }
}

/// The values of a small tensor, on the CPU.
pub(crate) fn to_vec(t: &Tensor) -> Vec<f32> {
    let t = t
        .to_device(Device::Cpu)
        .to_kind(Kind::Float)
        .contiguous()
        .view([-1]);
    Vec::<f32>::try_from(&t).expect("a float tensor")
}
