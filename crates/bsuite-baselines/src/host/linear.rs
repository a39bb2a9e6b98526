//! A linear layer's products row by row, in the orders LibTorch's products of a few rows
//! took: the forward product (weight rows four at a time; a one-row form that rounds
//! each product, and one that skips zero inputs), its weight gradient and its input
//! gradient (one fixed-order dot product per input). The host networks of
//! [`super::dense`] are built from them.

use super::dispatch::{kernel, simd_level, SimdLevel};

kernel! {
    /// `out += Σ x_k · w[k]` over a dense input's nonzero entries in order (`w` row-major,
    /// rows as wide as `out`): a linear layer that skips zero inputs.
    pub(crate) fn add_dense_rows(out: &mut [f32], input: &[f32], w: &[f32]) {
        let width = out.len();
        for (k, &x) in input.iter().enumerate() {
            if x != 0.0 {
                let row = &w[k * width..][..width];
                for (o, &wk) in out.iter_mut().zip(row) {
                    *o += x * wk;
                }
            }
        }
    }
}

/// `out[r] += Σ_k input[r][k] · w[k]` for every row `r`: rows of a dense linear layer,
/// `input` being `[rows, in]`, `w` `[in, width]` and `out` `[rows, width]`, row-major.
///
/// Weight rows are taken four at a time, each block read once for all rows and added to an
/// output in index order, `(((o + x₀w₀) + x₁w₁) + x₂w₂) + x₃w₃`, so the output's loads and
/// stores are shared by four products. A block whose four inputs are zero is skipped (most
/// of a one-hot observation's), which changes no sum.
///
/// One row at most 64 wide (an acting or prior network's layer: bootstrapped DQN runs its
/// 20 prior networks at every transition) is summed in registers on AVX-512, the same
/// terms in the same order, its last vector masked to the width: the loop below keeps it
/// in memory, and takes the columns past the last whole vector one by one.
pub(crate) fn add_product(out: &mut [f32], input: &[f32], w: &[f32], width: usize) {
    #[cfg(target_arch = "x86_64")]
    if out.len() == width && width <= 64 && simd_level() == SimdLevel::Avx512 {
        assert!(
            w.len() >= input.len() * width,
            "add_product: {} weights for {} inputs of {width}",
            w.len(),
            input.len()
        );
        // SAFETY: the CPU has AVX-512 (checked by `simd_level`), and every weight row read
        // is within `w` (checked above).
        return unsafe { add_product_row_avx512(out, input, w) };
    }
    add_product_rows(out, input, w, width)
}

kernel! {
    /// [`add_product`] without intrinsics.
    pub(crate) fn add_product_rows(out: &mut [f32], input: &[f32], w: &[f32], width: usize) {
        let rows = out.len() / width;
        let fan_in = input.len() / rows.max(1);
        let blocks = fan_in / 4;
        for block in 0..blocks {
            let k = block * 4;
            let w0 = &w[k * width..][..width];
            let w1 = &w[(k + 1) * width..][..width];
            let w2 = &w[(k + 2) * width..][..width];
            let w3 = &w[(k + 3) * width..][..width];
            for r in 0..rows {
                let x = &input[r * fan_in + k..][..4];
                if x == [0.0; 4] {
                    continue;
                }
                let (x0, x1, x2, x3) = (x[0], x[1], x[2], x[3]);
                let o = &mut out[r * width..][..width];
                for j in 0..width {
                    o[j] = o[j] + x0 * w0[j] + x1 * w1[j] + x2 * w2[j] + x3 * w3[j];
                }
            }
        }
        for k in blocks * 4..fan_in {
            let wk = &w[k * width..][..width];
            for r in 0..rows {
                let x = input[r * fan_in + k];
                if x != 0.0 {
                    let o = &mut out[r * width..][..width];
                    for (o, &w) in o.iter_mut().zip(wk) {
                        *o += x * w;
                    }
                }
            }
        }
    }
}

