//! Gram and cross matrices (computed in parallel) and kernel normalisation.
//!
//! Dot-product kernels (linear, polynomial, sigmoid, RBF, ARD) go through one faer
//! matrix product (`X Xᵀ` or `A Bᵀ`, rayon-parallel) followed by a parallel
//! elementwise map; the others (Laplacian, χ²) are evaluated pair by pair in parallel
//! over columns. Gram matrices are computed on the lower triangle and mirrored, so they
//! are exactly symmetric.

use super::functions::{powi, Kernel};
use crate::data::Features;
use crate::{Error, Result};
use faer::linalg::matmul::matmul;
use faer::traits::{ComplexField, Conjugate};
use faer::{Accum, Mat, MatMut, MatRef, Par};
use rayon::prelude::*;
use std::borrow::Cow;

/// The elementwise map that turns a dot product (and the two squared norms) into a
/// kernel value, for the kernels that depend on the data only through `xᵀx'`.
#[derive(Clone, Copy, Debug)]
pub(crate) enum DotMap {
    Linear,
    Poly {
        gamma: f64,
        coef0: f64,
        degree: u32,
    },
    Sigmoid {
        gamma: f64,
        coef0: f64,
    },
    /// `exp(-γ max(0, ‖x‖² + ‖y‖² − 2xᵀy))` (LIBSVM's order of operations).
    Rbf {
        gamma: f64,
    },
}

impl DotMap {
    #[inline(always)]
    pub(crate) fn apply(self, dot: f64, sq_i: f64, sq_j: f64) -> f64 {
        match self {
            DotMap::Linear => dot,
            DotMap::Poly {
                gamma,
                coef0,
                degree,
            } => powi(gamma * dot + coef0, degree),
            DotMap::Sigmoid { gamma, coef0 } => (gamma * dot + coef0).tanh(),
            DotMap::Rbf { gamma } => (-gamma * (sq_i + sq_j - 2.0 * dot).max(0.0)).exp(),
        }
    }

    /// `vals[t] ← apply(vals[t], sq[t], sq_j)` with the variant matched once.
    pub(super) fn map_slice(self, vals: &mut [f64], sq: &[f64], sq_j: f64) {
        match self {
            DotMap::Linear => {}
            DotMap::Poly {
                gamma,
                coef0,
                degree,
            } => vals
                .iter_mut()
                .for_each(|v| *v = powi(gamma * *v + coef0, degree)),
            DotMap::Sigmoid { gamma, coef0 } => vals
                .iter_mut()
                .for_each(|v| *v = (gamma * *v + coef0).tanh()),
            DotMap::Rbf { gamma } => {
                for (v, &si) in vals.iter_mut().zip(sq) {
                    *v = -gamma * (si + sq_j - 2.0 * *v).max(0.0);
                }
                crate::simd::exp_in_place(vals);
            }
        }
    }

    pub(crate) fn needs_norms(self) -> bool {
        matches!(self, DotMap::Rbf { .. })
    }
}

/// How a kernel is computed: through dot products of (possibly rescaled) features, or
/// pair by pair.
pub(crate) enum Route {
    /// Dot-product route; `scale` (ARD) multiplies feature `k` by `scale[k]` first.
    Dot {
        map: DotMap,
        scale: Option<Vec<f64>>,
    },
    /// Pair-by-pair with [`Kernel::eval`].
    Direct,
}

impl Kernel {
    pub(crate) fn route(&self) -> Route {
        match self {
            Kernel::Linear => Route::Dot {
                map: DotMap::Linear,
                scale: None,
            },
            Kernel::Polynomial {
                gamma,
                coef0,
                degree,
            } => Route::Dot {
                map: DotMap::Poly {
                    gamma: *gamma,
                    coef0: *coef0,
                    degree: *degree,
                },
                scale: None,
            },
            Kernel::Sigmoid { gamma, coef0 } => Route::Dot {
                map: DotMap::Sigmoid {
                    gamma: *gamma,
                    coef0: *coef0,
                },
                scale: None,
            },
            Kernel::Rbf { gamma } => Route::Dot {
                map: DotMap::Rbf { gamma: *gamma },
                scale: None,
            },
            Kernel::ArdRbf { gammas } => Route::Dot {
                map: DotMap::Rbf { gamma: 1.0 },
                scale: Some(gammas.iter().map(|g| g.sqrt()).collect()),
            },
            Kernel::Laplacian { .. } | Kernel::ChiSquared { .. } | Kernel::Precomputed => {
                Route::Direct
            }
        }
    }

