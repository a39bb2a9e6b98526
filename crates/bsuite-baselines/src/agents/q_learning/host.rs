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

use bsuite_envs::{ActionSpec, RandomState, TimeStep};

use crate::agent::{Agent, BatchAgent};
use crate::agents::q_learning::greedy;
use crate::agents::q_learning::sparse_replay::SparseReplay;
use crate::config::Optimizer;
use crate::host::activations::relu;
use crate::host::dense::{Linear, Mlp, Params};
use crate::host::dispatch::prefetch;
use crate::host::linear::{add_dense_rows, add_rows};
use crate::host::matmul::{matmul, matmul_columns, matmul_transposed, transpose, Epilogue};
use crate::host::optimisers::{self, AdamStep, OptStep};
use crate::host::sparse::{scatter_sparse_layer, sparse_relu_layer, EntriesByInput, Entry};
use crate::host::sums::column_sums;
use crate::host::{pad16, truncated_normal, ReplicaSpec};
use crate::subnormals::FlushSubnormals;

/// The first layer of one replica, on the host: `[obs_len, width]` weights.
///
/// Most rows see no gradient in most steps: deep_sea's observation is one cell of up to
/// 2,500, so a batch touches at most 32 rows. SGD and RMSProp leave such a row exactly
/// where it is (their update is `lr·0`), so only the rows touched are updated; RMSProp's
/// `ν` of the others decays (`ν ← 0.9·ν`), and the decays a row missed are replayed, one
/// rounding each, when it next gets a gradient. Adam still moves a row without gradient
/// while its first moment is large enough, so such rows are updated every step. But without
/// gradient the moments only decay (`m ← β1·m`, `v ← β2·v`), and once the largest step the
/// decaying first moment can cause is below half a unit in the last place of every weight
/// ([`settled`]), the weights cannot change again until a gradient comes. Such a row is
/// *dormant*: it is skipped, and the decays it missed are replayed, one rounding each as
/// before, when it next gets a gradient. The result is bit for bit what updating every row
/// every step gives, for a fraction of the work and memory traffic.
///
/// An awake row without gradient is not updated at its step either: its updates are
/// *deferred* until the row is read (a batch or an action that reads its input, a target
/// update, a snapshot, the dormancy check), and then replayed, the same operations in the
/// same order ([`FirstLayer::catch_up`]). Target updates and dormancy checks come every few
/// steps, so a row's bytes move once per few updates instead of once per update: on
/// deep_sea/20 about a thousand rows are awake while a batch touches at most 128.
#[derive(Clone)]
struct FirstLayer {
    /// Columns of a row: every member's block side by side.
    width: usize,
    /// Columns of one member's block.
    member_width: usize,
    w: Vec<f32>,
    b: Vec<f32>,
    target_w: Vec<f32>,
    target_b: Vec<f32>,
    /// The optimiser's state: Adam's moments; RMSProp keeps `ν` in `v_w` and `v_b`.
    m_w: Vec<f32>,
    v_w: Vec<f32>,
    m_b: Vec<f32>,
    v_b: Vec<f32>,
    grad_w: Vec<f32>,
    grad_b: Vec<f32>,
    /// Rows of `grad_w` written this step.
    touched: Vec<u32>,
    /// A member's batch grouped by input, for its gradient.
    by_input: EntriesByInput,
    /// Rows Adam updates every step (their first moment is not all zero); always empty
    /// with SGD and RMSProp.
    active: Vec<u32>,
    rows: Vec<RowState>,
    /// Adam's last steps, step `t` at `t % DORMANCY_CHECK_PERIOD`: what a row that deferred
    /// them replays (no row defers past a dormancy check).
    recent: [Option<AdamStep>; DORMANCY_CHECK_PERIOD as usize],
    /// The last optimiser step taken.
    now: u64,
}

#[derive(Clone, Copy, Default)]
struct RowState {
    touched: bool,
    active: bool,
    /// For an awake row: the last step whose update it has had (it defers the others).
    synced: u64,
    /// The row's weights changed since the last target update.
    dirty: bool,
    /// For a dormant row (with SGD and RMSProp, every row but while it is updated): the
    /// last step whose update it has had.
    dormant_since: u64,
}

impl FirstLayer {
    /// Members' first layers side by side: row `k` holds member `m`'s weights of input `k`
    /// in columns `m·member_width..`, the first `true_width` of them (the rest are padding).
    fn new(
        obs_len: usize,
        member_width: usize,
        online: &[&[f32]],
        target: &[&[f32]],
        true_width: usize,
    ) -> Self {
        let width = member_width * online.len();
        let pad = |members: &[&[f32]]| {
            let mut w = vec![0.0f32; obs_len * width];
            for (m, weights) in members.iter().enumerate() {
                for (row, values) in w
                    .chunks_exact_mut(width)
                    .zip(weights.chunks_exact(true_width))
                {
                    row[m * member_width..][..true_width].copy_from_slice(values);
                }
            }
            w
        };
        let zeros = |n| vec![0.0f32; n];
        FirstLayer {
            width,
            member_width,
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
            by_input: EntriesByInput::default(),
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
            recent: [None; DORMANCY_CHECK_PERIOD as usize],
            now: 0,
        }
    }