kernel! {
    /// `g[k] += Σ_r input[r][k] · delta[r]`, rows in order: the weight gradient of
    /// [`add_product`] (`g` is `[in, width]`). Rows are taken four at a time as in
    /// [`add_product`], `(((g + x₀d₀) + x₁d₁) + x₂d₂) + x₃d₃`; blocks of four zero inputs
    /// are skipped.
    pub(crate) fn add_weight_grad(g: &mut [f32], input: &[f32], delta: &[f32], width: usize) {
        let rows = delta.len() / width;
        let fan_in = input.len() / rows.max(1);
        let blocks = rows / 4;
        let xs = |k: usize, r: usize| [0, 1, 2, 3].map(|i| input[(r + i) * fan_in + k]);
        let ds = |r: usize| [0, 1, 2, 3].map(|i| &delta[(r + i) * width..][..width]);
        // `g + x₀d₀ + x₁d₁ + x₂d₂ + x₃d₃` into one gradient row.
        #[inline(always)]
        fn add_block(g: &mut [f32], x: [f32; 4], d: [&[f32]; 4]) {
            let d = d.map(|d| &d[..g.len()]);
            for j in 0..g.len() {
                g[j] = g[j] + x[0] * d[0][j] + x[1] * d[1][j] + x[2] * d[2][j] + x[3] * d[3][j];
            }
        }
        // Two rows of `g` at a time share each block's four loads of deltas.
        let pairs = fan_in / 2;
        for pair in 0..pairs {
            let k = pair * 2;
            let (ga, gb) = g[k * width..][..2 * width].split_at_mut(width);
            for block in 0..blocks {
                let r = block * 4;
                let (xa, xb, d) = (xs(k, r), xs(k + 1, r), ds(r));
                match (xa == [0.0; 4], xb == [0.0; 4]) {
                    (false, false) => {
                        let [d0, d1, d2, d3] = d;
                        for j in 0..width {
                            ga[j] = ga[j] + xa[0] * d0[j] + xa[1] * d1[j] + xa[2] * d2[j] + xa[3] * d3[j];
                            gb[j] = gb[j] + xb[0] * d0[j] + xb[1] * d1[j] + xb[2] * d2[j] + xb[3] * d3[j];
                        }
                    }
                    (false, true) => add_block(ga, xa, d),
                    (true, false) => add_block(gb, xb, d),
                    (true, true) => {}
                }
            }
        }
        for k in pairs * 2..fan_in {
            let gk = &mut g[k * width..][..width];
            for block in 0..blocks {
                let r = block * 4;
                let x = xs(k, r);
                if x != [0.0; 4] {
                    add_block(gk, x, ds(r));
                }
            }
        }
        for k in 0..fan_in {
            let gk = &mut g[k * width..][..width];
            for r in blocks * 4..rows {
                let x = input[r * fan_in + k];
                if x != 0.0 {
                    for (g, &d) in gk.iter_mut().zip(&delta[r * width..][..width]) {
                        *g += x * d;
                    }
                }
            }
        }
    }
}