    /// Fails when the data cannot be used with this kernel (χ² needs `x ≥ 0`).
    pub(crate) fn check_data(&self, x: &Features, what: &str) -> Result<()> {
        if let Kernel::ChiSquared { .. } = self {
            if let Some(pos) = x.as_slice().iter().position(|v| v.is_nan() || *v < 0.0) {
                let d = x.n_cols().max(1);
                let sep = if what.is_empty() { "" } else { " " };
                return Err(Error::data(format!(
                    "the chi-squared kernel needs non-negative features: {what}{sep}row {}, \
                     column {} is {} after scaling (a value below the training minimum \
                     scales below 0 with «scale=01»: use «scale=none» on non-negative data)",
                    pos / d + 1,
                    pos % d + 1,
                    x.as_slice()[pos]
                )));
            }
        }
        Ok(())
    }

    /// Gram matrix `K_ij = k(x_i, x_j)` (`n × n`, exactly symmetric), computed in parallel.
    ///
    /// For [`Kernel::Precomputed`] the rows of `x` are taken as the kernel matrix itself
    /// (LIBSVM `-t 4` without the serial-number column): `x` must be square and
    /// symmetric, and is returned as a matrix.
    pub fn gram(&self, x: &Features) -> Result<Mat<f64>> {
        self.validate(x.n_cols())?;
        if self.is_precomputed() {
            let p = super::source::PrecomputedKernel::from_features(x)?;
            return Ok(p.to_mat());
        }
        self.check_data(x, "")?;
        let (n, d) = (x.n_rows(), x.n_cols());
        match self.route() {
            Route::Dot { map, scale } => Ok(dot_gram(&scaled(x, &scale), n, d, map)),
            Route::Direct => {
                let mut g = Mat::<f64>::zeros(n, n);
                g.par_col_iter_mut().enumerate().for_each(|(j, col)| {
                    let col = col.try_as_col_major_mut().unwrap().as_slice_mut();
                    let xj = x.row(j);
                    for (i, v) in col.iter_mut().enumerate().skip(j) {
                        *v = self.eval(x.row(i), xj);
                    }
                });
                mirror_lower(g.as_mut());
                Ok(g)
            }
        }
    }

    /// The Gram matrix as row-major `f32` (`n²` values), the precision a solver's row
    /// cache holds, computed without an `f64` copy of the whole matrix: blocks of rows of
    /// the lower triangle in parallel (dot-product kernels: one small matrix product per
    /// block, then the map), then mirrored. For [`Kernel::Precomputed`], `x` itself.
    /// [`Kernel::gram_f32_into`] fills storage the caller keeps instead.
    pub fn gram_f32(&self, x: &Features) -> Result<Vec<f32>> {
        self.validate(x.n_cols())?;
        let n = x.n_rows();
        let mut values = vec![0f32; n * n];
        self.gram_f32_into(x, &mut values)?;
        Ok(values)
    }

    /// [`Kernel::gram_f32`] written into `values` (`n²` values, row-major; any contents),
    /// so that storage kept from one Gram matrix to the next is not allocated and first
    /// touched again.
    pub fn gram_f32_into(&self, x: &Features, values: &mut [f32]) -> Result<()> {
        self.validate(x.n_cols())?;
        let n = x.n_rows();
        if values.len() != n * n {
            return Err(Error::param(
                "Gram matrix storage",
                format!("holds {} values; {n} points need {}", values.len(), n * n),
            ));
        }
        if self.is_precomputed() {
            let p = super::source::PrecomputedKernel::from_features(x)?;
            let g = p.to_mat();
            for (k, v) in values.iter_mut().enumerate() {
                *v = g[(k / n, k % n)] as f32;
            }
            return Ok(());
        }
        self.check_data(x, "")?;
        let d = x.n_cols();
        // Rows per block: enough work per matrix product, many blocks to share out.
        const ROWS: usize = 64;
        match self.route() {
            Route::Dot { map, scale } => {
                let data = scaled(x, &scale);
                let sq = sq_norms(&data, n, d, map);
                let out = Disjoint(values.as_mut_ptr());
                (0..n.div_ceil(ROWS))
                    .into_par_iter()
                    // One product buffer per task, not per block: a fresh one would be
                    // zeroed and page-faulted for every block.
                    .for_each_init(
                        || Mat::<f64>::zeros(n, ROWS),
                        |buffer, b| {
                            let (r0, r1) = (b * ROWS, (b * ROWS + ROWS).min(n));
                            let rows = r1 - r0;
                            // Column i of `dots` holds the dot products of row r0 + i with
                            // rows 0..r1 (contiguous, as `map_slice` wants).
                            let mut dots = buffer.as_mut().submatrix_mut(0, 0, r1, rows);
                            let all = MatRef::from_row_major_slice(&data[..r1 * d], r1, d);
                            let own = MatRef::from_row_major_slice(&data[r0 * d..r1 * d], rows, d);
                            matmul(
                                dots.as_mut(),
                                Accum::Replace,
                                all,
                                own.transpose(),
                                1.0,
                                Par::Seq,
                            );
                            clear_avx_upper();
                            for i in 0..rows {
                                let row = r0 + i;
                                map.map_slice(
                                    &mut column(dots.as_mut(), i)[..=row],
                                    &sq[..=row],
                                    sq[row],
                                );
                            }
                            // SAFETY: block b alone writes rows r0..r1 (columns 0..r1) and
                            // columns r0..r1 of rows 0..r0; the blocks partition the matrix.
                            unsafe { write_block(out, n, r0, dots.as_ref()) };
                        },
                    );
                clear_avx_upper_everywhere();
                return Ok(());
            }
            Route::Direct => {
                values
                    .par_chunks_mut(n.max(1))
                    .enumerate()
                    .for_each(|(i, out)| {
                        for (j, o) in out[..=i].iter_mut().enumerate() {
                            *o = self.eval(x.row(i), x.row(j)) as f32;
                        }
                    });
            }
        }
        mirror_lower(MatMut::from_row_major_slice_mut(values, n, n));
        clear_avx_upper_everywhere();
        Ok(())
    }

