//! The actor-critic agents on the host, as replicas: bsuite's `actor_critic` (an MLP torso)
//! and `actor_critic_rnn` (an MLP torso and an LSTM), each replica with its own parameters,
//! optimiser state, trajectory buffer, LSTM states and random stream.
//!
//! Their networks are small enough that LibTorch's per-call overhead, not arithmetic, set
//! their speed, and replicas do not share weights; so every replica runs its forward and
//! backward passes as host loops over its own weights ([`crate::host::dense`]), each weight row
//! read once per pass for all the rows of a trajectory. A replica computes the same bits
//! alone or in any batch. Replicas update when their own trajectory is full or their own
//! episode ends, which in a lockstep batch need not be at the same step.
//!
//! Parameters change only at SGD steps, so acting sees each observation of a trajectory
//! with the parameters its training pass will use: acting runs that pass's torso rows,
//! and steps the LSTM's training state beside the acting one (one read of the weights
//! for both), and the SGD step computes only the rest. Acting is bound by reading the
//! weights from cache, so the training forward pass costs little more than nothing.

use bsuite_envs::{RandomState, TimeStep};

use crate::agent::{Agent, BatchAgent};
use crate::agents::a2c::sample_softmax;
use crate::agents::a2c::sequence::{lambda_returns, Buffer};
use crate::agents::a2c::ActorCriticConfig;
use crate::host::dense::{Linear, Lstm, LstmState, Mlp, Params, StatePair, Unroll};
use crate::host::ReplicaSpec;
use crate::subnormals::FlushSubnormals;

/// The recurrent part of a replica.
struct Recurrent {
    lstm: Lstm,
    /// The state acting carries; zeroed at every episode end.
    acting: LstmState,
    /// The state training unrolls from. Quirk 33: as in JAX it is the final state of the
    /// previous unroll (which ends on the next trajectory's first observation, so that one
    /// is processed twice) and, unless `reset_unroll_state` is set, is never reset at
    /// episode boundaries.
    unroll_state: LstmState,
    /// The unroll of the trajectory being collected: acting records each step of it as it
    /// goes ([`Replica::select_action`]), training finishes it.
    unroll: Unroll,
    /// The acting step's record (one step), when acting runs alone.
    acting_unroll: Unroll,
    pair: StatePair,
    /// Loss gradients with respect to the LSTM outputs, `[T + 1, H]`.
    delta_h: Vec<f32>,
}

/// One replica's networks, state and scratch buffers.
struct Replica {
    rng: RandomState,
    num_actions: usize,
    obs_len: usize,
    params: Params,
    torso: Mlp,
    recurrent: Option<Recurrent>,
    /// The policy logits and the value in one Linear (`num_actions + 1` outputs).
    head: Linear,
    buffer: Buffer,
    /// Torso activations of a trajectory, `[T + 1, width]` per layer, and their gradients.
    torso_acts: Vec<Vec<f32>>,
    torso_deltas: Vec<Vec<f32>>,
    /// Head outputs of a trajectory, `[T + 1, A + 1]`, and their gradients.
    out: Vec<f32>,
    delta_out: Vec<f32>,
    /// Torso activations and head output when acting runs alone.
    acting_acts: Vec<Vec<f32>>,
    acting_out: Vec<f32>,
    /// The observations acting ran the training pass on, `[T + 1, obs_len]`: rows
    /// `0..prepared` of `torso_acts` (and of the unroll) are theirs. The parameters only
    /// change at SGD steps, so these rows are what training would compute, bit for bit.
    acted: Vec<f32>,
    prepared: usize,
}

