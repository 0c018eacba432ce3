//! The five SVM duals of LIBSVM, each set up for the SMO solver and solved on any
//! [`KernelSource`]: C-SVC, ν-SVC, one-class SVM, ε-SVR and ν-SVR.
//!
//! These are the building blocks every kernel-learning method calls with its own kernel
//! (a learned `G ⊙ K`, a weighted sum of kernels, ...). See Chang and Lin, "LIBSVM: a
//! library for support vector machines", §2 for the formulations.

use super::qmatrix::{svr_signs, QMatrix, SignedKernelQ, SvrQ};
use super::solver::{solve, Solution, SolverOptions, Variant};
use crate::kernel::KernelSource;
use crate::{Error, Result};

/// Numerical settings shared by every dual (stored in models as they were used).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SolverSettings {
    /// Stopping tolerance ε on the maximal KKT violation (LIBSVM `-e`, default 1e-3).
    pub tol: f64,
    /// Shrink the active set (LIBSVM `-h`, default on).
    pub shrinking: bool,
    /// Kernel-row cache budget in bytes (LIBSVM `-m`, given there in MB).
    pub cache_bytes: usize,
    /// Iteration cap; `None` = LIBSVM's `max(10⁷, 100·l)`.
    pub max_iter: Option<usize>,
}

impl Default for SolverSettings {
    fn default() -> Self {
        Self {
            tol: 1e-3,
            shrinking: true,
            cache_bytes: 200 << 20,
            max_iter: None,
        }
    }
}

impl SolverSettings {
    /// Checks the tolerance and cache budget.
    pub fn validate(&self) -> Result<()> {
        if !(self.tol > 0.0 && self.tol.is_finite()) {
            return Err(Error::param(
                "tol",
                format!("stopping tolerance must be > 0, got {}", self.tol),
            ));
        }
        Ok(())
    }

    fn options(&self, l: usize) -> SolverOptions {
        SolverOptions {
            eps: self.tol,
            shrinking: self.shrinking,
            max_iter: self
                .max_iter
                .unwrap_or_else(|| 10_000_000usize.max(100usize.saturating_mul(l))),
        }
    }
}

/// Solution of one binary (or regression / one-class) dual.
#[derive(Clone, Debug, PartialEq)]
pub struct DualSolution {
    /// Coefficients of the decision function `f(x) = Σ_t coef_t k(x_t, x) − rho`:
    /// `y_t α_t` (SVC), `α_t − α*_t` (SVR), `α_t` (one-class).
    pub coef: Vec<f64>,
    /// Offset `rho` (the bias is `b = −rho`).
    pub rho: f64,
    /// Dual objective value (LIBSVM's `obj`).
    pub objective: f64,
    /// Pair updates made by SMO.
    pub iterations: usize,
    /// Points with non-zero coefficient.
    pub n_support: usize,
    /// Support vectors at their upper bound.
    pub n_bounded: usize,
    /// Upper bounds of positive / negative points (`1/r` for ν-SVC).
    pub upper_bound: (f64, f64),
    /// ν-SVR: the ε found by the solver; ν-SVC: `C = 1/r`. `None` otherwise.
    pub derived: Option<f64>,
    /// True when the iteration cap ended the solve.
    pub hit_max_iter: bool,
}

fn signs(y: &[f64]) -> Vec<i8> {
    y.iter().map(|&v| if v > 0.0 { 1 } else { -1 }).collect()
}

fn check_len(source: &dyn KernelSource, n: usize, what: &str) -> Result<()> {
    if source.len() != n {
        return Err(Error::data(format!(
            "kernel has {} points but {} {what} were given",
            source.len(),
            n
        )));
    }
    if n == 0 {
        return Err(Error::data("no training points"));
    }
    Ok(())
}

fn check_positive(name: &str, v: f64) -> Result<()> {
    if !(v > 0.0 && v.is_finite()) {
        return Err(Error::param(name, format!("must be > 0, got {v}")));
    }
    Ok(())
}

fn check_nu(nu: f64) -> Result<()> {
    if !(nu > 0.0 && nu <= 1.0) {
        return Err(Error::param("nu", format!("must be in (0, 1], got {nu}")));
    }
    Ok(())
}

/// Counts support vectors and bounded ones as LIBSVM's `svm_train_one`.
fn finish(sol: Solution, coef: Vec<f64>, y: &[i8], ub: (f64, f64)) -> DualSolution {
    let mut n_support = 0;
    let mut n_bounded = 0;
    for (c, &s) in coef.iter().zip(y) {
        if c.abs() > 0.0 {
            n_support += 1;
            let bound = if s > 0 { ub.0 } else { ub.1 };
            if c.abs() >= bound {
                n_bounded += 1;
            }
        }
    }
    DualSolution {
        coef,
        rho: sol.rho,
        objective: sol.obj,
        iterations: sol.iterations,
        n_support,
        n_bounded,
        upper_bound: ub,
        derived: None,
        hit_max_iter: sol.hit_max_iter,
    }
}

