//! Nonparametric kernel learning on the Gram matrix: KNPL (`K̃ = G ⊙ K`, AAAI 2018) and
//! DANK (`F ⊙ K` with a nuclear-norm penalty, its journal extension). See METHODS.md §2.
//!
//! - [`knpl`]: KNPL (`G ⊙ K`, alternating SMO and ADMM) and its model selection.
//! - [`spectral`]: eigendecomposition, PSD projection and eigenvalue shrinkage, the inner
//!   step of both methods.
//! - [`machine`]: the fitted predictor on `W ⊙ K` with the nearest-neighbour extension.
//! - [`trace`]: per-iteration records for convergence plots.

pub mod knpl;
pub mod machine;
pub mod spectral;
pub mod trace;

pub use knpl::{select_and_fit_knpl, KnplModel, KnplParams, KnplSearch, KnplSelection};
pub use machine::LearnedKernelMachine;
pub use spectral::{project_psd, shrink_psd, spectral_map, symmetric_eigen, SymmetricEigen};
pub use trace::Trace;