impl Replica {
    /// The initialisation draws a lone agent makes: torso layers, the LSTM, then the head.
    fn new(spec: &ReplicaSpec, base: &ActorCriticConfig, lstm_size: Option<usize>) -> Self {
        let obs_len = spec.observation_spec.len();
        let num_actions = spec.action_spec.num_actions;
        let mut rng = RandomState::new(spec.seed);
        let mut params = Params::new();
        let mut sizes = vec![obs_len];
        sizes.extend(&base.hidden);
        // Quirk 31: the JAX torso has no ReLU after its last Linear.
        assert!(
            !base.hidden.is_empty(),
            "the actor-critic torso needs a layer"
        );
        let torso = Mlp::new(&mut params, &mut rng, &sizes);
        let width = torso.output_len();
        let rows = base.sequence_length + 1;
        let recurrent = lstm_size.map(|hidden| {
            let lstm = Lstm::new(&mut params, &mut rng, width, hidden);
            Recurrent {
                acting: LstmState::zeros(hidden),
                unroll_state: LstmState::zeros(hidden),
                unroll: Unroll::new(&lstm, rows),
                acting_unroll: Unroll::new(&lstm, 1),
                pair: StatePair::new(&lstm),
                delta_h: vec![0.0; rows * hidden],
                lstm,
            }
        });
        let head_in = lstm_size.unwrap_or(width);
        let head = Linear::new(&mut params, &mut rng, head_in, num_actions + 1);
        Replica {
            rng,
            num_actions,
            obs_len,
            torso_acts: torso.activations(rows),
            torso_deltas: torso.activations(rows),
            acting_acts: torso.activations(1),
            out: vec![0.0; rows * (num_actions + 1)],
            delta_out: vec![0.0; rows * (num_actions + 1)],
            acting_out: vec![0.0; num_actions + 1],
            acted: vec![0.0; rows * obs_len],
            prepared: 0,
            buffer: Buffer::new(obs_len, base.sequence_length),
            params,
            torso,
            recurrent,
            head,
        }
    }

    fn select_action(&mut self, observation: &[f32]) -> usize {
        let row = self.buffer.next_row();
        if row == self.prepared {
            self.act_and_prepare(observation, row);
        } else {
            self.act(observation);
        }
        sample_softmax(&self.acting_out[..self.num_actions], &mut self.rng)
    }

    /// Acting that also runs row `row` of the training pass (the torso, and the LSTM's
    /// training state beside the acting one), which the SGD step then reuses.
    fn act_and_prepare(&mut self, observation: &[f32], row: usize) {
        let Replica {
            params,
            torso,
            torso_acts,
            recurrent,
            head,
            acting_out,
            acted,
            obs_len,
            ..
        } = self;
        acted[row * *obs_len..(row + 1) * *obs_len].copy_from_slice(observation);
        torso.forward_rows(params, observation, row..row + 1, torso_acts);
        let width = torso.output_len();
        let features = &torso_acts.last().expect("the torso has layers")[row * width..][..width];
        match recurrent {
            Some(rec) => {
                if row == 0 {
                    rec.unroll.start(&rec.unroll_state);
                }
                rec.lstm.step_beside(
                    params,
                    features,
                    &mut rec.acting,
                    &mut rec.unroll,
                    row,
                    &mut rec.pair,
                );
                head.forward(params, &rec.acting.h, acting_out);
            }
            None => head.forward(params, features, acting_out),
        }
        self.prepared = row + 1;
    }

    /// Acting alone (an observation acted on again, out of the trajectory's order).
    fn act(&mut self, observation: &[f32]) {
        let Replica {
            params,
            torso,
            acting_acts,
            ..
        } = self;
        torso.forward(params, observation, 1, acting_acts);
        let features = acting_acts.last().expect("the torso has layers");
        match &mut self.recurrent {
            Some(rec) => {
                rec.lstm
                    .forward(params, features, 1, &mut rec.acting, &mut rec.acting_unroll);
                self.head
                    .forward(params, &rec.acting.h, &mut self.acting_out);
            }
            None => self.head.forward(params, features, &mut self.acting_out),
        }
    }

