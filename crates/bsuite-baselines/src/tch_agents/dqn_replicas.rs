//! DQN for many replicas at once on the CPU: each replica (one bsuite_id) keeps its own
//! networks, Adam state, replay and random stream, and all of them act and learn in
//! lockstep, so that every LibTorch call serves the whole batch.
//!
//! The network is bsuite's `Flatten → MLP[64, 64, A]`. Its first layer runs on the host as a
//! sparse product: it skips zero inputs, which are nearly all of deep_sea's, catch's and
//! MNIST's, and lets replicas with different observation sizes share a batch. The later
//! layers are stacked over replicas and run as LibTorch batched matrix products (`bmm`),
//! forward and backward written out by hand: no autograd graph, and a handful of calls per
//! step for the whole batch. Adam, ReLU and the loss are host loops over the stacked
//! parameters.
//!
//! A replica's results do not depend on its batch: per replica, every product has the same
//! shapes and 64-byte alignment (hidden sizes and the action count are padded to multiples
//! of 16 with zero weights, which stay zero), and every host loop runs in a fixed order. So
//! a replica run alone, in a batch of 60, or resumed after a kill computes the same bits;
//! `tests/tch_agents.rs` checks this.

use bsuite_envs::{ActionSpec, ObservationSpec, RandomState, TimeStep};
use tch::Tensor;

use super::dqn::DqnConfig;
use super::host::{self, pad16, AdamStep, Entry, HostTensor};
use super::nets::truncated_normal;
use super::q_ensemble::greedy;
use super::sparse_replay::SparseReplay;
use crate::agent::{Agent, BatchAgent};

/// What one replica is built from.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplicaSpec {
    /// The environment's observation spec (observations are flattened).
    pub observation_spec: ObservationSpec,
    /// The environment's action spec.
    pub action_spec: ActionSpec,
    /// The replica's agent seed: all its random draws come from `RandomState(seed)`.
    pub seed: u32,
}

/// The first layer of one replica, on the host: `[obs_len, width]` weights.
///
/// Most rows see no gradient in most steps: deep_sea's observation is one cell of up to
/// 2,500, so a batch touches at most 32 rows. Adam still moves a row without gradient while
/// its first moment is large enough, so such rows are updated every step. But without
/// gradient the moments only decay (`m ← β1·m`, `v ← β2·v`), and once the largest step the
/// decaying first moment can cause is below half a unit in the last place of every weight
/// ([`settled`]), the weights cannot change again until a gradient comes. Such a row is
/// *dormant*: it is skipped, and the decays it missed are replayed, one rounding each as
/// before, when it next gets a gradient. The result is bit for bit what updating every row
/// every step gives, for a fraction of the work and memory traffic.
struct FirstLayer {
    width: usize,
    w: Vec<f32>,
    b: Vec<f32>,
    target_w: Vec<f32>,
    target_b: Vec<f32>,
    m_w: Vec<f32>,
    v_w: Vec<f32>,
    m_b: Vec<f32>,
    v_b: Vec<f32>,
    grad_w: Vec<f32>,
    grad_b: Vec<f32>,
    /// Rows of `grad_w` written this step.
    touched: Vec<u32>,
    /// Rows updated every step (their first moment is not all zero).
    active: Vec<u32>,
    rows: Vec<RowState>,
}

#[derive(Clone, Copy, Default)]
struct RowState {
    touched: bool,
    active: bool,
    /// The row's weights changed since the last target update.
    dirty: bool,
    /// For a dormant row: the last step whose update it has had.
    dormant_since: u64,
}

impl FirstLayer {
    fn new(
        obs_len: usize,
        width: usize,
        online: &[f32],
        target: &[f32],
        true_width: usize,
    ) -> Self {
        let pad = |weights: &[f32]| {
            let mut w = vec![0.0f32; obs_len * width];
            for (row, values) in w
                .chunks_exact_mut(width)
                .zip(weights.chunks_exact(true_width))
            {
                row[..true_width].copy_from_slice(values);
            }
            w
        };
        let zeros = |n| vec![0.0f32; n];
        FirstLayer {
            width,
            w: pad(online),
            b: zeros(width),
            target_w: pad(target),
            target_b: zeros(width),
            m_w: zeros(obs_len * width),
            v_w: zeros(obs_len * width),
            m_b: zeros(width),
            v_b: zeros(width),
            grad_w: zeros(obs_len * width),
            grad_b: zeros(width),
            touched: Vec::new(),
            active: Vec::new(),
            // Every row starts with zero moments (dormant), and differs from the target,
            // which has its own initialisation.
            rows: vec![
                RowState {
                    dirty: true,
                    ..RowState::default()
                };
                obs_len
            ],
        }
    }

