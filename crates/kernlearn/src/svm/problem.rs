//! The five SVM duals of LIBSVM, each set up for the SMO solver and solved on any
//! [`KernelSource`]: C-SVC, ν-SVC, one-class SVM, ε-SVR and ν-SVR.
//!
//! These are the building blocks every kernel-learning method calls with its own kernel
//! (a learned `G ⊙ K`, a weighted sum of kernels, ...). See Chang and Lin, "LIBSVM: a
//! library for support vector machines", §2 for the formulations.

use super::qmatrix::{svr_signs, DenseQ, QMatrix, SignedKernelQ, SvrQ};
use super::solver::{solve, Solution, Solver, SolverOptions, Variant};
use crate::check::{non_negative_finite, positive_finite};
use crate::kernel::KernelSource;
use crate::{Error, Result};

/// Numerical settings shared by every dual (stored in models as they were used).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
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
    pub(crate) fn validate(&self) -> Result<()> {
        positive_finite("tol", self.tol)
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

fn check_nu(nu: f64) -> Result<()> {
    if !(nu > 0.0 && nu <= 1.0) {
        return Err(Error::param("nu", format!("must be in (0, 1], got {nu}")));
    }
    Ok(())
}

/// The weight of point `i` (1 without weights).
#[inline]
fn weight_at(weights: Option<&[f64]>, i: usize) -> f64 {
    weights.map_or(1.0, |w| w[i])
}

/// Per-sample weights must be one positive finite value per point (points of zero
/// weight are dropped before the solver, see `SvmModel::fit_weighted`).
fn check_weights(weights: Option<&[f64]>, n: usize) -> Result<()> {
    let Some(w) = weights else { return Ok(()) };
    if w.len() != n {
        return Err(Error::param(
            "sample weights",
            format!("{} weights for {n} points", w.len()),
        ));
    }
    if let Some((i, v)) = w
        .iter()
        .enumerate()
        .find(|(_, v)| !(v.is_finite() && **v > 0.0))
    {
        return Err(Error::param(
            "sample weights",
            format!("weight {i} is {v}; the solver needs positive finite weights"),
        ));
    }
    Ok(())
}

/// Counts support vectors and bounded ones as LIBSVM's `svm_train_one`; a point's bound
/// is its class bound `ub` times its weight.
fn finish(
    sol: Solution,
    coef: Vec<f64>,
    y: &[i8],
    ub: (f64, f64),
    weights: Option<&[f64]>,
) -> DualSolution {
    let mut n_support = 0;
    let mut n_bounded = 0;
    for (t, (c, &s)) in coef.iter().zip(y).enumerate() {
        if c.abs() > 0.0 {
            n_support += 1;
            let bound = if s > 0 { ub.0 } else { ub.1 } * weight_at(weights, t);
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
    solve_c_svc_weighted(source, y, None, c_pos, c_neg, settings, initial_alpha)
}

/// [`solve_c_svc`] with per-sample weights `w` (LIBSVM's weighted variant, as
/// scikit-learn's `sample_weight`): the box of point `t` is `0 ≤ α_t ≤ C_{y_t} w_t`.
pub(crate) fn solve_c_svc_weighted(
    source: &dyn KernelSource,
    y: &[f64],
    weights: Option<&[f64]>,
    c_pos: f64,
    c_neg: f64,
    settings: &SolverSettings,
    initial_alpha: Option<&[f64]>,
) -> Result<DualSolution> {
    check_len(source, y.len(), "labels")?;
    check_c_svc(c_pos, c_neg, settings)?;
    check_weights(weights, y.len())?;
    let s = signs(y);
    let upper = c_svc_upper(&s, weights, c_pos, c_neg);
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
    Ok(c_svc_solution(sol, &s, (c_pos, c_neg), weights))
}

fn check_c_svc(c_pos: f64, c_neg: f64, settings: &SolverSettings) -> Result<()> {
    positive_finite("C (positive class)", c_pos)?;
    positive_finite("C (negative class)", c_neg)?;
    settings.validate()
}

/// Upper bound of each C-SVC variable: `c_pos` or `c_neg` by its sign, times its weight.
fn c_svc_upper(s: &[i8], weights: Option<&[f64]>, c_pos: f64, c_neg: f64) -> Vec<f64> {
    s.iter()
        .enumerate()
        .map(|(t, &v)| if v > 0 { c_pos } else { c_neg } * weight_at(weights, t))
        .collect()
}

/// C-SVC coefficients `y α` and the counts of [`finish`].
fn c_svc_solution(
    sol: Solution,
    s: &[i8],
    bounds: (f64, f64),
    weights: Option<&[f64]>,
) -> DualSolution {
    let coef = sol
        .alpha
        .iter()
        .zip(s)
        .map(|(a, &v)| a * v as f64)
        .collect();
    finish(sol, coef, s, bounds, weights)
}

/// C-SVC on fixed points for a sequence of growing bounds (grid search along C, the
/// "regularisation path"): `Q` and the solver's state carry over from one solve to the
/// next.
///
/// The first [`CSvcPath::solve`] is exactly [`solve_c_svc`] (a cold start, LIBSVM's
/// iterations). Each later one starts from the previous solution moved by alpha
/// seeding (DeCoste and Wagstaff 2000) and, instead of recomputing `∇f = Qα − 1`
/// from scratch, updates it with one row of `Q` per variable that the seeding moved.
/// When the whole `Q` (`l²` `f32`) fits the cache budget it is held in memory, so no kernel row is computed twice along the path; otherwise the LRU row
/// cache is kept between solves.
pub struct CSvcPath<'a> {
    q: Box<dyn QMatrix + 'a>,
    signs: Vec<i8>,
    y: Vec<f64>,
    weights: Option<Vec<f64>>,
    settings: SolverSettings,
    last: Option<PathPoint>,
}

/// The solver state after the latest solve of a [`CSvcPath`].
struct PathPoint {
    solver: Solver,
    coef: Vec<f64>,
    bounds: (f64, f64),
}

impl<'a> CSvcPath<'a> {
    /// A path on the points of `source` (owned or borrowed) with labels `y` (`> 0` is
    /// the positive class).
    pub fn new<S: KernelSource + 'a>(
        source: S,
        y: &[f64],
        settings: &SolverSettings,
    ) -> Result<Self> {
        Self::new_weighted(source, y, None, settings)
    }

    /// [`CSvcPath::new`] with per-sample weights (each point's box is its class bound
    /// times its weight, as [`solve_c_svc_weighted`]).
    pub(crate) fn new_weighted<S: KernelSource + 'a>(
        source: S,
        y: &[f64],
        weights: Option<&[f64]>,
        settings: &SolverSettings,
    ) -> Result<Self> {
        check_len(&source, y.len(), "labels")?;
        settings.validate()?;
        check_weights(weights, y.len())?;
        let s = signs(y);
        let q: Box<dyn QMatrix + 'a> = if DenseQ::<S>::bytes(y.len()) <= settings.cache_bytes {
            Box::new(DenseQ::new(source, &s))
        } else {
            Box::new(SignedKernelQ::new(source, &s, settings.cache_bytes))
        };
        Ok(Self {
            q,
            signs: s,
            y: y.to_vec(),
            weights: weights.map(<[f64]>::to_vec),
            settings: *settings,
            last: None,
        })
    }

    /// Solves with bounds `c_pos` / `c_neg` for the positive / negative class; each must
    /// be at least the previous solve's (the previous solution stays feasible).
    pub fn solve(&mut self, c_pos: f64, c_neg: f64) -> Result<DualSolution> {
        check_c_svc(c_pos, c_neg, &self.settings)?;
        if let Some(PathPoint {
            bounds: (old_pos, old_neg),
            ..
        }) = self.last
        {
            if c_pos < old_pos || c_neg < old_neg {
                return Err(Error::param(
                    "C",
                    format!(
                        "a C-SVC path needs growing bounds: ({c_pos}, {c_neg}) after \
                         ({old_pos}, {old_neg})"
                    ),
                ));
            }
        }
        let weights = self.weights.as_deref();
        let upper = c_svc_upper(&self.signs, weights, c_pos, c_neg);
        let q = self.q.as_mut();
        let mut solver = match self.last.take() {
            None => {
                let (p, alpha) = (vec![-1.0; self.y.len()], vec![0.0; self.y.len()]);
                let eps = self.settings.tol;
                Solver::new(q, &p, &self.signs, alpha, upper, Variant::Standard, eps)
            }
            Some(last) => {
                let (old, new) = (last.bounds, (c_pos, c_neg));
                let mut scaled = last.solver.clone();
                let scaled = scaled.scale(&upper).then_some(scaled);
                let alpha = seed_alpha(&last.coef, &self.y, weights, old, new);
                let mut seeded = last.solver;
                seeded.restart(q, &alpha, &upper);
                // Both are feasible: start from the one closer to the optimum.
                match scaled {
                    Some(scaled) if scaled.objective() < seeded.objective() => scaled,
                    _ => seeded,
                }
            }
        };
        let sol = solver.run(q, self.settings.options(self.y.len()));
        let out = c_svc_solution(sol, &self.signs, (c_pos, c_neg), weights);
        self.last = Some(PathPoint {
            solver,
            coef: out.coef.clone(),
            bounds: (c_pos, c_neg),
        });
        Ok(out)
    }
}

