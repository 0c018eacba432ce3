//! Nonparametric kernel learning on the Gram matrix: KNPL (`K̃ = G ⊙ K`, AAAI 2018) and
//! DANK (`F ⊙ K` with a nuclear-norm penalty, its journal extension). See METHODS.md §2.
//!
//! - [`knpl`]: KNPL (`G ⊙ K`, alternating SMO and ADMM) and its model selection.
//! - [`spectral`]: eigendecomposition, PSD projection and eigenvalue shrinkage, the inner
//!   step of both methods.
//! - [`machine`]: the fitted predictor on `W ⊙ K` with the nearest-neighbour extension.
//! - [`dank`]: DANK-SVM / DANK-SVR (Algorithms 1–2), [`DankModel`].
//! - [`scalable`]: scalable DANK (section 5): k-means clusters, one box-only subproblem
//!   (22) per cluster, [`ScalableDankModel`].
//! - [`projection`]: exact projection onto `{0 ≤ z ≤ C, aᵀz = b}`.
//! - [`trace`]: per-iteration records for convergence plots.

pub mod dank;
pub mod knpl;
pub mod learner;
pub mod machine;
pub mod projection;
pub mod scalable;
pub mod spectral;
pub mod trace;

pub use dank::{
    dank_search_base, fit_dank_with_search, select_and_fit_dank, DankModel, DankParams,
    DankSettings,
};
pub use knpl::{select_and_fit_knpl, KnplModel, KnplParams, KnplSearch, KnplSelection};
pub use machine::LearnedKernelMachine;
pub use projection::project_box_equality;
pub use scalable::{ClusterMachine, ScalableDankModel, ScalableDankParams};
pub use spectral::{project_psd, shrink_psd, spectral_map, symmetric_eigen, SymmetricEigen};
pub use trace::Trace;

/// Helpers shared by the tests of this module's methods.
#[cfg(test)]
pub(crate) mod testing {
    /// `max_i |a_i − b_i|` over paired values (0 for empty input).
    pub fn largest_gap(a: impl IntoIterator<Item = f64>, b: impl IntoIterator<Item = f64>) -> f64 {
        a.into_iter()
            .zip(b)
            .map(|(p, q)| (p - q).abs())
            .fold(0.0, f64::max)
    }
}
