//! DQN and bootstrapped DQN for many replicas at once on the CPU: each replica (one
//! bsuite_id) keeps its own networks, optimiser state, replay and random stream, and all of
//! them act and learn in lockstep. A bootstrapped replica is an ensemble of members
//! (bsuite's 20), each a Q-network with its own target and frozen prior network; members
//! are stacked beside replicas ("slots").
//!
//! The network is bsuite's `Flatten → MLP[64, 64, A]` (`[50, 50]` for bootstrapped DQN). Its
//! first layer runs on the host as a sparse product: it skips zero inputs, which are nearly
//! all of deep_sea's, catch's and MNIST's, and lets replicas with different observation
//! sizes share a batch; an ensemble's members sit side by side in one first-layer matrix,
//! and each member's block is read with the matrix's row stride, straight into the member's
//! activations. The later layers' products run slot by slot on the host ([`matmul`]),
//! forward and backward written out by hand: no autograd graph, and no LibTorch call in a
//! step. An SGD step runs member by member (first layer, forward, loss, backward, update
//! and first-layer gradients back to back, in one set of buffers every member reuses), so
//! that a member's data stays in cache. A member's step runs over the samples its
//! bootstrap mask takes only: a sample it leaves out adds exact zeros to the member's sums,
//! so leaving it out changes no bit. The optimiser (Adam, SGD or RMSProp), ReLU
//! and the loss are host loops too. Prior networks are fixed, so their values are computed
//! once per transition on the host and kept in replay; so is bootstrapped DQN's reward
//! noise, when it has any.
//!
//! These products were LibTorch's batched products (`bmm`) until they were measured to be
//! one fused multiply-add chain per output in MKL (see [`matmul`]); the host kernels
//! take the same order, so results did not change, and a step of either agent takes under
//! half the time it took.
//!
//! A replica's results do not depend on its batch: every product and host loop runs slot
//! by slot in a fixed order (hidden sizes and the action count are padded to multiples of
//! 16 with zero weights, which stay zero). So
//! a replica run alone, in a batch of 60, or resumed after a kill computes the same bits;
//! `tests/libtorch_agents.rs` checks this.
//!
//! This module is the step: acting, recording transitions, and the SGD step member by
//! member. `first_layer` holds the sparse first layer and its optimiser, which updates
//! only the rows that can move; `stack` the later layers, stacked slot by slot, and their
//! passes; `ensemble` what bootstrapped DQN adds (priors, masks, reward noise, the acting
//! snapshot).
//!
//! [`matmul`]: crate::host::matmul::matmul

mod ensemble;
mod first_layer;
mod stack;

use bsuite_envs::{ActionSpec, RandomState, TimeStep};

use crate::agent::{Agent, BatchAgent};
use crate::agents::q_learning::greedy;
use crate::agents::q_learning::sparse_replay::SparseReplay;
use crate::config::Optimizer;
use crate::host::dense::{Linear, Mlp, Params};
use crate::host::optimisers::OptStep;
use crate::host::{pad16, truncated_normal, ReplicaSpec};
use crate::subnormals::FlushSubnormals;
use ensemble::Ensemble;
pub(crate) use ensemble::EnsembleSettings;
use first_layer::FirstLayer;
use stack::{backward_slot, forward_slot, forward_transposed, optimise_slot, Layout, Order, Stack};

/// One replica's own state.
struct Replica {
    rng: RandomState,
    num_actions: usize,
    replay: SparseReplay,
    first: FirstLayer,
    /// This step's ε draw came out below ε, so the action is random.
    explores: bool,
    /// The sampled batch: replay slots, and their actions, rewards and discounts.
    indices: Vec<usize>,
    actions: Vec<usize>,
    rewards: Vec<f32>,
    discounts: Vec<f32>,
    /// The ensemble's own state (bootstrapped DQN).
    ensemble: Option<Ensemble>,
}

/// The engine's view of DQN's and bootstrapped DQN's hyperparameters.
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    pub(crate) optimizer: Optimizer,
    pub(crate) hidden: Vec<usize>,
    pub(crate) learning_rate: f64,
    pub(crate) batch_size: usize,
    pub(crate) discount: f32,
    pub(crate) replay_capacity: usize,
    pub(crate) min_replay_size: usize,
    pub(crate) sgd_period: u64,
    pub(crate) target_update_period: u64,
    pub(crate) epsilon: f64,
    /// Members per replica: 1 for DQN.
    pub(crate) members: usize,
    /// A bootstrapped ensemble's own settings; `None` for DQN.
    pub(crate) ensemble: Option<EnsembleSettings>,
}

