//! Networks computed on the host for one replica: linear layers, MLPs and Haiku's LSTM,
//! forward and backward written out, over parameters kept in one flat buffer with their
//! optimiser state.
//!
//! Small networks spend most of their time in per-call overhead when run through LibTorch,
//! and replicas do not share weights, so batching them raises no arithmetic intensity:
//! plain loops over one replica's weights, read once per row block, are as fast as the
//! hardware allows here. Every loop runs in a fixed order (see [`crate::host`]), so a
//! replica computes the same bits alone or beside any others, acting and training use the
//! same kernels, and a run is reproducible from its seed.

use bsuite_envs::RandomState;

use crate::config::Optimizer;
use crate::host::activations::{lstm_cell, lstm_cell_backward, relu, relu_backward};
use crate::host::linear::{add_product, add_weight_grad, backprop_input};
use crate::host::optimisers::{self, OptStep};
use crate::host::sums::add_column_sums;
use crate::host::truncated_normal;

/// A replica's parameters, their gradients and optimiser state (Adam's moments, or
/// RMSProp's `ν` in `v`), in flat buffers; layers hold offsets into them.
pub(crate) struct Params {
    pub(crate) values: Vec<f32>,
    pub(crate) grad: Vec<f32>,
    m: Vec<f32>,
    v: Vec<f32>,
    /// Optimiser steps taken.
    steps: u64,
    /// False for fixed networks (priors, snapshots): no gradient or optimiser state is kept.
    trainable: bool,
}

impl Params {
    /// Parameters that train.
    pub(crate) fn new() -> Self {
        Params {
            values: Vec::new(),
            grad: Vec::new(),
            m: Vec::new(),
            v: Vec::new(),
            steps: 0,
            trainable: true,
        }
    }

    /// Parameters of a fixed network: forward passes only.
    pub(crate) fn frozen() -> Self {
        Params {
            trainable: false,
            ..Params::new()
        }
    }

    /// Appends parameters initialised to `values`; returns their offset.
    fn push(&mut self, values: &[f32]) -> usize {
        let at = self.values.len();
        self.values.extend_from_slice(values);
        if self.trainable {
            let n = self.values.len();
            for buffer in [&mut self.grad, &mut self.m, &mut self.v] {
                buffer.resize(n, 0.0);
            }
        }
        at
    }

    /// One step of `optimizer` (optax's defaults but for the learning rate; Adam in
    /// PyTorch's and optax's form) on every parameter with the gradients accumulated since
    /// the last step, which it then clears.
    pub(crate) fn step(&mut self, optimizer: Optimizer, learning_rate: f64) {
        self.steps += 1;
        optimisers::apply(
            &mut self.values,
            &mut self.m,
            &mut self.v,
            &mut self.grad,
            OptStep::new(optimizer, learning_rate, self.steps),
        );
    }
}

/// A linear layer `y = x·W + b`, `W` being `[fan_in, fan_out]` row-major.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Linear {
    pub(crate) fan_in: usize,
    pub(crate) fan_out: usize,
    w: usize,
    b: usize,
}

impl Linear {
    /// Haiku's `Linear` initialisation from `rng`: weights ~ TruncatedNormal(1/sqrt(fan_in)),
    /// zero biases.
    pub(crate) fn new(
        params: &mut Params,
        rng: &mut RandomState,
        fan_in: usize,
        fan_out: usize,
    ) -> Self {
        let w = truncated_normal(rng, fan_in * fan_out, 1.0 / (fan_in as f64).sqrt());
        Self::from_weights(params, &w, &vec![0.0; fan_out])
    }

    /// A layer with these weights (`[fan_in, fan_out]` row-major) and biases.
    pub(crate) fn from_weights(params: &mut Params, w: &[f32], b: &[f32]) -> Self {
        let fan_out = b.len();
        let fan_in = w.len() / fan_out;
        assert_eq!(
            fan_in * fan_out,
            w.len(),
            "weights of a {fan_out}-wide layer"
        );
        let w = params.push(w);
        let b = params.push(b);
        Linear {
            fan_in,
            fan_out,
            w,
            b,
        }
    }

