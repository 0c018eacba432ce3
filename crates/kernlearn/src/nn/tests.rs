use super::optim::{momentum_at, AnyOptimizer};
use super::*;
use crate::data::synthetic::gaussian_blobs;
use rand::SeedableRng;

/// Three overlapping classes in the plane.
fn blobs(per_class: usize, seed: u64) -> (Features, Vec<f64>) {
    let means = [vec![0.0, 0.0], vec![2.0, 0.0], vec![0.0, 2.0]];
    let d = gaussian_blobs(&means, per_class, 0.6, seed).unwrap();
    (d.x, d.y)
}

fn fit_softmax(settings: &TrainSettings, seed: u64) -> Result<(SoftmaxRegression, TrainReport)> {
    let (x, y) = blobs(70, 3);
    let classes = crate::data::class_labels(&y);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let net = SoftmaxRegression::new(x.n_cols(), classes.len(), &mut rng)?;
    let data = TrainingData::new(&x, &y, &classes, settings.validation_fraction, seed)?;
    let report = train(&net, &data, settings, seed, &|_| {})?;
    Ok((net, report))
}

/// The momentum update against the closed form on `f(w) = w²/2` (gradient `w`):
/// `v₁ = −ℓw₀`, `w₁ = w₀ + v₁`, `v₂ = μv₁ − ℓw₁`, `w₂ = w₁ + v₂` (in f32, as the
/// networks train).
#[test]
fn momentum_sgd_follows_the_update_rule() {
    let w = Var::new(&[2.0f32], &device()).unwrap();
    let (lr, mu) = (0.1, momentum_at(0));
    let mut opt = AnyOptimizer::new(OptimizerChoice::Sgd, vec![w.clone()], lr, 0.0).unwrap();
    let mut expected = (2.0f64, 0.0f64);
    for _ in 0..2 {
        let loss = (w.as_tensor().sqr().unwrap() * 0.5)
            .unwrap()
            .sum_all()
            .unwrap();
        opt.backward_step(&loss).unwrap();
        expected.1 = mu * expected.1 - lr * expected.0;
        expected.0 += expected.1;
        let got = w.as_tensor().to_vec1::<f32>().unwrap()[0] as f64;
        assert!((got - expected.0).abs() < 1e-6, "{got} vs {}", expected.0);
    }
    assert_eq!(momentum_at(0), 0.5);
    assert!((momentum_at(10) - 0.99).abs() < 1e-15 && momentum_at(50) == momentum_at(10));
}

/// The fused in-place AdamW against candle's own `AdamW` (the same rule as a dozen
/// tensor ops): same parameters after several steps with weight decay, on a loss whose
/// gradient differs per element.
#[test]
fn fused_adamw_matches_candles_adamw() {
    use candle_nn::{AdamW, Optimizer, ParamsAdamW};
    let start: Vec<f32> = (0..12).map(|i| (i as f32 - 5.5) * 0.3).collect();
    let ours = Var::from_vec(start.clone(), (3, 4), &device()).unwrap();
    let theirs = Var::from_vec(start, (3, 4), &device()).unwrap();
    let params = ParamsAdamW {
        lr: 0.05,
        weight_decay: 0.1,
        ..ParamsAdamW::default()
    };
    let mut fused = FusedAdamW::new(vec![ours.clone()], params.clone()).unwrap();
    let mut reference = AdamW::new(vec![theirs.clone()], params).unwrap();
    // f(w) = Σ (w⁴/4 − w): gradient w³ − 1, so every element moves differently.
    let loss = |w: &Var| {
        ((w.as_tensor().powf(4.0).unwrap() * 0.25).unwrap() - w.as_tensor())
            .unwrap()
            .sum_all()
            .unwrap()
    };
    for _ in 0..5 {
        fused.backward_step(&loss(&ours)).unwrap();
        reference.backward_step(&loss(&theirs)).unwrap();
    }
    let a = ours
        .as_tensor()
        .flatten_all()
        .unwrap()
        .to_vec1::<f32>()
        .unwrap();
    let b = theirs
        .as_tensor()
        .flatten_all()
        .unwrap()
        .to_vec1::<f32>()
        .unwrap();
    // Both run in f32; the constants and the order of the roundings differ slightly.
    for (x, y) in a.iter().zip(&b) {
        assert!((x - y).abs() <= 1e-5 * (1.0 + y.abs()), "{a:?} vs {b:?}");
    }
    assert!(a.iter().zip(&b).any(|(x, _)| (x.abs() - 1.65).abs() > 0.01));
}

