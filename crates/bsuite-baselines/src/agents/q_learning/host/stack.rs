//! The later layers of every replica's networks, stacked: each slot's (a replica's
//! member's) parameters, target and optimiser state in one row of flat buffers, the
//! activations of the member learning, and the passes over one slot, forward, backward
//! and the optimiser's step, as the host products run them.

use crate::host::activations::relu;
use crate::host::linear::add_rows;
use crate::host::matmul::{matmul, matmul_columns, matmul_transposed, transpose, Epilogue};
use crate::host::optimisers::{self, OptStep};
use crate::host::pad16;
use crate::host::sums::column_sums;

/// Where each later layer's weights and biases sit in a replica's row of the stacked
/// parameters.
pub(super) struct Layout {
    /// `[d0, d1, ..., dL]`: the first layer's width, later widths, padded actions last.
    pub(super) dims: Vec<usize>,
    /// The hidden layers' widths before padding (`dims[..L]` padded): products sum over
    /// these only, since a padded input is always zero.
    pub(super) hidden: Vec<usize>,
    /// `(weights, biases)` offsets of stacked layer `i` (mapping `dims[i]` to `dims[i+1]`).
    pub(super) offsets: Vec<(usize, usize)>,
    /// Floats per replica row (a multiple of 16).
    pub(super) row: usize,
}

impl Layout {
    /// Hidden layers `hidden` wide and up to `actions` actions, padded to multiples of 16:
    /// `matmul` takes columns 16 at a time.
    pub(super) fn new(hidden: &[usize], actions: usize) -> Self {
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

    pub(super) fn layers(&self) -> usize {
        self.offsets.len()
    }

    /// Floats of one slot's activations of every layer, `rows` rows each.
    pub(super) fn acts_len(&self, rows: usize) -> usize {
        rows * self.dims.iter().sum::<usize>()
    }

    /// Where layer `i`'s activations (`rows × dims[i]`, row-major) start in a slot's
    /// activations: layer 0 is the first layer's output, layer `L` the Q-values.
    pub(super) fn act_offset(&self, i: usize, rows: usize) -> usize {
        rows * self.dims[..i].iter().sum::<usize>()
    }
}

/// Stacked parameters, one block a slot, the first `slots()` of them live, and the
/// activations of one replica's SGD step.
pub(super) struct Stack {
    /// Parameters, `layout.row` floats a slot.
    pub(super) params: Vec<f32>,
    pub(super) target: Vec<f32>,
    pub(super) m: Vec<f32>,
    pub(super) v: Vec<f32>,
    /// One slot's gradients, `layout.row` floats, reused by every slot in turn: the
    /// optimiser zeroes them as it reads them, and a slot's gradients are never needed
    /// after its own update, so they stay in L1 from the backward pass to the update
    /// instead of taking a block of the cache per slot.
    pub(super) grad: Vec<f32>,
    /// Activations when acting, `layout.acts_len(1)` floats a replica (an ensemble acts
    /// through its active member's snapshot instead).
    pub(super) act: Vec<f32>,
    /// Online activations of the sampled `o_tm1` of the member learning,
    /// `layout.acts_len(batch)` floats, reused by every member in turn...
    pub(super) online: Vec<f32>,
    /// ...its target activations of the sampled `o_t`: the first layer's as `online`,
    /// the later layers' there only for a batch of one...
    pub(super) target_act: Vec<f32>,
    /// ...and otherwise transposed, as [`forward_transposed`] lays them out...
    pub(super) target_t: Vec<f32>,
    /// ...and its loss gradients with respect to `online`, as `online`.
    pub(super) delta: Vec<f32>,
    /// One slot's weights of one layer, transposed, for the backward pass.
    pub(super) w_t: Vec<f32>,
    /// The samples each member learns from (those its bootstrap mask takes, in batch
    /// order), `batch` entries a member of which the first `sample_counts[m]` are live.
    pub(super) member_samples: Vec<usize>,
    pub(super) sample_counts: Vec<usize>,
}

impl Stack {
    /// Zeros for `replicas` replicas of `members` members each, with one member's
    /// activations for a batch of `batch`.
    pub(super) fn new(layout: &Layout, replicas: usize, members: usize, batch: usize) -> Self {
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
    pub(super) fn compact(&mut self, kept: &[usize], row: usize) {
        for data in [&mut self.params, &mut self.target, &mut self.m, &mut self.v] {
            for (to, &from) in kept.iter().enumerate() {
                if to != from {
                    data.copy_within(from * row..(from + 1) * row, to * row);
                }
            }
        }
    }
}

/// The order a forward pass sums in. LibTorch summed a product of one row (acting, or a
/// batch of one) in another order than a batch's; each keeps its own, so that results stay
/// what they were. It is the batch's, not the rows': a member may take one sample of many.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Order {
    /// One row: the bias first, each product rounded before its addition.
    OneRow,
    /// A batch: one fused multiply-add chain from zero, the bias last.
    Batch,
}

/// Runs one slot's stacked layers forward (parameters `p`) on `rows` inputs, summing in
/// `order`: `acts` holds the first layer's output, already written, and receives every
/// later layer's (see [`Layout::act_offset`]).
pub(super) fn forward_slot(
    layout: &Layout,
    p: &[f32],
    acts: &mut [f32],
    rows: usize,
    order: Order,
) {
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
pub(super) fn forward_transposed<'t>(
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
pub(super) fn optimise_slot(
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
pub(super) fn backward_slot(
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