    fn weights<'a>(&self, params: &'a [f32]) -> &'a [f32] {
        &params[self.w..self.w + self.fan_in * self.fan_out]
    }

    /// `out = input·W + b` for every row (`input` `[rows, fan_in]`, `out` `[rows, fan_out]`).
    pub(crate) fn forward(&self, params: &Params, input: &[f32], out: &mut [f32]) {
        let bias = &params.values[self.b..self.b + self.fan_out];
        for row in out.chunks_exact_mut(self.fan_out) {
            row.copy_from_slice(bias);
        }
        add_product(out, input, self.weights(&params.values), self.fan_out);
    }

    /// Accumulates the gradients of `W` and `b` from the output gradient `delta` of rows
    /// `input`, and writes the input gradient into `delta_in` when asked.
    pub(crate) fn backward(
        &self,
        params: &mut Params,
        input: &[f32],
        delta: &[f32],
        delta_in: Option<&mut [f32]>,
    ) {
        let Params { values, grad, .. } = params;
        let (fan_in, fan_out) = (self.fan_in, self.fan_out);
        add_weight_grad(
            &mut grad[self.w..][..fan_in * fan_out],
            input,
            delta,
            fan_out,
        );
        add_column_sums(&mut grad[self.b..][..fan_out], delta);
        if let Some(delta_in) = delta_in {
            backprop_input(delta_in, delta, self.weights(values), fan_out);
        }
    }
}

/// Haiku's `MLP`: linear layers with a ReLU between them and none after the last.
pub(crate) struct Mlp {
    layers: Vec<Linear>,
}

impl Mlp {
    /// Layers `sizes[i] → sizes[i + 1]`, initialised in order.
    pub(crate) fn new(params: &mut Params, rng: &mut RandomState, sizes: &[usize]) -> Self {
        let layers = sizes
            .windows(2)
            .map(|pair| Linear::new(params, rng, pair[0], pair[1]))
            .collect();
        Mlp { layers }
    }

    /// An MLP of these layers.
    pub(crate) fn from_layers(layers: Vec<Linear>) -> Self {
        Mlp { layers }
    }

    /// The width of the output.
    pub(crate) fn output_len(&self) -> usize {
        self.layers.last().map_or(0, |l| l.fan_out)
    }

    /// Buffers for the activations of `rows` rows, one per layer.
    pub(crate) fn activations(&self, rows: usize) -> Vec<Vec<f32>> {
        self.layers
            .iter()
            .map(|l| vec![0.0; rows * l.fan_out])
            .collect()
    }

    /// Runs `rows` rows of `input` through the layers; `acts[i]` receives layer `i`'s
    /// output (after its ReLU), the last one the network's output.
    pub(crate) fn forward(
        &self,
        params: &Params,
        input: &[f32],
        rows: usize,
        acts: &mut [Vec<f32>],
    ) {
        self.forward_rows(params, input, 0..rows, acts);
    }

    /// [`Mlp::forward`] of the rows `rows` of activation buffers that hold more: `input`
    /// holds just those rows, and the other rows of `acts` are left alone. A row's result
    /// does not depend on which rows it is computed with.
    pub(crate) fn forward_rows(
        &self,
        params: &Params,
        input: &[f32],
        rows: std::ops::Range<usize>,
        acts: &mut [Vec<f32>],
    ) {
        let last = self.layers.len() - 1;
        for (i, layer) in self.layers.iter().enumerate() {
            let (before, after) = acts.split_at_mut(i);
            let x = if i == 0 {
                &input[..rows.len() * layer.fan_in]
            } else {
                &before[i - 1][rows.start * layer.fan_in..rows.end * layer.fan_in]
            };
            let out = &mut after[0][rows.start * layer.fan_out..rows.end * layer.fan_out];
            layer.forward(params, x, out);
            if i < last {
                relu(out);
            }
        }
    }