/// DQN or bootstrapped DQN replicas in lockstep on the CPU (see the module docs); a
/// [`BatchAgent`], and with one replica an ordinary [`Agent`].
///
/// ```no_run
/// use bsuite_baselines::agents::{DqnConfig, DqnReplicas, ReplicaSpec};
/// use bsuite_baselines::{experiment::run_lockstep, BatchAgent};
/// use bsuite_envs::Environment;
///
/// let envs: Vec<_> = (0..4).map(|i| bsuite_envs::load(&format!("catch/{i}")).unwrap()).collect();
/// let specs: Vec<ReplicaSpec> = envs
///     .iter()
///     .map(|env| ReplicaSpec {
///         observation_spec: env.observation_spec(),
///         action_spec: env.action_spec(),
///         seed: 42,
///     })
///     .collect();
/// let mut agent = DqnReplicas::new(DqnConfig::default(), &specs);
/// run_lockstep(&mut agent, envs, &[100; 4], |_, _, _| std::ops::ControlFlow::Continue(()), |_, _, _| {});
/// ```
pub struct DqnReplicas {
    config: Settings,
    layout: Layout,
    replicas: Vec<Replica>,
    stack: Stack,
    total_steps: u64,
    sgd_steps: u64,
}

impl DqnReplicas {
    /// The engine for `config`, one replica per spec: DQN builds it in `agents::dqn`,
    /// bootstrapped DQN in `agents::boot_dqn`.
    pub(crate) fn with_settings(config: Settings, specs: &[ReplicaSpec]) -> Self {
        assert!(
            !config.hidden.is_empty(),
            "DQN needs at least one hidden layer"
        );
        assert!(config.members > 0, "an ensemble needs a member");
        let max_actions = specs
            .iter()
            .map(|s| s.action_spec.num_actions)
            .max()
            .unwrap_or(1);
        let layout = Layout::new(&config.hidden, max_actions);
        let stack = Stack::new(&layout, specs.len(), config.members, config.batch_size);
        let mut agent = DqnReplicas {
            replicas: Vec::with_capacity(specs.len()),
            config,
            layout,
            stack,
            total_steps: 0,
            sgd_steps: 0,
        };
        for (r, spec) in specs.iter().enumerate() {
            agent.init_replica(r, spec);
        }
        agent
    }

    /// The number of replicas a batch pads its action dimension for: replicas whose action
    /// counts pad to the same multiple of 16 can share a batch (all of bsuite's do).
    pub fn batch_key(action_spec: &ActionSpec) -> u64 {
        pad16(action_spec.num_actions.max(1)) as u64
    }

    /// Stacked slots: replica `r`'s member `m` is slot `r·members + m`.
    fn slots(&self) -> usize {
        self.replicas.len() * self.config.members
    }

    fn init_replica(&mut self, r: usize, spec: &ReplicaSpec) {
        let obs_len = spec.observation_spec.len();
        let num_actions = spec.action_spec.num_actions;
        assert!(
            pad16(num_actions) <= *self.layout.dims.last().expect("layers"),
            "replica with {num_actions} actions in a batch padded for fewer"
        );
        let members = self.config.members;
        let mut rng = RandomState::new(spec.seed);
        let mut sizes = vec![obs_len];
        sizes.extend(&self.config.hidden);
        sizes.push(num_actions);
        let draw = |rng: &mut RandomState| -> Vec<Vec<Vec<f32>>> {
            (0..members)
                .map(|_| {
                    sizes
                        .windows(2)
                        .map(|pair| {
                            truncated_normal(rng, pair[0] * pair[1], 1.0 / (pair[0] as f64).sqrt())
                        })
                        .collect()
                })
                .collect()
        };
        let online = draw(&mut rng);
        let target = draw(&mut rng);
        let online_first: Vec<&[f32]> = online.iter().map(|n| n[0].as_slice()).collect();
        let target_first: Vec<&[f32]> = target.iter().map(|n| n[0].as_slice()).collect();
        let first = FirstLayer::new(
            obs_len,
            self.layout.dims[0],
            &online_first,
            &target_first,
            sizes[1],
        );
        let row = self.layout.row;
        for (nets, buffer) in [
            (&online, &mut self.stack.params),
            (&target, &mut self.stack.target),
        ] {
            for (m, weights) in nets.iter().enumerate() {
                let slot = r * members + m;
                let row = &mut buffer[slot * row..][..row];
                for (i, &(w_off, _)) in self.layout.offsets.iter().enumerate() {
                    let fan_out = sizes[i + 2];
                    let padded_out = self.layout.dims[i + 1];
                    for (k, values) in weights[i + 1].chunks_exact(fan_out).enumerate() {
                        row[w_off + k * padded_out..][..fan_out].copy_from_slice(values);
                    }
                }
            }
        }
        let ensemble = self
            .config
            .ensemble
            .map(|settings| Ensemble::new(settings, members, &sizes, &mut rng));
        let batch = self.config.batch_size;
        let extra_width = ensemble.as_ref().map_or(0, Ensemble::side_data_len);
        self.replicas.push(Replica {
            rng,
            num_actions,
            replay: SparseReplay::new(self.config.replay_capacity, extra_width),
            first,
            explores: false,
            indices: Vec::with_capacity(batch),
            actions: vec![0; batch],
            rewards: vec![0.0; batch],
            discounts: vec![0.0; batch],
            ensemble,
        });
        if self.config.ensemble.is_some() {
            self.snapshot(r, 0);
        }
    }

