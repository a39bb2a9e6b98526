//! Feed-forward actor-critic with TD(λ) returns (bsuite's `baselines/jax/actor_critic`).

use bsuite_envs::{ActionSpec, ObservationSpec, RandomState, TimeStep};
use tch::{nn, Device, Kind, Tensor};

use super::ActorCriticConfig;
use crate::agents::a2c::sample_softmax;
use crate::agents::a2c::sequence::{lambda_returns, Buffer};
use crate::libtorch::{tensor, to_vec, Params, StackedMlp, TrainOptimizer};
use crate::subnormals::FlushSubnormals;
use crate::Agent;

/// The JAX actor-critic loss on a trajectory: `mean(δ²) + mean(−log π(a_t|s_t)·δ_t)`, δ
/// from TD(λ) returns that carry no gradient, the policy term's δ without gradient either
/// (rlax.td_lambda and rlax.policy_gradient_loss; means, no 0.5 factor, unlike TF).
/// `logits` is `[T + 1, A]` and `values` `[T + 1]`.
pub(crate) fn actor_critic_loss(
    logits: &Tensor,
    values: &Tensor,
    buffer: &Buffer,
    config: &ActorCriticConfig,
) -> Tensor {
    let t = buffer.len() as i64;
    let device = values.device();
    let returns = lambda_returns(
        &buffer.rewards,
        &buffer.discounts,
        &to_vec(values),
        config.discount,
        config.td_lambda,
    );
    let returns = tensor(&returns, &[t], device);
    let td = returns - values.narrow(0, 0, t);
    let critic = td.square().mean(Kind::Float);
    let actions = Tensor::from_slice(&buffer.actions).to_device(device);
    let log_probs = logits
        .narrow(0, 0, t)
        .log_softmax(-1, Kind::Float)
        .gather(1, &actions.view([t, 1]), false)
        .squeeze_dim(1);
    let actor = -(log_probs * td.detach()).mean(Kind::Float);
    actor + critic
}

/// A2C with a softmax policy, updated on every `sequence_length` transitions and at every
/// episode end.
pub struct ActorCritic {
    config: ActorCriticConfig,
    num_actions: usize,
    device: Device,
    _vs: nn::VarStore,
    torso: StackedMlp,
    /// The policy logits and the value in one Linear (`num_actions + 1` outputs).
    heads: StackedMlp,
    optimizer: TrainOptimizer,
    buffer: Buffer,
    rng: RandomState,
}

impl ActorCritic {
    /// An actor-critic agent for these specs (observations are flattened).
    pub fn new(
        observation_spec: &ObservationSpec,
        action_spec: &ActionSpec,
        config: ActorCriticConfig,
        seed: u32,
        device: Device,
    ) -> Self {
        crate::libtorch::init_threads();
        let obs_len = observation_spec.len();
        let num_actions = action_spec.num_actions;
        let mut rng = RandomState::new(seed);
        let vs = nn::VarStore::new(device);
        let mut sizes = vec![obs_len];
        sizes.extend(&config.hidden);
        let width = *sizes.last().expect("sizes has the input");
        // Quirk 31: the JAX torso is MLP[64, 64] without a final ReLU, so its last Linear
        // feeds the heads directly (TF's torso ends in a ReLU).
        let torso = StackedMlp::new(&Params::Trainable(vs.root() / "torso"), &mut rng, 1, &sizes);
        let heads = StackedMlp::new(
            &Params::Trainable(vs.root() / "heads"),
            &mut rng,
            1,
            &[width, num_actions + 1],
        );
        let optimizer = TrainOptimizer::new(&vs, config.optimizer, config.learning_rate);
        ActorCritic {
            buffer: Buffer::new(obs_len, config.sequence_length),
            config,
            num_actions,
            device,
            _vs: vs,
            torso,
            heads,
            optimizer,
            rng,
        }
    }

    /// Logits `[N, A]` and values `[N]` of observations `[N, obs]`.
    fn forward(&self, observations: &Tensor) -> (Tensor, Tensor) {
        let out = self
            .heads
            .forward(&self.torso.forward(observations))
            .squeeze_dim(0);
        let a = self.num_actions as i64;
        (out.narrow(1, 0, a), out.select(1, a))
    }

    fn sgd_step(&mut self) {
        let n = self.buffer.len() as i64 + 1;
        let obs = tensor(&self.buffer.observations, &[n, -1], self.device);
        let (logits, values) = self.forward(&obs);
        let loss = actor_critic_loss(&logits, &values, &self.buffer, &self.config);
        self.optimizer.zero_grad();
        loss.backward();
        self.optimizer.step();
    }
}

impl Agent for ActorCritic {
    fn select_action(&mut self, timestep: &TimeStep) -> usize {
        let _flush = FlushSubnormals::new();
        let logits = tch::no_grad(|| {
            let x = tensor(&timestep.observation, &[1, -1], self.device);
            to_vec(&self.forward(&x).0)
        });
        sample_softmax(&logits, &mut self.rng)
    }

    fn update(&mut self, timestep: &TimeStep, action: usize, new_timestep: &TimeStep) {
        let _flush = FlushSubnormals::new();
        self.buffer.append(timestep, action, new_timestep);
        if self.buffer.full() || new_timestep.last() {
            self.buffer.drain();
            self.sgd_step();
        }
    }
}
