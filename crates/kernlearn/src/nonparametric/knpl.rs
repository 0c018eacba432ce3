//! KNPL: kernel learning with a nonlinear pairwise layer (Liu et al., AAAI 2018;
//! METHODS.md §2). The learned kernel is `K̃ = G ⊙ K` for a base kernel `K` and a
//! learned pairwise matrix `G`, from problem (4):
//!
//! `max_{α∈A} min_{G ⪰ 0, G1 = n1}  H(α, G) = 1ᵀα − ½ αᵀY(G⊙K)Yα + γ‖G‖²_F`,
//! `A = {0 ≤ α ≤ C1, αᵀy = 0}`.
//!
//! Algorithm 2 alternates two steps (`T` outer rounds, paper: `T = 10`):
//! - **α-step**: with `G` fixed, the inner problem in α is the SVM dual (3) on `G ⊙ K`,
//!   solved by the SMO solver ([`solve_c_svc`]) through the [`KernelSource`] trait,
//!   warm-started from the previous round's α;
//! - **G-step**: with α fixed, `H` in `G` equals `γ‖G − Γ(α)‖²_F` up to a constant, with
//!   `Γ(α) = (1/4γ) diag(α∘y) K diag(α∘y)` (eqs. 12–13), because
//!   `αᵀY(G⊙K)Yα = Tr(G · diag(α∘y) K diag(α∘y))`. So `G*` is the Frobenius projection of
//!   `Γ(α)` onto `S₊ ∩ B`, `B = {G1 = n1}`, computed by the ADMM of Algorithm 1
//!   ([`admm_projection`]).
//!
//! Before the first round α is the plain SVM's (`G = 11ᵀ`, the feasible point of
//! least norm, see [`admm_projection`]). The bias is the SVM's `b = −ρ` of the last SMO
//! solve. New points use the nearest-neighbour extension (23) through
//! [`LearnedKernelMachine`]; more than two classes are handled one-vs-one, each class
//! pair learning its own `G` on its own points.
//!
//! Model selection ([`KnplSearch`]): σ and C by the papers' SVM-CV grid search, then γ by
//! 5-fold CV over a grid scaled to the problem (see [`KnplSearch::gamma_scales`]).

use super::machine::LearnedKernelMachine;
use super::spectral::project_psd;
use super::trace::Trace;
use crate::data::{complement, stratified_kfold, Features};
use crate::estimator::{Estimator, FitSummary, Task};
use crate::kernel::{Kernel, PrecomputedKernel};
use crate::metrics::accuracy;
use crate::multiclass::{class_groups, OneVsOne};
use crate::select::{Grid, GridSearch, Selection};
use crate::svm::{solve_c_svc, DualSolution, SolverSettings, SvmParams};
use crate::{Error, Result};
use faer::{Mat, MatRef};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// Hyper-parameters of KNPL (problem (4), Algorithms 1 and 2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KnplParams {
    /// Base kernel `K` (the papers: Gaussian `exp(−‖x−x'‖²/σ²)`, σ from SVM-CV).
    pub kernel: Kernel,
    /// SVM trade-off C (from SVM-CV).
    pub c: f64,
    /// Regulariser γ > 0 of `γ‖G‖²_F` in (4). Large γ pins `G` to `11ᵀ` (the plain SVM).
    pub gamma: f64,
    /// Outer rounds T of Algorithm 2 (paper: 10). 0 = the plain SVM on `K`.
    pub outer_iters: usize,
    /// ADMM iteration cap `k_max` of Algorithm 1 (paper: 15).
    pub admm_max_iter: usize,
    /// ADMM stopping tolerance ε on `Diff` (paper: 1e-4).
    pub admm_tol: f64,
    /// Initial ADMM penalty β₀ (the paper gives none; 1 weighs the two terms of (15)
    /// equally at the start).
    pub beta0: f64,
    /// Growth factor ρ of β, eq. (22) (paper: 1.1).
    pub beta_growth: f64,
    /// Cap of β, eq. (22) (paper: 1e8).
    pub beta_max: f64,
    /// Relaxation ω ∈ (0, 1] of the G update across outer rounds:
    /// `G_t = (1 − ω) G_{t−1} + ω G*(α_{t−1})`. ω = 1 is Algorithm 2 as published. The
    /// plain alternation is a best-response iteration that can fall into a 2-cycle
    /// for small γ (a large G shrinks α, whose small Γ(α) gives back G ≈ 11ᵀ); ω < 1 damps
    /// it. Every G_t stays feasible (`S₊ ∩ B` is convex). Not in the paper.
    #[serde(default = "one")]
    pub g_relaxation: f64,
    /// SMO tolerance, shrinking, cache.
    #[serde(default)]
    pub solver: SolverSettings,
}

fn one() -> f64 {
    1.0
}

impl Default for KnplParams {
    /// The paper's settings with σ = 1, C = 1, γ = 1 (σ, C and γ are normally selected).
    fn default() -> Self {
        Self {
            kernel: Kernel::Rbf { gamma: 1.0 },
            c: 1.0,
            gamma: 1.0,
            outer_iters: 10,
            admm_max_iter: 15,
            admm_tol: 1e-4,
            beta0: 1.0,
            beta_growth: 1.1,
            beta_max: 1e8,
            g_relaxation: 1.0,
            solver: SolverSettings::default(),
        }
    }
}

fn positive(name: &str, v: f64, what: &str) -> Result<()> {
    if !(v > 0.0 && v.is_finite()) {
        return Err(Error::param(name, format!("{what} must be > 0, got {v}")));
    }
    Ok(())
}

impl KnplParams {
    /// Checks every parameter (γ > 0, C > 0, a feature kernel, sane ADMM settings).
    pub fn validate(&self) -> Result<()> {
        positive("C", self.c, "the SVM trade-off")?;
        positive("gamma", self.gamma, "the KNPL regulariser γ of γ‖G‖²_F")?;
        positive("admm_tol", self.admm_tol, "the ADMM tolerance")?;
        positive("beta0", self.beta0, "the initial ADMM penalty")?;
        if self.kernel.is_precomputed() {
            return Err(Error::param(
                "kernel",
                "KNPL needs features for its nearest-neighbour extension; a precomputed kernel is not supported",
            ));
        }
        self.kernel.check_params()?;
        if self.admm_max_iter == 0 {
            return Err(Error::param("admm_max_iter", "need at least 1 iteration"));
        }
        if !(self.beta_growth >= 1.0 && self.beta_growth.is_finite()) {
            return Err(Error::param(
                "beta_growth",
                format!("must be >= 1, got {}", self.beta_growth),
            ));
        }
        if !(self.beta_max >= self.beta0 && self.beta_max.is_finite()) {
            return Err(Error::param(
                "beta_max",
                format!("must be >= beta0 = {}, got {}", self.beta0, self.beta_max),
            ));
        }
        let w = self.g_relaxation;
        if !(w > 0.0 && w <= 1.0) {
            return Err(Error::param(
                "g_relaxation",
                format!("must be in (0, 1], got {w}"),
            ));
        }
        self.solver.validate()
    }
}

