//! DANK: data-adaptive nonparametric kernels (Liu et al., "Learning Data-adaptive
//! Nonparametric Kernels"; METHODS.md §2).
//!
//! DANK-SVM solves problem (5),
//! `max_{α∈A} min_{F⪰0} 1ᵀα − ½ αᵀY(F⊙K)Yα + η‖F − 11ᵀ‖²_F + τη‖F‖_*`,
//! `A = {0 ≤ α ≤ C, yᵀα = 0}`. For fixed α the inner minimiser is
//! `F(α) = J_{τ/2}(11ᵀ + Γ(α))`, `Γ(α) = diag(Yα) K diag(Yα)/(4η)` (eqs. 8–9), so
//! `h(α) = H(α, F(α))` is concave with gradient `∇h = 1 − Y(F⊙K)Yα` (eq. 11), maximised
//! by projected gradient with Nesterov's acceleration (Algorithm 1). DANK-SVR (problem 15,
//! Algorithm 2) is the same with `z = [α̂; α̌]`, coefficients `c = α̂ − α̌`, linear term
//! `cᵀy − ε1ᵀ(α̂ + α̌)` and the constraint `1ᵀ(α̂ − α̌) = 0` (METHODS.md correction).
//!
//! Both duals are one problem here: variables `z` in a box cut by one hyperplane,
//! coefficients `c = Sz` (`S = Y` or `[I, −I]`), `h(z) = pᵀz − ½cᵀ(F⊙K)c + …`,
//! `∇h = p − Sᵀ(F⊙K)c` (Danskin; the paper's eq. 18 has the sign of the `α̌` part wrong).
//!
//! Choices where the paper is loose (documented in `docs/DESIGN.md`):
//! - **Solver**: Algorithm 1 is first order and crawls on nearly constant kernels. The
//!   default ([`Scheme::Newton`]) maximises, at each `α_t`, the concave quadratic model
//!   with `h`'s gradient and curvature `F⊙K + (ccᵀ⊙K⊙K + diag((K⊙K)(c⊙c)))/(4η)` (exact at
//!   τ = 0) by SMO, then line-searches `h` towards that maximiser: a few iterations
//!   where Algorithm 1 needs thousands. Algorithm 1 and its variants stay available.
//! - **Stopping**: the paper's `‖α_t − α_{t−1}‖ ≤ ε`, or the KKT violation of the dual on
//!   the fixed kernel `F⊙K` below LIBSVM's 1e-3 ([`DankProblem::kkt_violation`]).
//! - **Step**: the paper's `L = n + 3nC²‖K‖²_F/(4η)` is a loose bound (steps are tiny and
//!   the stopping rule `‖α_t − α_{t−1}‖ ≤ ε` fires at once). The default is backtracking:
//!   `L` starts at `½λ_max(SᵀKS)` and doubles until the ascent condition
//!   `h(θ) ≥ h(α) + ⟨∇h(α), θ − α⟩ − L/2‖θ − α‖²` holds. `L` never decreases, so the
//!   estimate-sequence argument of Nesterov (2005) holds with the final `L ≤ 2L_true`
//!   in place of the bound: the same `O(L/t²)` rate with a far smaller constant.
//! - **Objective**: `h` is evaluated without the `‖F − 11ᵀ‖²` cancellation (`n²`-sized
//!   terms) from the eigenvalues `λ_i` of `11ᵀ + Γ`:
//!   `h = pᵀz − ½cᵀKc − ‖diag(c)Kdiag(c)‖²_F/(16η) + η Σ min(λ_i, τ/2)² + τη Σ (λ_i − τ/2)₊`.
//! - **Eigendecomposition**: `11ᵀ + Γ` vanishes on the zero-sum vectors supported off the
//!   support `S = {c_i ≠ 0}`, so its eigenpairs are those of an `(|S|+1)`-square matrix
//!   on `R^S ⊕ span(1_N)` ([`EigenRoute::Reduced`], exact); [`EigenRoute::Full`] is the
//!   plain `n × n` decomposition, kept as the reference.
//! - **Bias**: from the final α as for an SVM on the fixed kernel `F⊙K`, LIBSVM's rule
//!   (average of `y_i − (F⊙K c)_i` over free variables, else the midpoint of the
//!   feasible interval).
//! - **Output**: the last projected point `θ_t` (Nesterov's convergent sequence), whose
//!   bounds are exact, not the averaged `α_t`.

use super::machine::LearnedKernelMachine;
use super::projection::project_box_equality;
use super::spectral::symmetric_eigen;
use super::trace::Trace;
use crate::data::Features;
use crate::estimator::{Estimator, FitSummary, Task};
use crate::kernel::{Kernel, KernelSource, PrecomputedKernel};
use crate::multiclass::OneVsOne;
use crate::select::{GridSearch, Selection};
use crate::svm::{
    solve_c_svc, solve_epsilon_svr, solve_signed_qp, DualShape, SolverSettings, SvmParams, SvmType,
};
use crate::{Error, Result};
use faer::{Mat, MatRef};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// How `h` is maximised: the paper's first-order updates (Algorithm 1; Fig. 4 compares
/// them) or Newton steps by SMO (the default; see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scheme {
    /// Newton steps by SMO (default): at `α_t`, SMO (warm-started at `α_t`) maximises
    /// the concave quadratic with `h`'s value, gradient and (approximate) Hessian over the
    /// feasible set, and a backtracking line search on `h` along the segment to that
    /// maximiser gives `α_{t+1}` (see [`Run::newton`]).
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
pub struct DankSettings {
    /// Nuclear-norm weight τ (≥ 0).
    pub tau: f64,
    /// `η`; `None` = `‖α‖²` of the SVM on `K` with the same C (the paper's rule).
    pub eta: Option<f64>,
    /// Iteration cap `t_max`.
    pub max_iter: usize,
    /// Stop when `‖α_t − α_{t−1}‖₂ ≤ tol` (the paper's rule).
    pub tol: f64,
    /// Also stop when the last projected point satisfies the KKT conditions of the dual
    /// on the fixed kernel `F⊙K` to within this (LIBSVM's rule `m(α) − M(α) ≤ ε` on
    /// `∇h`, in margin units whatever the scale of α; see [`DankProblem::kkt_violation`]).
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

/// LIBSVM's default stopping tolerance, the same for the SVM start and DANK.
fn default_kkt_tol() -> f64 {
    1e-3
}

impl DankSettings {
    /// Checks τ, η, the tolerance and the step.
    pub fn validate(&self) -> Result<()> {
        if !(self.tau >= 0.0 && self.tau.is_finite()) {
            return Err(Error::param(
                "tau",
                format!("must be >= 0, got {}", self.tau),
            ));
        }
        if let Some(eta) = self.eta {
            check_eta(eta)?;
        }
        if !(self.tol > 0.0 && self.tol.is_finite()) {
            return Err(Error::param(
                "tol",
                format!("must be > 0, got {}", self.tol),
            ));
        }
        if !(self.kkt_tol >= 0.0 && self.kkt_tol.is_finite()) {
            return Err(Error::param(
                "kkt_tol",
                format!("must be >= 0, got {}", self.kkt_tol),
            ));
        }
        if self.max_iter == 0 {
            return Err(Error::param("max_iter", "must be at least 1"));
        }
        if let StepRule::Fixed(l) = self.step {
            if !(l > 0.0 && l.is_finite()) {
                return Err(Error::param("L", format!("must be > 0, got {l}")));
            }
        }
        self.svm_solver.validate()
    }
}

fn check_eta(eta: f64) -> Result<()> {
    if !(eta > 0.0 && eta.is_finite()) {
        return Err(Error::param("eta", format!("must be > 0, got {eta}")));
    }
    Ok(())
}

/// `F = J_{τ/2}(11ᵀ + Γ)` as `F = WWᵀ`, with every eigenvalue of `11ᵀ + Γ` that can be
/// non-zero (for the objective).
#[derive(Clone, Debug)]
pub struct AdaptiveMatrix {
    /// `n × r` factor over the `r` eigenvalues above `τ/2`: `W = V_r diag(√(λ_r − τ/2))`.
    pub factor: Mat<f64>,
    /// Eigenvalues of `11ᵀ + Γ` (the rest are zero).
    pub eigenvalues: Vec<f64>,
}

impl AdaptiveMatrix {
    /// `F` itself (`n × n`).
    pub fn matrix(&self) -> Mat<f64> {
        &self.factor * self.factor.transpose()
    }

