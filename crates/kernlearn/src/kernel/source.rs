//! [`KernelSource`] implementations: kernel rows computed on demand from features
//! ([`FeatureKernel`]) or read from a stored Gram matrix ([`PrecomputedKernel`]).

use super::functions::{chi2_dist, dot, l1_dist, powi, Kernel};
use super::matrix::{scale_features, DotMap, Route};
use super::reordered::copy_fits;
use super::{KernelSource, ReorderedRows};
use crate::data::Features;
use crate::simd::{exp_to_f32_lanes, with_simd};
use crate::{Error, Result};
use faer::{Mat, MatRef};
use rayon::prelude::*;
use std::borrow::Cow;

/// Per-row work (in multiply-adds, an `exp` counted as ~24) above which `fill_row`
/// splits the columns over the rayon pool.
pub(super) const PAR_WORK: usize = 48 * 1024;

/// Columns per block in `fill_row` (a stack buffer of this many `f64`).
const BLOCK: usize = 256;

#[derive(Clone, Copy, Debug)]
enum RowKind {
    Dot(DotMap),
    Laplacian(f64),
    Chi2(f64),
}

/// Kernel rows computed on demand from dense features: the solver's hot path.
///
/// Squared norms are precomputed, so an RBF entry costs one dot product and one `exp`
/// (`exp(-γ (‖x_i‖² + ‖x_j‖² − 2 x_iᵀx_j))`, as LIBSVM, clamped at 0). ARD kernels are
/// served as an RBF with `γ = 1` on features scaled by `√γ_k` (an owned scaled copy).
/// Long rows are split over the rayon pool.
#[derive(Clone, Debug)]
pub struct FeatureKernel<'a> {
    kernel: Kernel,
    kind: RowKind,
    data: Cow<'a, [f64]>,
    n: usize,
    d: usize,
    sq_norms: Vec<f64>,
    diag: Vec<f64>,
}

impl<'a> FeatureKernel<'a> {
    /// Prepares `kernel` on the training samples `x` (borrowed). Fails for invalid
    /// parameters, ARD length ≠ `x.n_cols()`, negative data with χ², and `Precomputed`
    /// (use [`PrecomputedKernel`]).
    pub fn new(kernel: &Kernel, x: &'a Features) -> Result<Self> {
        Self::build(kernel, Cow::Borrowed(x.as_slice()), x)
    }

    /// Like [`FeatureKernel::new`], owning the features.
    pub(crate) fn from_owned(kernel: &Kernel, x: Features) -> Result<FeatureKernel<'static>> {
        let values = x.as_slice().to_vec();
        FeatureKernel::build(kernel, Cow::Owned(values), &x)
    }

    fn build(kernel: &Kernel, data: Cow<'a, [f64]>, x: &Features) -> Result<Self> {
        if kernel.is_precomputed() {
            return Err(Error::param(
                "kernel",
                "a precomputed kernel has no features: use PrecomputedKernel",
            ));
        }
        kernel.validate(x.n_cols())?;
        kernel.check_data(x, "")?;
        let (n, d) = (x.n_rows(), x.n_cols());
        let (kind, data) = match (kernel.route(), kernel) {
            (Route::Dot { map, scale: None }, _) => (RowKind::Dot(map), data),
            (
                Route::Dot {
                    map,
                    scale: Some(s),
                },
                _,
            ) => (RowKind::Dot(map), Cow::Owned(scale_features(&data, d, &s))),
            (Route::Direct, Kernel::Laplacian { gamma }) => (RowKind::Laplacian(*gamma), data),
            (Route::Direct, Kernel::ChiSquared { gamma }) => (RowKind::Chi2(*gamma), data),
            (Route::Direct, _) => unreachable!("every feature kernel has a row kind"),
        };
        let sq_norms: Vec<f64> = if d == 0 {
            vec![0.0; n]
        } else {
            data.par_chunks(d)
                .with_min_len(1024)
                .map(|r| dot(r, r))
                .collect()
        };
        let diag = match kind {
            RowKind::Dot(map) => sq_norms.iter().map(|&s| map.apply(s, s, s)).collect(),
            RowKind::Laplacian(_) | RowKind::Chi2(_) => vec![1.0; n],
        };
        Ok(FeatureKernel {
            kernel: kernel.clone(),
            kind,
            data,
            n,
            d,
            sq_norms,
            diag,
        })
    }

    /// Sequential kernel of `fill_row` (see [`fill_columns`]).
    fn fill_seq(&self, i: usize, cols: &[usize], out: &mut [f32]) {
        fill_columns(self, i, cols, out);
    }

    /// `fill_row` on the calling thread only (for benchmarks and nested parallelism).
    #[cfg(test)]
    pub(crate) fn fill_row_seq(&self, i: usize, cols: &[usize], out: &mut [f32]) {
        assert_eq!(
            cols.len(),
            out.len(),
            "fill_row: cols and out differ in length"
        );
        self.fill_seq(i, cols, out);
    }
}

