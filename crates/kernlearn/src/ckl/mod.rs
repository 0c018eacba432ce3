//! Continuous kernel learning (CKL; Moeller, thesis 2017, chapter 5): a shift-invariant
//! kernel learned by training the frequencies of a random-Fourier-feature layer end to
//! end.
//!
//! - [`features`]: random Fourier features (Gaussian, Laplacian) and Nyström features
//!   (uniform or k-means landmarks) as fixed feature maps.
//! - the network (§5.3): `x ↦ softmax(√2 cos(xW + b) W_o + b_o)`, `W ~ N(0, σ²)`,
//!   `b ~ U[0, π)` (METHODS.md erratum), `W_o ~ U[−0.1, 0.1]`, `b_o = 0` (Table 5.2),
//!   trained by [`crate::nn::train`] (log loss, SGD with momentum or AdamW, early
//!   stopping), optional weight decay and per-ω norm cap (§5.2.4).
//! - [`CklModel`]: the fitted network or the "fixed features + linear model" baseline
//!   (the same softmax layer on untrained features); [`SpectralKernel`], the learned
//!   kernel `k(x, x') = (1/D) Σ_j cos(ω_jᵀ(x − x'))`, usable by SMO as a
//!   [`crate::kernel::KernelSource`].
//! - [`learner`]: `ckl` / `rff-linear` in the catalogue, and the random search of
//!   Table 5.3 ([`RandomSearch`]).

mod catalogue;
pub mod features;
#[cfg(feature = "plot")]
mod figure;
pub mod learner;
mod model;
mod network;

pub use catalogue::SearchScoring;
pub(crate) use catalogue::FAMILY;
pub use features::{FeatureMap, FeatureMapKind, FourierFeatures};
pub use learner::{CklLearner, RandomSearch};
pub use model::{CklModel, CklParams, SpectralKernel};

#[cfg(test)]
mod tests;
