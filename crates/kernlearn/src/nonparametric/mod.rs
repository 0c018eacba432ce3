//! Nonparametric kernel learning on the Gram matrix: KNPL (`K̃ = G ⊙ K`; Liu et al.,
//! "Nonlinear Pairwise Layer and Its Training for Kernel Learning", AAAI 2018) and DANK
//! (`F ⊙ K` with a nuclear-norm penalty, its journal extension; Liu et al., "Learning
//! Data-adaptive Nonparametric Kernels"). The eigendecompositions, PSD projection and
//! eigenvalue shrinkage of both methods' inner step are in [`crate::linalg`].
//!
//! - [`knpl`]: KNPL (`G ⊙ K`, alternating SMO and ADMM) and its model selection.
//! - [`LearnedKernelMachine`]: the fitted predictor on `W ⊙ K` with the
//!   nearest-neighbour extension.
//! - [`dank`]: DANK-SVM / DANK-SVR (Algorithms 1–2), [`DankModel`].
//! - [`ScalableDankModel`]: scalable DANK (section 5): k-means clusters, one box-only
//!   subproblem (22) per cluster.

mod catalogue;
pub mod dank;
pub mod knpl;
pub(crate) mod learner;
pub(crate) mod machine;
mod projection;
mod scalable;
mod scale_out;

pub(crate) use catalogue::{FAMILY, SCALABLE_DANK};
pub use dank::{
    DankFitInfo, DankMachines, DankModel, DankParams, DankSettings, EigenRoute, Scheme, StepRule,
};
pub use knpl::{GammaPoint, KnplModel, KnplPairInfo, KnplParams, KnplSearch, KnplSelection};
pub use learner::{DankLearner, KnplLearner, ScalableDankLearner};
pub use machine::LearnedKernelMachine;
pub use scalable::{ClusterMachine, ScalableDankModel, ScalableDankParams};

/// Helpers shared by the tests of this module's methods.
#[cfg(test)]
pub(crate) mod testing {
    /// `max_i |a_i − b_i|` over paired values (0 for empty input).
    pub(crate) fn largest_gap(
        a: impl IntoIterator<Item = f64>,
        b: impl IntoIterator<Item = f64>,
    ) -> f64 {
        a.into_iter()
            .zip(b)
            .map(|(p, q)| (p - q).abs())
            .fold(0.0, f64::max)
    }
}
