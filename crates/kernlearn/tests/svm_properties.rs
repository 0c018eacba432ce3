//! Properties of the solver and the models that hold whatever the reference: KKT
//! conditions at the solution, equivalences (cache size, shrinking, warm start,
//! precomputed kernels), save/load round trips, and clear errors for bad input.

use kernlearn::data::{Features, ScaleMode, Scaler};
use kernlearn::kernel::{FeatureKernel, Kernel, KernelSource};
use kernlearn::svm::{
    solve_c_svc, solve_epsilon_svr, solve_nu_svc, solve_one_class, CSvcPath, DualSolution,
    SolverSettings, SvmModel, SvmParams, SvmPaths, SvmType,
};
use kernlearn::AnyModel;
use kernlearn::Pipeline;

/// Two noisy Gaussian blobs in 2-D (deterministic).
fn blobs(n: usize) -> (Features, Vec<f64>) {
    let mut rows = Vec::new();
    let mut y = Vec::new();
    let mut s: u64 = 12345;
    let mut next = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((s >> 11) as f64 / (1u64 << 53) as f64) - 0.5
    };
    for i in 0..n {
        let c = if i % 2 == 0 { 1.0 } else { -1.0 };
        rows.push(vec![c * 0.6 + 2.0 * next(), c * 0.3 + 2.0 * next()]);
        y.push(c);
    }
    (Features::from_rows(&rows).unwrap(), y)
}

fn settings() -> SolverSettings {
    SolverSettings::default()
}

/// Full kernel matrix through the solver's interface.
fn kernel_matrix(src: &dyn KernelSource) -> Vec<Vec<f64>> {
    let n = src.len();
    let cols: Vec<usize> = (0..n).collect();
    (0..n)
        .map(|i| {
            let mut row = vec![0f32; n];
            src.fill_row(i, &cols, &mut row);
            row.iter().map(|&v| v as f64).collect()
        })
        .collect()
}

/// The KKT conditions of a C-SVC solution with bounds `(c_pos, c_neg)`, within `tol`:
/// `0 ≤ α ≤ C`, `yᵀα = 0`, margins `y f(x)` ≥ 1 at α = 0, ≤ 1 at α = C, = 1 in between.
fn assert_kkt(km: &[Vec<f64>], y: &[f64], sol: &DualSolution, bounds: (f64, f64), tol: f64) {
    // coef = y α; f(x_i) = Σ coef_j K_ij − rho.
    let alpha: Vec<f64> = sol.coef.iter().zip(y).map(|(c, y)| c * y).collect();
    let bound = |i: usize| if y[i] > 0.0 { bounds.0 } else { bounds.1 };
    for (i, &a) in alpha.iter().enumerate() {
        assert!((-1e-12..=bound(i) + 1e-12).contains(&a), "α_{i} = {a}");
    }
    let balance: f64 = sol.coef.iter().sum();
    assert!(balance.abs() < 1e-9, "yᵀα = {balance}");
    for i in 0..y.len() {
        let f: f64 = (0..y.len()).map(|j| sol.coef[j] * km[i][j]).sum::<f64>() - sol.rho;
        let margin = y[i] * f;
        // Free SVs on the margin, bounded ones inside it, the rest outside; within the
        // solver's tolerance (the stopping rule bounds the gap by ε).
        if alpha[i] <= 0.0 {
            assert!(margin >= 1.0 - tol, "point {i}: α = 0 but y f = {margin}");
        } else if alpha[i] >= bound(i) {
            assert!(margin <= 1.0 + tol, "point {i}: α = C but y f = {margin}");
        } else {
            assert!(
                (margin - 1.0).abs() <= tol,
                "point {i}: free but y f = {margin}"
            );
        }
    }
}