    /// Rank of `F`.
    pub fn rank(&self) -> usize {
        self.factor.ncols()
    }
}

/// `F(c) = J_{τ/2}(11ᵀ + diag(c)Kdiag(c)/(4η))` (eqs. 8–9), by the given route.
pub fn adaptive_matrix(
    k: MatRef<'_, f64>,
    coef: &[f64],
    eta: f64,
    tau: f64,
    route: EigenRoute,
) -> Result<AdaptiveMatrix> {
    let n = k.nrows();
    let gamma = |i: usize, j: usize| coef[i] * coef[j] * k[(i, j)] / (4.0 * eta);
    // Basis of the subspace carrying 11ᵀ + Γ: one unit vector per index in `rows`, plus
    // (when `rest > 0`) the normalised indicator of the other `rest` indices.
    let (rows, rest): (Vec<usize>, usize) = match route {
        EigenRoute::Full => ((0..n).collect(), 0),
        EigenRoute::Reduced => {
            let s: Vec<usize> = (0..n).filter(|&i| coef[i] != 0.0).collect();
            let rest = n - s.len();
            (s, rest)
        }
    };
    let s = rows.len();
    let dim = s + usize::from(rest > 0);
    let root = (rest as f64).sqrt();
    let b = Mat::from_fn(dim, dim, |i, j| match (i < s, j < s) {
        (true, true) => 1.0 + gamma(rows[i], rows[j]),
        (false, false) => rest as f64,
        _ => root,
    });
    let eig = symmetric_eigen(b.as_ref())?;
    let kept: Vec<(usize, f64)> = (0..dim)
        .map(|q| (q, eig.values[q] - tau / 2.0))
        .filter(|&(_, f)| f > 0.0)
        .collect();
    let mut factor = Mat::<f64>::zeros(n, kept.len());
    let in_rows = {
        let mut mark = vec![false; n];
        rows.iter().for_each(|&i| mark[i] = true);
        mark
    };
    for (r, &(q, f)) in kept.iter().enumerate() {
        let scale = f.sqrt();
        for (i, &row) in rows.iter().enumerate() {
            factor[(row, r)] = eig.vectors[(i, q)] * scale;
        }
        if rest > 0 {
            let v = eig.vectors[(s, q)] * scale / root;
            for j in (0..n).filter(|&j| !in_rows[j]) {
                factor[(j, r)] = v;
            }
        }
    }
    Ok(AdaptiveMatrix {
        factor,
        eigenvalues: eig.values,
    })
}

/// Which dual DANK is embedded in.
#[derive(Clone, Copy, Debug)]
pub enum Dual<'a> {
    /// C-SVC, labels ±1: `z = α`, `c = Yα`, constraint `yᵀα = 0`.
    Svm {
        /// Labels (`> 0` is +1).
        y: &'a [f64],
    },
    /// C-SVC without bias (section 5, problems 21–22): `z = α`, `c = Yα`, only the box
    /// `0 ≤ α ≤ C` (the projection is a clip) and `b = 0`.
    SvmNoBias {
        /// Labels (`> 0` is +1).
        y: &'a [f64],
    },
    /// ε-SVR: `z = [α̂; α̌]`, `c = α̂ − α̌`, constraint `1ᵀ(α̂ − α̌) = 0`.
    Svr {
        /// Targets.
        y: &'a [f64],
        /// Tube width ε.
        epsilon: f64,
    },
}

/// One DANK problem: Gram matrix, dual, C, η, τ.
pub struct DankProblem<'a> {
    /// Gram matrix `K` of the base kernel.
    pub k: MatRef<'a, f64>,
    /// SVM or SVR.
    pub dual: Dual<'a>,
    /// Box bound C.
    pub c: f64,
    /// η (> 0).
    pub eta: f64,
    /// τ (≥ 0).
    pub tau: f64,
}

/// The result of [`DankProblem::solve`].
pub struct DankSolution {
    /// Final dual variables `z` (`α`, or `[α̂; α̌]`).
    pub z: Vec<f64>,
    /// Coefficients of the decision function: `α_i y_i` or `α̂_i − α̌_i`.
    pub coef: Vec<f64>,
    /// Bias `b` (LIBSVM's rule on `F⊙K`).
    pub bias: f64,
    /// The learned `F` at the final `z`.
    pub f: AdaptiveMatrix,
    /// `h(z) = H(z, F(z))` at the final `z`.
    pub objective: f64,
    /// Iterations made.
    pub iterations: usize,
    /// True when a stopping rule (not the cap) ended the run.
    pub converged: bool,
    /// Final `L` of the first-order schemes (under [`Scheme::Newton`], its unused start).
    pub lipschitz: f64,
    /// Per iteration: `iter`, `objective` (`h(α_t)`), `diff` (`‖α_t − α_{t−1}‖`), `lipschitz`
    /// (`step`, the line-search step, under [`Scheme::Newton`]), `rank` (of `F(α_t)`) and
    /// `violation` (KKT, of the step's end point).
    pub trace: Trace,
}

/// `h`, `∇h` and `F` at one point (`F` is not formed on the τ = 0 path).
#[derive(Clone)]
struct Point {
    z: Vec<f64>,
    value: f64,
    grad: Vec<f64>,
    f: Option<AdaptiveMatrix>,
}