/// `Γ(α) = (1/4γ) diag(c) K diag(c)` with `c = α∘y` (Lemma 1, eq. 12): the unconstrained
/// minimiser of `H(α, ·)`.
pub fn gamma_target(k: MatRef<'_, f64>, coef: &[f64], gamma: f64) -> Mat<f64> {
    let s = 0.25 / gamma;
    Mat::from_fn(k.nrows(), k.ncols(), |i, j| {
        s * coef[i] * coef[j] * k[(i, j)]
    })
}

/// `H(α, G) = 1ᵀα − ½ cᵀ(G⊙K)c + γ‖G‖²_F` with `c = α∘y` (the objective of (4), plotted
/// in Fig. 3(b)).
pub fn knpl_objective(k: MatRef<'_, f64>, g: MatRef<'_, f64>, coef: &[f64], gamma: f64) -> f64 {
    let n = k.nrows();
    let (quad, norm2) = (0..n)
        .into_par_iter()
        .map(|i| {
            (0..n).fold((0.0, 0.0), |(q, f), j| {
                let gij = g[(i, j)];
                (q + coef[i] * coef[j] * gij * k[(i, j)], f + gij * gij)
            })
        })
        .reduce(|| (0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
    let sum_alpha: f64 = coef.iter().map(|c| c.abs()).sum();
    sum_alpha - 0.5 * quad + gamma * norm2
}

/// Result of Algorithm 1.
#[derive(Clone, Debug)]
pub struct AdmmOutcome {
    /// The final `G_{k}`: exactly symmetric PSD (a PSD projection); `G1 = n1` holds up
    /// to the ADMM residual.
    pub g: Mat<f64>,
    /// `Diff_k = max(‖Q_{k+1} − Q_k‖_F, ‖Z_{k+1} − Z_k‖_F)` per iteration (Fig. 3(a)).
    pub diffs: Vec<f64>,
    /// β used in each iteration.
    pub betas: Vec<f64>,
    /// Whether `Diff ≤ ε` ended the loop (else `k_max` did).
    pub converged: bool,
}

/// Algorithm 1: the projection of `target` (= `Γ(α)`) onto `S₊ ∩ B`, `B = {G1 = n1}`,
/// problem (13), by ADMM on the split form (14)
/// `min ½‖G − Γ‖²_F + ½‖Q − Γ‖²_F  s.t. G − Q = 0, G ⪰ 0, Q1 = n1`
/// with augmented Lagrangian (15)
/// `L = ½‖G−Γ‖² + ½‖Q−Γ‖² − ⟨Z, G−Q⟩ + (β/2)‖G−Q‖²`.
///
/// Each step minimises `L` in one block exactly:
/// - **G-step (16)**: `∇_G L = (G − Γ) − Z + β(G − Q) = 0` gives
///   `V = (βQ + Z + Γ)/(1+β)`, and `L` is `(1+β)/2 ‖G − V‖²` plus a constant, so the
///   constrained minimiser is the PSD projection `G = Π₊(V)`. `Q` and `Z` need not be
///   symmetric (the Q-step below is row-wise), and the Frobenius projection of a square
///   matrix onto `S₊` is `Π₊((V + Vᵀ)/2)`: we symmetrise, then project by a symmetric
///   eigendecomposition ([`project_psd`], faer, parallel).
/// - **Q-step (17)–(18)**: `∇_Q L = (Q − Γ) + Z − β(G − Q) = 0` gives
///   `Ξ = (βG − Z + Γ)/(1+β)`, then `Q = P_B(Ξ)`. `Q1 = n1` constrains each *row* sum,
///   so the projection separates by rows: row `ξ` maps to `q = ξ + ((n − 1ᵀξ)/n) 1`
///   (the KKT conditions of (18): `q = ξ − (τ/2)1` with τ set by `1ᵀq = n`). This is the
///   exact form of the paper's garbled Sherman–Morrison expression (20).
/// - **multipliers (21)–(22)**: `Z ← Z − β(G − Q)`, `β ← min(ρβ, β_max)`.
///
/// `G`, `Q`, `Z` start as all-ones matrices (Algorithm 1); the loop stops after
/// `k_max` iterations or when `Diff ≤ ε`.
///
/// When `target = 0` the solution is `11ᵀ`: any symmetric `G` with `G1 = n1` has the
/// eigenvalue `n` on `1/√n`, hence `‖G‖²_F ≥ n² = ‖11ᵀ‖²_F` (and the all-ones start is
/// then a fixed point of the iteration).
pub fn admm_projection(target: MatRef<'_, f64>, params: &KnplParams) -> Result<AdmmOutcome> {
    let n = target.nrows();
    let nf = n as f64;
    let mut q = Mat::<f64>::from_fn(n, n, |_, _| 1.0);
    let mut z = q.clone();
    let mut g = q.clone();
    let mut beta = params.beta0;
    let (mut diffs, mut betas) = (Vec::new(), Vec::new());
    let mut converged = false;
    for _ in 0..params.admm_max_iter {
        let w = 1.0 / (1.0 + beta);
        // G-step (16) on the symmetric part.
        let v = Mat::from_fn(n, n, |i, j| {
            let a = beta * q[(i, j)] + z[(i, j)] + target[(i, j)];
            let b = beta * q[(j, i)] + z[(j, i)] + target[(j, i)];
            0.5 * w * (a + b)
        });
        g = project_psd(v.as_ref())?;
        // Q-step (17)-(20): Ξ, then the exact row-wise projection onto {Q1 = n1}.
        let mut q_new = Mat::from_fn(n, n, |i, j| {
            w * (beta * g[(i, j)] - z[(i, j)] + target[(i, j)])
        });
        for i in 0..n {
            let shift = (nf - (0..n).map(|j| q_new[(i, j)]).sum::<f64>()) / nf;
            for j in 0..n {
                q_new[(i, j)] += shift;
            }
        }
        // Multiplier step (21).
        let z_new = Mat::from_fn(n, n, |i, j| z[(i, j)] - beta * (g[(i, j)] - q_new[(i, j)]));
        let diff = (&q_new - &q).norm_l2().max((&z_new - &z).norm_l2());
        q = q_new;
        z = z_new;
        diffs.push(diff);
        betas.push(beta);
        beta = (params.beta_growth * beta).min(params.beta_max); // (22)
        if diff <= params.admm_tol {
            converged = true;
            break;
        }
    }
    Ok(AdmmOutcome {
        g,
        diffs,
        betas,
        converged,
    })
}

/// `G ⊙ K` as a [`KernelSource`] for the SMO solver.
pub fn hadamard_source(g: MatRef<'_, f64>, k: MatRef<'_, f64>) -> Result<PrecomputedKernel> {
    let n = k.nrows();
    let mut values = Vec::with_capacity(n * n);
    for i in 0..n {
        values.extend((0..n).map(|j| g[(i, j)] * k[(i, j)]));
    }
    PrecomputedKernel::from_row_major(n, n, values)
}

/// α-step of Algorithm 2: the SVM dual (3) on `G ⊙ K`, optionally warm-started from a
/// previous (unsigned) α.
pub fn solve_alpha(
    g: MatRef<'_, f64>,
    k: MatRef<'_, f64>,
    y: &[f64],
    params: &KnplParams,
    warm: Option<&[f64]>,
) -> Result<DualSolution> {
    let source = hadamard_source(g, k)?;
    solve_c_svc(&source, y, params.c, params.c, &params.solver, warm)
}

/// A two-class KNPL fit on a precomputed base Gram matrix (Algorithm 2).
#[derive(Clone, Debug)]
pub struct BinaryFit {
    /// The learned `G` (`n × n`, symmetric PSD); `11ᵀ` when `outer_iters = 0`.
    pub g: Mat<f64>,
    /// The last SMO solution on `G ⊙ K` (`coef = α∘y`, `rho`).
    pub solution: DualSolution,
    /// `H(α_t, G_t)` after round t = 0 (the plain SVM, `G = 11ᵀ`), 1, …, T.
    pub objectives: Vec<f64>,
    /// ADMM iterations of each outer round.
    pub admm_iterations: Vec<usize>,
    /// SMO iterations summed over the rounds.
    pub smo_iterations: usize,
    /// Seconds in the ADMM (dominated by the eigendecompositions).
    pub admm_seconds: f64,
    /// Seconds in SMO.
    pub smo_seconds: f64,
}

/// Columns of the KNPL [`Trace`]: one row per ADMM iteration (`admm_iter ≥ 1`, with
/// `diff` and `beta`; Fig. 3(a)) and one per outer round (`admm_iter = 0`, with the
/// objective `H(α, G)` of (4) and the SVM dual `1ᵀα − ½ αᵀY(G⊙K)Yα`; Fig. 3(b)). Columns
/// that do not apply to a row are NaN. `pair` numbers the one-vs-one class pair.
pub const TRACE_COLUMNS: [&str; 7] = [
    "pair",
    "outer",
    "admm_iter",
    "diff",
    "beta",
    "objective",
    "dual_objective",
];

/// Algorithm 2 for labels `y ∈ {±1}` on the base Gram matrix `k`; appends to `trace`
/// (tagged with `pair`). Parameters must be validated.
pub fn fit_binary(
    k: MatRef<'_, f64>,
    y: &[f64],
    params: &KnplParams,
    pair: usize,
    trace: &mut Trace,
) -> Result<BinaryFit> {
    let n = k.nrows();
    let nan = f64::NAN;
    let mut g = Mat::<f64>::from_fn(n, n, |_, _| 1.0);
    let timer = Instant::now();
    let mut sol = solve_alpha(g.as_ref(), k, y, params, None)?;
    let mut smo_seconds = timer.elapsed().as_secs_f64();
    let mut smo_iterations = sol.iterations;
    let mut admm_seconds = 0.0;
    let mut objectives = Vec::with_capacity(params.outer_iters + 1);
    let mut admm_iterations = Vec::with_capacity(params.outer_iters);
    let record = |t: usize, g: &Mat<f64>, sol: &DualSolution, trace: &mut Trace| {
        let h = knpl_objective(k, g.as_ref(), &sol.coef, params.gamma);
        trace.push(vec![
            pair as f64,
            t as f64,
            0.0,
            nan,
            nan,
            h,
            -sol.objective,
        ]);
        h
    };
    objectives.push(record(0, &g, &sol, trace));
    for t in 1..=params.outer_iters {
        let timer = Instant::now();
        let target = gamma_target(k, &sol.coef, params.gamma);
        let admm = admm_projection(target.as_ref(), params)?;
        admm_seconds += timer.elapsed().as_secs_f64();
        for (i, (d, b)) in admm.diffs.iter().zip(&admm.betas).enumerate() {
            trace.push(vec![
                pair as f64,
                t as f64,
                (i + 1) as f64,
                *d,
                *b,
                nan,
                nan,
            ]);
        }
        admm_iterations.push(admm.diffs.len());
        g = relax(g, admm.g, params.g_relaxation);
        let warm: Vec<f64> = sol.coef.iter().map(|c| c.abs()).collect();
        let timer = Instant::now();
        sol = solve_alpha(g.as_ref(), k, y, params, Some(&warm))?;
        smo_seconds += timer.elapsed().as_secs_f64();
        smo_iterations += sol.iterations;
        objectives.push(record(t, &g, &sol, trace));
    }
    Ok(BinaryFit {
        g,
        solution: sol,
        objectives,
        admm_iterations,
        smo_iterations,
        admm_seconds,
        smo_seconds,
    })
}

/// `(1 − ω) old + ω new` (ω = 1: `new`).
fn relax(old: Mat<f64>, new: Mat<f64>, w: f64) -> Mat<f64> {
    if w == 1.0 {
        return new;
    }
    Mat::from_fn(old.nrows(), old.ncols(), |i, j| {
        (1.0 - w) * old[(i, j)] + w * new[(i, j)]
    })
}

/// What one class pair's fit reported.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KnplPairInfo {
    /// Final `H(α, G)` of (4).
    pub objective: f64,
    /// Final SVM dual objective on `G ⊙ K` (maximisation form).
    pub dual_objective: f64,
    /// Outer rounds run (T).
    pub outer_iterations: usize,
    /// ADMM iterations of each round.
    pub admm_iterations: Vec<usize>,
    /// SMO iterations over all rounds.
    pub smo_iterations: usize,
    /// Smallest and largest entry of the learned `G` (the paper's Fig. 2 reports this
    /// range).
    pub g_min: f64,
    /// Largest entry of `G`.
    pub g_max: f64,
    /// Support vectors of the final solve.
    pub n_support: usize,
    /// Seconds in ADMM (eigendecompositions).
    pub admm_seconds: f64,
    /// Seconds in SMO.
    pub smo_seconds: f64,
}

/// A fitted KNPL classifier: one [`LearnedKernelMachine`] per class pair (a single one
/// for two classes), LIBSVM's class order and vote.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KnplModel {
    /// Parameters used.
    pub params: KnplParams,
    /// Number of input features.
    pub n_features: usize,
    /// The machines on `G ⊙ K`, one per class pair.
    pub machines: OneVsOne<LearnedKernelMachine>,
    /// Per-pair fit reports, in pair order.
    pub pairs: Vec<KnplPairInfo>,
}

