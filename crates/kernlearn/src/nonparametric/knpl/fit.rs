//! KNPL on one class pair ([`fit_binary`]), recording the [`Trace`] columns
//! [`TRACE_COLUMNS`]: Algorithm 2 of the paper (section "Optimization for Problem (4)"),
//! alternating the α-step (the SVM dual on `G ⊙ K` by SMO, warm-started, [`solve_alpha`])
//! and the G-step (the ADMM projection of `Γ(α)`, relaxed by ω) for `T` outer rounds; or
//! the monotone ascent on `φ(α) = min_G H(α, G)`, whose G-step is the projection in
//! closed form ([`exact_projection`]).

use super::admm::{
    admm_projection, exact_projection, gamma_target, knpl_objective, psd_kernel_projection,
};
use super::params::{KnplParams, KnplScheme};
use crate::kernel::PrecomputedKernel;
use crate::svm::{solve_c_svc, DualSolution};
use crate::trace::Trace;
use crate::Result;
use faer::{Mat, MatRef};
use std::time::Instant;

/// `G ⊙ K` as a [`KernelSource`](crate::kernel::KernelSource) for the SMO solver.
pub(super) fn hadamard_source(g: MatRef<'_, f64>, k: MatRef<'_, f64>) -> Result<PrecomputedKernel> {
    let n = k.nrows();
    let mut values = Vec::with_capacity(n * n);
    // Both are symmetric, so row i is column i, which faer stores contiguously.
    for i in 0..n {
        let (gi, ki) = (g.col(i), k.col(i));
        values.extend((0..n).map(|j| gi[j] * ki[j]));
    }
    PrecomputedKernel::from_symmetric_row_major(n, values)
}

