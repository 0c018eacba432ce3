//! The binary machine every MKL method fits: a kernel expansion on a learned combination
//! of the normalised base kernels,
//!
//! `f(x) = Σ_s coef_s Σ_i μ_i K̄_i(sv_s, x) − rho`,  `K̄_i = f_i K_i` (trace-normalised),
//!
//! positive for the pair's first class. Multiclass models hold one per class pair
//! ([`crate::multiclass::OneVsOne`]).

use super::KernelFamily;
use super::{GramTable, KernelBank};
use crate::data::Features;
use crate::multiclass::BinaryMachine;
use crate::svm::{solve_c_svc_weighted, SolverSettings};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// What a binary fit reported.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MachineInfo {
    /// Iterations of the method's optimiser (MWUMKL rounds T; SMO pair updates).
    pub iterations: usize,
    /// The method's objective at the end (see each method).
    pub objective: f64,
    /// True when the method's iteration cap ended the fit (SPG-GMKL); the model warns.
    #[serde(default)]
    pub hit_max_iter: bool,
}

/// A fitted binary MKL machine (see the module docs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MklMachine {
    /// The base kernels.
    pub family: KernelFamily,
    /// Trace-normalisation factor `f_i = n / tr K_i` of each base kernel on the training data.
    pub trace_factors: Vec<f64>,
    /// Kernel weights `μ_i ≥ 0`, `Σ μ_i = 1`, one per base kernel.
    pub weights: Vec<f64>,
    /// The support vectors' features.
    pub support_vectors: Features,
    /// Training-set row of each support vector (0-based, within the pair's points).
    pub sv_indices: Vec<usize>,
    /// Coefficient of each support vector (`y_s α_s`).
    pub coef: Vec<f64>,
    /// Offset: `f(x) = Σ coef·k − rho` (LIBSVM's convention).
    pub rho: f64,
    /// Fit report.
    pub info: MachineInfo,
}

impl MklMachine {
    /// Keeps the points with non-zero coefficient of a fit on `bank` (`coef` has one
    /// entry per training point).
    pub(crate) fn new(
        family: &KernelFamily,
        bank: &KernelBank,
        weights: Vec<f64>,
        coef: &[f64],
        rho: f64,
        info: MachineInfo,
    ) -> Self {
        let sv_indices: Vec<usize> = (0..coef.len()).filter(|&t| coef[t] != 0.0).collect();
        Self {
            family: family.clone(),
            trace_factors: bank.factors().to_vec(),
            weights,
            support_vectors: bank.points().select_rows(&sv_indices),
            coef: sv_indices.iter().map(|&t| coef[t]).collect(),
            sv_indices,
            rho,
            info,
        }
    }

    /// The C-SVM on the fixed combination `Σ_i μ_i K̄_i` of `bank`'s kernels (`y ∈ {±1}`;
    /// UNIFORM with `μ_i = 1/m`, Moeller 2017 section 3.4.1); `objective` is the dual
    /// objective. With per-sample weights `sample_weights` (positive, one per point),
    /// point `t`'s box is `0 ≤ α_t ≤ C·w_t` (LIBSVM's weighted C-SVC).
    pub(crate) fn fit_weighted(
        family: &KernelFamily,
        bank: &KernelBank,
        y: &[f64],
        weights: Vec<f64>,
        c: f64,
        (solver, sample_weights): (&SolverSettings, Option<&[f64]>),
    ) -> Result<Self> {
        check_binary(y, bank.n_points())?;
        let source = bank.combined(&weights)?;
        let sol = solve_c_svc_weighted(&source, y, sample_weights, c, c, solver, None)?;
        let info = MachineInfo {
            iterations: sol.iterations,
            objective: sol.objective,
            ..MachineInfo::default()
        };
        Ok(Self::new(family, bank, weights, &sol.coef, sol.rho, info))
    }

    /// Number of support vectors.
    pub fn n_support(&self) -> usize {
        self.sv_indices.len()
    }

    /// Checks a machine read back for `n_features` features: support vectors with
    /// `n_features` columns, a valid family ([`KernelFamily::validate`]) with one finite
    /// trace factor and one finite weight per base kernel, one index and one finite
    /// coefficient per support vector, a finite `rho`.
    pub(crate) fn validate(&self, n_features: usize) -> Result<()> {
        use crate::validate::{ensure, finite, finite_value, within};
        let sv = &self.support_vectors;
        ensure(sv.n_cols() == n_features, || {
            format!(
                "support_vectors has {} columns, n_features is {n_features}",
                sv.n_cols()
            )
        })?;
        within("family", self.family.validate(n_features))?;
        let m = self.family.len(n_features);
        for (field, values) in [
            ("trace_factors", &self.trace_factors),
            ("weights", &self.weights),
        ] {
            ensure(values.len() == m, || {
                format!(
                    "{field} has {} values, the family has {m} base kernels on {n_features} features",
                    values.len()
                )
            })?;
            finite(field, values)?;
        }
        let n_sv = sv.n_rows();
        ensure(self.sv_indices.len() == n_sv, || {
            format!(
                "sv_indices has {} entries, support_vectors has {n_sv} rows",
                self.sv_indices.len()
            )
        })?;
        ensure(self.coef.len() == n_sv, || {
            format!(
                "coef has {} values, support_vectors has {n_sv} rows",
                self.coef.len()
            )
        })?;
        finite("coef", &self.coef)?;
        finite_value("rho", self.rho)
    }

    /// Number of input features.
    pub(crate) fn n_features(&self) -> usize {
        self.support_vectors.n_cols()
    }

    /// `f(x)` for every row of `x`.
    pub(crate) fn decision(&self, x: &Features) -> Result<Vec<f64>> {
        self.decision_with(x, None)
    }

    /// [`MklMachine::decision`], reading kernel values from `table` where it holds the
    /// support vectors and `x` (a selection's held-out fold): the same values.
    pub(crate) fn decision_with(
        &self,
        x: &Features,
        table: Option<&Arc<GramTable>>,
    ) -> Result<Vec<f64>> {
        x.check_input(self.n_features())?;
        let bank = KernelBank::with_factors(
            &self.family,
            &self.support_vectors,
            self.trace_factors.clone(),
        )?
        .tabled_by(&self.family, table);
        Ok(bank
            .expansion(&self.weights, &self.coef, x)
            .into_iter()
            .map(|v| v - self.rho)
            .collect())
    }
}

impl BinaryMachine for MklMachine {
    fn decision_values(&self, x: &Features) -> Result<Vec<f64>> {
        self.decision(x)
    }
}

/// Checks binary labels (`±1`, both present, one per point) for a method's fit.
pub(crate) fn check_binary(y: &[f64], n: usize) -> Result<()> {
    if y.len() != n {
        return Err(Error::data(format!(
            "{} labels for {n} training points",
            y.len()
        )));
    }
    if let Some(v) = y.iter().find(|&&v| v != 1.0 && v != -1.0) {
        return Err(Error::data(format!(
            "binary labels must be +1 or -1, got {v}"
        )));
    }
    if !y.contains(&1.0) || !y.contains(&-1.0) {
        return Err(Error::data("both classes (+1 and -1) must be present"));
    }
    Ok(())
}