/// C-SVC: `min ½ αᵀQα − 1ᵀα`, `yᵀα = 0`, `0 ≤ α_t ≤ C_{y_t}` with `Q_ij = y_i y_j K_ij`.
///
/// `y` is read as `+1` for values `> 0` and `−1` otherwise; `c_pos`/`c_neg` are the
/// per-class bounds (C times the class weight). `initial_alpha` warm-starts the solver
/// from a feasible dual point (unsigned α, e.g. the solution for a smaller C).
pub fn solve_c_svc(
    source: &dyn KernelSource,
    y: &[f64],
    c_pos: f64,
    c_neg: f64,
    settings: &SolverSettings,
    initial_alpha: Option<&[f64]>,
) -> Result<DualSolution> {
    check_len(source, y.len(), "labels")?;
    check_positive("C (positive class)", c_pos)?;
    check_positive("C (negative class)", c_neg)?;
    settings.validate()?;
    let s = signs(y);
    let upper: Vec<f64> = s
        .iter()
        .map(|&v| if v > 0 { c_pos } else { c_neg })
        .collect();
    let alpha = match initial_alpha {
        None => vec![0.0; y.len()],
        Some(a) => check_warm_start(a, &s, &upper)?,
    };
    let p = vec![-1.0; y.len()];
    let mut q = SignedKernelQ::new(source, &s, settings.cache_bytes);
    let sol = solve(
        &mut q,
        &p,
        &s,
        alpha,
        upper,
        Variant::Standard,
        settings.options(y.len()),
    );
    let coef = sol
        .alpha
        .iter()
        .zip(&s)
        .map(|(a, &v)| a * v as f64)
        .collect();
    Ok(finish(sol, coef, &s, (c_pos, c_neg)))
}

/// A warm start must be a feasible point of the dual: `0 ≤ α ≤ upper`, `sᵀα = 0`.
fn check_warm_start(alpha: &[f64], s: &[i8], upper: &[f64]) -> Result<Vec<f64>> {
    if alpha.len() != s.len() {
        return Err(Error::param(
            "initial_alpha",
            format!("has {} values for {} points", alpha.len(), s.len()),
        ));
    }
    let mut balance = 0.0;
    let mut scale = 0.0f64;
    for (t, ((&a, &sv), &c)) in alpha.iter().zip(s).zip(upper).enumerate() {
        if !(0.0..=c).contains(&a) {
            return Err(Error::param(
                "initial_alpha",
                format!("alpha[{t}] = {a} is outside [0, {c}]"),
            ));
        }
        balance += a * sv as f64;
        scale = scale.max(c);
    }
    if balance.abs() > 1e-9 * scale.max(1.0) * s.len() as f64 {
        return Err(Error::param(
            "initial_alpha",
            format!("violates yᵀα = 0 (yᵀα = {balance:e})"),
        ));
    }
    Ok(alpha.to_vec())
}

/// ν-SVC (Schölkopf et al. 2000), solved in LIBSVM's scaled form and rescaled by `1/r`
/// so that the decision function has the C-SVC form.
pub fn solve_nu_svc(
    source: &dyn KernelSource,
    y: &[f64],
    nu: f64,
    settings: &SolverSettings,
) -> Result<DualSolution> {
    check_len(source, y.len(), "labels")?;
    check_nu(nu)?;
    settings.validate()?;
    let s = signs(y);
    let l = y.len();
    let n_pos = s.iter().filter(|&&v| v > 0).count();
    let n_neg = l - n_pos;
    if nu * l as f64 / 2.0 > n_pos.min(n_neg) as f64 {
        return Err(Error::param(
            "nu",
            format!(
                "nu = {nu} is infeasible for {n_pos} positive and {n_neg} negative points \
                 (needs nu ≤ 2·min/total = {:.4})",
                2.0 * n_pos.min(n_neg) as f64 / l as f64
            ),
        ));
    }
    let (mut sum_pos, mut sum_neg) = (nu * l as f64 / 2.0, nu * l as f64 / 2.0);
    let alpha: Vec<f64> = s
        .iter()
        .map(|&v| {
            let budget = if v > 0 { &mut sum_pos } else { &mut sum_neg };
            let a = budget.min(1.0);
            *budget -= a;
            a
        })
        .collect();
    let p = vec![0.0; l];
    let mut q = SignedKernelQ::new(source, &s, settings.cache_bytes);
    let sol = solve(
        &mut q,
        &p,
        &s,
        alpha,
        vec![1.0; l],
        Variant::Nu,
        settings.options(l),
    );
    let r = sol.r;
    let coef: Vec<f64> = sol
        .alpha
        .iter()
        .zip(&s)
        .map(|(a, &v)| a * v as f64 / r)
        .collect();
    let scaled = Solution {
        rho: sol.rho / r,
        obj: sol.obj / (r * r),
        ..sol
    };
    let mut out = finish(scaled, coef, &s, (1.0 / r, 1.0 / r));
    out.derived = Some(1.0 / r);
    Ok(out)
}

