//! Products of the stacked layers, `a·b` and its transposed form, each output one fused
//! multiply-add chain in MKL's order, with an epilogue (a ReLU or its backward) in
//! registers; and the transposes they take. `simd` holds their tiles in registers.

#[cfg(target_arch = "x86_64")]
mod simd;

use super::activations::{relu_backward_of, relu_of};
use super::dispatch::{simd_level, SimdLevel};

/// What a product does to each output after its bias, before storing it. A ReLU or its
/// backward applied in the product's registers saves a pass over the outputs.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Epilogue<'a> {
    /// Stores the outputs as they are.
    Store,
    /// [`relu`](crate::host::activations::relu)'s `max(x, 0)`, keeping NaN.
    Relu,
    /// [`relu_backward`](crate::host::activations::relu_backward): zeroes the outputs whose element of this activation, laid out as
    /// the output, is not above zero.
    ReluBackward(&'a [f32]),
}

impl Epilogue<'_> {
    /// [`Epilogue::Relu`] for a hidden layer, [`Epilogue::Store`] for the output layer.
    pub(crate) fn relu_if(hidden: bool) -> Self {
        if hidden {
            Epilogue::Relu
        } else {
            Epilogue::Store
        }
    }

    /// Output `s`, element `at` of the output, after the epilogue.
    #[inline(always)]
    fn apply(self, at: usize, s: f32) -> f32 {
        match self {
            Epilogue::Store => s,
            Epilogue::Relu => relu_of(s),
            Epilogue::ReluBackward(activation) => relu_backward_of(s, activation[at]),
        }
    }

    /// The epilogue for a tile whose first output is element `at` of the output.
    #[cfg(target_arch = "x86_64")]
    fn at(self, at: usize) -> simd::Post {
        match self {
            Epilogue::Store => simd::Post::Store,
            Epilogue::Relu => simd::Post::Relu,
            Epilogue::ReluBackward(a) => simd::Post::ReluBackward(a.as_ptr().wrapping_add(at)),
        }
    }

    /// Panics unless a [`Epilogue::ReluBackward`]'s activation covers `outputs` elements.
    fn check(self, outputs: usize, kernel: &str) {
        if let Epilogue::ReluBackward(a) = self {
            assert!(
                a.len() >= outputs,
                "{kernel}: {} activations for {outputs} outputs",
                a.len()
            );
        }
    }
}

/// `out = a·b`, plus `bias` on every row if given, then `then`: `b` is `[k, n]` and `out`
/// is `[m, n]`, row-major with `n` a multiple of 16, and element `(i, p)` of `a` is
/// `a[i·a_strides.0 + p·a_strides.1]`, so `a` may be stored transposed.
///
/// Each `out[i][j]` is one chain of fused multiply-adds over `p` in order, from zero, with
/// the bias added last. That is the order MKL's sgemm takes on the stacked layers' shapes
/// (a batch of rows by 16 to 128), so these products give the bits LibTorch's `bmm` and
/// `baddbmm` gave there; `mul_add` keeps them the same on every instruction set, and only
/// the tile of outputs summed in registers at once depends on it. Unlike a BLAS, nothing is
/// packed or scaled, which on these small products was 40% of MKL's time.
pub(crate) fn matmul(
    out: &mut [f32],
    a: &[f32],
    a_strides: (usize, usize),
    b: &[f32],
    n: usize,
    bias: Option<&[f32]>,
    then: Epilogue,
) {
    matmul_columns(out, a, a_strides, b, n, bias, then, n)
}

