//! The products ([`super::matmul`], [`super::matmul_transposed`]) in registers, with
//! intrinsics: LLVM's vectoriser assembled the generic tile's vectors from pieces, at half
//! the speed, and took a row's last partial vector one float at a time.

use std::arch::x86_64::*;

/// An [`super::Epilogue`] at a tile: a [`super::Epilogue::ReluBackward`]'s activation
/// from the tile's first output on.
#[derive(Clone, Copy)]
pub(super) enum Post {
    Store,
    Relu,
    ReluBackward(*const f32),
}

/// Outputs `s`, `at` elements past the tile's first, after `post`; only the lanes of
/// `lanes` are read from the activation.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn finish_512(s: __m512, post: Post, at: usize, lanes: __mmask16) -> __m512 {
    let zero = _mm512_setzero_ps();
    match post {
        Post::Store => s,
        Post::Relu => _mm512_mask_mov_ps(s, _mm512_cmp_ps_mask::<_CMP_LT_OQ>(s, zero), zero),
        Post::ReluBackward(a) => {
            // SAFETY: the caller's tile is within the activation, laid out as the output.
            let a = unsafe { _mm512_maskz_loadu_ps(lanes, a.wrapping_add(at)) };
            _mm512_maskz_mov_ps(_mm512_cmp_ps_mask::<_CMP_GT_OQ>(a, zero), s)
        }
    }
}

/// As `finish_512`, 8 lanes; `lanes` has all bits set in the lanes read.
#[target_feature(enable = "avx2,fma")]
#[inline]
unsafe fn finish_256(s: __m256, post: Post, at: usize, lanes: __m256i) -> __m256 {
    let zero = _mm256_setzero_ps();
    match post {
        Post::Store => s,
        Post::Relu => _mm256_blendv_ps(s, zero, _mm256_cmp_ps::<_CMP_LT_OQ>(s, zero)),
        Post::ReluBackward(a) => {
            // SAFETY: as in `finish_512`.
            let a = unsafe { _mm256_maskload_ps(a.wrapping_add(at), lanes) };
            _mm256_and_ps(s, _mm256_cmp_ps::<_CMP_GT_OQ>(a, zero))
        }
    }
}

/// Tiles of 8 rows by 32 columns (16 accumulators of the 32 registers), or by 48 where
/// 48 columns are left (24 accumulators: a 50-wide layer's weight gradient, whose 48
/// whole columns took 21% longer as 32 and then 16 on the Xeon), then 16 columns; a
/// product 16 columns wide (the 3-action head's) in tiles of 16 rows, 16 chains where
/// 8 rows kept 8 (10% faster). The rows left over go in tiles of 4, 2 and 1 (a tile of
/// one row by 16 columns is one chain, which waits out the multiply-add's latency at
/// every step: a 50-row weight gradient's last two rows took as long as eight).
#[target_feature(enable = "avx512f")]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn matmul_avx512(
    out: &mut [f32],
    a: &[f32],
    a_strides: (usize, usize),
    b: &[f32],
    n: usize,
    bias: Option<&[f32]>,
    then: super::Epilogue,
    cols: usize,
) {
    let m = out.len() / n;
    let k = b.len() / n;
    let mut first = 0;
    while first < m {
        let rows = match m - first {
            16.. if cols == 16 => 16,
            8.. => 8,
            4..=7 => 4,
            2..=3 => 2,
            _ => 1,
        };
        let mut c = 0;
        while c < cols {
            let vectors = match cols - c {
                48 => 3,
                32.. => 2,
                _ => 1,
            };
            // SAFETY: rows `first..first + rows` and columns `c..` of a tile are within
            // `m` and `n`.
            unsafe {
                let o = out.as_mut_ptr().add(first * n + c);
                let x = a.as_ptr().add(first * a_strides.0);
                let y = b.as_ptr().add(c);
                let z = bias.map(|z| z.as_ptr().add(c));
                let t = then.at(first * n + c);
                match (rows, vectors) {
                    (16, _) => tile_512::<16, 1>(o, x, a_strides, y, n, k, z, t),
                    (8, 3) => tile_512::<8, 3>(o, x, a_strides, y, n, k, z, t),
                    (8, 2) => tile_512::<8, 2>(o, x, a_strides, y, n, k, z, t),
                    (8, _) => tile_512::<8, 1>(o, x, a_strides, y, n, k, z, t),
                    (4, 3) => tile_512::<4, 3>(o, x, a_strides, y, n, k, z, t),
                    (4, 2) => tile_512::<4, 2>(o, x, a_strides, y, n, k, z, t),
                    (4, _) => tile_512::<4, 1>(o, x, a_strides, y, n, k, z, t),
                    (2, 3) => tile_512::<2, 3>(o, x, a_strides, y, n, k, z, t),
                    (2, 2) => tile_512::<2, 2>(o, x, a_strides, y, n, k, z, t),
                    (2, _) => tile_512::<2, 1>(o, x, a_strides, y, n, k, z, t),
                    (_, 3) => tile_512::<1, 3>(o, x, a_strides, y, n, k, z, t),
                    (_, 2) => tile_512::<1, 2>(o, x, a_strides, y, n, k, z, t),
                    (_, _) => tile_512::<1, 1>(o, x, a_strides, y, n, k, z, t),
                }
            }
            c += 16 * vectors;
        }
        first += rows;
    }
}

