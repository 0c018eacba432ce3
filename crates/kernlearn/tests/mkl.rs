//! Multiple kernel learning checked against independent computations: UNIFORM against
//! the SVM on the explicitly averaged Gram matrix, MWUMKL and Gilbert against the SVM's
//! margin, EasyMKL's weights against a generic QP solver (clarabel), Nyström features
//! against the kernel; weights are distributions; bad input gets clear errors.

use clarabel::algebra::CscMatrix;
use clarabel::solver::{DefaultSettings, DefaultSolver, IPSolver, NonnegativeConeT, ZeroConeT};
use kernlearn::data::{read_csv, Dataset, Features, ScaleMode, Scaler};
use kernlearn::estimator::{AnyModel, Estimator};
use kernlearn::kernel::{normalize_trace, Kernel, PrecomputedKernel};
use kernlearn::metrics::accuracy;
use kernlearn::mkl::{
    easymkl, mwumkl, solve_gilbert, EasyMklParams, GilbertSettings, KernelBank, KernelFamily,
    MklMethod, MklModel, MklParams, MwumklParams, NystromLinearModel, NystromLinearParams,
    UniformParams,
};
use kernlearn::multiclass::class_groups;
use kernlearn::svm::{solve_c_svc, SolverSettings, SvmModel, SvmParams};
use kernlearn::Pipeline;
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