    /// `out = relu(b + Σ x_k w[k])` over the nonzero entries of a stored observation.
    fn forward_sparse(w: &[f32], b: &[f32], entries: &[Entry], out: &mut [f32]) {
        out.copy_from_slice(b);
        host::add_sparse_rows(out, entries, w);
        host::relu(out);
    }

    fn accumulate_grad(&mut self, entries: &[Entry], delta: &[f32]) {
        host::scatter_sparse_rows(&mut self.grad_w, entries, delta);
        for &(k, _) in entries {
            let row = &mut self.rows[k as usize];
            if !row.touched {
                row.touched = true;
                self.touched.push(k);
            }
        }
    }

    /// Adam step `t` (1-based) for every row that needs it; see the type's docs.
    fn adam(&mut self, step: AdamStep, t: u64) {
        let width = self.width;
        for &k in &self.touched {
            let state = &mut self.rows[k as usize];
            if !state.active {
                let at = k as usize * width;
                let skipped = t - 1 - state.dormant_since;
                host::decay(&mut self.m_w[at..at + width], step.beta1, skipped);
                host::decay(&mut self.v_w[at..at + width], step.beta2, skipped);
                state.active = true;
                self.active.push(k);
            }
        }
        for &k in &self.active {
            let at = k as usize * width;
            host::adam(
                &mut self.w[at..at + width],
                &mut self.m_w[at..at + width],
                &mut self.v_w[at..at + width],
                &self.grad_w[at..at + width],
                step,
            );
            self.rows[k as usize].dirty = true;
        }
        host::adam(
            &mut self.b,
            &mut self.m_b,
            &mut self.v_b,
            &self.grad_b,
            step,
        );
        for &k in &self.touched {
            self.grad_w[k as usize * width..][..width].fill(0.0);
        }
        // Rows without gradient this step whose weights can no longer move fall asleep
        // (checked every few steps: the check costs about as much as an update).
        if t % DORMANCY_CHECK_PERIOD == 0 {
            let (w, m_w, rows) = (&self.w, &self.m_w, &mut self.rows);
            self.active.retain(|&k| {
                let at = k as usize * width;
                let state = &mut rows[k as usize];
                let asleep =
                    !state.touched && settled(&w[at..at + width], &m_w[at..at + width], step);
                if asleep {
                    state.active = false;
                    state.dormant_since = t;
                }
                !asleep
            });
        }
        for &k in &self.touched {
            self.rows[k as usize].touched = false;
        }
        self.touched.clear();
    }

    /// Copies the online weights to the target: only rows that changed since the last
    /// copy differ.
    fn update_target(&mut self) {
        let width = self.width;
        for (k, state) in self.rows.iter_mut().enumerate() {
            if state.dirty {
                let at = k * width;
                self.target_w[at..at + width].copy_from_slice(&self.w[at..at + width]);
                state.dirty = false;
            }
        }
        self.target_b.copy_from_slice(&self.b);
    }
}

/// Steps between checks for rows that can fall asleep.
const DORMANCY_CHECK_PERIOD: u64 = 8;

/// True when Adam steps without gradient can no longer move these weights: the largest
/// step any of them can take from now on, `step_size·|m|/ε` (the denominator is at least ε,
/// the first moment only shrinks, and the step size only falls), with room for the
/// roundings on the way, is below half the gap to the next float towards zero. Their first
/// and second moments still decay, and are replayed on waking.
fn settled(w: &[f32], m: &[f32], step: AdamStep) -> bool {
    let (step_size, eps) = (f64::from(step.step_size), f64::from(step.eps));
    let smallest = f64::from(f32::from_bits(1));
    w.iter().zip(m).all(|(&w, &m)| {
        let largest_step = step_size * (2.0 * f64::from(m.abs()) / eps + smallest);
        largest_step < 0.5 * gap_below(w)
    })
}