/// `R` rows by `V` registers of 16 columns; pointers at the tile's first element.
#[target_feature(enable = "avx512f")]
#[inline]
#[allow(clippy::too_many_arguments)]
unsafe fn tile_512<const R: usize, const V: usize>(
    out: *mut f32,
    a: *const f32,
    (a_row, a_col): (usize, usize),
    b: *const f32,
    n: usize,
    k: usize,
    bias: Option<*const f32>,
    then: Post,
) {
    let mut acc = [[_mm512_setzero_ps(); V]; R];
    let mut bp = [_mm512_setzero_ps(); V];
    for p in 0..k {
        for (v, bv) in bp.iter_mut().enumerate() {
            // SAFETY (this block and below): within the tile (see `matmul_avx512`).
            *bv = unsafe { _mm512_loadu_ps(b.add(p * n + 16 * v)) };
        }
        for (r, acc) in acc.iter_mut().enumerate() {
            let x = _mm512_set1_ps(unsafe { *a.add(r * a_row + p * a_col) });
            for (s, &y) in acc.iter_mut().zip(&bp) {
                *s = _mm512_fmadd_ps(x, y, *s);
            }
        }
    }
    for (r, acc) in acc.iter().enumerate() {
        for (v, &s) in acc.iter().enumerate() {
            let s = match bias {
                Some(z) => _mm512_add_ps(s, unsafe { _mm512_loadu_ps(z.add(16 * v)) }),
                None => s,
            };
            let at = r * n + 16 * v;
            let s = unsafe { finish_512(s, then, at, !0) };
            unsafe { _mm512_storeu_ps(out.add(at), s) };
        }
    }
}

/// Tiles of 6 rows by 16 columns (12 accumulators of the 16 registers), then single
/// rows.
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn matmul_avx2(
    out: &mut [f32],
    a: &[f32],
    a_strides: (usize, usize),
    b: &[f32],
    n: usize,
    bias: Option<&[f32]>,
    then: super::Epilogue,
    cols: usize,
) {
    let m = out.len() / n;
    let k = b.len() / n;
    let whole = m - m % 6;
    let mut first = 0;
    while first < m {
        for c in (0..cols).step_by(16) {
            // SAFETY: rows `first..` and columns `c..` of a tile are within `m` and `n`.
            unsafe {
                let o = out.as_mut_ptr().add(first * n + c);
                let x = a.as_ptr().add(first * a_strides.0);
                let y = b.as_ptr().add(c);
                let z = bias.map(|z| z.as_ptr().add(c));
                let t = then.at(first * n + c);
                if first < whole {
                    tile_256::<6>(o, x, a_strides, y, n, k, z, t);
                } else {
                    tile_256::<1>(o, x, a_strides, y, n, k, z, t);
                }
            }
        }
        first += if first < whole { 6 } else { 1 };
    }
}