    /// Makes member `m` of replica `r`, as it is now, the acting network (quirk 32).
    fn snapshot(&mut self, r: usize, m: usize) {
        let members = self.config.members;
        let layout = &self.layout;
        let replica = &mut self.replicas[r];
        let d0 = layout.dims[0];
        replica.first.catch_up_all();
        let first = &replica.first;
        let mut params = Params::frozen();
        let w: Vec<f32> = first
            .w
            .chunks_exact(first.width)
            .flat_map(|row| &row[m * d0..(m + 1) * d0])
            .copied()
            .collect();
        let mut layers = vec![Linear::from_weights(
            &mut params,
            &w,
            &first.b[m * d0..(m + 1) * d0],
        )];
        let row = &self.stack.params[(r * members + m) * layout.row..][..layout.row];
        for (i, &(w_off, b_off)) in layout.offsets.iter().enumerate() {
            let (fan_in, fan_out) = (layout.dims[i], layout.dims[i + 1]);
            layers.push(Linear::from_weights(
                &mut params,
                &row[w_off..w_off + fan_in * fan_out],
                &row[b_off..b_off + fan_out],
            ));
        }
        let ensemble = replica.ensemble.as_mut().expect("an ensemble");
        ensemble.act_with(m, params, Mlp::from_layers(layers));
    }

    /// Records one replica's transition in its replay (with the ensemble's masks and
    /// prior values), drawing what bsuite's agents draw at that point.
    fn record(replica: &mut Replica, timestep: &TimeStep, action: usize, new: &TimeStep) {
        let reward = new.reward_or_zero() as f32;
        let discount = new.discount.unwrap_or(0.0) as f32;
        let Some(ensemble) = &mut replica.ensemble else {
            replica.replay.add(
                &timestep.observation,
                action,
                reward,
                discount,
                &new.observation,
            );
            return;
        };
        let extra = ensemble.side_data(
            &mut replica.rng,
            replica.num_actions,
            &timestep.observation,
            &new.observation,
        );
        replica.replay.add_with_extra(
            &timestep.observation,
            action,
            reward,
            discount,
            &new.observation,
            extra,
        );
    }

