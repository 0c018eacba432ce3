//! SPG-GMKL (Jain, Vishwanathan and Varma, "SPF-GMKL: generalized multiple kernel
//! learning for a million kernels", KDD 2012), the MKL comparator of Moeller 2017's
//! Table 5.4: generalized MKL solved by a spectral projected gradient (SPG) outer loop
//! over the kernel weights around the library's SMO solver.
//!
//! **Problem** (the paper's (1)–(3), sum of kernels): with the normalised base kernels
//! `K̄_k` and `K(d) = Σ_k d_k K̄_k`,
//!
//! `min_{d ∈ 𝒟}  T(d) = r(d) + W(d)`,
//! `W(d) = max_{0 ≤ α ≤ C, yᵀα = 0}  1ᵀα − ½ αᵀ Y K(d) Y α`  (the C-SVM dual optimum),
//!
//! whose gradient at the SVM solution `α*(d)` is (Danskin)
//! `∂T/∂d_k = ∂r/∂d_k − ½ α*ᵀ Y K̄_k Y α*`. Two regularisers ([`GmklRegulariser`]):
//!
//! - **L1**: `𝒟` is the simplex `{d ≥ 0, Σ d_k = 1}` and `r = 0` (the ℓ1 constraint of
//!   SimpleMKL; the paper's penalty `σ Σ d_k` on `d ≥ 0` gives the same machines up to a
//!   rescaling of C, which is chosen by CV anyway). Projection: onto the simplex.
//! - **p-norm**: `𝒟 = {d ≥ 0}`, `r(d) = (λ/p) Σ_k d_k^p` (`p > 1`). Projection: clipping.
//!
//! **Outer loop** (the paper's Algorithm 1 = SPG2 of Birgin, Martínez and Raydan 2000):
//! direction `p = P(d − s ∇T) − d` with the Barzilai–Borwein step
//! `s = ⟨Δd, Δd⟩ / ⟨Δd, Δ∇T⟩` (safeguarded to `[1e-10, 1e10]`), a non-monotone
//! Armijo line search against the largest of the last [`NONMONOTONE_MEMORY`] objectives
//! (step halved, or the safeguarded quadratic interpolation of SPG2), and every trial
//! point's `W` solved by SMO warm-started from the current `α`. It stops when the
//! projected-gradient norm `‖P(d − ∇T) − d‖_∞` falls below `pg_tol · max(1, ‖∇T‖_∞)`
//! (the KKT conditions of the weight problem: on the simplex, every kernel with
//! `d_k > 0` has the same gradient component and the others one at least as large; on
//! the orthant, `∂T/∂d_k = 0` where `d_k > 0` and `≥ 0` where `d_k = 0`), when an
//! accepted step changes `T` by less than `objective_tol · max(1, |T|)`, when the line
//! search finds no decrease (the objective is flat at the SMO's precision), or at
//! `max_iter` (then the model warns).
//!
//! **Gram reuse.** When the `m` trace-normalised Gram matrices of a class pair fit
//! [`GRAM_BUDGET_BYTES`] (as `f32`, the precision of the solver's cache), they are
//! computed once and every SMO solve reads `Σ_k d_k K̄_k` from them, as do the
//! gradients; otherwise the combination is evaluated on demand
//! ([`crate::bank::CombinedKernel`]) and the gradients from kernel columns on the
//! support vectors ([`super::easymkl::kernel_margins`]).

use super::easymkl::kernel_margins;
use crate::bank::KernelBank;
use crate::bank::KernelFamily;
use crate::bank::{check_binary, MachineInfo, MklMachine};
use crate::check::positive_finite;
use crate::kernel::{fill_row_chunked, KernelSource};
use crate::svm::{solve_c_svc_weighted, DualSolution, SolverSettings};
use crate::trace::Trace;
use crate::{Error, Result};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// The regulariser of the kernel weights (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GmklRegulariser {
    /// Weights on the simplex `Σ d_k = 1, d ≥ 0` (sparse combinations).
    L1,
    /// `r(d) = (λ/p) Σ d_k^p` on `d ≥ 0`, `p > 1` (dense combinations).
    #[serde(rename = "pnorm")]
    PNorm {
        /// Exponent `p > 1`.
        p: f64,
        /// Weight `λ > 0`.
        lambda: f64,
    },
}

