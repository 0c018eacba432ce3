//! Automatic relevance determination: an SVM whose Gaussian kernel has one width per
//! feature, learned so that irrelevant features fade out of the kernel — the case kernel
//! learning exists for. The widths maximise the centered kernel-target alignment
//! (Cortes, Mohri and Rostamizadeh, "Algorithms for learning kernels based on centered
//! alignment", JMLR 2012) by gradient ascent (`alignment`); the SVM's C and an overall
//! scale of the widths are chosen by cross-validation, each fold learning its own widths
//! (`learner`). The fitted model reports each feature's relevance.

mod alignment;
mod catalogue;
mod groups;
mod learner;
mod margin;
mod model;
#[cfg(test)]
mod tests;

pub(crate) use catalogue::FAMILY;
pub use model::ArdModel;
