//! Vector loops of the solver and of batch prediction: `g += a·row` and weighted sums of
//! `f32` kernel rows. Plain loops that the compiler vectorises, compiled a second time
//! with AVX2 enabled and chosen at run time ([`crate::simd`]).

use crate::simd::with_simd;

with_simd! {
    /// `g_t += a_t·da + b_t·db` (the gradient update of one SMO step).
    fn add_two_rows(g: &mut [f64], a: &[f32], da: f64, b: &[f32], db: f64) -> () = add_two_rows_body
}

with_simd! {
    /// `g_t += da·a_t`.
    fn add_row(g: &mut [f64], a: &[f32], da: f64) -> () = add_row_body
}

with_simd! {
    /// `Σ_t row_t w_t`.
    fn weighted_sum(row: &[f32], w: &[f64]) -> f64 = weighted_sum_body
}

with_simd! {
    /// [`weighted_sum`] of four rows with the same `w`, bit for bit, each `w_t` read
    /// once for the four.
    fn weighted_sums4(rows: [&[f32]; 4], w: &[f64]) -> [f64; 4] = weighted_sums4_body
}

#[inline(always)]
fn add_two_rows_body(g: &mut [f64], a: &[f32], da: f64, b: &[f32], db: f64) {
    for ((g, &a), &b) in g.iter_mut().zip(a).zip(b) {
        *g += a as f64 * da + b as f64 * db;
    }
}

#[inline(always)]
fn add_row_body(g: &mut [f64], a: &[f32], da: f64) {
    for (g, &a) in g.iter_mut().zip(a) {
        *g += da * a as f64;
    }
}

/// Eight partial sums, so that the sum vectorises (its order does not matter to the
/// callers: decision values).
#[inline(always)]
fn weighted_sum_body(row: &[f32], w: &[f64]) -> f64 {
    let mut acc = [0.0f64; 8];
    let (rows, ws) = (row.chunks_exact(8), w.chunks_exact(8));
    let (row_tail, w_tail) = (rows.remainder(), ws.remainder());
    for (r, w) in rows.zip(ws) {
        for k in 0..8 {
            acc[k] += r[k] as f64 * w[k];
        }
    }
    let tail: f64 = row_tail
        .iter()
        .zip(w_tail)
        .map(|(&r, w)| r as f64 * w)
        .sum();
    acc.iter().sum::<f64>() + tail
}

/// The sums of [`weighted_sum_body`] for four rows in one pass over `w`.
#[inline(always)]
fn weighted_sums4_body(rows: [&[f32]; 4], w: &[f64]) -> [f64; 4] {
    let n = w.len();
    assert!(
        rows.iter().all(|r| r.len() == n),
        "rows and weights differ in length"
    );
    let body = n - n % 8;
    let mut acc = [[0.0f64; 8]; 4];
    for start in (0..body).step_by(8) {
        let w = &w[start..start + 8];
        for (acc, row) in acc.iter_mut().zip(&rows) {
            let r = &row[start..start + 8];
            for k in 0..8 {
                acc[k] += r[k] as f64 * w[k];
            }
        }
    }
    let mut out = [0.0; 4];
    for ((o, acc), row) in out.iter_mut().zip(&acc).zip(&rows) {
        let tail: f64 = row[body..]
            .iter()
            .zip(&w[body..])
            .map(|(&r, w)| r as f64 * w)
            .sum();
        *o = acc.iter().sum::<f64>() + tail;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four rows at once give each row's `weighted_sum`, bit for bit, at every length
    /// modulo 8.
    #[test]
    fn four_weighted_sums_equal_one_at_a_time() {
        for n in [0, 1, 7, 8, 9, 31, 100, 803] {
            let value = |r: usize, t: usize| ((r * 7919 + t * 104729) % 1000) as f64 / 333.0 - 1.4;
            let rows: Vec<Vec<f32>> = (0..4)
                .map(|r| (0..n).map(|t| value(r, t) as f32).collect())
                .collect();
            let w: Vec<f64> = (0..n)
                .map(|t| value(9, t) * 1e-3 + 1.0 / (t + 1) as f64)
                .collect();
            let four = weighted_sums4([&rows[0], &rows[1], &rows[2], &rows[3]], &w);
            for (r, row) in rows.iter().enumerate() {
                assert_eq!(
                    four[r].to_bits(),
                    weighted_sum(row, &w).to_bits(),
                    "n = {n}, row {r}"
                );
            }
        }
    }
}
