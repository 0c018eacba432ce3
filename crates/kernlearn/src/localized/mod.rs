//! Localized multiple kernel learning (Moeller 2017, chapter 4): kernels
//! whose weight varies over the input space,
//! `κ_γ(x, x') = Σ_i γ_i(x, x') κ_i(x, x')`, on the trace-normalised base kernels of
//! [`crate::mkl`] (the same `--kernels` spec).
//!
//! - [`gate`]: the gated kernel as a [`crate::kernel::KernelSource`] (separable and
//!   pairwise-normalised gates stored per point, never `n × n × m`), and the fitted
//!   expansion on it.
//! - [`solver`]: SMO or the single-kernel MWUMKL (Gilbert) solver for every classifier.
//! - [`per_kernel`]: per-kernel classifiers and the SVR regressors of their correctness
//!   (SWMKL and LD-MKL).
//! - [`ldmkl`]: LD-MKL (Algorithm 7).
//! - [`swmkl`]: SWMKL (Algorithm 2).
//! - [`clmkl`]: C-LMKL (kernel k-means soft clusters, per-cluster kernel weights).
//! - [`lmkl`]: LMKL (Algorithm 1: softmax gate, alternating SVM and gradient steps).
//! - [`model`]: the fitted one-vs-one [`LocalizedModel`].
pub mod clmkl;
pub mod gate;
pub mod ldmkl;
pub mod learner;
pub mod lmkl;
pub mod model;
pub mod per_kernel;
pub mod solver;
pub mod swmkl;

pub use clmkl::{ClmklMachine, ClmklSettings, SoftClusters};
pub use gate::{GateKind, GateMatrix, GatedKernel, GatedMachine};
pub use ldmkl::LdmklMachine;
pub use lmkl::{LmklMachine, LmklSettings, SoftmaxGate};
pub use model::{LocalizedMachine, LocalizedModel};
pub use per_kernel::{GateRegression, RegressionGate};
pub use solver::SvmSolver;
pub use swmkl::SwmklMachine;

use crate::mkl::KernelFamily;
use crate::svm::SolverSettings;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// Which localized method, with its own settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "snake_case")]
pub enum LocalizedMethod {
    /// LD-MKL (Algorithm 7): per-kernel SVMs, SVR gates, softmax, retraining, tanh vote.
    Ldmkl(GateRegression),
    /// SWMKL (Algorithm 2): per-kernel SVMs, SVR gates, SVM on the pairwise-normalised
    /// gated kernel.
    Swmkl(GateRegression),
    /// LMKL (Algorithm 1): softmax-linear gate learned by gradient steps between SVM
    /// solves.
    Lmkl(LmklSettings),
    /// C-LMKL: soft clusters, per-cluster kernel weights by the closed-form step between
    /// SVM solves.
    Clmkl(ClmklSettings),
}

impl LocalizedMethod {
    /// Name as on a command line: `ldmkl`, `swmkl`, `lmkl`, `clmkl`.
    pub fn name(&self) -> &'static str {
        match self {
            LocalizedMethod::Ldmkl(_) => "ldmkl",
            LocalizedMethod::Swmkl(_) => "swmkl",
            LocalizedMethod::Lmkl(_) => "lmkl",
            LocalizedMethod::Clmkl(_) => "clmkl",
        }
    }

    /// The thesis's name: `LD-MKL`, `SWMKL`, `LMKL`, `C-LMKL`.
    pub fn display_name(&self) -> &'static str {
        match self {
            LocalizedMethod::Ldmkl(_) => "LD-MKL",
            LocalizedMethod::Swmkl(_) => "SWMKL",
            LocalizedMethod::Lmkl(_) => "LMKL",
            LocalizedMethod::Clmkl(_) => "C-LMKL",
        }
    }

    fn validate(&self) -> Result<()> {
        match self {
            LocalizedMethod::Ldmkl(g) | LocalizedMethod::Swmkl(g) => g.validate(),
            LocalizedMethod::Lmkl(s) => s.validate(),
            LocalizedMethod::Clmkl(s) => s.validate(),
        }
    }
}

/// Everything a localized fit needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LocalizedParams {
    /// The method and its settings.
    pub method: LocalizedMethod,
    /// The base kernels (at least two).
    pub family: KernelFamily,
    /// SVM trade-off `C > 0` of every classifier (the thesis: `C = 1`).
    pub c: f64,
    /// Solver of the classifiers.
    pub solver: SvmSolver,
    /// SMO settings (classifiers under [`SvmSolver::Smo`], and the SVR gates).
    #[serde(default)]
    pub smo: SolverSettings,
}

impl LocalizedParams {
    /// `method` on `family` with the thesis's `C = 1` and SMO.
    pub fn new(method: LocalizedMethod, family: KernelFamily) -> Self {
        Self {
            method,
            family,
            c: 1.0,
            solver: SvmSolver::Smo,
            smo: SolverSettings::default(),
        }
    }

    /// Checks `C`, the solvers and the method's settings.
    pub fn validate(&self) -> Result<()> {
        if !(self.c > 0.0 && self.c.is_finite()) {
            return Err(Error::param("C", format!("must be > 0, got {}", self.c)));
        }
        self.solver.validate()?;
        self.smo.validate()?;
        self.method.validate()
    }
}