#[test]
fn c_svc_solution_satisfies_kkt_conditions() {
    let (x, y) = blobs(200);
    let k = Kernel::rbf_gamma(0.5).unwrap();
    let src = FeatureKernel::new(&k, &x).unwrap();
    let c = 2.0;
    let tol = 1e-3;
    let sol = solve_c_svc(&src, &y, c, c, &settings(), None).unwrap();
    let km = kernel_matrix(&src);
    assert_kkt(&km, &y, &sol, (c, c), tol);
    let alpha: Vec<f64> = sol.coef.iter().zip(&y).map(|(c, y)| c * y).collect();
    // Dual objective ½ αᵀQα − 1ᵀα recomputed from scratch.
    let quad: f64 = (0..y.len())
        .map(|i| {
            (0..y.len())
                .map(|j| sol.coef[i] * sol.coef[j] * km[i][j])
                .sum::<f64>()
        })
        .sum();
    let obj = 0.5 * quad - alpha.iter().sum::<f64>();
    assert!((obj - sol.objective).abs() < 1e-6 * obj.abs().max(1.0));
}

#[test]
fn tiny_cache_and_no_shrinking_reach_the_same_solution() {
    let (x, y) = blobs(300);
    let k = Kernel::rbf_gamma(1.0).unwrap();
    let src = FeatureKernel::new(&k, &x).unwrap();
    let reference = solve_c_svc(&src, &y, 1.0, 1.0, &settings(), None).unwrap();
    let mut tiny = settings();
    tiny.cache_bytes = 0; // clamped to two rows
    let same = solve_c_svc(&src, &y, 1.0, 1.0, &tiny, None).unwrap();
    assert_eq!(
        same.coef, reference.coef,
        "cache size must not change the path"
    );
    let mut no_shrink = settings();
    no_shrink.shrinking = false;
    let other = solve_c_svc(&src, &y, 1.0, 1.0, &no_shrink, None).unwrap();
    let rel = (other.objective - reference.objective).abs() / reference.objective.abs();
    assert!(rel < 1e-3, "objective differs by {rel}");
}

#[test]
fn warm_start_from_smaller_c_converges_to_the_same_optimum() {
    let (x, y) = blobs(300);
    let k = Kernel::rbf_gamma(1.0).unwrap();
    let src = FeatureKernel::new(&k, &x).unwrap();
    let small = solve_c_svc(&src, &y, 0.5, 0.5, &settings(), None).unwrap();
    let alpha: Vec<f64> = small.coef.iter().zip(&y).map(|(c, y)| c * y).collect();
    let cold = solve_c_svc(&src, &y, 4.0, 4.0, &settings(), None).unwrap();
    let warm = solve_c_svc(&src, &y, 4.0, 4.0, &settings(), Some(&alpha)).unwrap();
    let rel = (warm.objective - cold.objective).abs() / cold.objective.abs();
    assert!(
        rel < 1e-3,
        "warm {} vs cold {}",
        warm.objective,
        cold.objective
    );
    // Restarting from the optimum itself needs (almost) no work.
    let opt: Vec<f64> = cold.coef.iter().zip(&y).map(|(c, y)| c * y).collect();
    let again = solve_c_svc(&src, &y, 4.0, 4.0, &settings(), Some(&opt)).unwrap();
    assert!(
        again.iterations * 20 < cold.iterations.max(20),
        "restart from the optimum took {} iterations (cold: {})",
        again.iterations,
        cold.iterations
    );
    // An infeasible start is refused with a reason.
    let mut bad = alpha.clone();
    bad[0] += 0.25;
    let e = solve_c_svc(&src, &y, 4.0, 4.0, &settings(), Some(&bad)).unwrap_err();
    assert!(e.to_string().contains("yᵀα"), "{e}");
    bad[0] = -1.0;
    let e = solve_c_svc(&src, &y, 4.0, 4.0, &settings(), Some(&bad)).unwrap_err();
    assert!(e.to_string().contains("outside"), "{e}");
}