/// Command-line names of the regularisers.
pub(crate) const REGULARISER_NAMES: [&str; 2] = ["l1", "pnorm"];

impl GmklRegulariser {
    fn validate(&self) -> Result<()> {
        if let GmklRegulariser::PNorm { p, lambda } = *self {
            if !(p > 1.0 && p.is_finite()) {
                return Err(Error::param(
                    "gmkl-p",
                    format!("the p-norm regulariser needs a finite p > 1, got {p}"),
                ));
            }
            positive_finite("gmkl-lambda", lambda)?;
        }
        Ok(())
    }

    /// `r(d)`.
    fn value(&self, d: &[f64]) -> f64 {
        match *self {
            GmklRegulariser::L1 => 0.0,
            GmklRegulariser::PNorm { p, lambda } => {
                lambda / p * d.iter().map(|v| v.powf(p)).sum::<f64>()
            }
        }
    }

    /// `∂r/∂d_k`.
    fn gradient(&self, d: &[f64]) -> Vec<f64> {
        match *self {
            GmklRegulariser::L1 => vec![0.0; d.len()],
            GmklRegulariser::PNorm { p, lambda } => {
                d.iter().map(|v| lambda * v.powf(p - 1.0)).collect()
            }
        }
    }

    /// Euclidean projection onto the feasible weights.
    pub(crate) fn project(&self, d: &[f64]) -> Vec<f64> {
        match self {
            GmklRegulariser::L1 => project_simplex(d),
            GmklRegulariser::PNorm { .. } => d.iter().map(|v| v.max(0.0)).collect(),
        }
    }
}

/// Euclidean projection onto `{d ≥ 0, Σ d = 1}` (sort and threshold; Held, Wolfe and
/// Crowder 1974, Duchi et al. 2008).
pub(crate) fn project_simplex(v: &[f64]) -> Vec<f64> {
    let mut sorted = v.to_vec();
    sorted.sort_by(|a, b| b.total_cmp(a));
    let mut sum = 0.0;
    let mut theta = 0.0;
    for (k, &u) in sorted.iter().enumerate() {
        sum += u;
        let t = (sum - 1.0) / (k + 1) as f64;
        if u - t > 0.0 {
            theta = t;
        }
    }
    v.iter().map(|&u| (u - theta).max(0.0)).collect()
}

/// Parameters of SPG-GMKL.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SpgGmklParams {
    /// SVM trade-off `C > 0`.
    pub c: f64,
    /// Regulariser of the weights (default L1).
    pub regulariser: GmklRegulariser,
    /// Stop when `‖P(d − ∇T) − d‖_∞ ≤ pg_tol · max(1, ‖∇T‖_∞)` (default 1e-4).
    pub pg_tol: f64,
    /// Stop when an accepted step changes `T` by at most `objective_tol · max(1, |T|)`
    /// (default 1e-7).
    pub objective_tol: f64,
    /// Most SPG iterations (default 200); the model warns when a fit reaches it.
    pub max_iter: usize,
    /// SMO settings of the inner SVM solves (default tolerance 1e-4: the gradients
    /// come from `α*`).
    pub solver: SolverSettings,
}

impl Default for SpgGmklParams {
    fn default() -> Self {
        Self {
            c: 1.0,
            regulariser: GmklRegulariser::L1,
            pg_tol: 1e-4,
            objective_tol: 1e-7,
            max_iter: 200,
            solver: SolverSettings {
                tol: 1e-4,
                ..SolverSettings::default()
            },
        }
    }
}

impl SpgGmklParams {
    /// Checks `C > 0`, the regulariser, positive tolerances, `max_iter ≥ 1`, the solver.
    pub(crate) fn validate(&self) -> Result<()> {
        positive_finite("C", self.c)?;
        self.regulariser.validate()?;
        positive_finite("gmkl pg_tol", self.pg_tol)?;
        positive_finite("gmkl objective_tol", self.objective_tol)?;
        if self.max_iter == 0 {
            return Err(Error::param("gmkl max_iter", "must be >= 1"));
        }
        self.solver.validate()
    }
}

/// Columns of the per-iteration trace: class pair, SPG iteration (0 = the uniform
/// start), objective `T(d)`, accepted step length (times the BB step), the projected
/// gradient norm `‖P(d − ∇T) − d‖_∞` and the SMO solves so far.
pub(crate) const TRACE_COLUMNS: [&str; 6] =
    ["pair", "iter", "objective", "step", "pg_norm", "svm_solves"];