/// [`add_product`] of one row at most 64 wide: `V` vectors of sums in registers, the last
/// masked to the width.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn add_product_row_avx512(out: &mut [f32], input: &[f32], w: &[f32]) {
    // SAFETY: as `add_product` checks.
    unsafe {
        match out.len().div_ceil(16) {
            0 => {}
            1 => row_512::<1>(out, input, w),
            2 => row_512::<2>(out, input, w),
            3 => row_512::<3>(out, input, w),
            _ => row_512::<4>(out, input, w),
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn row_512<const V: usize>(out: &mut [f32], input: &[f32], w: &[f32]) {
    use std::arch::x86_64::*;
    let width = out.len();
    let masks: [__mmask16; V] = std::array::from_fn(|v| {
        let left = (width - 16 * v).min(16);
        ((1u32 << left) - 1) as __mmask16
    });
    // Unmasked lanes are within `out` and within weight row `k` (`k·width + width <=
    // w.len()` for every input `k`).
    let row = |k: usize, v: usize| unsafe {
        _mm512_maskz_loadu_ps(masks[v], w.as_ptr().add(k * width + 16 * v))
    };
    let mut acc: [__m512; V] = std::array::from_fn(|v| unsafe {
        _mm512_maskz_loadu_ps(masks[v], out.as_ptr().add(16 * v))
    });
    let blocks = input.len() / 4;
    for block in 0..blocks {
        let k = block * 4;
        let x = &input[k..k + 4];
        if x == [0.0; 4] {
            continue;
        }
        let xs = [x[0], x[1], x[2], x[3]].map(|x| _mm512_set1_ps(x));
        for (v, acc) in acc.iter_mut().enumerate() {
            for (i, &x) in xs.iter().enumerate() {
                *acc = _mm512_add_ps(*acc, _mm512_mul_ps(x, row(k + i, v)));
            }
        }
    }
    for (k, &x) in input.iter().enumerate().skip(blocks * 4) {
        if x != 0.0 {
            let x = _mm512_set1_ps(x);
            for (v, acc) in acc.iter_mut().enumerate() {
                *acc = _mm512_add_ps(*acc, _mm512_mul_ps(x, row(k, v)));
            }
        }
    }
    for (v, &acc) in acc.iter().enumerate() {
        unsafe { _mm512_mask_storeu_ps(out.as_mut_ptr().add(16 * v), masks[v], acc) };
    }
}

kernel! {
    /// `out += Σ_k x_k · w[k]` over every input in order (`w` row-major, rows as wide as
    /// `out`), each product rounded before its addition: LibTorch's order for a product
    /// of one row. Unlike [`add_dense_rows`] it does not skip zero inputs, so it gives
    /// LibTorch's bits even where a sum is `-0.0`.
    pub(crate) fn add_rows(out: &mut [f32], x: &[f32], w: &[f32]) {
        let width = out.len();
        for (k, &x) in x.iter().enumerate() {
            for (o, &wk) in out.iter_mut().zip(&w[k * width..][..width]) {
                *o += x * wk;
            }
        }
    }
}

/// Lanes of [`dot`]'s partial sums: two AVX2 registers, one AVX-512 register.
const DOT_LANES: usize = 16;

/// `delta_in[r][k] = w[k] · delta[r]` for every row: the input gradient of [`add_product`]
/// (`delta_in` is `[rows, in]`), each a [`dot`].
pub(crate) fn backprop_input(delta_in: &mut [f32], delta: &[f32], w: &[f32], width: usize) {
    #[cfg(target_arch = "x86_64")]
    match simd_level() {
        // SAFETY: the CPU has the features (checked by `simd_level`).
        SimdLevel::Avx512 => return unsafe { backprop_input_avx512(delta_in, delta, w, width) },
        SimdLevel::Avx2 => return unsafe { backprop_input_avx2(delta_in, delta, w, width) },
        SimdLevel::Baseline => {}
    }
    backprop_input_generic(delta_in, delta, w, width)
}

/// [`backprop_input`] dot by dot, without intrinsics.
fn backprop_input_generic(delta_in: &mut [f32], delta: &[f32], w: &[f32], width: usize) {
    let rows = delta.len() / width;
    let fan_in = delta_in.len() / rows.max(1);
    for k in 0..fan_in {
        let wk = &w[k * width..][..width];
        for r in 0..rows {
            delta_in[r * fan_in + k] = dot(wk, &delta[r * width..][..width]);
        }
    }
}

/// [`backprop_input`] on AVX2, weight rows four at a time against each row of `delta`: the
/// four dots are independent chains of additions, so they overlap where a lone dot waits on
/// each addition. Each is [`dot`] to the bit: two 8-lane registers hold its 16 partial sums,
/// with a multiply and an add, each rounded, per element.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn backprop_input_avx2(delta_in: &mut [f32], delta: &[f32], w: &[f32], width: usize) {
    use std::arch::x86_64::*;
    let rows = delta.len() / width;
    let fan_in = delta_in.len() / rows.max(1);
    assert!(w.len() >= fan_in * width && delta_in.len() >= rows * fan_in);
    let whole = width / DOT_LANES * DOT_LANES;
    let mut k = 0;
    while k < fan_in {
        let n = (fan_in - k).min(4);
        // Short blocks repeat their last row; only the first `n` results are kept.
        let wk: [&[f32]; 4] = [0, 1, 2, 3].map(|j| &w[(k + j.min(n - 1)) * width..][..width]);
        for r in 0..rows {
            let d = &delta[r * width..][..width];
            let mut lo = [_mm256_setzero_ps(); 4];
            let mut hi = [_mm256_setzero_ps(); 4];
            let mut i = 0;
            while i < whole {
                // SAFETY: `i + 16 <= width`, within `d` and every `wk[j]`.
                unsafe {
                    let d_lo = _mm256_loadu_ps(d.as_ptr().add(i));
                    let d_hi = _mm256_loadu_ps(d.as_ptr().add(i + 8));
                    for j in 0..4 {
                        let p = wk[j].as_ptr().add(i);
                        lo[j] = _mm256_add_ps(lo[j], _mm256_mul_ps(_mm256_loadu_ps(p), d_lo));
                        hi[j] =
                            _mm256_add_ps(hi[j], _mm256_mul_ps(_mm256_loadu_ps(p.add(8)), d_hi));
                    }
                }
                i += DOT_LANES;
            }
            for j in 0..n {
                let mut acc = [0.0f32; DOT_LANES];
                // SAFETY: `acc` has room for two 8-float stores.
                unsafe {
                    _mm256_storeu_ps(acc.as_mut_ptr(), lo[j]);
                    _mm256_storeu_ps(acc.as_mut_ptr().add(8), hi[j]);
                }
                delta_in[r * fan_in + k + j] = finish_dot(acc, &wk[j][whole..], &d[whole..]);
            }
        }
        k += n;
    }
}

/// [`backprop_input`] on AVX-512: as on AVX2, but eight weight rows at a time, and each
/// dot's 16 partial sums in one register, so one load of `delta` serves eight chains.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn backprop_input_avx512(delta_in: &mut [f32], delta: &[f32], w: &[f32], width: usize) {
    use std::arch::x86_64::*;
    const BLOCK: usize = 8;
    let rows = delta.len() / width;
    let fan_in = delta_in.len() / rows.max(1);
    assert!(w.len() >= fan_in * width && delta_in.len() >= rows * fan_in);
    let whole = width / DOT_LANES * DOT_LANES;
    let mut k = 0;
    while k < fan_in {
        let n = (fan_in - k).min(BLOCK);
        // Short blocks repeat their last row; only the first `n` results are kept.
        let wk: [&[f32]; BLOCK] =
            std::array::from_fn(|j| &w[(k + j.min(n - 1)) * width..][..width]);
        for r in 0..rows {
            let d = &delta[r * width..][..width];
            let mut acc = [_mm512_setzero_ps(); BLOCK];
            let mut i = 0;
            while i < whole {
                // SAFETY: `i + 16 <= width`, within `d` and every `wk[j]`.
                unsafe {
                    let dv = _mm512_loadu_ps(d.as_ptr().add(i));
                    for (acc, wk) in acc.iter_mut().zip(&wk) {
                        let product = _mm512_mul_ps(_mm512_loadu_ps(wk.as_ptr().add(i)), dv);
                        *acc = _mm512_add_ps(*acc, product);
                    }
                }
                i += DOT_LANES;
            }
            for j in 0..n {
                let mut lanes = [0.0f32; DOT_LANES];
                // SAFETY: `lanes` has room for one 16-float store.
                unsafe { _mm512_storeu_ps(lanes.as_mut_ptr(), acc[j]) };
                delta_in[r * fan_in + k + j] = finish_dot(lanes, &wk[j][whole..], &d[whole..]);
            }
        }
        k += n;
    }
}