/// [`super::matmul_transposed`] in tiles of `V` vectors of 16 outputs (`i`) by `C`
/// columns (`j`), each tile one pass over `p`. A tile keeps at least 8 chains in flight
/// where it has the columns (4 by 6 over 128 rows, 2 by 6 over a batch of 32, 1 by 8),
/// enough to hide the multiply-add's latency; 4 by 6 takes 4 loads and 6 broadcasts
/// to 24 multiply-adds, and ran the target's 50-wide layer in 21% less time than 4 by 3
/// on the Xeon.
#[target_feature(enable = "avx512f")]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn matmul_transposed_avx512(
    out_t: &mut [f32],
    m: usize,
    a: &[f32],
    a_stride: usize,
    b: &[f32],
    n: usize,
    cols: std::ops::Range<usize>,
    bias: Option<&[f32]>,
    then: super::Epilogue,
) {
    let then = then.at(0);
    let mut i = 0;
    while i < m {
        let (v, widest) = match m - i {
            49.. => (4, 6),
            17.. => (2, 6),
            _ => (1, 8),
        };
        let mut j = cols.start;
        while j < cols.end {
            let c = (cols.end - j).min(widest);
            let at = (i, j, j - cols.start);
            macro_rules! tiles {
                ($($v:literal: $($c:literal)+;)+) => {
                    match (v, c) {
                        $($(
                            // SAFETY: the tile's outputs (`i..i + 16·v` clipped to `m`,
                            // columns `j..j + c`) and the inputs it reads are within
                            // the slices.
                            ($v, $c) => unsafe {
                                transposed_512::<$v, $c>(
                                    out_t, m, a, a_stride, b, n, at, bias, then,
                                )
                            },
                        )+)+
                        _ => unreachable!("a tile of {v} by {c}"),
                    }
                };
            }
            tiles!(4: 1 2 3 4 5 6; 2: 1 2 3 4 5 6; 1: 1 2 3 4 5 6 7 8;);
            j += c;
        }
        i += 16 * v;
    }
}

/// Outputs `i..i + 16·V` (clipped to `m`) of columns `j..j + C`, which are rows
/// `row..row + C` of `out_t`.
#[target_feature(enable = "avx512f")]
#[inline]
#[allow(clippy::too_many_arguments)]
unsafe fn transposed_512<const V: usize, const C: usize>(
    out_t: &mut [f32],
    m: usize,
    a: &[f32],
    a_stride: usize,
    b: &[f32],
    n: usize,
    (i, j, row): (usize, usize, usize),
    bias: Option<&[f32]>,
    then: Post,
) {
    let k = b.len() / n;
    // Lanes past `m` read and write nothing.
    let masks: [__mmask16; V] = std::array::from_fn(|v| {
        let left = m.saturating_sub(i + 16 * v).min(16);
        ((1u32 << left) - 1) as __mmask16
    });
    let mut acc = [[_mm512_setzero_ps(); V]; C];
    for p in 0..k {
        // SAFETY (this block and below): unmasked lanes are within `a`'s row `p` (`m <=
        // a_stride`), `j + C <= n`, and `out_t` has `m` outputs a row.
        let xs: [__m512; V] = std::array::from_fn(|v| unsafe {
            let at = a.as_ptr().wrapping_add(p * a_stride + i + 16 * v);
            _mm512_maskz_loadu_ps(masks[v], at)
        });
        for (c, acc) in acc.iter_mut().enumerate() {
            let y = _mm512_set1_ps(unsafe { *b.get_unchecked(p * n + j + c) });
            for (s, &x) in acc.iter_mut().zip(&xs) {
                *s = _mm512_fmadd_ps(x, y, *s);
            }
        }
    }
    for (c, acc) in acc.iter().enumerate() {
        let z = bias.map(|z| _mm512_set1_ps(z[j + c]));
        for (v, &s) in acc.iter().enumerate() {
            let s = z.map_or(s, |z| _mm512_add_ps(s, z));
            let at = (row + c) * m + i + 16 * v;
            let s = unsafe { finish_512(s, then, at, masks[v]) };
            unsafe { _mm512_mask_storeu_ps(out_t.as_mut_ptr().wrapping_add(at), masks[v], s) };
        }
    }
}

