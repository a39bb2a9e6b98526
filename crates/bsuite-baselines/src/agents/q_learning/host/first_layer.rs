//! The first layer of a replica's networks, every member's side by side, as a sparse
//! product over an observation's nonzero entries, with an optimiser step that updates only
//! the rows that can move and defers or skips the others, to the same bits (see
//! [`FirstLayer`]).

use crate::host::activations::relu;
use crate::host::dispatch::prefetch;
use crate::host::linear::add_dense_rows;
use crate::host::optimisers::{self, AdamStep, OptStep};
use crate::host::sparse::{scatter_sparse_layer, sparse_relu_layer, EntriesByInput, Entry};
use crate::host::sums::column_sums;

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
pub(super) struct FirstLayer {
    /// Columns of a row: every member's block side by side.
    pub(super) width: usize,
    /// Columns of one member's block.
    pub(super) member_width: usize,
    pub(super) w: Vec<f32>,
    pub(super) b: Vec<f32>,
    pub(super) target_w: Vec<f32>,
    pub(super) target_b: Vec<f32>,
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
    pub(super) fn new(
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
    pub(super) fn forward(&self, target: bool, m: usize, inputs: &[&[Entry]], out: &mut [f32]) {
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
    /// of `deltas`, and sets its bias gradients to their sums; [`FirstLayer::touch`] marks
    /// the samples' rows. `regroup` is false where `inputs` are the last call's (a member
    /// that takes the samples the last one took), whose grouping by input then serves
    /// again.
    pub(super) fn accumulate_grad(
        &mut self,
        m: usize,
        inputs: &[&[Entry]],
        deltas: &[f32],
        regroup: bool,
    ) {
        let block = m * self.member_width;
        column_sums(&mut self.grad_b[block..][..self.member_width], deltas);
        let (g, width) = (&mut self.grad_w[block..], self.member_width);
        if regroup {
            self.by_input.group(inputs);
        }
        scatter_sparse_layer(g, self.width, &self.by_input, deltas, width);
    }

    /// Asks the CPU to fetch member `m`'s blocks of the rows this step touches (its
    /// weights, its target's and its gradients) into L2, while an earlier member computes:
    /// sparse rows are gathers no hardware prefetcher foresees. A hint only.
    pub(super) fn prefetch(&self, m: usize) {
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
    pub(super) fn touch(&mut self, entries: &[Entry]) {
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
    pub(super) fn catch_up_all(&mut self) {
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

    /// The first (DQN's only) member's `relu(b + Σ x_k w[k])` of a dense observation when
    /// acting, into `out`, its rows brought up to date first.
    pub(super) fn act(&mut self, observation: &[f32], out: &mut [f32]) {
        out.copy_from_slice(&self.b);
        self.catch_up_inputs(observation);
        add_dense_rows(out, observation, &self.w);
        relu(out);
    }

    /// Optimiser step `t` (1-based) for every row that needs it; see the type's docs.
    pub(super) fn step(&mut self, step: OptStep, t: u64) {
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
    pub(super) fn update_target(&mut self) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Optimizer;
    use bsuite_envs::RandomState;

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
