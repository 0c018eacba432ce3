//! Multiple kernel learning (Moeller 2017, chapter 3): classifiers on a
//! combination `Σ_i μ_i K̄_i` of trace-normalised base kernels, and the thesis's
//! baselines.
//!
//! - [`family`]: base kernel families as a spec (`family12@each`, JSON files).
//! - [`base`]: base kernels evaluated by columns (never `m` Gram matrices), trace factors
//!   from the diagonal, the combined kernel as a [`crate::kernel::KernelSource`].
//! - [`uniform`]: UNIFORM, the SVM on the average kernel.
//! - [`mwumkl`]: MWUMKL (Algorithms 4–6), `O(mn)` memory.
//! - [`gilbert`]: its single-kernel form, a fast approximate SVM solver.
//! - [`easymkl`]: EasyMKL (Aiolli and Donini 2015).
//! - [`nystrom`], [`linear`]: LIBLINEAR+ — Nyström features per kernel and a linear SVM
//!   by dual coordinate descent.
//! - [`machine`], [`model`]: the fitted binary machine and the one-vs-one [`MklModel`].
pub mod base;
pub mod easymkl;
pub mod family;
pub mod gilbert;
pub mod learner;
pub mod linear;
pub mod machine;
pub mod model;
pub mod mwumkl;
pub mod nystrom;
pub mod uniform;

pub use base::{is_psd, BaseKernels, CombinedKernel, KernelBank};
pub use easymkl::EasyMklParams;
pub use family::{family12, FamilyItem, FeatureSet, KernelFamily, KernelSet};
pub use gilbert::{solve_gilbert, GilbertSettings};
pub use linear::{solve_linear_svm, LinearLoss, LinearSvmParams};
pub use machine::{MachineInfo, MklMachine};
pub use model::{weight_sparsity, MklMethod, MklModel, MklParams};
pub use mwumkl::MwumklParams;
pub use nystrom::{NystromLinearModel, NystromLinearParams};
pub use uniform::UniformParams;
