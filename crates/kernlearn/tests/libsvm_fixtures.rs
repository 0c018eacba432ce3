//! The solver against LIBSVM: every case in `tests/fixtures/` (made by
//! `python3 scripts/make_fixtures.py` with Debian's `svm-train` 3.24) is refitted and its
//! dual objective, rho, support vectors, iterations, decision values and predictions
//! compared with LIBSVM's.

use kernlearn::data::read_csv;
use kernlearn::kernel::Kernel;
use kernlearn::svm::{SvmModel, SvmParams, SvmType};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fixture(case: &str) -> Value {
    let path = root().join(format!("tests/fixtures/{case}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

fn params_of(fx: &Value) -> SvmParams {
    let k = &fx["kernel"];
    let kernel = match k["type"].as_str().unwrap() {
        "rbf" => Kernel::Rbf {
            gamma: f(&k["gamma"]),
        },
        "linear" => Kernel::Linear,
        "polynomial" => Kernel::Polynomial {
            gamma: f(&k["gamma"]),
            coef0: f(&k["coef0"]),
            degree: k["degree"].as_u64().unwrap() as u32,
        },
        other => panic!("kernel {other}"),
    };
    let p = &fx["params"];
    let svm_type = match fx["svm_type"].as_str().unwrap() {
        "c_svc" => SvmType::CSvc,
        "nu_svc" => SvmType::NuSvc,
        "one_class" => SvmType::OneClass,
        "epsilon_svr" => SvmType::EpsilonSvr,
        "nu_svr" => SvmType::NuSvr,
        other => panic!("type {other}"),
    };
    let mut params = SvmParams::default();
    params.svm_type = svm_type;
    params.kernel = kernel;
    if let Some(c) = p["C"].as_f64() {
        params.c = c;
    }
    if let Some(nu) = p["nu"].as_f64() {
        params.nu = nu;
    }
    if let Some(e) = p["epsilon_svr"].as_f64() {
        params.epsilon = e;
    }
    params.solver.tol = f(&p["eps"]);
    params.solver.cache_bytes = 100 << 20;
    if let Some(w) = p["weights"].as_object() {
        params.class_weights = w.iter().map(|(l, v)| (l.parse().unwrap(), f(v))).collect();
    }
    params.probability = p["probability"].as_bool().unwrap_or(false);
    params
}

struct Outcome {
    fx: Value,
    model: SvmModel,
    decision: Vec<Vec<f64>>,
    predictions: Vec<f64>,
}

fn refit(case: &str) -> Outcome {
    let fx = fixture(case);
    let train = read_csv(&root().join(fx["train_csv"].as_str().unwrap()), None).unwrap();
    let test = read_csv(&root().join(fx["test_csv"].as_str().unwrap()), None).unwrap();
    let params = params_of(&fx);
    let model = SvmModel::fit(&params, &train.x, &train.y).unwrap();
    let decision = model.decision_function(&test.x).unwrap();
    let predictions = model.predict(&test.x).unwrap();
    Outcome {
        fx,
        model,
        decision,
        predictions,
    }
}

/// LIBSVM prints obj and rho with `%f` (6 decimals).
fn assert_close(what: &str, ours: f64, theirs: f64, abs: f64, rel: f64) {
    let tol = abs.max(rel * theirs.abs());
    assert!(
        (ours - theirs).abs() <= tol,
        "{what}: kernlearn {ours} vs LIBSVM {theirs} (tolerance {tol})"
    );
}

fn check_case(case: &str) {
    let o = refit(case);
    let fx = &o.fx;
    let subs = fx["subproblems"].as_array().unwrap();
    assert_eq!(
        o.model.info.objectives.len(),
        subs.len(),
        "{case}: subproblems"
    );
    for (k, sub) in subs.iter().enumerate() {
        assert_close(
            &format!("{case} pair {k} objective"),
            o.model.info.objectives[k],
            f(&sub["obj"]),
            2e-6,
            1e-6,
        );
    }
    let rho: Vec<f64> = fx["rho"].as_array().unwrap().iter().map(f).collect();
    for (k, (&ours, &theirs)) in o.model.rho.iter().zip(&rho).enumerate() {
        assert_close(&format!("{case} rho[{k}]"), ours, theirs, 1e-6, 1e-6);
    }
    // Same support vectors (LIBSVM indices are 1-based rows of the training file).
    let mut ours: Vec<u64> = o.model.sv_indices.iter().map(|&i| i as u64 + 1).collect();
    let mut theirs: Vec<u64> = fx["sv_indices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    ours.sort_unstable();
    theirs.sort_unstable();
    assert_eq!(ours, theirs, "{case}: support vectors");
    let total_iter: u64 = subs.iter().map(|s| s["iter"].as_u64().unwrap()).sum();
    assert_eq!(
        o.model.info.iterations as u64, total_iter,
        "{case}: SMO iterations"
    );

    let dec = fx["test_decision_values"].as_array().unwrap();
    for (t, (ours, theirs)) in o.decision.iter().zip(dec).enumerate() {
        let theirs: Vec<f64> = match theirs {
            Value::Array(a) => a.iter().map(f).collect(),
            v => vec![f(v)],
        };
        for (a, b) in ours.iter().zip(&theirs) {
            assert_close(
                &format!("{case} decision value of test point {t}"),
                *a,
                *b,
                1e-5,
                1e-5,
            );
        }
    }
    let preds: Vec<f64> = fx["test_predictions"]
        .as_array()
        .unwrap()
        .iter()
        .map(f)
        .collect();
    if o.model.params.svm_type.is_regressor() {
        for (a, b) in o.predictions.iter().zip(&preds) {
            assert_close(&format!("{case} prediction"), *a, *b, 1e-5, 1e-6);
        }
    } else {
        assert_eq!(o.predictions, preds, "{case}: predictions");
    }
}

#[test]
fn c_svc_rbf_matches_libsvm() {
    for case in ["heart_csvc_rbf", "sonar_csvc_rbf", "tiny_csvc_rbf"] {
        check_case(case);
    }
}

#[test]
fn c_svc_linear_and_polynomial_match_libsvm() {
    check_case("heart_csvc_linear");
    check_case("heart_csvc_poly");
}

#[test]
fn class_weights_match_libsvm() {
    check_case("heart_csvc_rbf_weighted");
}

#[test]
fn multiclass_one_vs_one_matches_libsvm() {
    check_case("wine_csvc_rbf");
    check_case("glass_csvc_rbf");
}

#[test]
fn nu_svc_matches_libsvm() {
    check_case("heart_nusvc_rbf");
    check_case("wine_nusvc_rbf");
}

#[test]
fn regression_matches_libsvm() {
    check_case("housing_epssvr_rbf");
    check_case("housing_nusvr_rbf");
}

#[test]
fn one_class_matches_libsvm() {
    check_case("heart_oneclass_rbf");
}

/// Platt probabilities depend on LIBSVM's unseeded `rand()` shuffle, so they are compared
/// loosely: same most-probable class as the vote on almost every point, probabilities
/// within 0.1 of LIBSVM's.
#[test]
fn probabilities_are_close_to_libsvm() {
    for case in ["heart_csvc_rbf_prob", "wine_csvc_rbf_prob"] {
        let o = refit(case);
        let fx = &o.fx;
        let test = read_csv(&root().join(fx["test_csv"].as_str().unwrap()), None).unwrap();
        let probs = o.model.predict_proba(&test.x).unwrap();
        let theirs = fx["probabilities_full_precision"].as_array().unwrap();
        let mut worst: f64 = 0.0;
        for (p, q) in probs.iter().zip(theirs) {
            assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-6);
            for (a, b) in p.iter().zip(q.as_array().unwrap()) {
                worst = worst.max((a - f(b)).abs());
            }
        }
        assert!(
            worst < 0.1,
            "{case}: largest probability difference {worst}"
        );
    }
}