impl KernelSource for FeatureKernel<'_> {
    fn len(&self) -> usize {
        self.n
    }

    fn diag(&self, i: usize) -> f64 {
        self.diag[i]
    }

    fn fill_row(&self, i: usize, cols: &[usize], out: &mut [f32]) {
        let work = cols.len() * (self.d + 24);
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
        let d = self.d;
        let data: Vec<f64> = idx
            .iter()
            .flat_map(|&p| &self.data[p * d..(p + 1) * d])
            .copied()
            .collect();
        Some(Box::new(FeatureKernel {
            kernel: self.kernel.clone(),
            kind: self.kind,
            data: Cow::Owned(data),
            n: idx.len(),
            d,
            sq_norms: idx.iter().map(|&p| self.sq_norms[p]).collect(),
            diag: idx.iter().map(|&p| self.diag[p]).collect(),
        }))
    }

    fn reorderable(&self, idx: &[usize]) -> Option<ReorderedRows> {
        match self.kind {
            RowKind::Dot(map) if copy_fits(idx.len(), self.d) => {
                Some(ReorderedRows::new(map, &self.data, self.d, idx))
            }
            _ => None,
        }
    }
}

with_simd! {
    /// `out[t] = k(x_i, x_{cols[t]})` on the calling thread, in blocks of [`BLOCK`]
    /// columns: a first pass computes the argument of the outer function (dot products and
    /// distances, no calls), a second applies `exp` (vectorised, [`crate::simd`]) / `tanh`
    /// / the power. Two tight loops beat one loop with a call in its body; the whole is
    /// compiled for the widest SIMD the CPU has, so the dot products of short rows run
    /// in wide registers too.
    fn fill_columns(k: &FeatureKernel<'_>, i: usize, cols: &[usize], out: &mut [f32]) -> () = fill_columns_body
}

#[inline(always)]
fn fill_columns_body(k: &FeatureKernel<'_>, i: usize, cols: &[usize], out: &mut [f32]) {
    let (kind, data, d, sq) = (k.kind, &k.data[..], k.d, &k.sq_norms[..]);
    let xi = &data[i * d..(i + 1) * d];
    let mut buf = [0.0f64; BLOCK];
    for (o, cs) in out.chunks_mut(BLOCK).zip(cols.chunks(BLOCK)) {
        let buf = &mut buf[..cs.len()];
        let row = |c: usize| &data[c * d..(c + 1) * d];
        match kind {
            RowKind::Dot(DotMap::Rbf { gamma }) => {
                let si = sq[i];
                for (b, &c) in buf.iter_mut().zip(cs) {
                    *b = -gamma * (si + sq[c] - 2.0 * dot(xi, row(c))).max(0.0);
                }
                exp_to_f32_lanes(buf, o);
            }
            RowKind::Dot(DotMap::Linear) => {
                for (o, &c) in o.iter_mut().zip(cs) {
                    *o = dot(xi, row(c)) as f32;
                }
            }
            RowKind::Dot(DotMap::Poly {
                gamma,
                coef0,
                degree,
            }) => {
                for (b, &c) in buf.iter_mut().zip(cs) {
                    *b = gamma * dot(xi, row(c)) + coef0;
                }
                for (o, b) in o.iter_mut().zip(buf.iter()) {
                    *o = powi(*b, degree) as f32;
                }
            }
            RowKind::Dot(DotMap::Sigmoid { gamma, coef0 }) => {
                for (b, &c) in buf.iter_mut().zip(cs) {
                    *b = gamma * dot(xi, row(c)) + coef0;
                }
                for (o, b) in o.iter_mut().zip(buf.iter()) {
                    *o = b.tanh() as f32;
                }
            }
            RowKind::Laplacian(gamma) => {
                for (b, &c) in buf.iter_mut().zip(cs) {
                    *b = -gamma * l1_dist(xi, row(c));
                }
                exp_to_f32_lanes(buf, o);
            }
            RowKind::Chi2(gamma) => {
                for (b, &c) in buf.iter_mut().zip(cs) {
                    *b = -gamma * chi2_dist(xi, row(c));
                }
                exp_to_f32_lanes(buf, o);
            }
        }
    }
}

/// Fills a kernel row (`out[t]` for column `cols[t]`) by `fill` on chunks of columns,
/// spread over the rayon pool when `parallel` (the caller's judgement that the row is
/// worth it) and there are two threads or more: a few chunks per thread so that
/// work-stealing evens out, at least `min_chunk` columns each; `init` makes one scratch
/// value per task. `cols` and `out` must have the same length (checked).
pub(crate) fn fill_row_chunked<T>(
    parallel: bool,
    min_chunk: usize,
    cols: &[usize],
    out: &mut [f32],
    init: impl Fn() -> T + Sync + Send,
    fill: impl Fn(&mut T, &[usize], &mut [f32]) + Sync + Send,
) {
    assert_eq!(
        cols.len(),
        out.len(),
        "fill_row: cols and out differ in length"
    );
    let threads = rayon::current_num_threads();
    if !parallel || threads < 2 {
        fill(&mut init(), cols, out);
        return;
    }
    let chunk = cols.len().div_ceil(4 * threads).max(min_chunk);
    out.par_chunks_mut(chunk)
        .zip(cols.par_chunks(chunk))
        .for_each_init(init, |scratch, (o, c)| fill(scratch, c, o));
}

/// A precomputed kernel's buffer is square, `n_rows × n_cols` long and finite.
fn check_size_and_finite(n_rows: usize, n_cols: usize, values: &[f64]) -> Result<()> {
    if n_rows != n_cols {
        return Err(Error::data(format!(
            "precomputed kernel is {n_rows}×{n_cols}, must be square"
        )));
    }
    if values.len() != n_rows * n_cols {
        return Err(Error::data(format!(
            "precomputed kernel buffer has {} values, expected {n_rows}×{n_cols}",
            values.len()
        )));
    }
    match values.iter().position(|v| !v.is_finite()) {
        Some(p) => Err(Error::data(format!(
            "precomputed kernel entry (row {}, column {}) is {}",
            p / n_rows + 1,
            p % n_rows + 1,
            values[p]
        ))),
        None => Ok(()),
    }
}

/// A user-supplied Gram matrix (`n × n`, symmetric), stored row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct PrecomputedKernel {
    n: usize,
    values: Vec<f64>,
}