#[test]
fn c_svc_path_is_optimal_at_every_bound() {
    let (x, y) = blobs(300);
    let k = Kernel::rbf_gamma(1.0).unwrap();
    let src = FeatureKernel::new(&k, &x).unwrap();
    let km = kernel_matrix(&src);
    // The whole Q in memory (it fits the default cache budget) and the LRU cache (a
    // budget of 100 rows): the same values, hence the same iterations and solutions.
    let mut dense = CSvcPath::new(&src, &y, &settings()).unwrap();
    let mut rows_100 = settings();
    rows_100.cache_bytes = 100 * 300 * 4;
    let mut cached = CSvcPath::new(&src, &y, &rows_100).unwrap();
    // Bounds growing by equal factors (C along a grid), then unequally, then again.
    let bounds = [
        (0.25, 0.25),
        (1.0, 1.0),
        (2.0, 3.0),
        (4.0, 4.0),
        (64.0, 64.0),
    ];
    for (step, &(cp, cn)) in bounds.iter().enumerate() {
        let path = dense.solve(cp, cn).unwrap();
        assert_eq!(path, cached.solve(cp, cn).unwrap(), "bounds ({cp}, {cn})");
        let cold = solve_c_svc(&src, &y, cp, cn, &settings(), None).unwrap();
        if step == 0 {
            assert_eq!(path, cold, "the first solve is a cold start");
        } else {
            assert!(path.iterations < cold.iterations, "bounds ({cp}, {cn})");
        }
        assert_kkt(&km, &y, &path, (cp, cn), 1e-3);
        let rel = (path.objective - cold.objective).abs() / cold.objective.abs();
        assert!(
            rel < 1e-4,
            "bounds ({cp}, {cn}): objective differs by {rel}"
        );
    }
    let e = dense.solve(1.0, 1.0).unwrap_err().to_string();
    assert!(e.contains("growing bounds"), "{e}");
}

#[test]
fn model_path_along_c_matches_plain_fits() {
    // Three classes with labels unrelated to the features: many support vectors, three
    // class pairs, each with its own path.
    let (x, _) = blobs(240);
    let y: Vec<f64> = (0..240).map(|i| ((i * 7) % 3) as f64).collect();
    let k = Kernel::rbf_gamma(2.0).unwrap();
    let src = FeatureKernel::new(&k, &x).unwrap();
    let n = y.len();
    let cols: Vec<usize> = (0..n).collect();
    let mut rows = vec![0f32; n * n];
    for (i, row) in rows.chunks_exact_mut(n).enumerate() {
        src.fill_row(i, &cols, row);
    }
    let mut paths = SvmPaths::default();
    for (step, c) in [0.5, 2.0, 8.0].into_iter().enumerate() {
        let mut params = SvmParams::default();
        params.kernel = k.clone();
        params.c = c;
        let path = SvmModel::fit_source_path(&params, &src, &y, &mut paths).unwrap();
        let plain = SvmModel::fit_source(&params, &src, &y).unwrap();
        if step == 0 {
            assert_eq!(path, plain, "the first fit is a cold start");
        }
        assert_eq!(path.rho.len(), 3);
        for (a, b) in path.info.objectives.iter().zip(&plain.info.objectives) {
            assert!((a - b).abs() < 1e-4 * b.abs(), "C = {c}: {a} vs {b}");
        }
        // Batch decision values from kernel rows over the whole training set equal the
        // per-point ones from kernel values against the support vectors.
        let batch = path.decision_from_train_kernel(&rows, n);
        for (t, dec) in batch.iter().enumerate() {
            let k_sv: Vec<f64> = path
                .sv_indices
                .iter()
                .map(|&s| rows[t * n + s] as f64)
                .collect();
            for (a, b) in dec.iter().zip(path.decision_from_kernel(&k_sv)) {
                assert!(
                    (a - b).abs() < 1e-9 * b.abs().max(1.0),
                    "point {t}: {a} vs {b}"
                );
            }
        }
    }
    let mut nu = SvmParams::default();
    nu.svm_type = SvmType::NuSvc;
    let e = SvmModel::fit_source_path(&nu, &src, &y, &mut SvmPaths::default()).unwrap_err();
    assert!(e.to_string().contains("C-SVC"), "{e}");
}