    fn sgd_step(&mut self) {
        let batch = self.config.batch_size;
        let members = self.config.members;
        let layout = &self.layout;
        let (d0, row) = (layout.dims[0], layout.row);
        let layers = layout.layers();
        let out = layout.dims[layers];
        // Every replica's sample first, then its transitions fetched in overlapping
        // stages: random replay reads are cache misses, and this way they queue at once.
        for replica in &mut self.replicas {
            let Replica {
                rng,
                replay,
                indices,
                ..
            } = replica;
            replay.sample_indices(rng, indices, batch);
        }
        for stage in 0..3 {
            for replica in &self.replicas {
                replica.replay.prefetch(&replica.indices, stage);
            }
        }
        self.sgd_steps += 1;
        let step = OptStep::new(
            self.config.optimizer,
            self.config.learning_rate,
            self.sgd_steps,
        );
        let discount = self.config.discount;
        let scale = 2.0 / batch as f32;
        // The order is the batch's, not the member's rows': LibTorch's was.
        let order = if batch == 1 {
            Order::OneRow
        } else {
            Order::Batch
        };
        let Stack {
            params,
            target,
            m: first_moments,
            v: second_moments,
            grad,
            online,
            target_act,
            target_t,
            delta,
            w_t,
            member_samples,
            sample_counts,
            ..
        } = &mut self.stack;
        // Replica by replica, and within one member by member, each member from its first
        // layer to its update: one member's activations, gradients and optimiser state,
        // in buffers every member reuses, stay in cache from its forward pass to its
        // update.
        for (r, replica) in self.replicas.iter_mut().enumerate() {
            let Replica {
                replay,
                first,
                indices,
                actions,
                rewards,
                discounts,
                ensemble,
                num_actions,
                ..
            } = replica;
            let num_actions = *num_actions;
            let sampled: Vec<_> = indices.iter().map(|&i| replay.get(i)).collect();
            let (mut inputs_tm1, mut inputs_t) = (Vec::new(), Vec::new());
            if let Some(e) = ensemble.as_mut() {
                e.prepare_batch(sampled.iter().map(|t| t.o_t), batch, num_actions);
            }
            // Each member learns from the samples its bootstrap mask takes, and only from
            // them: a sample it leaves out adds an exact zero to every sum of the member's
            // step (its loss term is multiplied by 0), so leaving it out of the member's
            // rows changes no bit and saves its share of the work (half, at bsuite's mask
            // probability of 0.5). DQN's one member takes every sample.
            sample_counts.fill(0);
            for (b, t) in sampled.iter().enumerate() {
                (actions[b], rewards[b], discounts[b]) = (t.action, t.reward, t.discount);
                let mut taken = false;
                for m in 0..members {
                    let row = sample_counts[m];
                    match ensemble.as_mut() {
                        Some(e) if e.takes(t.extra, m, num_actions) => {
                            e.gather(m, row, b, batch, t.extra, num_actions)
                        }
                        Some(_) => continue,
                        None => {}
                    }
                    member_samples[m * batch + row] = b;
                    sample_counts[m] += 1;
                    taken = true;
                }
                if taken {
                    first.touch(t.o_tm1);
                }
            }
            first.prefetch(0);
            for m in 0..members {
                if m + 1 < members {
                    first.prefetch(m + 1);
                }
                let s = r * members + m;
                let rows = sample_counts[m];
                let samples = &member_samples[m * batch..][..rows];
                inputs_tm1.clear();
                inputs_tm1.extend(samples.iter().map(|&b| sampled[b].o_tm1));
                inputs_t.clear();
                inputs_t.extend(samples.iter().map(|&b| sampled[b].o_t));
                first.forward(false, m, &inputs_tm1, &mut online[..rows * d0]);
                first.forward(true, m, &inputs_t, &mut target_act[..rows * d0]);
                forward_slot(layout, &params[s * row..][..row], online, rows, order);
                let last = layout.act_offset(layers, rows);
                let (q_t, q_t_strides) = if order == Order::Batch {
                    let p = &target[s * row..][..row];
                    let q_t =
                        forward_transposed(layout, p, target_act, target_t, rows, num_actions);
                    (q_t, (1, rows))
                } else {
                    forward_slot(layout, &target[s * row..][..row], target_act, rows, order);
                    (&target_act[last..][..rows * out], (out, 1))
                };
                // Q'_m(o_t, a) of the member's row `row`.
                let q_next = |row: usize, a: usize| q_t[row * q_t_strides.0 + a * q_t_strides.1];

                // The loss Σ_m mean_b m_mb·(y_b − Q_m(o_tm1, a_b))², y = r + γ·d·max_a
                // Q'_m(o_t, a), as rlax.q_learning (no 0.5 factor): its gradient is
                // 2/B·(Q − y) at the taken action of each sample member m takes (m_mb = 1;
                // B is the whole batch). An ensemble's Q and Q' include the members'
                // scaled priors.
                let q = &online[last..][..rows * out];
                for (row, &b) in samples.iter().enumerate() {
                    let (a, at) = (actions[b], row * out);
                    let d = &mut delta[last + at..][..out];
                    d.fill(0.0);
                    let Some(e) = ensemble.as_ref() else {
                        let max_q = (0..num_actions)
                            .map(|a| q_next(row, a))
                            .fold(f32::NEG_INFINITY, f32::max);
                        let y = rewards[b] + (discounts[b] * discount) * max_q;
                        d[a] = (q[at + a] - y) * scale;
                        continue;
                    };
                    let (prior_tm1, prior_t, noise) = e.side(m, row, batch, num_actions);
                    let max_q = (0..num_actions)
                        .zip(prior_t)
                        .map(|(a, &p)| q_next(row, a) + p)
                        .fold(f32::NEG_INFINITY, f32::max);
                    // The member's reward noise, if any, joins the reward first.
                    let reward = noise.map_or(rewards[b], |z| rewards[b] + z);
                    let y = reward + (discounts[b] * discount) * max_q;
                    d[a] = ((q[at + a] + prior_tm1[a]) - y) * scale;
                }
                let p = &mut params[s * row..][..row];
                let g = &mut grad[..];
                backward_slot(layout, p, g, online, delta, w_t, rows, num_actions);
                optimise_slot(
                    layout,
                    p,
                    &mut first_moments[s * row..][..row],
                    &mut second_moments[s * row..][..row],
                    g,
                    step,
                );
                // The first layer's gradients: the member's input gradient of a sample's
                // row is its output gradient there.
                let regroup =
                    m == 0 || samples != &member_samples[(m - 1) * batch..][..sample_counts[m - 1]];
                first.accumulate_grad(m, &inputs_tm1, &delta[..rows * d0], regroup);
            }
            first.step(step, self.sgd_steps);
        }
        // The JAX agent counts SGD steps here; TF's counts environment steps (quirk 34).
        if self
            .sgd_steps
            .is_multiple_of(self.config.target_update_period)
        {
            let n = self.slots() * row;
            let stack = &mut self.stack;
            stack.target[..n].copy_from_slice(&stack.params[..n]);
            for replica in &mut self.replicas {
                replica.first.update_target();
                if let Some(e) = replica.ensemble.as_mut() {
                    e.target_takes_online_priors();
                }
            }
        }
    }
}

