//! Pivoted incomplete Cholesky factorisation (Fine and Scheinberg 2001; Bach and Jordan
//! 2002), as the hyperkernel paper uses it in section 7.1: `P K̲ Pᵀ ≈ G Gᵀ` to a tolerance
//! `δ` on the trace of the residual (which bounds its Frobenius norm), computing only the
//! columns it pivots on.

use super::kernels::Hyperkernel;
use crate::data::Features;
use crate::{Error, Result};
use rayon::prelude::*;

/// `G` (column `k` = `cols[k]`, length `n`), the pivots in order, and the trace of the
/// residual `K − G Gᵀ` when the factorisation stopped.
#[derive(Clone, Debug)]
pub(crate) struct Factor {
    pub cols: Vec<Vec<f64>>,
    pub pivots: Vec<usize>,
    pub residual_trace: f64,
}

impl Factor {
    /// Rank reached.
    pub(crate) fn rank(&self) -> usize {
        self.pivots.len()
    }

    /// The `rank × rank` lower-triangular block of `G` on the pivot rows: `K[P, P] = L Lᵀ`
    /// exactly (row `i`, column `k` at `l[i * rank + k]`).
    pub(crate) fn pivot_block(&self) -> Vec<f64> {
        let r = self.rank();
        let mut l = vec![0.0; r * r];
        for (i, &p) in self.pivots.iter().enumerate() {
            for k in 0..r {
                l[i * r + k] = self.cols[k][p];
            }
        }
        l
    }
}

/// Incomplete Cholesky of an `n × n` PSD matrix given by its diagonal and a column
/// oracle (`column(j, out)` writes column `j`): greedy pivot on the largest residual
/// diagonal until the residual trace is `≤ delta` or `max_rank` columns are taken.
pub(crate) fn incomplete_cholesky(
    diag: Vec<f64>,
    column: impl Fn(usize, &mut [f64]) -> Result<()>,
    delta: f64,
    max_rank: usize,
    mut on_pivot: impl FnMut(usize, f64),
) -> Result<Factor> {
    let n = diag.len();
    if diag.iter().any(|d| !d.is_finite()) {
        return Err(Error::numerical("incomplete Cholesky: non-finite diagonal"));
    }
    let mut d = diag;
    let mut cols: Vec<Vec<f64>> = Vec::new();
    let mut pivots = Vec::new();
    let mut col = vec![0.0; n];
    loop {
        let trace: f64 = d.iter().map(|v| v.max(0.0)).sum();
        if trace <= delta || pivots.len() >= max_rank.min(n) {
            return Ok(Factor {
                cols,
                pivots,
                residual_trace: trace,
            });
        }
        let (j, &dj) = d
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .expect("n > 0 while the trace is positive");
        if dj <= 0.0 {
            return Ok(Factor {
                cols,
                pivots,
                residual_trace: trace,
            });
        }
        column(j, &mut col)?;
        let s = dj.sqrt();
        let prev: Vec<f64> = cols.iter().map(|g| g[j]).collect();
        let g: Vec<f64> = (0..n)
            .into_par_iter()
            .map(|i| {
                let mut v = col[i];
                for (k, gk) in cols.iter().enumerate() {
                    v -= gk[i] * prev[k];
                }
                v / s
            })
            .collect();
        for i in 0..n {
            d[i] -= g[i] * g[i];
        }
        d[j] = 0.0;
        pivots.push(j);
        cols.push(g);
        on_pivot(pivots.len(), trace);
    }
}

/// Unordered training pairs `(i, j)`, `i ≤ j` (a hyperkernel of symmetric base values
/// gives `(i, j)` and `(j, i)` the same section, so only one of them is a candidate), and
/// their pair values.
pub(crate) struct Pairs {
    pub pairs: Vec<(u32, u32)>,
    pub width: usize,
    pub values: Vec<f64>,
}

