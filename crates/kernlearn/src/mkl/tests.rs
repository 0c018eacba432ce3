//! Multiple kernel learning checked against independent computations on the crate's
//! internals (the base-kernel bank, the MWUMKL and Gilbert solvers, EasyMKL's KOMD step):
//! UNIFORM against the SVM on the explicitly averaged Gram matrix, MWUMKL and Gilbert
//! against the SVM's margin, EasyMKL's weights against a generic QP solver (clarabel).
//! The checks through the public API are in `tests/mkl.rs`.

use super::spggmkl::{self, GmklRegulariser, SpgGmklParams};
use super::EasyMklParams;
use super::{easymkl, mwumkl};
use super::{MklMethod, MklModel, MklParams, MwumklParams, UniformParams};
use crate::bank::{solve_gilbert, GilbertSettings, KernelBank, KernelFamily};
use crate::data::{read_csv, Dataset, Features, ScaleMode, Scaler};
use crate::kernel::{normalize_trace, Kernel, PrecomputedKernel};
use crate::multiclass::class_groups;
use crate::svm::{solve_c_svc, SolverSettings, SvmModel, SvmParams};
use crate::trace::Trace;
use clarabel::algebra::CscMatrix;
use clarabel::solver::{DefaultSettings, DefaultSolver, IPSolver, NonnegativeConeT, ZeroConeT};
use std::path::Path;

/// A data set of the repository's `data/`, scaled to [0, 1], the first `n` rows.
fn data(name: &str, n: usize) -> (Features, Vec<f64>) {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../data")
        .join(name);
    let d: Dataset = read_csv(&p, None).unwrap();
    let idx: Vec<usize> = (0..n.min(d.len())).collect();
    let d = d.subset(&idx);
    let x = Scaler::fit(ScaleMode::ZeroOne, &d.x)
        .transform(&d.x)
        .unwrap();
    (x, d.y)
}

/// `Σ_i w_i K̄_i` built the slow way: every Gram matrix, trace-normalised.
fn explicit_combination(family: &KernelFamily, x: &Features, w: &[f64]) -> faer::Mat<f64> {
    let n = x.n_rows();
    let mut sum = faer::Mat::<f64>::zeros(n, n);
    for (i, k) in family.expand(x.n_cols()).unwrap().iter().enumerate() {
        let mut g = k.gram(x).unwrap();
        normalize_trace(&mut g).unwrap();
        sum += faer::Scale(w[i]) * &g;
    }
    sum
}

/// A kernel's weight goes to the features it reads, split equally: with equal weights
/// on `linear@all` and `rbf@[0]`, feature 0 gets `½ + ½/d` and each other `½/d`. UNIFORM,
/// whose equal weights say nothing of the features, reports no relevance.
#[test]
fn mkl_relevance_splits_each_kernels_weight_over_its_features() {
    use crate::predictor::Predictor;
    let d = 13;
    let family: KernelFamily = "linear@all;rbf(gamma=1)@[0]".parse().unwrap();
    let kernels = family.expand(d).unwrap();
    let r = super::model::relevance_of(&kernels, d, std::iter::once(&[0.5, 0.5][..])).unwrap();
    let df = d as f64;
    assert!((r[0] - (0.5 + 0.5 / df)).abs() < 1e-12, "{r:?}");
    assert!(r[1..].iter().all(|v| (v - 0.5 / df).abs() < 1e-12), "{r:?}");
    let (x, y) = data("heart.csv", 120);
    let params = MklParams {
        method: MklMethod::Uniform(UniformParams {
            c: 1.0,
            ..Default::default()
        }),
        family: "family12@each".parse().unwrap(),
    };
    let model = MklModel::fit(&params, &x, &y).unwrap();
    assert!(model.near_uniform());
    assert_eq!((&model as &dyn Predictor).feature_relevance(), None);
    assert!(model.warnings().is_empty(), "{:?}", model.warnings());
}

/// `x` with `k` columns of seeded U(0, 1) noise appended.
fn with_noise(x: &Features, k: usize, seed: u64) -> Features {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let rows: Vec<Vec<f64>> = (0..x.n_rows())
        .map(|i| {
            let mut row = x.row(i).to_vec();
            row.extend((0..k).map(|_| rng.random::<f64>()));
            row
        })
        .collect();
    Features::from_rows(&rows).unwrap()
}

