//! Kernels on sparse (CSR) features: [`SparseFeatureKernel`] for the SMO solver and the
//! cross kernel of prediction.
//!
//! Dot-product kernels (linear, polynomial, sigmoid, RBF, ARD) scatter the row's
//! non-zeros into a dense per-thread buffer once and gather each column's non-zeros
//! against it (`O(nnz_j)` per entry, no branches) when the data has at most
//! [`MAX_SCATTER_COLS`] columns; wider data (a hashed or sparse index up to 2³²) merges
//! the two sorted index lists instead, so that memory stays proportional to the
//! non-zeros. Both sum the same products in the same order: their results are equal
//! bit for bit. RBF uses precomputed squared norms,
//! `‖x_i − x_j‖² = ‖x_i‖² + ‖x_j‖² − 2 x_iᵀx_j` (LIBSVM's formula, clamped at 0). The
//! Laplacian and χ² kernels need every coordinate where either point is non-zero: they
//! merge the two sorted index lists.

use super::functions::powi;
use super::matrix::{DotMap, Route};
use super::reordered::copy_fits;
use super::source::{fill_row_chunked, PAR_WORK};
use super::{Kernel, KernelSource, ReorderedRows};
use crate::data::SparseFeatures;
use crate::simd::exp_to_f32;
use crate::{Error, Result};
use rayon::prelude::*;
use std::borrow::Cow;
use std::cell::RefCell;

#[derive(Clone, Copy, Debug)]
enum SparseKind {
    Dot(DotMap),
    Laplacian(f64),
    Chi2(f64),
}

/// Widest data whose rows are scattered into a dense buffer (8 MiB of `f64` per
/// thread); wider data takes the merge of the sorted index lists, with no buffer.
const MAX_SCATTER_COLS: usize = 1 << 20;

thread_local! {
    /// Dense scatter buffer of one sparse row, all zeros between uses.
    static SCATTER: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with row `(cols, vals)` scattered into a zeroed buffer of `d` values, and
/// zeroes the touched entries again afterwards.
fn with_scattered<R>(d: usize, cols: &[u32], vals: &[f64], f: impl FnOnce(&[f64]) -> R) -> R {
    SCATTER.with(|cell| {
        let mut buf = cell.borrow_mut();
        if buf.len() < d {
            buf.resize(d, 0.0);
        }
        for (&j, &v) in cols.iter().zip(vals) {
            buf[j as usize] = v;
        }
        let r = f(&buf);
        for &j in cols {
            buf[j as usize] = 0.0;
        }
        r
    })
}

/// `Σ_k at(c_k)·v_k` over one sparse row's entries `(c_k, v_k)`, with `at` called once
/// per entry in increasing column order: one summation order for the scattered and the
/// merged dot products, so that both give the same bits.
#[inline(always)]
fn gather_dot_by(cols: &[u32], vals: &[f64], mut at: impl FnMut(u32) -> f64) -> f64 {
    let mut acc = [0.0f64; 4];
    let (cc, vc) = (cols.chunks_exact(4), vals.chunks_exact(4));
    let (ct, vt) = (cc.remainder(), vc.remainder());
    for (c, v) in cc.zip(vc) {
        for k in 0..4 {
            acc[k] += at(c[k]) * v[k];
        }
    }
    let tail: f64 = ct.iter().zip(vt).map(|(&c, &v)| at(c) * v).sum();
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
}

/// `Σ_k dense[c_k]·v_k` over one sparse row's entries.
#[inline]
fn gather_dot(dense: &[f64], cols: &[u32], vals: &[f64]) -> f64 {
    gather_dot_by(cols, vals, |c| dense[c as usize])
}

/// The dot product of sparse rows `xi` and `(cols, vals)` by merging their sorted index
/// lists (`O(nnz_i + nnz_j)`, no buffer): the products and their order are those of
/// [`gather_dot`] on `xi` scattered, absent entries reading 0.
#[inline]
fn merge_dot(xi: (&[u32], &[f64]), cols: &[u32], vals: &[f64]) -> f64 {
    let (ic, iv) = xi;
    let mut p = 0;
    gather_dot_by(cols, vals, |c| {
        while p < ic.len() && ic[p] < c {
            p += 1;
        }
        if p < ic.len() && ic[p] == c {
            iv[p]
        } else {
            0.0
        }
    })
}

/// `Σ_k g(a_k, b_k)` over the union of the two rows' columns (absent entries are 0), in
/// column order with one accumulator (each row's tail past the other's last column
/// summed on its own, as LIBSVM's `k_function` sums it).
#[inline]
pub(crate) fn merge_sum(
    a: (&[u32], &[f64]),
    b: (&[u32], &[f64]),
    g: impl Fn(f64, f64) -> f64,
) -> f64 {
    let (ac, av) = a;
    let (bc, bv) = b;
    let (mut p, mut q, mut s) = (0, 0, 0.0);
    while p < ac.len() && q < bc.len() {
        match ac[p].cmp(&bc[q]) {
            std::cmp::Ordering::Equal => {
                s += g(av[p], bv[q]);
                p += 1;
                q += 1;
            }
            std::cmp::Ordering::Less => {
                s += g(av[p], 0.0);
                p += 1;
            }
            std::cmp::Ordering::Greater => {
                s += g(0.0, bv[q]);
                q += 1;
            }
        }
    }
    s += av[p..].iter().map(|&x| g(x, 0.0)).sum::<f64>();
    s + bv[q..].iter().map(|&y| g(0.0, y)).sum::<f64>()
}

fn l1_term(x: f64, y: f64) -> f64 {
    (x - y).abs()
}

fn chi2_term(x: f64, y: f64) -> f64 {
    let s = x + y;
    if s == 0.0 {
        0.0
    } else {
        (x - y) * (x - y) / s
    }
}

/// The kernel's computation on sparse rows, and the rows it reads (ARD: rescaled).
#[derive(Clone, Debug)]
struct Prepared<'a> {
    kind: SparseKind,
    x: Cow<'a, SparseFeatures>,
    sq_norms: Vec<f64>,
}

