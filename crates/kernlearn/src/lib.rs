//! # kernlearn
//!
//! Kernel machines (SVM, SVR, one-class SVM) and the methods that learn their kernel.
//!
//! Layout (see `docs/DESIGN.md`):
//! - [`data`]: datasets, readers/writers (CSV, LIBSVM, KEEL), scaling, splits, synthetic sets.
//! - [`cluster`]: k-means (k-means++ seeding, parallel Lloyd iterations).
//! - [`kernel`]: kernel functions, Gram/cross matrices, normalisation.
//! - [`linalg`]: symmetric eigendecomposition, PSD projection, eigenvalue shrinkage.
//! - [`svm`]: the SMO solver (LIBSVM design) and the SVM/SVR/one-class estimators.
//! - [`estimator`]: the one interface every fitted model implements ([`estimator::Estimator`]).
//! - [`method`]: the method catalogue ([`method::MethodKind`]), the [`method::Learner`]
//!   contract every family implements, and [`method::Method`], a method plus its
//!   hyper-parameter selection.
//! - [`pipeline`]: scaler + method, the one fitting path, and the model file.
//! - [`experiment`]: the papers' repeated-split protocol over any method.
//! - [`multiclass`]: one-vs-one classification from binary machines (LIBSVM's order and vote).
//! - [`nonparametric`]: KNPL and DANK, learning every entry of the Gram matrix.
//! - [`mkl`]: multiple kernel learning (UNIFORM, MWUMKL, EasyMKL, Nyström + linear SVM).
//! - [`localized`]: localized MKL (LMKL, C-LMKL, SWMKL, LD-MKL; gated kernels).
//! - `plot` (cargo feature `plot`, off by default): PNG/SVG line plots, decision-boundary
//!   and heat-map panels (plotters).

// Numerical loops index several parallel arrays at once; iterator rewrites obscure them.
#![allow(clippy::needless_range_loop)]

mod check;
pub mod cluster;
pub mod data;
pub mod error;
pub mod estimator;
pub mod experiment;
pub mod kernel;
pub mod linalg;
pub mod localized;
pub mod method;
pub mod metrics;
pub mod mkl;
pub mod multiclass;
mod neighbors;
pub mod nonparametric;
pub mod pipeline;
#[cfg(feature = "plot")]
pub mod plot;
pub mod select;
pub mod svm;

pub use error::{Error, Result};
pub use estimator::{AnyModel, Estimator, Task};
pub use method::{Learner, Method, MethodKind, MethodOptions};
pub use pipeline::{FittedPipeline, Pipeline};