impl KnplModel {
    /// Fits KNPL on features `x` with class labels `y` (two or more classes). Returns
    /// the model and the per-iteration [`Trace`] (columns [`TRACE_COLUMNS`]).
    pub fn fit(params: &KnplParams, x: &Features, y: &[f64]) -> Result<(Self, Trace)> {
        params.validate()?;
        params.kernel.validate(x.n_cols())?;
        x.check_training(y, true)?;
        let mut trace = Trace::new(&TRACE_COLUMNS);
        let mut pairs = Vec::new();
        let machines = OneVsOne::fit(x, y, |xp, yp| {
            let k = params.kernel.gram(xp)?;
            let fit = fit_binary(k.as_ref(), yp, params, pairs.len(), &mut trace)?;
            let (g_min, g_max) = matrix_range(fit.g.as_ref());
            pairs.push(KnplPairInfo {
                objective: *fit.objectives.last().unwrap_or(&f64::NAN),
                dual_objective: -fit.solution.objective,
                outer_iterations: params.outer_iters,
                admm_iterations: fit.admm_iterations,
                smo_iterations: fit.smo_iterations,
                g_min,
                g_max,
                n_support: fit.solution.n_support,
                admm_seconds: fit.admm_seconds,
                smo_seconds: fit.smo_seconds,
            });
            LearnedKernelMachine::new(
                params.kernel.clone(),
                xp,
                fit.g.as_ref(),
                &fit.solution.coef,
                -fit.solution.rho,
            )
        })?;
        let model = Self {
            params: params.clone(),
            n_features: x.n_cols(),
            machines,
            pairs,
        };
        Ok((model, trace))
    }

