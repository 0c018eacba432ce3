use super::SearchScoring;
use super::*;
use crate::data::synthetic::gaussian_blobs;
use crate::data::Features;
use crate::kernel::{Kernel, KernelSource};
use crate::learner::{GridSettings, Method};
use crate::method::MethodKind;
use crate::nn::{OptimizerChoice, TrainSettings};
use crate::options::MethodOptions;
use crate::predictor::Predictor;
use crate::svm::{SvmModel, SvmParams};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn uniform_points(n: usize, d: usize, seed: u64) -> Features {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let v = (0..n * d).map(|_| rng.random_range(-1.0..1.0)).collect();
    Features::new(n, d, v).unwrap()
}

/// Largest error of the Fourier estimate of the kernel `exact` over all pairs of a few
/// points, averaged over 3 draws.
fn rff_error(kind: FeatureMapKind, width: usize, exact: impl Fn(&[f64], &[f64]) -> f64) -> f64 {
    let x = uniform_points(12, 3, 1);
    (0..3)
        .map(|seed| {
            let f = FourierFeatures::sample(kind, 3, width, 2.0, seed).unwrap();
            let mut worst = 0.0f64;
            for a in x.rows() {
                for b in x.rows() {
                    worst = worst.max((f.estimate(a, b) - exact(a, b)).abs());
                }
            }
            worst
        })
        .sum::<f64>()
        / 3.0
}

/// Rahimi–Recht: the estimate converges to the kernel as D grows (error ~ 1/√D).
#[test]
fn fourier_features_approximate_their_kernels_better_with_more_features() {
    // s² = 2: Gaussian exp(−‖δ‖²) = rbf(γ = 1); Laplacian exp(−√2‖δ‖₁).
    let gauss = |a: &[f64], b: &[f64]| Kernel::rbf_gamma(1.0).unwrap().eval(a, b);
    let laplace = |a: &[f64], b: &[f64]| Kernel::laplacian(2f64.sqrt()).unwrap().eval(a, b);
    for (kind, exact) in [
        (
            FeatureMapKind::Gaussian,
            &gauss as &dyn Fn(&[f64], &[f64]) -> f64,
        ),
        (FeatureMapKind::Laplacian, &laplace),
    ] {
        let errors: Vec<f64> = [16, 256, 4096]
            .iter()
            .map(|&w| rff_error(kind, w, exact))
            .collect();
        assert!(
            errors[0] > errors[1] && errors[1] > errors[2],
            "{kind:?}: {errors:?}"
        );
        assert!(
            errors[2] < 0.08 && errors[2] < errors[0] / 4.0,
            "{kind:?}: {errors:?}"
        );
    }
}

/// Nyström features on all points as landmarks reproduce the Gaussian Gram matrix.
#[test]
fn nystrom_features_reproduce_the_kernel_on_their_landmarks() {
    let x = uniform_points(15, 2, 3);
    let k = Kernel::rbf_gamma(0.25).unwrap(); // s² = 0.5
    for kind in [FeatureMapKind::Nystrom, FeatureMapKind::NystromKmeans] {
        let map = FeatureMap::fit(kind, &x, 15, 0.5, 2).unwrap();
        let z = map.transform(&x).unwrap();
        let mut worst = 0.0f64;
        for i in 0..15 {
            for j in 0..15 {
                let dot: f64 = z.row(i).iter().zip(z.row(j)).map(|(a, b)| a * b).sum();
                worst = worst.max((dot - k.eval(x.row(i), x.row(j))).abs());
            }
        }
        assert!(worst < 1e-6, "{kind:?}: {worst}");
    }
}

/// A band `y = sign(cos(π x₁))` (|x₁| < ½) on `[−1, 1]²`: a wide initial kernel
/// (σ² = 2⁻⁶, so ‖ω‖ ≈ 0.18) cannot express it with fixed features (chance level), CKL
/// moves its frequencies outward and separates it.
fn stripes(n: usize, seed: u64) -> (Features, Vec<f64>) {
    let x = uniform_points(n, 2, seed);
    let y = x
        .rows()
        .map(|r| {
            if (std::f64::consts::PI * r[0]).cos() > 0.0 {
                1.0
            } else {
                -1.0
            }
        })
        .collect();
    (x, y)
}

fn toy_params(learn: bool) -> CklParams {
    CklParams {
        width: 16,
        init_variance: 2f64.powi(-6),
        learn_features: learn,
        train: TrainSettings {
            optimizer: OptimizerChoice::Sgd,
            learning_rate: 0.05,
            max_epochs: 150,
            patience: 30,
            batch_size: 32,
            ..TrainSettings::default()
        },
        seed: 4,
        ..CklParams::default()
    }
}

