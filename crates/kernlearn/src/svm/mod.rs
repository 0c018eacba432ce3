//! The SMO solver and the kernel machines built on it.
//!
//! - [`problem`]: the five duals (C-SVC, ν-SVC, one-class, ε-SVR, ν-SVR) on any
//!   [`crate::kernel::KernelSource`], the entry point for learned kernels.
//! - [`model`]: fitted machines with one-vs-one multiclass, decision values, Platt
//!   probabilities.

pub(crate) mod cache;
pub mod learner;
pub mod model;
pub mod probability;
pub mod problem;
mod qmatrix;
mod solver;
pub mod subset;
mod vector;
mod wss;

pub use model::{SvmFitInfo, SvmModel, SvmParams, SvmPaths, SvmType};
pub use problem::{
    solve_c_svc, solve_epsilon_svr, solve_nu_svc, solve_nu_svr, solve_one_class, solve_signed_qp,
    CSvcPath, DualShape, DualSolution, SolverSettings,
};
pub(crate) use qmatrix::release_dense_storage;
pub use subset::SubsetSource;