    /// Member `m`'s `relu(b + Σ x_k w[k])` over the nonzero entries of stored
    /// observations, from the online weights or (`target`) the target's, into the rows
    /// of `out`.
    fn forward(&self, target: bool, m: usize, inputs: &[&[Entry]], out: &mut [f32]) {
        let (w, b) = if target {
            (&self.target_w, &self.target_b)
        } else {
            (&self.w, &self.b)
        };
        let block = m * self.member_width;
        let b = &b[block..][..self.member_width];
        sparse_relu_layer(out, b, inputs, &w[block..], self.width);
    }

    /// Adds member `m`'s weight gradients for samples whose output gradients are the rows
    /// of `deltas`; [`FirstLayer::touch`] marks the samples' rows. `regroup` is false where
    /// `inputs` are the last call's (a member that takes the samples the last one took), whose
    /// grouping by input then serves again.
    fn accumulate_grad(&mut self, m: usize, inputs: &[&[Entry]], deltas: &[f32], regroup: bool) {
        let block = m * self.member_width;
        let (g, width) = (&mut self.grad_w[block..], self.member_width);
        if regroup {
            self.by_input.group(inputs);
        }
        scatter_sparse_layer(g, self.width, &self.by_input, deltas, width);
    }

    /// Asks the CPU to fetch member `m`'s blocks of the rows this step touches (its
    /// weights, its target's and its gradients) into L2, while an earlier member computes:
    /// sparse rows are gathers no hardware prefetcher foresees. A hint only.
    fn prefetch(&self, m: usize) {
        let block = m * self.member_width;
        for &k in &self.touched {
            let at = k as usize * self.width + block;
            for values in [&self.w, &self.target_w, &self.grad_w] {
                for line in values[at..at + self.member_width].chunks(16) {
                    prefetch(&line[0], false);
                }
            }
        }
    }

    /// Marks the rows of a sample's nonzero entries as having a gradient this step, and
    /// brings them up to date for the batch's forward pass.
    fn touch(&mut self, entries: &[Entry]) {
        for &(k, _) in entries {
            let row = &mut self.rows[k as usize];
            if !row.touched {
                row.touched = true;
                self.touched.push(k);
                self.catch_up(k);
            }
        }
    }

    /// Gives awake row `k` the updates it deferred, up to the last step.
    fn catch_up(&mut self, k: u32) {
        let width = self.width;
        let state = &mut self.rows[k as usize];
        if !state.active || state.synced == self.now {
            return;
        }
        let at = k as usize * width;
        // The row stays in L1 from the first replayed step to the last.
        for t in state.synced + 1..=self.now {
            let step = self.recent[(t % DORMANCY_CHECK_PERIOD) as usize]
                .expect("a row defers no step older than the last dormancy check");
            optimisers::adam_without_gradient(
                &mut self.w[at..at + width],
                &mut self.m_w[at..at + width],
                &mut self.v_w[at..at + width],
                step,
            );
        }
        state.synced = self.now;
        state.dirty = true;
    }

    /// [`FirstLayer::catch_up`] for every awake row: before all the weights are read.
    fn catch_up_all(&mut self) {
        for i in 0..self.active.len() {
            self.catch_up(self.active[i]);
        }
    }

    /// [`FirstLayer::catch_up`] for the rows of a dense observation's nonzero entries:
    /// before an action reads them.
    fn catch_up_inputs(&mut self, observation: &[f32]) {
        for (k, &x) in observation.iter().enumerate() {
            if x != 0.0 {
                self.catch_up(k as u32);
            }
        }
    }

    /// Optimiser step `t` (1-based) for every row that needs it; see the type's docs.
    fn step(&mut self, step: OptStep, t: u64) {
        let width = self.width;
        match step {
            OptStep::Adam(step) => self.adam(step, t),
            OptStep::Sgd(learning_rate) => {
                for &k in &self.touched {
                    let at = k as usize * width;
                    optimisers::sgd(
                        &mut self.w[at..at + width],
                        &mut self.grad_w[at..at + width],
                        learning_rate,
                    );
                    self.rows[k as usize].dirty = true;
                }
                optimisers::sgd(&mut self.b, &mut self.grad_b, learning_rate);
            }
            OptStep::RmsProp(step) => {
                for &k in &self.touched {
                    let at = k as usize * width;
                    let state = &mut self.rows[k as usize];
                    let skipped = t - 1 - state.dormant_since;
                    optimisers::decay(&mut self.v_w[at..at + width], step.decay, skipped);
                    optimisers::rmsprop(
                        &mut self.w[at..at + width],
                        &mut self.v_w[at..at + width],
                        &mut self.grad_w[at..at + width],
                        step,
                    );
                    state.dormant_since = t;
                    state.dirty = true;
                }
                optimisers::rmsprop(&mut self.b, &mut self.v_b, &mut self.grad_b, step);
            }
        }
        for &k in &self.touched {
            self.rows[k as usize].touched = false;
        }
        self.touched.clear();
    }