#[test]
fn precomputed_kernel_gives_the_same_model_as_features() {
    let (x, y) = blobs(120);
    let k = Kernel::rbf_gamma(0.7).unwrap();
    let mut params = SvmParams::default();
    params.kernel = k.clone();
    params.c = 3.0;
    let direct = SvmModel::fit(&params, &x, &y).unwrap();
    let gram = k.gram(&x).unwrap();
    let n = x.n_rows();
    let g = Features::new(n, n, (0..n * n).map(|t| gram[(t / n, t % n)]).collect()).unwrap();
    let pre = SvmModel::fit(
        &{
            let mut p = params.clone();
            p.kernel = Kernel::Precomputed;
            p
        },
        &g,
        &y,
    )
    .unwrap();
    assert_eq!(pre.sv_indices, direct.sv_indices);
    assert!((pre.rho[0] - direct.rho[0]).abs() < 1e-6);
    // Test rows: kernel values against the training points.
    let (xt, _) = blobs(30);
    let cross = k.cross(&xt, &x).unwrap();
    let kt = Features::new(30, n, (0..30 * n).map(|t| cross[(t / n, t % n)]).collect()).unwrap();
    let a = direct.decision_function(&xt).unwrap();
    let b = pre.decision_function(&kt).unwrap();
    for (u, v) in a.iter().zip(&b) {
        assert!((u[0] - v[0]).abs() < 1e-5);
    }
    // A precomputed kernel of the wrong shape is refused.
    let wrong = Features::new(3, 4, vec![1.0; 12]).unwrap();
    let e = SvmModel::fit(
        &{
            let mut p = params.clone();
            p.kernel = Kernel::Precomputed;
            p
        },
        &wrong,
        &[1.0, -1.0, 1.0],
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("square") || e.to_string().contains("3×4"),
        "{e}"
    );
    let e = pre
        .decision_function(&Features::new(2, n - 1, vec![0.5; 2 * (n - 1)]).unwrap())
        .unwrap_err();
    assert!(e.to_string().contains(&format!("{n}")), "{e}");
}

