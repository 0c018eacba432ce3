//! Localized multiple kernel learning (Moeller 2017, chapter 4): kernels
//! whose weight varies over the input space,
//! `κ_γ(x, x') = Σ_i γ_i(x, x') κ_i(x, x')`, on the trace-normalised base kernels of
//! [`crate::mkl`] (the same `--kernels` spec).
//!
//! - [`LocalizedParams`] / [`LocalizedMethod`]: the method and its settings, the base
//!   kernels, C and the classifiers' [`SvmSolver`] (SMO or the single-kernel MWUMKL,
//!   i.e. Gilbert, solver).
//! - The gated kernel is a [`crate::kernel::KernelSource`] (separable and
//!   pairwise-normalised gates stored per point, never `n × n × m`); [`GatedMachine`]
//!   is the fitted expansion on it.
//! - [`GateRegression`] / [`RegressionGate`]: per-kernel classifiers and the SVR
//!   regressors of their correctness (SWMKL and LD-MKL).
//! - [`LdmklMachine`]: LD-MKL (Algorithm 7); [`SwmklMachine`]: SWMKL (Algorithm 2);
//!   [`ClmklMachine`]: C-LMKL (kernel k-means [`SoftClusters`], per-cluster kernel
//!   weights); [`LmklMachine`]: LMKL (Algorithm 1: [`SoftmaxGate`], alternating SVM and
//!   gradient steps).
//! - [`LocalizedModel`]: the fitted one-vs-one model.
mod catalogue;
mod clmkl;
mod gate;
pub(crate) mod ldmkl;
pub(crate) mod learner;
mod lmkl;
mod model;
mod per_kernel;
mod solver;
mod swmkl;
#[cfg(test)]
mod weighted_tests;

pub(crate) use catalogue::FAMILY;
pub use clmkl::{ClmklMachine, ClmklSettings, SoftClusters};
pub use gate::GatedMachine;
pub use ldmkl::LdmklMachine;
pub use learner::LocalizedLearner;
pub use lmkl::{LmklMachine, LmklSettings, SoftmaxGate};
pub use model::{LocalizedMachine, LocalizedModel};
pub use per_kernel::{GateRegression, RegressionGate};
pub use solver::SvmSolver;
pub use swmkl::SwmklMachine;

use crate::bank::KernelFamily;
use crate::svm::SolverSettings;
use crate::Result;
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
    pub(crate) fn name(&self) -> &'static str {
        match self {
            LocalizedMethod::Ldmkl(_) => "ldmkl",
            LocalizedMethod::Swmkl(_) => "swmkl",
            LocalizedMethod::Lmkl(_) => "lmkl",
            LocalizedMethod::Clmkl(_) => "clmkl",
        }
    }

    /// The thesis's name: `LD-MKL`, `SWMKL`, `LMKL`, `C-LMKL`.
    pub(crate) fn display_name(&self) -> &'static str {
        match self {
            LocalizedMethod::Ldmkl(_) => "LD-MKL",
            LocalizedMethod::Swmkl(_) => "SWMKL",
            LocalizedMethod::Lmkl(_) => "LMKL",
            LocalizedMethod::Clmkl(_) => "C-LMKL",
        }
    }

    /// Why the method cannot honour per-sample weights, or `None` when it can: LMKL,
    /// whose gate descends the optimal value of one C-SVM dual (Gönen and Alpaydın
    /// 2008), which has the weighted C-SVC's box `C·w_t` (with the SMO solver).
    pub(crate) fn weights_refusal(&self) -> Option<&'static str> {
        match self {
            LocalizedMethod::Lmkl(_) => None,
            LocalizedMethod::Ldmkl(_) | LocalizedMethod::Swmkl(_) => Some(
                "its gates are ε-SVRs fitted to each base kernel's correctness at the \
                 training points, stages outside one objective, for which no weighted \
                 form is derived",
            ),
            LocalizedMethod::Clmkl(_) => Some(
                "its regions come from kernel k-means on a seeded sample of the rows, whose \
                 draw and cluster widths count rows, so a weight could not act as copies \
                 of a row",
            ),
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
#[non_exhaustive]
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
    pub(crate) fn new(method: LocalizedMethod, family: KernelFamily) -> Self {
        Self {
            method,
            family,
            c: 1.0,
            solver: SvmSolver::Smo,
            smo: SolverSettings::default(),
        }
    }

    /// Checks `C`, the solvers and the method's settings.
    pub(crate) fn validate(&self) -> Result<()> {
        crate::check::positive_finite("C", self.c)?;
        self.solver.validate()?;
        self.smo.validate()?;
        self.method.validate()
    }
}
