//! Nonparametric kernel learning on the Gram matrix: KNPL (`K̃ = G ⊙ K`; Liu et al.,
//! "Nonlinear Pairwise Layer and Its Training for Kernel Learning", AAAI 2018) and DANK
//! (`F ⊙ K` with a nuclear-norm penalty, its journal extension; Liu et al., "Learning
//! Data-adaptive Nonparametric Kernels"). The eigendecompositions, PSD projection and
//! eigenvalue shrinkage of both methods' inner step are in [`crate::linalg`].
//!
//! - [`knpl`]: KNPL (`G ⊙ K`, alternating SMO and ADMM) and its model selection.
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
pub mod trace;

pub use dank::{dank_search_base, DankModel, DankParams, DankSettings};
pub use knpl::{KnplModel, KnplParams, KnplSearch, KnplSelection};
pub use machine::LearnedKernelMachine;
pub use projection::project_box_equality;
pub use scalable::{ClusterMachine, ScalableDankModel, ScalableDankParams};
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
