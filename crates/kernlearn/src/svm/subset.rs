//! A view of a kernel restricted to a subset of its points (one-vs-one subproblems,
//! cross-validation folds) without copying the data or the kernel.

use crate::kernel::KernelSource;

/// `k_sub(i, j) = k(idx[i], idx[j])`.
pub struct SubsetSource<'a> {
    inner: &'a dyn KernelSource,
    idx: Vec<usize>,
}

impl<'a> SubsetSource<'a> {
    /// The points `idx` of `inner`, in that order.
    pub fn new(inner: &'a dyn KernelSource, idx: Vec<usize>) -> Self {
        Self { inner, idx }
    }
}

impl KernelSource for SubsetSource<'_> {
    fn len(&self) -> usize {
        self.idx.len()
    }

    fn diag(&self, i: usize) -> f64 {
        self.inner.diag(self.idx[i])
    }

    fn fill_row(&self, i: usize, cols: &[usize], out: &mut [f32]) {
        // One allocation per row is small next to the kernel evaluations it feeds.
        let mapped: Vec<usize> = cols.iter().map(|&c| self.idx[c]).collect();
        self.inner.fill_row(self.idx[i], &mapped, out);
    }
}