/// [`matmul`]'s first `cols` columns of `out` (a multiple of 16); the others are left as
/// they are. A product whose real outputs end inside a vector computes the vectors before
/// it here and the rest another way ([`matmul_transposed`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn matmul_columns(
    out: &mut [f32],
    a: &[f32],
    a_strides: (usize, usize),
    b: &[f32],
    n: usize,
    bias: Option<&[f32]>,
    then: Epilogue,
    cols: usize,
) {
    assert!(
        n.is_multiple_of(16)
            && cols.is_multiple_of(16)
            && cols <= n
            && out.len().is_multiple_of(n)
            && b.len().is_multiple_of(n),
        "matmul: {cols} of {n} columns, {} outputs, {} weights",
        out.len(),
        b.len()
    );
    let (m, k) = (out.len() / n, b.len() / n);
    if m == 0 {
        return;
    }
    let (a_row, a_col) = a_strides;
    assert!(
        k == 0 || (m - 1) * a_row + (k - 1) * a_col < a.len(),
        "matmul: `a` too short"
    );
    assert!(bias.is_none_or(|c| c.len() >= n), "matmul: bias too short");
    then.check(out.len(), "matmul");
    #[cfg(target_arch = "x86_64")]
    match simd_level() {
        // SAFETY: the CPU has the features (checked by `simd_level`), and every index
        // the kernels read or write is within the slices (checked above).
        SimdLevel::Avx512 => {
            return unsafe { simd::matmul_avx512(out, a, a_strides, b, n, bias, then, cols) };
        }
        SimdLevel::Avx2 => {
            return unsafe { simd::matmul_avx2(out, a, a_strides, b, n, bias, then, cols) };
        }
        SimdLevel::Baseline => {}
    }
    matmul_generic(out, a, a_strides, b, n, bias, then, cols)
}

/// [`matmul`] in tiles of 4 rows by 16 columns, without intrinsics (LLVM vectorises it
/// where it can).
#[allow(clippy::too_many_arguments)]
fn matmul_generic(
    out: &mut [f32],
    a: &[f32],
    a_strides: (usize, usize),
    b: &[f32],
    n: usize,
    bias: Option<&[f32]>,
    then: Epilogue,
    cols: usize,
) {
    let m = out.len() / n;
    let whole = m - m % 4;
    for first in (0..m).step_by(4) {
        for c in (0..cols).step_by(16) {
            if first < whole {
                matmul_tile::<4, 16>(out, (first, c), a, a_strides, b, n, bias, then);
            } else {
                for row in first..m {
                    matmul_tile::<1, 16>(out, (row, c), a, a_strides, b, n, bias, then);
                }
            }
        }
    }
}

