//! Algorithm 2 of the KNPL paper (section "Optimization for Problem (4)") on one class
//! pair: alternate the α-step (the SVM dual on `G ⊙ K` by SMO, warm-started,
//! [`solve_alpha`]) and the G-step (the ADMM projection of `Γ(α)`, relaxed by ω), for
//! `T` outer rounds ([`fit_binary`]), recording the [`Trace`] columns [`TRACE_COLUMNS`].

use super::admm::{admm_projection, gamma_target, knpl_objective};
use super::params::KnplParams;
use crate::kernel::PrecomputedKernel;
use crate::nonparametric::trace::Trace;
use crate::svm::{solve_c_svc, DualSolution};
use crate::Result;
use faer::{Mat, MatRef};
use std::time::Instant;

/// `G ⊙ K` as a [`KernelSource`](crate::kernel::KernelSource) for the SMO solver.
pub(super) fn hadamard_source(g: MatRef<'_, f64>, k: MatRef<'_, f64>) -> Result<PrecomputedKernel> {
    let n = k.nrows();
    let mut values = Vec::with_capacity(n * n);
    for i in 0..n {
        values.extend((0..n).map(|j| g[(i, j)] * k[(i, j)]));
    }
    PrecomputedKernel::from_row_major(n, n, values)
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

/// Algorithm 2 for labels `y ∈ {±1}` on the base Gram matrix `k`; appends to `trace`
/// (tagged with `pair`). Parameters must be validated.
pub(super) fn fit_binary(
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
}
