//! The sparse first layer of the DQN agents: a product over an input's nonzero entries
//! only (most of deep_sea's, catch's and MNIST's are zero), with its ReLU, and its weight
//! gradient over a batch, input by input.

use super::dispatch::kernel;

/// A sparse input row: `(index, value)` of its nonzero entries, in index order.
pub(crate) type Entry = (u32, f32);

kernel! {
    /// One member's sparse first layer on a batch of inputs: row `r` of `out` (rows as
    /// wide as `b`) is `relu(b + Σ x_k · w[k])` over the entries `(k, x_k)` of
    /// `inputs[r]` in order, where `w[k]` is `w[k·stride..][..b.len()]` (the member's
    /// block of row `k` of an ensemble's first-layer matrix, `stride` wide). Skipping zero
    /// inputs changes no sum, so this equals the dense layer. Each 16-wide block of an
    /// output is summed in registers and stored once; one call serves a whole batch, so
    /// the rows' short chains of additions overlap.
    pub(crate) fn sparse_relu_layer(
        out: &mut [f32],
        b: &[f32],
        inputs: &[&[Entry]],
        w: &[f32],
        stride: usize,
    ) {
        let width = b.len();
        for (out, entries) in out.chunks_exact_mut(width).zip(inputs) {
            match width {
                16 => sparse_relu_row::<1>(out, b, entries, w, stride),
                32 => sparse_relu_row::<2>(out, b, entries, w, stride),
                48 => sparse_relu_row::<3>(out, b, entries, w, stride),
                64 => sparse_relu_row::<4>(out, b, entries, w, stride),
                _ => {
                    out.copy_from_slice(b);
                    for &(k, x) in *entries {
                        let wk = &w[k as usize * stride..][..width];
                        for (o, &wkj) in out.iter_mut().zip(wk) {
                            *o += x * wkj;
                        }
                    }
                    for o in out.iter_mut() {
                        *o = if *o < 0.0 { 0.0 } else { *o };
                    }
                }
            }
        }
    }
}

/// A row of [`sparse_relu_layer`] `N` blocks of 16 wide, summed in registers: a fixed
/// width keeps the row's sums in registers across the entries, with one bounds check a
/// row and a weight row.
#[inline(always)]
fn sparse_relu_row<const N: usize>(
    out: &mut [f32],
    b: &[f32],
    entries: &[Entry],
    w: &[f32],
    stride: usize,
) {
    let mut acc: [[f32; 16]; N] =
        std::array::from_fn(|v| b[16 * v..][..16].try_into().expect("16 floats"));
    for &(k, x) in entries {
        let wk = &w[k as usize * stride..][..16 * N];
        for (v, acc) in acc.iter_mut().enumerate() {
            for (a, &wkj) in acc.iter_mut().zip(&wk[16 * v..16 * v + 16]) {
                *a += x * wkj;
            }
        }
    }
    for (v, acc) in acc.into_iter().enumerate() {
        let out: &mut [f32; 16] = (&mut out[16 * v..][..16]).try_into().expect("16 floats");
        *out = acc.map(|a| if a < 0.0 { 0.0 } else { a });
    }
}

/// A batch's sparse entries grouped by input, rows in order within an input: what
/// [`scatter_sparse_layer`] walks. Kept between calls, so that grouping allocates nothing.
#[derive(Clone, Default)]
pub(crate) struct EntriesByInput {
    /// Input `k`'s entries are `entries[starts[k]..starts[k + 1]]`.
    starts: Vec<u32>,
    /// `(row, value)`.
    entries: Vec<(u32, f32)>,
}

impl EntriesByInput {
    /// Groups the entries of `inputs` (row `r` is `inputs[r]`) by input, in one counting
    /// sort that keeps the rows' order.
    pub(crate) fn group(&mut self, inputs: &[&[Entry]]) {
        // A row's entries are in index order, so its last one has its largest index.
        let n = inputs
            .iter()
            .filter_map(|row| row.last())
            .map(|&(k, _)| k as usize + 1)
            .max()
            .unwrap_or(0);
        let starts = &mut self.starts;
        starts.clear();
        starts.resize(n + 1, 0);
        for &(k, _) in inputs.iter().flat_map(|row| row.iter()) {
            starts[k as usize + 1] += 1;
        }
        for k in 0..n {
            starts[k + 1] += starts[k];
        }
        self.entries.clear();
        self.entries.resize(starts[n] as usize, (0, 0.0));
        // `starts[k]` serves as input k's cursor, which ends at `k + 1`'s start; shifting
        // the cursors up by one input restores the starts.
        for (r, row) in inputs.iter().enumerate() {
            for &(k, x) in *row {
                let at = &mut starts[k as usize];
                self.entries[*at as usize] = (r as u32, x);
                *at += 1;
            }
        }
        starts.copy_within(0..n, 1);
        starts[0] = 0;
    }
}