    /// Adam step `t` (1-based) for every row that needs it (see the type's docs): the
    /// rows touched take it now, from the state [`FirstLayer::touch`] brought them to;
    /// the other awake rows defer it. Leaves `touched` for [`FirstLayer::step`] to clear.
    fn adam(&mut self, step: AdamStep, t: u64) {
        let width = self.width;
        self.recent[(t % DORMANCY_CHECK_PERIOD) as usize] = Some(step);
        for &k in &self.touched {
            let state = &mut self.rows[k as usize];
            let at = k as usize * width;
            if !state.active {
                let skipped = t - 1 - state.dormant_since;
                optimisers::decay(&mut self.m_w[at..at + width], step.beta1, skipped);
                optimisers::decay(&mut self.v_w[at..at + width], step.beta2, skipped);
                state.active = true;
                self.active.push(k);
            }
            optimisers::adam(
                &mut self.w[at..at + width],
                &mut self.m_w[at..at + width],
                &mut self.v_w[at..at + width],
                &mut self.grad_w[at..at + width],
                step,
            );
            state.synced = t;
            state.dirty = true;
        }
        self.now = t;
        optimisers::adam(
            &mut self.b,
            &mut self.m_b,
            &mut self.v_b,
            &mut self.grad_b,
            step,
        );
        // Rows without gradient this step whose weights can no longer move fall asleep
        // (checked every few steps: the check costs about as much as an update).
        if t.is_multiple_of(DORMANCY_CHECK_PERIOD) {
            self.catch_up_all();
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
    }

    /// Copies the online weights to the target: only rows that changed since the last
    /// copy differ.
    fn update_target(&mut self) {
        self.catch_up_all();
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
    /// The ensemble's own state (bootstrapped DQN).
    ensemble: Option<Ensemble>,
}

/// What a bootstrapped replica keeps beyond a DQN replica.
struct Ensemble {
    /// Each member's frozen prior network (outputs scaled by `prior_scale` when used)...
    priors: Vec<(Params, Mlp)>,
    /// ...and its target's own, randomly initialised like the online one (quirk 30) until
    /// the first target update copies the online priors over: then they are dropped
    /// (`None`), and the target reads the online priors' values.
    target_priors: Option<Vec<(Params, Mlp)>>,
    prior_scale: f32,
    mask_prob: f64,
    /// The scale of the reward noise; at 0 no noise is drawn or stored.
    noise_scale: f64,
    /// The acting member's network as it was when drawn. Quirk 32: JAX acts with a
    /// snapshot of the member's parameters, so it does not see later SGD steps until the
    /// next draw at an episode end.
    active: (Params, Mlp),
    active_member: usize,
    /// Scratch: activations of one row through the (padded) acting network.
    active_acts: Vec<Vec<f32>>,
    /// This transition's bootstrap mask, one entry per member.
    mask: Vec<f32>,
    /// The last `o_t` and its prior values: the next transition's `o_tm1` within an
    /// episode, whose priors need not be computed again.
    last_prior: Option<(Vec<f32>, Vec<f32>)>,
    /// Scratch: a transition's side data `[prior_tm1, prior_t, mask, noise]` (see
    /// [`Ensemble::extra_width`]).
    extra: Vec<f32>,
    /// Scratch: activations of one row through one member.
    acts: Vec<Vec<f32>>,
    /// Scratch: a dense observation, and the target priors of a batch before the first
    /// target update, `[batch × members × actions]`.
    dense: Vec<f32>,
    target_prior_values: Vec<f32>,
    /// Scratch: the side data of the samples each member takes, member by member in the
    /// order of its rows, `[prior_tm1, prior_t, noise]` a row (see [`Ensemble::gather`]).
    by_member: Vec<f32>,
}

impl Ensemble {
    /// Floats of side data per transition: both prior values, the mask and, when `noisy`,
    /// the members' scaled reward noise.
    fn extra_width(members: usize, num_actions: usize, noisy: bool) -> usize {
        2 * members * num_actions + members + if noisy { members } else { 0 }
    }

    fn noisy(&self) -> bool {
        self.noise_scale > 0.0
    }

    /// Floats of a row of [`Ensemble::by_member`]: both priors of a member and its noise.
    fn by_member_width(num_actions: usize) -> usize {
        2 * num_actions + 1
    }

    /// Copies member `m`'s side data of a sample (`extra`, sample `b` of the batch, with
    /// `actions` actions) to its `row` in `by_member`: a member's loss then reads its rows
    /// in order, where reading them from each sample's side data took a cache miss a row.
    fn gather(
        &mut self,
        m: usize,
        row: usize,
        b: usize,
        batch: usize,
        extra: &[f32],
        actions: usize,
    ) {
        let members = self.mask.len();
        let width = members * actions;
        let own = m * actions..(m + 1) * actions;
        let stride = Self::by_member_width(actions);
        let noise = if self.noisy() {
            extra[2 * width + members + m]
        } else {
            0.0
        };
        let to = &mut self.by_member[(m * batch + row) * stride..][..stride];
        let prior_t = match self.target_priors {
            None => &extra[width..2 * width],
            Some(_) => &self.target_prior_values[b * width..(b + 1) * width],
        };
        // Element by element: a few floats, for which a call to `memcpy` cost more than
        // the copy.
        let (tm1, t) = (&extra[own.clone()], &prior_t[own]);
        #[allow(clippy::manual_memcpy)]
        for i in 0..actions {
            to[i] = tm1[i];
            to[actions + i] = t[i];
        }
        to[2 * actions] = noise;
    }

    /// Every member's scaled prior values of `observation`, `[members × actions]`.
    fn prior_values(
        nets: &[(Params, Mlp)],
        scale: f32,
        observation: &[f32],
        acts: &mut [Vec<f32>],
        out: &mut [f32],
    ) {
        for ((params, mlp), out) in nets.iter().zip(out.chunks_exact_mut(mlp_width(nets))) {
            mlp.forward(params, observation, 1, acts);
            let q = acts.last().expect("layers");
            for (o, &v) in out.iter_mut().zip(q) {
                *o = v * scale;
            }
        }
    }
}

/// The output width of an ensemble's networks.
fn mlp_width(nets: &[(Params, Mlp)]) -> usize {
    nets.first().map_or(0, |(_, mlp)| mlp.output_len())
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

/// What bootstrapped DQN adds to DQN's settings.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EnsembleSettings {
    pub(crate) prior_scale: f32,
    pub(crate) mask_prob: f64,
    pub(crate) noise_scale: f64,
}

/// Where each later layer's weights and biases sit in a replica's row of the stacked
/// parameters.
struct Layout {
    /// `[d0, d1, ..., dL]`: the first layer's width, later widths, padded actions last.
    dims: Vec<usize>,
    /// The hidden layers' widths before padding (`dims[..L]` padded): products sum over
    /// these only, since a padded input is always zero.
    hidden: Vec<usize>,
    /// `(weights, biases)` offsets of stacked layer `i` (mapping `dims[i]` to `dims[i+1]`).
    offsets: Vec<(usize, usize)>,
    /// Floats per replica row (a multiple of 16).
    row: usize,
}

impl Layout {
    /// Hidden layers `hidden` wide and up to `actions` actions, padded to multiples of 16:
    /// `matmul` takes columns 16 at a time.
    fn new(hidden: &[usize], actions: usize) -> Self {
        let mut dims: Vec<usize> = hidden.iter().map(|&h| pad16(h)).collect();
        dims.push(pad16(actions));
        let mut offsets = Vec::new();
        let mut row = 0;
        for pair in dims.windows(2) {
            let w = row;
            let b = pad16(w + pair[0] * pair[1]);
            offsets.push((w, b));
            row = pad16(b + pair[1]);
        }
        Layout {
            dims,
            hidden: hidden.to_vec(),
            offsets,
            row,
        }
    }

    fn layers(&self) -> usize {
        self.offsets.len()
    }

    /// Floats of one slot's activations of every layer, `rows` rows each.
    fn acts_len(&self, rows: usize) -> usize {
        rows * self.dims.iter().sum::<usize>()
    }

    /// Where layer `i`'s activations (`rows × dims[i]`, row-major) start in a slot's
    /// activations: layer 0 is the first layer's output, layer `L` the Q-values.
    fn act_offset(&self, i: usize, rows: usize) -> usize {
        rows * self.dims[..i].iter().sum::<usize>()
    }
}

/// Stacked parameters, one block a slot, the first `slots()` of them live, and the
/// activations of one replica's SGD step.
struct Stack {
    /// Parameters, `layout.row` floats a slot.
    params: Vec<f32>,
    target: Vec<f32>,
    m: Vec<f32>,
    v: Vec<f32>,
    /// One slot's gradients, `layout.row` floats, reused by every slot in turn: the
    /// optimiser zeroes them as it reads them, and a slot's gradients are never needed
    /// after its own update, so they stay in L1 from the backward pass to the update
    /// instead of taking a block of the cache per slot.
    grad: Vec<f32>,
    /// Activations when acting, `layout.acts_len(1)` floats a replica (an ensemble acts
    /// through its active member's snapshot instead).
    act: Vec<f32>,
    /// Online activations of the sampled `o_tm1` of the member learning,
    /// `layout.acts_len(batch)` floats, reused by every member in turn...
    online: Vec<f32>,
    /// ...its target activations of the sampled `o_t`: the first layer's as `online`,
    /// the later layers' there only for a batch of one...
    target_act: Vec<f32>,
    /// ...and otherwise transposed, as [`forward_transposed`] lays them out...
    target_t: Vec<f32>,
    /// ...and its loss gradients with respect to `online`, as `online`.
    delta: Vec<f32>,
    /// One slot's weights of one layer, transposed, for the backward pass.
    w_t: Vec<f32>,
    /// The samples each member learns from (those its bootstrap mask takes, in batch
    /// order), `batch` entries a member of which the first `sample_counts[m]` are live.
    member_samples: Vec<usize>,
    sample_counts: Vec<usize>,
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
        let ensemble = self.config.ensemble.map(|settings| {
            let noisy = settings.noise_scale > 0.0;
            let nets = |rng: &mut RandomState| -> Vec<(Params, Mlp)> {
                (0..members)
                    .map(|_| {
                        let mut params = Params::frozen();
                        let mlp = Mlp::new(&mut params, rng, &sizes);
                        (params, mlp)
                    })
                    .collect()
            };
            let priors = nets(&mut rng);
            let target_priors = nets(&mut rng);
            let acts = priors[0].1.activations(1);
            Ensemble {
                priors,
                target_priors: Some(target_priors),
                prior_scale: settings.prior_scale,
                mask_prob: settings.mask_prob,
                noise_scale: settings.noise_scale,
                active: (Params::frozen(), Mlp::from_layers(Vec::new())),
                active_member: 0,
                active_acts: Vec::new(),
                mask: vec![1.0; members],
                last_prior: None,
                extra: vec![0.0; Ensemble::extra_width(members, num_actions, noisy)],
                acts,
                dense: vec![0.0; obs_len],
                target_prior_values: Vec::new(),
                by_member: Vec::new(),
            }
        });
        let batch = self.config.batch_size;
        let extra_width = ensemble.as_ref().map_or(0, |e| e.extra.len());
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
        let mlp = Mlp::from_layers(layers);
        // Every snapshot has the same (padded) shape: the scratch is made once.
        if ensemble.active_acts.is_empty() {
            ensemble.active_acts = mlp.activations(1);
        }
        ensemble.active = (params, mlp);
        ensemble.active_member = m;
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
        if ensemble.mask_prob < 1.0 {
            for m in &mut ensemble.mask {
                *m = f32::from(replica.rng.bernoulli(ensemble.mask_prob));
            }
        }
        let members = ensemble.mask.len();
        let width = members * replica.num_actions;
        let (prior_tm1, rest) = ensemble.extra.split_at_mut(width);
        let (prior_t, rest) = rest.split_at_mut(width);
        let (mask, noise) = rest.split_at_mut(members);
        // bsuite draws each member's reward noise right after the mask (and at scale 0
        // too, which this agent does not: see `BootDqnConfig::noise_scale`).
        if ensemble.noise_scale > 0.0 {
            let scale = ensemble.noise_scale as f32;
            for z in noise {
                *z = scale * replica.rng.randn() as f32;
            }
        }
        match ensemble.last_prior.take() {
            Some((obs, prior)) if *obs == *timestep.observation => {
                prior_tm1.copy_from_slice(&prior)
            }
            _ => Ensemble::prior_values(
                &ensemble.priors,
                ensemble.prior_scale,
                &timestep.observation,
                &mut ensemble.acts,
                prior_tm1,
            ),
        }
        Ensemble::prior_values(
            &ensemble.priors,
            ensemble.prior_scale,
            &new.observation,
            &mut ensemble.acts,
            prior_t,
        );
        mask.copy_from_slice(&ensemble.mask);
        ensemble.last_prior = Some((new.observation.to_vec(), prior_t.to_vec()));
        replica.replay.add_with_extra(
            &timestep.observation,
            action,
            reward,
            discount,
            &new.observation,
            &ensemble.extra,
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
            let width = members * num_actions;
            let sampled: Vec<_> = indices.iter().map(|&i| replay.get(i)).collect();
            let (mut inputs_tm1, mut inputs_t) = (Vec::new(), Vec::new());
            // Before the first target update the targets' priors are their own.
            if let Some(Ensemble {
                target_priors: Some(target_priors),
                target_prior_values,
                dense,
                acts,
                prior_scale,
                ..
            }) = ensemble.as_mut()
            {
                target_prior_values.resize(batch * width, 0.0);
                for (b, t) in sampled.iter().enumerate() {
                    dense.fill(0.0);
                    for &(k, x) in t.o_t {
                        dense[k as usize] = x;
                    }
                    Ensemble::prior_values(
                        target_priors,
                        *prior_scale,
                        dense,
                        acts,
                        &mut target_prior_values[b * width..(b + 1) * width],
                    );
                }
            }
            if let Some(e) = ensemble.as_mut() {
                let len = members * batch * Ensemble::by_member_width(num_actions);
                e.by_member.resize(len, 0.0);
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
                        Some(e) if t.extra[2 * width + m] != 0.0 => {
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
                    let stride = Ensemble::by_member_width(num_actions);
                    let side = &e.by_member[(m * batch + row) * stride..][..stride];
                    let (prior_tm1, prior_t) = side.split_at(num_actions);
                    let max_q = (0..num_actions)
                        .zip(prior_t)
                        .map(|(a, &p)| q_next(row, a) + p)
                        .fold(f32::NEG_INFINITY, f32::max);
                    // The member's reward noise, if any, joins the reward first.
                    let reward = if e.noisy() {
                        rewards[b] + side[2 * num_actions]
                    } else {
                        rewards[b]
                    };
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
                column_sums(&mut first.grad_b[m * d0..(m + 1) * d0], &delta[..rows * d0]);
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
                // The priors never learn, so from the first target update on the target's
                // priors are the online ones, and its own are never read again (a copy of
                // them took 9% of deep_sea/20's time, whose priors have 2,500 inputs).
                if let Some(e) = replica.ensemble.as_mut() {
                    e.target_priors = None;
                }
            }
        }
    }
}

/// The order a forward pass sums in. LibTorch summed a product of one row (acting, or a
/// batch of one) in another order than a batch's; each keeps its own, so that results stay
/// what they were. It is the batch's, not the rows': a member may take one sample of many.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Order {
    /// One row: the bias first, each product rounded before its addition.
    OneRow,
    /// A batch: one fused multiply-add chain from zero, the bias last.
    Batch,
}

/// Runs one slot's stacked layers forward (parameters `p`) on `rows` inputs, summing in
/// `order`: `acts` holds the first layer's output, already written, and receives every
/// later layer's (see [`Layout::act_offset`]).
fn forward_slot(layout: &Layout, p: &[f32], acts: &mut [f32], rows: usize, order: Order) {
    if rows == 0 {
        return;
    }
    let layers = layout.layers();
    for i in 0..layers {
        let (fan_in, fan_out) = (layout.dims[i], layout.dims[i + 1]);
        let (w_off, b_off) = layout.offsets[i];
        let (w, b) = (&p[w_off..][..fan_in * fan_out], &p[b_off..][..fan_out]);
        let (done, next) = acts.split_at_mut(layout.act_offset(i + 1, rows));
        let x = &done[layout.act_offset(i, rows)..];
        let out = &mut next[..rows * fan_out];
        let hidden = i + 1 < layers;
        if order == Order::OneRow {
            out.copy_from_slice(b);
            add_rows(out, x, w);
            if hidden {
                relu(out);
            }
        } else {
            // A padded input adds an exact zero to a chain that never is -0.0.
            let w = &w[..layout.hidden[i] * fan_out];
            let then = Epilogue::relu_if(hidden);
            matmul(out, x, (fan_in, 1), w, fan_out, Some(b), then);
        }
    }
}

/// [`forward_slot`] in the batch's order for a network whose activations are not
/// backpropagated (the target's), vectorised over the rows: layer `i`'s activations are
/// written transposed at `i · widest · rows` of `acts_t` (its real width in rows of
/// `rows`), each the `a` of the next layer's product, and the Q-values are returned,
/// `actions` rows of `rows`. `acts` holds the first layer's output, row-major. The sums are
/// [`forward_slot`]'s, so are the bits; a layer costs its real width rather than its
/// padded one (the head 3 columns rather than 16), for one transpose of the first layer's
/// output.
fn forward_transposed<'t>(
    layout: &Layout,
    p: &[f32],
    acts: &[f32],
    acts_t: &'t mut [f32],
    rows: usize,
    actions: usize,
) -> &'t [f32] {
    let layers = layout.layers();
    let widest = layout.dims.iter().copied().max().expect("layers");
    let region = widest * rows;
    let first = &acts[..rows * layout.dims[0]];
    transpose(
        first,
        layout.dims[0],
        &mut acts_t[..layout.hidden[0] * rows],
    );
    for i in 0..layers {
        let fan_out = layout.dims[i + 1];
        let (inputs, outputs) = (
            layout.hidden[i],
            layout.hidden.get(i + 1).copied().unwrap_or(actions),
        );
        let (w_off, b_off) = layout.offsets[i];
        let (w, b) = (&p[w_off..][..inputs * fan_out], &p[b_off..][..fan_out]);
        let (done, next) = acts_t.split_at_mut((i + 1) * region);
        let x_t = &done[i * region..][..inputs * rows];
        let out_t = &mut next[..outputs * rows];
        let then = Epilogue::relu_if(i + 1 < layers);
        matmul_transposed(
            out_t,
            rows,
            x_t,
            rows,
            w,
            fan_out,
            0..outputs,
            Some(b),
            then,
        );
    }
    &acts_t[layers * region..][..actions * rows]
}

