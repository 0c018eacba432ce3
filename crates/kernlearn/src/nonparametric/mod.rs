//! Nonparametric kernel learning on the Gram matrix: KNPL (`K̃ = G ⊙ K`, AAAI 2018) and
//! DANK (`F ⊙ K` with a nuclear-norm penalty, its journal extension). See METHODS.md §2.
//!
//! - [`spectral`]: eigendecomposition, PSD projection and eigenvalue shrinkage, the inner
//!   step of both methods.
//! - [`machine`]: the fitted predictor on `W ⊙ K` with the nearest-neighbour extension.
//! - [`trace`]: per-iteration records for convergence plots.

pub mod machine;
pub mod spectral;
pub mod trace;

pub use machine::LearnedKernelMachine;
pub use spectral::{project_psd, shrink_psd, spectral_map, symmetric_eigen, SymmetricEigen};
pub use trace::Trace;