impl DankProblem<'_> {
    fn n(&self) -> usize {
        self.k.nrows()
    }

    /// Checks the shapes and parameters.
    pub fn validate(&self) -> Result<()> {
        let n = self.n();
        let y = match self.dual {
            Dual::Svm { y } | Dual::SvmNoBias { y } | Dual::Svr { y, .. } => y,
        };
        if self.k.ncols() != n || y.len() != n || n == 0 {
            return Err(Error::data(format!(
                "DANK: Gram matrix {}×{} and {} labels do not match",
                n,
                self.k.ncols(),
                y.len()
            )));
        }
        if !(self.c > 0.0 && self.c.is_finite()) {
            return Err(Error::param("C", format!("must be > 0, got {}", self.c)));
        }
        if let Dual::Svr { epsilon, .. } = self.dual {
            if !(epsilon >= 0.0 && epsilon.is_finite()) {
                return Err(Error::param(
                    "epsilon",
                    format!("must be >= 0, got {epsilon}"),
                ));
            }
        }
        check_eta(self.eta)?;
        if !(self.tau >= 0.0 && self.tau.is_finite()) {
            return Err(Error::param(
                "tau",
                format!("must be >= 0, got {}", self.tau),
            ));
        }
        if y.iter().any(|v| !v.is_finite()) {
            return Err(Error::data("DANK: non-finite label or target"));
        }
        Ok(())
    }

    /// Length of `z`.
    pub fn dim(&self) -> usize {
        match self.dual {
            Dual::Svm { .. } | Dual::SvmNoBias { .. } => self.n(),
            Dual::Svr { .. } => 2 * self.n(),
        }
    }

    /// Signs `s` of the variables (`y_i` for SVM, `[+1; −1]` for SVR): `c = Sz` and
    /// the constraint (when there is one) is `sᵀz = 0`.
    fn signs(&self) -> Vec<f64> {
        match self.dual {
            Dual::Svm { y } | Dual::SvmNoBias { y } => y
                .iter()
                .map(|&v| if v > 0.0 { 1.0 } else { -1.0 })
                .collect(),
            Dual::Svr { y, .. } => (0..2 * y.len())
                .map(|i| if i < y.len() { 1.0 } else { -1.0 })
                .collect(),
        }
    }

    /// `Sᵀv`: each variable's sign times `v` at its point.
    fn spread(&self, v: &[f64]) -> Vec<f64> {
        match self.dual {
            Dual::Svm { y } | Dual::SvmNoBias { y } => v
                .iter()
                .zip(y)
                .map(|(a, &b)| if b > 0.0 { *a } else { -a })
                .collect(),
            Dual::Svr { .. } => v.iter().copied().chain(v.iter().map(|a| -a)).collect(),
        }
    }

    /// `c = Sz`.
    pub fn coef(&self, z: &[f64]) -> Vec<f64> {
        let n = self.n();
        match self.dual {
            Dual::Svm { .. } | Dual::SvmNoBias { .. } => {
                z.iter().zip(self.signs()).map(|(a, s)| a * s).collect()
            }
            Dual::Svr { .. } => (0..n).map(|i| z[i] - z[n + i]).collect(),
        }
    }

    /// Linear part `pᵀz`: `1ᵀα`, or `cᵀy − ε1ᵀz`.
    fn linear(&self, z: &[f64], c: &[f64]) -> f64 {
        match self.dual {
            Dual::Svm { .. } | Dual::SvmNoBias { .. } => z.iter().sum(),
            Dual::Svr { y, epsilon } => {
                c.iter().zip(y).map(|(a, b)| a * b).sum::<f64>() - epsilon * z.iter().sum::<f64>()
            }
        }
    }

    /// `∇h = p − Sᵀg` with `g = (F⊙K)c`.
    fn gradient(&self, g: &[f64]) -> Vec<f64> {
        match self.dual {
            Dual::Svm { y } | Dual::SvmNoBias { y } => g
                .iter()
                .zip(y)
                .map(|(gi, &yi)| 1.0 - if yi > 0.0 { *gi } else { -*gi })
                .collect(),
            Dual::Svr { y, epsilon } => {
                let up = g.iter().zip(y).map(|(gi, yi)| yi - epsilon - gi);
                let down = g.iter().zip(y).map(|(gi, yi)| -yi - epsilon + gi);
                up.chain(down).collect()
            }
        }
    }

    /// Largest violation of the KKT conditions at `z` for the ascent gradient `grad`.
    /// With the equality `sᵀz = 0` it is LIBSVM's `m(z) − M(z)`,
    /// `m = max_{I_up} s_i∇h_i`, `M = min_{I_low} s_i∇h_i`,
    /// `I_up = {z_i < C, s_i > 0} ∪ {z_i > 0, s_i < 0}` and `I_low` the other way round
    /// (Fan, Chen and Lin 2005, eq. 8). In the box-only dual it is the largest
    /// projected-gradient entry. Zero exactly at the maximiser of `h` over the
    /// feasible set, since `h` is concave and differentiable (F(α) is unique).
    pub fn kkt_violation(&self, z: &[f64], grad: &[f64]) -> f64 {
        let signs = self.signs();
        let (mut up, mut low) = (f64::NEG_INFINITY, f64::INFINITY);
        for ((&zi, &gi), &si) in z.iter().zip(grad).zip(&signs) {
            let (below_c, above_0) = (zi < self.c, zi > 0.0);
            if let Dual::SvmNoBias { .. } = self.dual {
                // Box only: α_i can rise while below C, fall while above 0.
                if below_c {
                    up = up.max(gi);
                }
                if above_0 {
                    up = up.max(-gi);
                }
                continue;
            }
            let sg = si * gi;
            if (si > 0.0 && below_c) || (si < 0.0 && above_0) {
                up = up.max(sg);
            }
            if (si < 0.0 && below_c) || (si > 0.0 && above_0) {
                low = low.min(sg);
            }
        }
        match self.dual {
            Dual::SvmNoBias { .. } => up.max(0.0),
            _ if up.is_finite() && low.is_finite() => (up - low).max(0.0),
            _ => 0.0,
        }
    }

    /// Euclidean projection onto the feasible set (a clip when there is no equality).
    fn project(&self, v: &[f64]) -> Result<Vec<f64>> {
        match self.dual {
            Dual::SvmNoBias { .. } => Ok(v.iter().map(|a| a.clamp(0.0, self.c)).collect()),
            _ => project_box_equality(v, &vec![self.c; v.len()], &self.signs(), 0.0),
        }
    }

    /// `h(z)`, `∇h(z)` and `F(z)` (see the module docs for the closed form of `h`).
    fn evaluate(&self, z: Vec<f64>, route: EigenRoute) -> Result<Point> {
        if self.tau == 0.0 && route == EigenRoute::Reduced {
            return Ok(self.evaluate_unshrunk(z));
        }
        let n = self.n();
        let c = self.coef(&z);
        let f = adaptive_matrix(self.k, &c, self.eta, self.tau, route)?;
        let support: Vec<usize> = (0..n).filter(|&i| c[i] != 0.0).collect();
        // g = (F⊙K)c = Σ_r w_r ⊙ K(w_r ⊙ c), over the support columns only.
        let w = &f.factor;
        let k_cols = Mat::from_fn(n, support.len(), |i, j| self.k[(i, support[j])]);
        let wc = Mat::from_fn(support.len(), w.ncols(), |j, r| {
            w[(support[j], r)] * c[support[j]]
        });
        let prod = &k_cols * &wc;
        let g: Vec<f64> = (0..n)
            .map(|i| (0..w.ncols()).map(|r| w[(i, r)] * prod[(i, r)]).sum())
            .collect();
        let (mut quad, mut quad4) = (0.0, 0.0);
        for &i in &support {
            for &j in &support {
                let m = c[i] * c[j] * self.k[(i, j)];
                quad += m;
                quad4 += m * m;
            }
        }
        let half = self.tau / 2.0;
        let shrink: f64 = f
            .eigenvalues
            .iter()
            .map(|&l| l.min(half).powi(2) + self.tau * (l - half).max(0.0))
            .sum();
        let value =
            self.linear(&z, &c) - 0.5 * quad - quad4 / (16.0 * self.eta) + self.eta * shrink;
        Ok(Point {
            grad: self.gradient(&g),
            z,
            value,
            f: Some(f),
        })
    }

    /// The τ = 0 path: `Γ(α)` is PSD (a Hadamard product of PSD matrices), so
    /// `F = J_0(11ᵀ + Γ) = 11ᵀ + Γ` needs no eigendecomposition, and with
    /// `u = Kc`, `v = (K⊙K)(c⊙c)`: `(F⊙K)c = u + c⊙v/(4η)`,
    /// `h = pᵀz − ½cᵀu − (c⊙c)ᵀv/(16η)` (the eigenvalue terms of the closed form vanish).
    fn evaluate_unshrunk(&self, z: Vec<f64>) -> Point {
        let n = self.n();
        let c = self.coef(&z);
        let (mut u, mut v) = (vec![0.0; n], vec![0.0; n]);
        for j in (0..n).filter(|&j| c[j] != 0.0) {
            let (cj, cj2) = (c[j], c[j] * c[j]);
            for (i, (ui, vi)) in u.iter_mut().zip(v.iter_mut()).enumerate() {
                let kij = self.k[(i, j)];
                *ui += kij * cj;
                *vi += kij * kij * cj2;
            }
        }
        let quad: f64 = c.iter().zip(&u).map(|(a, b)| a * b).sum();
        let quad4: f64 = c.iter().zip(&v).map(|(a, b)| a * a * b).sum();
        let g: Vec<f64> = (0..n)
            .map(|i| u[i] + c[i] * v[i] / (4.0 * self.eta))
            .collect();
        let value = self.linear(&z, &c) - 0.5 * quad - quad4 / (16.0 * self.eta);
        Point {
            grad: self.gradient(&g),
            z,
            value,
            f: None,
        }
    }

    /// The paper's Lipschitz constant for this scheme (see [`StepRule::PaperLipschitz`]).
    pub fn paper_lipschitz(&self, scheme: Scheme) -> f64 {
        let n = self.n() as f64;
        let c2 = self.c * self.c;
        let k_fro2 = self.k.norm_l2().powi(2);
        match (self.dual, scheme) {
            (Dual::Svr { .. }, _) => 4.0 * (n + 9.0 * n * c2 * k_fro2 / (4.0 * self.eta)),
            (Dual::Svm { .. } | Dual::SvmNoBias { .. }, Scheme::ProjectedGradient) => {
                n - self.tau / 2.0 + n * c2 * lambda_max(self.k) / (4.0 * self.eta)
            }
            (Dual::Svm { .. } | Dual::SvmNoBias { .. }, _) => {
                n + 3.0 * n * c2 * k_fro2 / (4.0 * self.eta)
            }
        }
    }

    /// Maximises `h` over the feasible set from `z0` (projected first) with `settings`'
    /// scheme, step rule and stopping rule. τ and η are the problem's.
    pub fn solve(&self, z0: &[f64], settings: &DankSettings) -> Result<DankSolution> {
        self.validate()?;
        settings.validate()?;
        if z0.len() != self.dim() {
            return Err(Error::data(format!(
                "DANK: start point has {} values, expected {}",
                z0.len(),
                self.dim()
            )));
        }
        let start = self.project(z0)?;
        let lip0 = match settings.step {
            StepRule::Backtracking => {
                let scale = if matches!(self.dual, Dual::Svr { .. }) {
                    2.0
                } else {
                    1.0
                };
                (0.5 * scale * lambda_max(self.k)).max(1e-12)
            }
            StepRule::PaperLipschitz => self.paper_lipschitz(settings.scheme),
            StepRule::Fixed(l) => l,
        };
        let mut run = Run {
            problem: self,
            settings,
            lip: lip0,
            step: f64::NAN,
            trace: Trace::new(&[
                "iter",
                "objective",
                "diff",
                if settings.scheme == Scheme::Newton {
                    "step"
                } else {
                    "lipschitz"
                },
                "rank",
                "violation",
            ]),
        };
        let (last, iterations, converged) = match settings.scheme {
            Scheme::ProjectedGradient => run.projected_gradient(start)?,
            Scheme::Nesterov => run.nesterov(start, false)?,
            Scheme::NesterovMonotone => run.nesterov(start, true)?,
            Scheme::Newton => run.newton(start)?,
        };
        let bias = match self.dual {
            Dual::SvmNoBias { .. } => 0.0,
            _ => libsvm_bias(&last.z, self.c, &self.signs(), &last.grad),
        };
        let coef = self.coef(&last.z);
        let f = match last.f {
            Some(f) => f,
            // The τ = 0 path never factored F; one (|S|+1)-square eigenproblem does it.
            None => adaptive_matrix(self.k, &coef, self.eta, self.tau, EigenRoute::Reduced)?,
        };
        Ok(DankSolution {
            coef,
            z: last.z,
            bias,
            f,
            objective: last.value,
            iterations,
            converged,
            lipschitz: run.lip,
            trace: run.trace,
        })
    }
}

