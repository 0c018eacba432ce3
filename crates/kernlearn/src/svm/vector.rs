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