/// Sparse MWUMKL (the default) puts most of the weight on the kernels of heart's 13
/// columns among 26 more of noise; the thesis's one dense game at ε = 0.2 leaves the
/// weights within 0.1 of uniform, which the model says (a warning, `near_uniform`, no
/// relevance) instead of reporting equal shares.
#[test]
fn sparse_mwumkl_finds_the_real_columns_and_near_uniform_weights_say_so() {
    use crate::predictor::Predictor;
    let (x, y) = data("heart.csv", 150);
    let d = x.n_cols();
    let x = with_noise(&x, 2 * d, 7);
    let fit = |p: MwumklParams| {
        let params = MklParams {
            method: MklMethod::Mwumkl(p),
            family: "family12@each".parse().unwrap(),
        };
        MklModel::fit(&params, &x, &y).unwrap()
    };
    let sparse = fit(MwumklParams {
        c: Some(1.0),
        ..Default::default()
    });
    let weights = &sparse.machines.machines[0].weights;
    let kept = weights.iter().filter(|&&w| w > 0.0).count();
    assert!(
        kept < weights.len() / 4,
        "{kept} of {} kernels kept",
        weights.len()
    );
    let relevance = (&sparse as &dyn Predictor).feature_relevance().unwrap();
    let real: f64 = relevance[..d].iter().sum();
    assert!(real >= 0.6, "share on the real columns {real}");
    assert!(!sparse.near_uniform() && sparse.warnings().is_empty());
    let dense = fit(MwumklParams {
        epsilon: 0.2,
        c: Some(1.0),
        prune: false,
        ..Default::default()
    });
    assert!(dense.near_uniform());
    assert_eq!((&dense as &dyn Predictor).feature_relevance(), None);
    let warnings = dense.warnings();
    assert!(
        warnings.iter().any(|w| w.contains("within 0.1 of uniform")),
        "{warnings:?}"
    );
}

#[test]
fn uniform_equals_the_svm_on_the_averaged_gram_matrix() {
    let (x, y) = data("heart.csv", 270);
    let family: KernelFamily = "family12@each".parse().unwrap();
    let m = family.len(x.n_cols());
    let params = MklParams {
        method: MklMethod::Uniform(UniformParams {
            c: 2.0,
            ..Default::default()
        }),
        family: family.clone(),
    };
    let model = MklModel::fit(&params, &x, &y).unwrap();
    let avg = explicit_combination(&family, &x, &vec![1.0 / m as f64; m]);
    let gram = PrecomputedKernel::new(avg.as_ref()).unwrap();
    let svm_params = SvmParams {
        kernel: Kernel::Precomputed,
        c: 2.0,
        ..Default::default()
    };
    let svm = SvmModel::fit_source(&svm_params, &gram, &y).unwrap();
    let machine = &model.machines.machines[0];
    // The pair's machine numbers its points class by class (one-vs-one order).
    let (_, members) = class_groups(&y);
    let order: Vec<usize> = members.concat();
    let mut ours: Vec<usize> = machine.sv_indices.iter().map(|&t| order[t]).collect();
    let mut svs = svm.sv_indices.clone();
    ours.sort_unstable();
    svs.sort_unstable();
    assert_eq!(ours, svs);
    let rel =
        (machine.info.objective - svm.info.objectives[0]).abs() / svm.info.objectives[0].abs();
    assert!(
        rel < 1e-6,
        "objective {} vs {}",
        machine.info.objective,
        svm.info.objectives[0]
    );
    // Decision values on the training points: kernel rows from the Gram matrix.
    let rows = Features::new(
        270,
        270,
        (0..270)
            .flat_map(|i| (0..270).map(move |j| (i, j)))
            .map(|(i, j)| avg[(i, j)])
            .collect(),
    )
    .unwrap();
    let mut svm_full = svm.clone();
    svm_full.n_features = 270;
    let expected = svm_full.decision_function(&rows).unwrap();
    let got = model.decision_function(&x).unwrap();
    for (e, g) in expected.iter().zip(&got) {
        assert!((e[0] - g[0]).abs() < 1e-4, "{} vs {}", e[0], g[0]);
    }
    for w in model.weights() {
        assert!(w.iter().all(|&v| (v - 1.0 / m as f64).abs() < 1e-15));
    }
}

/// `1 / Σα` of the hard-margin SVM on `K̄ + I/C`: the squared half-distance of the hulls.
fn svm_margin(bank: &KernelBank, y: &[f64], c: f64) -> f64 {
    let n = y.len();
    let mut k = explicit_combination(&single_family(), bank.points(), &[1.0]);
    for i in 0..n {
        k[(i, i)] += 1.0 / c;
    }
    let src = PrecomputedKernel::new(k.as_ref()).unwrap();
    let settings = SolverSettings {
        tol: 1e-8,
        ..Default::default()
    };
    let sol = solve_c_svc(&src, y, 1e9, 1e9, &settings, None).unwrap();
    1.0 / sol.coef.iter().map(|v| v.abs()).sum::<f64>()
}

