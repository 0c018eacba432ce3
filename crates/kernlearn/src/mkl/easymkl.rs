//! EasyMKL (Aiolli and Donini, "EasyMKL: a scalable multiple kernel learning
//! algorithm", Neurocomputing 169, 2015), the MKL column of the KNPL paper's Table 1.
//!
//! EasyMKL maximises over kernel weights `η ≥ 0`, `‖η‖ = 1`, the KOMD margin-distribution
//! objective `min_{γ∈Γ} (1 − λ) γᵀY K_η Y γ + λ ‖γ‖²`, where
//! `Γ = {γ ≥ 0, Σ_{y=+1} γ = Σ_{y=−1} γ = 1}` (a point of each class's convex hull) and
//! `λ ∈ (0, 1]` trades the hard margin (`λ → 0`) for the distance of the class centroids
//! (`λ = 1`). It is solved in one shot:
//!
//! 1. `γ*` of the KOMD problem on the average kernel `K = (1/m) Σ_r K̄_r` (trace-normalised
//!    kernels; mean diagonal 1, so `λ` has the same meaning for any `m`);
//! 2. `η_r ∝ d_r = γ*ᵀ Y K̄_r Y γ*` (the margin each kernel gives `γ*`), normalised to
//!    `Σ η_r = 1` as MKLpy does;
//! 3. the final classifier is KOMD with the same `λ` on `K_η = Σ_r η_r K̄_r`:
//!    `f(x) = Σ_i y_i γ_i K_η(x_i, x) − b`, `b = ½ γᵀ K_η Y γ` (the midpoint of the two
//!    hull points along `w`).
//!
//! The KOMD problem is the hard-margin SVM on `(1 − λ)K + λI` up to scale (Bennett and
//! Bredensteiner 2000): with `α*` its dual solution, `γ* = 2α*/Σα*`. It is solved with
//! the library's SMO solver with a box `C` large enough never to bind
//! (`α*_i ≤ 2 n₊n₋/(λ n)` because `γᵀQγ ≥ λ(1/n₊ + 1/n₋)` on `Γ`).

use crate::bank::KernelFamily;
use crate::bank::{check_binary, MachineInfo, MklMachine};
use crate::bank::{KernelBank, Ridged};
use crate::kernel::KernelSource;
use crate::svm::{solve_c_svc, SolverSettings};
use crate::{Error, Result};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Parameters of EasyMKL.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct EasyMklParams {
    /// Trade-off `λ ∈ (0, 1]` (MKLpy's default 0.1).
    pub lambda: f64,
    /// SMO settings of the two KOMD solves.
    #[serde(default = "komd_solver")]
    pub solver: SolverSettings,
}

fn komd_solver() -> SolverSettings {
    SolverSettings {
        tol: 1e-5,
        ..SolverSettings::default()
    }
}

impl Default for EasyMklParams {
    /// `λ = 0.1`, SMO tolerance `1e-5`.
    fn default() -> Self {
        Self {
            lambda: 0.1,
            solver: komd_solver(),
        }
    }
}

impl EasyMklParams {
    /// Checks `λ ∈ (0, 1]` and the solver settings.
    pub(crate) fn validate(&self) -> Result<()> {
        if !(self.lambda > 0.0 && self.lambda <= 1.0) {
            return Err(Error::param(
                "lambda",
                format!("EasyMKL's lambda must be in (0, 1], got {}", self.lambda),
            ));
        }
        self.solver.validate()
    }
}

