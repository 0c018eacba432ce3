//! # kernlearn
//!
//! Kernel machines (SVM, SVR, one-class SVM) and the methods that learn their kernel.
//!
//! ```
//! use kernlearn::data::{read_csv, ScaleMode};
//! use kernlearn::learner::GridSettings;
//! use kernlearn::options::MethodOptions;
//! use kernlearn::{Predictor, Method, MethodKind, Pipeline};
//!
//! # fn main() -> kernlearn::Result<()> {
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/heart.csv");
//! let data = read_csv(path.as_ref(), None)?;
//! // DANK (learned F ⊙ K) with σ and C chosen by SVM-CV, the paper's protocol; any
//! // method of the catalogue (`MethodKind::all()`) is built and fitted the same way.
//! let options = MethodOptions::default();
//! let method = Method::build("dank".parse::<MethodKind>().unwrap(), &options, &data, Some(GridSettings::default()))?;
//! let fitted = Pipeline::fit(ScaleMode::ZeroOne, &method, &data, 0, &|_| {})?;
//! let predictions = fitted.pipeline.predict(&data.x)?;
//! assert_eq!(predictions.len(), data.len());
//! println!("σ = {:?}, C = {:?}", fitted.chosen.sigma, fitted.chosen.c);
//! # let dir = std::env::temp_dir().join(format!("kernlearn-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir).unwrap();
//! let file = dir.join("dank.json");
//! fitted.pipeline.save(&file)?;
//! assert_eq!(Pipeline::load(&file)?.predict(&data.x)?, predictions);
//! # std::fs::remove_dir_all(&dir).unwrap();
//! # Ok(())
//! # }
//! ```
//!
//! Layout (see `docs/DESIGN.md`; `tests/architecture.rs` checks that this list names
//! every public module), bottom layer first:
//! - `error`, `options`, `trace`, `metrics`: errors, the option machinery, per-iteration
//!   records (and the alternation diagnostic), accuracy and MSE.
//! - [`cancel`]: cooperative interruption of a running fit (Ctrl-C in Python).
//! - [`watch`]: how far a running solve has come (the command line's progress bar).
//! - [`data`]: datasets, readers/writers (CSV, LIBSVM, KEEL), scaling, splits, synthetic sets.
//! - [`kernel`]: kernel functions, Gram/cross matrices, normalisation, the solver's
//!   `KernelSource` seam.
//! - [`output`]: the one writer of every file (no clobbering, atomic writes).
//! - `plot` (cargo feature `plot`, off by default): PNG/SVG line plots, decision-boundary
//!   and heat-map panels (plotters).
//! - [`linalg`], [`cluster`], `nn` (feature `networks`): symmetric eigendecomposition and
//!   PSD projection; k-means; the network trainer of CKL and DKMO.
//! - [`multiclass`]: one-vs-one classification from binary machines (LIBSVM's order and vote).
//! - [`predictor`]: the one interface every fitted model implements ([`Predictor`]).
//! - [`svm`]: the SMO solver (LIBSVM design) and the SVM/SVR/one-class machines.
//! - [`select`]: SVM-CV / SVR-CV grid search.
//! - [`bank`]: kernel families and banks of base kernels, the machine on a fixed
//!   combination, the Gilbert solver and Nyström maps: the floor of every family that
//!   combines kernels.
//! - [`learner`]: the [`Learner`] contract every family implements, [`Method`], fitted
//!   models ([`AnyModel`]), the selection shapes and the base-kernel fallback, the
//!   scale-out protocol.
//! - the families, none importing another: [`fixed`] (kernel machines on a fixed
//!   kernel), [`nonparametric`] (KNPL and DANK, learning every entry of the Gram matrix),
//!   [`mkl`] (UNIFORM, MWUMKL, EasyMKL, SPG-GMKL, Nyström + linear SVM), [`localized`]
//!   (LMKL, C-LMKL, SWMKL, LD-MKL), [`ard`] (per-feature widths by kernel-target
//!   alignment, with each feature's relevance), `hyperkernel` (feature `conic`), `ckl` and
//!   `dkmo` (feature `networks`).
//! - [`method`]: the method catalogue ([`MethodKind`]) and reading model files back.
//! - [`pipeline`]: scaler + method, the one fitting path, and the model file.
//! - [`experiment`], `figure` (feature `plot`): the papers' repeated-split protocol over
//!   any method; trace plots and the papers' figure choices.

// Numerical loops index several parallel arrays at once; iterator rewrites obscure them.
#![allow(clippy::needless_range_loop)]

/// Lists each family's declaration ([`learner::Family`], its folder's `FAMILY`) in
/// [`FAMILIES`], in catalogue order: adding a family is its folder, its `pub mod` line
/// below and its name here. The modules are declared outside the macro so that rustfmt
/// (which does not enter macro calls) formats the family folders.
macro_rules! families {
    ($($(#[$when:meta])* $family:ident),* $(,)?) => {
        /// Every family, in catalogue order (the registry, [`method`], reads them).
        pub(crate) static FAMILIES: &[&learner::Family] = &[$($(#[$when])* &$family::FAMILY),*];
    };
}

families!(
    fixed,
    nonparametric,
    mkl,
    localized,
    ard,
    #[cfg(feature = "conic")]
    hyperkernel,
    #[cfg(feature = "networks")]
    ckl,
    #[cfg(feature = "networks")]
    dkmo,
    #[cfg(test)]
    test_family
);

pub mod ard;
pub mod bank;
#[cfg(feature = "networks")]
pub mod ckl;
#[cfg(feature = "networks")]
pub mod dkmo;
pub mod fixed;
#[cfg(feature = "conic")]
pub mod hyperkernel;
pub mod localized;
pub mod mkl;
pub mod nonparametric;
#[cfg(test)]
mod test_family;

pub mod cancel;
mod check;
pub mod cluster;
pub mod data;
pub mod error;
pub mod experiment;
#[cfg(feature = "plot")]
pub mod figure;
pub mod kernel;
pub mod learner;
pub mod linalg;
mod memory;
pub mod method;
pub mod metrics;
pub mod multiclass;
mod neighbors;
#[cfg(feature = "networks")]
pub mod nn;
pub mod options;
pub mod output;
pub mod pipeline;
#[cfg(feature = "plot")]
pub mod plot;
pub mod predictor;
pub mod select;
mod simd;
pub mod svm;
pub mod trace;
mod validate;
pub mod watch;

pub use error::{Error, Result};
pub use learner::{AnyModel, Learner, Method};
pub use method::MethodKind;
pub use options::MethodOptions;
pub use pipeline::{FittedPipeline, Pipeline};
pub use predictor::{Predictor, Task};
