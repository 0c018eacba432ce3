//! Kernel rows of dense features kept in the SMO solver's order, column-major, so that a
//! row is computed for a contiguous range of positions with every lane of the SIMD
//! registers busy.
//!
//! The solver's shrinking permutes the variables (LIBSVM's `swap_index`), after which
//! the active set is a prefix `0..active` of the positions but a scattered set of the
//! original points. Kept in the original order, a row is a gather: one short dot
//! product per column, each ending in a horizontal sum (with `d = 10`, most of a kernel
//! row's time). Kept in the solver's order and transposed (`x_t[k]` for all positions
//! `t` contiguous), a block of columns is `d` multiply-adds of whole vectors: the
//! product of the transposed block with `x_i`, summed over `k` in order, as LIBSVM's
//! `dot` sums.

use super::functions::powi;
use super::matrix::DotMap;
use crate::simd::{exp_to_f32_lanes, with_simd};
use rayon::prelude::*;

/// Columns per block: the block's partial sums (`f64`) stay in L1.
const BLOCK: usize = 256;

/// Per-row work (multiply-adds, an `exp` counted as ~24) above which a row is split over
/// the rayon pool. A row of this layout is fast (about 1 ns an entry on 10 features), so
/// waking the other threads costs more than it saves until rows are long: measured on 2
/// idle cores (C = 4, γ = 0.5), splitting rows of 15,216 (magic) or 46,400
/// (shuttle-binary) entries made fits 20 % slower than one thread.
const PAR_WORK: usize = 4 << 20;

/// Widest feature dimension kept in the solver's order: a swap moves `d` values that lie
/// `n` apart (one cache miss each), which stays cheaper than the row cache's own swap
/// (a value in every cached row) up to about this many features; wider rows vectorise
/// well in their original layout.
const MAX_REORDERED_DIM: usize = 128;

/// Whether a column-major copy of `n` points of dimension `d` is worth holding: `d` at
/// most [`MAX_REORDERED_DIM`], and the copy within an eighth of the available memory
/// (a sparse set of many rows would otherwise be densified past what it fits in; the
/// rows are then computed in their original layout, only slower).
pub(crate) fn copy_fits(n: usize, d: usize) -> bool {
    let bytes = (n as u64).saturating_mul(d as u64).saturating_mul(8);
    d <= MAX_REORDERED_DIM && bytes <= crate::check::available_memory() / 8
}

/// Dense features of a dot-product kernel (RBF, linear, polynomial, sigmoid) stored
/// column-major in the solver's current order of the points, with their squared norms.
#[derive(Clone, Debug)]
pub struct ReorderedRows {
    map: DotMap,
    /// `x_p[k]` of the point at position `p` is `columns[k * n + p]`.
    columns: Vec<f64>,
    sq_norms: Vec<f64>,
    n: usize,
    d: usize,
}

impl ReorderedRows {
    /// The transposed copy of the rows `idx` (in that order) of `data` (row-major, `d`
    /// columns) for the dot-product kernel `map`.
    pub(crate) fn new(map: DotMap, data: &[f64], d: usize, idx: &[usize]) -> Self {
        Self::from_rows(map, d, idx, |p, row| {
            row.copy_from_slice(&data[p * d..(p + 1) * d])
        })
    }

    /// The same from rows written by `write_row(p, row)` (all `d` values of point `p`,
    /// zeros included: a sparse row is scattered). Squared norms are summed in order, as
    /// the dot products.
    pub(crate) fn from_rows(
        map: DotMap,
        d: usize,
        idx: &[usize],
        write_row: impl Fn(usize, &mut [f64]),
    ) -> Self {
        let n = idx.len();
        let mut columns = vec![0.0; n * d];
        let mut sq_norms = Vec::with_capacity(n);
        let mut row = vec![0.0; d];
        for (t, &p) in idx.iter().enumerate() {
            write_row(p, &mut row);
            for (k, &v) in row.iter().enumerate() {
                columns[k * n + t] = v;
            }
            sq_norms.push(row.iter().fold(0.0, |s, v| s + v * v));
        }
        Self {
            map,
            columns,
            sq_norms,
            n,
            d,
        }
    }