/// α-step of Algorithm 2: the SVM dual (3) on `G ⊙ K`, optionally warm-started from a
/// previous (unsigned) α.
pub(super) fn solve_alpha(
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
pub(super) struct BinaryFit {
    /// The learned `G` (`n × n`, symmetric PSD); `11ᵀ` when `outer_iters = 0`.
    pub g: Mat<f64>,
    /// The last SMO solution on `G ⊙ K` (`coef = α∘y`, `rho`).
    pub solution: DualSolution,
    /// `H(α_t, G_t)` after round t = 0 (the plain SVM, `G = 11ᵀ`), 1, …, T.
    pub objectives: Vec<f64>,
    /// The SVM dual `1ᵀα_t − ½ α_tᵀY(G_t⊙K)Yα_t` after each round, as `objectives`.
    pub dual_objectives: Vec<f64>,
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
pub(super) const TRACE_COLUMNS: [&str; 7] = [
    "pair",
    "outer",
    "admm_iter",
    "diff",
    "beta",
    "objective",
    "dual_objective",
];

/// KNPL on one class pair by `params.scheme`: [`fit_ascent`] or Algorithm 2
/// ([`fit_alternate`]).
pub(super) fn fit_binary(
    k: MatRef<'_, f64>,
    y: &[f64],
    params: &KnplParams,
    pair: usize,
    trace: &mut Trace,
) -> Result<BinaryFit> {
    match params.scheme {
        // T = 0 is the plain SVM on K for both schemes.
        KnplScheme::Ascent if params.outer_iters > 0 => fit_ascent(k, y, params, pair, trace),
        KnplScheme::Ascent => fit_alternate(k, y, params, pair, trace),
        KnplScheme::Alternate => fit_alternate(k, y, params, pair, trace),
    }
}

/// Halvings of the ascent's line search (from its first trial step, at most 1).
const LINE_SEARCH_HALVINGS: usize = 5;

/// The ascent's G-step at `coef` (= α∘y): `G*(α)` by the closed-form projection
/// ([`psd_kernel_projection`] for a PSD base kernel, else [`exact_projection`]) and
/// `φ(α) = H(α, G*(α))`. No ADMM, so no residuals to trace.
struct GStep {
    g: Mat<f64>,
    phi: f64,
}

fn g_step(k: MatRef<'_, f64>, coef: &[f64], params: &KnplParams) -> Result<GStep> {
    let g = if params.kernel.is_positive_semidefinite() {
        psd_kernel_projection(k, coef, params.gamma)?
    } else {
        exact_projection(gamma_target(k, coef, params.gamma).as_ref())?
    };
    let phi = knpl_objective(k, g.as_ref(), coef, params.gamma);
    Ok(GStep { g, phi })
}

/// The monotone ascent of [`KnplScheme::Ascent`] for labels `y ∈ {±1}` on the base Gram
/// matrix `k`; appends to `trace` (one objective row per accepted round, `objective` =
/// `φ(α_t)`, strictly increasing; its G-steps are exact, so it has no ADMM rows). The final
/// model is `(α_T, G*(α_T))` with the bias from the KKT conditions of the SVM dual on
/// `G*(α_T) ⊙ K` at `α_T` ([`kkt_rho`]). Parameters must be validated.
pub(super) fn fit_ascent(
    k: MatRef<'_, f64>,
    y: &[f64],
    params: &KnplParams,
    pair: usize,
    trace: &mut Trace,
) -> Result<BinaryFit> {
    let n = k.nrows();
    let nan = f64::NAN;
    let ones = Mat::<f64>::from_fn(n, n, |_, _| 1.0);
    let timer = Instant::now();
    let mut sol = solve_alpha(ones.as_ref(), k, y, params, None)?;
    let mut smo_seconds = timer.elapsed().as_secs_f64();
    let mut smo_iterations = sol.iterations;
    let mut coef = sol.coef.clone();
    let mut objectives = Vec::new();
    let mut dual_objectives = Vec::new();
    // One entry per G-step, each 0: the ascent's projections take no ADMM iterations.
    let mut admm_iterations = Vec::new();
    let mut admm_seconds = 0.0;
    // The SVM dual 1ᵀα − ½cᵀ(G⊙K)c = H(α, G) − γ‖G‖²_F.
    let dual_of = |g: &Mat<f64>, phi: f64| phi - params.gamma * g.squared_norm_l2();
    let timer = Instant::now();
    let mut current = g_step(k, &coef, params)?;
    admm_seconds += timer.elapsed().as_secs_f64();
    admm_iterations.push(0);
    let record = |t: usize, s: &GStep, trace: &mut Trace| {
        let dual = dual_of(&s.g, s.phi);
        trace.push(vec![pair as f64, t as f64, 0.0, nan, nan, s.phi, dual]);
        dual
    };
    objectives.push(current.phi);
    dual_objectives.push(record(0, &current, trace));
    let mut last_step: f64 = 1.0;
    for t in 1..=params.outer_iters {
        let warm: Vec<f64> = coef.iter().map(|c| c.abs()).collect();
        let timer = Instant::now();
        let hat = solve_alpha(current.g.as_ref(), k, y, params, Some(&warm))?;
        smo_seconds += timer.elapsed().as_secs_f64();
        smo_iterations += hat.iterations;
        sol = hat;
        // Start from twice the last accepted step (at most 1): where the full step
        // overshoots (the 2-cycle regime) this saves most of the G-steps of the search.
        let mut step = (2.0 * last_step).min(1.0);
        let mut accepted = None;
        for _ in 0..=LINE_SEARCH_HALVINGS {
            let trial: Vec<f64> = coef
                .iter()
                .zip(&sol.coef)
                .map(|(a, b)| a + step * (b - a))
                .collect();
            let timer = Instant::now();
            let s = g_step(k, &trial, params)?;
            admm_seconds += timer.elapsed().as_secs_f64();
            admm_iterations.push(0);
            if s.phi > current.phi {
                accepted = Some((trial, s));
                break;
            }
            step *= 0.5;
        }
        let Some((trial, s)) = accepted else {
            break; // no step increases φ: α_t is a maximiser to the solvers' accuracy
        };
        last_step = step;
        let gain = s.phi - current.phi;
        let scale = current.phi.abs().max(1.0);
        coef = trial;
        current = s;
        objectives.push(current.phi);
        dual_objectives.push(record(t, &current, trace));
        if gain <= params.ascent_tol * scale {
            break;
        }
    }
    // The final model: α_T on G*(α_T) ⊙ K, bias by the KKT conditions there.
    sol.rho = kkt_rho(current.g.as_ref(), k, y, &coef, params.c);
    sol.objective = -*dual_objectives.last().unwrap_or(&nan);
    sol.n_support = coef.iter().filter(|c| **c != 0.0).count();
    sol.coef = coef;
    Ok(BinaryFit {
        g: current.g,
        solution: sol,
        objectives,
        dual_objectives,
        admm_iterations,
        smo_iterations,
        admm_seconds,
        smo_seconds,
    })
}

/// LIBSVM's offset ρ for coefficients `coef` (= α∘y) of the C-SVC dual on `G ⊙ K`: with
/// `f_i = Σ_j coef_j G_ij K_ij` and `v_i = f_i − y_i`, the mean of `v_i` over free points
/// (`0 < α_i < C`), else the midpoint of the KKT bounds (`α_i = 0`: `ρ ≤ v_i` for
/// y = +1, `ρ ≥ v_i` for y = −1; `α_i = C` the reverse).
fn kkt_rho(g: MatRef<'_, f64>, k: MatRef<'_, f64>, y: &[f64], coef: &[f64], c: f64) -> f64 {
    let n = y.len();
    let support: Vec<usize> = (0..n).filter(|&j| coef[j] != 0.0).collect();
    let (mut free_sum, mut free_n) = (0.0, 0usize);
    let (mut ub, mut lb) = (f64::INFINITY, f64::NEG_INFINITY);
    let at_bound = 1e-12 * c.max(1.0);
    for i in 0..n {
        let f: f64 = support
            .iter()
            .map(|&j| coef[j] * g[(i, j)] * k[(i, j)])
            .sum();
        let v = f - y[i];
        let a = coef[i].abs();
        if a > at_bound && a < c - at_bound {
            free_sum += v;
            free_n += 1;
        } else if (a <= at_bound) == (y[i] > 0.0) {
            ub = ub.min(v);
        } else {
            lb = lb.max(v);
        }
    }
    match (free_n, ub.is_finite(), lb.is_finite()) {
        (1.., _, _) => free_sum / free_n as f64,
        (0, true, true) => 0.5 * (ub + lb),
        (0, true, false) => ub,
        (0, false, true) => lb,
        _ => 0.0,
    }
}

/// Algorithm 2 for labels `y ∈ {±1}` on the base Gram matrix `k`; appends to `trace`
/// (tagged with `pair`). Parameters must be validated.
pub(super) fn fit_alternate(
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
    let mut dual_objectives = Vec::with_capacity(params.outer_iters + 1);
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
    dual_objectives.push(-sol.objective);
    for t in 1..=params.outer_iters {
        let timer = Instant::now();
        let target = gamma_target(k, &sol.coef, params.gamma);
        let admm = admm_projection(target.as_ref(), params)?;
        admm_seconds += timer.elapsed().as_secs_f64();
        push_admm_rows(trace, pair, t, &admm.diffs, &admm.betas);
        admm_iterations.push(admm.diffs.len());
        g = relax(g, admm.g, params.g_relaxation);
        let warm: Vec<f64> = sol.coef.iter().map(|c| c.abs()).collect();
        let timer = Instant::now();
        sol = solve_alpha(g.as_ref(), k, y, params, Some(&warm))?;
        smo_seconds += timer.elapsed().as_secs_f64();
        smo_iterations += sol.iterations;
        objectives.push(record(t, &g, &sol, trace));
        dual_objectives.push(-sol.objective);
    }
    Ok(BinaryFit {
        g,
        solution: sol,
        objectives,
        dual_objectives,
        admm_iterations,
        smo_iterations,
        admm_seconds,
        smo_seconds,
    })
}

/// `(1 − ω) old + ω new` (ω = 1: `new`).
/// One trace row per ADMM iteration of outer round `t` of class pair `pair`: its primal
/// change and penalty (the SMO columns are NaN).
fn push_admm_rows(trace: &mut Trace, pair: usize, t: usize, diffs: &[f64], betas: &[f64]) {
    for (i, (d, b)) in diffs.iter().zip(betas).enumerate() {
        trace.push(vec![
            pair as f64,
            t as f64,
            (i + 1) as f64,
            *d,
            *b,
            f64::NAN,
            f64::NAN,
        ]);
    }
}

fn relax(old: Mat<f64>, new: Mat<f64>, w: f64) -> Mat<f64> {
    if w == 1.0 {
        return new;
    }
    Mat::from_fn(old.nrows(), old.ncols(), |i, j| {
        (1.0 - w) * old[(i, j)] + w * new[(i, j)]
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::{params, sine_data, three_classes};
    use super::super::KnplModel;
    use super::*;
    use crate::kernel::FeatureKernel;
    use crate::svm::{SvmModel, SvmParams};

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

    /// The ascent increases `φ(α) = H(α, G*(α))` at every recorded round, even for the
    /// small γ at which Algorithm 2 falls into a 2-cycle, and the recorded values are
    /// `H` at the final (α, G).
    #[test]
    fn ascent_is_monotone_where_the_alternation_cycles() {
        let (x, y) = sine_data(50, 21);
        for gamma in [1e-3, 1e-2, 1.0] {
            let p = KnplParams {
                outer_iters: 8,
                ascent_tol: 1e-9,
                ..params(gamma)
            };
            assert_eq!(p.scheme, KnplScheme::Ascent);
            let k = p.kernel.gram(&x).unwrap();
            let fit = fit_binary(k.as_ref(), &y, &p, 0, &mut Trace::new(&TRACE_COLUMNS)).unwrap();
            assert!(fit.objectives.len() >= 2, "γ = {gamma}: no round accepted");
            for w in fit.objectives.windows(2) {
                assert!(w[1] > w[0], "γ = {gamma}: {:?}", fit.objectives);
            }
            let h = knpl_objective(k.as_ref(), fit.g.as_ref(), &fit.solution.coef, gamma);
            let last = *fit.objectives.last().unwrap();
            assert!(
                (h - last).abs() <= 1e-9 * last.abs().max(1.0),
                "{h} vs {last}"
            );
            // α stays feasible: 0 ≤ α ≤ C and Σ α_i y_i = 0 (coef = α∘y)
            let sum: f64 = fit.solution.coef.iter().sum();
            assert!(sum.abs() < 1e-8, "{sum}");
            for (c, yi) in fit.solution.coef.iter().zip(&y) {
                assert!(c * yi >= -1e-12 && c * yi <= p.c + 1e-12, "{c}");
            }
        }
        // The published alternation is still there, and cycles at the small γ.
        let p = KnplParams {
            outer_iters: 8,
            scheme: KnplScheme::Alternate,
            ..params(1e-3)
        };
        let k = p.kernel.gram(&x).unwrap();
        let fit = fit_binary(k.as_ref(), &y, &p, 0, &mut Trace::new(&TRACE_COLUMNS)).unwrap();
        assert_eq!(fit.objectives.len(), 9);
    }

    #[test]
    fn relaxation_averages_the_new_g_with_the_old() {
        let (x, y) = sine_data(30, 13);
        let p = KnplParams {
            outer_iters: 1,
            g_relaxation: 0.25,
            scheme: KnplScheme::Alternate,
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
}