    fn update(
        &mut self,
        config: &ActorCriticConfig,
        reset_unroll_state: bool,
        timestep: &TimeStep,
        action: usize,
        new_timestep: &TimeStep,
    ) {
        if new_timestep.last() {
            if let Some(rec) = &mut self.recurrent {
                rec.acting.reset();
            }
        }
        self.buffer.append(timestep, action, new_timestep);
        if self.buffer.full() || new_timestep.last() {
            self.buffer.drain();
            self.sgd_step(config);
            if new_timestep.last() && reset_unroll_state {
                if let Some(rec) = &mut self.recurrent {
                    rec.unroll_state.reset();
                }
            }
        }
    }

    /// One SGD step on the trajectory in the buffer: `T` transitions, `T + 1` observations.
    fn sgd_step(&mut self, config: &ActorCriticConfig) {
        self.accumulate_gradients(config);
        self.params.step(config.optimizer, config.learning_rate);
    }

    /// The loss gradients of the trajectory in the buffer, added to `params.grad`; the
    /// unroll state moves on to the state after the trajectory.
    fn accumulate_gradients(&mut self, config: &ActorCriticConfig) {
        let t_len = self.buffer.len();
        let rows = t_len + 1;
        let Replica {
            params,
            torso,
            recurrent,
            head,
            buffer,
            torso_acts,
            torso_deltas,
            out,
            delta_out,
            num_actions,
            ..
        } = self;
        let a = *num_actions;
        let obs_len = self.obs_len;
        let obs = &buffer.observations[..rows * obs_len];
        // Rows acting prepared, as long as they saw the trajectory's observations (they
        // do unless the agent was driven out of the usual act-then-update order).
        let ready = (0..self.prepared.min(rows))
            .find(|&r| {
                obs[r * obs_len..(r + 1) * obs_len] != self.acted[r * obs_len..(r + 1) * obs_len]
            })
            .unwrap_or(self.prepared.min(rows));
        self.prepared = 0;
        torso.forward_rows(params, &obs[ready * obs_len..], ready..rows, torso_acts);
        let features =
            &torso_acts.last().expect("the torso has layers")[..rows * torso.output_len()];
        let out = &mut out[..rows * (a + 1)];
        match recurrent {
            Some(rec) => {
                if ready == 0 {
                    rec.unroll.start(&rec.unroll_state);
                }
                rec.lstm
                    .forward_rows(params, features, ready..rows, &mut rec.unroll);
                rec.unroll.state_after(rows, &mut rec.unroll_state);
                let h = rec.unroll.outputs(rec.lstm.hidden, rows);
                head.forward(params, h, out);
            }
            None => head.forward(params, features, out),
        }
        let delta_out = &mut delta_out[..rows * (a + 1)];
        loss_gradient(out, a, buffer, config, delta_out);
        match recurrent {
            Some(rec) => {
                let hid = rec.lstm.hidden;
                let delta_h = &mut rec.delta_h[..rows * hid];
                let h = rec.unroll.outputs(hid, rows);
                head.backward(params, h, delta_out, Some(delta_h));
                let last = torso_deltas.len() - 1;
                rec.lstm.backward(
                    params,
                    features,
                    rows,
                    &mut rec.unroll,
                    delta_h,
                    &mut torso_deltas[last],
                );
            }
            None => {
                let last = torso_deltas.len() - 1;
                let width = torso.output_len();
                head.backward(
                    params,
                    features,
                    delta_out,
                    Some(&mut torso_deltas[last][..rows * width]),
                );
            }
        }
        torso.backward(params, obs, rows, torso_acts, torso_deltas);
    }
}

