//! Column sums of a batch's rows: the bias gradients.

use super::dispatch::kernel;

/// `sums[j] = Σ_b rows[b][j]`, rows in order: a bias gradient.
pub(crate) fn column_sums(sums: &mut [f32], rows: &[f32]) {
    sums.fill(0.0);
    add_column_sums(sums, rows);
}

kernel! {
    /// `sums[j] += Σ_b rows[b][j]`, rows in order: a bias gradient accumulated. Columns
    /// are summed 64, then 16, at a time in registers, stored once, instead of loading and
    /// storing every sum at every row.
    pub(crate) fn add_column_sums(sums: &mut [f32], rows: &[f32]) {
        let width = sums.len();
        if width == 0 {
            return;
        }
        let mut c = 0;
        while c + 64 <= width {
            column_block::<64>(&mut sums[c..c + 64], rows, width, c);
            c += 64;
        }
        while c + 16 <= width {
            column_block::<16>(&mut sums[c..c + 16], rows, width, c);
            c += 16;
        }
        for row in rows.chunks_exact(width) {
            for (s, &x) in sums[c..].iter_mut().zip(&row[c..]) {
                *s += x;
            }
        }
    }
}

/// Columns `c..c + N` of [`add_column_sums`], the `N` sums held in registers.
#[inline(always)]
fn column_block<const N: usize>(sums: &mut [f32], rows: &[f32], width: usize, c: usize) {
    let mut acc: [f32; N] = sums.try_into().expect("N sums");
    for row in rows.chunks_exact(width) {
        let row: &[f32; N] = row[c..c + N].try_into().expect("N columns");
        for (a, &x) in acc.iter_mut().zip(row) {
            *a += x;
        }
    }
    sums.copy_from_slice(&acc);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Column sums in registers add each column's rows in order, as a running sum stored
    /// at every row does, bit for bit, for widths of whole blocks and with tails.
    #[test]
    fn column_sums_add_rows_in_order() {
        for width in [0, 3, 16, 20, 64, 80, 100] {
            let rows = 37;
            let data: Vec<f32> = (0..rows * width)
                .map(|i| ((i * 7919) % 1013) as f32 * 1e-3 - 0.4)
                .collect();
            let start: Vec<f32> = (0..width).map(|j| j as f32 * 0.1).collect();
            let mut sums = start.clone();
            add_column_sums(&mut sums, &data);
            let mut plain = start;
            for row in data
                .chunks_exact(width.max(1))
                .take(if width == 0 { 0 } else { rows })
            {
                for (s, &x) in plain.iter_mut().zip(row) {
                    *s += x;
                }
            }
            assert_eq!(sums, plain, "width {width}");
        }
    }
}