/// Columns `cols` of `aᵀ·b`, plus `bias` if given, then `then`, written transposed:
/// `out_t[j − cols.start][i] = Σ_p a[p][i]·b[p][j] (+ bias[j])` for `i < m`, `j` in `cols`
/// and `p < b.len() / n`, where `a[p][i]` is `a[p·a_stride + i]` (`m <= a_stride`), `b` is
/// `[p, n]` row-major and `out_t` is `cols.len()` rows of `m`. Each output is one fused
/// multiply-add chain over `p` in order, from zero, with the bias added last: [`matmul`]'s
/// order, so `out_t` is [`matmul`]'s output on `a` stored transposed, transposed.
///
/// It runs over `i`, 16 at a time, where [`matmul`] runs over `j`. [`matmul`] computes a
/// whole vector of 16 columns per output row, 8 and 5 times the work on the columns a layer
/// has past its last whole vector (a 50-wide layer's last 2, a 3-action head's 3); this
/// computes exactly `cols`, and its output, a layer's activations stored transposed, is
/// the `a` of the next layer's product. A [`Epilogue::ReluBackward`]'s activation is
/// laid out as `out_t`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn matmul_transposed(
    out_t: &mut [f32],
    m: usize,
    a: &[f32],
    a_stride: usize,
    b: &[f32],
    n: usize,
    cols: std::ops::Range<usize>,
    bias: Option<&[f32]>,
    then: Epilogue,
) {
    let k = b.len().checked_div(n).unwrap_or(0);
    assert!(
        n > 0
            && cols.end <= n
            && b.len().is_multiple_of(n)
            && out_t.len() == cols.len() * m
            && m <= a_stride
            && (k == 0 || m == 0 || (k - 1) * a_stride + m <= a.len())
            && bias.is_none_or(|z| z.len() >= cols.end),
        "matmul_transposed: columns {cols:?} of {n}, {} outputs of {m} rows, {} inputs \
         {a_stride} apart, {} weights",
        out_t.len(),
        a.len(),
        b.len()
    );
    then.check(out_t.len(), "matmul_transposed");
    if out_t.is_empty() {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    match simd_level() {
        // SAFETY: the CPU has the features (checked by `simd_level`), and every index
        // the kernels read or write is within the slices (checked above).
        SimdLevel::Avx512 => {
            return unsafe {
                simd::matmul_transposed_avx512(out_t, m, a, a_stride, b, n, cols, bias, then)
            };
        }
        SimdLevel::Avx2 => {
            return unsafe {
                simd::matmul_transposed_avx2(out_t, m, a, a_stride, b, n, cols, bias, then)
            };
        }
        SimdLevel::Baseline => {}
    }
    matmul_transposed_generic(out_t, m, a, a_stride, b, n, cols, bias, then)
}

/// [`matmul_transposed`] output by output, without intrinsics.
#[allow(clippy::too_many_arguments)]
fn matmul_transposed_generic(
    out_t: &mut [f32],
    m: usize,
    a: &[f32],
    a_stride: usize,
    b: &[f32],
    n: usize,
    cols: std::ops::Range<usize>,
    bias: Option<&[f32]>,
    then: Epilogue,
) {
    let k = b.len() / n;
    for (c, (row, j)) in out_t.chunks_exact_mut(m).zip(cols).enumerate() {
        for (i, o) in row.iter_mut().enumerate() {
            let chain = (0..k).fold(0.0f32, |s, p| a[p * a_stride + i].mul_add(b[p * n + j], s));
            *o = then.apply(c * m + i, bias.map_or(chain, |z| chain + z[j]));
        }
    }
}

/// Rows `first..first + R` and columns `c..c + C` of [`matmul_generic`]'s `out`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn matmul_tile<const R: usize, const C: usize>(
    out: &mut [f32],
    (first, c): (usize, usize),
    a: &[f32],
    (a_row, a_col): (usize, usize),
    b: &[f32],
    n: usize,
    bias: Option<&[f32]>,
    then: Epilogue,
) {
    let k = b.len() / n;
    let mut acc = [[0.0f32; C]; R];
    for p in 0..k {
        let bp: &[f32; C] = b[p * n + c..][..C].try_into().expect("C floats");
        for (r, acc) in acc.iter_mut().enumerate() {
            let x = a[(first + r) * a_row + p * a_col];
            for (s, &y) in acc.iter_mut().zip(bp) {
                *s = x.mul_add(y, *s);
            }
        }
    }
    for (r, acc) in acc.iter().enumerate() {
        let at = (first + r) * n + c;
        for (j, (o, &s)) in out[at..][..C].iter_mut().zip(acc).enumerate() {
            let s = bias.map_or(s, |bias| s + bias[c + j]);
            *o = then.apply(at + j, s);
        }
    }
}

/// The first `out.len() / rows` columns of `w` (`rows` rows of `cols`, row-major) as
/// the rows of `out`: `out = wᵀ`, or its first rows.
pub(crate) fn transpose(w: &[f32], cols: usize, out: &mut [f32]) {
    let rows = w.len() / cols;
    let out_rows = out.len() / rows.max(1);
    assert!(out_rows <= cols, "transpose: {out_rows} columns of {cols}");
    let (mut done_cols, mut done_rows) = (0, 0);
    #[cfg(target_arch = "x86_64")]
    if simd_level() != SimdLevel::Baseline {
        // SAFETY: the CPU has AVX (checked by `simd_level`), and the blocks are within
        // `w` and `out` (whole blocks of 8 rows of `w`; columns of `w` that exist; rows
        // of `out` that exist).
        done_cols = unsafe { transpose_blocks_avx(w, cols, out, out_rows, rows / 8) };
        done_rows = rows / 8 * 8;
    }
    for j in 0..out_rows {
        let from = if j < done_cols { done_rows } else { 0 };
        for (k, o) in out[j * rows..][..rows].iter_mut().enumerate().skip(from) {
            *o = w[k * cols + j];
        }
    }
}