kernel! {
    /// The weight gradient of [`sparse_relu_layer`] over a batch, rows in order:
    /// `g[k] += x_k · δ_r` for every entry `(k, x_k)` of every row `r` (`inputs`, grouped),
    /// where `δ_r` is row `r` of `deltas` (rows `width` wide) and `g[k]` is
    /// `g[k·stride..][..width]`. Input by input, each `g[k]` is summed in registers over
    /// its rows: the same terms in the same order as adding row by row, without an
    /// addition waiting on the store of the one before.
    pub(crate) fn scatter_sparse_layer(
        g: &mut [f32],
        stride: usize,
        inputs: &EntriesByInput,
        deltas: &[f32],
        width: usize,
    ) {
        for (k, bounds) in inputs.starts.windows(2).enumerate() {
            let rows = &inputs.entries[bounds[0] as usize..bounds[1] as usize];
            if rows.is_empty() {
                continue;
            }
            let g = &mut g[k * stride..][..width];
            match width {
                16 => scatter_input::<1>(g, rows, deltas),
                32 => scatter_input::<2>(g, rows, deltas),
                48 => scatter_input::<3>(g, rows, deltas),
                64 => scatter_input::<4>(g, rows, deltas),
                _ => {
                    for &(r, x) in rows {
                        let delta = &deltas[r as usize * width..][..width];
                        for (gj, &dj) in g.iter_mut().zip(delta) {
                            *gj += x * dj;
                        }
                    }
                }
            }
        }
    }
}