/// `Σ_i a[i]·b[i]` in a fixed order: element `i` goes to partial sum `i mod 16`, and the
/// 16 partial sums are added pairwise (lane `l` takes lane `l + 8`, then `l + 4`, ...). The
/// order is written out, so every instruction set gives the same bits.
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let mut acc = [0.0f32; DOT_LANES];
    let (a_chunks, b_chunks) = (
        a[..n].chunks_exact(DOT_LANES),
        b[..n].chunks_exact(DOT_LANES),
    );
    let (a_rest, b_rest) = (a_chunks.remainder(), b_chunks.remainder());
    for (x, y) in a_chunks.zip(b_chunks) {
        for l in 0..DOT_LANES {
            acc[l] += x[l] * y[l];
        }
    }
    finish_dot(acc, a_rest, b_rest)
}

/// The remainder and the pairwise reduction of [`dot`].
#[inline(always)]
fn finish_dot(mut acc: [f32; DOT_LANES], a_rest: &[f32], b_rest: &[f32]) -> f32 {
    for (l, (x, y)) in a_rest.iter().zip(b_rest).enumerate() {
        acc[l] += x * y;
    }
    let mut width = DOT_LANES;
    while width > 1 {
        width /= 2;
        for l in 0..width {
            acc[l] += acc[l + width];
        }
    }
    acc[0]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::relu_outputs;

    #[test]
    fn weight_gradients_sum_rows_in_blocks_of_four_in_order() {
        // Five inputs (two pairs and one alone), ten rows (two blocks of four and two more),
        // with blocks of zero inputs for one input of a pair, for both, and for the lone one.
        let (fan_in, rows, width) = (5, 10, 37);
        let mut rng = bsuite_envs::RandomState::new(3);
        let mut input: Vec<f32> = (0..rows * fan_in).map(|_| rng.randn() as f32).collect();
        for (r, k) in [
            (0, 1),
            (1, 1),
            (2, 1),
            (3, 1),
            (4, 2),
            (5, 2),
            (6, 2),
            (7, 2),
        ] {
            input[r * fan_in + k] = 0.0;
        }
        for r in 4..8 {
            input[r * fan_in + 3] = 0.0;
            input[r * fan_in + 4] = 0.0;
        }
        let delta: Vec<f32> = (0..rows * width).map(|_| rng.randn() as f32).collect();
        let g0: Vec<f32> = (0..fan_in * width).map(|_| rng.randn() as f32).collect();
        let mut g = g0.clone();
        add_weight_grad(&mut g, &input, &delta, width);
        for k in 0..fan_in {
            for j in 0..width {
                let (x, d) = (
                    |r: usize| input[r * fan_in + k],
                    |r: usize| delta[r * width + j],
                );
                let mut expect = g0[k * width + j];
                for r in [0, 4] {
                    if (r..r + 4).any(|r| x(r) != 0.0) {
                        expect = expect
                            + x(r) * d(r)
                            + x(r + 1) * d(r + 1)
                            + x(r + 2) * d(r + 2)
                            + x(r + 3) * d(r + 3);
                    }
                }
                for r in (8..10).filter(|&r| x(r) != 0.0) {
                    expect += x(r) * d(r);
                }
                assert_eq!(g[k * width + j].to_bits(), expect.to_bits(), "g[{k}][{j}]");
            }
        }
    }

    #[test]
    fn backprop_input_is_dot_by_dot_on_every_instruction_set() {
        let mut rng = bsuite_envs::RandomState::new(8);
        type BackpropInput = fn(&mut [f32], &[f32], &[f32], usize);
        let mut kernels: Vec<(&str, BackpropInput)> = vec![
            ("dispatched", backprop_input),
            ("generic", backprop_input_generic),
        ];
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx2") {
                // SAFETY: the CPU has AVX2.
                kernels.push(("avx2", |i, d, w, n| unsafe {
                    backprop_input_avx2(i, d, w, n)
                }));
            }
            if has!("avx512f") {
                // SAFETY: the CPU has AVX-512.
                kernels.push(("avx512", |i, d, w, n| unsafe {
                    backprop_input_avx512(i, d, w, n)
                }));
            }
        }
        // Eleven inputs: whole blocks of weight rows and a short one on every instruction
        // set; three rows of deltas.
        let (fan_in, rows) = (11, 3);
        for ((name, kernel), width) in kernels
            .into_iter()
            .flat_map(|k| [3, 16, 37, 1024].map(|width| (k, width)))
        {
            let w: Vec<f32> = (0..fan_in * width).map(|_| rng.randn() as f32).collect();
            let delta: Vec<f32> = (0..rows * width).map(|_| rng.randn() as f32).collect();
            let mut delta_in = vec![f32::NAN; rows * fan_in];
            kernel(&mut delta_in, &delta, &w, width);
            for r in 0..rows {
                for k in 0..fan_in {
                    let (wk, d) = (&w[k * width..][..width], &delta[r * width..][..width]);
                    let plain = dot(wk, d);
                    let got = delta_in[r * fan_in + k];
                    assert_eq!(
                        got.to_bits(),
                        plain.to_bits(),
                        "{name}, width {width}, [{r}][{k}]"
                    );
                    let exact: f64 = wk
                        .iter()
                        .zip(d)
                        .map(|(x, y)| f64::from(*x) * f64::from(*y))
                        .sum();
                    assert!((f64::from(plain) - exact).abs() < 1e-4 * (1.0 + exact.abs()));
                }
            }
        }
    }

    #[test]
    fn add_product_gives_a_row_alone_the_bits_it_has_among_others() {
        // Widths with and without a whole 16, and past the one-row path's 64; inputs with
        // blocks of four zeros (skipped), lone zeros and -0.0 (added), and a last partial
        // block; sums that start at -0.0, where adding a zero product is not a no-op.
        let mut rng = bsuite_envs::RandomState::new(31);
        let fan_in = 39;
        for width in [3, 16, 21, 48, 50, 64, 70] {
            let mut x = relu_outputs(&mut rng, 3 * fan_in);
            for k in [4, 5, 6, 7, 20, 21, 22, 23, 37] {
                x[fan_in + k] = if k == 21 { -0.0 } else { 0.0 };
            }
            let w: Vec<f32> = (0..fan_in * width).map(|_| rng.randn() as f32).collect();
            let start: Vec<f32> = (0..3 * width)
                .map(|i| if i % 5 == 0 { -0.0 } else { rng.randn() as f32 })
                .collect();
            let mut rows = start.clone();
            add_product(&mut rows, &x, &w, width);
            let mut alone = start[width..2 * width].to_vec();
            add_product(&mut alone, &x[fan_in..2 * fan_in], &w, width);
            for (j, (a, r)) in alone.iter().zip(&rows[width..2 * width]).enumerate() {
                assert_eq!(a.to_bits(), r.to_bits(), "width {width}, column {j}");
            }
        }
    }

    #[test]
    fn add_rows_rounds_each_product_and_keeps_zero_inputs() {
        let (k, width) = (5, 19);
        let w: Vec<f32> = (0..k * width).map(|i| (i as f32 * 0.29).sin()).collect();
        let x = [0.5, 0.0, -1.25, 0.0, 2.0];
        let mut out = vec![-0.0f32; width];
        add_rows(&mut out, &x, &w);
        for j in 0..width {
            let expect = (0..k).fold(-0.0f32, |o, p| o + x[p] * w[p * width + j]);
            assert_eq!(out[j].to_bits(), expect.to_bits(), "[{j}]");
        }
        // LibTorch adds a zero input's product too, and `-0.0 + 0·w` is `+0.0`.
        let mut zero = [-0.0f32; 3];
        add_rows(&mut zero, &[0.0], &[1.0, 2.0, 3.0]);
        assert_eq!(zero.map(f32::to_bits), [0.0f32.to_bits(); 3]);
    }
}