#[test]
fn ckl_learns_frequencies_that_fixed_features_lack() {
    let (x, y) = stripes(400, 1);
    let (xt, yt) = stripes(400, 2);
    let acc = |m: &CklModel| crate::metrics::accuracy(&m.predict(&xt).unwrap(), &yt).unwrap();
    let ckl = CklModel::fit(&toy_params(true), &x, &y, &|_| {}).unwrap();
    let fixed = CklModel::fit(&toy_params(false), &x, &y, &|_| {}).unwrap();
    let (a_ckl, a_fixed) = (acc(&ckl), acc(&fixed));
    assert!(
        a_ckl > 0.9 && a_ckl > a_fixed + 0.2,
        "CKL {a_ckl}, fixed {a_fixed}"
    );
    // The learned spectrum moved outward from the initial draw.
    let mean = |v: Vec<f64>| v.iter().sum::<f64>() / v.len() as f64;
    let initial = mean(ckl.initial.as_ref().unwrap().norms());
    let FeatureMap::Fourier(learned) = &ckl.features else {
        panic!()
    };
    assert!(
        mean(learned.norms()) > 3.0 * initial,
        "{initial} → {:?}",
        learned.norms()
    );
    assert_eq!(fixed.method(), "rff-linear");
    assert!(fixed.initial.is_none());
    // The band depends on x₁ only: the learned frequencies' second moment, the kernel's
    // feature relevance, rests on x₁; the fixed baseline learns none.
    let relevance = (&ckl as &dyn Predictor).feature_relevance().unwrap();
    assert!(relevance[0] > 0.8, "{relevance:?}");
    assert!((relevance.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    assert_eq!((&fixed as &dyn Predictor).feature_relevance(), None);
}

#[test]
fn the_learned_kernel_is_a_kernel_source_for_smo() {
    let (x, y) = stripes(200, 3);
    let model = CklModel::fit(&toy_params(true), &x, &y, &|_| {}).unwrap();
    let k = model.learned_kernel().unwrap();
    let source = k.source(&x).unwrap();
    // Rows of the source equal the closed form (1/D) Σ cos(ωᵀ(x − x')).
    let cols: Vec<usize> = (0..x.n_rows()).collect();
    let mut row = vec![0f32; cols.len()];
    source.fill_row(5, &cols, &mut row);
    for j in 0..cols.len() {
        let exact = k.eval(x.row(5), x.row(j));
        assert!(
            (row[j] as f64 - exact).abs() < 1e-5,
            "{j}: {} vs {exact}",
            row[j]
        );
    }
    assert!((k.eval(x.row(3), x.row(3)) - 1.0).abs() < 1e-12);
    // SMO on the source and on the same kernel as a precomputed Gram matrix agree.
    let params = SvmParams {
        c: 10.0,
        ..SvmParams::default()
    };
    let svm = SvmModel::fit_source(&params, &source, &y).unwrap();
    let gram: Vec<Vec<f64>> = x
        .rows()
        .map(|a| x.rows().map(|b| k.eval(a, b)).collect())
        .collect();
    let pre = SvmParams {
        kernel: Kernel::Precomputed,
        ..params
    };
    let reference = SvmModel::fit(&pre, &Features::from_rows(&gram).unwrap(), &y).unwrap();
    assert_eq!(svm.n_support(), reference.n_support());
    assert!(
        (svm.rho[0] - reference.rho[0]).abs() < 1e-4,
        "{:?} {:?}",
        svm.rho,
        reference.rho
    );
}

#[test]
fn fits_repeat_with_a_seed_and_survive_a_model_file() {
    let means = [vec![0.0, 0.0], vec![2.0, 0.0], vec![0.0, 2.0]];
    let d = gaussian_blobs(&means, 40, 0.5, 1).unwrap();
    let mut p = toy_params(true);
    p.init_variance = 0.5;
    p.train.max_epochs = 20;
    let a = CklModel::fit(&p, &d.x, &d.y, &|_| {}).unwrap();
    let b = CklModel::fit(&p, &d.x, &d.y, &|_| {}).unwrap();
    assert_eq!(a, b);
    p.seed = 5;
    assert_ne!(a, CklModel::fit(&p, &d.x, &d.y, &|_| {}).unwrap());
    let any = crate::AnyModel::new(a.clone());
    let json = serde_json::to_string(&any).unwrap();
    let back: crate::AnyModel = serde_json::from_str(&json).unwrap();
    back.validate().unwrap();
    assert_eq!(back.predict(&d.x).unwrap(), a.predict(&d.x).unwrap());
    assert_eq!(
        back.decision_function(&d.x).unwrap(),
        a.decision_function(&d.x).unwrap()
    );
    // Three classes: the vote over l_i − l_j is the arg-max, probabilities its softmax.
    let dec = a.decision_function(&d.x).unwrap();
    let logits = a.logits(&d.x).unwrap();
    for (dv, l) in dec.iter().zip(&logits) {
        let best = (1..3).fold(0, |b, c| if l[c] > l[b] { c } else { b });
        assert_eq!(a.predict_from_decision(dv), a.classes[best]);
        let p = a.probabilities_from_decision(dv).unwrap();
        let z: f64 = l.iter().map(|v| v.exp()).sum();
        for c in 0..3 {
            assert!((p[c] - l[c].exp() / z).abs() < 1e-12);
        }
    }
    assert!(crate::metrics::accuracy(&a.predict(&d.x).unwrap(), &d.y).unwrap() > 0.8);
    // An edited file is refused.
    let mut bad = a.clone();
    bad.output_bias.pop();
    assert!(bad
        .validate()
        .unwrap_err()
        .to_string()
        .contains("output_bias"));
}

fn build(
    kind: MethodKind,
    set: &[(&str, &str)],
    search: Option<GridSettings>,
) -> crate::Result<Method> {
    let mut o = MethodOptions::default();
    for (k, v) in set {
        o.set(k, v)?;
    }
    let (x, y) = stripes(10, 1);
    let data = crate::data::Dataset {
        x,
        y,
        feature_names: vec![],
        target_name: "label".into(),
    };
    Method::build(kind, &o, &data, search)
}

#[test]
fn bad_input_is_a_clear_error() {
    let cases = [
        (vec![("fourier-features", "0")], "fourier-features"),
        (vec![("init-variance", "0")], "init-variance"),
        (vec![("init-variance", "-1")], "init-variance"),
        (vec![("learning-rate", "0")], "learning-rate"),
        (vec![("learning-rate", "-0.1")], "learning-rate"),
        (vec![("feature-map", "nystrom")], "feature-map"),
        (vec![("validation-fraction", "1.5")], "validation-fraction"),
        (vec![("configs", "3")], "configs"),
        (vec![("ckl-search", "cv")], "ckl-search"),
        (vec![("ckl-search", "holdout")], "ckl-search"),
    ];
    for (set, name) in cases {
        let e = build("ckl".parse::<MethodKind>().unwrap(), &set, None)
            .unwrap_err()
            .to_string();
        assert!(e.contains(name), "{set:?}: {e}");
    }
    let no_split = [("validation-fraction", "0"), ("epochs", "50")];
    let e = build(
        "ckl".parse::<MethodKind>().unwrap(),
        &no_split,
        Some(GridSettings::default()),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("ckl-search"), "{e}");
    // Without a validation split nothing stops the default 10,000 epochs early: the
    // user must say how many.
    let endless = [("validation-fraction", "0")];
    let e = build("ckl".parse::<MethodKind>().unwrap(), &endless, None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("validation-fraction") && e.contains("«epochs»"),
        "{e}"
    );
    assert!(build(
        "rff-linear".parse::<MethodKind>().unwrap(),
        &[("norm-cap", "1")],
        None
    )
    .is_err());
    assert!(build(
        "rff-linear".parse::<MethodKind>().unwrap(),
        &[("feature-map", "nystrom")],
        None
    )
    .is_ok());
    let (x, y) = stripes(40, 1);
    let mut nan = x.clone();
    nan.row_mut(3)[1] = f64::NAN;
    let e = CklModel::fit(&toy_params(true), &nan, &y, &|_| {})
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("features") && e.contains("NaN") || e.contains("finite"),
        "{e}"
    );
    let mut huge = toy_params(true);
    huge.train.learning_rate = 1e25;
    let e = CklModel::fit(&huge, &x, &y, &|_| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains("learning-rate") && e.contains("diverged"), "{e}");
}

#[test]
fn the_random_search_draws_table_5_3_and_picks_a_candidate() {
    let search = RandomSearch {
        configs: 50,
        scoring: SearchScoring::Validation,
        cv: GridSettings::default(),
    };
    let c = search.candidates(&CklParams::default(), 3);
    assert_eq!(c, search.candidates(&CklParams::default(), 3));
    for p in &c {
        assert!(p.width.is_power_of_two() && p.width <= 512);
        let i = p.init_variance.log2();
        assert!(i == i.round() && (-6.0..=0.0).contains(&i));
        assert!((1e-5..=0.2).contains(&p.train.learning_rate));
    }
    let widths: std::collections::BTreeSet<usize> = c.iter().map(|p| p.width).collect();
    assert!(widths.len() >= 6);
    let cv = GridSettings {
        folds: 2,
        ..GridSettings::default()
    };
    let (x, y) = stripes(80, 1);
    for scoring in ["cv", "validation"] {
        let set = [("configs", "3"), ("epochs", "15"), ("ckl-search", scoring)];
        let method = build("ckl".parse::<MethodKind>().unwrap(), &set, Some(cv.clone())).unwrap();
        let fitted = method.fit(&x, &y, 7, &|_| {}).unwrap();
        let l = method.learner_as::<super::CklLearner>().unwrap();
        let drawn = l.search.as_ref().unwrap().candidates(&l.params, 7);
        let d = fitted.chosen.other["ckl_features_d"] as usize;
        assert!(drawn.iter().any(|p| p.width == d), "{d}");
        assert!(fitted.chosen.cv_score.is_some() && fitted.trace.is_some());
        if scoring == "validation" {
            // Brute force: fit every drawn candidate alone; the kept model has the best
            // validation accuracy (ties: lower validation loss), and that accuracy is the
            // score. The fit seeds its candidates with the fit's seed.
            let fits: Vec<CklModel> = drawn
                .iter()
                .map(|p| {
                    let p = CklParams {
                        seed: 7,
                        ..p.clone()
                    };
                    CklModel::fit(&p, &x, &y, &|_| {}).unwrap()
                })
                .collect();
            let acc: Vec<f64> = fits
                .iter()
                .map(|m| m.report.best_val_accuracy.unwrap())
                .collect();
            let loss: Vec<f64> = fits
                .iter()
                .map(|m| m.report.best_val_loss.unwrap())
                .collect();
            let mut best = 0;
            for c in 1..acc.len() {
                if acc[c] > acc[best] || acc[c] == acc[best] && loss[c] < loss[best] {
                    best = c;
                }
            }
            assert_eq!(fitted.chosen.cv_score, Some(acc[best]));
            assert_eq!(d, drawn[best].width);
            let kept = fitted.model.downcast_ref::<super::CklModel>().unwrap();
            assert_eq!(
                kept.decision_function(&x).unwrap(),
                fits[best].decision_function(&x).unwrap()
            );
        }
    }
}

/// The fused cosine activation against candle's own ops: `√2 cos(p + b)` and the
/// gradients of `Σ w ⊙ √2 cos(p + b)` for `p` and `b`, for a training batch and for an
/// evaluation block large enough to be split over threads.
#[test]
fn the_fused_cosine_matches_candles_ops_and_their_gradients() {
    use candle_core::{Tensor, Var};
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let dev = crate::nn::device();
    let mut draw =
        |n: usize, s: f64| -> Vec<f32> { (0..n).map(|_| rng.random_range(-s..s) as f32).collect() };
    let (n, width) = (6, 9);
    let p = Var::from_vec(draw(n * width, 4.0), (n, width), &dev).unwrap();
    let b = Var::from_vec(draw(width, 3.2), (1, width), &dev).unwrap();
    let w = Tensor::from_vec(draw(n * width, 1.0), (n, width), &dev).unwrap();
    let fused = p
        .as_tensor()
        .apply_op2(b.as_tensor(), super::network::Cosine::new(true))
        .unwrap();
    let reference = (p
        .as_tensor()
        .broadcast_add(b.as_tensor())
        .unwrap()
        .cos()
        .unwrap()
        * std::f64::consts::SQRT_2)
        .unwrap();
    let close = |a: &Tensor, r: &Tensor, tol: f32| {
        let (a, r) = (
            a.flatten_all().unwrap().to_vec1::<f32>().unwrap(),
            r.flatten_all().unwrap().to_vec1::<f32>().unwrap(),
        );
        assert_eq!(a.len(), r.len());
        for (x, y) in a.iter().zip(&r) {
            assert!((x - y).abs() <= tol * (1.0 + y.abs()), "{x} vs {y}");
        }
    };
    close(&fused, &reference, 1e-6);
    let grads = |out: &Tensor| {
        let g = (out * &w).unwrap().sum_all().unwrap().backward().unwrap();
        (g.get(&p).unwrap().clone(), g.get(&b).unwrap().clone())
    };
    let ((gp, gb), (rp, rb)) = (grads(&fused), grads(&reference));
    close(&gp, &rp, 1e-5);
    close(&gb, &rb, 1e-5);
    // An evaluation block (over the threading threshold), without gradients.
    let rows = (1 << 18) / width + 1;
    let big = Tensor::from_vec(draw(rows * width, 4.0), (rows, width), &dev).unwrap();
    let out = big
        .apply_op2_no_bwd(b.as_tensor(), &super::network::Cosine::new(false))
        .unwrap();
    let want = (big.broadcast_add(b.as_tensor()).unwrap().cos().unwrap()
        * std::f64::consts::SQRT_2)
        .unwrap();
    close(&out, &want, 1e-6);
}