    /// Backpropagates the output gradient, which `deltas[last]` holds on entry, through
    /// the layers of a [`Mlp::forward`] over the same rows; accumulates the parameter
    /// gradients. `deltas` has the shapes of the activations and is overwritten.
    pub(crate) fn backward(
        &self,
        params: &mut Params,
        input: &[f32],
        rows: usize,
        acts: &[Vec<f32>],
        deltas: &mut [Vec<f32>],
    ) {
        for (i, layer) in self.layers.iter().enumerate().rev() {
            let (before, after) = deltas.split_at_mut(i);
            let delta = &after[0][..rows * layer.fan_out];
            let x = if i == 0 {
                &input[..rows * layer.fan_in]
            } else {
                &acts[i - 1][..rows * layer.fan_in]
            };
            if i == 0 {
                layer.backward(params, x, delta, None);
            } else {
                let delta_in = &mut before[i - 1][..rows * layer.fan_in];
                layer.backward(params, x, delta, Some(delta_in));
                relu_backward(delta_in, x);
            }
        }
    }
}

/// Haiku's `LSTM`: one linear layer over `[x, h]` to the gates `[i, g, f, o]`, with 1 added
/// to the forget gate's input; `c' = σ(f + 1)·c + σ(i)·tanh(g)`, `h' = σ(o)·tanh(c')`.
pub(crate) struct Lstm {
    pub(crate) input: usize,
    pub(crate) hidden: usize,
    /// The rows of the gates' layer that see `x`, then those that see `h`, one block.
    gates: Linear,
}

/// An LSTM state `(h, c)`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LstmState {
    pub(crate) h: Vec<f32>,
    pub(crate) c: Vec<f32>,
}

impl LstmState {
    pub(crate) fn zeros(hidden: usize) -> Self {
        LstmState {
            h: vec![0.0; hidden],
            c: vec![0.0; hidden],
        }
    }

    pub(crate) fn reset(&mut self) {
        self.h.fill(0.0);
        self.c.fill(0.0);
    }
}

/// What an unroll keeps for its backward pass.
pub(crate) struct Unroll {
    /// `[T, 4H]`: the gates' pre-activations, then (in place) `σ(i), tanh(g), σ(f + 1), σ(o)`.
    gates: Vec<f32>,
    /// `[T + 1, H]`: the initial `h`, then every step's.
    pub(crate) h: Vec<f32>,
    /// `[T + 1, H]`: the initial `c`, then every step's.
    c: Vec<f32>,
    /// The gradients of the gates, `[T, 4H]`.
    delta_gates: Vec<f32>,
}

impl Unroll {
    pub(crate) fn new(lstm: &Lstm, steps: usize) -> Self {
        let h = lstm.hidden;
        Unroll {
            gates: vec![0.0; steps * 4 * h],
            h: vec![0.0; (steps + 1) * h],
            c: vec![0.0; (steps + 1) * h],
            delta_gates: vec![0.0; steps * 4 * h],
        }
    }

    /// The outputs `h_t` of steps `0..steps`, `[steps, H]`.
    pub(crate) fn outputs(&self, hidden: usize, steps: usize) -> &[f32] {
        &self.h[hidden..(steps + 1) * hidden]
    }

    /// Starts the record from `state`.
    pub(crate) fn start(&mut self, state: &LstmState) {
        let hid = state.h.len();
        self.h[..hid].copy_from_slice(&state.h);
        self.c[..hid].copy_from_slice(&state.c);
    }

    /// Copies the state after `steps` steps into `state`.
    pub(crate) fn state_after(&self, steps: usize, state: &mut LstmState) {
        let hid = state.h.len();
        state
            .h
            .copy_from_slice(&self.h[steps * hid..(steps + 1) * hid]);
        state
            .c
            .copy_from_slice(&self.c[steps * hid..(steps + 1) * hid]);
    }
}

/// Scratch for [`Lstm::step_beside`]: two states' rows side by side.
pub(crate) struct StatePair {
    h: Vec<f32>,
    c: Vec<f32>,
    gates: Vec<f32>,
    h_next: Vec<f32>,
    c_next: Vec<f32>,
}

impl StatePair {
    /// Scratch for `lstm`'s states.
    pub(crate) fn new(lstm: &Lstm) -> Self {
        let h = lstm.hidden;
        StatePair {
            h: vec![0.0; 2 * h],
            c: vec![0.0; 2 * h],
            gates: vec![0.0; 8 * h],
            h_next: vec![0.0; 2 * h],
            c_next: vec![0.0; 2 * h],
        }
    }
}