/// [`transpose`]'s first `out_rows` columns over its first `row_blocks · 8` rows, in
/// blocks of 8 by 8 in registers (a scalar transpose's strided reads were 4% of
/// bootstrapped DQN's step), and returns how many columns it did: all of them where `w`
/// has the columns up to the next multiple of 8, whose last block it reads whole and
/// stores in part (a 50-wide layer's columns 48 and 49 of 64), else the whole blocks.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn transpose_blocks_avx(
    w: &[f32],
    cols: usize,
    out: &mut [f32],
    out_rows: usize,
    row_blocks: usize,
) -> usize {
    use std::arch::x86_64::*;
    let rows = w.len() / cols;
    let col_blocks = if out_rows.next_multiple_of(8) <= cols {
        out_rows.div_ceil(8)
    } else {
        out_rows / 8
    };
    for jb in 0..col_blocks {
        let j = jb * 8;
        let keep = (out_rows - j).min(8);
        for k in (0..row_blocks * 8).step_by(8) {
            // SAFETY (this block): rows `k..k + 8` of `w` and of `out`'s block exist.
            unsafe {
                let r: [__m256; 8] =
                    std::array::from_fn(|i| _mm256_loadu_ps(w.as_ptr().add((k + i) * cols + j)));
                let t0 = _mm256_unpacklo_ps(r[0], r[1]);
                let t1 = _mm256_unpackhi_ps(r[0], r[1]);
                let t2 = _mm256_unpacklo_ps(r[2], r[3]);
                let t3 = _mm256_unpackhi_ps(r[2], r[3]);
                let t4 = _mm256_unpacklo_ps(r[4], r[5]);
                let t5 = _mm256_unpackhi_ps(r[4], r[5]);
                let t6 = _mm256_unpacklo_ps(r[6], r[7]);
                let t7 = _mm256_unpackhi_ps(r[6], r[7]);
                let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
                let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
                let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
                let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
                let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
                let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
                let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
                let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
                let c = [
                    _mm256_permute2f128_ps::<0x20>(u0, u4),
                    _mm256_permute2f128_ps::<0x20>(u1, u5),
                    _mm256_permute2f128_ps::<0x20>(u2, u6),
                    _mm256_permute2f128_ps::<0x20>(u3, u7),
                    _mm256_permute2f128_ps::<0x31>(u0, u4),
                    _mm256_permute2f128_ps::<0x31>(u1, u5),
                    _mm256_permute2f128_ps::<0x31>(u2, u6),
                    _mm256_permute2f128_ps::<0x31>(u3, u7),
                ];
                for (i, c) in c.into_iter().enumerate().take(keep) {
                    _mm256_storeu_ps(out.as_mut_ptr().add((j + i) * rows + k), c);
                }
            }
        }
    }
    (col_blocks * 8).min(out_rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::activations::{relu, relu_backward};
    use crate::host::relu_outputs;

    #[test]
    fn matmul_is_one_fused_chain_per_output_then_the_bias_then_the_epilogue() {
        // On every instruction set: 13 and 15 rows, whole tiles and every size of tile for
        // the rows left over, by 48 columns (three vectors) and 64 (two and two); 37 rows
        // of 16 columns, in tiles of 16 rows and the rest.
        for (m, n) in [(13, 48), (15, 48), (13, 64), (37, 16)] {
            matmul_matches_its_chains(m, n);
        }
    }

    fn matmul_matches_its_chains(m: usize, n: usize) {
        let mut rng = bsuite_envs::RandomState::new(11);
        let k = 37;
        let a = relu_outputs(&mut rng, m * k);
        let b: Vec<f32> = (0..k * n).map(|_| rng.randn() as f32).collect();
        let bias: Vec<f32> = (0..n).map(|_| rng.randn() as f32).collect();
        let mut a_t = vec![0.0f32; k * m];
        transpose(&a, k, &mut a_t);
        // Zeros, -0.0 and NaN among the activations a ReLU's backward reads.
        let mut activation = relu_outputs(&mut rng, m * n);
        activation[1] = -0.0;
        activation[2] = f32::NAN;
        type Matmul =
            fn(&mut [f32], &[f32], (usize, usize), &[f32], usize, Option<&[f32]>, Epilogue);
        let mut kernels: Vec<(&str, Matmul)> = vec![
            ("dispatched", matmul),
            ("generic", |o, a, s, b, n, c, t| {
                matmul_generic(o, a, s, b, n, c, t, n)
            }),
        ];
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx2") && has!("fma") {
                // SAFETY: the CPU has AVX2 and FMA, and the slices are as `matmul` checks.
                kernels.push(("avx2", |o, a, s, b, n, c, t| unsafe {
                    simd::matmul_avx2(o, a, s, b, n, c, t, n)
                }));
            }
            if has!("avx512f") {
                // SAFETY: as above, with AVX-512.
                kernels.push(("avx512", |o, a, s, b, n, c, t| unsafe {
                    simd::matmul_avx512(o, a, s, b, n, c, t, n)
                }));
            }
        }
        let epilogues = [
            Epilogue::Store,
            Epilogue::Relu,
            Epilogue::ReluBackward(&activation),
        ];
        for (name, kernel) in kernels {
            for (stored, strides, add) in [(&a, (k, 1), Some(&bias[..])), (&a_t, (1, m), None)] {
                for then in epilogues {
                    let mut out = vec![f32::NAN; m * n];
                    kernel(&mut out, stored, strides, &b, n, add, then);
                    // The epilogue is the kernels that run it apart.
                    let mut expect = vec![0.0f32; m * n];
                    for i in 0..m {
                        for j in 0..n {
                            let chain =
                                (0..k).fold(0.0f32, |s, p| a[i * k + p].mul_add(b[p * n + j], s));
                            expect[i * n + j] = add.map_or(chain, |c| chain + c[j]);
                        }
                    }
                    match then {
                        Epilogue::Store => {}
                        Epilogue::Relu => relu(&mut expect),
                        Epilogue::ReluBackward(x) => relu_backward(&mut expect, x),
                    }
                    for (at, (got, want)) in out.iter().zip(&expect).enumerate() {
                        let (i, j) = (at / n, at % n);
                        assert_eq!(got.to_bits(), want.to_bits(), "{name} {then:?} [{i}][{j}]");
                    }
                }
            }
        }
    }

    #[test]
    fn matmul_transposed_is_matmuls_chains_on_every_instruction_set() {
        // As the stacked layers use it: a 50-wide layer's last 2 weight-gradient columns of
        // 64 and a head's 3 of 16 (50 and 64 outputs `i`, inputs 64 apart); a target
        // network's layer of 50 and head of 3 over 128 and 61 rows, and DQN's 64-wide
        // layer over its batch of 32, with the bias. Then outputs that end inside a vector
        // of either width (37, 13 and 9), and 64 rows in tiles of every width (10 and 11
        // columns: 6 and 4, 6 and 5).
        let mut rng = bsuite_envs::RandomState::new(23);
        for (m, a_stride, k, n, cols, biased) in [
            (50, 64, 13, 64, 48..50, false),
            (64, 64, 13, 16, 0..3, false),
            (50, 64, 13, 16, 0..3, false),
            (128, 128, 50, 64, 0..50, true),
            (61, 64, 50, 16, 0..3, true),
            (32, 32, 64, 64, 0..64, true),
            (37, 37, 13, 16, 1..6, true),
            (13, 16, 7, 16, 2..9, false),
            (9, 9, 4, 16, 0..16, true),
            (64, 64, 9, 16, 0..10, true),
            (64, 64, 9, 16, 3..14, false),
        ] {
            let a = relu_outputs(&mut rng, k * a_stride);
            let b: Vec<f32> = (0..k * n).map(|_| rng.randn() as f32).collect();
            let bias: Vec<f32> = (0..n).map(|_| rng.randn() as f32).collect();
            let bias = biased.then_some(&bias[..]);
            type Kernel = fn(
                &mut [f32],
                usize,
                &[f32],
                usize,
                &[f32],
                usize,
                std::ops::Range<usize>,
                Option<&[f32]>,
                Epilogue,
            );
            let mut kernels: Vec<(&str, Kernel)> = vec![
                ("dispatched", matmul_transposed),
                ("generic", matmul_transposed_generic),
            ];
            #[cfg(target_arch = "x86_64")]
            {
                use std::arch::is_x86_feature_detected as has;
                if has!("avx2") && has!("fma") {
                    // SAFETY: the CPU has AVX2 and FMA, and the slices are as
                    // `matmul_transposed` checks.
                    kernels.push(("avx2", |o, m, a, s, b, n, c, z, t| unsafe {
                        simd::matmul_transposed_avx2(o, m, a, s, b, n, c, z, t)
                    }));
                }
                if has!("avx512f") {
                    // SAFETY: as above, with AVX-512.
                    kernels.push(("avx512", |o, m, a, s, b, n, c, z, t| unsafe {
                        simd::matmul_transposed_avx512(o, m, a, s, b, n, c, z, t)
                    }));
                }
            }
            // `matmul` on `a` stored transposed: `out[i][j] = Σ_p a[p][i]·b[p][j]`.
            let mut full = vec![0.0f32; m * n];
            matmul(&mut full, &a, (1, a_stride), &b, n, bias, Epilogue::Store);
            // The ReLU's activations, laid out as `out_t`.
            let activation = relu_outputs(&mut rng, cols.len() * m);
            let epilogues = [
                Epilogue::Store,
                Epilogue::Relu,
                Epilogue::ReluBackward(&activation),
            ];
            for (name, kernel) in &kernels {
                for then in epilogues {
                    // A row of `out_t` past the columns, which must stay as it is.
                    let mut out_t = vec![f32::NAN; (cols.len() + 1) * m];
                    let (ours, after) = out_t.split_at_mut(cols.len() * m);
                    kernel(ours, m, &a, a_stride, &b, n, cols.clone(), bias, then);
                    assert!(
                        after.iter().all(|x| x.is_nan()),
                        "{name} wrote past its outputs"
                    );
                    for (c, j) in cols.clone().enumerate() {
                        for i in 0..m {
                            let at = c * m + i;
                            let want = then.apply(at, full[i * n + j]);
                            let got = out_t[at];
                            assert_eq!(got.to_bits(), want.to_bits(), "{name} {m}x{n} [{i}][{j}]");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn transpose_writes_the_first_columns_as_rows() {
        // w is 2 × 3: [[0, 1, 2], [3, 4, 5]]; its first two columns become two rows.
        let w = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
        let mut out = [f32::NAN; 4];
        transpose(&w, 3, &mut out);
        assert_eq!(out, [0.0, 3.0, 1.0, 4.0]);
        // Blocks of 8 by 8 and the columns and rows after them, as the stacked layers use
        // it (weights 64 or 16 rows long, a member's activations 128 or 61); a last block
        // of columns stored in part, and (20 columns) one that `w` is too narrow for.
        for (rows, cols, out_rows) in [
            (64, 64, 50),
            (16, 16, 3),
            (8, 32, 17),
            (64, 16, 16),
            (128, 64, 50),
            (61, 64, 50),
            (13, 16, 9),
            (5, 16, 16),
            (16, 20, 19),
        ] {
            let w: Vec<f32> = (0..rows * cols).map(|i| i as f32).collect();
            let mut out = vec![f32::NAN; out_rows * rows];
            transpose(&w, cols, &mut out);
            for j in 0..out_rows {
                for k in 0..rows {
                    assert_eq!(
                        out[j * rows + k],
                        w[k * cols + j],
                        "{rows}x{cols}: ({j}, {k})"
                    );
                }
            }
        }
    }
}