/// The gradient of bsuite's JAX actor-critic loss `mean_t(δ_t²) + mean_t(−log π(a_t|s_t)·δ_t)`
/// with respect to the head outputs `out` (`[T + 1, A + 1]`: logits, then the value), δ from
/// TD(λ) returns that carry no gradient, and the policy term's δ without gradient either
/// (rlax.td_lambda and rlax.policy_gradient_loss). The last row, the bootstrap, gets none.
fn loss_gradient(
    out: &[f32],
    num_actions: usize,
    buffer: &Buffer,
    config: &ActorCriticConfig,
    delta: &mut [f32],
) {
    let width = num_actions + 1;
    let t_len = buffer.len();
    let values: Vec<f32> = out
        .chunks_exact(width)
        .map(|row| row[num_actions])
        .collect();
    let returns = lambda_returns(
        &buffer.rewards,
        &buffer.discounts,
        &values,
        config.discount,
        config.td_lambda,
    );
    let scale = 1.0 / t_len as f32;
    delta.fill(0.0);
    for t in 0..t_len {
        let td = returns[t] - values[t];
        let logits = &out[t * width..t * width + num_actions];
        let row = &mut delta[t * width..(t + 1) * width];
        // d/dz of −log softmax(z)[a]·δ is (softmax(z) − onehot(a))·δ.
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let mut total = 0.0f32;
        for (d, &z) in row.iter_mut().zip(logits) {
            *d = (z - max).exp();
            total += *d;
        }
        let action = buffer.actions[t] as usize;
        for (j, d) in row[..num_actions].iter_mut().enumerate() {
            let p = *d / total;
            let onehot = if j == action { 1.0 } else { 0.0 };
            *d = (p - onehot) * td * scale;
        }
        row[num_actions] = -2.0 * td * scale;
    }
}

/// Actor-critic replicas (feed-forward or recurrent) in lockstep on the CPU (see the module
/// docs); a [`BatchAgent`], and with one replica an ordinary [`Agent`].
///
/// ```no_run
/// use bsuite_baselines::agents::{ActorCriticConfig, ActorCriticReplicas, ReplicaSpec};
/// use bsuite_baselines::Agent;
/// use bsuite_envs::Environment;
///
/// let mut env = bsuite_envs::load("catch/0").unwrap();
/// let spec = ReplicaSpec {
///     observation_spec: env.observation_spec(),
///     action_spec: env.action_spec(),
///     seed: 0,
/// };
/// let mut agent = ActorCriticReplicas::feed_forward(ActorCriticConfig::default(), &[spec]);
/// bsuite_baselines::run(&mut agent, &mut env, 100).unwrap();
/// ```
pub struct ActorCriticReplicas {
    config: ActorCriticConfig,
    reset_unroll_state: bool,
    replicas: Vec<Replica>,
}

impl ActorCriticReplicas {
    /// The engine of `config` with an LSTM of `lstm_size` after the torso where it has one,
    /// one replica per spec: the feed-forward agent builds it in `agents::actor_critic`,
    /// the recurrent one in `agents::actor_critic_rnn`.
    pub(crate) fn with_parts(
        config: ActorCriticConfig,
        lstm_size: Option<usize>,
        reset_unroll_state: bool,
        specs: &[ReplicaSpec],
    ) -> Self {
        let replicas = specs
            .iter()
            .map(|s| Replica::new(s, &config, lstm_size))
            .collect();
        ActorCriticReplicas {
            config,
            reset_unroll_state,
            replicas,
        }
    }
}

/// A look inside one recurrent replica, for diagnostics (see the `rnn_cell_trace` example).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RecurrentProbe {
    /// The largest `|c|` of the state training unrolls from (quirk 33: never reset by
    /// bsuite's agent, so it can grow without bound).
    pub unroll_cell_max_abs: f32,
    /// The entropy (nats) of the policy of the last acting step.
    pub acting_entropy: f64,
}

impl ActorCriticReplicas {
    /// The internals of replica `r` now, or `None` for a feed-forward agent.
    pub fn probe(&self, r: usize) -> Option<RecurrentProbe> {
        let replica = &self.replicas[r];
        let rec = replica.recurrent.as_ref()?;
        let logits = &replica.acting_out[..replica.num_actions];
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
        let shifted: Vec<f64> = logits.iter().map(|&z| z as f64 - max).collect();
        let log_total = shifted.iter().map(|z| z.exp()).sum::<f64>().ln();
        let acting_entropy = -shifted
            .iter()
            .map(|z| (z - log_total).exp() * (z - log_total))
            .sum::<f64>();
        Some(RecurrentProbe {
            unroll_cell_max_abs: rec.unroll_state.c.iter().fold(0.0, |m, c| m.max(c.abs())),
            acting_entropy,
        })
    }
}