impl<'a> Prepared<'a> {
    fn new(kernel: &Kernel, x: &'a SparseFeatures, what: &str) -> Result<Self> {
        if kernel.is_precomputed() {
            return Err(Error::param(
                "kernel",
                "a precomputed kernel reads a Gram matrix, not sparse features: pass the \
                 kernel matrix as dense input",
            ));
        }
        kernel.validate(x.n_cols())?;
        let (kind, x) = match (kernel.route(), kernel) {
            (Route::Dot { map, scale: None }, _) => (SparseKind::Dot(map), Cow::Borrowed(x)),
            (
                Route::Dot {
                    map,
                    scale: Some(s),
                },
                _,
            ) => (
                SparseKind::Dot(map),
                Cow::Owned(x.map_values(|j, v| v * s[j])),
            ),
            (Route::Direct, Kernel::Laplacian { gamma }) => {
                (SparseKind::Laplacian(*gamma), Cow::Borrowed(x))
            }
            (Route::Direct, Kernel::ChiSquared { gamma }) => {
                x.check_non_negative(what)?;
                (SparseKind::Chi2(*gamma), Cow::Borrowed(x))
            }
            (Route::Direct, _) => unreachable!("every feature kernel has a sparse kind"),
        };
        let sq_norms = (0..x.n_rows())
            .into_par_iter()
            .with_min_len(1024)
            .map(|i| x.row(i).1.iter().map(|v| v * v).sum())
            .collect();
        Ok(Self { kind, x, sq_norms })
    }