    /// Decision values per row of `x`, one per class pair (`> 0` votes for the pair's
    /// first class).
    pub fn decision_function(&self, x: &Features) -> Result<Vec<Vec<f64>>> {
        self.check_query(x)?;
        self.machines.decision_function(x)
    }

    /// Predicted class per row of `x`.
    pub fn predict(&self, x: &Features) -> Result<Vec<f64>> {
        self.check_query(x)?;
        self.machines.predict(x)
    }

    fn check_query(&self, x: &Features) -> Result<()> {
        x.check_input(self.n_features)
    }

    /// Smallest and largest learned `G` entry over all class pairs.
    pub fn g_range(&self) -> (f64, f64) {
        self.pairs
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(p.g_min), hi.max(p.g_max))
            })
    }
}

fn matrix_range(m: MatRef<'_, f64>) -> (f64, f64) {
    let mut range = (f64::INFINITY, f64::NEG_INFINITY);
    for j in 0..m.ncols() {
        for i in 0..m.nrows() {
            range = (range.0.min(m[(i, j)]), range.1.max(m[(i, j)]));
        }
    }
    range
}

impl Estimator for KnplModel {
    fn method(&self) -> String {
        "knpl".into()
    }

    fn task(&self) -> Task {
        Task::Classification
    }

    fn n_features(&self) -> usize {
        self.n_features
    }

    fn predict(&self, x: &Features) -> Result<Vec<f64>> {
        KnplModel::predict(self, x)
    }

    fn decision_function(&self, x: &Features) -> Result<Vec<Vec<f64>>> {
        KnplModel::decision_function(self, x)
    }

    fn params_json(&self) -> serde_json::Value {
        serde_json::to_value(&self.params).unwrap_or(serde_json::Value::Null)
    }

    fn classes(&self) -> Vec<f64> {
        self.machines.classes.clone()
    }

    /// `n_support` sums the pairs' support vectors; `objective` sums the pairs' final
    /// `H(α, G)`; `iterations` counts outer rounds (per pair).
    fn summary(&self) -> FitSummary {
        let (g_min, g_max) = self.g_range();
        FitSummary {
            n_support: Some(self.pairs.iter().map(|p| p.n_support).sum()),
            objective: Some(self.pairs.iter().map(|p| p.objective).sum()),
            iterations: Some(self.params.outer_iters),
            extra: serde_json::json!({
                "classes": self.machines.classes,
                "g_min": g_min,
                "g_max": g_max,
                "objectives": self.pairs.iter().map(|p| p.objective).collect::<Vec<_>>(),
                "dual_objectives": self.pairs.iter().map(|p| p.dual_objective).collect::<Vec<_>>(),
                "outer_iterations": self.params.outer_iters,
                "admm_iterations": self.pairs.iter().map(|p| p.admm_iterations.clone()).collect::<Vec<_>>(),
                "smo_iterations": self.pairs.iter().map(|p| p.smo_iterations).sum::<usize>(),
                "gamma": self.params.gamma,
            }),
        }
    }
}

/// One γ of the KNPL γ search and its cross-validated accuracy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GammaPoint {
    /// Multiple `s` of the reference γ₀ ([`gamma_reference`]).
    pub scale: f64,
    /// γ = s·γ₀.
    pub gamma: f64,
    /// Mean fold accuracy.
    pub score: f64,
    /// Accuracy of each fold.
    pub fold_scores: Vec<f64>,
}

/// Outcome of [`KnplSearch::run`].
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KnplSelection {
    /// The chosen parameters (σ, C from SVM-CV, γ from the γ search).
    pub params: KnplParams,
    /// The SVM-CV grid search that chose σ and C.
    pub svm: Selection,
    /// γ₀, the γ at which `‖Γ(α_SVM)‖_F = ‖11ᵀ‖_F = n` (averaged over class pairs).
    pub gamma_reference: f64,
    /// Every γ tried, in grid order.
    pub gamma_points: Vec<GammaPoint>,
    /// The best γ point.
    pub best: GammaPoint,
}

