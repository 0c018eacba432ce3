//! UNIFORM (Moeller 2017, section 3.4.1; Pavlidis et al. 2001): the C-SVM on the
//! average of the trace-normalised base kernels, `K = (1/m) Σ_i K̄_i`. The average is
//! computed entry by entry for the SMO solver ([`crate::bank::CombinedKernel`]), so
//! memory is the solver's row cache, not `m` Gram matrices.

use crate::bank::{KernelBank, KernelFamily, MklMachine};
use crate::svm::SolverSettings;
use crate::Result;
use serde::{Deserialize, Serialize};

/// Parameters of UNIFORM.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct UniformParams {
    /// SVM trade-off `C > 0`.
    pub c: f64,
    /// SMO settings (tolerance, shrinking, cache).
    #[serde(default)]
    pub solver: SolverSettings,
}

impl Default for UniformParams {
    fn default() -> Self {
        Self {
            c: 1.0,
            solver: SolverSettings::default(),
        }
    }
}

impl UniformParams {
    /// Checks `C > 0` and the solver settings.
    pub(crate) fn validate(&self) -> Result<()> {
        crate::check::positive_finite("C", self.c)?;
        self.solver.validate()
    }
}

/// UNIFORM on one class pair (`y ∈ {±1}`). `objective` is the SVM dual objective. With
/// per-sample weights `w` (positive, one per point) it is the weighted C-SVM: point `t`'s
/// box is `C·w_t` (LIBSVM's weighted variant), on a bank normalised by the weighted mean
/// diagonal.
pub(super) fn fit_binary(
    family: &KernelFamily,
    bank: &KernelBank,
    (y, w): (&[f64], Option<&[f64]>),
    params: &UniformParams,
) -> Result<MklMachine> {
    params.validate()?;
    let m = bank.n_kernels();
    MklMachine::fit_weighted(
        family,
        bank,
        y,
        vec![1.0 / m as f64; m],
        params.c,
        (&params.solver, w),
    )
}