/// The distance from `|w|` to the next float towards zero (the smaller of its two gaps);
/// zero for infinities and NaN, which never settle.
fn gap_below(w: f32) -> f64 {
    let a = w.abs();
    if !a.is_finite() {
        0.0
    } else if a == 0.0 {
        f64::from(f32::from_bits(1))
    } else {
        f64::from(a) - f64::from(f32::from_bits(a.to_bits() - 1))
    }
}

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
}

/// Where each later layer's weights and biases sit in a replica's row of the stacked
/// parameters.
struct Layout {
    /// `[d0, d1, ..., dL]`: the first layer's width, later widths, padded actions last.
    dims: Vec<usize>,
    /// `(weights, biases)` offsets of stacked layer `i` (mapping `dims[i]` to `dims[i+1]`).
    offsets: Vec<(usize, usize)>,
    /// Floats per replica row (a multiple of 16).
    row: usize,
}

impl Layout {
    fn new(dims: Vec<usize>) -> Self {
        let mut offsets = Vec::new();
        let mut row = 0;
        for pair in dims.windows(2) {
            let w = row;
            row += pair[0] * pair[1];
            offsets.push((w, row));
            row += pair[1];
        }
        Layout { dims, offsets, row }
    }

    fn layers(&self) -> usize {
        self.offsets.len()
    }
}

/// Stacked tensors `[capacity, ...]`; the first `replicas.len()` of them are live.
struct Stack {
    params: HostTensor,
    target: HostTensor,
    m: HostTensor,
    v: HostTensor,
    grad: HostTensor,
    /// Activations when acting, `[capacity, 1, dims[i]]` for `i` in `0..=L`.
    act: Vec<HostTensor>,
    /// Online activations of the sampled `o_tm1`, `[capacity, batch, dims[i]]`.
    online: Vec<HostTensor>,
    /// Target activations of the sampled `o_t`.
    target_act: Vec<HostTensor>,
    /// Loss gradients with respect to `online`.
    delta: Vec<HostTensor>,
}

/// LibTorch views of the live part of [`Stack`], rebuilt when replicas leave (so that
/// a step makes no views of its own).
struct Views {
    w: Vec<Tensor>,
    /// `w` transposed, for the backward pass.
    w_t: Vec<Tensor>,
    b: Vec<Tensor>,
    target_w: Vec<Tensor>,
    target_b: Vec<Tensor>,
    grad_w: Vec<Tensor>,
    act: Vec<Tensor>,
    online: Vec<Tensor>,
    /// `online` transposed, for the weight gradients.
    online_t: Vec<Tensor>,
    target_act: Vec<Tensor>,
    delta: Vec<Tensor>,
}

/// DQN replicas in lockstep on the CPU (see the module docs); a [`BatchAgent`], and with
/// one replica an ordinary [`Agent`].
///
/// ```no_run
/// use bsuite_baselines::tch_agents::{DqnConfig, DqnReplicas, ReplicaSpec};
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
    config: DqnConfig,
    layout: Layout,
    replicas: Vec<Replica>,
    stack: Stack,
    views: Views,
    total_steps: u64,
    sgd_steps: u64,
}