fn single_family() -> KernelFamily {
    "rbf(sigma=1)".parse().unwrap()
}

#[test]
fn mwumkl_on_one_kernel_reaches_the_svm_margin_within_epsilon() {
    let (x, y) = data("sonar.csv", 208);
    let bank = KernelBank::new(&single_family(), &x).unwrap();
    let c = 1.0;
    let best = svm_margin(&bank, &y, c);
    for eps in [0.2, 0.05] {
        let p = MwumklParams {
            epsilon: eps,
            c: Some(c),
            ..Default::default()
        };
        let sol = mwumkl::solve(&bank, &y, &p).unwrap();
        assert_eq!(sol.weights, vec![1.0]);
        // ᾱ ∈ Δ: the objective can only be above the optimum.
        assert!(
            sol.objective >= best * (1.0 - 1e-9),
            "{} < {best}",
            sol.objective
        );
        assert!(
            sol.objective <= best * (1.0 + eps),
            "ε = {eps}: {} vs SVM {best}",
            sol.objective
        );
    }
    // Gilbert (line search) certifies its own gap.
    let settings = GilbertSettings {
        epsilon: 1e-2,
        ridge: 1.0 / c,
        ..Default::default()
    };
    let src = bank.combined(&[1.0]).unwrap();
    let sol = solve_gilbert(&src, &y, &settings).unwrap();
    assert!(!sol.hit_max_iter);
    let f = -0.5 / sol.objective;
    assert!(
        f >= best * (1.0 - 1e-6) && f <= best / (1.0 - 1e-2) * (1.0 + 1e-6),
        "{f} vs {best}"
    );
    // Same classifier as the SVM on the training points (up to the approximation).
    let svm_params = SvmParams {
        kernel: Kernel::Precomputed,
        c: 1e9,
        ..Default::default()
    };
    let mut k = explicit_combination(&single_family(), &x, &[1.0]);
    for i in 0..208 {
        k[(i, i)] += 1.0 / c;
    }
    let svm = SvmModel::fit_source(
        &svm_params,
        &PrecomputedKernel::new(k.as_ref()).unwrap(),
        &y,
    )
    .unwrap();
    let rho_rel = (sol.rho - svm.rho[0]).abs() / svm.rho[0].abs().max(1.0);
    assert!(rho_rel < 0.05, "rho {} vs SVM {}", sol.rho, svm.rho[0]);
    // A cache of two rows (evicting at almost every step) walks the same path.
    let tiny = solve_gilbert(
        &src,
        &y,
        &GilbertSettings {
            cache_bytes: 0,
            ..settings
        },
    )
    .unwrap();
    assert_eq!(tiny.iterations, sol.iterations);
    assert_eq!(tiny.coef, sol.coef);
    assert_eq!(tiny.rho, sol.rho);
}