/// State of one solver run.
struct Run<'p, 'a> {
    problem: &'p DankProblem<'a>,
    settings: &'p DankSettings,
    lip: f64,
    /// Newton's last line-search step (recorded in place of `L`).
    step: f64,
    trace: Trace,
}

impl Run<'_, '_> {
    fn eval(&self, z: Vec<f64>) -> Result<Point> {
        self.problem.evaluate(z, self.settings.eigen)
    }

    /// `θ = P(x + ∇h(x)/L)`; with backtracking `L` doubles until the ascent condition
    /// holds, and `h(θ)` is returned. With a fixed `L`, `θ` is evaluated only if `need`.
    fn ascent_step(&mut self, x: &Point, need: bool) -> Result<Point> {
        let backtrack = self.settings.step == StepRule::Backtracking;
        for _ in 0..200 {
            let v: Vec<f64> =
                x.z.iter()
                    .zip(&x.grad)
                    .map(|(a, g)| a + g / self.lip)
                    .collect();
            let theta = self.problem.project(&v)?;
            if !backtrack && !need {
                return Ok(Point {
                    z: theta,
                    value: f64::NAN,
                    grad: Vec::new(),
                    f: None,
                });
            }
            let p = self.eval(theta)?;
            if !backtrack {
                return Ok(p);
            }
            let (mut lin, mut sq) = (0.0, 0.0);
            for ((t, a), g) in p.z.iter().zip(&x.z).zip(&x.grad) {
                lin += g * (t - a);
                sq += (t - a) * (t - a);
            }
            let model = x.value + lin - 0.5 * self.lip * sq;
            if p.value >= model - 1e-12 * (1.0 + x.value.abs()) {
                return Ok(p);
            }
            self.lip *= 2.0;
        }
        Err(Error::data(format!(
            "DANK: backtracking found no step (L = {:e}); non-finite objective?",
            self.lip
        )))
    }

    fn record(&mut self, t: usize, x: &Point, diff: f64, violation: f64) {
        let rank = x.f.as_ref().map_or(f64::NAN, |f| f.rank() as f64);
        let scale = if self.settings.scheme == Scheme::Newton {
            self.step
        } else {
            self.lip
        };
        self.trace
            .push(vec![t as f64, x.value, diff, scale, rank, violation]);
    }

    /// KKT violation of an evaluated point (NaN when its gradient was not computed,
    /// as for a fixed step without the monotone variant).
    fn violation(&self, p: &Point) -> f64 {
        if p.grad.is_empty() {
            f64::NAN
        } else {
            self.problem.kkt_violation(&p.z, &p.grad)
        }
    }

    /// Either stopping rule: the paper's step length, or the KKT violation.
    fn stops(&self, diff: f64, violation: f64) -> bool {
        diff <= self.settings.tol || violation <= self.settings.kkt_tol
    }

    /// Eq. (14): `α ← P(α + ∇h/L)`.
    fn projected_gradient(&mut self, start: Vec<f64>) -> Result<(Point, usize, bool)> {
        let mut x = self.eval(start)?;
        for t in 0..self.settings.max_iter {
            let theta = self.ascent_step(&x, true)?;
            let diff = distance(&theta.z, &x.z);
            let violation = self.violation(&theta);
            self.record(t, &x, diff, violation);
            x = theta;
            if self.stops(diff, violation) {
                return Ok((x, t + 1, true));
            }
        }
        Ok((x, self.settings.max_iter, false))
    }

    /// Algorithm 1 (and its monotone variant); returns the last `θ`.
    fn nesterov(&mut self, start: Vec<f64>, monotone: bool) -> Result<(Point, usize, bool)> {
        let z0 = start.clone();
        let mut weighted = vec![0.0; z0.len()];
        let mut x = self.eval(start)?;
        let mut best: Option<Point> = None;
        for t in 0..self.settings.max_iter {
            for (w, g) in weighted.iter_mut().zip(&x.grad) {
                *w += (t + 1) as f64 * g;
            }
            let mut theta = self.ascent_step(&x, monotone)?;
            if monotone {
                // θ_t = argmax h over {θ_{t−1}, θ̃_t, α_t}.
                if let Some(prev) = best.take() {
                    if prev.value > theta.value {
                        theta = prev;
                    }
                }
                if x.value > theta.value {
                    theta = x.clone();
                }
            }
            let v: Vec<f64> = z0
                .iter()
                .zip(&weighted)
                .map(|(a, w)| a + w / (2.0 * self.lip))
                .collect();
            let beta = self.problem.project(&v)?;
            let a = (t + 1) as f64 / (t + 3) as f64;
            let next: Vec<f64> = theta
                .z
                .iter()
                .zip(&beta)
                .map(|(th, be)| a * th + (1.0 - a) * be)
                .collect();
            let diff = distance(&next, &x.z);
            let violation = self.violation(&theta);
            self.record(t, &x, diff, violation);
            let done = self.stops(diff, violation);
            if done {
                return Ok((self.finish(Some(theta))?, t + 1, true));
            }
            x = self.eval(next)?;
            best = Some(theta);
            if done {
                return Ok((self.finish(best)?, t + 1, true));
            }
        }
        Ok((self.finish(best)?, self.settings.max_iter, false))
    }

    /// Newton steps by SMO with a line search on `h` ([`Scheme::Newton`]): at `α_t` the
    /// model is the concave quadratic with `h`'s value, its gradient and the curvature
    /// `−SᵀQ_tS` of [`NewtonKernel`]; its maximiser `α̂` over the feasible set (SMO,
    /// warm-started at `α_t`) gives the direction `d = α̂ − α_t`, an ascent direction since
    /// `⟨∇h(α_t), d⟩ ≥ ½ dᵀSᵀQ_tSd ≥ 0`, with equality only where `α_t` maximises the model
    /// and so `h` (same gradient).
    fn newton(&mut self, start: Vec<f64>) -> Result<(Point, usize, bool)> {
        let mut x = self.eval(start)?;
        for t in 0..self.settings.max_iter {
            let target = self.model_maximiser(&x)?;
            let d: Vec<f64> = target.iter().zip(&x.z).map(|(a, b)| a - b).collect();
            let slope: f64 = d.iter().zip(&x.grad).map(|(a, g)| a * g).sum();
            let Some((next, step)) = self.line_search(&x, &d, slope)? else {
                // No measurable ascent along d: α_t maximises the model to the SMO's
                // tolerance and h to rounding, the best this precision allows.
                let violation = self.violation(&x);
                self.step = 0.0;
                self.record(t, &x, 0.0, violation);
                return Ok((x, t + 1, true));
            };
            self.step = step;
            let diff = distance(&next.z, &x.z);
            let violation = self.violation(&next);
            self.record(t, &x, diff, violation);
            x = next;
            if self.stops(diff, violation) {
                return Ok((x, t + 1, true));
            }
        }
        Ok((x, self.settings.max_iter, false))
    }

    /// The maximiser of the Newton model at `x`: SMO on `Q_x` ([`NewtonKernel`]) with the
    /// linear term `∇h(x) + SᵀQ_x c(x)` (so that the model's gradient at `x` is `∇h(x)`),
    /// warm-started at `x`, to half the KKT stopping tolerance.
    fn model_maximiser(&self, x: &Point) -> Result<Vec<f64>> {
        let p = self.problem;
        let coef = p.coef(&x.z);
        let model = NewtonKernel::new(p.k, x.f.as_ref(), &coef, p.eta);
        // LIBSVM's minimisation form: the linear term is −(∇h + SᵀQc).
        let linear: Vec<f64> = x
            .grad
            .iter()
            .zip(p.spread(&model.apply(&coef)))
            .map(|(g, b)| -(g + b))
            .collect();
        let mut solver = self.settings.svm_solver;
        // Half the KKT tolerance; without one (stop on ‖Δα‖ only), as tight as f32 rows allow.
        solver.tol = solver.tol.min((0.5 * self.settings.kkt_tol).max(1e-9));
        let shape = match p.dual {
            Dual::Svm { y } => DualShape::Classification { y },
            Dual::SvmNoBias { y } => DualShape::ClassificationNoBias { y },
            Dual::Svr { .. } => DualShape::Regression,
        };
        solve_signed_qp(&model, shape, &linear, p.c, &x.z, &solver)
    }

    /// Backtracking (Armijo) on `h` along `x + s·d`, `s ∈ (0, 1]`, halving from `s = 1`
    /// or jumping to the maximiser of the quadratic through `h(x)`, `slope` and the
    /// rejected value. `None` when `d` is not an ascent direction or no step gains.
    fn line_search(&self, x: &Point, d: &[f64], slope: f64) -> Result<Option<(Point, f64)>> {
        if slope.is_nan() || slope <= 0.0 {
            return Ok(None);
        }
        let mut s = 1.0;
        while s >= 1e-10 {
            let z: Vec<f64> = x.z.iter().zip(d).map(|(a, b)| a + s * b).collect();
            let p = self.eval(z)?;
            let gain = p.value - x.value;
            if gain >= 1e-4 * s * slope {
                return Ok(Some((p, s)));
            }
            // φ(σ) ≈ h(x) + slope·σ + (gain − slope·s)σ²/s² peaks at this σ.
            let peak = 0.5 * slope * s * s / (slope * s - gain);
            s = peak.clamp(0.1 * s, 0.5 * s);
        }
        Ok(None)
    }