    /// `k(x_i, x_i)` for every row (the diagonal of the Gram matrix without computing it),
    /// e.g. the test diagonal for [`normalize_cosine_cross`]. Not available for
    /// `Precomputed` (the kernel of new points with themselves is unknown).
    #[cfg(test)]
    pub(crate) fn diagonal(&self, x: &Features) -> Result<Vec<f64>> {
        if self.is_precomputed() {
            return Err(Error::param(
                "kernel",
                "the diagonal k(x, x) of a precomputed kernel is not known for new points",
            ));
        }
        self.validate(x.n_cols())?;
        self.check_data(x, "")?;
        Ok((0..x.n_rows())
            .into_par_iter()
            .with_min_len(256)
            .map(|i| self.eval(x.row(i), x.row(i)))
            .collect())
    }

    /// Kernel values of one query sample against every training sample:
    /// `out[j] = k(x_query, train_j)`.
    #[cfg(test)]
    pub(crate) fn kernel_row_f64(
        &self,
        x_query: &[f64],
        train: &Features,
        out: &mut [f64],
    ) -> Result<()> {
        if self.is_precomputed() {
            if x_query.len() != train.n_rows() || out.len() != train.n_rows() {
                return Err(Error::data(format!(
                    "precomputed kernel row has {} values, fitted on {} points",
                    x_query.len(),
                    train.n_rows()
                )));
            }
            out.copy_from_slice(x_query);
            return Ok(());
        }
        if x_query.len() != train.n_cols() {
            return Err(Error::data(format!(
                "kernel {self} was fitted on {} features, got {}",
                train.n_cols(),
                x_query.len()
            )));
        }
        if out.len() != train.n_rows() {
            return Err(Error::data(format!(
                "output row has {} slots for {} training points",
                out.len(),
                train.n_rows()
            )));
        }
        self.validate(train.n_cols())?;
        for (j, o) in out.iter_mut().enumerate() {
            *o = self.eval(x_query, train.row(j));
        }
        Ok(())
    }
}

/// The rows of `x` with feature `k` multiplied by `scale[k]` (ARD), or `x` itself.
pub(super) fn scaled<'a>(x: &'a Features, scale: &Option<Vec<f64>>) -> Cow<'a, [f64]> {
    match scale {
        Some(s) => Cow::Owned(scale_features(x.as_slice(), x.n_cols(), s)),
        None => Cow::Borrowed(x.as_slice()),
    }
}

/// Squared norms of the `n` rows (`d` values each) of `data`.
fn row_sq_norms(data: &[f64], n: usize, d: usize) -> Vec<f64> {
    if d == 0 {
        return vec![0.0; n];
    }
    data.par_chunks(d)
        .with_min_len(256)
        .map(|r| super::functions::dot(r, r))
        .collect()
}

/// [`row_sq_norms`] when `map` needs them (RBF), zeros otherwise.
pub(super) fn sq_norms(data: &[f64], n: usize, d: usize, map: DotMap) -> Vec<f64> {
    if map.needs_norms() {
        row_sq_norms(data, n, d)
    } else {
        vec![0.0; n]
    }
}