impl PrecomputedKernel {
    /// Checks and stores a row-major `n_rows × n_cols` Gram matrix: it must be square,
    /// finite, and symmetric to within `1e-8` relative.
    pub(crate) fn from_row_major(n_rows: usize, n_cols: usize, values: Vec<f64>) -> Result<Self> {
        check_size_and_finite(n_rows, n_cols, &values)?;
        let n = n_rows;
        let max_abs = values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for i in 0..n {
            for j in 0..i {
                let (a, b) = (values[i * n + j], values[j * n + i]);
                if (a - b).abs() > 1e-8 * a.abs().max(b.abs()) + 1e-14 * max_abs {
                    return Err(Error::data(format!(
                        "precomputed kernel is not symmetric: entry (row {}, column {}) is {a} but (row {}, column {}) is {b}",
                        i + 1,
                        j + 1,
                        j + 1,
                        i + 1
                    )));
                }
            }
        }
        Ok(PrecomputedKernel { n, values })
    }

    /// An `n × n` matrix that is symmetric by construction (e.g. KNPL's `G ⊙ K`, both
    /// exactly symmetric), row-major: only its size and finiteness are checked, not the
    /// symmetry that [`PrecomputedKernel::from_row_major`] checks for a user's matrix
    /// (`n²` strided reads, a tenth of a KNPL fit).
    pub(crate) fn from_symmetric_row_major(n: usize, values: Vec<f64>) -> Result<Self> {
        check_size_and_finite(n, n, &values)?;
        debug_assert!(
            (0..n).all(|i| (0..i).all(|j| values[i * n + j] == values[j * n + i])),
            "from_symmetric_row_major: the matrix is not exactly symmetric"
        );
        Ok(PrecomputedKernel { n, values })
    }