impl BatchAgent for ActorCriticReplicas {
    fn len(&self) -> usize {
        self.replicas.len()
    }

    fn select_actions(&mut self, timesteps: &[TimeStep], actions: &mut [usize]) {
        let _flush = FlushSubnormals::new();
        for ((replica, timestep), action) in self.replicas.iter_mut().zip(timesteps).zip(actions) {
            *action = replica.select_action(&timestep.observation);
        }
    }

    fn update(&mut self, timesteps: &[TimeStep], actions: &[usize], new_timesteps: &[TimeStep]) {
        let _flush = FlushSubnormals::new();
        for (r, replica) in self.replicas.iter_mut().enumerate() {
            replica.update(
                &self.config,
                self.reset_unroll_state,
                &timesteps[r],
                actions[r],
                &new_timesteps[r],
            );
        }
    }

    fn retain(&mut self, keep: &[bool]) {
        assert_eq!(keep.len(), self.replicas.len(), "one flag per replica");
        let mut flags = keep.iter();
        self.replicas
            .retain(|_| *flags.next().expect("one flag per replica"));
    }
}

impl Agent for ActorCriticReplicas {
    /// Acts for the first replica (an agent made for one).
    fn select_action(&mut self, timestep: &TimeStep) -> usize {
        let _flush = FlushSubnormals::new();
        assert_eq!(
            self.replicas.len(),
            1,
            "Agent::select_action on a batch of replicas"
        );
        self.replicas[0].select_action(&timestep.observation)
    }