/// The reference regulariser γ₀ of the γ grid: with the plain SVM's α on each class
/// pair (σ, C as given), `γ₀ = ‖¼ diag(α∘y) K diag(α∘y)‖_F / n`, so that at γ = γ₀ the
/// target `Γ(α)` has the Frobenius norm `n` of the anchor `11ᵀ` (the minimiser of
/// `‖G‖_F` on `{G1 = n1}`). Averaged over class pairs.
pub fn gamma_reference(params: &KnplParams, x: &Features, y: &[f64]) -> Result<f64> {
    let (_, members) = class_groups(y);
    let mut refs = Vec::new();
    for i in 0..members.len() {
        for j in i + 1..members.len() {
            let idx: Vec<usize> = members[i].iter().chain(&members[j]).copied().collect();
            let yp: Vec<f64> = idx
                .iter()
                .map(|&t| if y[t] == y[members[i][0]] { 1.0 } else { -1.0 })
                .collect();
            let k = params.kernel.gram(&x.select_rows(&idx))?;
            let ones = Mat::<f64>::from_fn(idx.len(), idx.len(), |_, _| 1.0);
            let sol = solve_alpha(ones.as_ref(), k.as_ref(), &yp, params, None)?;
            let norm = gamma_target(k.as_ref(), &sol.coef, 1.0).norm_l2();
            refs.push(norm / idx.len() as f64);
        }
    }
    let mean = refs.iter().sum::<f64>() / refs.len().max(1) as f64;
    Ok(if mean > 0.0 && mean.is_finite() {
        mean
    } else {
        1.0
    })
}

/// KNPL model selection (the papers' protocol): σ and C by SVM-CV (5-fold grid search
/// over 2⁻⁵…2⁵), then γ by 5-fold CV of KNPL itself with σ, C fixed.
#[derive(Clone, Debug)]
pub struct KnplSearch {
    /// Outer/ADMM/solver settings; kernel, C and γ are filled in by the search.
    pub base: KnplParams,
    /// σ, C grid of SVM-CV.
    pub grid: Grid,
    /// Multiples `s` of γ₀ to try, γ = s·γ₀ (default {10⁻², 10⁻¹, 1, 10, 10²}).
    ///
    /// The paper gives no γ grid. γ only matters relative to the size of `Γ(α)`, which
    /// scales with C² and the kernel: γ₀ ([`gamma_reference`]) is where the data term
    /// `Γ` and the anchor `11ᵀ` of the constraint `G1 = n1` have equal norm. Two decades
    /// either side go from `G ≈ Π(Γ)` (data-driven, 100× the anchor) to `G ≈ 11ᵀ` (the
    /// plain SVM, 1 % perturbation), so the grid spans both regimes on every problem.
    pub gamma_scales: Vec<f64>,
    /// Folds of both searches (the papers: 5).
    pub folds: usize,
    /// Seed of the fold assignment (the same folds for both searches).
    pub seed: u64,
    /// Largest Gram matrix held in memory by the SVM-CV search (bytes).
    pub gram_budget_bytes: usize,
}

impl KnplSearch {
    /// The papers' protocol with `base`'s outer/ADMM settings.
    pub fn new(base: KnplParams, seed: u64) -> Self {
        Self {
            base,
            grid: Grid::default(),
            gamma_scales: vec![1e-2, 1e-1, 1.0, 1e1, 1e2],
            folds: 5,
            seed,
            gram_budget_bytes: 1 << 30,
        }
    }

    /// The SVM-CV search of the first stage.
    pub fn svm_search(&self) -> GridSearch {
        let base = SvmParams {
            solver: self.base.solver,
            ..SvmParams::default()
        };
        GridSearch {
            base,
            grid: self.grid.clone(),
            folds: self.folds,
            seed: self.seed,
            gram_budget_bytes: self.gram_budget_bytes,
        }
    }

    /// Both stages on `(x, y)`.
    pub fn run(&self, x: &Features, y: &[f64]) -> Result<KnplSelection> {
        x.check_training(y, true)?;
        let svm = self.svm_search().run(x, y, &|| {})?;
        self.run_with_svm(x, y, svm)
    }

    /// The γ stage given an SVM-CV selection already made on `(x, y)` (so a protocol that
    /// also reports SVM-CV runs the grid search once).
    pub fn run_with_svm(&self, x: &Features, y: &[f64], svm: Selection) -> Result<KnplSelection> {
        x.check_training(y, true)?;
        if self.gamma_scales.is_empty() {
            return Err(Error::param(
                "gamma grid",
                "is empty; give at least one scale",
            ));
        }
        if let Some(s) = self
            .gamma_scales
            .iter()
            .find(|s| !(**s > 0.0 && s.is_finite()))
        {
            return Err(Error::param(
                "gamma grid",
                format!("every scale must be > 0, got {s}"),
            ));
        }
        let mut params = self.base.clone();
        params.kernel = svm.params.kernel.clone();
        params.c = svm.params.c;
        params.validate()?;
        let gamma0 = gamma_reference(&params, x, y)?;
        let folds = stratified_kfold(y, self.folds, self.seed)?;
        let jobs: Vec<(usize, &Vec<usize>)> = (0..self.gamma_scales.len())
            .flat_map(|s| folds.iter().map(move |f| (s, f)))
            .collect();
        let scores: Vec<f64> = jobs
            .par_iter()
            .map(|&(s, test)| {
                let mut p = params.clone();
                p.gamma = self.gamma_scales[s] * gamma0;
                fold_accuracy(&p, x, y, test)
            })
            .collect::<Result<_>>()?;
        let points: Vec<GammaPoint> = self
            .gamma_scales
            .iter()
            .enumerate()
            .map(|(s, &scale)| {
                let fold_scores = scores[s * folds.len()..(s + 1) * folds.len()].to_vec();
                GammaPoint {
                    scale,
                    gamma: scale * gamma0,
                    score: fold_scores.iter().sum::<f64>() / fold_scores.len() as f64,
                    fold_scores,
                }
            })
            .collect();
        // Ties go to the larger γ: the model closer to the plain SVM.
        let best = points
            .iter()
            .max_by(|a, b| {
                a.score
                    .total_cmp(&b.score)
                    .then(a.gamma.total_cmp(&b.gamma))
            })
            .cloned()
            .expect("non-empty γ grid");
        params.gamma = best.gamma;
        Ok(KnplSelection {
            params,
            svm,
            gamma_reference: gamma0,
            gamma_points: points,
            best,
        })
    }

    /// Runs the search, then fits the chosen parameters on all of `(x, y)`.
    pub fn fit_best(&self, x: &Features, y: &[f64]) -> Result<(KnplSelection, KnplModel, Trace)> {
        let sel = self.run(x, y)?;
        let (model, trace) = KnplModel::fit(&sel.params, x, y)?;
        Ok((sel, model, trace))
    }
}

