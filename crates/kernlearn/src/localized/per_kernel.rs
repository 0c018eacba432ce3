//! The first steps shared by SWMKL (Algorithm 2, lines 1–3) and LD-MKL (Algorithm 7,
//! lines 1–3): for every base kernel `κ_i`, a classifier `f_i` trained on all points
//! with `κ_i` alone, then a regressor `g_i` of its correctness `δ(y, f_i(x)) ∈ {0, 1}`
//! on the training points.
//!
//! **The regressors' kernel.** The thesis (which used scikit-learn's `SVR`) does not
//! name it. A gate must be able to depend on every feature — a kernel on some features
//! cannot tell where in the input space its classifier is right — so `g_i` is an ε-SVR
//! with a Gaussian kernel on all features, `γ = 1/d` by default (LIBSVM's default and
//! scikit-learn's `gamma='auto'` of the thesis's time), `C = 1`, `ε = 0.1`.

use super::LocalizedParams;
use crate::bank::{KernelBank, MachineInfo, MklMachine};
use crate::check::{non_negative_finite, positive_finite};
use crate::data::Features;
use crate::kernel::Kernel;
use crate::svm::{DualSolution, SvmModel, SvmParams, SvmType};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// The ε-SVR that smooths a kernel's correctness into a gate (SWMKL, LD-MKL).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GateRegression {
    /// SVR trade-off `C > 0`.
    pub c: f64,
    /// SVR tube width `ε ≥ 0`.
    pub epsilon: f64,
    /// Width `γ` of the SVR's Gaussian kernel `exp(−γ‖x − x'‖²)`; `None` = `1/d`.
    #[serde(default)]
    pub gamma: Option<f64>,
}

impl Default for GateRegression {
    /// scikit-learn's `SVR` defaults, which the thesis used: `C = 1`, `ε = 0.1`.
    fn default() -> Self {
        Self {
            c: 1.0,
            epsilon: 0.1,
            gamma: None,
        }
    }
}

impl GateRegression {
    /// Checks `C > 0`, `ε ≥ 0`, `γ > 0`.
    pub(crate) fn validate(&self) -> Result<()> {
        if let Some(g) = self.gamma {
            Kernel::rbf_gamma(g)
                .map_err(|_| Error::param("gate-gamma", format!("must be > 0, got {g}")))?;
        }
        positive_finite("gate-c", self.c)?;
        non_negative_finite("gate-epsilon", self.epsilon)?;
        Ok(())
    }

    /// The ε-SVR's parameters for data with `d` features.
    fn svr_params(&self, d: usize, smo: &crate::svm::SolverSettings) -> Result<SvmParams> {
        Ok(SvmParams {
            svm_type: SvmType::EpsilonSvr,
            kernel: Kernel::rbf_gamma(self.gamma.unwrap_or(1.0 / d.max(1) as f64))?,
            c: self.c,
            epsilon: self.epsilon,
            solver: *smo,
            ..SvmParams::default()
        })
    }
}

/// Weights selecting base kernel `i` of `m` alone.
pub(crate) fn one_hot(i: usize, m: usize) -> Vec<f64> {
    let mut w = vec![0.0; m];
    w[i] = 1.0;
    w
}

/// The fitted regressors `g_i`: their raw outputs are the gate scores.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RegressionGate {
    /// `g_i` for every base kernel `i` (an ε-SVR, see the module docs).
    pub regressors: Vec<SvmModel>,
}

impl RegressionGate {
    /// Number of base kernels.
    pub(crate) fn n_kernels(&self) -> usize {
        self.regressors.len()
    }

    /// `scores[t·m + i] = g_i(x_t)` for every row of `x`.
    pub(crate) fn scores(&self, x: &Features) -> Result<Vec<f64>> {
        let m = self.n_kernels();
        let mut scores = vec![0.0; x.n_rows() * m];
        for (i, g) in self.regressors.iter().enumerate() {
            for (t, v) in g.decision_function(x)?.into_iter().enumerate() {
                scores[t * m + i] = v[0];
            }
        }
        Ok(scores)
    }