impl DqnReplicas {
    /// One replica per spec, each initialised from its own seed exactly as a lone agent
    /// would be: online weights layer by layer, then target weights (quirk 30: the target
    /// starts from its own draw), TruncatedNormal(1/sqrt(fan_in)), zero biases.
    pub fn new(config: DqnConfig, specs: &[ReplicaSpec]) -> Self {
        super::init_threads();
        assert!(
            !config.hidden.is_empty(),
            "DQN needs at least one hidden layer"
        );
        let max_actions = specs
            .iter()
            .map(|s| s.action_spec.num_actions)
            .max()
            .unwrap_or(1);
        let mut dims: Vec<usize> = config.hidden.iter().map(|&h| pad16(h)).collect();
        dims.push(pad16(max_actions));
        let layout = Layout::new(dims);
        let capacity = specs.len();
        let stack = Stack::new(&layout, capacity, config.batch_size);
        let mut agent = DqnReplicas {
            views: Views::new(&stack, &layout, capacity),
            replicas: Vec::with_capacity(capacity),
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

    fn init_replica(&mut self, r: usize, spec: &ReplicaSpec) {
        let obs_len = spec.observation_spec.len();
        let num_actions = spec.action_spec.num_actions;
        assert!(
            pad16(num_actions) <= *self.layout.dims.last().expect("layers"),
            "replica with {num_actions} actions in a batch padded for fewer"
        );
        let mut rng = RandomState::new(spec.seed);
        let mut sizes = vec![obs_len];
        sizes.extend(&self.config.hidden);
        sizes.push(num_actions);
        let draw = |rng: &mut RandomState| -> Vec<Vec<f32>> {
            sizes
                .windows(2)
                .map(|pair| truncated_normal(rng, pair[0] * pair[1], 1.0 / (pair[0] as f64).sqrt()))
                .collect()
        };
        let online = draw(&mut rng);
        let target = draw(&mut rng);
        let first = FirstLayer::new(
            obs_len,
            self.layout.dims[0],
            &online[0],
            &target[0],
            sizes[1],
        );
        let row = self.layout.row;
        for (weights, buffer) in [
            (&online, &mut self.stack.params),
            (&target, &mut self.stack.target),
        ] {
            let row = &mut buffer.as_mut_slice()[r * row..][..row];
            for (i, &(w_off, _)) in self.layout.offsets.iter().enumerate() {
                let (fan_in, fan_out) = (sizes[i + 1], sizes[i + 2]);
                let padded_out = self.layout.dims[i + 1];
                for (k, values) in weights[i + 1].chunks_exact(fan_out).enumerate() {
                    row[w_off + k * padded_out..][..fan_out].copy_from_slice(values);
                }
                debug_assert!(fan_in <= self.layout.dims[i]);
            }
        }
        let batch = self.config.batch_size;
        self.replicas.push(Replica {
            rng,
            num_actions,
            replay: SparseReplay::new(self.config.replay_capacity),
            first,
            explores: false,
            indices: Vec::with_capacity(batch),
            actions: vec![0; batch],
            rewards: vec![0.0; batch],
            discounts: vec![0.0; batch],
        });
    }

    /// Runs the stacked layers forward from `acts[0]` (the first layer's output, already
    /// written), writing every later layer's activations into `acts` (`views` are their
    /// live parts).
    fn forward(w: &[Tensor], b: &[Tensor], views: &[Tensor], acts: &mut [HostTensor], live: usize) {
        let layers = w.len();
        for i in 0..layers {
            let _ = b[i].baddbmm_out(&views[i + 1], &views[i], &w[i]);
            if i + 1 < layers {
                let per_replica = acts[i + 1].as_slice().len() / capacity_of(&acts[i + 1]);
                host::relu(&mut acts[i + 1].as_mut_slice()[..live * per_replica]);
            }
        }
    }

    fn sgd_step(&mut self) {
        let batch = self.config.batch_size;
        let live = self.replicas.len();
        let d0 = self.layout.dims[0];
        let stack = &mut self.stack;
        {
            let online0 = stack.online[0].as_mut_slice();
            let target0 = stack.target_act[0].as_mut_slice();
            for (r, replica) in self.replicas.iter_mut().enumerate() {
                let Replica {
                    rng,
                    replay,
                    first,
                    indices,
                    actions,
                    rewards,
                    discounts,
                    ..
                } = replica;
                replay.sample_indices(rng, indices, batch);
                for (b, &slot) in indices.iter().enumerate() {
                    let t = replay.get(slot);
                    (actions[b], rewards[b], discounts[b]) = (t.action, t.reward, t.discount);
                    let at = (r * batch + b) * d0;
                    FirstLayer::forward_sparse(
                        &first.w,
                        &first.b,
                        t.o_tm1,
                        &mut online0[at..at + d0],
                    );
                    FirstLayer::forward_sparse(
                        &first.target_w,
                        &first.target_b,
                        t.o_t,
                        &mut target0[at..at + d0],
                    );
                }
            }
        }
        let views = &self.views;
        Self::forward(&views.w, &views.b, &views.online, &mut stack.online, live);
        Self::forward(
            &views.target_w,
            &views.target_b,
            &views.target_act,
            &mut stack.target_act,
            live,
        );

        // The loss mean_b (y_b − Q(o_tm1, a_b))², y = r + γ·d·max_a Q_target(o_t, a), as
        // rlax.q_learning (no 0.5 factor): its gradient is 2/B·(Q − y) at the taken action.
        let layers = self.layout.layers();
        let out = self.layout.dims[layers];
        let discount = self.config.discount;
        let scale = 2.0 / batch as f32;
        {
            let q = stack.online[layers].as_slice();
            let q_t = stack.target_act[layers].as_slice();
            let delta = stack.delta[layers].as_mut_slice();
            for (r, replica) in self.replicas.iter_mut().enumerate() {
                let a_count = replica.num_actions;
                for b in 0..batch {
                    let at = (r * batch + b) * out;
                    let max_q = q_t[at..at + a_count]
                        .iter()
                        .copied()
                        .fold(f32::NEG_INFINITY, f32::max);
                    let y = replica.rewards[b] + (replica.discounts[b] * discount) * max_q;
                    let row = &mut delta[at..at + out];
                    row.fill(0.0);
                    let a = replica.actions[b];
                    row[a] = (q[at + a] - y) * scale;
                }
            }
        }

        // Backward through the stacked layers.
        let row = self.layout.row;
        for i in (0..layers).rev() {
            let _ = views.online_t[i].bmm_out(&views.grad_w[i], &views.delta[i + 1]);
            {
                let width = self.layout.dims[i + 1];
                let b_off = self.layout.offsets[i].1;
                let delta = stack.delta[i + 1].as_slice();
                let grad = stack.grad.as_mut_slice();
                for r in 0..live {
                    host::column_sums(
                        &mut grad[r * row + b_off..][..width],
                        &delta[r * batch * width..][..batch * width],
                    );
                }
            }
            let _ = views.delta[i + 1].bmm_out(&views.delta[i], &views.w_t[i]);
            let n = live * batch * self.layout.dims[i];
            host::relu_backward(
                &mut stack.delta[i].as_mut_slice()[..n],
                &stack.online[i].as_slice()[..n],
            );
        }

        // The first layer's gradients, then Adam on everything.
        self.sgd_steps += 1;
        let step = AdamStep::new(self.config.learning_rate, 0.9, 0.999, 1e-8, self.sgd_steps);
        {
            let delta0 = stack.delta[0].as_slice();
            for (r, replica) in self.replicas.iter_mut().enumerate() {
                let rows = &delta0[r * batch * d0..][..batch * d0];
                host::column_sums(&mut replica.first.grad_b, rows);
                for (b, delta) in rows.chunks_exact(d0).enumerate() {
                    let t = replica.replay.get(replica.indices[b]);
                    replica.first.accumulate_grad(t.o_tm1, delta);
                }
                replica.first.adam(step, self.sgd_steps);
            }
        }
        let n = live * row;
        host::adam(
            &mut stack.params.as_mut_slice()[..n],
            &mut stack.m.as_mut_slice()[..n],
            &mut stack.v.as_mut_slice()[..n],
            &stack.grad.as_slice()[..n],
            step,
        );
        // The JAX agent counts SGD steps here; TF's counts environment steps (quirk 34).
        if self.sgd_steps % self.config.target_update_period == 0 {
            let params = &stack.params.as_slice()[..n];
            stack.target.as_mut_slice()[..n].copy_from_slice(params);
            for replica in &mut self.replicas {
                replica.first.update_target();
            }
        }
    }
}

/// The leading (replica) dimension a stacked tensor was made with.
fn capacity_of(t: &HostTensor) -> usize {
    t.tensor().size()[0] as usize
}

impl Stack {
    fn new(layout: &Layout, capacity: usize, batch: usize) -> Self {
        let (cap, b) = (capacity as i64, batch as i64);
        let flat = || HostTensor::zeros(&[cap, layout.row as i64]);
        let per_layer = |rows: i64| {
            layout
                .dims
                .iter()
                .map(|&d| HostTensor::zeros(&[cap, rows, d as i64]))
                .collect::<Vec<_>>()
        };
        Stack {
            params: flat(),
            target: flat(),
            m: flat(),
            v: flat(),
            grad: flat(),
            act: per_layer(1),
            online: per_layer(b),
            target_act: per_layer(b),
            delta: per_layer(b),
        }
    }

    /// Moves the rows of the replicas kept to the front, in order.
    fn compact(&mut self, kept: &[usize], row: usize) {
        for buffer in [&mut self.params, &mut self.target, &mut self.m, &mut self.v] {
            let data = buffer.as_mut_slice();
            for (to, &from) in kept.iter().enumerate() {
                if to != from {
                    data.copy_within(from * row..(from + 1) * row, to * row);
                }
            }
        }
    }
}

impl Views {
    fn new(stack: &Stack, layout: &Layout, live: usize) -> Self {
        let n = live as i64;
        let live_rows = |t: &HostTensor| t.tensor().narrow(0, 0, n);
        let weights = |flat: &HostTensor| -> (Vec<Tensor>, Vec<Tensor>) {
            let flat = live_rows(flat);
            layout
                .offsets
                .iter()
                .enumerate()
                .map(|(i, &(w, b))| {
                    let (fan_in, fan_out) = (layout.dims[i] as i64, layout.dims[i + 1] as i64);
                    (
                        flat.narrow(1, w as i64, fan_in * fan_out)
                            .view([n, fan_in, fan_out]),
                        flat.narrow(1, b as i64, fan_out).view([n, 1, fan_out]),
                    )
                })
                .unzip()
        };
        let (w, b) = weights(&stack.params);
        let (target_w, target_b) = weights(&stack.target);
        let (grad_w, _) = weights(&stack.grad);
        let all = |ts: &[HostTensor]| ts.iter().map(live_rows).collect::<Vec<_>>();
        let transposed = |ts: &[Tensor]| ts.iter().map(|t| t.transpose(1, 2)).collect();
        let online = all(&stack.online);
        Views {
            w_t: transposed(&w),
            w,
            b,
            target_w,
            target_b,
            grad_w,
            act: all(&stack.act),
            online_t: transposed(&online),
            online,
            target_act: all(&stack.target_act),
            delta: all(&stack.delta),
        }
    }
}

impl BatchAgent for DqnReplicas {
    fn len(&self) -> usize {
        self.replicas.len()
    }

    /// Per replica, as bsuite's DQN: with probability ε a uniformly random action, else a
    /// greedy one with ties broken at random. Q-values are computed for the whole batch.
    fn select_actions(&mut self, timesteps: &[TimeStep], actions: &mut [usize]) {
        let epsilon = self.config.epsilon;
        let mut any_greedy = false;
        for (replica, action) in self.replicas.iter_mut().zip(actions.iter_mut()) {
            replica.explores = replica.rng.rand() < epsilon;
            if replica.explores {
                *action = replica.rng.randint(replica.num_actions);
            } else {
                any_greedy = true;
            }
        }
        if !any_greedy {
            return;
        }
        let d0 = self.layout.dims[0];
        let live = self.replicas.len();
        {
            let act0 = self.stack.act[0].as_mut_slice();
            for (r, (replica, timestep)) in self.replicas.iter().zip(timesteps).enumerate() {
                let out = &mut act0[r * d0..(r + 1) * d0];
                out.copy_from_slice(&replica.first.b);
                host::add_dense_rows(out, &timestep.observation, &replica.first.w);
                host::relu(out);
            }
        }
        Self::forward(
            &self.views.w,
            &self.views.b,
            &self.views.act,
            &mut self.stack.act,
            live,
        );
        let layers = self.layout.layers();
        let out = self.layout.dims[layers];
        let q = self.stack.act[layers].as_slice();
        for (r, (replica, action)) in self.replicas.iter_mut().zip(actions.iter_mut()).enumerate() {
            if !replica.explores {
                *action = greedy(&q[r * out..r * out + replica.num_actions], &mut replica.rng);
            }
        }
    }

    fn update(&mut self, timesteps: &[TimeStep], actions: &[usize], new_timesteps: &[TimeStep]) {
        for (r, replica) in self.replicas.iter_mut().enumerate() {
            let new = &new_timesteps[r];
            replica.replay.add(
                &timesteps[r].observation,
                actions[r],
                new.reward_or_zero() as f32,
                new.discount.unwrap_or(0.0) as f32,
                &new.observation,
            );
        }
        self.total_steps += 1;
        // Every replica started together, so all share the step count and replay size.
        let replay_size = self.replicas.first().map_or(0, |r| r.replay.size());
        if self.total_steps % self.config.sgd_period != 0
            || replay_size < self.config.min_replay_size
        {
            return;
        }
        self.sgd_step();
    }

    fn retain(&mut self, keep: &[bool]) {
        assert_eq!(keep.len(), self.replicas.len(), "one flag per replica");
        let kept: Vec<usize> = (0..keep.len()).filter(|&r| keep[r]).collect();
        if kept.len() == keep.len() {
            return;
        }
        self.stack.compact(&kept, self.layout.row);
        let mut flags = keep.iter();
        self.replicas
            .retain(|_| *flags.next().expect("one flag per replica"));
        self.views = Views::new(&self.stack, &self.layout, self.replicas.len());
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

    impl FirstLayer {
        /// The moments as updating every row every step would have them at step `t`.
        fn woken_moments(&self, t: u64) -> (Vec<f32>, Vec<f32>) {
            let (mut m, mut v) = (self.m_w.clone(), self.v_w.clone());
            for (k, state) in self.rows.iter().enumerate() {
                if !state.active {
                    let at = k * self.width;
                    let skipped = t - state.dormant_since;
                    host::decay(&mut m[at..at + self.width], 0.9, skipped);
                    host::decay(&mut v[at..at + self.width], 0.999, skipped);
                }
            }
            (m, v)
        }
    }

    /// The first layer's skipping of dormant rows against plain Adam on every weight every
    /// step, bit for bit, with rows that sleep for long stretches and wake again.
    #[test]
    fn dormant_rows_end_where_updating_every_row_every_step_ends() {
        let (obs_len, width) = (12, 16);
        let mut rng = RandomState::new(11);
        let init: Vec<f32> = (0..obs_len * width).map(|_| rng.randn() as f32).collect();
        let mut lazy = FirstLayer::new(obs_len, width, &init, &init, width);
        let (mut w, mut m, mut v) = (init.clone(), vec![0.0; init.len()], vec![0.0; init.len()]);
        let (mut b, mut m_b, mut v_b) = (vec![0.0; width], vec![0.0; width], vec![0.0; width]);
        let steps = 3000u64;
        for t in 1..=steps {
            // Rows 0 and 1 are seen rarely, rows 2..8 often, the rest never.
            let mut entries: Vec<Entry> = Vec::new();
            if t == 1 || t == 2500 {
                entries.push((0, 1.0));
            }
            if [10, 1200, 2900].contains(&t) {
                entries.push((1, 0.5));
            }
            for k in 2..8 {
                if rng.rand() < 0.3 {
                    entries.push((k, rng.randn() as f32));
                }
            }
            let delta: Vec<f32> = (0..width).map(|_| rng.randn() as f32 * 1e-2).collect();
            let mut grad = vec![0.0; init.len()];
            host::scatter_sparse_rows(&mut grad, &entries, &delta);
            lazy.accumulate_grad(&entries, &delta);
            lazy.grad_b.copy_from_slice(&delta);
            let step = AdamStep::new(1e-3, 0.9, 0.999, 1e-8, t);
            lazy.adam(step, t);
            host::adam(&mut w, &mut m, &mut v, &grad, step);
            host::adam(&mut b, &mut m_b, &mut v_b, &delta, step);
            assert_eq!(lazy.w, w, "weights at step {t}");
            assert_eq!(lazy.b, b, "biases at step {t}");
            if t % 97 == 0 || t == steps {
                assert_eq!(
                    lazy.woken_moments(t),
                    (m.clone(), v.clone()),
                    "moments at step {t}"
                );
            }
            if t == 2400 {
                assert!(!lazy.rows[0].active, "row 0 should be asleep by now");
                assert!(!lazy.rows[1].active, "row 1 should be asleep by now");
            }
        }
        assert!(!lazy.rows[10].active, "a row never seen stays dormant");
        lazy.update_target();
        assert_eq!(lazy.target_w, w);
    }
}
