//! The ARD-SVM end to end: through the catalogue, the fitting path and a model file.

use crate::data::{Dataset, Features, ScaleMode};
use crate::learner::GridSettings;
use crate::method::MethodKind;
use crate::options::MethodOptions;
use crate::pipeline::Pipeline;
use crate::predictor::Predictor;
use crate::Method;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Two informative features (a circle) among `noise` uniform ones.
fn circle_with_noise(n: usize, noise: usize, seed: u64) -> Dataset {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let d = 2 + noise;
    let values: Vec<f64> = (0..n * d).map(|_| rng.random::<f64>()).collect();
    let x = Features::new(n, d, values).unwrap();
    let y = (0..n)
        .map(|i| {
            let (a, b) = (x.row(i)[0] - 0.5, x.row(i)[1] - 0.5);
            if a * a + b * b < 0.1 {
                1.0
            } else {
                -1.0
            }
        })
        .collect();
    Dataset {
        x,
        y,
        feature_names: (0..d).map(|k| format!("f{k}")).collect(),
        target_name: "label".into(),
    }
}

/// Catalogue method `name` with its defaults and `--select grid`, fitted on `train`.
fn fit_selected(name: &str, train: &Dataset) -> crate::pipeline::FittedPipeline {
    let kind: MethodKind = name.parse().unwrap();
    let search = Some(GridSettings::default());
    let method = Method::build(kind, &MethodOptions::default(), train, search).unwrap();
    Pipeline::fit(ScaleMode::None, &method, train, 3, &|_| {}).unwrap()
}

fn accuracy(p: &[f64], y: &[f64]) -> f64 {
    p.iter().zip(y).filter(|(a, b)| a == b).count() as f64 / y.len() as f64
}

/// With eight noise features beside a circle in two, the selected ARD-SVM keeps its
/// kernel over SVM-CV, puts the relevance on the circle's features, and predicts held-out
/// points better than SVM-CV; its model file reloads to the same predictions.
#[test]
fn ard_finds_the_informative_features_and_beats_svm_cv() {
    let train = circle_with_noise(240, 8, 1);
    let test = circle_with_noise(600, 8, 2);
    let ard = fit_selected("ard", &train);
    let svm = fit_selected("svm", &train);
    assert_eq!(ard.chosen.other.get(crate::learner::FELL_BACK), Some(&0.0));
    let relevance = ard.pipeline.model.feature_relevance().unwrap();
    assert!(relevance[0] + relevance[1] > 0.8, "{relevance:?}");
    let acc_ard = accuracy(&ard.pipeline.predict(&test.x).unwrap(), &test.y);
    let acc_svm = accuracy(&svm.pipeline.predict(&test.x).unwrap(), &test.y);
    assert!(
        acc_ard > acc_svm + 0.03,
        "ARD {acc_ard} vs SVM-CV {acc_svm}"
    );
    let text = serde_json::to_string(&ard.pipeline).unwrap();
    let back = Pipeline::from_json(&text, "ard").unwrap();
    assert_eq!(
        back.predict(&test.x).unwrap(),
        ard.pipeline.predict(&test.x).unwrap()
    );
    assert_eq!(back.model.feature_relevance(), Some(relevance));
}

/// Without a selection the fit is the alignment's widths at scale 1: its kernel is the
/// ARD Gaussian with those widths, as a fixed SVM with the same widths predicts.
#[test]
fn without_selection_the_model_is_the_svm_on_the_learned_widths() {
    let train = circle_with_noise(120, 2, 4);
    let kind: MethodKind = "ard".parse().unwrap();
    let mut o = MethodOptions::default();
    o.set("c", "4").unwrap();
    let method = Method::build(kind, &o, &train, None).unwrap();
    let fit = Pipeline::fit(ScaleMode::None, &method, &train, 0, &|_| {}).unwrap();
    let params = fit.pipeline.model.params_json();
    let gammas: Vec<f64> = serde_json::from_value(params["kernel"]["gammas"].clone())
        .unwrap_or_else(|_| panic!("{params}"));
    let svm_params = crate::svm::SvmParams {
        c: 4.0,
        kernel: crate::kernel::Kernel::ard_gammas(gammas).unwrap(),
        ..crate::svm::SvmParams::default()
    };
    let svm = crate::svm::SvmModel::fit(&svm_params, &train.x, &train.y).unwrap();
    assert_eq!(
        Predictor::predict(&svm, &train.x).unwrap(),
        fit.pipeline.predict(&train.x).unwrap()
    );
    let e = Method::build(
        kind,
        &{
            let mut o = MethodOptions::default();
            o.set("ard-scale", "2").unwrap();
            o
        },
        &train,
        Some(GridSettings::default()),
    );
    assert!(e.unwrap_err().to_string().contains("ard-scale"));
    let mut o = MethodOptions::default();
    o.set("ard-sample", "2").unwrap();
    let e = Method::build(kind, &o, &train, None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("ard-sample") && e.contains("too few"), "{e}");
}