#[test]
fn weights_are_distributions() {
    let (x, y) = data("ionosphere.csv", 200);
    let family: KernelFamily = "family12@each".parse().unwrap();
    for method in [
        MklMethod::Mwumkl(MwumklParams {
            c: Some(10.0),
            ..Default::default()
        }),
        MklMethod::EasyMkl(EasyMklParams::default()),
        MklMethod::Uniform(UniformParams {
            c: 10.0,
            ..Default::default()
        }),
    ] {
        let name = method.name();
        let model = MklModel::fit(
            &MklParams {
                method,
                family: family.clone(),
            },
            &x,
            &y,
        )
        .unwrap();
        for w in model.weights() {
            assert_eq!(w.len(), 12 * x.n_cols());
            assert!(w.iter().all(|&v| v >= 0.0), "{name}");
            assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{name}");
        }
        let acc = accuracy(&model.predict(&x).unwrap(), &y).unwrap();
        assert!(acc > 0.85, "{name}: training accuracy {acc}");
        let s = model.summary();
        assert_eq!(
            s.extra["weights"][0].as_array().unwrap().len(),
            12 * x.n_cols()
        );
        assert!(s.n_support.unwrap() > 0);
    }
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
    let machine = easymkl::fit_binary(&family, &x, &y, &params).unwrap();
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

#[test]
fn nystrom_features_reproduce_the_kernel_on_the_landmarks() {
    let (x, y) = data("heart.csv", 120);
    let family: KernelFamily = "rbf(sigma=2);poly(degree=2,gamma=1,coef0=1)@[0,4]"
        .parse()
        .unwrap();
    let feats = kernlearn::mkl::nystrom::NystromFeatures::fit(&family, &x, 120, 3).unwrap();
    let z = feats.transform(&x).unwrap();
    let dim = feats.dim();
    let k = explicit_combination(&family, &x, &[1.0, 1.0]);
    for i in (0..120).step_by(7) {
        for j in (0..120).step_by(5) {
            let dot: f64 = (0..dim).map(|c| z[i * dim + c] * z[j * dim + c]).sum();
            assert!(
                (dot - k[(i, j)]).abs() < 1e-6,
                "({i},{j}): {dot} vs {}",
                k[(i, j)]
            );
        }
    }
    let params = NystromLinearParams::new("family12@each".parse().unwrap(), 60);
    let model = NystromLinearModel::fit(&params, &x, &y).unwrap();
    let acc = accuracy(&model.predict(&x).unwrap(), &y).unwrap();
    assert!(acc > 0.8, "training accuracy {acc}");
}

#[test]
fn multiclass_models_vote_and_survive_a_model_file() {
    let (x, y) = data("wine.csv", 178);
    let family: KernelFamily = "family12@each".parse().unwrap();
    let dir = std::env::temp_dir().join(format!("kernlearn-mkl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let models: Vec<AnyModel> = vec![
        AnyModel::Mkl(
            MklModel::fit(
                &MklParams {
                    method: MklMethod::Mwumkl(MwumklParams {
                        c: Some(1.0),
                        ..Default::default()
                    }),
                    family: family.clone(),
                },
                &x,
                &y,
            )
            .unwrap(),
        ),
        AnyModel::Mkl(
            MklModel::fit(
                &MklParams {
                    method: MklMethod::EasyMkl(EasyMklParams::default()),
                    family: family.clone(),
                },
                &x,
                &y,
            )
            .unwrap(),
        ),
        AnyModel::NystromLinear(
            NystromLinearModel::fit(&NystromLinearParams::new(family.clone(), 50), &x, &y).unwrap(),
        ),
    ];
    for model in models {
        let name = model.method();
        let dec = model.decision_function(&x).unwrap();
        assert!(dec.iter().all(|d| d.len() == 3), "{name}");
        let pred = model.predict(&x).unwrap();
        let acc = accuracy(&pred, &y).unwrap();
        assert!(acc > 0.9, "{name}: training accuracy {acc}");
        let path = dir.join(format!("{name}.json"));
        let scaler = Scaler::identity(x.n_cols());
        Pipeline::new(scaler, model, vec![]).save(&path).unwrap();
        let back = Pipeline::load(&path).unwrap();
        assert_eq!(back.predict(&x).unwrap(), pred, "{name}");
        assert_eq!(back.decision_function(&x).unwrap(), dec, "{name}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_input_gets_clear_errors() {
    let (x, y) = data("heart.csv", 60);
    let fit = |method: MklMethod, spec: &str| {
        MklModel::fit(
            &MklParams {
                method,
                family: spec.parse().unwrap(),
            },
            &x,
            &y,
        )
        .unwrap_err()
        .to_string()
    };
    let mwu = |eps: f64| {
        MklMethod::Mwumkl(MwumklParams {
            epsilon: eps,
            ..Default::default()
        })
    };
    let e = fit(mwu(0.0), "family12");
    assert!(e.contains("epsilon") && e.contains("> 0"), "{e}");
    assert!(fit(mwu(-0.5), "family12").contains("epsilon"));
    let e = fit(mwu(0.2), "sigmoid(gamma=1,coef0=0)@each");
    assert!(
        e.contains("not positive semi-definite") && e.contains("MWUMKL"),
        "{e}"
    );
    let e = fit(
        MklMethod::EasyMkl(EasyMklParams::default()),
        "rbf(sigma=1);poly(degree=2,gamma=1,coef0=-3)",
    );
    assert!(e.contains("base kernel 2") && e.contains("EasyMKL"), "{e}");
    // UNIFORM is an SVM: LIBSVM-style indefinite kernels are allowed.
    assert!(MklModel::fit(
        &MklParams {
            method: MklMethod::Uniform(UniformParams::default()),
            family: "sigmoid(gamma=0.1,coef0=0)".parse().unwrap()
        },
        &x,
        &y
    )
    .is_ok());
    let e = fit(
        MklMethod::EasyMkl(EasyMklParams {
            lambda: 0.0,
            ..Default::default()
        }),
        "family12",
    );
    assert!(e.contains("lambda"), "{e}");
    let e = fit(mwu(0.2), "rbf(sigma=1)@[0,99]");
    assert!(e.contains("feature index 99 out of range"), "{e}");
    let empty = KernelFamily { kernels: vec![] };
    let e = MklModel::fit(
        &MklParams {
            method: mwu(0.2),
            family: empty,
        },
        &x,
        &y,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("no kernels"), "{e}");
    let e = KernelFamily::from_spec_or_file("family12@each;rbf(sigma=1)@[1,2")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("column 28") && e.contains("missing closing `]`"),
        "{e}"
    );
    let e = MklModel::fit(
        &MklParams {
            method: mwu(0.2),
            family: "family12".parse().unwrap(),
        },
        &x,
        &vec![1.0; 60],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("at least two classes"), "{e}");
    let model = MklModel::fit(
        &MklParams {
            method: mwu(0.2),
            family: "family12".parse().unwrap(),
        },
        &x,
        &y,
    )
    .unwrap();
    let e = model
        .predict(&Features::new(1, 3, vec![0.0; 3]).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("fitted on 13 features"), "{e}");
}