/// A feasible starting point for C-SVC with bounds `new` from the solution `coef`
/// (`y α`) for bounds `old ≤ new` ("alpha seeding", DeCoste and Wagstaff 2000).
///
/// Support vectors at their old bound are moved to the new bound (most stay bounded as C
/// grows, and moving them one pair per SMO step would cost about n/2 iterations); free
/// ones keep their value. The imbalance this leaves in `yᵀα = 0` is absorbed first by
/// free variables that can move in the right direction (within `[0, new]`), then by
/// moving some bounded ones back towards their old bound, which always suffices since
/// the old solution was balanced. With per-sample weights each point's bounds are its
/// class bounds times its weight.
pub(crate) fn seed_alpha(
    coef: &[f64],
    y: &[f64],
    weights: Option<&[f64]>,
    old: (f64, f64),
    new: (f64, f64),
) -> Vec<f64> {
    let bound =
        |t: usize, pos: bool, b: (f64, f64)| (if pos { b.0 } else { b.1 }) * weight_at(weights, t);
    let mut alpha: Vec<f64> = coef.iter().map(|c| c.abs()).collect();
    let mut moved = vec![false; alpha.len()];
    let mut balance = 0.0;
    for (t, ((a, m), &yi)) in alpha.iter_mut().zip(&mut moved).zip(y).enumerate() {
        let pos = yi > 0.0;
        if *a >= bound(t, pos, old) {
            *a = bound(t, pos, new);
            *m = true;
        }
        balance += if pos { *a } else { -*a };
    }
    for absorb_with_moved in [false, true] {
        for (t, ((a, &m), &yi)) in alpha.iter_mut().zip(&moved).zip(y).enumerate() {
            if balance == 0.0 {
                return alpha;
            }
            let pos = yi > 0.0;
            let free = *a > 0.0 && !m;
            if !(free || (absorb_with_moved && m)) {
                continue;
            }
            let floor = if m { bound(t, pos, old) } else { 0.0 };
            // balance > 0: lower positive α or raise negative α (and vice versa).
            let step = if pos == (balance > 0.0) {
                -(*a - floor).min(balance.abs())
            } else {
                (bound(t, pos, new) - *a).min(balance.abs())
            };
            *a += step;
            balance += if pos { step } else { -step };
        }
    }
    alpha
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
    solve_nu_svc_weighted(source, y, None, nu, settings)
}