#[test]
fn training_separates_blobs_keeps_the_best_epoch_and_repeats_with_a_seed() {
    let settings = TrainSettings {
        learning_rate: 0.05,
        max_epochs: 60,
        patience: 10,
        batch_size: 32,
        ..TrainSettings::default()
    };
    let (net, report) = fit_softmax(&settings, 5).unwrap();
    assert!(report.best_val_accuracy.unwrap() > 0.8, "{report:?}");
    let val = report.trace.column("val_loss").unwrap();
    let min = val.iter().cloned().fold(f64::INFINITY, f64::min);
    assert_eq!(report.best_val_loss, Some(min));
    assert_eq!(val[report.best_epoch - 1], min);
    assert_eq!(report.trace.rows.len(), report.epochs);
    let (again, report2) = fit_softmax(&settings, 5).unwrap();
    assert_eq!(report.trace, report2.trace);
    assert_eq!(net.layer.values().unwrap(), again.layer.values().unwrap());
    let (_, other) = fit_softmax(&settings, 6).unwrap();
    assert_ne!(report.trace, other.trace);
    // Adam trains as well.
    let adam = TrainSettings {
        optimizer: OptimizerChoice::Adam,
        ..settings
    };
    assert!(fit_softmax(&adam, 5).unwrap().1.best_val_accuracy.unwrap() > 0.8);
}

/// A round is an epoch while an epoch has at most `round_steps` steps (the thesis's
/// rule: Cod-RNA's 33,488 training rows make 262 steps of 128), and `round_steps` steps
/// on larger sets; without a cap it is always an epoch.
#[test]
fn a_round_is_an_epoch_on_small_sets_and_capped_in_steps_on_large_ones() {
    let s = TrainSettings::default();
    assert_eq!(s.round_steps, Some(DEFAULT_ROUND_STEPS));
    assert_eq!(s.steps_per_round(4500), 36);
    assert_eq!(s.steps_per_round(33_488), 262);
    assert_eq!(s.steps_per_round(65_536), 512);
    assert_eq!(s.steps_per_round(65_537), 512);
    assert_eq!(s.steps_per_round(112_500), 512);
    assert_eq!(s.steps_per_round(1), 1);
    let epochs = TrainSettings {
        round_steps: None,
        ..TrainSettings::default()
    };
    assert_eq!(epochs.steps_per_round(112_500), 879);
    let small_batches = TrainSettings {
        batch_size: 32,
        ..TrainSettings::default()
    };
    assert_eq!(small_batches.steps_per_round(4500), 141);
    assert_eq!(small_batches.steps_per_round(112_500), 512);
    let e = TrainSettings {
        round_steps: Some(0),
        ..TrainSettings::default()
    };
    assert!(e
        .validate()
        .unwrap_err()
        .to_string()
        .contains("round-steps"));
}

/// Training rows seen after `steps` steps of `batch` over `n` rows (each epoch's last
/// batch is the remainder).
fn rows_seen(n: usize, batch: usize, steps: usize) -> usize {
    let per_epoch = n.div_ceil(batch);
    (steps / per_epoch) * n + ((steps % per_epoch) * batch).min(n)
}