#[test]
fn saved_and_reloaded_model_predicts_exactly_the_same() {
    let (x, y) = blobs(150);
    let scaler = Scaler::fit(ScaleMode::ZeroOne, &x);
    let xs = scaler.transform(&x).unwrap();
    let mut params = SvmParams::default();
    params.kernel = Kernel::rbf_gamma(2.0).unwrap();
    params.probability = true;
    let model = SvmModel::fit(&params, &xs, &y).unwrap();
    let pipeline = Pipeline::new(scaler, AnyModel::new(model), vec!["a".into(), "b".into()]);
    let dir = std::env::temp_dir().join(format!("kernlearn-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("model.json");
    pipeline.save(&path).unwrap();
    let back = Pipeline::load(&path).unwrap();
    assert_eq!(back, pipeline);
    let (xt, _) = blobs(40);
    assert_eq!(
        back.decision_function(&xt).unwrap(),
        pipeline.decision_function(&xt).unwrap()
    );
    assert_eq!(back.predict(&xt).unwrap(), pipeline.predict(&xt).unwrap());

    // Truncated and foreign files get distinct, clear errors.
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(dir.join("cut.json"), &text[..text.len() / 2]).unwrap();
    let e = Pipeline::load(&dir.join("cut.json"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("truncated"), "{e}");
    std::fs::write(dir.join("other.json"), r#"{"svm_type": "c_svc"}"#).unwrap();
    let e = Pipeline::load(&dir.join("other.json"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a kernlearn model"), "{e}");
    std::fs::write(
        dir.join("libsvm.model"),
        "svm_type c_svc\nkernel_type rbf\n",
    )
    .unwrap();
    let e = Pipeline::load(&dir.join("libsvm.model"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a kernlearn model"), "{e}");
    let newer = text.replacen("\"version\":1", "\"version\":99", 1);
    std::fs::write(dir.join("newer.json"), newer).unwrap();
    let e = Pipeline::load(&dir.join("newer.json"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("version 99"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn fit_err(params: SvmParams, x: &Features, y: &[f64]) -> String {
    SvmModel::fit(&params, x, y).unwrap_err().to_string()
}

#[test]
fn bad_parameters_are_refused_with_their_name() {
    let (x, y) = blobs(20);
    let base = SvmParams::default();
    let e = fit_err(
        {
            let mut p = base.clone();
            p.c = 0.0;
            p
        },
        &x,
        &y,
    );
    assert!(e.contains("`C`") && e.contains("> 0"), "{e}");
    let e = fit_err(
        {
            let mut p = base.clone();
            p.c = -1.0;
            p
        },
        &x,
        &y,
    );
    assert!(e.contains("`C`"), "{e}");
    for nu in [0.0, 1.5, -0.1] {
        let e = fit_err(
            {
                let mut p = base.clone();
                p.svm_type = SvmType::NuSvc;
                p.nu = nu;
                p
            },
            &x,
            &y,
        );
        assert!(e.contains("`nu`") && e.contains("(0, 1]"), "{e}");
    }
    let e = fit_err(
        {
            let mut p = base.clone();
            p.svm_type = SvmType::EpsilonSvr;
            p.epsilon = -0.1;
            p
        },
        &x,
        &y,
    );
    assert!(e.contains("`epsilon`"), "{e}");
    assert!(Kernel::rbf_sigma(0.0)
        .unwrap_err()
        .to_string()
        .contains("`sigma`"));
    let e = fit_err(
        {
            let mut p = base.clone();
            p.kernel = Kernel::Rbf { gamma: -2.0 };
            p
        },
        &x,
        &y,
    );
    assert!(e.contains("`gamma`"), "{e}");
    let mut tol = base.clone();
    tol.solver.tol = 0.0;
    assert!(fit_err(tol, &x, &y).contains("tol"));
    let mut weights = base.clone();
    weights.class_weights = vec![(7.0, 2.0)];
    assert!(fit_err(weights, &x, &y).contains("class 7"));
    // ν too large for the class balance.
    let e = solve_nu_svc(
        &FeatureKernel::new(&Kernel::Linear, &x).unwrap(),
        &[
            1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
            -1.0, -1.0, -1.0,
        ],
        0.9,
        &settings(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("infeasible"), "{e}");
}

#[test]
fn bad_data_is_refused_with_a_clear_message() {
    let (x, y) = blobs(20);
    let e = fit_err(SvmParams::default(), &x, &[1.0; 20]);
    assert!(e.contains("only one class"), "{e}");
    let e = fit_err(SvmParams::default(), &x, &y[..10]);
    assert!(e.contains("10 labels for 20"), "{e}");
    let mut bad = x.clone();
    bad.row_mut(3)[1] = f64::NAN;
    let e = fit_err(SvmParams::default(), &bad, &y);
    assert!(e.contains("row 4") && e.contains("not finite"), "{e}");
    let model = SvmModel::fit(&SvmParams::default(), &x, &y).unwrap();
    let three = Features::new(1, 3, vec![0.0; 3]).unwrap();
    let e = model.predict(&three).unwrap_err().to_string();
    assert!(
        e.contains("fitted on 2 features") && e.contains("has 3"),
        "{e}"
    );
    let mut q = Features::new(1, 2, vec![0.0, 0.0]).unwrap();
    q.row_mut(0)[0] = f64::INFINITY;
    assert!(model
        .predict(&q)
        .unwrap_err()
        .to_string()
        .contains("not finite"));
    let e = SvmModel::fit(
        &SvmParams::default(),
        &Features::new(0, 2, vec![]).unwrap(),
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("empty"), "{e}");
}

#[test]
fn one_class_and_svr_basic_sanity() {
    let (x, _) = blobs(200);
    let k = Kernel::rbf_gamma(1.0).unwrap();
    let src = FeatureKernel::new(&k, &x).unwrap();
    let oc = solve_one_class(&src, 0.2, &settings()).unwrap();
    // ν bounds the fraction of outliers from above and of SVs from below.
    let sum: f64 = oc.coef.iter().sum();
    assert!((sum - 0.2 * 200.0).abs() < 1e-9);
    assert!(oc.n_support as f64 >= 0.2 * 200.0 - 1.0);
    // ε-SVR on a noiseless linear target with a linear kernel recovers it closely.
    let t: Vec<f64> = x.rows().map(|r| 2.0 * r[0] - r[1] + 0.5).collect();
    let lin = FeatureKernel::new(&Kernel::Linear, &x).unwrap();
    let svr = solve_epsilon_svr(&lin, &t, 100.0, 0.01, &settings(), None).unwrap();
    let km = kernel_matrix(&lin);
    for i in 0..t.len() {
        let f: f64 = (0..t.len()).map(|j| svr.coef[j] * km[i][j]).sum::<f64>() - svr.rho;
        assert!((f - t[i]).abs() < 0.02, "point {i}: {f} vs {}", t[i]);
    }
}
