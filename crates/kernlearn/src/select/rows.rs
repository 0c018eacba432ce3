//! The rows a grid search reads: dense features, or sparse (CSR) ones such as the hashed
//! text of a LIBSVM file. The search needs three things of them, each computed as a fit
//! on the same rows computes it, so that a fold's scores equal those of plain refits.

use super::gram::DenseGram;
use crate::data::{Features, SparseFeatures};
use crate::kernel::{sparse_map_cross, FeatureKernel, Kernel, KernelSource, SparseFeatureKernel};
use crate::svm::SvmModel;
use crate::Result;

/// Training rows of a grid search (see the module documentation).
#[derive(Clone, Copy)]
pub(crate) enum SearchRows<'a> {
    /// Row-major dense features.
    Dense(&'a Features),
    /// CSR features; kernel rows by [`SparseFeatureKernel`].
    Sparse(&'a SparseFeatures),
}

impl SearchRows<'_> {
    /// Number of rows.
    pub(crate) fn n_rows(&self) -> usize {
        match self {
            Self::Dense(x) => x.n_rows(),
            Self::Sparse(x) => x.n_rows(),
        }
    }

    /// The Gram matrix of all rows under `kernel`, shared by every fold and C.
    pub(super) fn gram(&self, kernel: &Kernel) -> Result<DenseGram> {
        match self {
            Self::Dense(x) => DenseGram::new(kernel, x),
            Self::Sparse(x) => Ok(DenseGram::from_source(&SparseFeatureKernel::new(
                kernel, x,
            )?)),
        }
    }

    /// Kernel rows of the training points `train` (in that order) for the solver, when
    /// there is no Gram matrix.
    pub(super) fn fold_source(
        &self,
        kernel: &Kernel,
        train: &[usize],
    ) -> Result<Box<dyn KernelSource>> {
        match self {
            Self::Dense(x) => Ok(Box::new(FeatureKernel::from_owned(
                kernel,
                x.select_rows(train),
            )?)),
            Self::Sparse(x) => Ok(Box::new(SparseFeatureKernel::owned(
                kernel,
                x.select_rows(train),
            )?)),
        }
    }

    /// Decision values of `model` (fitted on the rows `train`) for the rows `test`,
    /// computed from the features as the model's own prediction computes them.
    pub(super) fn decisions(
        &self,
        kernel: &Kernel,
        model: &SvmModel,
        train: &[usize],
        test: &[usize],
    ) -> Result<Vec<Vec<f64>>> {
        let sv: Vec<usize> = model.sv_indices.iter().map(|&s| train[s]).collect();
        match self {
            Self::Dense(x) => {
                let mut k_sv = vec![0.0; sv.len()];
                Ok(test
                    .iter()
                    .map(|&t| {
                        for (k, &s) in k_sv.iter_mut().zip(&sv) {
                            *k = kernel.eval(x.row(t), x.row(s));
                        }
                        model.decision_from_kernel(&k_sv)
                    })
                    .collect())
            }
            Self::Sparse(x) => {
                sparse_map_cross(kernel, &x.select_rows(&sv), &x.select_rows(test), |k| {
                    model.decision_from_kernel(k)
                })
            }
        }
    }
}