#[test]
fn rounds_shorter_than_an_epoch_validate_every_k_steps_and_count_patience_in_rounds() {
    let base = TrainSettings {
        learning_rate: 0.05,
        max_epochs: 40,
        patience: 4,
        batch_size: 8,
        ..TrainSettings::default()
    };
    // 210 rows, 157 for training: 20 steps an epoch, under the default cap, so the
    // default and the thesis's per-epoch rule are the same run.
    let (_, by_default) = fit_softmax(&base, 2).unwrap();
    let per_epoch = TrainSettings {
        round_steps: None,
        ..base.clone()
    };
    let (_, thesis) = fit_softmax(&per_epoch, 2).unwrap();
    assert_eq!(by_default.round_steps, 20);
    assert_eq!(by_default, thesis);
    assert_eq!(by_default.trace, thesis.trace);
    // Rounds of 3 steps: one validation every 3 steps across epoch boundaries, patience
    // and the cap counted in those rounds.
    let short = TrainSettings {
        round_steps: Some(3),
        max_epochs: 500,
        ..base
    };
    let (_, r) = fit_softmax(&short, 2).unwrap();
    assert_eq!(r.round_steps, 3);
    assert_eq!(r.trace.rows.len(), r.epochs);
    assert_eq!(r.examples, rows_seen(157, 8, 3 * r.epochs));
    assert!(r.stopped_early && r.epochs < 500, "{r:?}");
    assert_eq!(r.epochs - r.best_epoch, 4, "{r:?}");
    let capped = TrainSettings {
        max_epochs: 7,
        patience: 100,
        ..short
    };
    let (_, c) = fit_softmax(&capped, 2).unwrap();
    assert_eq!((c.epochs, c.examples), (7, rows_seen(157, 8, 21)));
    assert!(!c.stopped_early);
}

#[test]
fn a_diverging_run_names_the_learning_rate() {
    let settings = TrainSettings {
        learning_rate: 1e38,
        max_epochs: 50,
        ..TrainSettings::default()
    };
    let e = fit_softmax(&settings, 1).err().unwrap().to_string();
    assert!(
        e.contains("learning-rate")
            && e.contains("1000000000000000000000000000000")
            && e.contains("diverged"),
        "{e}"
    );
}

#[test]
fn bad_settings_and_single_class_validation_are_errors() {
    let bad = [
        (
            "learning-rate",
            TrainSettings {
                learning_rate: 0.0,
                ..TrainSettings::default()
            },
        ),
        (
            "learning-rate",
            TrainSettings {
                learning_rate: f64::NAN,
                ..TrainSettings::default()
            },
        ),
        (
            "weight-decay",
            TrainSettings {
                weight_decay: -1.0,
                ..TrainSettings::default()
            },
        ),
        (
            "batch-size",
            TrainSettings {
                batch_size: 0,
                ..TrainSettings::default()
            },
        ),
        (
            "validation-fraction",
            TrainSettings {
                validation_fraction: 1.0,
                ..TrainSettings::default()
            },
        ),
    ];
    for (name, s) in bad {
        let e = s.validate().unwrap_err().to_string();
        assert!(e.contains(name), "{e}");
    }
    // 21 rows of class 0 and 1 of class 1, which stays on the training side.
    let x = Features::new(22, 1, (0..22).map(|i| i as f64).collect()).unwrap();
    let mut y = vec![0.0; 22];
    y[0] = 1.0;
    let e = TrainingData::new(&x, &y, &[0.0, 1.0], 0.25, 1)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("validation-fraction") && e.contains("single class"),
        "{e}"
    );
}

#[test]
fn features_round_trip_through_tensors() {
    let x = Features::new(2, 3, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.5]).unwrap();
    let t = tensor_of(&x).unwrap();
    assert_eq!(t.dims2().unwrap(), (2, 3));
    assert_eq!(values_of(&t).unwrap(), x.as_slice());
    assert!(class_codes(&[1.0, 3.0], &[1.0, 2.0]).is_err());
}