/// The optimiser's step on one slot's stacked layers (parameters `p`, moments `m` and `v`,
/// gradients `g`), over the weight rows of real inputs only: a padded input's weights,
/// gradients and moments are zeros, which every optimiser leaves as they are.
fn optimise_slot(
    layout: &Layout,
    p: &mut [f32],
    m: &mut [f32],
    v: &mut [f32],
    g: &mut [f32],
    step: OptStep,
) {
    for (i, &(w_off, b_off)) in layout.offsets.iter().enumerate() {
        let fan_out = layout.dims[i + 1];
        for range in [
            w_off..w_off + layout.hidden[i] * fan_out,
            b_off..b_off + fan_out,
        ] {
            optimisers::apply(
                &mut p[range.clone()],
                &mut m[range.clone()],
                &mut v[range.clone()],
                &mut g[range],
                step,
            );
        }
    }
}

/// One slot's backward pass, from the loss gradient in the last layer of `delta` (laid out
/// as `acts`): per layer, the weight gradient `xᵀ·δ` and the bias gradient into `grad`,
/// and the input's `δ·wᵀ` (through `w` transposed into `w_t`, so that the product reads
/// rows) into `delta`, down to the first layer's output. Sums skip padded inputs and
/// outputs, whose terms are exact zeros; the gradients of padded inputs and outputs are
/// never written and stay zero. A weight gradient's columns past the last whole vector of
/// real outputs are taken 16 of its rows at a time ([`matmul_transposed`]).
#[allow(clippy::too_many_arguments)]
fn backward_slot(
    layout: &Layout,
    p: &[f32],
    grad: &mut [f32],
    acts: &[f32],
    delta: &mut [f32],
    w_t: &mut [f32],
    rows: usize,
    actions: usize,
) {
    for i in (0..layout.layers()).rev() {
        let (fan_in, fan_out) = (layout.dims[i], layout.dims[i + 1]);
        let (w_off, b_off) = layout.offsets[i];
        let inputs = layout.hidden[i];
        let outputs = layout.hidden.get(i + 1).copied().unwrap_or(actions);
        let (lower, upper) = delta.split_at_mut(layout.act_offset(i + 1, rows));
        let d = &upper[..rows * fan_out];
        let d_in = &mut lower[layout.act_offset(i, rows)..];
        let x = &acts[layout.act_offset(i, rows)..][..rows * fan_in];
        let g = &mut grad[w_off..][..inputs * fan_out];
        let whole = outputs / 16 * 16;
        matmul_columns(g, x, (1, fan_in), d, fan_out, None, Epilogue::Store, whole);
        let rest = &mut w_t[..(outputs - whole) * inputs];
        let cols = whole..outputs;
        matmul_transposed(
            rest,
            inputs,
            x,
            fan_in,
            d,
            fan_out,
            cols,
            None,
            Epilogue::Store,
        );
        for (j, column) in (whole..outputs).zip(rest.chunks_exact(inputs)) {
            for (k, &sum) in column.iter().enumerate() {
                g[k * fan_out + j] = sum;
            }
        }
        column_sums(&mut grad[b_off..][..fan_out], d);
        let w_t = &mut w_t[..outputs * fan_in];
        transpose(&p[w_off..][..fan_in * fan_out], fan_out, w_t);
        matmul(
            d_in,
            d,
            (fan_out, 1),
            w_t,
            fan_in,
            None,
            Epilogue::ReluBackward(x),
        );
    }
}