/// The KOMD solution `γ ∈ Γ` minimising `(1 − λ) γᵀYKYγ + λ‖γ‖²` for the kernel
/// `source` and labels `y ∈ {±1}`, its objective value and the SMO iterations.
pub(super) fn komd(
    source: &dyn KernelSource,
    y: &[f64],
    lambda: f64,
    settings: &SolverSettings,
) -> Result<(Vec<f64>, f64, usize)> {
    let n = y.len();
    let n_pos = y.iter().filter(|&&v| v > 0.0).count() as f64;
    let n_neg = n as f64 - n_pos;
    let ridged = Ridged {
        inner: source,
        scale: 1.0 - lambda,
        ridge: lambda,
    };
    let c = 4.0 * n_pos * n_neg / (lambda * n as f64) + 1.0;
    let sol = solve_c_svc(&ridged, y, c, c, settings, None)?;
    let total: f64 = sol.coef.iter().map(|v| v.abs()).sum();
    if !(total > 0.0 && total.is_finite()) {
        return Err(Error::numerical(
            "KOMD: the solver returned no support vectors",
        ));
    }
    let gamma = sol.coef.iter().map(|v| 2.0 * v.abs() / total).collect();
    Ok((gamma, 4.0 / total, sol.iterations))
}

/// `d_r = γᵀ Y K̄_r Y γ` for every base kernel (on the support of `γ`), in parallel.
pub(super) fn kernel_margins(bank: &KernelBank, y: &[f64], gamma: &[f64]) -> Vec<f64> {
    let support: Vec<usize> = (0..gamma.len()).filter(|&i| gamma[i] > 0.0).collect();
    let yg: Vec<f64> = support.iter().map(|&i| y[i] * gamma[i]).collect();
    let x = bank.points();
    (0..bank.n_kernels())
        .into_par_iter()
        .map_init(
            || vec![0.0; support.len()],
            |col, r| {
                support
                    .iter()
                    .zip(&yg)
                    .map(|(&j, &w)| {
                        bank.column_at(r, &support, x.row(j), col);
                        w * col.iter().zip(&yg).map(|(k, v)| k * v).sum::<f64>()
                    })
                    .sum()
            },
        )
        .collect()
}

/// EasyMKL on one class pair (`y ∈ {±1}`). `objective` is the final KOMD objective.
pub(super) fn fit_binary(
    family: &KernelFamily,
    bank: &KernelBank,
    y: &[f64],
    params: &EasyMklParams,
) -> Result<MklMachine> {
    params.validate()?;
    check_binary(y, bank.n_points())?;
    bank.base().require_psd("EasyMKL")?;
    let m = bank.n_kernels();
    let uniform = bank.combined(&vec![1.0 / m as f64; m])?;
    let (gamma, _, it1) = komd(&uniform, y, params.lambda, &params.solver)?;
    let margins = kernel_margins(bank, y, &gamma);
    let scale = margins.iter().map(|d| d.abs()).fold(0.0, f64::max);
    if let Some(r) = margins.iter().position(|&d| d < -1e-9 * scale) {
        return Err(Error::param(
            "kernels",
            format!(
                "base kernel {} ({}) gave γᵀYKYγ = {} < 0: it is not positive semi-definite on this data; EasyMKL needs PSD kernels",
                r + 1,
                bank.base().kernel(r),
                margins[r]
            ),
        ));
    }
    let total: f64 = margins.iter().map(|d| d.max(0.0)).sum();
    if total <= 0.0 || total.is_nan() {
        return Err(Error::data(
            "EasyMKL: every kernel gives the classes zero margin",
        ));
    }
    let weights: Vec<f64> = margins.iter().map(|d| d.max(0.0) / total).collect();
    let combined = bank.combined(&weights)?;
    let (gamma, objective, it2) = komd(&combined, y, params.lambda, &params.solver)?;
    // b = ½ γᵀ K_η Y γ over the support of γ.
    let support: Vec<usize> = (0..gamma.len()).filter(|&i| gamma[i] > 0.0).collect();
    let mut row = vec![0f32; support.len()];
    let mut bias = 0.0;
    for &i in &support {
        combined.fill_row(i, &support, &mut row);
        let s: f64 = support
            .iter()
            .zip(&row)
            .map(|(&j, &k)| k as f64 * y[j] * gamma[j])
            .sum();
        bias += 0.5 * gamma[i] * s;
    }
    let coef: Vec<f64> = gamma.iter().zip(y).map(|(g, l)| g * l).collect();
    let info = MachineInfo {
        iterations: it1 + it2,
        objective,
        ..MachineInfo::default()
    };
    Ok(MklMachine::new(family, bank, weights, &coef, bias, info))
}