    /// The final `θ`, evaluated.
    fn finish(&self, theta: Option<Point>) -> Result<Point> {
        let theta = theta.ok_or_else(|| Error::data("DANK: no iteration was made"))?;
        if theta.grad.is_empty() {
            self.eval(theta.z)
        } else {
            Ok(theta)
        }
    }
}

fn distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

/// SVR coefficients `c` as `z = [c₊; c₋]`.
fn split_coef(coef: &[f64]) -> Vec<f64> {
    let up = coef.iter().map(|v| v.max(0.0));
    up.chain(coef.iter().map(|v| (-v).max(0.0))).collect()
}

/// The curvature of the Newton model of `−h` in `c` ([`Scheme::Newton`]):
/// `Q = F⊙K + (ccᵀ⊙K⊙K + diag((K⊙K)(c⊙c)))/(4η)`.
///
/// At τ = 0, `−h = −pᵀz + ½cᵀKc + (c⊙c)ᵀ(K⊙K)(c⊙c)/(16η)` is a quartic whose Hessian is
/// exactly `Q` (with `F⊙K = K + ccᵀ⊙K⊙K/(4η)`), so the steps are Newton's. For τ > 0,
/// `F = J_{τ/2}(11ᵀ + Γ)` replaces `11ᵀ + Γ` in the first term, and the change of the
/// soft-thresholded eigenpairs with `c` (divided differences over the whole spectrum) is
/// approximated by the τ = 0 term; the line search makes up for the difference. Entries
/// are computed on demand from `K` and the factor of `F` (no second `n × n` matrix).
struct NewtonKernel<'a> {
    k: MatRef<'a, f64>,
    /// `W` of `F = WWᵀ`, row by row (`n × rank`); `None` at τ = 0 (`F = 11ᵀ + Γ`).
    factor: Option<(Vec<f64>, usize)>,
    coef: &'a [f64],
    /// `(K⊙K)(c⊙c)`.
    quartic_diag: Vec<f64>,
    /// `1/(4η)`.
    scale: f64,
}

impl<'a> NewtonKernel<'a> {
    fn new(k: MatRef<'a, f64>, f: Option<&AdaptiveMatrix>, coef: &'a [f64], eta: f64) -> Self {
        let factor = f.map(|f| {
            let w = &f.factor;
            let rows = (0..w.nrows())
                .flat_map(|i| (0..w.ncols()).map(move |r| w[(i, r)]))
                .collect();
            (rows, w.ncols())
        });
        let n = k.nrows();
        let support: Vec<usize> = (0..n).filter(|&j| coef[j] != 0.0).collect();
        // K is symmetric and column-major: (j, i) walks row i contiguously.
        let quartic_diag = (0..n)
            .into_par_iter()
            .map(|i| support.iter().map(|&j| (k[(j, i)] * coef[j]).powi(2)).sum())
            .collect();
        Self {
            k,
            factor,
            coef,
            quartic_diag,
            scale: 1.0 / (4.0 * eta),
        }
    }

    fn entry(&self, i: usize, j: usize) -> f64 {
        let kij = self.k[(j, i)];
        let cross = self.scale * self.coef[i] * self.coef[j] * kij;
        let f = match &self.factor {
            Some((rows, rank)) => {
                let (wi, wj) = (
                    &rows[i * rank..(i + 1) * rank],
                    &rows[j * rank..(j + 1) * rank],
                );
                wi.iter().zip(wj).map(|(a, b)| a * b).sum::<f64>()
            }
            None => 1.0 + cross,
        };
        let diag = if i == j {
            self.scale * self.quartic_diag[i]
        } else {
            0.0
        };
        kij * (f + cross) + diag
    }

    /// `Qv`, over the non-zero entries of `v` only (`v` is `c`, zero off the support).
    fn apply(&self, v: &[f64]) -> Vec<f64> {
        let nonzero: Vec<usize> = (0..v.len()).filter(|&j| v[j] != 0.0).collect();
        (0..v.len())
            .into_par_iter()
            .map(|i| nonzero.iter().map(|&j| self.entry(i, j) * v[j]).sum())
            .collect()
    }
}

impl KernelSource for NewtonKernel<'_> {
    fn len(&self) -> usize {
        self.k.nrows()
    }

    fn diag(&self, i: usize) -> f64 {
        self.entry(i, i)
    }

    fn fill_row(&self, i: usize, cols: &[usize], out: &mut [f32]) {
        for (o, &j) in out.iter_mut().zip(cols) {
            *o = self.entry(i, j) as f32;
        }
    }
}

/// Largest eigenvalue of the PSD matrix `k` by power iteration (a step-size scale).
fn lambda_max(k: MatRef<'_, f64>) -> f64 {
    let n = k.nrows();
    let mut v = Mat::<f64>::from_fn(n, 1, |i, _| 1.0 + (i % 7) as f64 * 0.1);
    let mut lambda = 0.0;
    for _ in 0..50 {
        let w = k * &v;
        let norm = w.norm_l2();
        if norm == 0.0 {
            return 0.0;
        }
        let vnorm = v.norm_l2();
        let next = norm / vnorm;
        v = w * faer::Scale(1.0 / norm);
        if (next - lambda).abs() <= 1e-6 * next {
            return next;
        }
        lambda = next;
    }
    lambda
}

/// `b = −ρ` by LIBSVM's `calculate_rho` on the fixed kernel: `s` are the variables'
/// signs, `grad` is `∇h` (LIBSVM's gradient is `−∇h`).
fn libsvm_bias(z: &[f64], c: f64, s: &[f64], grad: &[f64]) -> f64 {
    let (mut ub, mut lb) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut sum, mut free) = (0.0, 0usize);
    for i in 0..z.len() {
        let yg = -s[i] * grad[i];
        let at_upper = z[i] >= c;
        let at_lower = z[i] <= 0.0;
        if (at_upper && s[i] < 0.0) || (at_lower && s[i] > 0.0) {
            ub = ub.min(yg);
        } else if at_upper || at_lower {
            lb = lb.max(yg);
        } else {
            free += 1;
            sum += yg;
        }
    }
    let rho = if free > 0 {
        sum / free as f64
    } else {
        (ub + lb) / 2.0
    };
    -rho
}

/// Hyper-parameters of a DANK model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DankParams {
    /// Classification (DANK-SVM, one-vs-one) or regression (DANK-SVR).
    pub task: Task,
    /// Base kernel (the papers: Gaussian with σ from SVM-CV).
    pub kernel: Kernel,
    /// Box bound C.
    pub c: f64,
    /// SVR tube width ε (regression only).
    pub epsilon: f64,
    /// Solver settings (τ, η, scheme, step, …).
    pub settings: DankSettings,
}

/// What one binary (or regression) fit reported.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DankFitInfo {
    /// η used.
    pub eta: f64,
    /// Iterations.
    pub iterations: usize,
    /// Final `h(α) = H(α, F(α))`.
    pub objective: f64,
    /// Stopped by the tolerance (not the cap).
    pub converged: bool,
    /// Smallest entry of `F`.
    pub f_min: f64,
    /// Largest entry of `F`.
    pub f_max: f64,
    /// Rank of `F`.
    pub rank: usize,
    /// Final `L` of the first-order schemes (under Newton steps, its unused start).
    pub lipschitz: f64,
}

/// The fitted predictors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DankMachines {
    /// One learned-kernel machine per class pair (one pair for binary problems).
    Classifier(OneVsOne<LearnedKernelMachine>),
    /// One learned-kernel regressor.
    Regressor(LearnedKernelMachine),
}

/// A fitted DANK model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DankModel {
    /// Parameters used.
    pub params: DankParams,
    /// Input columns.
    pub n_features: usize,
    /// Predictors.
    pub machines: DankMachines,
    /// One entry per machine (class pair order for classifiers).
    pub info: Vec<DankFitInfo>,
}

/// One machine's fit: predictor, report, trace.
type MachineFit = (LearnedKernelMachine, DankFitInfo, Trace);

impl DankModel {
    /// Fits DANK on `(x, y)`: per class pair (or once for regression) the SVM on `K`
    /// with the same C gives α₀ and η = ‖α_SVM‖² (unless set), then Algorithm 1 / 2.
    pub fn fit(params: &DankParams, x: &Features, y: &[f64]) -> Result<Self> {
        Ok(Self::fit_traced(params, x, y)?.0)
    }