/// One input's gradient row of [`scatter_sparse_layer`], `N` blocks of 16 wide, summed
/// in registers over the rows that have the input.
#[inline(always)]
fn scatter_input<const N: usize>(g: &mut [f32], rows: &[(u32, f32)], deltas: &[f32]) {
    let g: &mut [f32] = &mut g[..16 * N];
    let mut acc: [[f32; 16]; N] =
        std::array::from_fn(|v| g[16 * v..][..16].try_into().expect("16 floats"));
    for &(r, x) in rows {
        let delta = &deltas[r as usize * 16 * N..][..16 * N];
        for (v, acc) in acc.iter_mut().enumerate() {
            for (a, &d) in acc.iter_mut().zip(&delta[16 * v..16 * v + 16]) {
                *a += x * d;
            }
        }
    }
    for (v, acc) in acc.into_iter().enumerate() {
        g[16 * v..][..16].copy_from_slice(&acc);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::activations::relu;
    use crate::host::linear::add_dense_rows;

    #[test]
    fn sparse_layers_equal_the_dense_layer_member_by_member() {
        // Two members 19 wide (a width the register rows do not take) side by side in one
        // matrix, 4 inputs of which 2 are zero.
        let (members, width, inputs) = (2, 19, 4);
        let row = members * width;
        let w: Vec<f32> = (0..inputs * row).map(|i| (i as f32 * 0.37).sin()).collect();
        let b: Vec<f32> = (0..row).map(|i| (i as f32 * 0.11).cos() - 0.5).collect();
        let input = [0.0, 2.0, 0.0, -1.5];
        let entries = [(1, 2.0), (3, -1.5)];
        for m in 0..members {
            let mut out = vec![f32::NAN; width];
            let bias = &b[m * width..][..width];
            sparse_relu_layer(&mut out, bias, &[&entries], &w[m * width..], row);
            let member_w: Vec<f32> = (0..inputs)
                .flat_map(|k| w[k * row + m * width..][..width].to_vec())
                .collect();
            let mut dense = bias.to_vec();
            add_dense_rows(&mut dense, &input, &member_w);
            relu(&mut dense);
            assert_eq!(out, dense, "member {m}");
            assert!(dense.iter().any(|&x| x > 0.0) && dense.contains(&0.0));
            let j = 17; // in the tail
            let by_hand = bias[j] + 2.0 * w[row + m * width + j] - 1.5 * w[3 * row + m * width + j];
            assert_eq!(out[j], by_hand.max(0.0));
        }

        // Member 1's gradient, twice for input 3: member 0's block and the zero inputs'
        // rows stay untouched.
        let delta: Vec<f32> = (0..width).map(|i| i as f32 * 0.25 - 3.0).collect();
        let mut g = vec![0.0f32; inputs * row];
        let twice = [&entries[..], &entries[1..]];
        let deltas = [&delta[..], &delta[..]].concat();
        let mut grouped = EntriesByInput::default();
        grouped.group(&twice);
        scatter_sparse_layer(&mut g[width..], row, &grouped, &deltas, width);
        for (k, &x) in input.iter().enumerate() {
            for j in 0..width {
                let once = x * delta[j];
                let expect = if k == 3 { once + once } else { once };
                assert_eq!(g[k * row + width + j], expect, "g[{k}], {j}");
                assert_eq!(g[k * row + j].to_bits(), 0, "member 0 got a gradient");
            }
        }
        assert!(g[..row]
            .iter()
            .chain(&g[2 * row..3 * row])
            .all(|x| x.to_bits() == 0));
    }

    /// The gradient of a batch, input by input in registers, adds each input's terms in
    /// the rows' order, as adding row by row into memory does, bit for bit: at the widths
    /// summed in registers and one that is not, with inputs that rows share, skip or take
    /// alone, an empty row, and a grouping reused for a smaller batch.
    #[test]
    fn the_sparse_gradient_adds_rows_in_order_at_every_width() {
        let batches: [&[&[Entry]]; 2] = [
            &[
                &[(0, 1.0), (5, -2.0)],
                &[],
                &[(0, 0.5), (3, 1.5), (5, -1.0)],
                &[(0, -0.25), (2, 3.0), (5, 0.125)],
            ],
            &[&[(1, 0.75)], &[(0, -1.25), (1, 2.5)]],
        ];
        let mut grouped = EntriesByInput::default();
        for width in [16, 32, 48, 64, 19] {
            let stride = 2 * width;
            for rows in batches {
                let deltas: Vec<f32> = (0..rows.len() * width)
                    .map(|i| (i as f32 * 0.29).sin())
                    .collect();
                let start: Vec<f32> = (0..6 * stride).map(|i| (i as f32 * 0.13).cos()).collect();
                let mut g = start.clone();
                grouped.group(rows);
                scatter_sparse_layer(&mut g[width..], stride, &grouped, &deltas, width);
                let mut by_row = start;
                for (r, entries) in rows.iter().enumerate() {
                    for &(k, x) in *entries {
                        for j in 0..width {
                            by_row[k as usize * stride + width + j] += x * deltas[r * width + j];
                        }
                    }
                }
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(
                    bits(&g),
                    bits(&by_row),
                    "width {width}, {} rows",
                    rows.len()
                );
            }
        }
    }

    /// A batch of rows through [`sparse_relu_layer`], at the widths summed in registers
    /// and at one that is not, equals each row's dense layer, row by row (an empty input
    /// gives `relu(b)`), rows that share their inputs and rows that do not.
    #[test]
    fn sparse_layer_rows_equal_the_dense_layer_at_every_width() {
        let inputs = 6;
        for width in [16, 32, 48, 64, 19] {
            let stride = 3 * width;
            let w: Vec<f32> = (0..inputs * stride)
                .map(|i| (i as f32 * 0.23).sin())
                .collect();
            let b: Vec<f32> = (0..width).map(|i| (i as f32 * 0.31).cos() - 0.4).collect();
            let rows: [&[Entry]; 12] = [
                &[(0, 1.0), (5, -2.0)],
                &[(0, 0.5), (5, 3.0)],
                &[(0, -1.0), (5, 0.25)],
                &[(0, 2.0), (5, -0.5)],
                &[],
                &[(2, 0.5), (3, 1.5), (4, -1.0)],
                &[(2, -0.5), (3, 0.5), (4, 1.0)],
                &[(2, 1.25), (3, -1.5), (4, 0.75)],
                &[(1, 1.0)],
                &[(1, -2.0), (2, 1.0)],
                &[(1, 0.5), (2, -1.0)],
                &[(1, 3.0)],
            ];
            let mut out = vec![f32::NAN; rows.len() * width];
            sparse_relu_layer(&mut out, &b, &rows, &w[width..], stride);
            let member_w: Vec<f32> = (0..inputs)
                .flat_map(|k| w[k * stride + width..][..width].to_vec())
                .collect();
            for (r, entries) in rows.iter().enumerate() {
                let mut dense_input = vec![0.0f32; inputs];
                for &(k, x) in *entries {
                    dense_input[k as usize] = x;
                }
                let mut dense = b.clone();
                add_dense_rows(&mut dense, &dense_input, &member_w);
                relu(&mut dense);
                assert_eq!(
                    out[r * width..][..width],
                    dense[..],
                    "width {width}, row {r}"
                );
            }
        }
    }
}
