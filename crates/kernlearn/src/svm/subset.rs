//! A view of a kernel restricted to a subset of its points (one-vs-one subproblems,
//! cross-validation folds) without copying the data or the kernel.

use crate::kernel::{KernelSource, ReorderedRows};
use std::cell::Cell;

thread_local! {
    static MAPPED: Cell<Vec<usize>> = const { Cell::new(Vec::new()) };
}

/// `k_sub(i, j) = k(idx[i], idx[j])`.
pub(crate) struct SubsetSource<'a> {
    inner: &'a dyn KernelSource,
    idx: Vec<usize>,
    /// For a reordering of all the points (a binary problem's classes grouped, as
    /// LIBSVM does): the inner source's own copy in that order, when it can make one
    /// ([`KernelSource::gather`]). It costs no more memory than the source and saves
    /// translating every column of every row (measured: ~4 % of a fit on magic).
    gathered: Option<Box<dyn KernelSource>>,
}

impl<'a> SubsetSource<'a> {
    /// The points `idx` of `inner`, in that order. A subset of a subset is flattened
    /// into one subset of the original source.
    pub(crate) fn new(inner: &'a dyn KernelSource, idx: Vec<usize>) -> Self {
        let (inner, idx) = match inner.as_subset() {
            Some((base, outer)) => (base, idx.iter().map(|&i| outer[i]).collect()),
            None => (inner, idx),
        };
        let whole = idx.len() == inner.len();
        let gathered = if whole { inner.gather(&idx) } else { None };
        Self {
            inner,
            idx,
            gathered,
        }
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
        if let Some(g) = &self.gathered {
            return g.fill_row(i, cols, out);
        }
        if let Some(row) = self.inner.stored_row(self.idx[i]) {
            for (o, &c) in out.iter_mut().zip(cols) {
                *o = row[self.idx[c]];
            }
            return;
        }
        // The mapped column list lives in a per-thread buffer: rows of small problems are
        // cheap (grid search over an in-memory Gram), so an allocation per row shows.
        // The buffer is taken out while in use, so a nested subset simply allocates.
        let mut mapped = MAPPED.with(|m| m.take());
        mapped.clear();
        mapped.extend(cols.iter().map(|&c| self.idx[c]));
        self.inner.fill_row(self.idx[i], &mapped, out);
        MAPPED.with(|m| m.set(mapped));
    }

    fn as_subset(&self) -> Option<(&dyn KernelSource, &[usize])> {
        Some((self.inner, &self.idx))
    }

    fn reorderable(&self, idx: &[usize]) -> Option<ReorderedRows> {
        let mapped: Vec<usize> = idx.iter().map(|&i| self.idx[i]).collect();
        self.inner.reorderable(&mapped)
    }
}