    /// From a faer matrix (see [`PrecomputedKernel::from_row_major`] for the checks).
    pub(crate) fn new(k: MatRef<'_, f64>) -> Result<Self> {
        let (r, c) = (k.nrows(), k.ncols());
        let mut values = Vec::with_capacity(r * c);
        for i in 0..r {
            values.extend((0..c).map(|j| k[(i, j)]));
        }
        Self::from_row_major(r, c, values)
    }

    /// From features whose rows are the kernel rows (LIBSVM `-t 4` data without the
    /// serial-number column).
    pub(crate) fn from_features(x: &Features) -> Result<Self> {
        Self::from_row_major(x.n_rows(), x.n_cols(), x.as_slice().to_vec())
    }

    /// Row `i` of the Gram matrix.
    pub(crate) fn row(&self, i: usize) -> &[f64] {
        &self.values[i * self.n..(i + 1) * self.n]
    }

    /// The Gram matrix as a faer view (row-major).
    pub(crate) fn as_mat(&self) -> MatRef<'_, f64> {
        MatRef::from_row_major_slice(&self.values, self.n, self.n)
    }

    /// The Gram matrix as an owned faer matrix.
    pub(crate) fn to_mat(&self) -> Mat<f64> {
        self.as_mat().to_owned()
    }
}

impl KernelSource for PrecomputedKernel {
    fn len(&self) -> usize {
        self.n
    }

    fn diag(&self, i: usize) -> f64 {
        self.values[i * self.n + i]
    }