impl Stack {
    fn new(layout: &Layout, replicas: usize, members: usize, batch: usize) -> Self {
        let flat = || vec![0.0f32; replicas * members * layout.row];
        let sgd_acts = || vec![0.0f32; layout.acts_len(batch)];
        let widest = layout.dims.iter().max().expect("layers");
        Stack {
            params: flat(),
            target: flat(),
            m: flat(),
            v: flat(),
            grad: vec![0.0; layout.row],
            act: vec![0.0; replicas * layout.acts_len(1)],
            online: sgd_acts(),
            target_act: sgd_acts(),
            target_t: vec![0.0; layout.dims.len() * widest * batch],
            delta: sgd_acts(),
            w_t: vec![0.0; widest * widest],
            member_samples: vec![0; members * batch],
            sample_counts: vec![0; members],
        }
    }

    /// Moves the rows of the replicas kept to the front, in order.
    fn compact(&mut self, kept: &[usize], row: usize) {
        for data in [&mut self.params, &mut self.target, &mut self.m, &mut self.v] {
            for (to, &from) in kept.iter().enumerate() {
                if to != from {
                    data.copy_within(from * row..(from + 1) * row, to * row);
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
                let (params, mlp) = &e.active;
                mlp.forward(params, &timestep.observation, 1, &mut e.active_acts);
                let q = &mut e.active_acts.last_mut().expect("layers")[..replica.num_actions];
                let member = e.active_member;
                let (prior_params, prior) = &e.priors[member];
                prior.forward(prior_params, &timestep.observation, 1, &mut e.acts);
                for (q, &p) in q.iter_mut().zip(e.acts.last().expect("layers")) {
                    *q += p * e.prior_scale;
                }
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
            let first = &mut acts[..d0];
            first.copy_from_slice(&replica.first.b);
            replica.first.catch_up_inputs(&timestep.observation);
            add_dense_rows(first, &timestep.observation, &replica.first.w);
            relu(first);
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
    /// them. Each run passes many target updates.
    #[test]
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

    impl FirstLayer {
        /// The optimiser state as updating every row every step would have it at step `t`:
        /// the decays a dormant row missed, replayed (Adam's both moments, RMSProp's `ν`).
        fn woken_moments(&self, t: u64, optimizer: Optimizer) -> (Vec<f32>, Vec<f32>) {
            let (mut m, mut v) = (self.m_w.clone(), self.v_w.clone());
            for (k, state) in self.rows.iter().enumerate() {
                if !state.active {
                    let at = k * self.width;
                    let skipped = t - state.dormant_since;
                    match optimizer {
                        Optimizer::Adam => {
                            optimisers::decay(&mut m[at..at + self.width], 0.9, skipped);
                            optimisers::decay(&mut v[at..at + self.width], 0.999, skipped);
                        }
                        Optimizer::RmsProp => {
                            optimisers::decay(&mut v[at..at + self.width], 0.9, skipped);
                        }
                        Optimizer::Sgd => {}
                    }
                }
            }
            (m, v)
        }
    }

    /// The first layer's skipping of dormant rows against the plain optimiser on every
    /// weight every step, bit for bit, with rows that sleep for long stretches and wake
    /// again, for every optimiser.
    #[test]
    fn dormant_rows_end_where_updating_every_row_every_step_ends() {
        for optimizer in [Optimizer::Adam, Optimizer::Sgd, Optimizer::RmsProp] {
            lazy_equals_plain(optimizer);
        }
    }

    fn lazy_equals_plain(optimizer: Optimizer) {
        let (obs_len, width) = (12, 16);
        let mut rng = RandomState::new(11);
        let init: Vec<f32> = (0..obs_len * width).map(|_| rng.randn() as f32).collect();
        let mut lazy = FirstLayer::new(obs_len, width, &[&init], &[&init], width);
        let (mut w, mut m, mut v) = (init.clone(), vec![0.0; init.len()], vec![0.0; init.len()]);
        let (mut b, mut m_b, mut v_b) = (vec![0.0; width], vec![0.0; width], vec![0.0; width]);
        let steps = 3000u64;
        let mut deferred = 0u64;
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
            for &(k, x) in &entries {
                for (g, &d) in grad[k as usize * width..][..width].iter_mut().zip(&delta) {
                    *g += x * d;
                }
            }
            lazy.accumulate_grad(0, &[&entries], &delta, true);
            lazy.touch(&entries);
            lazy.grad_b.copy_from_slice(&delta);
            let step = OptStep::new(optimizer, 1e-3, t);
            lazy.step(step, t);
            optimisers::apply(&mut w, &mut m, &mut v, &mut grad, step);
            optimisers::apply(&mut b, &mut m_b, &mut v_b, &mut delta.clone(), step);
            // Rows awake but untouched defer their updates until read: a copy brought up
            // to date has every step's weights; a target update every 5 steps (not a
            // divisor of the dormancy check's 8) brings the layer itself up to date.
            deferred += lazy
                .active
                .iter()
                .filter(|&&k| lazy.rows[k as usize].synced < t)
                .count() as u64;
            let mut now = lazy.clone();
            now.catch_up_all();
            assert_eq!(now.w, w, "{optimizer:?}: weights at step {t}");
            assert_eq!(lazy.b, b, "{optimizer:?}: biases at step {t}");
            if t % 5 == 0 {
                lazy.update_target();
                assert_eq!(
                    lazy.w, w,
                    "{optimizer:?}: weights after the target update {t}"
                );
                assert_eq!(lazy.target_w, w);
            }
            if t % 97 == 0 || t == steps {
                assert_eq!(
                    now.woken_moments(t, optimizer),
                    (m.clone(), v.clone()),
                    "{optimizer:?}: moments at step {t}"
                );
            }
            if t == 2400 {
                assert!(!lazy.rows[0].active, "row 0 should be asleep by now");
                assert!(!lazy.rows[1].active, "row 1 should be asleep by now");
            }
            if optimizer != Optimizer::Adam {
                assert!(lazy.active.is_empty(), "only Adam keeps rows awake");
            }
        }
        assert!(!lazy.rows[10].active, "a row never seen stays dormant");
        assert_ne!(w, init, "{optimizer:?} moved the weights");
        if optimizer == Optimizer::Adam {
            assert!(deferred > steps, "awake rows deferred {deferred} updates");
        }
        lazy.update_target();
        assert_eq!(lazy.target_w, w);
    }
}
