//! Tests of the hyperkernel fit and model: the C-SVM program's optimum against its
//! objective computed from the hyperkernel directly, the ν-SVC refit by SMO on a nearly
//! constant learned kernel, a fit of every problem (Examples 7–12) and the messages of
//! bad input. They live apart from `model.rs`, which holds the fit and the model.

use super::*;
use crate::data::synthetic::generate;
use crate::kernel::PrecomputedKernel;
use rand::Rng;

fn quiet(_: &str) {}

/// The SVM part (C-SVC optimum by SMO at a tight tolerance) plus the hyperkernel
/// regulariser `λ_Q/2 ‖K̲^{½}β‖`, both computed from the hyperkernel directly.
fn brute_objective(model: &HyperkernelModel, x: &Features, y: &[f64], beta: &[f64]) -> f64 {
    let k = &model.kernel;
    let h = &k.hyperkernel;
    let p = beta.len();
    let m = x.n_rows();
    let mut gram = Mat::<f64>::zeros(m, m);
    for a in 0..p {
        for i in 0..m {
            for j in 0..m {
                gram[(i, j)] += beta[a]
                    * h.eval(k.left.row(a), k.right.row(a), x.row(i), x.row(j))
                        .unwrap();
            }
        }
    }
    let mut quad = 0.0;
    for a in 0..p {
        for b in 0..p {
            quad += beta[a]
                * beta[b]
                * h.eval(k.left.row(a), k.right.row(a), k.left.row(b), k.right.row(b))
                    .unwrap();
        }
    }
    let settings = SolverSettings {
        tol: 1e-7,
        ..SolverSettings::default()
    };
    let src = PrecomputedKernel::new(gram.as_ref()).unwrap();
    let d = solve_c_svc(&src, y, model.params.c, model.params.c, &settings, None).unwrap();
    -d.objective + model.params.lambda_q / 2.0 * quad.sqrt()
}

#[test]
fn tiny_c_svm_matches_the_brute_force_objective_and_is_optimal() {
    let d = generate("sandwich", 24, 5).unwrap();
    let params = HyperkernelParams {
        hyperkernel: HyperkernelKind::Harmonic,
        width_factor: 1.0,
        c: 10.0,
        ..HyperkernelParams::default()
    };
    let model = HyperkernelModel::fit(&params, &d.x, &d.y, &quiet).unwrap();
    assert_eq!(
        model.info.hypothesis,
        Some(Hypothesis::Conic),
        "{:?}",
        model.info
    );
    let (s, _) = binary_labels(&d.y).unwrap();
    let at_opt = brute_objective(&model, &d.x, &s, &model.kernel.beta);
    let rel = (at_opt - model.info.objective).abs() / model.info.objective.abs();
    assert!(
        rel < 1e-4,
        "conic {} vs brute force {at_opt}",
        model.info.objective
    );
    // No other point of the simplex over the same expansion pairs does better.
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for _ in 0..5 {
        let mut b: Vec<f64> = model
            .kernel
            .beta
            .iter()
            .map(|_| rng.random::<f64>())
            .collect();
        let s_b: f64 = b.iter().sum();
        b.iter_mut().for_each(|v| *v /= s_b);
        assert!(brute_objective(&model, &d.x, &s, &b) >= at_opt - 1e-6 * at_opt.abs());
    }
    // The recovered hypothesis is the SVM on the learned kernel: same training outputs.
    let dec = model.decision(&d.x).unwrap();
    let src = model.kernel.source(&d.x).unwrap();
    let settings = SolverSettings {
        tol: 1e-7,
        ..SolverSettings::default()
    };
    let smo = solve_c_svc(&src, &s, params.c, params.c, &settings, None).unwrap();
    let gram = model.kernel.gram(&d.x).unwrap();
    for i in 0..24 {
        let f: f64 = (0..24).map(|j| gram[(i, j)] * smo.coef[j]).sum::<f64>() - smo.rho;
        if f.abs() > 1e-2 {
            assert_eq!(f.signum(), dec[i].signum(), "point {i}: {f} vs {}", dec[i]);
        }
    }
    // Saved and read back, it predicts the same.
    let json = serde_json::to_string(&model).unwrap();
    let back: HyperkernelModel = serde_json::from_str(&json).unwrap();
    back.validate().unwrap();
    assert_eq!(back.predict(&d.x).unwrap(), model.predict(&d.x).unwrap());
}

