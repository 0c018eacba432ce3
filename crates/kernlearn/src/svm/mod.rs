//! The SMO solver and the kernel machines built on it.
//!
//! - [`solve_c_svc`], [`solve_nu_svc`], [`solve_one_class`], [`solve_epsilon_svr`],
//!   [`solve_nu_svr`]: the five duals on any [`crate::kernel::KernelSource`], the entry
//!   point for learned kernels; [`CSvcPath`]: C-SVC along growing C.
//! - [`SvmParams`] / [`SvmModel`]: fitted machines with one-vs-one multiclass, decision
//!   values, Platt probabilities; LIBSVM's model file format
//!   ([`SvmModel::to_libsvm_model`], [`SvmModel::load_libsvm_model`]) and its prediction
//!   arithmetic ([`SvmModel::predict_libsvm`]).

mod batch;
pub(crate) mod cache;
mod estimator;
mod libsvm_format;
mod model;
mod probability;
mod problem;
mod qmatrix;
mod solver;
mod sparse;
mod subset;
mod validity;
mod vector;
mod warm;
mod weights;
mod wss;

pub use crate::multiclass::ClassOrder;
pub use libsvm_format::printf_g;
pub(crate) use model::decisions_from_train_kernel;
pub use model::{SvmFitInfo, SvmModel, SvmParams, SvmPaths, SvmType};
pub use problem::{
    solve_c_svc, solve_epsilon_svr, solve_nu_svc, solve_nu_svr, solve_one_class, CSvcPath,
    DualSolution, SolverSettings,
};
pub(crate) use problem::{solve_c_svc_weighted, solve_signed_qp, DualShape};
pub(crate) use qmatrix::release_dense_storage;
pub(crate) use subset::SubsetSource;
pub(crate) use warm::WarmStart;
pub(crate) use weights::positive_weights;
