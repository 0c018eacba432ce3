//! Kernel functions, Gram and cross matrices, normalisation, and the row interface the
//! SMO solver reads kernels through.
//!
//! - [`Kernel`]: the kernel functions (`eval`, spec parsing/printing, validation).
//! - [`Kernel::gram`], [`Kernel::cross`]: parallel Gram (`n × n`) and cross (`test × train`)
//!   matrices as `faer::Mat<f64>`; [`normalize_trace`], [`normalize_cosine`] and their
//!   `_cross` versions.
//! - [`FeatureKernel`], [`SparseFeatureKernel`], [`PrecomputedKernel`]: [`KernelSource`]s
//!   for the SMO solver (dense features, CSR features, a stored Gram matrix).
//! - [`KernelOnFeatures`], `per_feature`: kernels on feature subsets (for MKL).

mod cross;
mod functions;
mod matrix;
mod reordered;
mod source;
mod sparse;
mod subset;

pub(crate) use functions::powi;
pub use functions::Kernel;
pub(crate) use functions::{dot, sq_dist};
pub(crate) use matrix::par_for;
pub(crate) use matrix::trace_factor;
pub use matrix::{
    normalize_cosine, normalize_cosine_cross, normalize_trace, normalize_trace_cross,
};
pub use reordered::ReorderedRows;
pub(crate) use reordered::MAX_ROWS;
pub(crate) use source::fill_row_chunked;
pub use source::{FeatureKernel, PrecomputedKernel};
pub use sparse::SparseFeatureKernel;
pub(crate) use sparse::{merge_sum, sparse_map_cross};
pub(crate) use subset::per_feature;
pub use subset::KernelOnFeatures;

/// Kernel entries as the SMO solver reads them: one row at a time, for a chosen set of
/// columns. Every kernel the library can learn (`G ⊙ K`, a weighted sum of kernels, a
/// precomputed Gram matrix, a kernel on dense or sparse features) implements this, and
/// the solver never sees features.
pub trait KernelSource: Sync {
    /// Number of training points (the Gram matrix is `len() × len()`).
    fn len(&self) -> usize;

    /// True when there are no points.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `k(x_i, x_i)`.
    fn diag(&self, i: usize) -> f64;

    /// Writes `out[t] = k(x_i, x_{cols[t]})` for every `t`. `out.len() == cols.len()`.
    /// Stored as `f32` because the solver's row cache is `f32` (as in LIBSVM).
    fn fill_row(&self, i: usize, cols: &[usize], out: &mut [f32]);

    /// For a view of some points of another source: that source and the points, so that
    /// a view of a view reads the original directly (see `svm::SubsetSource`).
    fn as_subset(&self) -> Option<(&dyn KernelSource, &[usize])> {
        None
    }

    /// Row `i` of the kernel matrix (`len()` values), when the source holds the matrix in
    /// memory as `f32`: views of the source then gather from it in one pass.
    fn stored_row(&self, _i: usize) -> Option<&[f32]> {
        None
    }

    /// The same kernel on the points `idx` (in that order) as a source of its own with
    /// bit-identical entries, when the source can copy its data (features); `None`
    /// otherwise. Lets a reordered view compute rows without translating every column.
    fn gather(&self, _idx: &[usize]) -> Option<Box<dyn KernelSource>> {
        None
    }

    /// A copy of the points `idx` (in that order) that follows the solver's reordering,
    /// for rows computed on contiguous ranges of positions ([`ReorderedRows`]); `None`
    /// when the source has no such form (the solver then maps positions to points
    /// through an index).
    fn reorderable(&self, _idx: &[usize]) -> Option<ReorderedRows> {
        None
    }
}

/// A borrowed source is a source, so that solver matrices can own or borrow theirs.
impl<T: KernelSource + ?Sized> KernelSource for &T {
    fn len(&self) -> usize {
        (**self).len()
    }

    fn diag(&self, i: usize) -> f64 {
        (**self).diag(i)
    }

    fn fill_row(&self, i: usize, cols: &[usize], out: &mut [f32]) {
        (**self).fill_row(i, cols, out)
    }

    fn as_subset(&self) -> Option<(&dyn KernelSource, &[usize])> {
        (**self).as_subset()
    }

    fn stored_row(&self, i: usize) -> Option<&[f32]> {
        (**self).stored_row(i)
    }

    fn gather(&self, idx: &[usize]) -> Option<Box<dyn KernelSource>> {
        (**self).gather(idx)
    }

    fn reorderable(&self, idx: &[usize]) -> Option<ReorderedRows> {
        (**self).reorderable(idx)
    }
}