    /// Checks regressors read back for `n_features` features and `m` base kernels: one
    /// valid ([`SvmModel::validate`]) regression model of `n_features` features per
    /// kernel.
    pub(crate) fn validate(&self, n_features: usize, m: usize) -> Result<()> {
        use crate::validate::{ensure, within};
        ensure(self.regressors.len() == m, || {
            format!(
                "regressors has {} models, the family has {m} base kernels",
                self.regressors.len()
            )
        })?;
        let regressor = |g: &SvmModel| {
            g.validate()?;
            ensure(g.params.svm_type.is_regressor(), || {
                format!(
                    "params.svm_type is {}, a gate is a regression model",
                    g.params.svm_type
                )
            })?;
            ensure(g.n_features == n_features, || {
                format!(
                    "n_features is {}, the model has {n_features} features",
                    g.n_features
                )
            })
        };
        for (i, g) in self.regressors.iter().enumerate() {
            within(format!("regressors[{i}]"), regressor(g))?;
        }
        Ok(())
    }
}

/// Result of the per-kernel stage on the training points.
pub(crate) struct PerKernelStage {
    /// The gating regressors.
    pub gate: RegressionGate,
    /// `g_i(x_t)` on the training points, `n × m`.
    pub scores: Vec<f64>,
    /// Solver iterations summed over classifiers and regressors.
    pub iterations: usize,
}

/// The base kernels of `params` on `x`, failing unless there are at least two for a
/// localized `method` to localize between.
pub(crate) fn localized_bank(
    params: &LocalizedParams,
    x: &Features,
    method: &str,
) -> Result<KernelBank> {
    localized_bank_weighted(params, (x, None), method)
}

/// [`localized_bank`] normalised on the weighted rows when per-sample weights `w` are
/// given (each kernel's weighted mean diagonal 1, [`KernelBank::new_weighted`]).
pub(crate) fn localized_bank_weighted(
    params: &LocalizedParams,
    (x, w): (&Features, Option<&[f64]>),
    method: &str,
) -> Result<KernelBank> {
    let bank = KernelBank::new_weighted(&params.family, x, None, w)?;
    if bank.n_kernels() < 2 {
        return Err(Error::param(
            "kernels",
            format!(
                "{method} localizes between base kernels and needs at least two, got {}",
                bank.n_kernels()
            ),
        ));
    }
    Ok(bank)
}

/// Trains `f_i` on `κ_i` alone and returns the solution and the machine.
pub(crate) fn fit_single_kernel(
    params: &LocalizedParams,
    bank: &KernelBank,
    i: usize,
    y: &[f64],
) -> Result<(DualSolution, MklMachine)> {
    let weights = one_hot(i, bank.n_kernels());
    let source = bank.combined(&weights)?;
    let sol = params
        .solver
        .solve(&source, y, params.c, &params.smo, None)?;
    let info = MachineInfo {
        iterations: sol.iterations,
        objective: sol.objective,
        ..MachineInfo::default()
    };
    let machine = MklMachine::new(&params.family, bank, weights, &sol.coef, sol.rho, info);
    Ok((sol, machine))
}

/// Algorithm 2 / 7, lines 1–3 (see the module docs), on training points `bank` with
/// labels `y ∈ {±1}`.
pub(crate) fn fit_per_kernel(
    params: &LocalizedParams,
    bank: &KernelBank,
    y: &[f64],
    gate: &GateRegression,
) -> Result<PerKernelStage> {
    let m = bank.n_kernels();
    let x = bank.points();
    let svr = gate.svr_params(x.n_cols(), &params.smo)?;
    let mut regressors = Vec::with_capacity(m);
    let mut iterations = 0;
    for i in 0..m {
        let (sol, f_i) = fit_single_kernel(params, bank, i, y)?;
        let correct: Vec<f64> = f_i
            .decision(x)?
            .iter()
            .zip(y)
            .map(|(&f, &label)| if (f > 0.0) == (label > 0.0) { 1.0 } else { 0.0 })
            .collect();
        let g_i = SvmModel::fit(&svr, x, &correct)?;
        iterations += sol.iterations + g_i.info.iterations;
        regressors.push(g_i);
    }
    let gate = RegressionGate { regressors };
    let scores = gate.scores(x)?;
    Ok(PerKernelStage {
        gate,
        scores,
        iterations,
    })
}