    fn fill_row(&self, i: usize, cols: &[usize], out: &mut [f32]) {
        let row = self.row(i);
        for (o, &c) in out.iter_mut().zip(cols) {
            *o = row[c] as f32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::matrix::tests::{all_kernels, random_features};

    fn check_rows(src: &impl KernelSource, k: &Kernel, x: &Features, cols: &[usize]) {
        let mut out = vec![0.0f32; cols.len()];
        for i in [0, x.n_rows() / 2, x.n_rows() - 1] {
            src.fill_row(i, cols, &mut out);
            for (t, &c) in cols.iter().enumerate() {
                let e = k.eval(x.row(i), x.row(c));
                let tol = 1e-6 * e.abs().max(1.0);
                assert!(
                    (out[t] as f64 - e).abs() <= tol,
                    "{k}: row {i} col {c}: {} vs {e}",
                    out[t]
                );
            }
            let di = k.eval(x.row(i), x.row(i));
            assert!(
                (src.diag(i) - di).abs() <= 1e-12 * di.abs().max(1.0),
                "{k} diag"
            );
        }
    }

    #[test]
    fn fill_row_matches_eval() {
        // short rows (sequential) and long rows (parallel chunks), arbitrary column lists
        for &(n, d) in &[(50, 3), (3000, 20)] {
            let x = random_features(n, d, 77, 0.0);
            let cols: Vec<usize> = (0..n).map(|t| (t * 7919 + 3) % n).collect();
            let few = [n - 1, 0, 5, 5, 2];
            for k in all_kernels(d) {
                let src = FeatureKernel::new(&k, &x).unwrap();
                assert_eq!(src.len(), n);
                check_rows(&src, &k, &x, &cols);
                check_rows(&src, &k, &x, &few);
                check_rows(&src, &k, &x, &[]);
            }
        }
        let x = random_features(5, 2, 1, -1.0);
        let e = FeatureKernel::new(&Kernel::ChiSquared { gamma: 1.0 }, &x).unwrap_err();
        assert!(e.to_string().contains("non-negative"), "{e}");
        assert!(FeatureKernel::new(&Kernel::Precomputed, &x).is_err());
        assert!(FeatureKernel::new(&Kernel::Rbf { gamma: 0.0 }, &x).is_err());
        let owned = FeatureKernel::from_owned(&Kernel::Linear, x.clone()).unwrap();
        check_rows(&owned, &Kernel::Linear, &x, &[0, 1, 4]);
    }

    #[test]
    fn precomputed_source() {
        let x = random_features(30, 4, 3, 0.0);
        let k = Kernel::rbf_gamma(0.5).unwrap();
        let g = k.gram(&x).unwrap();
        let p = PrecomputedKernel::new(g.as_ref()).unwrap();
        assert_eq!(p.len(), 30);
        check_rows(&p, &k, &x, &[29, 0, 3, 3, 17]);
        assert_eq!(p.to_mat(), g);
        let rows = Features::new(
            30,
            30,
            (0..30)
                .flat_map(|i| (0..30).map(move |j| (i, j)))
                .map(|(i, j)| g[(i, j)])
                .collect(),
        )
        .unwrap();
        let from_rows = PrecomputedKernel::from_features(&rows).unwrap();
        check_rows(&from_rows, &k, &x, &[1, 2, 28]);

        let e = PrecomputedKernel::from_row_major(10, 12, vec![0.0; 120]).unwrap_err();
        assert!(
            e.to_string()
                .contains("precomputed kernel is 10×12, must be square"),
            "{e}"
        );
        let e = PrecomputedKernel::from_row_major(2, 2, vec![1.0, 0.5, 0.6, 1.0]).unwrap_err();
        assert!(e.to_string().contains("not symmetric"), "{e}");
        // tiny asymmetry (relative 1e-10) is accepted
        assert!(PrecomputedKernel::from_row_major(2, 2, vec![1.0, 0.5, 0.5 + 5e-11, 1.0]).is_ok());
        assert!(PrecomputedKernel::from_row_major(1, 1, vec![f64::NAN]).is_err());
    }

    /// `cargo test -p kernlearn --release -- --ignored --nocapture bench_rbf_row`
    #[test]
    #[ignore]
    fn bench_rbf_row() {
        use std::time::Instant;
        // Best of 30 rounds of 10 calls: robust to other processes on the machine.
        fn best(mut f: impl FnMut()) -> f64 {
            (0..30)
                .map(|_| {
                    let t0 = Instant::now();
                    for _ in 0..10 {
                        f();
                    }
                    t0.elapsed().as_secs_f64() / 10.0
                })
                .fold(f64::MAX, f64::min)
        }
        let (n, d) = (20_000, 10);
        let x = random_features(n, d, 5, 0.0);
        let k = Kernel::rbf_gamma(0.1).unwrap();
        let src = FeatureKernel::new(&k, &x).unwrap();
        let sorted: Vec<usize> = (0..n).collect();
        let shuffled: Vec<usize> = (0..n).map(|t| (t * 7919 + 3) % n).collect();
        let mut out = vec![0.0f32; n];
        for (order, cols) in [("sorted", &sorted), ("shuffled", &shuffled)] {
            let seq = best(|| src.fill_row_seq(7, cols, &mut out));
            let par = best(|| src.fill_row(7, cols, &mut out));
            println!(
                "RBF fill_row, {n} {order} columns, d={d}: sequential {:.0} µs, fill_row ({} threads) {:.0} µs",
                seq * 1e6,
                rayon::current_num_threads(),
                par * 1e6
            );
        }
        let x = random_features(4000, d, 6, 0.0);
        for k in [k, Kernel::laplacian(0.1).unwrap()] {
            let t0 = Instant::now();
            let g = k.gram(&x).unwrap();
            println!(
                "{k} gram 4000×4000, d={d}: {:.0} ms",
                t0.elapsed().as_secs_f64() * 1e3
            );
            assert_eq!(g.nrows(), 4000);
        }
    }
}