    /// Kernel arguments (before `exp`, the power or `tanh`) of `xi` against rows `cols`
    /// of `other` (with squared norms `other_sq`), written to `out`.
    fn arguments(
        &self,
        xi: (&[u32], &[f64]),
        sq_i: f64,
        other: &SparseFeatures,
        other_sq: &[f64],
        cols: &[usize],
        out: &mut [f64],
    ) {
        match self.kind {
            SparseKind::Dot(map) => {
                let arg = |dot: f64, c: usize| match map {
                    DotMap::Rbf { gamma } => -gamma * (sq_i + other_sq[c] - 2.0 * dot).max(0.0),
                    DotMap::Linear => dot,
                    DotMap::Poly { gamma, coef0, .. } | DotMap::Sigmoid { gamma, coef0 } => {
                        gamma * dot + coef0
                    }
                };
                if other.n_cols() <= MAX_SCATTER_COLS {
                    with_scattered(other.n_cols(), xi.0, xi.1, |dense| {
                        for (o, &c) in out.iter_mut().zip(cols) {
                            let (cc, cv) = other.row(c);
                            *o = arg(gather_dot(dense, cc, cv), c);
                        }
                    })
                } else {
                    for (o, &c) in out.iter_mut().zip(cols) {
                        let (cc, cv) = other.row(c);
                        *o = arg(merge_dot(xi, cc, cv), c);
                    }
                }
            }
            SparseKind::Laplacian(gamma) => {
                for (o, &c) in out.iter_mut().zip(cols) {
                    *o = -gamma * merge_sum(xi, other.row(c), l1_term);
                }
            }
            SparseKind::Chi2(gamma) => {
                for (o, &c) in out.iter_mut().zip(cols) {
                    *o = -gamma * merge_sum(xi, other.row(c), chi2_term);
                }
            }
        }
    }

    /// `true` when the outer function is `exp` (RBF, ARD, Laplacian, χ²).
    fn is_exp(&self) -> bool {
        !matches!(
            self.kind,
            SparseKind::Dot(DotMap::Linear | DotMap::Poly { .. } | DotMap::Sigmoid { .. })
        )
    }

    /// The outer function applied to one argument (not for the `exp` kernels' rows,
    /// which go through the vectorised `exp`).
    fn outer(&self, a: f64) -> f64 {
        match self.kind {
            SparseKind::Dot(DotMap::Linear) => a,
            SparseKind::Dot(DotMap::Poly { degree, .. }) => powi(a, degree),
            SparseKind::Dot(DotMap::Sigmoid { .. }) => a.tanh(),
            _ => a.exp(),
        }
    }
}

/// Kernel rows on sparse training features for the SMO solver (the sparse counterpart
/// of [`super::FeatureKernel`]); see the module documentation for the method.
#[derive(Clone, Debug)]
pub struct SparseFeatureKernel<'a> {
    prep: Prepared<'a>,
    diag: Vec<f64>,
}

/// The rows of `x` with its used columns renumbered `0..k` in increasing order, when
/// that narrows it at least fourfold past 4,096 columns (hashed text, a LIBSVM index up
/// to 10⁶ or 2³²): the scatter buffer of a row then takes `k` values per thread, not
/// `x.n_cols()`, and wide data needs no merge. The renumbering keeps the columns' order,
/// so every sum runs in the same order and kernel values keep their bits; only kernel
/// rows of `x` against itself read the renumbered columns.
fn compacted_columns(x: &SparseFeatures) -> Option<SparseFeatures> {
    let (indptr, indices, values) = x.parts();
    if x.n_cols() <= 4096 || indices.len().saturating_mul(4) > x.n_cols() {
        return None; // at most as many used columns as non-zeros
    }
    // The used columns, sorted: memory in proportion to the non-zeros, not the width
    // (an index of 2³² must not cost a table per column).
    let mut used = indices.to_vec();
    used.sort_unstable();
    used.dedup();
    if used.len().saturating_mul(4) > x.n_cols() {
        return None;
    }
    let renumbered = indices
        .iter()
        .map(|j| used.binary_search(j).map_or(0, |r| r as u32))
        .collect();
    SparseFeatures::new(
        x.n_rows(),
        used.len(),
        indptr.to_vec(),
        renumbered,
        values.to_vec(),
    )
    .ok()
}

/// Columns per block in `fill_row` (a stack buffer of this many `f64`).
const BLOCK: usize = 256;

impl<'a> SparseFeatureKernel<'a> {
    /// Prepares `kernel` on the sparse training samples `x` (borrowed). Fails for invalid
    /// parameters, ARD length ≠ `x.n_cols()`, negative data with χ², and `Precomputed`.
    pub fn new(kernel: &Kernel, x: &'a SparseFeatures) -> Result<Self> {
        let mut prep = Prepared::new(kernel, x, "training")?;
        if let Some(compact) = compacted_columns(&prep.x) {
            prep.x = Cow::Owned(compact);
        }
        let diag = match prep.kind {
            SparseKind::Dot(map) => prep.sq_norms.iter().map(|&s| map.apply(s, s, s)).collect(),
            SparseKind::Laplacian(_) | SparseKind::Chi2(_) => vec![1.0; x.n_rows()],
        };
        Ok(Self { prep, diag })
    }