/// Largest total size of one class pair's stored Gram matrices (`m n²` `f32`).
pub(crate) const GRAM_BUDGET_BYTES: usize = 512 << 20;

/// Largest number of line-search trials per SPG iteration.
const MAX_LINE_SEARCH: usize = 30;

/// Objectives remembered by the non-monotone line search (SPG2's `M`).
pub(crate) const NONMONOTONE_MEMORY: usize = 10;

/// Sufficient-decrease constant of the Armijo test (SPG2's `γ`).
const ARMIJO: f64 = 1e-4;

/// Safeguards of the Barzilai–Borwein step.
const BB_MIN: f64 = 1e-10;
const BB_MAX: f64 = 1e10;

/// The base kernels of one fit, stored as Gram matrices when they fit the budget.
enum Kernels<'a> {
    Stored(StoredGrams),
    OnDemand(&'a KernelBank),
}

/// The trace-normalised Gram matrix of every base kernel, row-major `f32`.
struct StoredGrams {
    n: usize,
    grams: Vec<Vec<f32>>,
    diags: Vec<Vec<f64>>,
}

impl StoredGrams {
    fn new(bank: &KernelBank) -> Self {
        let n = bank.n_points();
        let x = bank.points();
        let grams = (0..bank.n_kernels())
            .map(|k| {
                let mut g = vec![0f32; n * n];
                g.par_chunks_mut(n).enumerate().for_each_init(
                    || vec![0.0; n],
                    |col, (i, row)| {
                        bank.column(k, x.row(i), col);
                        row.iter_mut()
                            .zip(col.iter())
                            .for_each(|(o, v)| *o = *v as f32);
                    },
                );
                g
            })
            .collect();
        let diags = (0..bank.n_kernels())
            .map(|k| (0..n).map(|t| bank.diag(k, t)).collect())
            .collect();
        Self { n, grams, diags }
    }

    /// `βᵀ K̄_k β` for every kernel, `β` zero outside `support`.
    fn quadratic_forms(&self, beta: &[f64], support: &[usize]) -> Vec<f64> {
        self.grams
            .par_iter()
            .map(|g| {
                support
                    .iter()
                    .map(|&i| {
                        let row = &g[i * self.n..(i + 1) * self.n];
                        beta[i]
                            * support
                                .iter()
                                .map(|&j| row[j] as f64 * beta[j])
                                .sum::<f64>()
                    })
                    .sum()
            })
            .collect()
    }
}

/// `Σ_k d_k K̄_k` read from [`StoredGrams`].
struct WeightedGrams<'a> {
    store: &'a StoredGrams,
    terms: Vec<(usize, f32)>,
    diag: Vec<f64>,
}

impl<'a> WeightedGrams<'a> {
    fn new(store: &'a StoredGrams, d: &[f64]) -> Self {
        let terms: Vec<(usize, f32)> = (d.iter().enumerate())
            .filter(|(_, &w)| w != 0.0)
            .map(|(k, &w)| (k, w as f32))
            .collect();
        let diag = (0..store.n)
            .map(|t| {
                terms
                    .iter()
                    .map(|&(k, w)| w as f64 * store.diags[k][t])
                    .sum()
            })
            .collect();
        Self { store, terms, diag }
    }
}

impl KernelSource for WeightedGrams<'_> {
    fn len(&self) -> usize {
        self.store.n
    }

    fn diag(&self, i: usize) -> f64 {
        self.diag[i]
    }

    fn fill_row(&self, i: usize, cols: &[usize], out: &mut [f32]) {
        let n = self.store.n;
        let parallel = cols.len() * self.terms.len() >= 64 * 1024;
        fill_row_chunked(
            parallel,
            256,
            cols,
            out,
            || (),
            |_, c, o| {
                o.fill(0.0);
                for &(k, w) in &self.terms {
                    let row = &self.store.grams[k][i * n..(i + 1) * n];
                    o.iter_mut().zip(c).for_each(|(v, &j)| *v += w * row[j]);
                }
            },
        );
    }
}

/// One evaluation of the objective: `T(d)`, its gradient and the SVM solution.
struct Point {
    d: Vec<f64>,
    objective: f64,
    gradient: Vec<f64>,
    svm: DualSolution,
}