    /// Follows the solver's swap of positions `i` and `j`.
    pub(crate) fn swap(&mut self, i: usize, j: usize) {
        if i == j {
            return;
        }
        for column in self.columns.chunks_exact_mut(self.n) {
            column.swap(i, j);
        }
        self.sq_norms.swap(i, j);
    }

    /// `out[t] = k(x_i, x_{start + t})` for the points at positions `i` and
    /// `start..start + out.len()`; long rows are split over the rayon pool.
    pub(crate) fn fill(&self, i: usize, start: usize, out: &mut [f32]) {
        self.fill_split(i, start, out, PAR_WORK);
    }

    /// [`ReorderedRows::fill`], splitting rows of at least `par_work` multiply-adds over
    /// the rayon pool.
    fn fill_split(&self, i: usize, start: usize, out: &mut [f32], par_work: usize) {
        // Only x_i's non-zero features take part: a zero term leaves a sum unchanged
        // (x + 0 = x exactly), so skipping it changes no bit, and one-hot or [0, 1]
        // scaled data skip most of their columns.
        let mut features = [0usize; MAX_REORDERED_DIM];
        let mut values = [0.0f64; MAX_REORDERED_DIM];
        let mut nz = 0;
        for k in 0..self.d {
            let v = self.columns[k * self.n + i];
            if v != 0.0 {
                features[nz] = k;
                values[nz] = v;
                nz += 1;
            }
        }
        let xi = Sparse {
            features: &features[..nz],
            values: &values[..nz],
        };
        let run = |from: usize, o: &mut [f32]| fill_positions(self, xi, i, from, o);
        let threads = rayon::current_num_threads();
        if out.len() * (nz + 24) < par_work || threads < 2 {
            run(start, out);
            return;
        }
        let chunk = out.len().div_ceil(4 * threads).max(4 * BLOCK);
        out.par_chunks_mut(chunk)
            .enumerate()
            .for_each(|(c, o)| run(start + c * chunk, o));
    }
}

with_simd! {
    /// `out[t] = map(x_iᵀx_{start+t}, ‖x_i‖², ‖x_{start+t}‖²)` on the calling thread, in
    /// blocks of [`BLOCK`] positions; `x_i` given by its non-zero features `xi`.
    fn fill_positions(
        rows: &ReorderedRows,
        xi: Sparse,
        i: usize,
        start: usize,
        out: &mut [f32]
    ) -> () = fill_positions_body
}

#[inline(always)]
fn fill_positions_body(rows: &ReorderedRows, xi: Sparse, i: usize, start: usize, out: &mut [f32]) {
    let (columns, n, sq, map) = (&rows.columns[..], rows.n, &rows.sq_norms[..], rows.map);
    let sq_i = sq[i];
    let mut buf = [0.0f64; BLOCK];
    for (b, o) in out.chunks_mut(BLOCK).enumerate() {
        let from = start + b * BLOCK;
        let buf = &mut buf[..o.len()];
        for (t, tile) in buf.chunks_mut(TILE).enumerate() {
            dot_tile(columns, n, xi, from + t * TILE, tile);
        }
        let sq = &sq[from..from + o.len()];
        match map {
            DotMap::Rbf { gamma } => {
                for (s, &sq_t) in buf.iter_mut().zip(sq) {
                    *s = -gamma * (sq_i + sq_t - 2.0 * *s).max(0.0);
                }
                exp_to_f32_lanes(buf, o);
            }
            DotMap::Linear => {
                for (o, &s) in o.iter_mut().zip(buf.iter()) {
                    *o = s as f32;
                }
            }
            DotMap::Poly {
                gamma,
                coef0,
                degree,
            } => {
                for (o, &s) in o.iter_mut().zip(buf.iter()) {
                    *o = powi(gamma * s + coef0, degree) as f32;
                }
            }
            DotMap::Sigmoid { gamma, coef0 } => {
                for (o, &s) in o.iter_mut().zip(buf.iter()) {
                    *o = (gamma * s + coef0).tanh() as f32;
                }
            }
        }
    }
}

