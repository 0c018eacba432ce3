//! Multiple kernel learning (Moeller 2017, chapter 3): classifiers on a
//! combination `Σ_i μ_i K̄_i` of trace-normalised base kernels, and the thesis's
//! baselines.
//!
//! - [`KernelFamily`]: base kernel families as a spec (`family12@each`, JSON files).
//!   Internally the base kernels are evaluated by columns (never `m` Gram matrices),
//!   with trace factors from the diagonal and the combination as a
//!   [`crate::kernel::KernelSource`].
//! - [`MklParams`] / [`MklMethod`]: UNIFORM ([`UniformParams`], the SVM on the average
//!   kernel), MWUMKL ([`MwumklParams`], Algorithms 4–6, `O(mn)` memory; its
//!   single-kernel form, kernelised Gilbert, also serves the localized methods) and
//!   EasyMKL ([`EasyMklParams`], Aiolli and Donini 2015) and SPG-GMKL ([`SpgGmklParams`],
//!   Jain, Vishwanathan and Varma 2012: spectral projected gradient on the weights
//!   around the SMO solver, L1 or p-norm regulariser).
//! - [`NystromLinearParams`]: LIBLINEAR+ — [`NystromFeatures`] per kernel and a linear
//!   SVM by dual coordinate descent ([`LinearSvmParams`]).
//! - [`MklMachine`], [`MklModel`], [`NystromLinearModel`]: the fitted binary machine and
//!   the one-vs-one models.
mod base;
mod catalogue;
mod easymkl;
mod family;
mod gilbert;
pub(crate) mod learner;
mod linear;
mod machine;
mod model;
mod mwumkl;
mod nystrom;
mod spggmkl;
mod uniform;

pub(crate) use base::KernelBank;
pub(crate) use base::TableBufferReuse;
#[cfg(feature = "networks")]
pub(crate) use catalogue::LANDMARKS;
pub(crate) use catalogue::{FAMILY, KERNELS};
pub use easymkl::EasyMklParams;
pub(crate) use family::family_machine;
pub use family::{family12, FamilyItem, FeatureSet, KernelFamily, KernelSet};
pub(crate) use gilbert::{solve_gilbert, GilbertSettings};
pub use learner::{MklLearner, NystromLinearLearner};
pub use linear::{LinearLoss, LinearSvmParams};
pub use machine::{MachineInfo, MklMachine};
pub use model::{weight_sparsity, MklMethod, MklModel, MklParams};
pub use mwumkl::{
    finish as mwumkl_finish, kernel_weights as mwumkl_kernel_weights,
    most_violating as mwumkl_most_violating, MwumklParams, MwumklShard, MwumklSolution, RoundPart,
};
pub use nystrom::{
    NystromFeatures, NystromLinearMachine, NystromLinearModel, NystromLinearParams, NystromMap,
};
pub use spggmkl::{GmklRegulariser, SpgGmklParams};
pub use uniform::UniformParams;

#[cfg(test)]
mod tests;
