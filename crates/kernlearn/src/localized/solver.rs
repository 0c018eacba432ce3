//! The SVM solver a localized method calls for every classifier it trains: our SMO
//! (LIBSVM's algorithm; the thesis's Table 4.2) or the single-kernel form of MWUMKL, the
//! kernelised Gilbert algorithm (Table 4.3, section 4.5.6).

use crate::bank::{solve_gilbert, GilbertSettings};
use crate::check::positive_finite;
use crate::kernel::KernelSource;
use crate::svm::{solve_c_svc_weighted, DualSolution, SolverSettings};
use crate::Result;
use serde::{Deserialize, Serialize};

/// Which solver trains the classifiers (the SVR gates of SWMKL and LD-MKL always use
/// SMO: MWUMKL has no regression form).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SvmSolver {
    /// C-SVC by SMO (1-norm soft margin, box `0 ≤ α ≤ C`).
    Smo,
    /// Kernelised Gilbert (the single-kernel form of MWUMKL): 2-norm soft margin (ridge `1/C` on the
    /// kernel's diagonal, MWUMKL's convention), stopped at relative duality gap `epsilon`
    /// (the thesis uses ε = 0.01 in Table 4.3).
    Mwu {
        /// Relative duality gap at which Gilbert stops.
        epsilon: f64,
    },
}

impl SvmSolver {
    /// Name as on the command line: `smo` or `mwu`.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            SvmSolver::Smo => "smo",
            SvmSolver::Mwu { .. } => "mwu",
        }
    }

    /// Checks MWU's `ε > 0`.
    pub(crate) fn validate(&self) -> Result<()> {
        match *self {
            SvmSolver::Mwu { epsilon } => positive_finite("lkl-epsilon", epsilon),
            SvmSolver::Smo => Ok(()),
        }
    }

    /// Trains a binary classifier (`y ∈ {±1}`) with trade-off `c` on `source`. `warm`
    /// (coefficients `y α` of an earlier solve on the same points and bounds) warm-starts
    /// SMO; Gilbert starts cold.
    pub(crate) fn solve(
        &self,
        source: &dyn KernelSource,
        y: &[f64],
        c: f64,
        smo: &SolverSettings,
        warm: Option<&[f64]>,
    ) -> Result<DualSolution> {
        self.solve_weighted(source, (y, None), c, smo, warm)
    }

    /// [`SvmSolver::solve`] with per-sample weights `w` (positive, one per point): SMO's
    /// weighted C-SVC, point `t`'s box `C·w_t` (LIBSVM's weighted variant). Gilbert
    /// refuses them: its 2-norm soft margin has no box for a weight to scale.
    pub(crate) fn solve_weighted(
        &self,
        source: &dyn KernelSource,
        (y, w): (&[f64], Option<&[f64]>),
        c: f64,
        smo: &SolverSettings,
        warm: Option<&[f64]>,
    ) -> Result<DualSolution> {
        match *self {
            SvmSolver::Smo => {
                let alpha: Option<Vec<f64>> = warm.map(|w| w.iter().map(|v| v.abs()).collect());
                solve_c_svc_weighted(source, y, w, c, c, smo, alpha.as_deref())
            }
            SvmSolver::Mwu { .. } if w.is_some() => Err(crate::Error::param(
                "solver",
                "the mwu solver (kernelised Gilbert, a 2-norm soft margin) has no per-point \
                 bound for a sample weight to scale; use «solver=smo» with weights",
            )),
            SvmSolver::Mwu { epsilon } => {
                let settings = GilbertSettings {
                    epsilon,
                    ridge: 1.0 / c,
                    ..GilbertSettings::default()
                };
                solve_gilbert(source, y, &settings)
            }
        }
    }
}