/// EasyMKL's KOMD problem and weights with a generic QP solver on explicit matrices.
#[test]
fn easymkl_weights_match_a_direct_computation() {
    let (x, y) = data("sonar.csv", 208);
    let idx: Vec<usize> = (0..208).step_by(5).collect();
    let (x, y) = (
        x.select_rows(&idx),
        idx.iter().map(|&i| y[i]).collect::<Vec<_>>(),
    );
    let n = y.len();
    let family: KernelFamily =
        "rbf(sigma=1);rbf(sigma=4)@[0,1,2];poly(degree=2,gamma=1,coef0=1)@[10,11];linear@[30]"
            .parse()
            .unwrap();
    let lambda = 0.2;
    let m = family.len(x.n_cols());
    let grams: Vec<faer::Mat<f64>> = (0..m)
        .map(|r| {
            let mut w = vec![0.0; m];
            w[r] = 1.0;
            explicit_combination(&family, &x, &w)
        })
        .collect();
    // min (1−λ)γᵀY K Y γ + λ‖γ‖², γ ≥ 0, Σ_{+}γ = Σ_{−}γ = 1, K the average kernel.
    let p: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| {
                    let k: f64 = grams.iter().map(|g| g[(i, j)]).sum::<f64>() / m as f64;
                    2.0 * ((1.0 - lambda) * y[i] * y[j] * k + if i == j { lambda } else { 0.0 })
                })
                .collect()
        })
        .collect();
    let mut a: Vec<Vec<f64>> = vec![
        y.iter().map(|&v| if v > 0.0 { 1.0 } else { 0.0 }).collect(),
        y.iter().map(|&v| if v < 0.0 { 1.0 } else { 0.0 }).collect(),
    ];
    for i in 0..n {
        let mut row = vec![0.0; n];
        row[i] = -1.0;
        a.push(row);
    }
    let mut b = vec![1.0, 1.0];
    b.extend(vec![0.0; n]);
    let pm = CscMatrix::from(&p).to_triu();
    let am = CscMatrix::from(&a);
    let cones = [ZeroConeT(2), NonnegativeConeT(n)];
    let settings = DefaultSettings {
        verbose: false,
        tol_gap_abs: 1e-12,
        tol_gap_rel: 1e-12,
        tol_feas: 1e-12,
        ..Default::default()
    };
    let mut solver = DefaultSolver::new(&pm, &vec![0.0; n], &am, &b, &cones, settings).unwrap();
    solver.solve();
    let gamma = solver.solution.x.clone();
    let d: Vec<f64> = grams
        .iter()
        .map(|g| {
            (0..n)
                .map(|i| {
                    (0..n)
                        .map(|j| gamma[i] * y[i] * g[(i, j)] * y[j] * gamma[j])
                        .sum::<f64>()
                })
                .sum()
        })
        .collect();
    let total: f64 = d.iter().sum();
    let expected: Vec<f64> = d.iter().map(|v| v / total).collect();

    let params = EasyMklParams {
        lambda,
        solver: SolverSettings {
            tol: 1e-8,
            ..Default::default()
        },
    };
    let machine =
        easymkl::fit_binary(&family, &KernelBank::new(&family, &x).unwrap(), &y, &params).unwrap();
    for (r, (g, e)) in machine.weights.iter().zip(&expected).enumerate() {
        assert!((g - e).abs() < 1e-5, "kernel {r}: {g} vs {e}");
    }
    // The KOMD solution itself, through the library's solver.
    let bank = KernelBank::new(&family, &x).unwrap();
    let avg = bank.combined(&vec![1.0 / m as f64; m]).unwrap();
    let (g_lib, _, _) = easymkl::komd(&avg, &y, lambda, &params.solver).unwrap();
    for (a, b) in g_lib.iter().zip(&gamma) {
        assert!((a - b).abs() < 1e-5, "γ {a} vs {b}");
    }
}

/// SPG-GMKL's kernels on heart: linear, two Gaussians and a quadratic, all features.
fn gmkl_family() -> KernelFamily {
    "linear@all;rbf(gamma=0.05)@all;rbf(gamma=2)@all;poly(degree=2,gamma=0.5,coef0=1)@all"
        .parse()
        .unwrap()
}

/// `∂W/∂d_k = −½ βᵀ K̄_k β` (`β = y α`) from explicit trace-normalised Gram matrices.
fn explicit_svm_gradient(family: &KernelFamily, x: &Features, coef: &[f64]) -> Vec<f64> {
    let m = family.len(x.n_cols());
    (0..m)
        .map(|k| {
            let mut w = vec![0.0; m];
            w[k] = 1.0;
            let g = explicit_combination(family, x, &w);
            let mut q = 0.0;
            for i in 0..coef.len() {
                for j in 0..coef.len() {
                    q += coef[i] * g[(i, j)] * coef[j];
                }
            }
            -0.5 * q
        })
        .collect()
}

fn spg(reg: GmklRegulariser, c: f64) -> SpgGmklParams {
    SpgGmklParams {
        c,
        regulariser: reg,
        ..SpgGmklParams::default()
    }
}