    fn update(&mut self, timestep: &TimeStep, action: usize, new_timestep: &TimeStep) {
        let _flush = FlushSubnormals::new();
        assert_eq!(
            self.replicas.len(),
            1,
            "Agent::update on a batch of replicas"
        );
        self.replicas[0].update(
            &self.config,
            self.reset_unroll_state,
            timestep,
            action,
            new_timestep,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::ActorCriticRnnConfig;
    use bsuite_envs::{ActionSpec, ObservationSpec, StepType};

    fn timestep(step_type: StepType, x: f32) -> TimeStep {
        let (reward, discount) = match step_type {
            StepType::First => (None, None),
            StepType::Mid => (Some(0.0), Some(1.0)),
            StepType::Last => (Some(1.0), Some(0.0)),
        };
        TimeStep {
            step_type,
            reward,
            discount,
            observation: vec![x, 1.0 - x].into(),
        }
    }

    fn small_rnn(reset_unroll_state: bool) -> ActorCriticReplicas {
        let config = ActorCriticRnnConfig {
            base: ActorCriticConfig {
                hidden: vec![3],
                sequence_length: 2,
                ..ActorCriticConfig::default()
            },
            lstm_size: 2,
            reset_unroll_state,
        };
        let spec = ReplicaSpec {
            observation_spec: ObservationSpec {
                shape: vec![2],
                dtype: "float32",
                name: "observation",
            },
            action_spec: ActionSpec {
                num_actions: 2,
                dtype: "int64",
            },
            seed: 1,
        };
        ActorCriticReplicas::recurrent(config, &[spec])
    }

    /// The LSTM state after running `observations` from `state` with the replica's
    /// current parameters, computed afresh.
    fn unrolled(agent: &ActorCriticReplicas, observations: &[f32], state: &LstmState) -> LstmState {
        let replica = &agent.replicas[0];
        let rec = replica.recurrent.as_ref().unwrap();
        let rows = observations.len() / 2;
        let mut acts = replica.torso.activations(rows);
        replica
            .torso
            .forward(&replica.params, observations, rows, &mut acts);
        let mut state = state.clone();
        let mut unroll = Unroll::new(&rec.lstm, rows);
        rec.lstm.forward(
            &replica.params,
            acts.last().unwrap(),
            rows,
            &mut state,
            &mut unroll,
        );
        state
    }

    /// A run of bsuite's JAX agent (a hidden size of 8) that
    /// `tools/reference/rnn_sgd_fixture.py` recorded.
    struct JaxRun {
        json: serde_json::Value,
        hidden: usize,
        actions: usize,
        config: ActorCriticRnnConfig,
    }

    fn floats(v: &serde_json::Value) -> Vec<f32> {
        let values = v.as_array().expect("an array");
        values.iter().map(|x| x.as_f64().unwrap() as f32).collect()
    }

    impl JaxRun {
        fn load() -> Self {
            let json: serde_json::Value = serde_json::from_str(include_str!(
                "../../../tests/fixtures/jax_rnn_sgd_step.json"
            ))
            .unwrap();
            let hidden = json["hidden"].as_u64().unwrap() as usize;
            let actions = json["num_actions"].as_u64().unwrap() as usize;
            let config = ActorCriticRnnConfig {
                base: ActorCriticConfig {
                    hidden: vec![hidden, hidden],
                    ..ActorCriticConfig::default()
                },
                lstm_size: hidden,
                reset_unroll_state: false,
            };
            JaxRun {
                json,
                hidden,
                actions,
                config,
            }
        }

        /// Our agent with the parameters of `key`.
        fn agent(&self, key: &str) -> ActorCriticReplicas {
            let spec = ReplicaSpec {
                observation_spec: ObservationSpec {
                    shape: vec![self.json["obs_len"].as_u64().unwrap() as usize],
                    dtype: "float32",
                    name: "observation",
                },
                action_spec: ActionSpec {
                    num_actions: self.actions,
                    dtype: "int64",
                },
                seed: 0,
            };
            let mut agent = ActorCriticReplicas::recurrent(self.config.clone(), &[spec]);
            let values = self.flat(key);
            assert_eq!(values.len(), agent.replicas[0].params.values.len());
            agent.replicas[0].params.values = values;
            agent
        }

        /// Haiku's modules of `key` in our flat order: torso, LSTM gates (rows seeing x,
        /// then h; columns i, g, f, o as ours), then the policy and value heads side by
        /// side.
        fn flat(&self, key: &str) -> Vec<f32> {
            let tree = &self.json[key];
            let leaf = |module: &str, name: &str| floats(&tree[module][name]);
            let (policy_w, value_w) = (leaf("linear", "w"), leaf("linear_1", "w"));
            let a = self.actions;
            let head_w: Vec<f32> = (0..self.hidden)
                .flat_map(|k| {
                    let mut row = policy_w[k * a..(k + 1) * a].to_vec();
                    row.push(value_w[k]);
                    row
                })
                .collect();
            [
                leaf("mlp/~/linear_0", "w"),
                leaf("mlp/~/linear_0", "b"),
                leaf("mlp/~/linear_1", "w"),
                leaf("mlp/~/linear_1", "b"),
                leaf("lstm/linear", "w"),
                leaf("lstm/linear", "b"),
                head_w,
                [leaf("linear", "b"), leaf("linear_1", "b")].concat(),
            ]
            .concat()
        }

        fn state(&self, key: &str) -> LstmState {
            LstmState {
                h: floats(&self.json[key]["h"]),
                c: floats(&self.json[key]["c"]),
            }
        }
    }

    /// Asserts `|ours − theirs| ≤ abs + rel·|theirs|` everywhere.
    fn assert_close(ours: &[f32], theirs: &[f32], abs: f32, rel: f32, what: &str) {
        assert_eq!(ours.len(), theirs.len(), "{what}");
        for (i, (&a, &b)) in ours.iter().zip(theirs).enumerate() {
            assert!(
                (a - b).abs() <= abs + rel * b.abs(),
                "{what}[{i}]: ours {a}, JAX {b}"
            );
        }
    }

    /// One SGD step from the same parameters, unroll state and trajectory as bsuite's JAX
    /// agent gives its gradients and its next unroll state, to float32 rounding.
    #[test]
    fn one_sgd_step_matches_bsuites_jax_agent() {
        let run = JaxRun::load();
        let mut agent = run.agent("params");
        let replica = &mut agent.replicas[0];
        replica.recurrent.as_mut().unwrap().unroll_state = run.state("unroll_state");
        let observations: Vec<Vec<f32>> = run.json["observations"]
            .as_array()
            .unwrap()
            .iter()
            .map(floats)
            .collect();
        let steps = observations.len() - 1;
        for t in 0..steps {
            let at = |i: usize, step_type, reward, discount| TimeStep {
                step_type,
                reward,
                discount,
                observation: observations[i].clone().into(),
            };
            let last = t + 1 == steps;
            let next = at(
                t + 1,
                if last { StepType::Last } else { StepType::Mid },
                run.json["rewards"][t].as_f64(),
                run.json["discounts"][t].as_f64(),
            );
            let action = run.json["actions"][t].as_u64().unwrap() as usize;
            replica
                .buffer
                .append(&at(t, StepType::Mid, None, None), action, &next);
        }
        replica.buffer.drain();
        replica.accumulate_gradients(&run.config.base);
        assert_close(
            &replica.params.grad,
            &run.flat("grads"),
            1e-5,
            1e-4,
            "gradient",
        );
        let next = run.state("new_unroll_state");
        let rec = replica.recurrent.as_ref().unwrap();
        assert_close(&rec.unroll_state.h, &next.h, 1e-5, 1e-4, "unroll h");
        assert_close(&rec.unroll_state.c, &next.c, 1e-5, 1e-4, "unroll c");
    }

    /// From the JAX agent's initial parameters, acting on and training on the transitions
    /// it saw (thirty episodes: its buffer, acting and unroll states, Adam) gives its
    /// acting logits at every step and leaves our agent where it left the JAX agent, up
    /// to float32 rounding accumulated over the steps.
    #[test]
    fn thirty_episodes_of_training_match_bsuites_jax_agent() {
        let run = JaxRun::load();
        let mut agent = run.agent("initial_params");
        let mut first = true;
        for t in run.json["warmup"].as_array().unwrap() {
            let observation = |key: &str| -> bsuite_envs::Observation { floats(&t[key]).into() };
            let timestep = TimeStep {
                step_type: if first {
                    StepType::First
                } else {
                    StepType::Mid
                },
                reward: None,
                discount: None,
                observation: observation("observation"),
            };
            let last = t["last"].as_bool().unwrap();
            let next = TimeStep {
                step_type: if last { StepType::Last } else { StepType::Mid },
                reward: t["reward"].as_f64(),
                discount: t["discount"].as_f64(),
                observation: observation("next_observation"),
            };
            let _ = Agent::select_action(&mut agent, &timestep);
            let logits = &agent.replicas[0].acting_out[..run.actions];
            assert_close(logits, &floats(&t["logits"]), 1e-4, 1e-3, "acting logits");
            let action = t["action"].as_u64().unwrap() as usize;
            Agent::update(&mut agent, &timestep, action, &next);
            first = last;
        }
        let replica = &agent.replicas[0];
        assert_ne!(
            run.flat("initial_params"),
            run.flat("params"),
            "JAX trained"
        );
        assert_close(
            &replica.params.values,
            &run.flat("params"),
            1e-4,
            1e-3,
            "parameters",
        );
        let state = run.state("unroll_state");
        let rec = replica.recurrent.as_ref().unwrap();
        assert_close(&rec.unroll_state.c, &state.c, 1e-4, 1e-3, "unroll c");
    }

    /// Training reuses what acting computed only where acting saw the trajectory's own
    /// observations with the current parameters: however the agent is driven (acting
    /// twice on an observation, not at all, or on other observations), the same
    /// transitions train it to the same bits.
    #[test]
    fn training_does_not_depend_on_how_acting_was_driven() {
        let xs = [0.1f32, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8];
        let mut ts: Vec<TimeStep> = xs
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                let kind = match i % 4 {
                    0 => StepType::First,
                    3 => StepType::Last,
                    _ => StepType::Mid,
                };
                timestep(kind, x)
            })
            .collect();
        ts.push(timestep(StepType::First, 0.9));
        let drive = |acting: &dyn Fn(&mut ActorCriticReplicas, &TimeStep)| {
            let mut agent = small_rnn(false);
            for t in 0..ts.len() - 1 {
                if ts[t].last() {
                    continue;
                }
                acting(&mut agent, &ts[t]);
                Agent::update(&mut agent, &ts[t], t % 2, &ts[t + 1]);
            }
            let replica = &agent.replicas[0];
            let rec = replica.recurrent.as_ref().unwrap();
            (replica.params.values.clone(), rec.unroll_state.clone())
        };
        let usual = drive(&|agent, ts| {
            let _ = Agent::select_action(agent, ts);
        });
        let twice = drive(&|agent, ts| {
            let _ = Agent::select_action(agent, ts);
            let _ = Agent::select_action(agent, ts);
        });
        let never = drive(&|_, _| {});
        let elsewhere = drive(&|agent, ts| {
            let mut other = ts.clone();
            other.observation = vec![0.5, 0.5].into();
            let _ = Agent::select_action(agent, &other);
        });
        assert_ne!(usual.0, small_rnn(false).replicas[0].params.values);
        assert_eq!(usual, twice);
        assert_eq!(usual, never);
        assert_eq!(usual, elsewhere);
    }

