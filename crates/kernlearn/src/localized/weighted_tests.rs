//! Per-sample weights in LMKL, checked against what they must equal: a point of integer
//! weight `k` is `k` copies of it (the weighted C-SVC's box `C·k`, the base kernels
//! normalised on the weighted rows), a point of weight 0 an absent row; the methods
//! without a weighted form, and LMKL on the Gilbert solver, refuse weights.

use super::LocalizedLearner;
use super::{ClmklSettings, GateRegression};
use super::{LmklSettings, LocalizedMethod, LocalizedModel, LocalizedParams, SvmSolver};
use crate::data::{read_csv, Features, ScaleMode, Scaler};
use crate::learner::{GridSettings, Learner};
use crate::predictor::Predictor;
use crate::select::Grid;
use crate::svm::SolverSettings;
use std::path::Path;

/// Wine (three classes), scaled to [0, 1].
fn wine() -> (Features, Vec<f64>) {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/wine.csv");
    let d = read_csv(&p, None).unwrap();
    let x = Scaler::fit(ScaleMode::ZeroOne, &d.x)
        .transform(&d.x)
        .unwrap();
    (x, d.y)
}

fn lmkl() -> LocalizedParams {
    LocalizedParams {
        c: 2.0,
        smo: SolverSettings {
            tol: 1e-10,
            ..SolverSettings::default()
        },
        ..LocalizedParams::new(
            LocalizedMethod::Lmkl(LmklSettings {
                iterations: 15,
                ..LmklSettings::default()
            }),
            "linear@all;rbf(gamma=0.5)@all;rbf(gamma=4)@[0,1]"
                .parse()
                .unwrap(),
        )
    }
}

/// The largest difference of two decision-value tables relative to their scale.
fn relative_gap(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    let scale = (a.iter().flatten()).fold(1.0f64, |m, v| m.max(v.abs()));
    let gaps = a.iter().flatten().zip(b.iter().flatten());
    gaps.fold(0.0f64, |m, (p, q)| m.max((p - q).abs())) / scale
}

/// LMKL with integer weights (0 to 3) has the decision function of the rows repeated
/// as often as their weights, to 1e-6 relative (the gate's descent takes the same
/// steps); weight 0 is a removed row.
#[test]
fn lmkl_integer_weights_are_copies_of_rows() {
    let (x, y) = wine();
    let w: Vec<f64> = (0..y.len()).map(|t| ((t * 7 + t / 5) % 4) as f64).collect();
    let rows: Vec<usize> = (0..y.len())
        .flat_map(|t| std::iter::repeat_n(t, w[t] as usize))
        .collect();
    let (xc, yc): (Features, Vec<f64>) =
        (x.select_rows(&rows), rows.iter().map(|&t| y[t]).collect());
    let weighted = LocalizedModel::fit_weighted(&lmkl(), &x, &y, Some(&w)).unwrap();
    let copied = LocalizedModel::fit(&lmkl(), &xc, &yc).unwrap();
    let gap = relative_gap(
        &weighted.decision_function(&x).unwrap(),
        &copied.decision_function(&x).unwrap(),
    );
    assert!(gap < 1e-6, "weights vs copies differ by {gap:e}");
    let plain = LocalizedModel::fit(&lmkl(), &x, &y).unwrap();
    let gap = relative_gap(
        &weighted.decision_function(&x).unwrap(),
        &plain.decision_function(&x).unwrap(),
    );
    assert!(gap > 1e-3, "the weights changed nothing");
}

/// LD-MKL, SWMKL and C-LMKL refuse weights naming themselves and why, and LMKL on the
/// mwu solver names the solver; a search's learner refuses before any fit.
#[test]
fn localized_methods_without_a_weighted_form_refuse_weights() {
    let (x, y) = wine();
    let w = vec![1.0; y.len()];
    let family = lmkl().family;
    let learner = |method, solver| LocalizedLearner {
        params: LocalizedParams {
            solver,
            ..LocalizedParams::new(method, family.clone())
        },
        search: Some(GridSettings {
            grid: Grid {
                sigmas: vec![1.0],
                cs: vec![1.0],
                epsilons: vec![],
            },
            ..GridSettings::default()
        }),
        fallback: true,
    };
    let gate = GateRegression::default;
    for (method, name) in [
        (LocalizedMethod::Ldmkl(gate()), "LD-MKL"),
        (LocalizedMethod::Swmkl(gate()), "SWMKL"),
        (LocalizedMethod::Clmkl(ClmklSettings::default()), "C-LMKL"),
    ] {
        let e = learner(method, SvmSolver::Smo)
            .fit_weighted(&x, &y, &w, 0, &|_| {})
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("{name} cannot honour per-sample weights")),
            "{e}"
        );
    }
    let mwu = SvmSolver::Mwu { epsilon: 0.01 };
    let e = learner(lmkl().method, mwu)
        .fit_weighted(&x, &y, &w, 0, &|_| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains("mwu solver") && e.contains("solver=smo"), "{e}");
}
