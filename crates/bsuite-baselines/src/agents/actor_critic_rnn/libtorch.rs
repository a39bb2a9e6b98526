//! Recurrent actor-critic (bsuite's `baselines/jax/actor_critic_rnn`), the agent the paper
//! uses for the memory experiments.

use bsuite_envs::{ActionSpec, ObservationSpec, RandomState, TimeStep};
use tch::{nn, Device, Tensor};

use super::ActorCriticRnnConfig;
use crate::agents::a2c::sample_softmax;
use crate::agents::a2c::sequence::Buffer;
use crate::agents::actor_critic::libtorch::actor_critic_loss;
use crate::libtorch::{tensor, to_vec, Lstm, LstmState, Params, StackedMlp, TrainOptimizer};
use crate::subnormals::FlushSubnormals;
use crate::Agent;

/// A2C with `Flatten → MLP → LSTM → (policy, value)` heads.
pub struct ActorCriticRnn {
    config: ActorCriticRnnConfig,
    num_actions: usize,
    device: Device,
    _vs: nn::VarStore,
    torso: StackedMlp,
    lstm: Lstm,
    heads: StackedMlp,
    optimizer: TrainOptimizer,
    buffer: Buffer,
    rng: RandomState,
    /// The state acting carries; zeroed at every episode end.
    state: LstmState,
    /// The state training unrolls from. Quirk 33: as in JAX it is the final state of the
    /// previous unroll (which ends on the next chunk's first observation, so that one is
    /// processed twice) and is never reset at episode boundaries.
    unroll_state: LstmState,
}

impl ActorCriticRnn {
    /// A recurrent actor-critic agent for these specs (observations are flattened).
    pub fn new(
        observation_spec: &ObservationSpec,
        action_spec: &ActionSpec,
        config: ActorCriticRnnConfig,
        seed: u32,
        device: Device,
    ) -> Self {
        crate::libtorch::init_threads();
        let obs_len = observation_spec.len();
        let num_actions = action_spec.num_actions;
        let mut rng = RandomState::new(seed);
        let vs = nn::VarStore::new(device);
        let mut sizes = vec![obs_len];
        sizes.extend(&config.base.hidden);
        let width = *sizes.last().expect("sizes has the input");
        // Quirk 31: no ReLU after the torso's last Linear (JAX); the LSTM takes it as is.
        let torso = StackedMlp::new(&Params::Trainable(vs.root() / "torso"), &mut rng, 1, &sizes);
        let lstm = Lstm::new(vs.root() / "lstm", &mut rng, width, config.lstm_size);
        let heads = StackedMlp::new(
            &Params::Trainable(vs.root() / "heads"),
            &mut rng,
            1,
            &[config.lstm_size, num_actions + 1],
        );
        let optimizer = TrainOptimizer::new(&vs, config.base.optimizer, config.base.learning_rate);
        ActorCriticRnn {
            buffer: Buffer::new(obs_len, config.base.sequence_length),
            state: LstmState::zeros(config.lstm_size, device),
            unroll_state: LstmState::zeros(config.lstm_size, device),
            config,
            num_actions,
            device,
            _vs: vs,
            torso,
            lstm,
            heads,
            optimizer,
            rng,
        }
    }

    /// Logits `[N, A]` and values `[N]` of LSTM outputs `[N, H]`.
    fn heads(&self, h: &Tensor) -> (Tensor, Tensor) {
        let out = self.heads.forward(h).squeeze_dim(0);
        let a = self.num_actions as i64;
        (out.narrow(1, 0, a), out.select(1, a))
    }

    fn sgd_step(&mut self) {
        let n = self.buffer.len() as i64 + 1;
        let obs = tensor(&self.buffer.observations, &[n, -1], self.device);
        let input_gates = self
            .lstm
            .input_gates(&self.torso.forward(&obs).squeeze_dim(0));
        let mut state = self.unroll_state.detach();
        let mut outputs = Vec::with_capacity(n as usize);
        for t in 0..n {
            state = self.lstm.step(&input_gates.narrow(0, t, 1), &state);
            outputs.push(state.h.shallow_clone());
        }
        let (logits, values) = self.heads(&Tensor::cat(&outputs, 0));
        let loss = actor_critic_loss(&logits, &values, &self.buffer, &self.config.base);
        self.optimizer.zero_grad();
        loss.backward();
        self.optimizer.step();
        self.unroll_state = state.detach();
    }
}

impl Agent for ActorCriticRnn {
    fn select_action(&mut self, timestep: &TimeStep) -> usize {
        let _flush = FlushSubnormals::new();
        let logits = tch::no_grad(|| {
            let x = tensor(&timestep.observation, &[1, -1], self.device);
            let gates = self
                .lstm
                .input_gates(&self.torso.forward(&x).squeeze_dim(0));
            self.state = self.lstm.step(&gates, &self.state);
            to_vec(&self.heads(&self.state.h).0)
        });
        sample_softmax(&logits, &mut self.rng)
    }

    fn update(&mut self, timestep: &TimeStep, action: usize, new_timestep: &TimeStep) {
        let _flush = FlushSubnormals::new();
        if new_timestep.last() {
            self.state = LstmState::zeros(self.config.lstm_size, self.device);
        }
        self.buffer.append(timestep, action, new_timestep);
        if self.buffer.full() || new_timestep.last() {
            self.buffer.drain();
            self.sgd_step();
            if new_timestep.last() && self.config.reset_unroll_state {
                self.unroll_state = LstmState::zeros(self.config.lstm_size, self.device);
            }
        }
    }
}