/// The L1 weights satisfy the KKT conditions of `min_{d ∈ simplex} W(d)`: with the
/// gradient recomputed from explicit Gram matrices, every kernel with weight > 0 has
/// the smallest gradient component (within 1e-3 of the gradient's scale), which every
/// other kernel's is at least.
#[test]
fn spg_gmkl_l1_weights_satisfy_the_kkt_conditions() {
    let (x, y) = data("heart.csv", 160);
    let family = gmkl_family();
    let bank = KernelBank::new(&family, &x).unwrap();
    let mut trace = Trace::new(&spggmkl::TRACE_COLUMNS);
    let params = spg(GmklRegulariser::L1, 4.0);
    let sol = spggmkl::solve(&bank, (&y, None), &params, 0, &mut trace).unwrap();
    assert!(!sol.hit_max_iter, "{} iterations", sol.iterations);
    assert!((sol.weights.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    assert!(sol.weights.iter().all(|&w| w >= 0.0));
    let g = explicit_svm_gradient(&family, &x, &sol.svm.coef);
    let scale = g.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for (a, b) in g.iter().zip(&sol.gradient) {
        assert!((a - b).abs() < 1e-5 * scale, "{g:?} vs {:?}", sol.gradient);
    }
    let least = g.iter().cloned().fold(f64::INFINITY, f64::min);
    let active: Vec<usize> = (0..g.len()).filter(|&k| sol.weights[k] > 1e-8).collect();
    assert!(!active.is_empty());
    for &k in &active {
        assert!(
            g[k] - least <= 1e-3 * scale,
            "kernel {k}: {g:?}, d = {:?}",
            sol.weights
        );
    }
    // A non-trivial combination: not the uniform start.
    assert!(
        sol.weights.iter().any(|&w| (w - 0.25).abs() > 0.05),
        "{:?}",
        sol.weights
    );
    // The trace starts at the uniform weights and records each iteration.
    assert_eq!(trace.rows.len(), sol.iterations + 1);
    let objective = trace.column("objective").unwrap();
    assert!(objective.last().unwrap() <= &objective[0]);
}

/// The p-norm weights satisfy the KKT conditions of `min_{d ≥ 0} (λ/p)Σd^p + W(d)`:
/// `∂T/∂d_k = λ d_k^{p−1} − ½ βᵀK̄_kβ` is zero where `d_k > 0` and non-negative elsewhere.
#[test]
fn spg_gmkl_pnorm_weights_satisfy_the_kkt_conditions() {
    let (x, y) = data("heart.csv", 160);
    let family = gmkl_family();
    let bank = KernelBank::new(&family, &x).unwrap();
    let mut trace = Trace::new(&spggmkl::TRACE_COLUMNS);
    let (p, lambda) = (2.0, 50.0);
    let params = spg(GmklRegulariser::PNorm { p, lambda }, 1.0);
    let sol = spggmkl::solve(&bank, (&y, None), &params, 0, &mut trace).unwrap();
    assert!(!sol.hit_max_iter);
    let g: Vec<f64> = explicit_svm_gradient(&family, &x, &sol.svm.coef)
        .iter()
        .zip(&sol.weights)
        .map(|(w, d)| w + lambda * d.powf(p - 1.0))
        .collect();
    let scale = sol.gradient.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    for (k, (&gk, &dk)) in g.iter().zip(&sol.weights).enumerate() {
        if dk > 1e-8 {
            assert!(
                gk.abs() < 1e-3 * scale,
                "kernel {k}: {g:?}, d = {:?}",
                sol.weights
            );
        } else {
            assert!(
                gk > -1e-3 * scale,
                "kernel {k}: {g:?}, d = {:?}",
                sol.weights
            );
        }
    }
    assert!(sol.weights.iter().filter(|&&d| d > 0.0).count() >= 2);
}

/// On three kernels the L1 objective matches an independent search: the SVM dual
/// optimum by SMO at every point of a 0.05 grid on the simplex gives an upper bound on
/// `min W`, and the largest of the linearisations `W(d_g) + ∇W(d_g)ᵀ(d − d_g)` (convexity)
/// minimised over the simplex a lower bound; SPG-GMKL's objective lies between them.
#[test]
fn spg_gmkl_objective_matches_a_grid_over_the_simplex() {
    let (x, y) = data("heart.csv", 120);
    let family: KernelFamily = "linear@all;rbf(gamma=0.05)@all;rbf(gamma=2)@all"
        .parse()
        .unwrap();
    let bank = KernelBank::new(&family, &x).unwrap();
    let c = 2.0;
    let mut trace = Trace::new(&spggmkl::TRACE_COLUMNS);
    let sol = spggmkl::solve(
        &bank,
        (&y, None),
        &spg(GmklRegulariser::L1, c),
        0,
        &mut trace,
    )
    .unwrap();
    let settings = SolverSettings {
        tol: 1e-6,
        ..SolverSettings::default()
    };
    let (mut upper, mut lower) = (f64::INFINITY, f64::NEG_INFINITY);
    let steps = 20;
    for i in 0..=steps {
        for j in 0..=steps - i {
            let d = [i, j, steps - i - j].map(|v| v as f64 / steps as f64);
            let src = bank.combined(&d).unwrap();
            let svm = solve_c_svc(&src, &y, c, c, &settings, None).unwrap();
            let w = -svm.objective;
            let alpha: Vec<f64> = svm.coef.iter().map(|v| v.abs()).collect();
            let g: Vec<f64> = easymkl::kernel_margins(&bank, &y, &alpha)
                .iter()
                .map(|q| -0.5 * q)
                .collect();
            let gd: f64 = g.iter().zip(&d).map(|(a, b)| a * b).sum();
            let least = g.iter().cloned().fold(f64::INFINITY, f64::min);
            upper = upper.min(w);
            lower = lower.max(w - gd + least);
        }
    }
    let t = sol.objective;
    let tol = 1e-4 * t.abs();
    assert!(t <= upper + tol, "SPG {t} above the grid's best {upper}");
    assert!(t >= lower - tol, "SPG {t} below the lower bound {lower}");
    assert!(
        upper - lower < 0.05 * t.abs(),
        "a loose check: [{lower}, {upper}]"
    );
}

/// SPG-GMKL through the catalogue: bad options are errors that name the option, a fit
/// stopped by its iteration cap warns, the trace is returned, multiclass is one-vs-one.
#[test]
fn spg_gmkl_options_errors_warnings_and_multiclass() {
    use crate::learner::Method;
    use crate::method::MethodKind;
    use crate::options::MethodOptions;
    let (x, y) = data("wine.csv", 178);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/wine.csv");
    let mut wine: Dataset = read_csv(&path, None).unwrap();
    wine.x = x.clone();
    let build = |pairs: &[(&str, &str)]| {
        let mut o = MethodOptions::default();
        for (k, v) in pairs {
            o.set(k, v)?;
        }
        Method::build("spg-gmkl".parse::<MethodKind>().unwrap(), &o, &wine, None)
    };
    let kernels = ("kernels", "linear@all;rbf(gamma=0.5)@all");
    for (bad, name) in [
        (vec![kernels, ("gmkl-p", "3")], "gmkl-p"),
        (
            vec![kernels, ("gmkl-reg", "pnorm"), ("gmkl-p", "1")],
            "gmkl-p",
        ),
        (
            vec![kernels, ("gmkl-reg", "pnorm"), ("gmkl-lambda", "-2")],
            "gmkl-lambda",
        ),
        (vec![kernels, ("gmkl-reg", "l2")], "gmkl-reg"),
        (vec![kernels, ("c", "0")], "C"),
    ] {
        let e = build(&bad).unwrap_err().to_string();
        assert!(e.contains(name), "{bad:?}: {e}");
    }
    let sigmoid = build(&[("kernels", "sigmoid(gamma=0.1,coef0=0.2);linear")]).unwrap();
    let e = sigmoid.fit(&x, &y, 1, &|_| {}).unwrap_err().to_string();
    assert!(
        e.contains("not positive semi-definite") && e.contains("SPG-GMKL"),
        "{e}"
    );

    let method = build(&[kernels]).unwrap();
    let fit = method.fit(&x, &y, 1, &|_| {}).unwrap();
    let trace = fit.trace.as_ref().expect("SPG-GMKL records a trace");
    let pairs = trace.column("pair").unwrap();
    assert_eq!(pairs.iter().cloned().fold(0.0, f64::max), 2.0); // 3 classes, 3 pairs
    let pred = fit.model.predict(&x).unwrap();
    let acc = pred.iter().zip(&y).filter(|(a, b)| a == b).count() as f64 / y.len() as f64;
    assert!(acc > 0.95, "{acc}");
    assert!(
        fit.model.warnings().is_empty(),
        "{:?}",
        fit.model.warnings()
    );

    let capped = MklParams::new(
        MklMethod::SpgGmkl(SpgGmklParams {
            max_iter: 1,
            ..SpgGmklParams::default()
        }),
        gmkl_family(),
    );
    let (hx, hy) = data("heart.csv", 120);
    let model = crate::learner::AnyModel::new(MklModel::fit(&capped, &hx, &hy).unwrap());
    let w = model.warnings();
    assert!(w.len() == 1 && w[0].contains("iteration cap"), "{w:?}");
    let nan = Features::new(2, 2, vec![f64::NAN, 1.0, 0.0, 1.0]).unwrap();
    assert!(MklModel::fit(&capped, &nan, &[1.0, -1.0]).is_err());
}

/// Drives MWUMKL over `cuts` shards as `kernlearn.ray.mwumkl` does (forward step on the
/// summed parts, weights from all shards' objectives); shard 0 is lost after round
/// `lose_at` and rebuilt by replay.
fn sharded_mwumkl(
    family: &KernelFamily,
    x: &Features,
    y: &[f64],
    p: &MwumklParams,
    cuts: &[usize],
    lose_at: usize,
) -> super::MwumklSolution {
    use super::{mwumkl_finish, mwumkl_kernel_weights, mwumkl_most_violating, MwumklShard};
    let shard = |w: &[usize]| MwumklShard::new(family, x, y, p, w[0]..w[1]).unwrap();
    let mut shards: Vec<MwumklShard> = cuts.windows(2).map(shard).collect();
    let n = x.n_rows();
    let rounds = p.rounds(n);
    let (mut g, mut l_ref, mut counts, mut pairs) = (vec![0.0; n], 0.0, vec![0u32; n], vec![]);
    for t in 1..=rounds {
        let (a, b) = mwumkl_most_violating(&g, y);
        counts[a] += 1;
        counts[b] += 1;
        if t == lose_at {
            // A lost worker is restarted and sent its earlier requests again, as the
            // scale-out driver does.
            shards[0] = shard(&cuts[0..2]);
            for &(a, b, l) in &pairs {
                shards[0].round(a, b, l).unwrap();
            }
        }
        pairs.push((a, b, l_ref));
        let parts: Vec<_> = shards
            .iter_mut()
            .map(|s| s.round(a, b, l_ref).unwrap())
            .collect();
        g = vec![0.0; n];
        for part in &parts {
            g.iter_mut().zip(&part.g).for_each(|(s, v)| *s += v);
        }
        l_ref = parts
            .iter()
            .map(|q| q.l_max)
            .fold(f64::NEG_INFINITY, f64::max);
    }
    let q: Vec<f64> = shards
        .iter()
        .flat_map(|s| s.objectives().to_vec())
        .collect();
    let weights = mwumkl_kernel_weights(&q, n, p);
    let mut h_mu = vec![0.0; n];
    for (s, w) in shards.iter().zip(cuts.windows(2)) {
        let part = s.weighted_sum(&weights[w[0]..w[1]]).unwrap();
        h_mu.iter_mut().zip(&part).for_each(|(a, v)| *a += v);
    }
    mwumkl_finish(y, weights, &q, &h_mu, &counts, rounds)
}

#[test]
fn mwumkl_over_shards_equals_the_single_process_fit_even_after_a_lost_shard() {
    let (x, y) = data("heart.csv", 150);
    let y: Vec<f64> = y
        .iter()
        .map(|&v| if v == y[0] { 1.0 } else { -1.0 })
        .collect();
    let family: KernelFamily = "family12@each".parse().unwrap();
    let m = family.len(x.n_cols());
    // The distributed fit plays the thesis's one dense game.
    let p = MwumklParams {
        epsilon: 0.2,
        c: Some(1.0),
        prune: false,
        ..Default::default()
    };
    let bank = KernelBank::new(&family, &x).unwrap();
    let single = mwumkl::solve(&bank, &y, &p).unwrap();
    let sharded = sharded_mwumkl(&family, &x, &y, &p, &[0, m / 3, m / 2, m], 7);
    assert_eq!(sharded.rounds, single.rounds);
    for (a, b) in sharded.weights.iter().zip(&single.weights) {
        assert!((a - b).abs() <= 1e-9 * b.abs().max(1e-300), "{a} vs {b}");
    }
    assert!((sharded.rho - single.rho).abs() <= 1e-9 * single.rho.abs());
    assert!((sharded.objective - single.objective).abs() <= 1e-9 * single.objective);
    assert!(super::MwumklShard::new(&family, &x, &y, &p, m..m + 1).is_err());
}

/// A selection's [`crate::bank::GramTable`] changes the speed of a fit, not its result:
/// UNIFORM, MWUMKL, EasyMKL and SPG-GMKL fitted on a subset of the table's rows (a fold's
/// training part, three classes so that each class pair is a further subset) with the
/// kernel values read from the table give bit-identical decision values to the fit that
/// evaluates them, and so do the held-out rows' predictions read from the table. That
/// holds whether the fit works on all the table's rows (its points are distinct rows,
/// [`KernelBank::table_space`], also when two of them are copies of one row that the
/// table holds twice) or gathers from them (a shuffled fold with a repeated row the table
/// holds once). A table of another family, or of other points, is not used.
#[test]
fn a_gram_table_gives_the_same_fit_bit_for_bit() {
    use crate::bank::GramTable;
    use std::sync::Arc;
    let (x, y) = data("wine.csv", 178);
    let family = table_family();
    let table = Arc::new(GramTable::new(&family, &x).unwrap());
    let held = x.select_rows(&(0..178).filter(|i| i % 5 == 2).collect::<Vec<_>>());
    let rows: Vec<usize> = (0..178).filter(|i| i % 5 != 2).collect();
    // The fold's rows in order, then shuffled with a repeated row: the fits read the
    // table in place on its rows in the first case, gather from it in the second.
    let mut shuffled: Vec<usize> = rows.iter().rev().copied().collect();
    shuffled.push(rows[3]);
    for rows in [rows, shuffled] {
        let (xt, yt) = (
            x.select_rows(&rows),
            rows.iter().map(|&i| y[i]).collect::<Vec<_>>(),
        );
        let distinct = rows.len() == rows.iter().collect::<std::collections::HashSet<_>>().len();
        let bank = KernelBank::new_with(&family, &xt, Some(&table)).unwrap();
        assert_eq!(bank.table_space().is_some(), distinct);
        same_fits_with_and_without(&table, (&xt, &yt), &x, &held);
    }
    // In a table of data with a repeated row, a fold with both copies (labelled
    // differently) has a table row for each: it works on the table's rows.
    let copied: Vec<usize> = (0..178).chain([3]).collect();
    let (xd, mut yd) = (
        x.select_rows(&copied),
        copied.iter().map(|&i| y[i]).collect::<Vec<_>>(),
    );
    yd[178] = *y.iter().find(|&&l| l != y[3]).unwrap();
    let with_copy = Arc::new(GramTable::new(&family, &xd).unwrap());
    let rows: Vec<usize> = (0..179).filter(|i| i % 5 != 2).collect();
    let (xt, yt) = (
        xd.select_rows(&rows),
        rows.iter().map(|&i| yd[i]).collect::<Vec<_>>(),
    );
    let bank = KernelBank::new_with(&family, &xt, Some(&with_copy)).unwrap();
    assert!(bank.table_space().is_some());
    // So does the class pair of the two copies' labels (a one-vs-one machine's points).
    let pair: Vec<usize> = (0..yt.len())
        .filter(|&j| yt[j] == y[3] || yt[j] == yd[178])
        .collect();
    let pair_bank = KernelBank::new_with(&family, &xt.select_rows(&pair), Some(&with_copy));
    assert!(pair_bank.unwrap().table_space().is_some());
    same_fits_with_and_without(&with_copy, (&xt, &yt), &xd, &held);
    // A table that does not cover the rows, or holds another family, is ignored.
    let rows: Vec<usize> = (0..178).filter(|i| i % 5 != 2).collect();
    let (xt, yt) = (
        x.select_rows(&rows),
        rows.iter().map(|&i| y[i]).collect::<Vec<_>>(),
    );
    let other: KernelFamily = "rbf(sigma=1)".parse().unwrap();
    let params = MklParams::new(MklMethod::Uniform(UniformParams::default()), other.clone());
    let plain = MklModel::fit(&params, &xt, &yt).unwrap();
    let tabled = MklModel::fit_with_table(&params, &xt, &yt, None, Some(&table))
        .unwrap()
        .0;
    assert_eq!(plain, tabled);
    let head = Arc::new(GramTable::new(&family, &x.select_rows(&[0, 1, 2])).unwrap());
    let bank = KernelBank::new_with(&family, &xt, Some(&head)).unwrap();
    assert!(bank.table_space().is_none());
    let mut a = vec![0.0; xt.n_rows()];
    let mut b = vec![0.0; xt.n_rows()];
    bank.raw_point_column(5, 7, &mut a);
    a.iter_mut().for_each(|v| *v *= bank.factors()[5]);
    bank.column(5, xt.row(7), &mut b);
    assert_eq!(a, b);
}

/// UNIFORM, MWUMKL, EasyMKL and SPG-GMKL on `(xt, yt)` with and without `table` (which holds the
/// rows of `x`): the same decision values on `x`, and on `held` read from the table.
fn same_fits_with_and_without(
    table: &std::sync::Arc<crate::bank::GramTable>,
    (xt, yt): (&Features, &[f64]),
    x: &Features,
    held: &Features,
) {
    let family = table_family();
    let methods = [
        MklMethod::Uniform(UniformParams {
            c: 2.0,
            ..Default::default()
        }),
        MklMethod::Mwumkl(MwumklParams {
            c: Some(4.0),
            ..Default::default()
        }),
        MklMethod::EasyMkl(EasyMklParams::default()),
        MklMethod::SpgGmkl(SpgGmklParams {
            c: 2.0,
            ..Default::default()
        }),
    ];
    for method in methods {
        let params = MklParams::new(method, family.clone());
        let plain = MklModel::fit(&params, xt, yt).unwrap();
        let tabled = MklModel::fit_with_table(&params, xt, yt, None, Some(table))
            .unwrap()
            .0;
        assert_eq!(
            plain.decision_function(x).unwrap(),
            tabled.decision_function(x).unwrap(),
            "{}",
            plain.params.method.name()
        );
        let read = (tabled.machines)
            .decision_function_by(held.n_rows(), |m| m.decision_with(held, Some(table)))
            .unwrap();
        assert_eq!(plain.decision_function(held).unwrap(), read);
        let predicted = tabled.predict_with_table(held, Some(table)).unwrap();
        assert_eq!(plain.predict(held).unwrap(), predicted);
    }
}

fn table_family() -> KernelFamily {
    "family12@each".parse().unwrap()
}