/// Accuracy on fold `test` of KNPL trained on the rest.
fn fold_accuracy(params: &KnplParams, x: &Features, y: &[f64], test: &[usize]) -> Result<f64> {
    let train = complement(x.n_rows(), test);
    let ty: Vec<f64> = train.iter().map(|&i| y[i]).collect();
    let (model, _) = KnplModel::fit(params, &x.select_rows(&train), &ty)?;
    let pred = model.predict(&x.select_rows(test))?;
    let truth: Vec<f64> = test.iter().map(|&i| y[i]).collect();
    accuracy(&pred, &truth)
}

/// The papers' KNPL protocol on one training set: SVM-CV for σ, C, 5-fold CV for γ
/// ([`KnplSearch`] defaults, T = 10, k_max = 15, ε = 1e-4), then the final fit.
pub fn select_and_fit_knpl(
    x: &Features,
    y: &[f64],
    seed: u64,
) -> Result<(KnplSelection, KnplModel, Trace)> {
    KnplSearch::new(KnplParams::default(), seed).fit_best(x, y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimator::AnyModel;
    use crate::kernel::FeatureKernel;
    use crate::nonparametric::symmetric_eigen;
    use crate::nonparametric::testing::largest_gap;
    use crate::svm::SvmModel;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Two noisy classes separated by a sine curve in the unit square.
    fn sine_data(n: usize, seed: u64) -> (Features, Vec<f64>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut v = Vec::with_capacity(2 * n);
        let mut y = Vec::with_capacity(n);
        for _ in 0..n {
            let (a, b): (f64, f64) = (rng.random(), rng.random());
            let mut label = if (6.0 * a).sin() > 3.0 * (b - 0.5) {
                1.0
            } else {
                -1.0
            };
            if rng.random::<f64>() < 0.1 {
                label = -label;
            }
            v.extend([a, b]);
            y.push(label);
        }
        (Features::new(n, 2, v).unwrap(), y)
    }

    /// Three classes: the angle of the point around the centre, in thirds.
    fn three_classes(n: usize, seed: u64) -> (Features, Vec<f64>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut v = Vec::with_capacity(2 * n);
        let mut y = Vec::with_capacity(n);
        for _ in 0..n {
            let (a, b): (f64, f64) = (rng.random(), rng.random());
            let angle = (b - 0.5).atan2(a - 0.5) + std::f64::consts::PI;
            v.extend([a, b]);
            y.push(((angle / (2.0 * std::f64::consts::PI) * 3.0).floor()).min(2.0) + 1.0);
        }
        (Features::new(n, 2, v).unwrap(), y)
    }

    fn params(gamma: f64) -> KnplParams {
        KnplParams {
            kernel: Kernel::rbf_sigma(0.5).unwrap(),
            c: 4.0,
            gamma,
            ..KnplParams::default()
        }
    }

    fn random_symmetric(n: usize, scale: f64, seed: u64) -> Mat<f64> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let b = Mat::from_fn(n, n, |_, _| rng.random_range(-1.0..1.0));
        Mat::from_fn(n, n, |i, j| scale * (b[(i, j)] + b[(j, i)]))
    }

    fn row_sum_error(g: MatRef<'_, f64>) -> f64 {
        let n = g.nrows();
        (0..n)
            .map(|i| ((0..n).map(|j| g[(i, j)]).sum::<f64>() - n as f64).abs())
            .fold(0.0, f64::max)
    }

    fn row_projection(m: &mut Mat<f64>) {
        let n = m.nrows();
        for i in 0..n {
            let shift = (n as f64 - (0..n).map(|j| m[(i, j)]).sum::<f64>()) / n as f64;
            for j in 0..n {
                m[(i, j)] += shift;
            }
        }
    }

    /// Dykstra's alternating projections onto S₊ and {G1 = n1}: a second, independent
    /// algorithm for the projection (13).
    fn dykstra(target: MatRef<'_, f64>, iters: usize) -> Mat<f64> {
        let n = target.nrows();
        let mut x = target.to_owned();
        let mut p = Mat::<f64>::zeros(n, n);
        let mut q = Mat::<f64>::zeros(n, n);
        let mut y = x.clone();
        for _ in 0..iters {
            let s = &x + &p;
            let sym = Mat::from_fn(n, n, |i, j| 0.5 * (s[(i, j)] + s[(j, i)]));
            y = project_psd(sym.as_ref()).unwrap();
            p = &s - &y;
            let t = &y + &q;
            x = t.clone();
            row_projection(&mut x);
            q = &t - &x;
        }
        y
    }

    #[test]
    fn admm_converges_to_the_projection_onto_psd_and_row_sums() {
        let n = 24;
        let target = random_symmetric(n, 3.0, 7);
        // Fixed β (plain ADMM) run to convergence.
        let p = KnplParams {
            admm_max_iter: 5000,
            admm_tol: 1e-10,
            beta_growth: 1.0,
            ..KnplParams::default()
        };
        let out = admm_projection(target.as_ref(), &p).unwrap();
        assert!(out.converged, "last diff {:?}", out.diffs.last());
        let g = out.g;
        let min_eig = symmetric_eigen(g.as_ref()).unwrap().values[0];
        assert!(min_eig > -1e-9, "min eigenvalue {min_eig}");
        assert!(
            row_sum_error(g.as_ref()) < 1e-7,
            "{}",
            row_sum_error(g.as_ref())
        );
        let reference = dykstra(target.as_ref(), 3000);
        let gap = (&g - &reference).norm_l2();
        assert!(gap < 1e-5, "ADMM vs Dykstra: {gap}");
        // No feasible point is closer to Γ: 11ᵀ + J M J with J the centring matrix and
        // M ⪰ 0 keeps G1 = n1 and stays PSD.
        let best = (&g - &target).norm_l2();
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let j = Mat::from_fn(n, n, |a, b| f64::from(a == b) - 1.0 / n as f64);
        for _ in 0..30 {
            let b = Mat::from_fn(n, 3, |_, _| rng.random_range(-2.0..2.0));
            let m = &j * (&b * b.transpose()) * &j;
            let feasible = Mat::from_fn(n, n, |a, c| 1.0 + m[(a, c)]);
            assert!((&feasible - &target).norm_l2() >= best - 1e-9);
        }
    }

    #[test]
    fn admm_with_paper_settings_is_psd_and_nearly_feasible() {
        let (x, y) = sine_data(40, 1);
        let p = params(0.05);
        let k = p.kernel.gram(&x).unwrap();
        let svm = solve_alpha(
            Mat::from_fn(40, 40, |_, _| 1.0).as_ref(),
            k.as_ref(),
            &y,
            &p,
            None,
        )
        .unwrap();
        let target = gamma_target(k.as_ref(), &svm.coef, p.gamma);
        let out = admm_projection(target.as_ref(), &p).unwrap();
        assert!(out.diffs.len() <= 15);
        let min_eig = symmetric_eigen(out.g.as_ref()).unwrap().values[0];
        assert!(min_eig > -1e-9, "min eigenvalue {min_eig}");
        // k_max = 15 leaves a small residual in G1 = n1 (relative to n).
        let rel = row_sum_error(out.g.as_ref()) / 40.0;
        assert!(rel < 0.05, "relative row-sum error {rel}");
        // The answer moved away from 11ᵀ: Γ is not negligible at this γ.
        let ones = Mat::from_fn(40, 40, |_, _| 1.0);
        assert!((&out.g - &ones).norm_l2() > 1e-3);
    }

    #[test]
    fn g_step_objective_is_distance_to_gamma_target() {
        // H(α, G) = γ‖G − Γ‖² + 1ᵀα − γ‖Γ‖² for any G: the reduction (12)–(13).
        let (x, y) = sine_data(30, 2);
        let p = params(0.3);
        let k = p.kernel.gram(&x).unwrap();
        let ones = Mat::from_fn(30, 30, |_, _| 1.0);
        let sol = solve_alpha(ones.as_ref(), k.as_ref(), &y, &p, None).unwrap();
        let target = gamma_target(k.as_ref(), &sol.coef, p.gamma);
        let sum_alpha: f64 = sol.coef.iter().map(|c| c.abs()).sum();
        for seed in 0..3 {
            let g = random_symmetric(30, 1.0, seed);
            let h = knpl_objective(k.as_ref(), g.as_ref(), &sol.coef, p.gamma);
            let d = (&g - &target).norm_l2();
            let want = p.gamma * d * d + sum_alpha - p.gamma * target.norm_l2().powi(2);
            assert!(
                (h - want).abs() < 1e-9 * want.abs().max(1.0),
                "{h} vs {want}"
            );
        }
        // At G = 11ᵀ, H is the SVM dual plus γn².
        let h = knpl_objective(k.as_ref(), ones.as_ref(), &sol.coef, p.gamma);
        assert!((h - (-sol.objective + p.gamma * 900.0)).abs() < 1e-6);
    }

    #[test]
    fn g_fixed_to_ones_reproduces_the_svm() {
        let (x, y) = sine_data(60, 3);
        let (xt, _) = sine_data(50, 4);
        let p = params(1.0);
        let k = p.kernel.gram(&x).unwrap();
        let ones = Mat::from_fn(60, 60, |_, _| 1.0);
        let knpl = solve_alpha(ones.as_ref(), k.as_ref(), &y, &p, None).unwrap();
        let source = FeatureKernel::new(&p.kernel, &x).unwrap();
        let plain = solve_c_svc(&source, &y, p.c, p.c, &p.solver, None).unwrap();
        for (a, b) in knpl.coef.iter().zip(&plain.coef) {
            assert!((a - b).abs() < 1e-6, "{a} vs {b}");
        }
        assert!((knpl.rho - plain.rho).abs() < 1e-6);
        // The whole model with T = 0 equals the SvmModel, binary and one-vs-one.
        let svm_params = SvmParams {
            kernel: p.kernel.clone(),
            c: p.c,
            ..SvmParams::default()
        };
        let p0 = KnplParams {
            outer_iters: 0,
            ..p.clone()
        };
        for (x, y, xt) in [
            (x.clone(), y.clone(), xt.clone()),
            (three_classes(45, 5).0, three_classes(45, 5).1, xt.clone()),
        ] {
            let (model, _) = KnplModel::fit(&p0, &x, &y).unwrap();
            let svm = SvmModel::fit(&svm_params, &x, &y).unwrap();
            let (a, b) = (
                model.decision_function(&xt).unwrap(),
                svm.decision_function(&xt).unwrap(),
            );
            for (ra, rb) in a.iter().zip(&b) {
                for (u, v) in ra.iter().zip(rb) {
                    assert!((u - v).abs() < 1e-6, "{u} vs {v}");
                }
            }
            assert_eq!(model.predict(&xt).unwrap(), svm.predict(&xt).unwrap());
        }
    }

    #[test]
    fn large_gamma_approaches_the_svm() {
        let (x, y) = sine_data(50, 6);
        let (xt, _) = sine_data(40, 7);
        let p = params(1.0);
        let svm_params = SvmParams {
            kernel: p.kernel.clone(),
            c: p.c,
            ..SvmParams::default()
        };
        let svm = SvmModel::fit(&svm_params, &x, &y).unwrap();
        let reference: Vec<f64> = svm
            .decision_function(&xt)
            .unwrap()
            .iter()
            .map(|d| d[0])
            .collect();
        let gamma0 = gamma_reference(&p, &x, &y).unwrap();
        let mut gaps = Vec::new();
        for scale in [1e-2, 1.0, 1e2, 1e4, 1e6] {
            let (model, _) = KnplModel::fit(&params(scale * gamma0), &x, &y).unwrap();
            let dec = model.decision_function(&xt).unwrap();
            let gap = largest_gap(dec.iter().map(|d| d[0]), reference.iter().copied());
            gaps.push(gap);
        }
        assert!(
            gaps[0] > 1e-2,
            "small γ should change the machine: {gaps:?}"
        );
        assert!(gaps[4] < 1e-4, "{gaps:?}");
        assert!(gaps[2] > gaps[4] && gaps[3] >= gaps[4], "{gaps:?}");
    }

    #[test]
    fn relaxation_averages_the_new_g_with_the_old() {
        let (x, y) = sine_data(30, 13);
        let p = KnplParams {
            outer_iters: 1,
            g_relaxation: 0.25,
            ..params(0.05)
        };
        let k = p.kernel.gram(&x).unwrap();
        let fit = fit_binary(k.as_ref(), &y, &p, 0, &mut Trace::new(&TRACE_COLUMNS)).unwrap();
        let ones = Mat::from_fn(30, 30, |_, _| 1.0);
        let svm = solve_alpha(ones.as_ref(), k.as_ref(), &y, &p, None).unwrap();
        let target = gamma_target(k.as_ref(), &svm.coef, p.gamma);
        let full = admm_projection(target.as_ref(), &p).unwrap().g;
        let want = Mat::from_fn(30, 30, |i, j| 0.75 + 0.25 * full[(i, j)]);
        assert!((&fit.g - &want).norm_l2() < 1e-12);
        // The α-step ran on the relaxed G: same optimal dual value as a cold solve (α
        // itself agrees only to the SMO tolerance).
        let again = solve_alpha(want.as_ref(), k.as_ref(), &y, &p, None).unwrap();
        let (a, b) = (again.objective, fit.solution.objective);
        assert!((a - b).abs() < 1e-4 * a.abs(), "{a} vs {b}");
    }

    #[test]
    fn trace_records_admm_residuals_and_objectives() {
        let (x, y) = sine_data(40, 9);
        let p = KnplParams {
            outer_iters: 3,
            ..params(0.05)
        };
        let (model, trace) = KnplModel::fit(&p, &x, &y).unwrap();
        assert_eq!(trace.columns, TRACE_COLUMNS);
        let admm = trace.column("admm_iter").unwrap();
        let outer_rows = admm.iter().filter(|&&k| k == 0.0).count();
        assert_eq!(outer_rows, 4, "round 0 (SVM) and 3 rounds");
        let info = &model.pairs[0];
        assert_eq!(
            admm.len() - outer_rows,
            info.admm_iterations.iter().sum::<usize>()
        );
        let diffs: Vec<f64> = trace
            .column("diff")
            .unwrap()
            .into_iter()
            .filter(|d| !d.is_nan())
            .collect();
        assert!(diffs.iter().all(|d| *d >= 0.0));
        let objectives: Vec<f64> = trace
            .column("objective")
            .unwrap()
            .into_iter()
            .filter(|d| !d.is_nan())
            .collect();
        assert_eq!(objectives.last().copied(), Some(info.objective));
        assert!(info.g_min < 1.0 && info.g_max > 1.0, "{info:?}");
    }

    #[test]
    fn model_round_trips_and_reports() {
        let (x, y) = three_classes(36, 10);
        let p = KnplParams {
            outer_iters: 2,
            ..params(0.1)
        };
        let (model, _) = KnplModel::fit(&p, &x, &y).unwrap();
        assert_eq!(model.machines.machines.len(), 3);
        let any = AnyModel::Knpl(model.clone());
        let text = serde_json::to_string(&any).unwrap();
        assert!(text.contains("\"kind\":\"knpl\""));
        let back: AnyModel = serde_json::from_str(&text).unwrap();
        assert_eq!(back.predict(&x).unwrap(), model.predict(&x).unwrap());
        assert_eq!(back.method(), "knpl");
        let s = back.summary();
        assert_eq!(s.extra["objectives"].as_array().unwrap().len(), 3);
        assert_eq!(s.iterations, Some(2));
        let (lo, hi) = model.g_range();
        assert_eq!(s.extra["g_min"].as_f64(), Some(lo));
        assert_eq!(s.extra["g_max"].as_f64(), Some(hi));
    }

    #[test]
    fn gamma_search_scores_match_plain_refits() {
        let (x, y) = sine_data(40, 11);
        let mut search = KnplSearch::new(
            KnplParams {
                outer_iters: 2,
                ..KnplParams::default()
            },
            3,
        );
        search.grid = Grid {
            sigmas: vec![0.5, 1.0],
            cs: vec![1.0, 8.0],
            epsilons: Vec::new(),
        };
        search.gamma_scales = vec![0.1, 10.0];
        let sel = search.run(&x, &y).unwrap();
        assert_eq!(sel.gamma_points.len(), 2);
        assert!(sel.gamma_points.iter().any(|g| g.gamma == sel.params.gamma));
        assert_eq!(sel.params.c, sel.svm.best.c);
        // Recompute one point by hand on the same folds.
        let folds = stratified_kfold(&y, 5, 3).unwrap();
        let point = &sel.gamma_points[0];
        let mut p = sel.params.clone();
        p.gamma = point.gamma;
        for (f, test) in folds.iter().enumerate() {
            let train = complement(40, test);
            let ty: Vec<f64> = train.iter().map(|&i| y[i]).collect();
            let (m, _) = KnplModel::fit(&p, &x.select_rows(&train), &ty).unwrap();
            let pred = m.predict(&x.select_rows(test)).unwrap();
            let hits = test.iter().zip(&pred).filter(|(&i, &q)| y[i] == q).count();
            let acc = hits as f64 / test.len() as f64;
            assert!((acc - point.fold_scores[f]).abs() < 1e-12);
        }
    }

    fn is_param_error(e: Error, name: &str) -> bool {
        matches!(e, Error::InvalidParameter { name: ref n, .. } if n == name)
    }

    #[test]
    fn bad_input_is_an_error() {
        let (x, y) = sine_data(20, 12);
        for g in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let e = KnplModel::fit(&params(g), &x, &y).unwrap_err();
            assert!(is_param_error(e, "gamma"), "γ = {g}");
        }
        for c in [0.0, -2.0] {
            let p = KnplParams { c, ..params(1.0) };
            assert!(is_param_error(KnplModel::fit(&p, &x, &y).unwrap_err(), "C"));
        }
        let p = KnplParams {
            admm_max_iter: 0,
            ..params(1.0)
        };
        assert!(KnplModel::fit(&p, &x, &y).is_err());
        for w in [0.0, 1.5, f64::NAN] {
            let p = KnplParams {
                g_relaxation: w,
                ..params(1.0)
            };
            let e = KnplModel::fit(&p, &x, &y).unwrap_err();
            assert!(is_param_error(e, "g_relaxation"), "ω = {w}");
        }
        let p = KnplParams {
            kernel: Kernel::Precomputed,
            ..params(1.0)
        };
        assert!(is_param_error(
            KnplModel::fit(&p, &x, &y).unwrap_err(),
            "kernel"
        ));
        // Training data: NaN feature, wrong label count, a single class.
        let mut bad = x.clone();
        bad.row_mut(3)[1] = f64::NAN;
        assert!(KnplModel::fit(&params(1.0), &bad, &y).is_err());
        assert!(KnplModel::fit(&params(1.0), &x, &y[1..]).is_err());
        assert!(KnplModel::fit(&params(1.0), &x, &[1.0; 20]).is_err());
        // Test points: NaN, wrong width.
        let p = KnplParams {
            outer_iters: 1,
            ..params(1.0)
        };
        let (model, _) = KnplModel::fit(&p, &x, &y).unwrap();
        let q = Features::new(2, 2, vec![0.1, 0.2, f64::NAN, 0.3]).unwrap();
        assert!(model.predict(&q).is_err());
        assert!(model.decision_function(&q).is_err());
        let wide = Features::new(1, 3, vec![0.1, 0.2, 0.3]).unwrap();
        assert!(model.predict(&wide).is_err());
    }
}