impl Lstm {
    /// Weights ~ TruncatedNormal(1/sqrt(input + hidden)) (the fan-in of `[x, h]`), zero
    /// biases.
    pub(crate) fn new(
        params: &mut Params,
        rng: &mut RandomState,
        input: usize,
        hidden: usize,
    ) -> Self {
        let gates = Linear::new(params, rng, input + hidden, 4 * hidden);
        Lstm {
            input,
            hidden,
            gates,
        }
    }

    fn w_x<'a>(&self, values: &'a [f32]) -> &'a [f32] {
        &self.gates.weights(values)[..self.input * 4 * self.hidden]
    }

    fn w_h<'a>(&self, values: &'a [f32]) -> &'a [f32] {
        &self.gates.weights(values)[self.input * 4 * self.hidden..]
    }

    /// Runs `steps` steps over `input` (`[steps, input]`) from `state`, recording what the
    /// backward pass needs in `unroll`; `state` ends as the last step's.
    pub(crate) fn forward(
        &self,
        params: &Params,
        input: &[f32],
        steps: usize,
        state: &mut LstmState,
        unroll: &mut Unroll,
    ) {
        unroll.start(state);
        self.forward_rows(params, input, 0..steps, unroll);
        unroll.state_after(steps, state);
    }

    /// Continues the unroll recorded in `unroll` over the steps `steps` (`input` holds the
    /// inputs of every step, `[T, input]`), from the state it recorded before
    /// `steps.start`.
    pub(crate) fn forward_rows(
        &self,
        params: &Params,
        input: &[f32],
        steps: std::ops::Range<usize>,
        unroll: &mut Unroll,
    ) {
        let (hid, g4) = (self.hidden, 4 * self.hidden);
        // The input part of the steps' gates in one pass over W_x.
        self.input_gates(
            params,
            &input[steps.start * self.input..steps.end * self.input],
            &mut unroll.gates[steps.start * g4..steps.end * g4],
        );
        for t in steps {
            let (h_prev, h_next) = unroll.h.split_at_mut((t + 1) * hid);
            let (c_prev, c_next) = unroll.c.split_at_mut((t + 1) * hid);
            self.recur(
                &params.values,
                &h_prev[t * hid..],
                &c_prev[t * hid..],
                &mut unroll.gates[t * g4..(t + 1) * g4],
                &mut h_next[..hid],
                &mut c_next[..hid],
            );
        }
    }

    /// One step of `state` and step `t` of the unroll recorded in `unroll`, both on the
    /// input `x` (one row): the input part of the gates is computed once and the two
    /// states share each read of `W_h`. Each gets the bits a step of its own would give.
    ///
    /// Acting and training see the same observations with the same parameters until the
    /// next SGD step, so acting can run the training unroll as it goes, at little more
    /// than the cost of acting alone.
    pub(crate) fn step_beside(
        &self,
        params: &Params,
        x: &[f32],
        state: &mut LstmState,
        unroll: &mut Unroll,
        t: usize,
        pair: &mut StatePair,
    ) {
        let (hid, g4) = (self.hidden, 4 * self.hidden);
        let (acting, training) = pair.gates.split_at_mut(g4);
        self.input_gates(params, x, acting);
        training.copy_from_slice(acting);
        let rows = [(&state.h, &state.c), (&unroll.h, &unroll.c)];
        for (r, (h, c)) in rows.into_iter().enumerate() {
            let at = if r == 0 { 0 } else { t * hid };
            pair.h[r * hid..(r + 1) * hid].copy_from_slice(&h[at..at + hid]);
            pair.c[r * hid..(r + 1) * hid].copy_from_slice(&c[at..at + hid]);
        }
        self.recur(
            &params.values,
            &pair.h,
            &pair.c,
            &mut pair.gates,
            &mut pair.h_next,
            &mut pair.c_next,
        );
        state.h.copy_from_slice(&pair.h_next[..hid]);
        state.c.copy_from_slice(&pair.c_next[..hid]);
        unroll.gates[t * g4..(t + 1) * g4].copy_from_slice(&pair.gates[g4..]);
        unroll.h[(t + 1) * hid..(t + 2) * hid].copy_from_slice(&pair.h_next[hid..]);
        unroll.c[(t + 1) * hid..(t + 2) * hid].copy_from_slice(&pair.c_next[hid..]);
    }

    /// `gates[r] = b + x[r]·W_x` for every row: the part of a step's gates that does not
    /// depend on the state, the same bits for a row whichever rows it comes with.
    fn input_gates(&self, params: &Params, x: &[f32], gates: &mut [f32]) {
        let g4 = 4 * self.hidden;
        let bias = &params.values[self.gates.b..self.gates.b + g4];
        for row in gates.chunks_exact_mut(g4) {
            row.copy_from_slice(bias);
        }
        add_product(gates, x, self.w_x(&params.values), g4);
    }

    /// Finishes one step of each of the states `(h, c)` (rows of `[rows, H]`), whose
    /// [`Lstm::input_gates`] are in `gates` (`[rows, 4H]`): adds `h·W_h`, then writes the
    /// gates' activations `σ(i), tanh(g), σ(f + 1), σ(o)` over them and the next states
    /// into `h_next` and `c_next`. States stepped together share each read of `W_h`.
    fn recur(
        &self,
        values: &[f32],
        h: &[f32],
        c: &[f32],
        gates: &mut [f32],
        h_next: &mut [f32],
        c_next: &mut [f32],
    ) {
        let (hid, g4) = (self.hidden, 4 * self.hidden);
        let rows = h_next.len() / hid;
        add_product(
            &mut gates[..rows * g4],
            &h[..rows * hid],
            self.w_h(values),
            g4,
        );
        for r in 0..rows {
            lstm_cell(
                &mut gates[r * g4..(r + 1) * g4],
                &c[r * hid..(r + 1) * hid],
                &mut c_next[r * hid..(r + 1) * hid],
                &mut h_next[r * hid..(r + 1) * hid],
            );
        }
    }

    /// Backpropagation through time of an [`Lstm::forward`] over the same `input`: `delta_h`
    /// (`[steps, H]`) is the loss gradient with respect to each step's output, the initial
    /// state gets none. Accumulates the parameter gradients and writes the input gradient
    /// into `delta_input` (`[steps, input]`).
    pub(crate) fn backward(
        &self,
        params: &mut Params,
        input: &[f32],
        steps: usize,
        unroll: &mut Unroll,
        delta_h: &[f32],
        delta_input: &mut [f32],
    ) {
        let (hid, g4) = (self.hidden, 4 * self.hidden);
        let mut dh_next = vec![0.0f32; hid];
        let mut dc_next = vec![0.0f32; hid];
        for t in (0..steps).rev() {
            lstm_cell_backward(
                &unroll.gates[t * g4..(t + 1) * g4],
                &unroll.c[t * hid..(t + 1) * hid],
                &unroll.c[(t + 1) * hid..(t + 2) * hid],
                &delta_h[t * hid..(t + 1) * hid],
                &dh_next,
                &mut dc_next,
                &mut unroll.delta_gates[t * g4..(t + 1) * g4],
            );
            let d = &unroll.delta_gates[t * g4..(t + 1) * g4];
            if t > 0 {
                backprop_input(&mut dh_next, d, self.w_h(&params.values), g4);
            }
        }
        let delta = &unroll.delta_gates[..steps * g4];
        let Params { values, grad, .. } = params;
        let w = self.gates.w;
        let (x_len, h_len) = (self.input * g4, hid * g4);
        add_weight_grad(
            &mut grad[w..w + x_len],
            &input[..steps * self.input],
            delta,
            g4,
        );
        add_weight_grad(
            &mut grad[w + x_len..w + x_len + h_len],
            &unroll.h[..steps * hid],
            delta,
            g4,
        );
        add_column_sums(&mut grad[self.gates.b..self.gates.b + g4], delta);
        backprop_input(
            &mut delta_input[..steps * self.input],
            delta,
            self.w_x(values),
            g4,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::linear::add_dense_rows;

    /// A nonzero initial state, so that its gradient path is exercised too.
    fn initial_state(hidden: usize) -> LstmState {
        LstmState {
            h: (0..hidden).map(|j| 0.1 * j as f32).collect(),
            c: (0..hidden).map(|j| -0.2 * j as f32).collect(),
        }
    }

    /// The loss `Σ_t Σ_j coeff[t][j]·h_t[j]` of an unroll, in f64 from the f32 outputs.
    fn lstm_loss(lstm: &Lstm, params: &Params, input: &[f32], steps: usize, coeff: &[f32]) -> f64 {
        let mut state = initial_state(lstm.hidden);
        let mut unroll = Unroll::new(lstm, steps);
        lstm.forward(params, input, steps, &mut state, &mut unroll);
        let out = unroll.outputs(lstm.hidden, steps);
        out.iter()
            .zip(coeff)
            .map(|(&h, &k)| f64::from(h) * f64::from(k))
            .sum()
    }

    /// The hand-written backward passes against finite differences of the forward ones.
    #[test]
    fn gradients_match_finite_differences() {
        let mut rng = RandomState::new(3);
        let mut params = Params::new();
        let (steps, input, hidden) = (4, 3, 2);
        let mlp = Mlp::new(&mut params, &mut rng, &[5, 6, input]);
        let lstm = Lstm::new(&mut params, &mut rng, input, hidden);
        let x: Vec<f32> = (0..steps * 5)
            .map(|i| if i % 3 == 0 { 0.0 } else { rng.randn() as f32 })
            .collect();
        let coeff: Vec<f32> = (0..steps * hidden).map(|_| rng.randn() as f32).collect();
        let loss = |params: &Params| {
            let mut acts = mlp.activations(steps);
            mlp.forward(params, &x, steps, &mut acts);
            lstm_loss(&lstm, params, &acts[1], steps, &coeff)
        };
        // Analytic gradients.
        let mut acts = mlp.activations(steps);
        mlp.forward(&params, &x, steps, &mut acts);
        let mut state = initial_state(hidden);
        let mut unroll = Unroll::new(&lstm, steps);
        lstm.forward(&params, &acts[1], steps, &mut state, &mut unroll);
        let mut deltas = mlp.activations(steps);
        lstm.backward(
            &mut params,
            &acts[1],
            steps,
            &mut unroll,
            &coeff,
            &mut deltas[1],
        );
        mlp.backward(&mut params, &x, steps, &acts, &mut deltas);
        let analytic = params.grad.clone();
        for (k, &a) in analytic.iter().enumerate() {
            let eps = 1e-2f32;
            let original = params.values[k];
            params.values[k] = original + eps;
            let up = loss(&params);
            params.values[k] = original - eps;
            let down = loss(&params);
            params.values[k] = original;
            let numeric = (up - down) / (2.0 * f64::from(eps));
            let a = f64::from(a);
            assert!(
                (a - numeric).abs() <= 2e-3 + 2e-2 * numeric.abs(),
                "parameter {k}: analytic {a}, numeric {numeric}"
            );
        }
        assert!(analytic.iter().filter(|g| **g != 0.0).count() > params.values.len() / 2);
    }

    #[test]
    fn products_agree_with_a_plain_sum() {
        let mut rng = RandomState::new(9);
        let (rows, fan_in, width) = (3, 37, 21);
        let x: Vec<f32> = (0..rows * fan_in).map(|_| rng.randn() as f32).collect();
        let w: Vec<f32> = (0..fan_in * width).map(|_| rng.randn() as f32).collect();
        let mut out = vec![0.0; rows * width];
        add_product(&mut out, &x, &w, width);
        let mut single = vec![0.0; width];
        add_dense_rows(&mut single, &x[fan_in..2 * fan_in], &w);
        assert_eq!(
            &out[width..2 * width],
            &single[..],
            "one row or many: the same bits"
        );
        for r in 0..rows {
            for j in 0..width {
                let sum: f64 = (0..fan_in)
                    .map(|k| f64::from(x[r * fan_in + k]) * f64::from(w[k * width + j]))
                    .sum();
                assert!((f64::from(out[r * width + j]) - sum).abs() < 1e-4);
            }
        }
        let mut back = vec![0.0; rows * fan_in];
        backprop_input(&mut back, &out, &w, width);
        for r in 0..rows {
            for k in 0..fan_in {
                let sum: f64 = (0..width)
                    .map(|j| f64::from(out[r * width + j]) * f64::from(w[k * width + j]))
                    .sum();
                assert!((f64::from(back[r * fan_in + k]) - sum).abs() < 1e-3 * (1.0 + sum.abs()));
            }
        }
    }
}