/// `y = sin(2π x₀) + x₁` plus small noise, among `noise` uniform features.
fn wave_with_noise(n: usize, noise: usize, seed: u64) -> Dataset {
    let mut data = circle_with_noise(n, noise, seed);
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    data.y = (0..n)
        .map(|i| {
            let r = data.x.row(i);
            (std::f64::consts::TAU * r[0]).sin() + r[1] + 0.05 * (rng.random::<f64>() - 0.5)
        })
        .collect();
    data.target_name = "target".into();
    data
}

/// ARD-SVR: with six noise features beside a wave in two, the selection keeps the ARD
/// kernel over SVR-CV (its own baseline, an ε-SVR), puts the relevance on the wave's
/// features, and its held-out squared error is well below SVR-CV's.
#[test]
fn ard_svr_finds_the_informative_features_and_beats_svr_cv() {
    let train = wave_with_noise(240, 6, 5);
    let test = wave_with_noise(600, 6, 6);
    let mse = |p: &Pipeline| {
        let pred = p.predict(&test.x).unwrap();
        pred.iter()
            .zip(&test.y)
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f64>()
            / test.y.len() as f64
    };
    let ard = fit_selected("ard-svr", &train);
    let svr = fit_selected("svm", &train);
    assert_eq!(
        ard.pipeline.model.task(),
        crate::predictor::Task::Regression
    );
    assert_eq!(ard.chosen.other.get(crate::learner::FELL_BACK), Some(&0.0));
    assert!(ard.chosen.epsilon.is_some());
    let relevance = ard.pipeline.model.feature_relevance().unwrap();
    assert!(relevance[0] + relevance[1] > 0.8, "{relevance:?}");
    let (e_ard, e_svr) = (mse(&ard.pipeline), mse(&svr.pipeline));
    assert!(e_ard < 0.7 * e_svr, "ARD-SVR {e_ard} vs SVR-CV {e_svr}");
}

/// A one-hot attribute (columns 1–3, named `color_*`) gets one width by default: each
/// column's relevance is that width times its spread `2 Var(x_k)`, so relevance over
/// variance is equal across the block; with `ard-groups none` it is not.
#[test]
fn one_hot_columns_share_a_width_by_default() {
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let n = 240;
    let mut rows = Vec::new();
    let mut y = Vec::new();
    for _ in 0..n {
        let value = rng.random_range(0..3);
        let x0: f64 = rng.random();
        let mut row = vec![x0, 0.0, 0.0, 0.0, rng.random(), rng.random()];
        row[1 + value] = 1.0;
        rows.push(row);
        y.push(if (value == 1) ^ (x0 > 0.5) { 1.0 } else { -1.0 });
    }
    let names = ["x", "color_red", "color_green", "color_blue", "n1", "n2"];
    let data = Dataset {
        x: Features::from_rows(&rows).unwrap(),
        y,
        feature_names: names.iter().map(|s| s.to_string()).collect(),
        target_name: "label".into(),
    };
    let per_spread = |groups: Option<&str>| {
        let mut o = MethodOptions::default();
        if let Some(g) = groups {
            o.set("ard-groups", g).unwrap();
        }
        let method = Method::build("ard".parse().unwrap(), &o, &data, None).unwrap();
        let fit = Pipeline::fit(ScaleMode::None, &method, &data, 0, &|_| {}).unwrap();
        let relevance = fit.pipeline.model.feature_relevance().unwrap();
        (1..4)
            .map(|k| {
                let col: Vec<f64> = (0..n).map(|i| data.x.row(i)[k]).collect();
                let mean = col.iter().sum::<f64>() / n as f64;
                let var = col.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n as f64;
                relevance[k] / var
            })
            .collect::<Vec<f64>>()
    };
    let shared = per_spread(None);
    assert!(
        shared.iter().all(|v| (v / shared[0] - 1.0).abs() < 1e-9),
        "{shared:?}"
    );
    let free = per_spread(Some("none"));
    let spread = free.iter().cloned().fold(f64::MIN, f64::max)
        / free.iter().cloned().fold(f64::MAX, f64::min);
    assert!(spread > 1.001, "{free:?}");
}
