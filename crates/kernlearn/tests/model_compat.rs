//! Model files written by release 0.1.0 (tests/fixtures/models-v1) still load and
//! predict what that release predicted: the same labels, and every prediction, decision
//! value and Platt probability to 1e-12 relative (since 0.1.0 kernel rows use a vectorised `exp`,
//! `simd::exp_lanes`, which can differ from libm's in the last bit), 1e-10 for the
//! Nyström model: since 0.1.0 a family's chained Gaussian widths are squared from the
//! widest (`mkl::base`, within 10⁻¹³ of a direct `exp`), and its feature map's
//! `K_mm^(−½)` amplifies that by the landmarks' conditioning (7·10⁻¹² measured).

use kernlearn::data::read_dataset;
use kernlearn::{Estimator, Pipeline};
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