    /// Like [`SparseFeatureKernel::new`], owning the features.
    pub(crate) fn owned(
        kernel: &Kernel,
        x: SparseFeatures,
    ) -> Result<SparseFeatureKernel<'static>> {
        let SparseFeatureKernel {
            prep:
                Prepared {
                    kind,
                    x: rows,
                    sq_norms,
                },
            diag,
        } = SparseFeatureKernel::new(kernel, &x)?;
        // Rows the kernel did not rewrite (scaled, renumbered) are `x` itself: moved in,
        // not copied.
        let rows = match rows {
            Cow::Owned(rows) => rows,
            Cow::Borrowed(_) => x,
        };
        Ok(SparseFeatureKernel {
            prep: Prepared {
                kind,
                x: Cow::Owned(rows),
                sq_norms,
            },
            diag,
        })
    }

    fn fill_seq(&self, i: usize, cols: &[usize], out: &mut [f32]) {
        let x: &SparseFeatures = &self.prep.x;
        let sq = &self.prep.sq_norms;
        let xi = x.row(i);
        let mut buf = [0.0f64; BLOCK];
        for (o, cs) in out.chunks_mut(BLOCK).zip(cols.chunks(BLOCK)) {
            let buf = &mut buf[..cs.len()];
            self.prep.arguments(xi, sq[i], x, sq, cs, buf);
            if self.prep.is_exp() {
                exp_to_f32(buf, o);
            } else {
                for (o, &b) in o.iter_mut().zip(buf.iter()) {
                    *o = self.prep.outer(b) as f32;
                }
            }
        }
    }
}

impl KernelSource for SparseFeatureKernel<'_> {
    fn len(&self) -> usize {
        self.prep.x.n_rows()
    }

    fn diag(&self, i: usize) -> f64 {
        self.diag[i]
    }

    fn fill_row(&self, i: usize, cols: &[usize], out: &mut [f32]) {
        let x: &SparseFeatures = &self.prep.x;
        let avg = x.nnz() / x.n_rows().max(1);
        let work = cols.len() * (avg + 24);
        fill_row_chunked(
            work >= PAR_WORK,
            1024,
            cols,
            out,
            || (),
            |_, c, o| self.fill_seq(i, c, o),
        );
    }

    fn gather(&self, idx: &[usize]) -> Option<Box<dyn KernelSource>> {
        let x = self.prep.x.select_rows(idx);
        Some(Box::new(SparseFeatureKernel {
            prep: Prepared {
                kind: self.prep.kind,
                x: Cow::Owned(x),
                sq_norms: idx.iter().map(|&p| self.prep.sq_norms[p]).collect(),
            },
            diag: idx.iter().map(|&p| self.diag[p]).collect(),
        }))
    }

    /// Densified, when the rows are short enough and the copy fits (`copy_fits`): a dense
    /// column-major row of at most that many values costs little next to a cache row,
    /// and the products run in wide registers instead of one gather per non-zero.
    fn reorderable(&self, idx: &[usize]) -> Option<ReorderedRows> {
        let x: &SparseFeatures = &self.prep.x;
        match self.prep.kind {
            SparseKind::Dot(map) if copy_fits(idx.len(), x.n_cols()) => {
                Some(ReorderedRows::from_rows(map, x.n_cols(), idx, |p, row| {
                    row.fill(0.0);
                    let (cols, vals) = x.row(p);
                    for (&j, &v) in cols.iter().zip(vals) {
                        row[j as usize] = v;
                    }
                }))
            }
            _ => None,
        }
    }
}

/// Kernel values of every row of `q` against every row of `sv`, in `f64`: row `t` of
/// the answer is `k(q_t, sv_s)` for all `s`.
#[cfg(test)]
pub(crate) fn sparse_cross(
    kernel: &Kernel,
    sv: &SparseFeatures,
    q: &SparseFeatures,
) -> Result<Vec<Vec<f64>>> {
    sparse_map_cross(kernel, sv, q, <[f64]>::to_vec)
}