impl BatchAgent for DqnReplicas {
    fn len(&self) -> usize {
        self.replicas.len()
    }

    /// Per replica, as bsuite's agents: DQN takes with probability ε a uniformly random
    /// action, else a greedy one with ties broken at random, from Q-values computed for
    /// the whole batch; bootstrapped DQN acts greedily with its active member's snapshot
    /// plus that member's prior.
    fn select_actions(&mut self, timesteps: &[TimeStep], actions: &mut [usize]) {
        let _flush = FlushSubnormals::new();
        let epsilon = self.config.epsilon;
        let mut any_greedy = false;
        for (replica, action) in self.replicas.iter_mut().zip(actions.iter_mut()) {
            // bsuite's bootstrapped DQN draws for ε only when it is positive.
            replica.explores =
                (replica.ensemble.is_none() || epsilon > 0.0) && replica.rng.rand() < epsilon;
            if replica.explores {
                *action = replica.rng.randint(replica.num_actions);
            } else {
                any_greedy = true;
            }
        }
        if !any_greedy {
            return;
        }
        if self.config.ensemble.is_some() {
            for ((replica, timestep), action) in
                self.replicas.iter_mut().zip(timesteps).zip(actions)
            {
                if replica.explores {
                    continue;
                }
                let e = replica.ensemble.as_mut().expect("an ensemble");
                let q = e.q_values(&timestep.observation, replica.num_actions);
                *action = greedy(q, &mut replica.rng);
            }
            return;
        }
        let layout = &self.layout;
        let (d0, len) = (layout.dims[0], layout.acts_len(1));
        let q_at = layout.act_offset(layout.layers(), 1);
        let stack = &mut self.stack;
        let replicas = self.replicas.iter_mut().zip(timesteps).zip(actions);
        for (r, ((replica, timestep), action)) in replicas.enumerate() {
            let acts = &mut stack.act[r * len..][..len];
            replica.first.act(&timestep.observation, &mut acts[..d0]);
            forward_slot(
                layout,
                &stack.params[r * layout.row..][..layout.row],
                acts,
                1,
                Order::OneRow,
            );
            if !replica.explores {
                *action = greedy(&acts[q_at..][..replica.num_actions], &mut replica.rng);
            }
        }
    }