    /// As [`DankModel::fit`], also returning each machine's trace.
    pub fn fit_traced(params: &DankParams, x: &Features, y: &[f64]) -> Result<(Self, Vec<Trace>)> {
        params.settings.validate()?;
        params.kernel.validate(x.n_cols())?;
        if x.n_rows() != y.len() {
            return Err(Error::data(format!(
                "{} labels for {} rows",
                y.len(),
                x.n_rows()
            )));
        }
        let mut info = Vec::new();
        let mut traces = Vec::new();
        let machines = match params.task {
            Task::Classification => {
                let ovo = OneVsOne::fit(x, y, |xp, yp| {
                    let (m, i, t) = fit_machine(params, xp, yp)?;
                    info.push(i);
                    traces.push(t);
                    Ok(m)
                })?;
                DankMachines::Classifier(ovo)
            }
            Task::Regression => {
                let (m, i, t) = fit_machine(params, x, y)?;
                info.push(i);
                traces.push(t);
                DankMachines::Regressor(m)
            }
            Task::Novelty => {
                return Err(Error::param(
                    "task",
                    "DANK does classification (dank) or regression (dank-svr)",
                ))
            }
        };
        let model = Self {
            params: params.clone(),
            n_features: x.n_cols(),
            machines,
            info,
        };
        Ok((model, traces))
    }

    /// Smallest and largest entry of the learned `F` over all machines.
    pub fn f_range(&self) -> (f64, f64) {
        self.info
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), i| {
                (lo.min(i.f_min), hi.max(i.f_max))
            })
    }

    fn check_input(&self, x: &Features) -> Result<()> {
        x.check_input(self.n_features)
    }
}

/// SVM start, η, DANK solve and the learned-kernel machine for one binary / regression
/// problem.
fn fit_machine(params: &DankParams, x: &Features, y: &[f64]) -> Result<MachineFit> {
    let s = &params.settings;
    let k = params.kernel.gram(x)?;
    let source = PrecomputedKernel::new(k.as_ref())?;
    let (dual, svm_z) = match params.task {
        Task::Regression => {
            let sol = solve_epsilon_svr(&source, y, params.c, params.epsilon, &s.svm_solver, None)?;
            let z = split_coef(&sol.coef);
            (
                Dual::Svr {
                    y,
                    epsilon: params.epsilon,
                },
                z,
            )
        }
        _ => {
            let sol = solve_c_svc(&source, y, params.c, params.c, &s.svm_solver, None)?;
            (Dual::Svm { y }, sol.coef.iter().map(|v| v.abs()).collect())
        }
    };
    let coef_svm_norm2: f64 = svm_z.iter().map(|v| v * v).sum();
    let eta = match s.eta {
        Some(e) => e,
        None if coef_svm_norm2 > 0.0 => coef_svm_norm2,
        None => {
            return Err(Error::data(
                "DANK: the SVM solution is zero, so η = ‖α_SVM‖² = 0; set eta explicitly",
            ))
        }
    };
    let problem = DankProblem {
        k: k.as_ref(),
        dual,
        c: params.c,
        eta,
        tau: s.tau,
    };
    let z0 = if s.init_from_svm {
        svm_z
    } else {
        vec![0.0; problem.dim()]
    };
    let sol = problem.solve(&z0, s)?;
    let (machine, info) = learned_machine(&params.kernel, x, eta, &sol)?;
    Ok((machine, info, sol.trace))
}

/// The predictor on `F⊙K` and the fit report from a solved DANK problem on `x`.
pub(crate) fn learned_machine(
    kernel: &Kernel,
    x: &Features,
    eta: f64,
    sol: &DankSolution,
) -> Result<(LearnedKernelMachine, DankFitInfo)> {
    let f = sol.f.matrix();
    let (mut f_min, mut f_max) = (f64::INFINITY, f64::NEG_INFINITY);
    for j in 0..f.ncols() {
        for i in 0..f.nrows() {
            f_min = f_min.min(f[(i, j)]);
            f_max = f_max.max(f[(i, j)]);
        }
    }
    let machine = LearnedKernelMachine::new(kernel.clone(), x, f.as_ref(), &sol.coef, sol.bias)?;
    let info = DankFitInfo {
        eta,
        iterations: sol.iterations,
        objective: sol.objective,
        converged: sol.converged,
        f_min,
        f_max,
        rank: sol.f.rank(),
        lipschitz: sol.lipschitz,
    };
    Ok((machine, info))
}

impl Estimator for DankModel {
    fn method(&self) -> String {
        match self.params.task {
            Task::Regression => "dank-svr",
            _ => "dank",
        }
        .into()
    }

    fn task(&self) -> Task {
        self.params.task
    }

    fn n_features(&self) -> usize {
        self.n_features
    }

    fn predict(&self, x: &Features) -> Result<Vec<f64>> {
        self.check_input(x)?;
        match &self.machines {
            DankMachines::Classifier(m) => m.predict(x),
            DankMachines::Regressor(m) => m.decision(x),
        }
    }

    fn decision_function(&self, x: &Features) -> Result<Vec<Vec<f64>>> {
        self.check_input(x)?;
        match &self.machines {
            DankMachines::Classifier(m) => m.decision_function(x),
            DankMachines::Regressor(m) => Ok(m.decision(x)?.into_iter().map(|v| vec![v]).collect()),
        }
    }

    fn params_json(&self) -> serde_json::Value {
        serde_json::to_value(&self.params).unwrap_or(serde_json::Value::Null)
    }

    fn classes(&self) -> Vec<f64> {
        match &self.machines {
            DankMachines::Classifier(m) => m.classes.clone(),
            DankMachines::Regressor(_) => Vec::new(),
        }
    }

    fn summary(&self) -> FitSummary {
        let machines: Vec<&LearnedKernelMachine> = match &self.machines {
            DankMachines::Classifier(m) => m.machines.iter().collect(),
            DankMachines::Regressor(m) => vec![m],
        };
        let (f_min, f_max) = self.f_range();
        FitSummary {
            n_support: Some(machines.iter().map(|m| m.support.len()).sum()),
            objective: Some(self.info.iter().map(|i| i.objective).sum()),
            iterations: Some(self.info.iter().map(|i| i.iterations).sum()),
            extra: serde_json::json!({
                "f_min": f_min,
                "f_max": f_max,
                "machines": self.info,
            }),
        }
    }
}

/// The papers' protocol for DANK: σ, C (and ε for regression) by SVM-CV / SVR-CV
/// (5-fold grid search with fold seed `seed`), τ and η from `settings` (defaults:
/// τ = 0.01, η = ‖α_SVM‖²), then DANK on all of `(x, y)`.
pub fn select_and_fit_dank(
    x: &Features,
    y: &[f64],
    task: Task,
    seed: u64,
    settings: &DankSettings,
) -> Result<(Selection, DankModel)> {
    let mut search = GridSearch::new(dank_search_base(task, settings)?);
    search.seed = seed;
    fit_dank_with_search(x, y, task, &search, settings, &|| {})
}

/// The base parameters of DANK's SVM-CV / SVR-CV (C-SVC or ε-SVR with `settings`'
/// solver), for building a custom [`GridSearch`].
pub fn dank_search_base(task: Task, settings: &DankSettings) -> Result<SvmParams> {
    let svm_type = match task {
        Task::Classification => SvmType::CSvc,
        Task::Regression => SvmType::EpsilonSvr,
        Task::Novelty => {
            return Err(Error::param(
                "task",
                "DANK does classification (dank) or regression (dank-svr)",
            ))
        }
    };
    Ok(SvmParams {
        svm_type,
        solver: settings.svm_solver,
        ..SvmParams::default()
    })
}