    /// Quirk 33 by hand: each unroll starts from the previous unroll's final state (which
    /// saw the next trajectory's first observation already), across episode ends, while
    /// acting starts every episode from zeros; the option resets training at episode ends.
    #[test]
    fn unroll_state_carries_over_trajectories_and_episodes() {
        for reset in [false, true] {
            let mut agent = small_rnn(reset);
            let zero = LstmState::zeros(2);
            // Episode 1: three transitions, so one full trajectory of two, then one of one.
            let obs = [0.1f32, 0.2, 0.3, 0.4];
            let ts = [
                timestep(StepType::First, obs[0]),
                timestep(StepType::Mid, obs[1]),
                timestep(StepType::Mid, obs[2]),
                timestep(StepType::Last, obs[3]),
            ];
            let flat = |xs: &[f32]| xs.iter().flat_map(|&x| [x, 1.0 - x]).collect::<Vec<_>>();
            // Parameters change at every SGD step, so the expected state is computed with
            // the parameters the unroll used: those before the step.
            let mut expected = zero.clone();
            for t in 0..3 {
                let _ = Agent::select_action(&mut agent, &ts[t]);
                let before = (t == 1 || t == 2).then(|| {
                    let start = if t == 1 { 0 } else { 2 };
                    unrolled(&agent, &flat(&obs[start..=t + 1]), &expected)
                });
                Agent::update(&mut agent, &ts[t], 0, &ts[t + 1]);
                if let Some(state) = before {
                    expected = state;
                }
            }
            let rec = agent.replicas[0].recurrent.as_ref().unwrap();
            assert_eq!(rec.acting, zero, "acting state is reset at the episode end");
            if reset {
                assert_eq!(
                    rec.unroll_state, zero,
                    "reset at the episode end when asked"
                );
            } else {
                assert_eq!(rec.unroll_state, expected, "carried over the episode end");
                assert_ne!(rec.unroll_state, zero);
            }
            // The buffer's second trajectory started at the drained one's last observation.
            assert_eq!(agent.replicas[0].buffer.observations, flat(&obs[2..4]));
        }
    }
}