/// [`super::matmul_transposed`] in tiles of `V` vectors of 8 outputs by `C` columns, 2
/// by 4 or 1 by 8 (8 chains, at most 11 of the 16 registers) where it has the columns.
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn matmul_transposed_avx2(
    out_t: &mut [f32],
    m: usize,
    a: &[f32],
    a_stride: usize,
    b: &[f32],
    n: usize,
    cols: std::ops::Range<usize>,
    bias: Option<&[f32]>,
    then: super::Epilogue,
) {
    let then = then.at(0);
    let mut i = 0;
    while i < m {
        let (v, widest) = if m - i > 8 { (2, 4) } else { (1, 8) };
        let mut j = cols.start;
        while j < cols.end {
            let c = (cols.end - j).min(widest);
            let at = (i, j, j - cols.start);
            macro_rules! tiles {
                ($($v:literal: $($c:literal)+;)+) => {
                    match (v, c) {
                        $($(
                            // SAFETY: as in `matmul_transposed_avx512`.
                            ($v, $c) => unsafe {
                                transposed_256::<$v, $c>(
                                    out_t, m, a, a_stride, b, n, at, bias, then,
                                )
                            },
                        )+)+
                        _ => unreachable!("a tile of {v} by {c}"),
                    }
                };
            }
            tiles!(2: 1 2 3 4; 1: 1 2 3 4 5 6 7 8;);
            j += c;
        }
        i += 8 * v;
    }
}

/// As `transposed_512`, 8 outputs a vector.
#[target_feature(enable = "avx2,fma")]
#[inline]
#[allow(clippy::too_many_arguments)]
unsafe fn transposed_256<const V: usize, const C: usize>(
    out_t: &mut [f32],
    m: usize,
    a: &[f32],
    a_stride: usize,
    b: &[f32],
    n: usize,
    (i, j, row): (usize, usize, usize),
    bias: Option<&[f32]>,
    then: Post,
) {
    let k = b.len() / n;
    let masks: [__m256i; V] = std::array::from_fn(|v| {
        let left = m.saturating_sub(i + 8 * v).min(8) as i32;
        let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        _mm256_cmpgt_epi32(_mm256_set1_epi32(left), lanes)
    });
    let mut acc = [[_mm256_setzero_ps(); V]; C];
    for p in 0..k {
        // SAFETY (this block and below): as in `transposed_512`.
        let xs: [__m256; V] = std::array::from_fn(|v| unsafe {
            let at = a.as_ptr().wrapping_add(p * a_stride + i + 8 * v);
            _mm256_maskload_ps(at, masks[v])
        });
        for (c, acc) in acc.iter_mut().enumerate() {
            let y = _mm256_set1_ps(unsafe { *b.get_unchecked(p * n + j + c) });
            for (s, &x) in acc.iter_mut().zip(&xs) {
                *s = _mm256_fmadd_ps(x, y, *s);
            }
        }
    }
    for (c, acc) in acc.iter().enumerate() {
        let z = bias.map(|z| _mm256_set1_ps(z[j + c]));
        for (v, &s) in acc.iter().enumerate() {
            let s = z.map_or(s, |z| _mm256_add_ps(s, z));
            let at = (row + c) * m + i + 8 * v;
            let s = unsafe { finish_256(s, then, at, masks[v]) };
            unsafe { _mm256_maskstore_ps(out_t.as_mut_ptr().wrapping_add(at), masks[v], s) };
        }
    }
}

/// `R` rows by 16 columns (two registers); pointers at the tile's first element.
#[target_feature(enable = "avx2,fma")]
#[inline]
#[allow(clippy::too_many_arguments)]
unsafe fn tile_256<const R: usize>(
    out: *mut f32,
    a: *const f32,
    (a_row, a_col): (usize, usize),
    b: *const f32,
    n: usize,
    k: usize,
    bias: Option<*const f32>,
    then: Post,
) {
    let mut acc = [[_mm256_setzero_ps(); 2]; R];
    for p in 0..k {
        // SAFETY (this block and below): within the tile (see `matmul_avx2`).
        let bp = unsafe {
            [
                _mm256_loadu_ps(b.add(p * n)),
                _mm256_loadu_ps(b.add(p * n + 8)),
            ]
        };
        for (r, acc) in acc.iter_mut().enumerate() {
            let x = _mm256_set1_ps(unsafe { *a.add(r * a_row + p * a_col) });
            for (s, &y) in acc.iter_mut().zip(&bp) {
                *s = _mm256_fmadd_ps(x, y, *s);
            }
        }
    }
    for (r, acc) in acc.iter().enumerate() {
        for (v, &s) in acc.iter().enumerate() {
            let s = match bias {
                Some(z) => _mm256_add_ps(s, unsafe { _mm256_loadu_ps(z.add(8 * v)) }),
                None => s,
            };
            let at = r * n + 8 * v;
            let s = unsafe { finish_256(s, then, at, _mm256_set1_epi32(-1)) };
            unsafe { _mm256_storeu_ps(out.add(at), s) };
        }
    }
}
