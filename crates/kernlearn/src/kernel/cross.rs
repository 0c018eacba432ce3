//! Kernel values of new points against a stored set (test × training points, or test ×
//! support vectors): the whole cross matrix, or streamed block by block into a
//! per-point reduction so prediction never holds more than a cache-sized block.
//!
//! Dot-product kernels go through matrix products (squared norms, one product per
//! block, then a vectorised elementwise map, as the Gram matrices); the others are
//! evaluated pair by pair.

use super::functions::Kernel;
use super::matrix::{
    clear_avx_upper, clear_avx_upper_everywhere, column, par_for, scaled, sq_norms, DotMap, Route,
};
use crate::data::Features;
use crate::{Error, Result};
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatRef, Par};
use rayon::prelude::*;

/// Kernel values per block of [`Kernel::map_cross`]: about 2 MB of `f64`, so a block's
/// product, its elementwise map and the reduction that reads it stay in cache.
const BLOCK_VALUES: usize = 1 << 18;

impl Kernel {
    /// Cross matrix `K_ij = k(a_i, b_j)` (`a.n_rows() × b.n_rows()`), e.g. test × train,
    /// computed in parallel. `b` is the data the model was fitted on.
    ///
    /// For [`Kernel::Precomputed`] the rows of `a` already are kernel values against the
    /// `b.n_rows()` training points, and are returned as a matrix.
    pub fn cross(&self, a: &Features, b: &Features) -> Result<Mat<f64>> {
        self.check_cross(a, b)?;
        if self.is_precomputed() {
            return Ok(Mat::from_fn(a.n_rows(), a.n_cols(), |i, j| a.row(i)[j]));
        }
        let (na, nb, d) = (a.n_rows(), b.n_rows(), a.n_cols());
        match self.route() {
            Route::Dot { map, scale } => {
                let (da, db) = (scaled(a, &scale), scaled(b, &scale));
                Ok(dot_cross(&da, na, &db, nb, d, map))
            }
            Route::Direct => {
                let mut g = Mat::<f64>::zeros(na, nb);
                g.par_col_iter_mut().enumerate().for_each(|(j, col)| {
                    let col = col.try_as_col_major_mut().unwrap().as_slice_mut();
                    let bj = b.row(j);
                    for (i, v) in col.iter_mut().enumerate() {
                        *v = self.eval(a.row(i), bj);
                    }
                });
                Ok(g)
            }
        }
    }

    /// `per_query(k)` for every row `q` of `queries`, in order, where `k[s] = k(q, base_s)`
    /// for every row `s` of `base`: the rows of the cross matrix [`Kernel::cross`]
    /// handed to a reduction (a decision function `Σ_s c_s k(q, base_s) − ρ`) without
    /// materialising the matrix. Blocks of queries are shared out over the rayon pool;
    /// each computes its `|base| × rows` block with one sequential product into a
    /// buffer reused across blocks, so memory stays at one block per thread and the
    /// values agree with [`Kernel::cross`] to rounding.
    ///
    /// For [`Kernel::Precomputed`] each row of `queries` already holds the kernel values
    /// against the `base.n_rows()` points and is passed as it is.
    pub(crate) fn map_cross<T: Send>(
        &self,
        queries: &Features,
        base: &Features,
        per_query: impl Fn(&[f64]) -> T + Sync,
    ) -> Result<Vec<T>> {
        self.check_cross(queries, base)?;
        if self.is_precomputed() {
            return Ok((0..queries.n_rows())
                .into_par_iter()
                .map(|i| per_query(queries.row(i)))
                .collect());
        }
        let (nq, nb, d) = (queries.n_rows(), base.n_rows(), base.n_cols());
        let rows = (BLOCK_VALUES / nb.max(1)).clamp(4, 512);
        let blocks = (0..nq.div_ceil(rows)).into_par_iter();
        let out: Vec<Vec<T>> = match self.route() {
            Route::Dot { map, scale } => {
                let (q, b) = (scaled(queries, &scale), scaled(base, &scale));
                let (sq_q, sq_b) = (sq_norms(&q, nq, d, map), sq_norms(&b, nb, d, map));
                let b = MatRef::from_row_major_slice(&b, nb, d);
                let out = blocks
                    .map_init(
                        || Mat::<f64>::zeros(nb, rows),
                        |buffer, blk| {
                            let (r0, r1) = (blk * rows, (blk * rows + rows).min(nq));
                            let own = MatRef::from_row_major_slice(&q[r0 * d..r1 * d], r1 - r0, d);
                            let mut k = buffer.as_mut().submatrix_mut(0, 0, nb, r1 - r0);
                            matmul(
                                k.as_mut(),
                                Accum::Replace,
                                b,
                                own.transpose(),
                                1.0,
                                Par::Seq,
                            );
                            clear_avx_upper();
                            (r0..r1)
                                .map(|i| {
                                    let col = column(k.as_mut(), i - r0);
                                    map.map_slice(col, &sq_b, sq_q[i]);
                                    per_query(col)
                                })
                                .collect()
                        },
                    )
                    .collect();
                clear_avx_upper_everywhere();
                out
            }
            Route::Direct => blocks
                .map_init(
                    || vec![0.0; nb],
                    |k, blk| {
                        (blk * rows..(blk * rows + rows).min(nq))
                            .map(|i| {
                                for (s, v) in k.iter_mut().enumerate() {
                                    *v = self.eval(queries.row(i), base.row(s));
                                }
                                per_query(k)
                            })
                            .collect()
                    },
                )
                .collect(),
        };
        Ok(out.into_iter().flatten().collect())
    }