#[test]
fn nu_svm_refit_survives_a_nearly_constant_kernel() {
    // K = 1·11ᵀ + 1e-6·K' with K' a Gaussian Gram: ν-SVC's classifier on K is the one
    // on K' (offset and scale invariance), but SMO's absolute stopping rule sees no
    // violating pair on K itself.
    let d = generate("sandwich", 60, 3).unwrap();
    let y: Vec<f64> =
        d.y.iter()
            .map(|&v| if v > 0.0 { 1.0 } else { -1.0 })
            .collect();
    let base = Kernel::rbf_sigma(1.0).unwrap().gram(&d.x).unwrap();
    let k = Mat::from_fn(60, 60, |i, j| 1.0 + 1e-6 * base[(i, j)]);
    let settings = SolverSettings::default();
    let (coef, bias) = nu_svc_refit(&k, &y, 0.3, &settings).unwrap();
    let f = |g: &Mat<f64>, c: &[f64], b: f64, i: usize| {
        (0..60).map(|j| g[(i, j)] * c[j]).sum::<f64>() + b
    };
    let reference = solve_nu_svc(
        &PrecomputedKernel::new(base.as_ref()).unwrap(),
        &y,
        0.3,
        &settings,
    )
    .unwrap();
    let agree = (0..60)
        .filter(|&i| {
            f(&k, &coef, bias, i).signum() == f(&base, &reference.coef, -reference.rho, i).signum()
        })
        .count();
    assert!(agree >= 58, "{agree} of 60 signs agree");
    let correct = (0..60)
        .filter(|&i| f(&k, &coef, bias, i).signum() == y[i])
        .count();
    assert!(correct >= 48, "training accuracy {correct}/60");
    // The same matrix given to SMO as is: the first feasible point, no classifier.
    let raw = solve_nu_svc(
        &PrecomputedKernel::new(k.as_ref()).unwrap(),
        &y,
        0.3,
        &settings,
    )
    .unwrap();
    let raw_correct = (0..60)
        .filter(|&i| f(&k, &raw.coef, -raw.rho, i).signum() == y[i])
        .count();
    assert!(
        raw_correct < correct,
        "raw SMO {raw_correct}/60 vs refit {correct}/60"
    );
}

#[test]
fn every_problem_fits() {
    let d = generate("sandwich", 40, 9).unwrap();
    for (problem, kind) in [
        (Problem::NuSvm, HyperkernelKind::Ard),
        (
            Problem::Lsvm,
            HyperkernelKind::Series(super::super::Series::Exp),
        ),
        (Problem::Kta, HyperkernelKind::Harmonic),
        (Problem::OneClass, HyperkernelKind::Explicit),
        (Problem::NuSvr, HyperkernelKind::Ard),
        (
            Problem::CSvm,
            HyperkernelKind::Series(super::super::Series::Arctanh),
        ),
    ] {
        let params = HyperkernelParams {
            problem,
            hyperkernel: kind,
            width_factor: 1.0,
            ..HyperkernelParams::default()
        };
        let y: Vec<f64> = match problem {
            Problem::NuSvr => (0..40)
                .map(|i| d.x.row(i)[0] + 0.5 * d.x.row(i)[1])
                .collect(),
            _ => d.y.clone(),
        };
        let model = HyperkernelModel::fit(&params, &d.x, &y, &quiet)
            .unwrap_or_else(|e| panic!("{problem}: {e}"));
        model.validate().unwrap();
        let pred = model.predict(&d.x).unwrap();
        match problem {
            Problem::NuSvr => {
                let mse = crate::metrics::mse(&pred, &y).unwrap();
                let var = y.iter().map(|v| v * v).sum::<f64>() / 40.0;
                assert!(mse < 0.2 * var, "{problem}: mse {mse} var {var}");
            }
            Problem::OneClass => {
                let out = pred.iter().filter(|&&p| p < 0.0).count();
                assert!(out <= 20, "{problem}: {out} outliers of 40 at ν = 0.1");
            }
            _ => {
                let acc = crate::metrics::accuracy(&pred, &d.y).unwrap();
                assert!(acc > 0.75, "{problem} ({kind}): training accuracy {acc}");
            }
        }
        if problem == Problem::Kta {
            assert_eq!(model.info.hypothesis, Some(Hypothesis::SmoRefit));
        }
    }
}