/// [`solve_nu_svc`] with per-sample weights (LIBSVM's weighted variant): in the scaled
/// form point `t` has the box `[0, w_t]` and the equalities become
/// `Σ_{y_t=±1} α_t = ν Σ_t w_t / 2`; feasibility needs `ν (W₊ + W₋)/2 ≤ min(W₊, W₋)`
/// with `W±` the weight sums of the two classes.
pub(crate) fn solve_nu_svc_weighted(
    source: &dyn KernelSource,
    y: &[f64],
    weights: Option<&[f64]>,
    nu: f64,
    settings: &SolverSettings,
) -> Result<DualSolution> {
    check_len(source, y.len(), "labels")?;
    check_nu(nu)?;
    settings.validate()?;
    check_weights(weights, y.len())?;
    let s = signs(y);
    let l = y.len();
    let (mut w_pos, mut w_neg) = (0.0, 0.0);
    for (t, &v) in s.iter().enumerate() {
        *if v > 0 { &mut w_pos } else { &mut w_neg } += weight_at(weights, t);
    }
    let total = w_pos + w_neg;
    if nu * total / 2.0 > f64::min(w_pos, w_neg) {
        return Err(Error::param(
            "nu",
            format!(
                "specified nu is infeasible: nu = {nu} for positive and negative classes of weight {w_pos} and {w_neg} (needs nu ≤ 2·min/total = {:.4})",
                2.0 * w_pos.min(w_neg) / total
            ),
        ));
    }
    // LIBSVM's start: the budget ν·W/2 of each class spread greedily over its points
    // (without weights ν·l/2, as LIBSVM computes it).
    let nu_l = match weights {
        None => nu * l as f64,
        Some(w) => w.iter().map(|&v| nu * v).sum(),
    };
    let (mut sum_pos, mut sum_neg) = (nu_l / 2.0, nu_l / 2.0);
    let upper: Vec<f64> = (0..l).map(|t| weight_at(weights, t)).collect();
    let alpha: Vec<f64> = s
        .iter()
        .zip(&upper)
        .map(|(&v, &c)| {
            let budget = if v > 0 { &mut sum_pos } else { &mut sum_neg };
            let a = budget.min(c);
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
        upper,
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
    let mut out = finish(scaled, coef, &s, (1.0 / r, 1.0 / r), weights);
    out.derived = Some(1.0 / r);
    Ok(out)
}

/// One-class SVM (Schölkopf et al. 2001): `min ½ αᵀKα`, `1ᵀα = ν l`, `0 ≤ α ≤ 1`.
pub fn solve_one_class(
    source: &dyn KernelSource,
    nu: f64,
    settings: &SolverSettings,
) -> Result<DualSolution> {
    solve_one_class_weighted(source, None, nu, settings)
}

/// [`solve_one_class`] with per-sample weights (LIBSVM's weighted variant):
/// `0 ≤ α_t ≤ w_t`, `1ᵀα = ν Σ_t w_t`.
pub(crate) fn solve_one_class_weighted(
    source: &dyn KernelSource,
    weights: Option<&[f64]>,
    nu: f64,
    settings: &SolverSettings,
) -> Result<DualSolution> {
    let l = source.len();
    check_len(source, l, "points")?;
    check_nu(nu)?;
    settings.validate()?;
    check_weights(weights, l)?;
    let mut alpha = vec![0.0; l];
    let upper: Vec<f64> = (0..l).map(|t| weight_at(weights, t)).collect();
    match weights {
        None => {
            let n = (nu * l as f64) as usize;
            for a in alpha.iter_mut().take(n) {
                *a = 1.0;
            }
            if n < l {
                alpha[n] = nu * l as f64 - n as f64;
            }
        }
        Some(w) => {
            // LIBSVM's weighted start: ν·W spread greedily over the points in order.
            let mut budget: f64 = w.iter().map(|&v| v * nu).sum();
            for (a, &c) in alpha.iter_mut().zip(&upper) {
                if budget <= 0.0 {
                    break;
                }
                *a = c.min(budget);
                budget -= *a;
            }
        }
    }
    let ones = vec![1i8; l];
    let mut q = SignedKernelQ::new(source, &ones, settings.cache_bytes);
    let sol = solve(
        &mut q,
        &vec![0.0; l],
        &ones,
        alpha,
        upper,
        Variant::Standard,
        settings.options(l),
    );
    let coef = sol.alpha.clone();
    Ok(finish(sol, coef, &ones, (1.0, 1.0), weights))
}

/// Solves an SVR dual over the `2l` variables `(α, α*)` and folds them into `α − α*`.
fn solve_svr_dual(
    source: &dyn KernelSource,
    p: Vec<f64>,
    alpha2: Vec<f64>,
    upper: Vec<f64>,
    variant: Variant,
    settings: &SolverSettings,
) -> (Solution, Vec<f64>) {
    let l = source.len();
    let y2 = svr_signs(l);
    let mut q = SvrQ::new(source, settings.cache_bytes);
    let q: &mut dyn QMatrix = &mut q;
    let sol = solve(q, &p, &y2, alpha2, upper, variant, settings.options(2 * l));
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
    solve_epsilon_svr_weighted(source, targets, None, c, epsilon, settings, initial_coef)
}

/// Per-sample box `C w_t` of both variables `α_t`, `α*_t` of the SVR duals.
fn svr_upper(weights: Option<&[f64]>, c: f64, l: usize) -> Vec<f64> {
    (0..2 * l).map(|t| c * weight_at(weights, t % l)).collect()
}

/// [`solve_epsilon_svr`] with per-sample weights: `0 ≤ α_t, α*_t ≤ C w_t`.
pub(crate) fn solve_epsilon_svr_weighted(
    source: &dyn KernelSource,
    targets: &[f64],
    weights: Option<&[f64]>,
    c: f64,
    epsilon: f64,
    settings: &SolverSettings,
    initial_coef: Option<&[f64]>,
) -> Result<DualSolution> {
    check_len(source, targets.len(), "targets")?;
    positive_finite("C", c)?;
    non_negative_finite("epsilon", epsilon)?;
    settings.validate()?;
    check_weights(weights, targets.len())?;
    let p: Vec<f64> = targets
        .iter()
        .map(|&t| epsilon - t)
        .chain(targets.iter().map(|&t| epsilon + t))
        .collect();
    let l = targets.len();
    let upper = svr_upper(weights, c, l);
    let alpha2 = match initial_coef {
        None => vec![0.0; 2 * l],
        Some(coef) => {
            let split: Vec<f64> = coef
                .iter()
                .map(|&v| v.max(0.0))
                .chain(coef.iter().map(|&v| (-v).max(0.0)))
                .collect();
            check_warm_start(&split, &svr_signs(l), &upper)?
        }
    };
    let (sol, coef) = solve_svr_dual(source, p, alpha2, upper, Variant::Standard, settings);
    Ok(finish(sol, coef, &vec![1; l], (c, c), weights))
}

/// The shape of the dual solved by [`solve_signed_qp`].
#[derive(Clone, Copy, Debug)]
pub(crate) enum DualShape<'a> {
    /// C-SVC: `n` variables, `S = diag(y)`, `Q = YKY`.
    Classification {
        /// Labels (`> 0` is +1).
        y: &'a [f64],
    },
    /// ε-SVR: `2n` variables `[α; α*]`, `S = [I, −I]`, `Q = SᵀKS`.
    Regression,
    /// C-SVC without bias: as `Classification` but without the constraint `sᵀz = 0`
    /// (box only). Solved as the constrained problem with two slack variables of zero
    /// kernel row, signs ±1 and room for any `yᵀz`, which leave the box's KKT conditions as
    /// SMO's stopping rule.
    ClassificationNoBias {
        /// Labels (`> 0` is +1).
        y: &'a [f64],
    },
}

/// `source` with two extra points whose kernel rows are zero (the slack variables of
/// [`DualShape::ClassificationNoBias`]).
struct SlackPadded<'a> {
    source: &'a dyn KernelSource,
}

