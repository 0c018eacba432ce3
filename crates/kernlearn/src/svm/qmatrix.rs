//! The `Q` matrices of the SVM duals, read row by row through the row cache.
//!
//! C-SVC / ν-SVC: `Q_ij = y_i y_j k(x_i, x_j)`; one-class: `Q_ij = k(x_i, x_j)`;
//! ε-SVR / ν-SVR: the `2l × 2l` matrix `[K −K; −K K]` (LIBSVM's `SVR_Q`).

use super::cache::RowCache;
use crate::kernel::KernelSource;

/// What the SMO solver needs from `Q`: rows (with the diagonal) restricted to the active set,
/// and the ability to follow a permutation of the variables (shrinking).
pub(crate) trait QMatrix {
    /// Row `i`, columns `0..len`, and the diagonal.
    fn row(&mut self, i: usize, len: usize) -> (&[f32], &[f64]);
    /// Rows `i` and `j` (distinct), columns `0..len`, and the diagonal.
    fn two_rows(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32], &[f64]);
    /// Swaps variables `i` and `j`.
    fn swap_index(&mut self, i: usize, j: usize);
}

/// `Q_ij = s_i s_j k(x_i, x_j)` with signs `s` (labels for SVC, all ones for one-class).
pub(crate) struct SignedKernelQ<'a> {
    source: &'a dyn KernelSource,
    /// Current position → original point.
    index: Vec<usize>,
    sign: Vec<i8>,
    diag: Vec<f64>,
    cache: RowCache,
}

impl<'a> SignedKernelQ<'a> {
    pub(crate) fn new(source: &'a dyn KernelSource, sign: &[i8], cache_bytes: usize) -> Self {
        let n = source.len();
        Self {
            source,
            index: (0..n).collect(),
            sign: sign.to_vec(),
            diag: (0..n).map(|i| source.diag(i)).collect(),
            cache: RowCache::new(n, cache_bytes),
        }
    }

    fn fill(&mut self, i: usize, len: usize) {
        let start = self.cache.reserve(i, len);
        if start < len {
            let out = &mut self.cache.row_mut(i)[start..len];
            self.source
                .fill_row(self.index[i], &self.index[start..len], out);
            if self.sign[i] < 0 {
                for (v, &s) in out.iter_mut().zip(&self.sign[start..len]) {
                    if s > 0 {
                        *v = -*v;
                    }
                }
            } else {
                for (v, &s) in out.iter_mut().zip(&self.sign[start..len]) {
                    if s < 0 {
                        *v = -*v;
                    }
                }
            }
        }
    }
}

impl QMatrix for SignedKernelQ<'_> {
    fn row(&mut self, i: usize, len: usize) -> (&[f32], &[f64]) {
        self.fill(i, len);
        (&self.cache.row(i)[..len], &self.diag)
    }

    fn two_rows(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32], &[f64]) {
        self.fill(i, len);
        self.fill(j, len);
        let (a, b) = self.cache.two_rows(i, j);
        (&a[..len], &b[..len], &self.diag)
    }

    fn swap_index(&mut self, i: usize, j: usize) {
        self.cache.swap_index(i, j);
        self.index.swap(i, j);
        self.sign.swap(i, j);
        self.diag.swap(i, j);
    }
}

/// Signs of the `2l` SVR variables: `+1` for `α`, `−1` for `α*`.
pub(crate) fn svr_signs(l: usize) -> Vec<i8> {
    std::iter::repeat_n(1, l)
        .chain(std::iter::repeat_n(-1, l))
        .collect()
}

/// The ε-SVR / ν-SVR matrix: variable `t < l` is `α_t`, variable `t ≥ l` is `α*_{t−l}`;
/// `Q_st = σ_s σ_t k(x_{s mod l}, x_{t mod l})` with `σ = +1` then `−1`.
/// Kernel rows are cached unpermuted (length `l`), and signed rows are assembled into two
/// alternating buffers.
pub(crate) struct SvrQ<'a> {
    source: &'a dyn KernelSource,
    all_points: Vec<usize>,
    index: Vec<usize>,
    sign: Vec<i8>,
    diag: Vec<f64>,
    cache: RowCache,
    buffers: [Vec<f32>; 2],
}

impl<'a> SvrQ<'a> {
    pub(crate) fn new(source: &'a dyn KernelSource, cache_bytes: usize) -> Self {
        let l = source.len();
        let diag: Vec<f64> = (0..l).map(|i| source.diag(i)).collect();
        Self {
            source,
            all_points: (0..l).collect(),
            index: (0..l).chain(0..l).collect(),
            sign: svr_signs(l),
            diag: diag.iter().chain(diag.iter()).copied().collect(),
            cache: RowCache::new(l, cache_bytes),
            buffers: [vec![0.0; 2 * l], vec![0.0; 2 * l]],
        }
    }

    /// Writes signed row `i` (columns `0..len`) into buffer `b`.
    fn assemble(&mut self, i: usize, len: usize, b: usize) {
        let real = self.index[i];
        let l = self.all_points.len();
        let start = self.cache.reserve(real, l);
        if start < l {
            let out = &mut self.cache.row_mut(real)[start..l];
            self.source.fill_row(real, &self.all_points[start..l], out);
        }
        let data = self.cache.row(real);
        let si = self.sign[i];
        let buf = &mut self.buffers[b][..len];
        for ((v, &s), &k) in buf
            .iter_mut()
            .zip(&self.sign[..len])
            .zip(&self.index[..len])
        {
            let q = data[k];
            *v = if s == si { q } else { -q };
        }
    }
}

impl QMatrix for SvrQ<'_> {
    fn row(&mut self, i: usize, len: usize) -> (&[f32], &[f64]) {
        self.assemble(i, len, 0);
        (&self.buffers[0][..len], &self.diag)
    }

    fn two_rows(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32], &[f64]) {
        self.assemble(i, len, 0);
        self.assemble(j, len, 1);
        (&self.buffers[0][..len], &self.buffers[1][..len], &self.diag)
    }

    fn swap_index(&mut self, i: usize, j: usize) {
        self.index.swap(i, j);
        self.sign.swap(i, j);
        self.diag.swap(i, j);
    }
}