/// Row-major copy with feature `k` multiplied by `s[k]`.
pub(crate) fn scale_features(data: &[f64], d: usize, s: &[f64]) -> Vec<f64> {
    if d == 0 {
        return Vec::new();
    }
    let mut out = data.to_vec();
    out.par_chunks_mut(d * 256).for_each(|block| {
        for row in block.chunks_exact_mut(d) {
            for (v, s) in row.iter_mut().zip(s) {
                *v *= s;
            }
        }
    });
    out
}

/// faer parallelism for a product of `flops` multiply-adds.
pub(crate) fn par_for(flops: usize) -> Par {
    if flops >= 1 << 20 && rayon::current_num_threads() > 1 {
        Par::rayon(0)
    } else {
        Par::Seq
    }
}

/// Row-major `n × n` storage that parallel tasks write in disjoint regions.
#[derive(Clone, Copy)]
struct Disjoint(*mut f32);

// SAFETY: tasks write through it only into regions no other task touches (see
// `write_block`); the storage outlives the parallel loop.
unsafe impl Send for Disjoint {}
unsafe impl Sync for Disjoint {}

/// Writes the rows `r0..r0 + m` of a symmetric matrix's lower triangle and their mirror:
/// `dots` (`r1 × m`, `r1 = r0 + m`) holds `K[r0 + i, c]` at `(c, i)` for `c ≤ r0 + i`.
/// Rows `r0..r1` get columns `0..r1`; rows `0..r0` get columns `r0..r1` (their part
/// above the diagonal), so that no separate mirroring pass reads the matrix again.
///
/// # Safety
/// `out` points to `n²` values, and no other reference reads or writes rows `r0..r1`
/// at columns `0..r1` or rows `0..r0` at columns `r0..r1` meanwhile.
unsafe fn write_block(out: Disjoint, n: usize, r0: usize, dots: MatRef<'_, f64>) {
    let (r1, m) = (dots.nrows(), dots.ncols());
    let cols: Vec<&[f64]> = (0..m)
        .map(|i| {
            dots.col(i)
                .try_as_col_major()
                .expect("contiguous columns")
                .as_slice()
        })
        .collect();
    for (i, col) in cols.iter().enumerate() {
        let row = r0 + i;
        // SAFETY (caller): row `row`, columns 0..r1, is this block's alone.
        let dst = unsafe { std::slice::from_raw_parts_mut(out.0.add(row * n), r1) };
        for (o, &v) in dst[..=row].iter_mut().zip(&col[..=row]) {
            *o = v as f32;
        }
        // The diagonal block above the diagonal: K[row, c] = K[c, row].
        for (o, later) in dst[row + 1..].iter_mut().zip(&cols[i + 1..]) {
            *o = later[row] as f32;
        }
    }
    // Above the block, eight rows at a time through a transposed tile: each column of
    // `dots` is read eight values at once, each output row written whole.
    const TILE: usize = 8;
    let mut tile = vec![[0.0f64; TILE]; m];
    for c0 in (0..r0).step_by(TILE) {
        let w = TILE.min(r0 - c0);
        for (t, col) in tile.iter_mut().zip(&cols) {
            t[..w].copy_from_slice(&col[c0..c0 + w]);
        }
        for k in 0..w {
            let c = c0 + k;
            // SAFETY (caller): row c < r0, columns r0..r1, is this block's alone.
            let dst = unsafe { std::slice::from_raw_parts_mut(out.0.add(c * n + r0), m) };
            for (o, t) in dst.iter_mut().zip(&tile) {
                *o = t[k] as f32;
            }
        }
    }
}

/// Column `c` of a column-major matrix view as a slice (faer's owned matrices and their
/// column blocks are column-major with unit row stride).
pub(super) fn column<'a>(m: MatMut<'a, f64>, c: usize) -> &'a mut [f64] {
    m.col_mut(c).try_as_col_major_mut().unwrap().as_slice_mut()
}

/// Columns per block of [`dot_gram`]: a block's product is one sequential matrix product
/// written in place, and the blocks are shared out over the rayon pool.
const GRAM_BLOCK: usize = 64;

