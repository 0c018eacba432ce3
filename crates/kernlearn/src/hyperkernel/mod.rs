//! Hyperkernels: learning the kernel in a hyper-RKHS (Ong, Smola and Williamson,
//! "Learning the Kernel with Hyperkernels", JMLR 6, 2005).
//!
//! - [`kernels`]: the hyperkernels of section 4 — harmonic (12)–(13), ARD (14), the
//!   power series of Table 2 (11), explicit expansions (15)–(16) — with their domains.
//! - `lowrank`: the pivoted incomplete Cholesky of the `m² × m²` hyperkernel matrix over
//!   the training pairs (section 7.1), pivot columns only, unordered pairs only.
//! - [`program`]: Examples 7–12 (C-SVM (27), ν-SVM (28), Lagrangian SVM (29), one-class
//!   (30), ν-regression (31), kernel-target alignment (32)) as conic programs solved by
//!   Clarabel.
//! - [`learned`]: the learned kernel `Σ β_a k̲(x̲_a, ·)`, an artifact usable by every
//!   estimator through [`crate::kernel::KernelSource`].
//! - [`model`]: the fit and the fitted machine; [`learner`]: the catalogue entry.

mod catalogue;
pub mod kernels;
pub mod learned;
pub mod learner;
pub(crate) mod lowrank;
pub mod model;
pub mod program;

pub(crate) use catalogue::FAMILY;
pub use kernels::{ExplicitTerm, Hyperkernel, HyperkernelKind, Series};
pub use learned::LearnedKernel;
pub use model::{
    hyperkernel_for, ConicInputs, HyperkernelInfo, HyperkernelModel, HyperkernelParams, Hypothesis,
};
pub use program::{Problem, WorkingSetRound};