    fn update(&mut self, timesteps: &[TimeStep], actions: &[usize], new_timesteps: &[TimeStep]) {
        let _flush = FlushSubnormals::new();
        for r in 0..self.replicas.len() {
            let new = &new_timesteps[r];
            // A bootstrapped replica draws its next acting member at every episode end.
            if new.last() && self.config.ensemble.is_some() {
                let member = self.replicas[r].rng.randint(self.config.members);
                self.snapshot(r, member);
            }
            Self::record(&mut self.replicas[r], &timesteps[r], actions[r], new);
        }
        self.total_steps += 1;
        // Every replica started together, so all share the step count and replay size.
        let replay_size = self.replicas.first().map_or(0, |r| r.replay.size());
        if !self.total_steps.is_multiple_of(self.config.sgd_period)
            || replay_size < self.config.min_replay_size
        {
            return;
        }
        self.sgd_step();
    }

    fn retain(&mut self, keep: &[bool]) {
        assert_eq!(keep.len(), self.replicas.len(), "one flag per replica");
        let members = self.config.members;
        let kept: Vec<usize> = (0..keep.len())
            .filter(|&r| keep[r])
            .flat_map(|r| r * members..(r + 1) * members)
            .collect();
        if kept.len() == keep.len() * members {
            return;
        }
        self.stack.compact(&kept, self.layout.row);
        let mut flags = keep.iter();
        self.replicas
            .retain(|_| *flags.next().expect("one flag per replica"));
    }
}

impl Agent for DqnReplicas {
    /// Acts for the first replica (an agent made for one).
    fn select_action(&mut self, timestep: &TimeStep) -> usize {
        assert_eq!(
            self.replicas.len(),
            1,
            "Agent::select_action on a batch of replicas"
        );
        let mut action = [0];
        self.select_actions(std::slice::from_ref(timestep), &mut action);
        action[0]
    }