/// What [`solve`] found.
pub(crate) struct SpgSolution {
    /// The weights `d` (on the simplex for L1; not normalised for the p-norm).
    pub weights: Vec<f64>,
    /// `T(d)` at the end.
    pub objective: f64,
    /// `∇T(d)` at the end (checked against explicit Gram matrices by the tests).
    #[cfg(test)]
    pub gradient: Vec<f64>,
    /// The SVM on `K(d)`: `coef = y α`, `rho`.
    pub svm: DualSolution,
    /// SPG iterations run.
    pub iterations: usize,
    /// True when `max_iter` ended the loop.
    pub hit_max_iter: bool,
}

/// The SPG state shared by the evaluations of one fit.
struct Spg<'a> {
    kernels: Kernels<'a>,
    y: &'a [f64],
    /// Per-sample weights (positive), when given: point `t`'s box is `C·w_t`.
    w: Option<&'a [f64]>,
    params: &'a SpgGmklParams,
    solves: usize,
}

impl Spg<'_> {
    /// `T(d)` and `∇T(d)`, the SVM warm-started from `warm` (coefficients `y α`).
    fn evaluate(&mut self, d: Vec<f64>, warm: Option<&[f64]>) -> Result<Point> {
        let alpha: Option<Vec<f64>> = warm.map(|w| w.iter().map(|v| v.abs()).collect());
        let c = self.params.c;
        let settings = &self.params.solver;
        let svm = match &self.kernels {
            Kernels::Stored(s) => {
                let source = WeightedGrams::new(s, &d);
                solve_c_svc_weighted(&source, self.y, self.w, c, c, settings, alpha.as_deref())?
            }
            Kernels::OnDemand(bank) => {
                let source = bank.combined(&d)?;
                solve_c_svc_weighted(&source, self.y, self.w, c, c, settings, alpha.as_deref())?
            }
        };
        self.solves += 1;
        let forms = self.quadratic_forms(&svm.coef);
        let reg = &self.params.regulariser;
        let gradient = (reg.gradient(&d).iter().zip(&forms))
            .map(|(r, q)| r - 0.5 * q)
            .collect();
        let objective = reg.value(&d) - svm.objective;
        if !objective.is_finite() {
            return Err(Error::numerical(format!(
                "SPG-GMKL: the objective is {objective} at weights {d:?}"
            )));
        }
        Ok(Point {
            d,
            objective,
            gradient,
            svm,
        })
    }

    /// `α ᵀ Y K̄_k Y α` for every kernel, from `coef = y α`.
    fn quadratic_forms(&self, coef: &[f64]) -> Vec<f64> {
        match &self.kernels {
            Kernels::Stored(s) => {
                let support: Vec<usize> = (0..coef.len()).filter(|&t| coef[t] != 0.0).collect();
                s.quadratic_forms(coef, &support)
            }
            Kernels::OnDemand(bank) => {
                let alpha: Vec<f64> = coef.iter().map(|v| v.abs()).collect();
                kernel_margins(bank, self.y, &alpha)
            }
        }
    }
}

