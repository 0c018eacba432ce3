//! Model files written by release 0.1.0 (tests/fixtures/models-v1) still load and
//! predict what that release predicted: the same labels, and every prediction, decision
//! value and Platt probability to 1e-12 relative (since 0.1.0 kernel rows use a vectorised `exp`,
//! `simd::exp_lanes`, which can differ from libm's in the last bit), 1e-10 for the
//! Nyström model: since 0.1.0 a family's chained Gaussian widths are squared from the
//! widest (`bank::compile`, within 10⁻¹³ of a direct `exp`), and its feature map's
//! `K_mm^(−½)` amplifies that by the landmarks' conditioning (7·10⁻¹² measured).

use kernlearn::data::read_dataset;
use kernlearn::Pipeline;
use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The predictions file's rows: prediction, decision values, probabilities.
fn expected(name: &str) -> Vec<Vec<f64>> {
    let path = repo().join(format!("tests/fixtures/models-v1/{name}.predictions.csv"));
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .skip(1)
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect()
}

#[test]
fn release_0_1_0_models_predict_identically() {
    let cases = [
        ("svc", "data/heart.csv"),
        ("svr", "data/housing.csv"),
        ("knpl", "data/wine.csv"),
        ("dank", "data/heart.csv"),
        ("dank-scalable", "data/heart.csv"),
        ("mwumkl", "data/heart.csv"),
        ("nystrom-linear", "data/heart.csv"),
        ("ldmkl", "data/wine.csv"),
    ];
    for (name, data) in cases {
        let model = repo().join(format!("tests/fixtures/models-v1/{name}.json"));
        let pipeline = Pipeline::load(&model).unwrap_or_else(|e| panic!("{name}: {e}"));
        let data = read_dataset(&repo().join(data), None, None).unwrap();
        let decision = pipeline.decision_function(&data.x).unwrap();
        let want = expected(name);
        assert_eq!(want.len(), data.len(), "{name}");
        for (t, row) in want.iter().enumerate() {
            let model = &pipeline.model;
            let mut got = vec![model.predict_from_decision(&decision[t])];
            got.extend(&decision[t]);
            if name == "svc" {
                got.extend(model.probabilities_from_decision(&decision[t]).unwrap());
            }
            // (a class label within 1e-12 of the old one is the same label)
            assert_eq!(got.len(), row.len(), "{name}, row {t}");
            let tol = if name == "nystrom-linear" {
                1e-10
            } else {
                1e-12
            };
            for (k, (g, w)) in got.iter().zip(row).enumerate() {
                assert!(
                    (g - w).abs() <= tol * w.abs().max(1.0),
                    "{name}, row {t}, value {k}: {g} vs {w} (release 0.1.0)"
                );
            }
        }
    }
}

/// Model files of the methods without a release-0.1.0 fixture (hyperkernel, CKL, DKMO,
/// the other MKL and localized methods, ν-SVC, one-class, DANK-SVR, ARD), written by the build
/// of tests/fixtures/models-families/README.md, load and predict exactly what that
/// build predicted: every label and decision value bit for bit.
#[test]
fn family_model_files_predict_bit_identically() {
    let dir = "tests/fixtures/models-families";
    let cases = [
        ("hyperkernel", "data/sonar.csv"),
        ("hyperkernel-nu-svr", "data/housing.csv"),
        ("ckl", "data/wine.csv"),
        ("rff-linear", "data/heart.csv"),
        ("dkmo", "data/wine.csv"),
        ("m-dkmo", "data/wine.csv"),
        ("uniform", "data/heart.csv"),
        ("easymkl", "data/heart.csv"),
        ("spg-gmkl", "data/heart.csv"),
        ("swmkl", "data/wine.csv"),
        ("lmkl", "data/wine.csv"),
        ("clmkl", "data/wine.csv"),
        ("dank-svr", "tests/fixtures/models-families/housing100.csv"),
        ("nu-svc", "data/heart.csv"),
        ("one-class", "data/heart.csv"),
        ("ard", "data/heart.csv"),
    ];
    for (name, data) in cases {
        let model = repo().join(format!("{dir}/{name}.json"));
        let pipeline = Pipeline::load(&model).unwrap_or_else(|e| panic!("{name}: {e}"));
        let data = read_dataset(&repo().join(data), None, None).unwrap();
        let predictions = pipeline.predict(&data.x).unwrap();
        let decision = pipeline.decision_function(&data.x).unwrap();
        let text =
            std::fs::read_to_string(repo().join(format!("{dir}/{name}.predictions.csv"))).unwrap();
        let want: Vec<Vec<f64>> = text
            .lines()
            .skip(1)
            .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
            .collect();
        assert_eq!(want.len(), data.len(), "{name}");
        for (t, row) in want.iter().enumerate() {
            let mut got = vec![predictions[t]];
            got.extend(&decision[t]);
            assert_eq!(&got, row, "{name}, row {t}");
        }
    }
}
