//! DKMO and M-DKMO (Song, Thiagarajan, Sattigeri and Spanias, "Optimizing Kernel
//! Machines using Deep Learning", IEEE TNNLS 2018): kernel machines optimised as neural
//! networks over dense Nyström embeddings of the kernels.
//!
//! - [`input`]: where the kernels come from (features + kernel functions, or kernel
//!   values only, a Gram set) and the checks of a training Gram matrix.
//! - [`embed`]: the ensemble of dense embeddings of one kernel (§III-A): conventional
//!   Nyström (eq. 3) and clustered Nyström (eq. 4) with landmarks from k-means,
//!   k-medians, k-medoids, agglomerative and spectral clustering.

mod catalogue;
mod cluster;
pub mod embed;
pub mod input;
pub mod learner;
pub mod model;
pub mod net;

pub(crate) use catalogue::FAMILY;
pub use embed::{
    fit_ensemble, Embedding, EmbeddingScheme, EnsembleSize, LandmarkMethod, Landmarks,
};
pub use input::{check_gram, gamma_rule, rule_kernel, KernelInput, PSD_TOL, SYMMETRY_TOL};
pub use model::{DkmoFit, DkmoFitInfo, DkmoModel, DkmoParams};
pub use net::{Architecture, Fusion};