/// Positions whose partial sums stay in registers while `k` runs over the features
/// (four AVX-512 or eight AVX2 registers).
const TILE: usize = 32;

/// The non-zero features of one point, in increasing order.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sparse<'a> {
    features: &'a [usize],
    values: &'a [f64],
}

/// `tile[t] = Σ_k xi[k] x_{from+t}[k]` over the non-zero `xi[k]`, summed in order of `k`:
/// a full tile keeps its sums in registers for the whole pass over the features.
#[inline(always)]
fn dot_tile(columns: &[f64], n: usize, xi: Sparse, from: usize, tile: &mut [f64]) {
    let terms = xi.features.iter().zip(xi.values);
    if tile.len() == TILE {
        let mut acc = [0.0f64; TILE];
        for (&k, &x) in terms {
            let column = &columns[k * n + from..k * n + from + TILE];
            for (a, &v) in acc.iter_mut().zip(column) {
                *a += x * v;
            }
        }
        tile.copy_from_slice(&acc);
    } else {
        tile.fill(0.0);
        for (&k, &x) in terms {
            let column = &columns[k * n + from..k * n + from + tile.len()];
            for (a, &v) in tile.iter_mut().zip(column) {
                *a += x * v;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Features, SparseFeatures};
    use crate::kernel::matrix::tests::{all_kernels, random_features};
    use crate::kernel::matrix::Route;
    use crate::kernel::Kernel;
    use crate::kernel::{FeatureKernel, KernelSource, SparseFeatureKernel};

    /// Rows in the solver's order equal the rows of the original order, within the
    /// rounding of a different order of summation, after any sequence of swaps; for
    /// dense features and for the same features in CSR form (a third of them zero).
    #[test]
    fn reordered_rows_follow_swaps() {
        // Several chunks per thread when split; non-negative for chi-squared.
        let (n, d) = (2500, 7);
        let dense = random_features(n, d, 3, 0.0);
        let values = dense
            .as_slice()
            .iter()
            .map(|&v| if v < 0.3 { 0.0 } else { v });
        let dense = Features::new(n, d, values.collect()).unwrap();
        let sparse = SparseFeatures::from_dense(&dense).unwrap();
        for kernel in all_kernels(d) {
            let on_dense = FeatureKernel::new(&kernel, &dense).unwrap();
            let on_sparse = SparseFeatureKernel::new(&kernel, &sparse).unwrap();
            for source in [&on_dense as &dyn KernelSource, &on_sparse] {
                check_against_source(&kernel, source, n, d);
            }
        }
    }

    fn check_against_source(kernel: &Kernel, source: &dyn KernelSource, n: usize, d: usize) {
        let whole: Vec<usize> = (0..n).collect();
        let Some(mut rows) = source.reorderable(&whole) else {
            let dot_product = matches!(kernel.route(), Route::Dot { .. });
            assert!(
                !(dot_product && copy_fits(n, d)),
                "{kernel:?} should be reorderable"
            );
            return;
        };
        let mut index: Vec<usize> = (0..n).collect();
        for s in 0..3000usize {
            let (i, j) = ((s * 7919) % n, (s * 104_729 + 13) % n);
            rows.swap(i, j);
            index.swap(i, j);
        }
        for &(i, start) in &[(0usize, 0usize), (5, 17), (n - 1, 300), (42, n - 3)] {
            let len = n - start;
            let mut got = vec![0f32; len];
            rows.fill(i, start, &mut got);
            // The same row split over the rayon pool: the chunks' offsets must line up.
            let mut split = vec![0f32; len];
            rows.fill_split(i, start, &mut split, 0);
            assert_eq!(got, split, "{kernel:?}: row {i} split over threads");
            let mut want = vec![0f32; len];
            source.fill_row(index[i], &index[start..], &mut want);
            for (t, (g, w)) in got.iter().zip(&want).enumerate() {
                let tol = 1e-6 * w.abs().max(1.0);
                assert!(
                    (g - w).abs() <= tol,
                    "{kernel:?}: row {i}, column {}: {g} vs {w}",
                    start + t
                );
            }
        }
    }
}