    fn update(&mut self, timestep: &TimeStep, action: usize, new_timestep: &TimeStep) {
        BatchAgent::update(
            self,
            std::slice::from_ref(timestep),
            &[action],
            std::slice::from_ref(new_timestep),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::{BootDqnConfig, DqnConfig};

    /// The engine's bits, pinned: each case's CSVs as the runner writes them, and a digest
    /// of every replica's parameters after a run, for DQN and for bootstrapped DQN over the
    /// ensemble sizes, bootstrap masks, reward noise and optimisers the sweeps use. The
    /// fixtures were written by the engine as it was before it learned to skip masked-out
    /// samples (`BSUITE_BLESS=1` writes them anew), so every later speed-up must keep
    /// them. Each run passes many target updates. Minutes of arithmetic in a debug build:
    /// `cargo xtask test` runs it optimised.
    #[test]
    #[cfg_attr(
        debug_assertions,
        ignore = "minutes in debug builds; `cargo xtask test` runs it optimised"
    )]
    fn dqn_and_boot_dqn_keep_their_bits() {
        let bless = std::env::var_os("BSUITE_BLESS").is_some();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dqn_bits");
        let scratch = std::env::temp_dir().join(format!("bsuite-dqn-bits-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&scratch);
        for &(case, agent, pairs) in BIT_CASES {
            let mut config = crate::config::AgentConfig::defaults(agent).unwrap();
            for pair in pairs {
                config.set_pair(pair).unwrap();
            }
            let fixture = root.join(case);
            if bless {
                let _ = std::fs::remove_dir_all(&fixture);
                std::fs::create_dir_all(&fixture).unwrap();
            }
            // Compared with the fixture, or written there.
            let check = |name: &str, ours: &str| {
                let path = fixture.join(name);
                if bless {
                    std::fs::write(&path, ours).unwrap();
                } else {
                    let pinned = std::fs::read_to_string(&path).unwrap();
                    assert!(
                        ours == pinned,
                        "{case}: {name} differs from the fixture:\n{ours}"
                    );
                }
            };
            let mut digests = String::new();
            for &(id, episodes) in BIT_IDS {
                let id: bsuite_envs::BsuiteId = id.parse().unwrap();
                // A directory per id: a results directory has one episode count.
                let out = scratch.join(case).join(id.to_string().replace('/', "-"));
                let options = crate::runner::RunnerOptions {
                    results_dir: out.clone(),
                    jobs: 1,
                    seed: 42,
                    num_episodes: Some(episodes),
                    batch_size: 1,
                    config: Some(config.clone()),
                    ..crate::runner::RunnerOptions::default()
                };
                let entry = crate::factory::agent(agent).unwrap();
                let progress = crate::runner::Progress::default();
                crate::runner::run_ids(&[id], entry, &options, &progress, &|_| {}).unwrap();
                let name = bsuite_logging::results::file_name(&id);
                check(&name, &std::fs::read_to_string(out.join(&name)).unwrap());

                let mut env = id.load().unwrap();
                let spec = ReplicaSpec {
                    observation_spec: env.observation_spec(),
                    action_spec: env.action_spec(),
                    seed: 42,
                };
                let mut replicas = if agent == "dqn" {
                    DqnReplicas::new(DqnConfig::from_config(&config), &[spec])
                } else {
                    DqnReplicas::bootstrapped(BootDqnConfig::from_config(&config), &[spec])
                };
                crate::run(&mut replicas, &mut *env, episodes).unwrap();
                digests += &format!("{id} {:016x}\n", replicas.parameter_digest());
            }
            check("parameters.txt", &digests);
        }
        std::fs::remove_dir_all(&scratch).unwrap();
    }

    /// `(case, agent, configuration)` of [`dqn_and_boot_dqn_keep_their_bits`].
    const BIT_CASES: &[(&str, &str, &[&str])] = &[
        ("dqn", "dqn", &[]),
        ("dqn_rmsprop", "dqn", &["optimizer=rmsprop"]),
        ("boot_dqn", "boot_dqn", &[]),
        ("boot_dqn_mask_0.5", "boot_dqn", &["mask_prob=0.5"]),
        (
            "boot_dqn_3_mask_0.5_sgd",
            "boot_dqn",
            &[
                "num_ensemble=3",
                "mask_prob=0.5",
                "optimizer=sgd",
                "learning_rate=0.01",
            ],
        ),
        (
            "boot_dqn_30_mask_0.1_noise",
            "boot_dqn",
            &["num_ensemble=30", "mask_prob=0.1", "noise_scale=0.1"],
        ),
        (
            "boot_dqn_1_noise_rmsprop",
            "boot_dqn",
            &["num_ensemble=1", "noise_scale=0.1", "optimizer=rmsprop"],
        ),
        // A batch of one sums in the order of one row, whatever the mask leaves of it.
        (
            "boot_dqn_3_mask_0.5_batch_1",
            "boot_dqn",
            &[
                "num_ensemble=3",
                "mask_prob=0.5",
                "batch_size=1",
                "min_replay_size=1",
            ],
        ),
    ];

    /// `(bsuite_id, episodes)` each case runs: hundreds of SGD steps and dozens of target
    /// updates each (boot_dqn updates its target every 4 SGD steps, DQN every 4).
    const BIT_IDS: &[(&str, usize)] = &[("catch/0", 60), ("deep_sea/0", 60), ("mnist/0", 300)];

    impl DqnReplicas {
        /// FNV-1a over the bits of every replica's online and target parameters, each
        /// member's layers in order at their true (unpadded) sizes: the same for any
        /// layout of the same values.
        fn parameter_digest(&self) -> u64 {
            let mut hash = 0xcbf2_9ce4_8422_2325u64;
            let mut add = |values: &[f32]| {
                for v in values {
                    for byte in v.to_bits().to_le_bytes() {
                        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
                    }
                }
            };
            let layout = &self.layout;
            let members = self.config.members;
            for (r, replica) in self.replicas.iter().enumerate() {
                let mut first = replica.first.clone();
                first.catch_up_all();
                let d0 = layout.hidden[0];
                for m in 0..members {
                    for (w, b) in [(&first.w, &first.b), (&first.target_w, &first.target_b)] {
                        for row in w.chunks_exact(first.width) {
                            add(&row[m * first.member_width..][..d0]);
                        }
                        add(&b[m * first.member_width..][..d0]);
                    }
                    let s = r * members + m;
                    for stacked in [&self.stack.params, &self.stack.target] {
                        let row = &stacked[s * layout.row..][..layout.row];
                        for (i, &(w_off, b_off)) in layout.offsets.iter().enumerate() {
                            let fan_in = layout.hidden[i];
                            let fan_out = layout
                                .hidden
                                .get(i + 1)
                                .copied()
                                .unwrap_or(replica.num_actions);
                            let padded_out = layout.dims[i + 1];
                            for k in 0..fan_in {
                                add(&row[w_off + k * padded_out..][..fan_out]);
                            }
                            add(&row[b_off..][..fan_out]);
                        }
                    }
                }
            }
            hash
        }
    }
}