impl Pairs {
    /// Every pair of rows of `x` with `i ≤ j`, pair values in parallel.
    pub(crate) fn new(h: &Hyperkernel, x: &Features) -> Result<Self> {
        let m = x.n_rows();
        let width = h.pair_len(x.n_cols());
        let pairs: Vec<(u32, u32)> = (0..m as u32)
            .flat_map(|i| (i..m as u32).map(move |j| (i, j)))
            .collect();
        let mut values = vec![0.0; pairs.len() * width];
        values
            .par_chunks_mut(width)
            .zip(pairs.par_iter())
            .try_for_each(|(out, &(i, j))| {
                h.pair_values(x.row(i as usize), x.row(j as usize), out)
            })?;
        Ok(Self {
            pairs,
            width,
            values,
        })
    }

    pub(crate) fn len(&self) -> usize {
        self.pairs.len()
    }

    pub(crate) fn value(&self, a: usize) -> &[f64] {
        &self.values[a * self.width..(a + 1) * self.width]
    }

    /// Column `a` of the hyperkernel matrix over the pairs.
    pub(crate) fn column(&self, h: &Hyperkernel, a: usize, out: &mut [f64]) -> Result<()> {
        let pa = self.value(a);
        out.par_iter_mut().enumerate().try_for_each(|(b, o)| {
            *o = h.combine(pa, self.value(b))?;
            Ok(())
        })
    }

    /// The diagonal `k̲(x̲_a, x̲_a)`.
    pub(crate) fn diagonal(&self, h: &Hyperkernel) -> Result<Vec<f64>> {
        (0..self.len())
            .into_par_iter()
            .map(|a| h.combine(self.value(a), self.value(a)))
            .collect()
    }
}

/// Low-rank hyperkernel matrix over the training pairs (section 7.1).
pub(crate) fn factor_pairs(
    h: &Hyperkernel,
    pairs: &Pairs,
    delta: f64,
    max_rank: usize,
    on_pivot: impl FnMut(usize, f64),
) -> Result<Factor> {
    let diag = pairs.diagonal(h)?;
    incomplete_cholesky(
        diag,
        |a, out| pairs.column(h, a, out),
        delta,
        max_rank,
        on_pivot,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::synthetic::generate;

    #[test]
    fn reconstructs_the_full_hyperkernel_matrix_to_delta() {
        let data = generate("sandwich", 12, 3).unwrap();
        let x = data.x;
        let h = Hyperkernel::ard(0.6, vec![1.5; x.n_cols()]).unwrap();
        let pairs = Pairs::new(&h, &x).unwrap();
        assert_eq!(pairs.len(), 12 * 13 / 2);
        let n = pairs.len();
        // Brute force: every entry from the four points.
        let mut full = vec![0.0; n * n];
        for a in 0..n {
            for b in 0..n {
                let (i, j) = pairs.pairs[a];
                let (p, q) = pairs.pairs[b];
                full[a * n + b] = h
                    .eval(
                        x.row(i as usize),
                        x.row(j as usize),
                        x.row(p as usize),
                        x.row(q as usize),
                    )
                    .unwrap();
            }
        }
        for delta in [1e-2, 1e-6] {
            let mut calls = 0;
            let f = factor_pairs(&h, &pairs, delta, n, |_, _| calls += 1).unwrap();
            assert_eq!(calls, f.rank());
            assert!(f.residual_trace <= delta);
            assert!(f.rank() < n, "rank {} of {n}", f.rank());
            let mut fro = 0.0;
            for a in 0..n {
                for b in 0..n {
                    let g: f64 = f.cols.iter().map(|c| c[a] * c[b]).sum();
                    fro += (full[a * n + b] - g).powi(2);
                }
            }
            assert!(
                fro.sqrt() <= delta,
                "‖K − GGᵀ‖_F = {} > δ = {delta}",
                fro.sqrt()
            );
            // The pivot block is exact.
            let r = f.rank();
            let l = f.pivot_block();
            for (s, &a) in f.pivots.iter().enumerate() {
                for (t, &b) in f.pivots.iter().enumerate() {
                    let g: f64 = (0..r).map(|k| l[s * r + k] * l[t * r + k]).sum();
                    assert!((g - full[a * n + b]).abs() < 1e-10);
                }
            }
        }
        // The rank cap is honoured.
        let f = factor_pairs(&h, &pairs, 0.0, 5, |_, _| {}).unwrap();
        assert_eq!(f.rank(), 5);
    }
}