/// The Gram matrix of a dot-product kernel: each block of [`GRAM_BLOCK`] columns gets the
/// product of the rows on and below its diagonal with its own rows, written straight
/// into the matrix, then the map, while the block is still in cache; the strict upper
/// triangle is mirrored at the end. The diagonal is the map of the squared norms, so
/// RBF diagonals are exactly 1.
fn dot_gram(data: &[f64], n: usize, d: usize, map: DotMap) -> Mat<f64> {
    let x = MatRef::from_row_major_slice(data, n, d);
    // Every map's diagonal is computed from the norms.
    let sq = row_sq_norms(data, n, d);
    let mut g = Mat::<f64>::zeros(n, n);
    g.as_mut()
        .par_col_chunks_mut(GRAM_BLOCK)
        .enumerate()
        .for_each(|(b, mut cols)| {
            let (j0, w) = (b * GRAM_BLOCK, cols.ncols());
            matmul(
                cols.as_mut().subrows_mut(j0, n - j0),
                Accum::Replace,
                x.subrows(j0, n - j0),
                x.subrows(j0, w).transpose(),
                1.0,
                Par::Seq,
            );
            clear_avx_upper();
            for c in 0..w {
                let j = j0 + c;
                let col = column(cols.as_mut(), c);
                map.map_slice(&mut col[j..], &sq[j..], sq[j]);
                col[j] = map.apply(sq[j], sq[j], sq[j]);
            }
        });
    mirror_lower(g.as_mut());
    g
}

/// Copies the strict lower triangle onto the upper one (recursive blocks, parallel).
/// Clears the upper halves of this thread's AVX registers (`vzeroupper`). faer's
/// matrix-product kernels can leave them dirty, after which SSE code on the thread (the
/// elementwise maps, libm's `exp`) runs several times slower until something clears
/// them.
pub(crate) fn clear_avx_upper() {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        #[target_feature(enable = "avx")]
        fn zero_upper() {
            std::arch::x86_64::_mm256_zeroupper()
        }
        // SAFETY: the CPU supports AVX (checked above).
        unsafe { zero_upper() }
    }
}

/// [`clear_avx_upper`] on this thread and on every thread of the rayon pool (where a
/// parallel matrix product ran).
pub(super) fn clear_avx_upper_everywhere() {
    clear_avx_upper();
    rayon::broadcast(|_| clear_avx_upper());
}