    /// The checks of a cross kernel: shapes (a precomputed kernel's rows have one value
    /// per base point), parameters and data the kernel can read.
    fn check_cross(&self, a: &Features, b: &Features) -> Result<()> {
        if self.is_precomputed() {
            if a.n_cols() != b.n_rows() {
                return Err(Error::data(format!(
                    "precomputed kernel rows must have one value per training point: fitted on {} points, got {}",
                    b.n_rows(),
                    a.n_cols()
                )));
            }
            return Ok(());
        }
        if a.n_cols() != b.n_cols() {
            return Err(Error::data(format!(
                "kernel {self} was fitted on {} features, got {}",
                b.n_cols(),
                a.n_cols()
            )));
        }
        self.validate(b.n_cols())?;
        self.check_data(a, "")?;
        self.check_data(b, "")
    }
}

fn dot_cross(a: &[f64], na: usize, b: &[f64], nb: usize, d: usize, map: DotMap) -> Mat<f64> {
    let am = MatRef::from_row_major_slice(a, na, d);
    let bm = MatRef::from_row_major_slice(b, nb, d);
    let mut g = Mat::<f64>::zeros(na, nb);
    matmul(
        g.as_mut(),
        Accum::Replace,
        am,
        bm.transpose(),
        1.0,
        par_for(na * nb * d),
    );
    clear_avx_upper_everywhere();
    if !matches!(map, DotMap::Linear) {
        let (sa, sb) = (sq_norms(a, na, d, map), sq_norms(b, nb, d, map));
        g.par_col_iter_mut().enumerate().for_each(|(j, col)| {
            let col = col.try_as_col_major_mut().unwrap().as_slice_mut();
            map.map_slice(col, &sa, sb[j]);
        });
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::matrix::tests::{all_kernels, random_features};

    /// Streamed blocks (a base of 3,000 rows makes blocks of 87 queries, so 300 queries
    /// span four blocks and a partial one) equal the pairwise kernel for every kernel.
    #[test]
    fn streamed_cross_equals_pairwise_kernel_across_blocks() {
        let (q, b) = (
            random_features(300, 6, 1, 0.0),
            random_features(3000, 6, 2, 0.0),
        );
        for k in all_kernels(6) {
            let rows = k.map_cross(&q, &b, <[f64]>::to_vec).unwrap();
            let whole = k.cross(&q, &b).unwrap();
            assert_eq!(rows.len(), 300);
            for i in (0..300).step_by(7) {
                for s in (0..3000).step_by(13) {
                    let want = k.eval(q.row(i), b.row(s));
                    let tol = 1e-12 * want.abs().max(1.0);
                    assert!((rows[i][s] - want).abs() <= tol, "{k:?} ({i},{s})");
                    assert!((whole[(i, s)] - want).abs() <= tol, "{k:?} ({i},{s})");
                }
            }
        }
    }

    #[test]
    fn streamed_cross_checks_shapes_and_passes_precomputed_rows() {
        let (q, b) = (random_features(5, 3, 3, 0.0), random_features(4, 3, 4, 0.0));
        let err = Kernel::Rbf { gamma: 1.0 }
            .map_cross(&random_features(5, 2, 3, 0.0), &b, <[f64]>::to_vec)
            .unwrap_err()
            .to_string();
        assert!(err.contains("fitted on 3 features, got 2"), "{err}");
        let gram = random_features(5, 4, 5, 0.0);
        let rows = Kernel::Precomputed
            .map_cross(&gram, &b, <[f64]>::to_vec)
            .unwrap();
        assert_eq!(rows[2], gram.row(2));
        assert!(Kernel::Precomputed
            .map_cross(&q, &b, <[f64]>::to_vec)
            .is_err());
    }
}