/// `‖P(d − g) − d‖_∞`: zero exactly at a KKT point of the weight problem.
pub(crate) fn projected_gradient_norm(reg: &GmklRegulariser, d: &[f64], g: &[f64]) -> f64 {
    let moved: Vec<f64> = d.iter().zip(g).map(|(a, b)| a - b).collect();
    (reg.project(&moved).iter().zip(d))
        .map(|(p, a)| (p - a).abs())
        .fold(0.0, f64::max)
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Whether `pg` is within the stopping tolerance for gradient `g`.
fn stationary(params: &SpgGmklParams, pg: f64, g: &[f64]) -> bool {
    let scale = g.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    pg <= params.pg_tol * scale
}

/// SPG-GMKL on the normalised kernels of `bank` with labels `y ∈ {±1}`; one row per
/// iteration goes to `trace` (pair number `pair`).
///
/// With per-sample weights `w` (positive, one per point), the inner SVM is the weighted
/// C-SVC (point `t`'s box `C·w_t`, LIBSVM's weighted variant): `T(d) = r(d) + max_α
/// (1ᵀα − ½ αᵀY K(d) Y α)` over that box, and its gradient `∂T/∂d_k = r'(d)_k −
/// ½ α*ᵀY K̄_k Y α*` (Danskin; Jain et al. 2012, section 3) holds unchanged, the box
/// only changing which `α*` is optimal. A point of integer weight `k` then counts as `k`
/// copies of it (two variables of box `C` are one of box `2C`).
pub(crate) fn solve(
    bank: &KernelBank,
    (y, w): (&[f64], Option<&[f64]>),
    params: &SpgGmklParams,
    pair: usize,
    trace: &mut Trace,
) -> Result<SpgSolution> {
    params.validate()?;
    let (n, m) = (bank.n_points(), bank.n_kernels());
    check_binary(y, n)?;
    bank.base().require_psd("SPG-GMKL")?;
    let stored = m.saturating_mul(n * n * std::mem::size_of::<f32>()) <= GRAM_BUDGET_BYTES;
    let kernels = if stored {
        Kernels::Stored(StoredGrams::new(bank))
    } else {
        Kernels::OnDemand(bank)
    };
    let mut spg = Spg {
        kernels,
        y,
        w,
        params,
        solves: 0,
    };
    let reg = params.regulariser;
    let mut point = spg.evaluate(vec![1.0 / m as f64; m], None)?;
    let mut history = vec![point.objective];
    let mut pg = projected_gradient_norm(&reg, &point.d, &point.gradient);
    trace.push(vec![pair as f64, 0.0, point.objective, 0.0, pg, 1.0]);
    // SPG2's first step: 1 / ‖P(d − ∇T) − d‖_∞.
    let mut bb = if pg > 0.0 {
        (1.0 / pg).clamp(BB_MIN, BB_MAX)
    } else {
        1.0
    };
    let mut iterations = 0;
    let mut hit_max_iter = false;
    while !stationary(params, pg, &point.gradient) {
        if iterations == params.max_iter {
            hit_max_iter = true;
            break;
        }
        iterations += 1;
        let target: Vec<f64> = (point.d.iter().zip(&point.gradient))
            .map(|(d, g)| d - bb * g)
            .collect();
        let direction: Vec<f64> = (reg.project(&target).iter().zip(&point.d))
            .map(|(p, d)| p - d)
            .collect();
        let slope = dot(&point.gradient, &direction);
        if slope >= 0.0 {
            break; // no descent left at working precision
        }
        let reference = history.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let Some((next, step)) = line_search(&mut spg, &point, &direction, slope, reference)?
        else {
            break; // no decrease at the SMO's precision: as stationary as it can tell
        };
        let change = (next.objective - point.objective).abs();
        let s: Vec<f64> = next.d.iter().zip(&point.d).map(|(a, b)| a - b).collect();
        let g: Vec<f64> = (next.gradient.iter().zip(&point.gradient))
            .map(|(a, b)| a - b)
            .collect();
        let sy = dot(&s, &g);
        bb = if sy > 0.0 {
            (dot(&s, &s) / sy).clamp(BB_MIN, BB_MAX)
        } else {
            BB_MAX
        };
        point = next;
        pg = projected_gradient_norm(&reg, &point.d, &point.gradient);
        history.push(point.objective);
        if history.len() > NONMONOTONE_MEMORY {
            history.remove(0);
        }
        trace.push(vec![
            pair as f64,
            iterations as f64,
            point.objective,
            step,
            pg,
            spg.solves as f64,
        ]);
        if change <= params.objective_tol * point.objective.abs().max(1.0) {
            break;
        }
    }
    Ok(SpgSolution {
        weights: point.d,
        objective: point.objective,
        #[cfg(test)]
        gradient: point.gradient,
        svm: point.svm,
        iterations,
        hit_max_iter,
    })
}

/// SPG2's non-monotone line search along `direction` from `point`: the first step
/// `t` (from 1 down) with `T(d + t p) ≤ reference + γ t ∇Tᵀp`; each trial is an SMO
/// solve warm-started at the current `α`. Returns the accepted point and `t`, or `None`
/// when [`MAX_LINE_SEARCH`] trials (down to `t ≈ 1e-9`) found no decrease: the objective
/// is then flat at the precision of the SMO solves.
fn line_search(
    spg: &mut Spg<'_>,
    point: &Point,
    direction: &[f64],
    slope: f64,
    reference: f64,
) -> Result<Option<(Point, f64)>> {
    let mut t = 1.0;
    for _ in 0..MAX_LINE_SEARCH {
        let d: Vec<f64> = (point.d.iter().zip(direction))
            .map(|(a, p)| (a + t * p).max(0.0))
            .collect();
        let trial = spg.evaluate(d, Some(&point.svm.coef))?;
        if trial.objective <= reference + ARMIJO * t * slope {
            return Ok(Some((trial, t)));
        }
        // Safeguarded quadratic interpolation (SPG2), else halve.
        let curvature = trial.objective - point.objective - t * slope;
        let q = if curvature > 0.0 {
            -0.5 * t * t * slope / curvature
        } else {
            0.0
        };
        t = if q >= 0.1 * t && q <= 0.9 * t {
            q
        } else {
            t / 2.0
        };
    }
    Ok(None)
}

/// SPG-GMKL on one class pair: the trace-normalised `family` on `x`, labels `y ∈ {±1}`.
/// The machine's weights are `d / Σ d` (for the p-norm; the coefficients carry `Σ d`),
/// its objective `T(d)`, its iterations the SPG iterations.
pub(super) fn fit_binary(
    family: &KernelFamily,
    bank: &KernelBank,
    yw: (&[f64], Option<&[f64]>),
    params: &SpgGmklParams,
    pair: usize,
    trace: &mut Trace,
) -> Result<MklMachine> {
    params.validate()?;
    let sol = solve(bank, yw, params, pair, trace)?;
    let total: f64 = sol.weights.iter().sum();
    if !(total > 0.0 && total.is_finite()) {
        return Err(Error::numerical(format!(
            "SPG-GMKL: every kernel weight is zero (λ = {} too large for C = {}?)",
            match params.regulariser {
                GmklRegulariser::PNorm { lambda, .. } => lambda,
                GmklRegulariser::L1 => 0.0,
            },
            params.c
        )));
    }
    let weights: Vec<f64> = sol.weights.iter().map(|w| w / total).collect();
    let coef: Vec<f64> = sol.svm.coef.iter().map(|c| c * total).collect();
    let info = MachineInfo {
        iterations: sol.iterations,
        objective: sol.objective,
        hit_max_iter: sol.hit_max_iter,
    };
    Ok(MklMachine::new(
        family,
        bank,
        weights,
        &coef,
        sol.svm.rho,
        info,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simplex_projection_is_the_nearest_point() {
        assert_eq!(project_simplex(&[0.2, 0.3, 0.5]), vec![0.2, 0.3, 0.5]);
        assert_eq!(project_simplex(&[2.0, 0.0]), vec![1.0, 0.0]);
        let p = project_simplex(&[0.5, 0.5, 0.5]);
        assert!(p.iter().all(|v| (v - 1.0 / 3.0).abs() < 1e-15));
        // Brute force on a fine grid of the 2-simplex.
        let v = [0.9, -0.4, 0.7];
        let p = project_simplex(&v);
        let dist = |q: &[f64]| q.iter().zip(&v).map(|(a, b)| (a - b).powi(2)).sum::<f64>();
        let steps = 400;
        for i in 0..=steps {
            for j in 0..=steps - i {
                let q = [
                    i as f64 / steps as f64,
                    j as f64 / steps as f64,
                    (steps - i - j) as f64 / steps as f64,
                ];
                assert!(dist(&p) <= dist(&q) + 1e-12);
            }
        }
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-15);
    }

    #[test]
    fn bad_regulariser_and_tolerances_are_errors() {
        let p = SpgGmklParams::default();
        let pn = |p, lambda| SpgGmklParams {
            regulariser: GmklRegulariser::PNorm { p, lambda },
            ..SpgGmklParams::default()
        };
        let e = pn(1.0, 1.0).validate().unwrap_err().to_string();
        assert!(e.contains("gmkl-p") && e.contains("p > 1"), "{e}");
        assert!(pn(f64::NAN, 1.0).validate().is_err());
        let e = pn(2.0, 0.0).validate().unwrap_err().to_string();
        assert!(e.contains("gmkl-lambda"), "{e}");
        assert!(SpgGmklParams { c: -1.0, ..p }.validate().is_err());
        assert!(SpgGmklParams { max_iter: 0, ..p }.validate().is_err());
        assert!(SpgGmklParams { pg_tol: 0.0, ..p }.validate().is_err());
        assert!(p.validate().is_ok() && pn(2.0, 1.0).validate().is_ok());
    }
}