pub(crate) fn mirror_lower<T>(m: MatMut<'_, T>)
where
    T: ComplexField + Conjugate<Canonical = T> + Copy,
{
    let n = m.nrows();
    debug_assert_eq!(n, m.ncols());
    if n <= 64 {
        let mut m = m;
        for j in 1..n {
            for i in 0..j {
                m[(i, j)] = m[(j, i)];
            }
        }
        return;
    }
    let h = n / 2;
    let (tl, mut tr, bl, br) = m.split_at_mut(h, h);
    tr.copy_from(bl.as_ref().transpose());
    if n >= 512 {
        rayon::join(|| mirror_lower(tl), || mirror_lower(br));
    } else {
        mirror_lower(tl);
        mirror_lower(br);
    }
}

fn square_or_err(k: &Mat<f64>, what: &str) -> Result<usize> {
    if k.nrows() != k.ncols() {
        return Err(Error::data(format!(
            "{what}: kernel matrix is {}×{}, must be square",
            k.nrows(),
            k.ncols()
        )));
    }
    Ok(k.nrows())
}

fn scale_in_place(k: &mut Mat<f64>, factor: f64) {
    k.par_col_iter_mut().for_each(|col| {
        for v in col.try_as_col_major_mut().unwrap().as_slice_mut() {
            *v *= factor;
        }
    });
}

/// Trace normalisation: scales `k` so that `trace(K) = n`, i.e. the mean diagonal entry
/// is 1 (the convention used to give all kernels of a multiple-kernel combination equal
/// trace). Returns the factor `n / trace(K)` that was applied; apply the same factor to
/// the test × train matrix with [`normalize_trace_cross`]. An empty matrix gets factor 1.
///
/// Fails when `k` is not square or its trace is not finite and `> 0`.
pub fn normalize_trace(k: &mut Mat<f64>) -> Result<f64> {
    let n = square_or_err(k, "trace normalisation")?;
    if n == 0 {
        return Ok(1.0);
    }
    let trace: f64 = (0..n).map(|i| k[(i, i)]).sum();
    let factor = trace_factor(trace, n)?;
    scale_in_place(k, factor);
    Ok(factor)
}

/// The trace-normalisation factor `n / trace(K)` of [`normalize_trace`] from the trace
/// alone (the sum of the diagonal `k(x_i, x_i)`), so that a kernel evaluated on demand
/// can be normalised without its Gram matrix. Fails unless the trace is finite and `> 0`.
pub(crate) fn trace_factor(trace: f64, n: usize) -> Result<f64> {
    if !(trace.is_finite() && trace > 0.0) {
        return Err(Error::data(format!(
            "cannot trace-normalise a kernel matrix with trace {trace}"
        )));
    }
    Ok(n as f64 / trace)
}

/// Applies a training trace-normalisation `factor` (from [`normalize_trace`]) to a
/// cross matrix, so test rows are normalised like the training ones.
pub fn normalize_trace_cross(cross: &mut Mat<f64>, factor: f64) -> Result<()> {
    crate::check::positive_finite("factor", factor)?;
    scale_in_place(cross, factor);
    Ok(())
}

fn check_diag(diag: &[f64], what: &str) -> Result<()> {
    if let Some((i, v)) = diag
        .iter()
        .enumerate()
        .find(|(_, v)| !(v.is_finite() && **v > 0.0))
    {
        return Err(Error::data(format!(
            "cannot cosine-normalise: {what}diagonal entry {} is {v}, must be > 0",
            i + 1
        )));
    }
    Ok(())
}

/// Cosine normalisation `K_ij ← K_ij / sqrt(K_ii K_jj)` (unit diagonal; the kernel of
/// the normalised feature map `φ(x)/‖φ(x)‖`). Returns the original diagonal, to be
/// passed as `train_diag` to [`normalize_cosine_cross`].
///
/// Fails when `k` is not square or a diagonal entry is not finite and `> 0`.
pub fn normalize_cosine(k: &mut Mat<f64>) -> Result<Vec<f64>> {
    let n = square_or_err(k, "cosine normalisation")?;
    let diag: Vec<f64> = (0..n).map(|i| k[(i, i)]).collect();
    check_diag(&diag, "")?;
    let inv: Vec<f64> = diag.iter().map(|d| 1.0 / d.sqrt()).collect();
    let inv = &inv;
    k.par_col_iter_mut().enumerate().for_each(|(j, col)| {
        let col = col.try_as_col_major_mut().unwrap().as_slice_mut();
        let ij = inv[j];
        for (v, &ii) in col.iter_mut().zip(inv) {
            *v *= ii * ij;
        }
        col[j] = 1.0;
    });
    Ok(diag)
}

/// Cosine-normalises a cross matrix (`test × train`):
/// `K_ij ← K_ij / sqrt(test_diag_i · train_diag_j)`, where `test_diag_i = k(t_i, t_i)`
/// (see `Kernel::diagonal`) and `train_diag` is what [`normalize_cosine`] returned.
pub fn normalize_cosine_cross(
    cross: &mut Mat<f64>,
    test_diag: &[f64],
    train_diag: &[f64],
) -> Result<()> {
    if cross.nrows() != test_diag.len() || cross.ncols() != train_diag.len() {
        return Err(Error::data(format!(
            "cross matrix is {}×{}, but got {} test and {} training diagonal entries",
            cross.nrows(),
            cross.ncols(),
            test_diag.len(),
            train_diag.len()
        )));
    }
    check_diag(test_diag, "test ")?;
    check_diag(train_diag, "training ")?;
    let inv_t: Vec<f64> = test_diag.iter().map(|d| 1.0 / d.sqrt()).collect();
    let inv_t = &inv_t;
    cross.par_col_iter_mut().enumerate().for_each(|(j, col)| {
        let col = col.try_as_col_major_mut().unwrap().as_slice_mut();
        let ij = 1.0 / train_diag[j].sqrt();
        for (v, &ii) in col.iter_mut().zip(inv_t) {
            *v *= ii * ij;
        }
    });
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Deterministic pseudo-random features in `[lo, lo + 1)`.
    pub(crate) fn random_features(n: usize, d: usize, seed: u64, lo: f64) -> Features {
        let mut s = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let values = (0..n * d)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                lo + (s >> 11) as f64 / (1u64 << 53) as f64
            })
            .collect();
        Features::new(n, d, values).unwrap()
    }

    pub(crate) fn all_kernels(d: usize) -> Vec<Kernel> {
        let g = 1.0 / d as f64;
        vec![
            Kernel::Linear,
            Kernel::polynomial(3, g, 1.0).unwrap(),
            Kernel::polynomial(2, 0.5 * g, 0.0).unwrap(),
            Kernel::rbf_gamma(g).unwrap(),
            Kernel::laplacian(g).unwrap(),
            Kernel::sigmoid(g, -0.5).unwrap(),
            Kernel::chi_squared(g).unwrap(),
            Kernel::ard_gammas((0..d).map(|k| 0.1 + k as f64 / d as f64).collect()).unwrap(),
        ]
    }

    fn max_diff_eval(k: &Kernel, m: &Mat<f64>, a: &Features, b: &Features) -> f64 {
        let mut worst = 0.0f64;
        for i in 0..a.n_rows() {
            for j in 0..b.n_rows() {
                let e = k.eval(a.row(i), b.row(j));
                let diff = (m[(i, j)] - e).abs() / e.abs().max(1.0);
                worst = worst.max(diff);
            }
        }
        worst
    }

    #[test]
    fn gram_matches_eval() {
        // small (sequential) and larger (parallel faer product, rayon map, block mirror)
        for &(n, d, seed) in &[(7, 3, 1), (300, 12, 2), (70, 1, 3), (600, 8, 4)] {
            let x = random_features(n, d, seed, 0.0);
            for k in all_kernels(d) {
                let g = k.gram(&x).unwrap();
                assert_eq!((g.nrows(), g.ncols()), (n, n));
                let diff = max_diff_eval(&k, &g, &x, &x);
                assert!(diff < 1e-12, "{k}: n={n} d={d}: diff {diff}");
                for i in 0..n {
                    for j in 0..n {
                        assert_eq!(g[(i, j)], g[(j, i)], "{k} not symmetric");
                    }
                }
                if matches!(k, Kernel::Rbf { .. } | Kernel::ArdRbf { .. }) {
                    for i in 0..n {
                        assert_eq!(g[(i, i)], 1.0);
                    }
                }
            }
        }
    }

    #[test]
    fn gram_f32_is_gram_rounded() {
        // One block, several blocks with a partial last one, n = 0; every kernel kind
        // (dot products in blocks, pair by pair, ARD rescaling) and a precomputed matrix.
        for &(n, d, seed) in &[(7, 3, 1), (200, 6, 2), (0, 2, 3)] {
            let x = random_features(n, d, seed, 0.0);
            for k in all_kernels(d) {
                let f = k.gram_f32(&x).unwrap();
                assert_eq!(f.len(), n * n);
                // Into kept storage with other contents: every entry is written.
                let mut kept = vec![f32::NAN; n * n];
                k.gram_f32_into(&x, &mut kept).unwrap();
                let bits = |v: &[f32]| v.iter().map(|e| e.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&kept), bits(&f), "{k}: n={n}, kept storage");
                let g = k.gram(&x).unwrap();
                for i in 0..n {
                    for j in 0..n {
                        let (a, b) = (f[i * n + j] as f64, g[(i, j)]);
                        // Within f32 rounding of the f64 value (and of its last bits).
                        assert!(
                            (a - b).abs() <= 1e-6 * b.abs().max(1e-3),
                            "{k}: n={n} ({i}, {j}): {a} vs {b}"
                        );
                        assert_eq!(f[i * n + j], f[j * n + i], "{k} not symmetric");
                    }
                }
            }
        }
        let k = Features::from_rows(&[vec![2.0, 1.0], vec![1.0, 3.0]]).unwrap();
        assert_eq!(
            Kernel::Precomputed.gram_f32(&k).unwrap(),
            vec![2.0, 1.0, 1.0, 3.0]
        );
        let ns = Features::from_rows(&[vec![2.0, 1.0, 0.0]]).unwrap();
        assert!(Kernel::Precomputed.gram_f32(&ns).is_err());
        let e = Kernel::Linear.gram_f32_into(&k, &mut [0.0; 3]).unwrap_err();
        assert!(
            e.to_string().contains("holds 3 values; 2 points need 4"),
            "{e}"
        );
    }

    #[test]
    fn gram_on_signed_data() {
        let x = random_features(150, 5, 9, -0.5);
        for k in all_kernels(5) {
            if matches!(k, Kernel::ChiSquared { .. }) {
                let e = k.gram(&x).unwrap_err().to_string();
                assert!(e.contains("non-negative"), "{e}");
                continue;
            }
            let g = k.gram(&x).unwrap();
            let diff = max_diff_eval(&k, &g, &x, &x);
            assert!(diff < 1e-12, "{k}: diff {diff}");
        }
    }

    #[test]
    fn cross_matches_eval() {
        for &(na, nb, d) in &[(5, 8, 2), (130, 260, 9), (300, 500, 8)] {
            let a = random_features(na, d, 11, 0.0);
            let b = random_features(nb, d, 12, 0.0);
            for k in all_kernels(d) {
                let c = k.cross(&a, &b).unwrap();
                assert_eq!((c.nrows(), c.ncols()), (na, nb));
                let diff = max_diff_eval(&k, &c, &a, &b);
                assert!(diff < 1e-12, "{k}: diff {diff}");
            }
        }
        let a = random_features(3, 4, 1, 0.0);
        let b = random_features(5, 3, 1, 0.0);
        let e = Kernel::Linear.cross(&a, &b).unwrap_err().to_string();
        assert!(e.contains("fitted on 3 features, got 4"), "{e}");
        let e = Kernel::ard_gammas(vec![1.0; 2])
            .unwrap()
            .gram(&b)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`gammas` has 2 values"), "{e}");
    }

    #[test]
    fn empty_and_precomputed() {
        let x = Features::new(0, 3, vec![]).unwrap();
        let g = Kernel::rbf_gamma(1.0).unwrap().gram(&x).unwrap();
        assert_eq!((g.nrows(), g.ncols()), (0, 0));
        let k = Features::from_rows(&[vec![2.0, 1.0], vec![1.0, 3.0]]).unwrap();
        let g = Kernel::Precomputed.gram(&k).unwrap();
        assert_eq!(g[(1, 0)], 1.0);
        assert_eq!(g[(1, 1)], 3.0);
        let t = Features::from_rows(&[vec![0.5, 0.25]]).unwrap();
        let c = Kernel::Precomputed.cross(&t, &k).unwrap();
        assert_eq!((c.nrows(), c.ncols(), c[(0, 1)]), (1, 2, 0.25));
        let bad = Features::from_rows(&[vec![0.5, 0.25, 1.0]]).unwrap();
        assert!(Kernel::Precomputed.cross(&bad, &k).is_err());
        let ns = Features::from_rows(&[vec![2.0, 1.0, 0.0]]).unwrap();
        assert!(Kernel::Precomputed.gram(&ns).is_err());
        assert!(Kernel::Precomputed.diagonal(&k).is_err());
    }

    #[test]
    fn diagonal_and_rows() {
        let x = random_features(40, 6, 5, 0.0);
        for k in all_kernels(6) {
            let g = k.gram(&x).unwrap();
            let d = k.diagonal(&x).unwrap();
            let mut row = vec![0.0; 40];
            k.kernel_row_f64(x.row(3), &x, &mut row).unwrap();
            for i in 0..40 {
                assert!(
                    (g[(i, i)] - d[i]).abs() <= 1e-12 * d[i].abs().max(1.0),
                    "{k}"
                );
                assert!(
                    (g[(3, i)] - row[i]).abs() <= 1e-12 * row[i].abs().max(1.0),
                    "{k}"
                );
            }
        }
        let mut row = vec![0.0; 40];
        assert!(Kernel::Linear.kernel_row_f64(&[1.0], &x, &mut row).is_err());
    }

    #[test]
    fn normalisations() {
        let x = random_features(120, 4, 21, 0.0);
        let k = Kernel::polynomial(2, 1.0, 1.0).unwrap();
        let mut g = k.gram(&x).unwrap();
        let orig = g.clone();
        let f = normalize_trace(&mut g).unwrap();
        let tr: f64 = (0..120).map(|i| g[(i, i)]).sum();
        assert!((tr - 120.0).abs() < 1e-9, "{tr}");
        assert!((g[(3, 7)] - f * orig[(3, 7)]).abs() < 1e-12);

        let t = random_features(30, 4, 22, 0.0);
        let mut c = k.cross(&t, &x).unwrap();
        let c0 = c.clone();
        normalize_trace_cross(&mut c, f).unwrap();
        assert!((c[(2, 5)] - f * c0[(2, 5)]).abs() < 1e-12);
        assert!(normalize_trace_cross(&mut c, -1.0).is_err());

        let mut g = orig.clone();
        let diag = normalize_cosine(&mut g).unwrap();
        for i in 0..120 {
            assert_eq!(g[(i, i)], 1.0);
            assert_eq!(diag[i], orig[(i, i)]);
        }
        let e = (orig[(4, 9)] / (orig[(4, 4)] * orig[(9, 9)]).sqrt() - g[(4, 9)]).abs();
        assert!(e < 1e-14);
        // cross of the training data with itself normalises to the same matrix
        let mut c = k.cross(&x, &x).unwrap();
        let td = k.diagonal(&x).unwrap();
        normalize_cosine_cross(&mut c, &td, &diag).unwrap();
        for i in 0..120 {
            for j in 0..120 {
                assert!((c[(i, j)] - g[(i, j)]).abs() < 1e-12);
            }
        }
        assert!(normalize_cosine_cross(&mut c, &td[1..], &diag).is_err());

        let mut z = Mat::<f64>::zeros(2, 2);
        assert!(normalize_trace(&mut z).is_err());
        let e = normalize_cosine(&mut z).unwrap_err().to_string();
        assert!(e.contains("diagonal entry 1 is 0"), "{e}");
        let mut r = Mat::<f64>::zeros(2, 3);
        let e = normalize_trace(&mut r).unwrap_err().to_string();
        assert!(e.contains("2×3, must be square"), "{e}");
    }
}