impl KernelSource for SlackPadded<'_> {
    fn len(&self) -> usize {
        self.source.len() + 2
    }

    fn diag(&self, i: usize) -> f64 {
        if i < self.source.len() {
            self.source.diag(i)
        } else {
            0.0
        }
    }

    fn fill_row(&self, i: usize, cols: &[usize], out: &mut [f32]) {
        let n = self.source.len();
        if i >= n {
            out.fill(0.0);
            return;
        }
        if cols.iter().all(|&c| c < n) {
            self.source.fill_row(i, cols, out);
            return;
        }
        out.fill(0.0);
        let (real, at): (Vec<usize>, Vec<usize>) = cols
            .iter()
            .enumerate()
            .filter(|(_, &c)| c < n)
            .map(|(t, &c)| (c, t))
            .unzip();
        let mut row = vec![0.0f32; real.len()];
        self.source.fill_row(i, &real, &mut row);
        for (v, t) in row.into_iter().zip(at) {
            out[t] = v;
        }
    }
}

/// SMO on `min_z ½ zᵀQz + pᵀz` over `0 ≤ z ≤ C`, `sᵀz = 0`, with `Q = SᵀKS`: the C-SVC or
/// ε-SVR dual with its linear term replaced by `p`, for methods that take SVM-shaped
/// steps on other objectives (DANK's sequential scheme). Starts from the feasible `z0`
/// and returns the solution `z`.
pub(crate) fn solve_signed_qp(
    source: &dyn KernelSource,
    shape: DualShape<'_>,
    p: &[f64],
    c: f64,
    z0: &[f64],
    settings: &SolverSettings,
) -> Result<Vec<f64>> {
    positive_finite("C", c)?;
    settings.validate()?;
    let l = source.len();
    let mut s = match shape {
        DualShape::Classification { y } | DualShape::ClassificationNoBias { y } => {
            check_len(source, y.len(), "labels")?;
            signs(y)
        }
        DualShape::Regression => svr_signs(l),
    };
    if p.len() != s.len() || p.iter().any(|v| !v.is_finite()) {
        return Err(Error::param(
            "p",
            format!("needs {} finite values, got {}", s.len(), p.len()),
        ));
    }
    let n = s.len();
    let mut upper = vec![c; n];
    let (mut p, mut z0) = (p.to_vec(), z0.to_vec());
    let padded = SlackPadded { source };
    if let DualShape::ClassificationNoBias { .. } = shape {
        if z0.len() == n {
            // Slacks (+1, −1) take up yᵀz, which is at most n·C in size.
            let balance: f64 = z0.iter().zip(&s).map(|(a, &b)| a * b as f64).sum();
            z0.extend([(-balance).max(0.0), balance.max(0.0)]);
        }
        s.extend([1, -1]);
        p.extend([0.0, 0.0]);
        upper.extend([2.0 * c * n as f64; 2]);
    }
    let alpha = check_warm_start(&z0, &s, &upper)?;
    let mut signed;
    let mut svr;
    let q: &mut dyn QMatrix = match shape {
        DualShape::Classification { .. } => {
            signed = SignedKernelQ::new(source, &s, settings.cache_bytes);
            &mut signed
        }
        DualShape::ClassificationNoBias { .. } => {
            signed = SignedKernelQ::new(&padded as &dyn KernelSource, &s, settings.cache_bytes);
            &mut signed
        }
        DualShape::Regression => {
            svr = SvrQ::new(source, settings.cache_bytes);
            &mut svr
        }
    };
    let opts = settings.options(s.len());
    let mut sol = solve(q, &p, &s, alpha, upper, Variant::Standard, opts);
    sol.alpha.truncate(n);
    Ok(sol.alpha)
}