/// One-class SVM (Schölkopf et al. 2001): `min ½ αᵀKα`, `1ᵀα = ν l`, `0 ≤ α ≤ 1`.
pub fn solve_one_class(
    source: &dyn KernelSource,
    nu: f64,
    settings: &SolverSettings,
) -> Result<DualSolution> {
    let l = source.len();
    check_len(source, l, "points")?;
    check_nu(nu)?;
    settings.validate()?;
    let n = (nu * l as f64) as usize;
    let mut alpha = vec![0.0; l];
    for a in alpha.iter_mut().take(n) {
        *a = 1.0;
    }
    if n < l {
        alpha[n] = nu * l as f64 - n as f64;
    }
    let ones = vec![1i8; l];
    let mut q = SignedKernelQ::new(source, &ones, settings.cache_bytes);
    let sol = solve(
        &mut q,
        &vec![0.0; l],
        &ones,
        alpha,
        vec![1.0; l],
        Variant::Standard,
        settings.options(l),
    );
    let coef = sol.alpha.clone();
    Ok(finish(sol, coef, &ones, (1.0, 1.0)))
}

/// Solves an SVR dual over the `2l` variables `(α, α*)` and folds them into `α − α*`.
fn solve_svr_dual(
    source: &dyn KernelSource,
    p: Vec<f64>,
    alpha2: Vec<f64>,
    c: f64,
    variant: Variant,
    settings: &SolverSettings,
) -> (Solution, Vec<f64>) {
    let l = source.len();
    let y2 = svr_signs(l);
    let mut q = SvrQ::new(source, settings.cache_bytes);
    let q: &mut dyn QMatrix = &mut q;
    let sol = solve(
        q,
        &p,
        &y2,
        alpha2,
        vec![c; 2 * l],
        variant,
        settings.options(2 * l),
    );
    let coef = (0..l).map(|i| sol.alpha[i] - sol.alpha[i + l]).collect();
    (sol, coef)
}

/// ε-SVR (Vapnik): `min ½ (α−α*)ᵀK(α−α*) + ε Σ(α+α*) − Σ y(α−α*)`,
/// `Σ(α − α*) = 0`, `0 ≤ α, α* ≤ C`.
///
/// `initial_coef` warm-starts from coefficients `α − α*` of a feasible point (e.g. the
/// solution for a smaller C); they are split as `α = max(coef, 0)`, `α* = max(−coef, 0)`.
pub fn solve_epsilon_svr(
    source: &dyn KernelSource,
    targets: &[f64],
    c: f64,
    epsilon: f64,
    settings: &SolverSettings,
    initial_coef: Option<&[f64]>,
) -> Result<DualSolution> {
    check_len(source, targets.len(), "targets")?;
    check_positive("C", c)?;
    if !(epsilon >= 0.0 && epsilon.is_finite()) {
        return Err(Error::param(
            "epsilon",
            format!("SVR insensitivity must be ≥ 0, got {epsilon}"),
        ));
    }
    settings.validate()?;
    let p: Vec<f64> = targets
        .iter()
        .map(|&t| epsilon - t)
        .chain(targets.iter().map(|&t| epsilon + t))
        .collect();
    let l = targets.len();
    let alpha2 = match initial_coef {
        None => vec![0.0; 2 * l],
        Some(coef) => {
            let split: Vec<f64> = coef
                .iter()
                .map(|&v| v.max(0.0))
                .chain(coef.iter().map(|&v| (-v).max(0.0)))
                .collect();
            check_warm_start(&split, &svr_signs(l), &vec![c; 2 * l])?
        }
    };
    let (sol, coef) = solve_svr_dual(source, p, alpha2, c, Variant::Standard, settings);
    Ok(finish(sol, coef, &vec![1; l], (c, c)))
}

/// ν-SVR (Schölkopf et al. 2000): ε is found by the solver; `derived` returns it.
pub fn solve_nu_svr(
    source: &dyn KernelSource,
    targets: &[f64],
    c: f64,
    nu: f64,
    settings: &SolverSettings,
) -> Result<DualSolution> {
    check_len(source, targets.len(), "targets")?;
    check_positive("C", c)?;
    check_nu(nu)?;
    settings.validate()?;
    let l = targets.len();
    let mut sum = c * nu * l as f64 / 2.0;
    let mut alpha2 = vec![0.0; 2 * l];
    for i in 0..l {
        let a = sum.min(c);
        alpha2[i] = a;
        alpha2[i + l] = a;
        sum -= a;
    }
    let p: Vec<f64> = targets
        .iter()
        .map(|&t| -t)
        .chain(targets.iter().copied())
        .collect();
    let (sol, coef) = solve_svr_dual(source, p, alpha2, c, Variant::Nu, settings);
    let epsilon = -sol.r;
    let mut out = finish(sol, coef, &vec![1; l], (c, c));
    out.derived = Some(epsilon);
    Ok(out)
}