/// As [`select_and_fit_dank`] with a given grid search (grid, folds, seed, budget; its
/// base should come from [`dank_search_base`]); `progress` is called once per (σ, fold).
pub fn fit_dank_with_search(
    x: &Features,
    y: &[f64],
    task: Task,
    search: &GridSearch,
    settings: &DankSettings,
    progress: &(dyn Fn() + Sync),
) -> Result<(Selection, DankModel)> {
    let selection = search.run(x, y, progress)?;
    let params = DankParams {
        task,
        kernel: selection.params.kernel.clone(),
        c: selection.params.c,
        epsilon: selection.params.epsilon,
        settings: settings.clone(),
    };
    let model = DankModel::fit(&params, x, y)?;
    Ok((selection, model))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nonparametric::spectral::shrink_psd;
    use crate::nonparametric::testing::largest_gap;
    use crate::svm::SvmModel;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Two overlapping Gaussian blobs in 2-D, labels ±1 (or 3 classes).
    fn blobs(n: usize, classes: usize, seed: u64) -> (Features, Vec<f64>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut data = Vec::new();
        let mut y = Vec::new();
        for i in 0..n {
            let c = i % classes;
            let centre = [c as f64, (c % 2) as f64 * 0.8];
            for m in centre {
                data.push(m + rng.random_range(-0.7..0.7));
            }
            y.push(if classes == 2 {
                1.0 - 2.0 * c as f64
            } else {
                c as f64
            });
        }
        (Features::new(n, 2, data).unwrap(), y)
    }

    fn gram(x: &Features, gamma: f64) -> Mat<f64> {
        Kernel::rbf_gamma(gamma).unwrap().gram(x).unwrap()
    }

    fn random_coef(n: usize, seed: u64) -> Vec<f64> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..n)
            .map(|_| {
                if rng.random_bool(0.4) {
                    0.0
                } else {
                    rng.random_range(-1.0..1.0)
                }
            })
            .collect()
    }

    #[test]
    fn reduced_and_full_routes_give_the_same_psd_f() {
        let (x, _) = blobs(40, 2, 1);
        let k = gram(&x, 2.0);
        let c = random_coef(40, 2);
        let eta = 0.3;
        let tau = 0.01;
        let reduced = adaptive_matrix(k.as_ref(), &c, eta, tau, EigenRoute::Reduced).unwrap();
        let full = adaptive_matrix(k.as_ref(), &c, eta, tau, EigenRoute::Full).unwrap();
        let (fr, ff) = (reduced.matrix(), full.matrix());
        assert!((&fr - &ff).norm_l2() < 1e-9, "{}", (&fr - &ff).norm_l2());
        assert!(reduced.eigenvalues.len() < full.eigenvalues.len());
        // Independent reference: J_{τ/2} of the explicit matrix by spectral::shrink_psd.
        let a = Mat::from_fn(40, 40, |i, j| 1.0 + c[i] * c[j] * k[(i, j)] / (4.0 * eta));
        let reference = shrink_psd(a.as_ref(), tau / 2.0).unwrap();
        assert!((&fr - &reference).norm_l2() < 1e-9);
        let eig = symmetric_eigen(fr.as_ref()).unwrap();
        assert!(eig.values[0] > -1e-10, "F not PSD: {}", eig.values[0]);
        assert!(reduced.rank() < 40);
    }

    /// `H(α, F)` straight from its definition (problem 5).
    fn objective_by_definition(k: &Mat<f64>, y: &[f64], alpha: &[f64], eta: f64, tau: f64) -> f64 {
        let n = y.len();
        let c: Vec<f64> = alpha.iter().zip(y).map(|(a, b)| a * b).collect();
        let f = adaptive_matrix(k.as_ref(), &c, eta, tau, EigenRoute::Full)
            .unwrap()
            .matrix();
        let mut quad = 0.0;
        let mut dist = 0.0;
        let mut trace = 0.0;
        for i in 0..n {
            trace += f[(i, i)];
            for j in 0..n {
                quad += c[i] * c[j] * f[(i, j)] * k[(i, j)];
                dist += (f[(i, j)] - 1.0).powi(2);
            }
        }
        alpha.iter().sum::<f64>() - 0.5 * quad + eta * dist + tau * eta * trace
    }

    #[test]
    fn objective_and_gradient_match_definition_and_finite_differences() {
        let (x, y) = blobs(30, 2, 3);
        let k = gram(&x, 1.0);
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let alpha: Vec<f64> = (0..30).map(|_| rng.random_range(0.0..1.0)).collect();
        let problem = DankProblem {
            k: k.as_ref(),
            dual: Dual::Svm { y: &y },
            c: 1.0,
            eta: 0.5,
            tau: 0.01,
        };
        for route in [EigenRoute::Reduced, EigenRoute::Full] {
            let p = problem.evaluate(alpha.clone(), route).unwrap();
            let want = objective_by_definition(&k, &y, &alpha, 0.5, 0.01);
            assert!(
                (p.value - want).abs() < 1e-8 * want.abs().max(1.0),
                "{} vs {want}",
                p.value
            );
            // Danskin: ∇h is the partial gradient at F(α); check by central differences.
            for i in [0, 7, 19] {
                let h = 1e-5;
                let mut up = alpha.clone();
                up[i] += h;
                let mut down = alpha.clone();
                down[i] -= h;
                let fd = (objective_by_definition(&k, &y, &up, 0.5, 0.01)
                    - objective_by_definition(&k, &y, &down, 0.5, 0.01))
                    / (2.0 * h);
                assert!(
                    (p.grad[i] - fd).abs() < 1e-5,
                    "coordinate {i}: {} vs {fd}",
                    p.grad[i]
                );
            }
        }
    }

    #[test]
    fn tau_zero_path_matches_the_eigendecomposition_route() {
        // F = 11ᵀ + Γ without an eigendecomposition vs J_0 by the full n × n route,
        // for the SVM duals with and without the equality, and the SVR dual.
        let (x, y) = blobs(30, 2, 11);
        let k = gram(&x, 1.0);
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        let z: Vec<f64> = (0..60)
            .map(|i| {
                if i % 3 == 0 {
                    0.0
                } else {
                    rng.random_range(0.0..1.0)
                }
            })
            .collect();
        for dual in [
            Dual::Svm { y: &y },
            Dual::SvmNoBias { y: &y },
            Dual::Svr {
                y: &y,
                epsilon: 0.1,
            },
        ] {
            let problem = DankProblem {
                k: k.as_ref(),
                dual,
                c: 1.0,
                eta: 0.3,
                tau: 0.0,
            };
            let z = &z[..problem.dim()];
            let fast = problem.evaluate(z.to_vec(), EigenRoute::Reduced).unwrap();
            let full = problem.evaluate(z.to_vec(), EigenRoute::Full).unwrap();
            assert!(fast.f.is_none() && full.f.is_some());
            assert!((fast.value - full.value).abs() < 1e-9 * full.value.abs().max(1.0));
            assert!(distance(&fast.grad, &full.grad) < 1e-9);
        }
        // The box-only dual projects by clipping, and its bias is zero.
        let problem = DankProblem {
            k: k.as_ref(),
            dual: Dual::SvmNoBias { y: &y },
            c: 0.5,
            eta: 0.3,
            tau: 0.0,
        };
        let v: Vec<f64> = (0..30).map(|i| i as f64 / 10.0 - 1.0).collect();
        let clipped = problem.project(&v).unwrap();
        assert!(v.iter().zip(&clipped).all(|(a, b)| *b == a.clamp(0.0, 0.5)));
        let sol = problem.solve(&[0.0; 30], &tight(Scheme::Nesterov, StepRule::Backtracking));
        assert_eq!(sol.unwrap().bias, 0.0);
    }

    /// Runs to `‖α_t − α_{t−1}‖ ≤ 1e-8` (first-order schemes) or KKT violation ≤ 1e-6
    /// (Newton, whose SMO keeps the kernel in f32).
    fn tight(scheme: Scheme, step: StepRule) -> DankSettings {
        DankSettings {
            scheme,
            step,
            tol: 1e-8,
            kkt_tol: if scheme == Scheme::Newton { 1e-6 } else { 0.0 },
            max_iter: 20000,
            init_from_svm: false,
            ..DankSettings::default()
        }
    }

    #[test]
    fn very_large_eta_reproduces_the_svm() {
        for scheme in [Scheme::Nesterov, Scheme::Newton] {
            very_large_eta_reproduces_the_svm_with(scheme);
        }
    }

    fn very_large_eta_reproduces_the_svm_with(scheme: Scheme) {
        let (x, y) = blobs(50, 2, 5);
        let kernel = Kernel::rbf_gamma(1.0).unwrap();
        let mut settings = tight(scheme, StepRule::Backtracking);
        settings.eta = Some(1e9);
        settings.tau = 0.0;
        let params = DankParams {
            task: Task::Classification,
            kernel: kernel.clone(),
            c: 2.0,
            epsilon: 0.0,
            settings,
        };
        let dank = DankModel::fit(&params, &x, &y).unwrap();
        let svm_params = SvmParams {
            kernel,
            c: 2.0,
            solver: SolverSettings {
                tol: 1e-8,
                ..SolverSettings::default()
            },
            ..SvmParams::default()
        };
        let svm = SvmModel::fit(&svm_params, &x, &y).unwrap();
        let (xt, _) = blobs(40, 2, 6);
        let d = dank.decision_function(&xt).unwrap();
        let s = svm.decision_function(&xt).unwrap();
        let worst = largest_gap(d.iter().map(|r| r[0]), s.iter().map(|r| r[0]));
        assert!(worst < 1e-3, "largest decision-value gap {worst}");
        let (lo, hi) = dank.f_range();
        assert!(
            (lo - 1.0).abs() < 1e-6 && (hi - 1.0).abs() < 1e-6,
            "F range {lo}..{hi}"
        );
    }

    #[test]
    fn every_scheme_reaches_the_same_optimum() {
        let (x, y) = blobs(24, 2, 7);
        let k = gram(&x, 1.5);
        let problem = DankProblem {
            k: k.as_ref(),
            dual: Dual::Svm { y: &y },
            c: 1.0,
            eta: 0.5,
            tau: 0.01,
        };
        let l = 2.0 * lambda_max(k.as_ref()) + 2.0;
        let runs: Vec<DankSolution> = [
            tight(Scheme::Nesterov, StepRule::Backtracking),
            tight(Scheme::Nesterov, StepRule::Fixed(l)),
            tight(Scheme::NesterovMonotone, StepRule::Backtracking),
            tight(Scheme::ProjectedGradient, StepRule::Backtracking),
            tight(Scheme::Newton, StepRule::Backtracking),
        ]
        .iter()
        .map(|s| problem.solve(&[0.0; 24], s).unwrap())
        .collect();
        let best = runs.iter().map(|r| r.objective).fold(f64::MIN, f64::max);
        for r in &runs {
            assert!(r.converged);
            assert!(
                (r.objective - best).abs() < 1e-6 * best.abs(),
                "{} vs {best}",
                r.objective
            );
            assert!(distance(&r.z, &runs[0].z) < 1e-3);
            assert!((r.bias - runs[0].bias).abs() < 1e-3);
        }
        // The monotone variant's recorded objective never decreases by more than rounding
        // along θ; plain Nesterov's objective ends where the others end.
        let obj = runs[2].trace.column("objective").unwrap();
        assert!(obj.len() > 2);
        // Newton steps: a handful of iterations, each a line-search ascent, against
        // hundreds for the first-order schemes.
        let newton = &runs[4];
        assert!(newton.iterations <= 20, "{} iterations", newton.iterations);
        assert!(newton.iterations * 10 < runs[0].iterations);
        let obj = newton.trace.column("objective").unwrap();
        assert!(obj.windows(2).all(|w| w[1] > w[0]), "{obj:?}");
        let violation = newton.trace.column("violation").unwrap();
        assert!(*violation.last().unwrap() <= 1e-6);
    }

    #[test]
    fn newton_steps_converge_fast_on_the_quartic_and_stop_on_kkt() {
        // τ = 0: the model is the exact Hessian, so the violation falls quadratically.
        let (x, y) = blobs(60, 2, 11);
        let k = gram(&x, 0.7);
        for tau in [0.0, 0.01] {
            let problem = DankProblem {
                k: k.as_ref(),
                dual: Dual::Svm { y: &y },
                c: 4.0,
                eta: 2.0,
                tau,
            };
            let settings = DankSettings {
                kkt_tol: 1e-3,
                ..DankSettings::default()
            };
            let z0 = vec![0.0; 60];
            let sol = problem.solve(&z0, &settings).unwrap();
            assert!(
                sol.converged && sol.iterations <= 15,
                "τ = {tau}: {}",
                sol.iterations
            );
            let grad = problem
                .evaluate(sol.z.clone(), EigenRoute::Reduced)
                .unwrap()
                .grad;
            assert!(problem.kkt_violation(&sol.z, &grad) <= 1e-3);
            // The reference: Nesterov to a tight tolerance reaches the same h.
            let reference = problem
                .solve(&z0, &tight(Scheme::Nesterov, StepRule::Backtracking))
                .unwrap();
            let gap = (reference.objective - sol.objective) / reference.objective.abs();
            assert!(gap.abs() < 1e-6, "τ = {tau}: relative gap {gap}");
        }
    }

    #[test]
    fn kkt_violation_has_its_closed_form_at_zero() {
        // At α = 0, ∇h = 1: m = max over y = +1 of y·1 = 1, M = min over y = −1 = −1.
        let (x, y) = blobs(20, 2, 12);
        let k = gram(&x, 1.0);
        let problem = DankProblem {
            k: k.as_ref(),
            dual: Dual::Svm { y: &y },
            c: 1.0,
            eta: 1.0,
            tau: 0.01,
        };
        let grad = problem
            .evaluate(vec![0.0; 20], EigenRoute::Reduced)
            .unwrap()
            .grad;
        assert!((problem.kkt_violation(&[0.0; 20], &grad) - 2.0).abs() < 1e-12);
        // Box only: every coordinate can rise with slope 1.
        let free = DankProblem {
            dual: Dual::SvmNoBias { y: &y },
            ..problem
        };
        assert!((free.kkt_violation(&[0.0; 20], &grad) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn dank_svr_stays_feasible_and_matches_svr_for_large_eta() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let n = 24;
        let xs: Vec<f64> = (0..n).map(|i| i as f64 / n as f64).collect();
        let y: Vec<f64> = xs
            .iter()
            .map(|v| (6.0 * v).sin() + rng.random_range(-0.1..0.1))
            .collect();
        let x = Features::new(n, 1, xs).unwrap();
        let kernel = Kernel::rbf_gamma(10.0).unwrap();
        let k = kernel.gram(&x).unwrap();
        let problem = DankProblem {
            k: k.as_ref(),
            dual: Dual::Svr {
                y: &y,
                epsilon: 0.05,
            },
            c: 1.0,
            eta: 0.2,
            tau: 0.01,
        };
        let sol = problem
            .solve(&vec![0.3; 2 * n], &DankSettings::default())
            .unwrap();
        let balance: f64 = sol.coef.iter().sum();
        assert!(balance.abs() < 1e-12, "1ᵀ(α̂ − α̌) = {balance}");
        assert!(sol.z.iter().all(|&v| (0.0..=1.0).contains(&v)));
        // With η huge the learned F is all ones: DANK-SVR is the ε-SVR.
        let mut settings = tight(Scheme::Nesterov, StepRule::Backtracking);
        settings.eta = Some(1e9);
        settings.tau = 0.0;
        let params = DankParams {
            task: Task::Regression,
            kernel: kernel.clone(),
            c: 1.0,
            epsilon: 0.05,
            settings,
        };
        let dank = DankModel::fit(&params, &x, &y).unwrap();
        let svr = SvmModel::fit(
            &SvmParams {
                svm_type: SvmType::EpsilonSvr,
                kernel,
                c: 1.0,
                epsilon: 0.05,
                solver: SolverSettings {
                    tol: 1e-8,
                    ..SolverSettings::default()
                },
                ..SvmParams::default()
            },
            &x,
            &y,
        )
        .unwrap();
        let a = dank.predict(&x).unwrap();
        let b = svr.predict(&x).unwrap();
        let worst = largest_gap(a, b);
        assert!(worst < 1e-3, "largest prediction gap {worst}");
        assert_eq!(dank.method(), "dank-svr");
    }

    #[test]
    fn multiclass_model_round_trips_and_reports() {
        let (x, y) = blobs(45, 3, 9);
        let params = DankParams {
            task: Task::Classification,
            kernel: Kernel::rbf_gamma(1.0).unwrap(),
            c: 1.0,
            epsilon: 0.0,
            settings: DankSettings::default(),
        };
        let (model, traces) = DankModel::fit_traced(&params, &x, &y).unwrap();
        assert_eq!(traces.len(), 3);
        assert_eq!(model.info.len(), 3);
        let pred = model.predict(&x).unwrap();
        let acc = pred.iter().zip(&y).filter(|(a, b)| a == b).count() as f64 / 45.0;
        assert!(acc > 0.8, "training accuracy {acc}");
        let json = serde_json::to_string(&model).unwrap();
        let back: DankModel = serde_json::from_str(&json).unwrap();
        assert_eq!(back.predict(&x).unwrap(), pred);
        let s = model.summary();
        assert!(s.extra["f_min"].as_f64().unwrap() <= s.extra["f_max"].as_f64().unwrap());
        assert_eq!(model.method(), "dank");
        assert!(model.info.iter().all(|i| i.f_min > 0.5 && i.f_max < 1.5));
    }

    #[test]
    fn bad_input_is_a_clear_error() {
        let (x, y) = blobs(20, 2, 10);
        let mut params = DankParams {
            task: Task::Classification,
            kernel: Kernel::rbf_gamma(1.0).unwrap(),
            c: 1.0,
            epsilon: 0.0,
            settings: DankSettings::default(),
        };
        params.settings.tau = -0.1;
        let e = DankModel::fit(&params, &x, &y).unwrap_err().to_string();
        assert!(e.contains("tau"), "{e}");
        params.settings.tau = 0.01;
        for eta in [0.0, -1.0, f64::NAN] {
            params.settings.eta = Some(eta);
            let e = DankModel::fit(&params, &x, &y).unwrap_err().to_string();
            assert!(e.contains("eta"), "{e}");
        }
        params.settings.eta = None;
        for kkt in [-1e-3, f64::INFINITY] {
            params.settings.kkt_tol = kkt;
            let e = DankModel::fit(&params, &x, &y).unwrap_err().to_string();
            assert!(e.contains("kkt_tol") && e.contains(">= 0"), "{e}");
        }
        params.settings.kkt_tol = 1e-3;
        params.c = 0.0;
        assert!(DankModel::fit(&params, &x, &y).is_err());
        params.c = 1.0;
        let model = DankModel::fit(&params, &x, &y).unwrap();
        let nan = Features::new(1, 2, vec![f64::NAN, 0.0]).unwrap();
        assert!(model.predict(&nan).is_err());
        let wrong = Features::new(1, 3, vec![0.0; 3]).unwrap();
        assert!(model
            .predict(&wrong)
            .unwrap_err()
            .to_string()
            .contains("features"));
        assert!(DankModel::fit(&params, &x, &y[..5]).is_err());
    }
}