/// ν-SVR (Schölkopf et al. 2000): ε is found by the solver; `derived` returns it.
pub fn solve_nu_svr(
    source: &dyn KernelSource,
    targets: &[f64],
    c: f64,
    nu: f64,
    settings: &SolverSettings,
) -> Result<DualSolution> {
    solve_nu_svr_weighted(source, targets, None, c, nu, settings)
}

/// [`solve_nu_svr`] with per-sample weights (LIBSVM's weighted variant):
/// `0 ≤ α_t, α*_t ≤ C w_t`, `Σ(α + α*) = C ν Σ_t w_t`.
pub(crate) fn solve_nu_svr_weighted(
    source: &dyn KernelSource,
    targets: &[f64],
    weights: Option<&[f64]>,
    c: f64,
    nu: f64,
    settings: &SolverSettings,
) -> Result<DualSolution> {
    check_len(source, targets.len(), "targets")?;
    positive_finite("C", c)?;
    check_nu(nu)?;
    settings.validate()?;
    check_weights(weights, targets.len())?;
    let l = targets.len();
    let upper = svr_upper(weights, c, l);
    let mut sum = match weights {
        None => c * nu * l as f64 / 2.0,
        Some(w) => w.iter().map(|&v| c * v).sum::<f64>() * nu / 2.0,
    };
    let mut alpha2 = vec![0.0; 2 * l];
    for i in 0..l {
        let a = sum.min(upper[i]);
        alpha2[i] = a;
        alpha2[i + l] = a;
        sum -= a;
    }
    let p: Vec<f64> = targets
        .iter()
        .map(|&t| -t)
        .chain(targets.iter().copied())
        .collect();
    let (sol, coef) = solve_svr_dual(source, p, alpha2, upper, Variant::Nu, settings);
    let epsilon = -sol.r;
    let mut out = finish(sol, coef, &vec![1; l], (c, c), weights);
    out.derived = Some(epsilon);
    Ok(out)
}

#[cfg(test)]
mod tests;
