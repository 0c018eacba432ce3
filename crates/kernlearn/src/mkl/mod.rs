//! Multiple kernel learning (Moeller 2017, chapter 3): classifiers on a
//! combination `Σ_i μ_i K̄_i` of trace-normalised base kernels, and the thesis's
//! baselines.
//!
//! The base kernels, their evaluation by columns (never `m` Gram matrices) and the
//! machine on a fixed combination are the shared floor [`crate::bank`].
//! - [`MklParams`] / [`MklMethod`]: UNIFORM ([`UniformParams`], the SVM on the average
//!   kernel), MWUMKL ([`MwumklParams`], Algorithms 4–6, `O(mn)` memory; its
//!   single-kernel form, kernelised Gilbert, also serves the localized methods) and
//!   EasyMKL ([`EasyMklParams`], Aiolli and Donini 2015) and SPG-GMKL ([`SpgGmklParams`],
//!   Jain, Vishwanathan and Varma 2012: spectral projected gradient on the weights
//!   around the SMO solver, L1 or p-norm regulariser).
//! - [`NystromLinearParams`]: LIBLINEAR+ — [`crate::bank::NystromFeatures`] per kernel and a linear
//!   SVM by dual coordinate descent ([`LinearSvmParams`]).
//! - [`MklModel`], [`NystromLinearModel`]: the one-vs-one models (of
//!   [`crate::bank::MklMachine`] and [`NystromLinearMachine`]).
mod catalogue;
mod easymkl;
mod learner;
mod linear;
mod model;
mod mwumkl;
mod nystrom;
mod scale_out;
mod spggmkl;
mod uniform;

pub(crate) use catalogue::FAMILY;
pub use easymkl::EasyMklParams;
pub use learner::{MklLearner, NystromLinearLearner};
pub use linear::{LinearLoss, LinearSvmParams};
pub use model::{weight_sparsity, MklMethod, MklModel, MklParams};
pub use mwumkl::MwumklParams;
#[cfg(test)]
use mwumkl::{
    finish as mwumkl_finish, kernel_weights as mwumkl_kernel_weights,
    most_violating as mwumkl_most_violating, MwumklShard, MwumklSolution,
};
pub use nystrom::{NystromLinearMachine, NystromLinearModel, NystromLinearParams};
pub use spggmkl::{GmklRegulariser, SpgGmklParams};
pub use uniform::UniformParams;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod weighted_tests;