/// Queries per parallel task of [`sparse_map_cross`].
const QUERY_BLOCK: usize = 64;

/// `per_query(k)` for every row of `q`, in order, with `k[s] = k(q_t, sv_s)` for every
/// row `s` of `sv`: the sparse counterpart of `Kernel::map_cross` (prediction's cross
/// kernel reduced to decision values as it is computed, one buffer per thread).
///
/// Dot-product kernels accumulate `q_tᵀsv_s` through an inverted index of `sv` (for
/// each non-zero of the query, the rows of `sv` non-zero in that column), so a query
/// costs the products it shares with `sv` rather than all of `sv`'s non-zeros, then
/// map the dot products to kernel values with the dense path's vectorised map. The
/// Laplacian and χ² kernels merge each pair of rows.
pub(crate) fn sparse_map_cross<T: Send>(
    kernel: &Kernel,
    sv: &SparseFeatures,
    q: &SparseFeatures,
    per_query: impl Fn(&[f64]) -> T + Sync,
) -> Result<Vec<T>> {
    if sv.n_cols() != q.n_cols() {
        return Err(Error::data(format!(
            "the support vectors have {} features, the input has {}",
            sv.n_cols(),
            q.n_cols()
        )));
    }
    let prep_sv = Prepared::new(kernel, sv, "support-vector")?;
    let prep_q = Prepared::new(kernel, q, "input")?;
    let (nq, ns) = (q.n_rows(), sv.n_rows());
    let index = matches!(prep_sv.kind, SparseKind::Dot(_)).then(|| ColumnIndex::new(&prep_sv.x));
    let all: Vec<usize> = (0..ns).collect();
    let out: Vec<Vec<T>> = (0..nq.div_ceil(QUERY_BLOCK))
        .into_par_iter()
        .map_init(
            || vec![0.0; ns],
            |k, blk| {
                (blk * QUERY_BLOCK..(blk * QUERY_BLOCK + QUERY_BLOCK).min(nq))
                    .map(|t| {
                        let row = prep_q.x.row(t);
                        match (&index, prep_sv.kind) {
                            (Some(index), SparseKind::Dot(map)) => {
                                index.dots(row, k);
                                map.map_slice(k, &prep_sv.sq_norms, prep_q.sq_norms[t]);
                            }
                            _ => {
                                let (x, sq) = (&prep_sv.x, &prep_sv.sq_norms);
                                prep_q.arguments(row, prep_q.sq_norms[t], x, sq, &all, k);
                                crate::simd::exp_in_place(k);
                            }
                        }
                        per_query(k)
                    })
                    .collect()
            },
        )
        .collect();
    Ok(out.into_iter().flatten().collect())
}

/// The non-zeros of a CSR matrix grouped by column: for each column that has any, the
/// rows and values in increasing row order (an inverted index; only the columns that
/// occur are stored, so hashed indices up to 2³² cost nothing).
struct ColumnIndex {
    /// Distinct columns in increasing order.
    cols: Vec<u32>,
    /// Entries of `cols[c]` are `rows[start[c]..start[c + 1]]` (and `vals`).
    start: Vec<usize>,
    rows: Vec<u32>,
    vals: Vec<f64>,
}

impl ColumnIndex {
    fn new(x: &SparseFeatures) -> Self {
        let (indptr, indices, values) = x.parts();
        let mut entries: Vec<(u32, u32, f64)> = (0..x.n_rows())
            .flat_map(|i| {
                (indptr[i]..indptr[i + 1]).map(move |e| (indices[e], i as u32, values[e]))
            })
            .collect();
        entries.sort_by_key(|&(c, r, _)| (c, r));
        let mut index = Self {
            cols: Vec::new(),
            start: Vec::new(),
            rows: Vec::with_capacity(entries.len()),
            vals: Vec::with_capacity(entries.len()),
        };
        for (e, &(c, r, v)) in entries.iter().enumerate() {
            if index.cols.last() != Some(&c) {
                index.cols.push(c);
                index.start.push(e);
            }
            index.rows.push(r);
            index.vals.push(v);
        }
        index.start.push(entries.len());
        index
    }