#[test]
fn bad_input_names_the_cause() {
    let d = generate("sandwich", 20, 1).unwrap();
    for lh in [0.0, 1.0, 1.5] {
        let p = HyperkernelParams {
            lambda_h: lh,
            ..HyperkernelParams::default()
        };
        let e = HyperkernelModel::fit(&p, &d.x, &d.y, &quiet)
            .unwrap_err()
            .to_string();
        assert!(e.contains("lambda-h"), "{e}");
    }
    let three: Vec<f64> = (0..20).map(|i| (i % 3) as f64).collect();
    let e = HyperkernelModel::fit(&HyperkernelParams::default(), &d.x, &three, &quiet)
        .unwrap_err()
        .to_string();
    assert!(e.contains("binary"), "{e}");
    let p = HyperkernelParams {
        problem: Problem::NuSvr,
        ..HyperkernelParams::default()
    };
    let e = HyperkernelModel::fit(&p, &d.x, &[1.0; 20], &quiet)
        .unwrap_err()
        .to_string();
    assert!(e.contains("constant"), "{e}");
    // Huge targets are not "constant": their spread overflows, and the error says so.
    let huge: Vec<f64> = (0..20)
        .map(|i| if i % 2 == 0 { 1e200 } else { -1e200 })
        .collect();
    let e = HyperkernelModel::fit(&p, &d.x, &huge, &quiet)
        .unwrap_err()
        .to_string();
    assert!(e.contains("overflows") && !e.contains("constant"), "{e}");
    let p = HyperkernelParams {
        max_iter: 2,
        ..HyperkernelParams::default()
    };
    let e = HyperkernelModel::fit(&p, &d.x, &d.y, &quiet)
        .unwrap_err()
        .to_string();
    assert!(e.contains("without converging"), "{e}");
    let p = HyperkernelParams {
        nu: Some(1.5),
        ..HyperkernelParams::default()
    };
    assert!(p.validate().unwrap_err().to_string().contains("`nu`"));
}

/// The working set of expansion pairs reaches the optimum of the whole program: same
/// objective and β on every problem, with enough pairs (rank > 16) that the working
/// set starts smaller than the expansion and must price the rest (δ near 0 so that the
/// factorisation reaches the rank cap).
#[test]
fn working_set_reaches_the_full_programs_optimum() {
    // 40 points in 6 dimensions: enough distinct pairs for rank 30.
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let rows: Vec<Vec<f64>> = (0..40)
        .map(|_| (0..6).map(|_| rng.random::<f64>() - 0.5).collect())
        .collect();
    let x = Features::from_rows(&rows).unwrap();
    let labels: Vec<f64> = rows
        .iter()
        .map(|r| if r[0] + r[1] * r[2] > 0.0 { 1.0 } else { -1.0 })
        .collect();
    for (problem, factor) in [
        (Problem::CSvm, 1.0),
        (Problem::CSvm, 50.0),
        (Problem::NuSvm, 1.0),
        (Problem::Lsvm, 1.0),
        (Problem::OneClass, 1.0),
        (Problem::NuSvr, 1.0),
        (Problem::Kta, 1.0),
    ] {
        let params = HyperkernelParams {
            problem,
            width_factor: factor,
            delta: 1e-14,
            max_rank: 30,
            ..HyperkernelParams::default()
        };
        let y: Vec<f64> = match problem {
            Problem::NuSvr => rows.iter().map(|r| r[0] - 0.5 * r[1]).collect(),
            _ => labels.clone(),
        };
        let prep = ConicInputs::prepare(&params, &x, &y).unwrap();
        assert!(prep.rank() > 16, "{problem}: rank {}", prep.rank());
        let (full, beta_full, _, _) = prep.solve_full(&params).unwrap();
        let (ws, beta_ws, _, _) = prep.solve(&params).unwrap();
        let rel = (full - ws).abs() / full.abs().max(1e-12);
        assert!(rel < 1e-6, "{problem} ({factor}): objective {full} vs {ws}");
        let dbeta = beta_full
            .iter()
            .zip(&beta_ws)
            .fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
        assert!(
            dbeta < 1e-2 * prep.scale,
            "{problem} ({factor}): max |Δβ| {dbeta}"
        );
    }
}
