//! Settings of the DANK solver: the update [`Scheme`], the [`StepRule`] of the
//! first-order schemes, the [`EigenRoute`] of `F(α)`, and [`DankSettings`] with the
//! paper's defaults (DANK paper, section 6.1.1: τ = 0.01, η = ‖α_SVM‖²; Algorithm 1:
//! t_max = 2000, ε = 1e-4).

use crate::check::{non_negative_finite, positive_finite};
use crate::svm::SolverSettings;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// How `h` is maximised: the paper's first-order updates (Algorithm 1; Fig. 4 compares
/// them) or Newton steps by SMO (the default; see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scheme {
    /// Newton steps by SMO (default): at `α_t`, SMO (warm-started at `α_t`) maximises
    /// the concave quadratic with `h`'s value, gradient and (approximate) Hessian over the
    /// feasible set, and a backtracking line search on `h` along the segment to that
    /// maximiser gives `α_{t+1}` (see the `newton` module).
    Newton,
    /// Algorithm 1: gradient step `θ`, dual-averaging step `β`, `α ← ((t+1)θ + 2β)/(t+3)`.
    Nesterov,
    /// Algorithm 1 with `θ_t = argmax h` over `{θ_{t−1}, θ̃_t, α_t}` (section 3.2).
    NesterovMonotone,
    /// Plain projected gradient, eq. (14).
    ProjectedGradient,
}

/// How the step `1/L` is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepRule {
    /// Nondecreasing `L` doubled until the ascent condition holds (default; see module docs).
    Backtracking,
    /// The paper's constants: Theorem 1 (Nesterov, SVM), Lemma 2 (projected gradient,
    /// SVM), Theorem 2 (SVR; Algorithm 2's steps `1/(2L)` are `1/L'` with `L' = 2L`).
    PaperLipschitz,
    /// A given constant `L`.
    Fixed(f64),
}

/// How the eigenpairs of `11ᵀ + Γ(α)` are computed (both exact).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EigenRoute {
    /// `(|S|+1)`-square problem on the support (default).
    Reduced,
    /// Full `n × n` decomposition (reference).
    Full,
}

/// Settings of the DANK solver (paper defaults: τ = 0.01, η = ‖α_SVM‖², 2000
/// iterations, ε = 1e-4).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct DankSettings {
    /// Nuclear-norm weight τ (≥ 0).
    pub tau: f64,
    /// `η`; `None` = `eta_scale · ‖α‖²` of the SVM on `K` with the same C (the paper's
    /// rule with `eta_scale = 1`).
    pub eta: Option<f64>,
    /// Multiple of `‖α_SVM‖²` used as η when `eta` is `None` (default 1, the paper's;
    /// the fallback selection tries fractions of it, which let `F` move
    /// further from `11ᵀ`: the target `Γ(α)` scales as 1/η).
    #[serde(default = "one")]
    pub eta_scale: f64,
    /// Iteration cap `t_max`.
    pub max_iter: usize,
    /// Stop when `‖α_t − α_{t−1}‖₂ ≤ tol` (the paper's rule).
    pub tol: f64,
    /// Also stop when the last projected point satisfies the KKT conditions of the dual
    /// on the fixed kernel `F⊙K` to within this (LIBSVM's rule `m(α) − M(α) ≤ ε` on
    /// `∇h`, in margin units whatever the scale of α; see the module docs of
    /// [`crate::nonparametric::dank`]).
    /// `0` turns it off.
    #[serde(default = "default_kkt_tol")]
    pub kkt_tol: f64,
    /// Update scheme.
    pub scheme: Scheme,
    /// Step rule.
    pub step: StepRule,
    /// Eigendecomposition route.
    pub eigen: EigenRoute,
    /// Start from the SVM solution (`true`, default) or from `α = 0`.
    pub init_from_svm: bool,
    /// Settings of the initial SVM solve.
    pub svm_solver: SolverSettings,
}

impl Default for DankSettings {
    fn default() -> Self {
        Self {
            tau: 0.01,
            eta: None,
            eta_scale: 1.0,
            max_iter: 2000,
            tol: 1e-4,
            kkt_tol: default_kkt_tol(),
            scheme: Scheme::Newton,
            step: StepRule::Backtracking,
            eigen: EigenRoute::Reduced,
            init_from_svm: true,
            svm_solver: SolverSettings::default(),
        }
    }
}

fn one() -> f64 {
    1.0
}

/// LIBSVM's default stopping tolerance, the same for the SVM start and DANK.
fn default_kkt_tol() -> f64 {
    1e-3
}

impl DankSettings {
    /// Checks τ, η, the tolerance and the step.
    pub(crate) fn validate(&self) -> Result<()> {
        non_negative_finite("tau", self.tau)?;
        if let Some(eta) = self.eta {
            positive_finite("eta", eta)?;
        }
        positive_finite("eta_scale", self.eta_scale)?;
        positive_finite("tol", self.tol)?;
        non_negative_finite("kkt_tol", self.kkt_tol)?;
        if self.max_iter == 0 {
            return Err(Error::param("max_iter", "must be at least 1"));
        }
        if let StepRule::Fixed(l) = self.step {
            positive_finite("L", l)?;
        }
        self.svm_solver.validate()
    }
}