    /// `out[s] = rowᵀ x_s` for every indexed row `s`.
    fn dots(&self, row: (&[u32], &[f64]), out: &mut [f64]) {
        out.fill(0.0);
        let mut from = 0;
        for (&c, &v) in row.0.iter().zip(row.1) {
            // The query's columns increase, so each search starts where the last ended.
            match self.cols[from..].binary_search(&c) {
                Ok(p) => {
                    let p = from + p;
                    let range = self.start[p]..self.start[p + 1];
                    for (&r, &w) in self.rows[range.clone()].iter().zip(&self.vals[range]) {
                        out[r as usize] += v * w;
                    }
                    from = p + 1;
                }
                Err(p) => from += p,
            }
            if from == self.cols.len() {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Features;
    use crate::kernel::FeatureKernel;

    fn data() -> Features {
        Features::new(
            4,
            5,
            vec![
                0.0, 1.5, 0.0, 0.0, 2.0, //
                0.3, 0.0, 0.0, 0.0, 0.0, //
                0.0, 0.0, 0.0, 0.0, 0.0, //
                1.0, 0.5, 0.25, 0.0, 0.7,
            ],
        )
        .unwrap()
    }

    /// Every feature kernel, ARD with the per-feature widths `ard`.
    fn kernels(ard: Vec<f64>) -> Vec<Kernel> {
        vec![
            Kernel::Linear,
            Kernel::Rbf { gamma: 0.7 },
            Kernel::Polynomial {
                gamma: 0.5,
                coef0: 1.0,
                degree: 3,
            },
            Kernel::Sigmoid {
                gamma: 0.1,
                coef0: -0.2,
            },
            Kernel::Laplacian { gamma: 0.4 },
            Kernel::ChiSquared { gamma: 0.9 },
            Kernel::ArdRbf { gammas: ard },
        ]
    }

    /// `s` with column `j` moved to `j · stride`, wider than [`MAX_SCATTER_COLS`].
    fn spread(s: &SparseFeatures, stride: u32) -> SparseFeatures {
        let (indptr, indices, values) = s.parts();
        SparseFeatures::new(
            s.n_rows(),
            s.n_cols() * stride as usize,
            indptr.to_vec(),
            indices.iter().map(|&j| j * stride).collect(),
            values.to_vec(),
        )
        .unwrap()
    }

    #[test]
    fn wide_rows_merge_without_a_buffer_and_equal_scattered_rows_bit_for_bit() {
        let narrow = SparseFeatures::from_dense(&data()).unwrap();
        let stride = 300_000;
        let wide = spread(&narrow, stride);
        assert!(wide.n_cols() > MAX_SCATTER_COLS);
        let cols: Vec<usize> = vec![3, 0, 2, 1, 0];
        let ard = vec![0.1, 0.2, 0.3, 0.4, 0.5];
        // ARD's widths sit at the spread columns: the same kernel on the same values.
        let mut wide_ard = vec![1.0; wide.n_cols()];
        for (j, &g) in ard.iter().enumerate() {
            wide_ard[j * stride as usize] = g;
        }
        for (kn, kw) in kernels(ard).iter().zip(&kernels(wide_ard)) {
            let a = SparseFeatureKernel::new(kn, &narrow).unwrap();
            let b = SparseFeatureKernel::new(kw, &wide).unwrap();
            // The training kernel renumbers the used columns (at most five of 1.5 million); the
            // same rows without that, merged, give the same bits.
            assert!(b.prep.x.n_cols() <= 5);
            let merged = SparseFeatureKernel {
                prep: Prepared::new(kw, &wide, "training").unwrap(),
                diag: b.diag.clone(),
            };
            for i in 0..4 {
                assert_eq!(a.diag(i).to_bits(), b.diag(i).to_bits(), "{kn:?}");
                let (mut ra, mut rb, mut rm) = (vec![0.0f32; 5], vec![0.0f32; 5], vec![0.0f32; 5]);
                a.fill_row(i, &cols, &mut ra);
                b.fill_row(i, &cols, &mut rb);
                merged.fill_row(i, &cols, &mut rm);
                assert_eq!(ra, rb, "{kn:?} row {i}");
                assert_eq!(ra, rm, "{kn:?} row {i}, merged");
            }
            let q = [1usize, 3, 0];
            let ca = sparse_cross(kn, &narrow, &narrow.select_rows(&q)).unwrap();
            let cb = sparse_cross(kw, &wide, &wide.select_rows(&q)).unwrap();
            assert_eq!(ca, cb, "{kn:?}");
        }
        // The rows of the wide data were merged, not scattered into a buffer its width.
        let scattered = SCATTER.with(|c| c.borrow().len());
        assert!(
            scattered <= MAX_SCATTER_COLS,
            "a buffer of {scattered} values"
        );
    }

    #[test]
    fn sparse_rows_equal_dense_rows_for_every_kernel() {
        let x = data();
        let s = SparseFeatures::from_dense(&x).unwrap();
        let kernels = kernels(vec![0.1, 0.2, 0.3, 0.4, 0.5]);
        let cols: Vec<usize> = vec![3, 0, 2, 1, 0];
        for k in &kernels {
            let dense = FeatureKernel::new(k, &x).unwrap();
            let sparse = SparseFeatureKernel::new(k, &s).unwrap();
            for i in 0..4 {
                assert!((dense.diag(i) - sparse.diag(i)).abs() < 1e-12, "{k:?}");
                let (mut a, mut b) = (vec![0.0f32; 5], vec![0.0f32; 5]);
                dense.fill_row(i, &cols, &mut a);
                sparse.fill_row(i, &cols, &mut b);
                for (u, v) in a.iter().zip(&b) {
                    assert!(
                        (u - v).abs() <= 1e-6 * u.abs().max(1.0),
                        "{k:?} row {i}: {a:?} {b:?}"
                    );
                }
            }
            let cross = sparse_cross(k, &s, &s.select_rows(&[1, 3])).unwrap();
            for (t, &q) in [1usize, 3].iter().enumerate() {
                for p in 0..4 {
                    let want = k.eval(x.row(q), x.row(p));
                    assert!(
                        (cross[t][p] - want).abs() < 1e-12,
                        "{k:?}: {} vs {want}",
                        cross[t][p]
                    );
                }
            }
        }
        assert!(SparseFeatureKernel::new(&Kernel::Precomputed, &s).is_err());
        let neg =
            SparseFeatures::from_dense(&Features::new(1, 2, vec![0.0, -1.0]).unwrap()).unwrap();
        let err = SparseFeatureKernel::new(&Kernel::ChiSquared { gamma: 1.0 }, &neg)
            .unwrap_err()
            .to_string();
        assert!(err.contains("non-negative"), "{err}");
    }

    /// Prediction's cross kernel through the inverted index (three blocks of queries,
    /// narrow and wider than the scatter buffer) equals the dense pairwise kernel.
    #[test]
    fn streamed_sparse_cross_equals_dense_kernel_across_blocks() {
        let rows = |n: usize, shift: usize| -> Features {
            let data = (0..n * 7)
                .map(|t| {
                    let v = ((t * 7919 + shift) % 101) as f64 / 101.0;
                    if v < 0.5 {
                        0.0
                    } else {
                        v
                    }
                })
                .collect();
            Features::new(n, 7, data).unwrap()
        };
        let (sv, q) = (rows(200, 0), rows(150, 37));
        let (s_sv, s_q) = (
            SparseFeatures::from_dense(&sv).unwrap(),
            SparseFeatures::from_dense(&q).unwrap(),
        );
        let ard = vec![0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7];
        for k in kernels(ard) {
            let got = sparse_cross(&k, &s_sv, &s_q).unwrap();
            for t in 0..150 {
                for s in 0..200 {
                    let want = k.eval(q.row(t), sv.row(s));
                    assert!(
                        (got[t][s] - want).abs() <= 1e-12 * want.abs().max(1.0),
                        "{k:?}"
                    );
                }
            }
        }
        let wide = sparse_cross(
            &Kernel::Rbf { gamma: 0.7 },
            &spread(&s_sv, 300_000),
            &spread(&s_q, 300_000),
        );
        let narrow = sparse_cross(&Kernel::Rbf { gamma: 0.7 }, &s_sv, &s_q);
        assert_eq!(wide.unwrap(), narrow.unwrap());
    }
}
