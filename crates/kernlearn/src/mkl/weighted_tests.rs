//! Per-sample weights in the MKL methods, checked against what they must equal: a point
//! of integer weight `k` is `k` copies of it (the weighted C-SVC's box `C·k` is `k`
//! boxes of `C`, the weighted trace normalisation the copies' mean diagonal), a point of
//! weight 0 an absent row; and a weighted selection scores its folds as a weighted
//! k-fold CV written out here, its SVM-CV as the weighted grid search.

use super::spggmkl::SpgGmklParams;
use super::{EasyMklParams, MklLearner, MklMethod, MklModel, MklParams, MwumklParams};
use super::{NystromLinearLearner, NystromLinearParams, UniformParams};
use crate::bank::KernelFamily;
use crate::data::{complement, read_csv, stratified_kfold, Features, ScaleMode, Scaler};
use crate::learner::{GridSettings, Learner, FELL_BACK};
use crate::select::{Grid, Scoring};
use crate::svm::{SolverSettings, SvmModel, SvmParams, SvmType};
use std::path::Path;

/// The repository's `data/` set `name`, scaled to [0, 1].
fn data(name: &str) -> (Features, Vec<f64>) {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../data")
        .join(name);
    let d = read_csv(&p, None).unwrap();
    let x = Scaler::fit(ScaleMode::ZeroOne, &d.x)
        .transform(&d.x)
        .unwrap();
    (x, d.y)
}

/// Weights 0, 1, 2 and 3 spread over the rows (a fixed pattern, every class gets each).
fn integer_weights(n: usize) -> Vec<f64> {
    (0..n).map(|t| ((t * 7 + t / 5) % 4) as f64).collect()
}

/// Each row repeated as often as its (integer) weight: none for weight 0.
fn copies(x: &Features, y: &[f64], w: &[f64]) -> (Features, Vec<f64>) {
    let rows: Vec<usize> = (0..y.len())
        .flat_map(|t| std::iter::repeat_n(t, w[t] as usize))
        .collect();
    (x.select_rows(&rows), rows.iter().map(|&t| y[t]).collect())
}

/// A solver tolerance tight enough that the duals' optima, not their stopping points,
/// are compared.
fn tight() -> SolverSettings {
    SolverSettings {
        tol: 1e-10,
        ..SolverSettings::default()
    }
}

/// A linear kernel (whose trace depends on the rows, so the weighted normalisation is
/// exercised) and two Gaussians, one on two features.
fn family() -> KernelFamily {
    "linear@all;rbf(gamma=0.5)@all;rbf(gamma=4)@[0,1]"
        .parse()
        .unwrap()
}

fn uniform(c: f64) -> MklParams {
    MklParams::new(
        MklMethod::Uniform(UniformParams { c, solver: tight() }),
        family(),
    )
}

fn spg(c: f64) -> MklParams {
    MklParams::new(
        MklMethod::SpgGmkl(SpgGmklParams {
            c,
            pg_tol: 1e-9,
            objective_tol: 1e-12,
            solver: tight(),
            ..SpgGmklParams::default()
        }),
        family(),
    )
}

/// The largest difference of two decision-value tables relative to their scale.
fn relative_gap(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    let scale = (a.iter().flatten()).fold(1.0f64, |m, v| m.max(v.abs()));
    let gap =
        (a.iter().flatten().zip(b.iter().flatten())).fold(0.0f64, |m, (p, q)| m.max((p - q).abs()));
    gap / scale
}

/// UNIFORM and SPG-GMKL on wine (three classes, one-vs-one): integer weights give the
/// decision function of the data with each row repeated as often as its weight (weight-0
/// rows removed), to 1e-6 relative; all-one weights give the unweighted fit; weights
/// scaled by a constant are C scaled by it.
#[test]
fn integer_weights_are_copies_of_rows() {
    let (x, y) = data("wine.csv");
    let w = integer_weights(y.len());
    assert!(w.contains(&0.0) && w.contains(&3.0));
    let (xc, yc) = copies(&x, &y, &w);
    for params in [uniform(2.0), spg(2.0)] {
        let name = params.method.name();
        let weighted = MklModel::fit_weighted(&params, &x, &y, Some(&w)).unwrap();
        let copied = MklModel::fit(&params, &xc, &yc).unwrap();
        let (a, b) = (
            weighted.decision_function(&x).unwrap(),
            copied.decision_function(&x).unwrap(),
        );
        let gap = relative_gap(&a, &b);
        assert!(gap < 1e-6, "{name}: weights vs copies differ by {gap:e}");
        for (p, q) in weighted.weights().iter().zip(copied.weights()) {
            let d = p
                .iter()
                .zip(q)
                .fold(0.0f64, |m, (u, v)| m.max((u - v).abs()));
            assert!(d < 1e-6, "{name}: kernel weights {p:?} vs {q:?}");
        }
        let ones = MklModel::fit_weighted(&params, &x, &y, Some(&vec![1.0; y.len()])).unwrap();
        let plain = MklModel::fit(&params, &x, &y).unwrap();
        let gap = relative_gap(
            &ones.decision_function(&x).unwrap(),
            &plain.decision_function(&x).unwrap(),
        );
        assert!(gap < 1e-6, "{name}: unit weights vs none differ by {gap:e}");
    }
    // Weights 2 everywhere are the box 2C: UNIFORM at C = 4.
    let twos = MklModel::fit_weighted(&uniform(2.0), &x, &y, Some(&vec![2.0; y.len()])).unwrap();
    let c4 = MklModel::fit(&uniform(4.0), &x, &y).unwrap();
    let gap = relative_gap(
        &twos.decision_function(&x).unwrap(),
        &c4.decision_function(&x).unwrap(),
    );
    assert!(gap < 1e-6, "weights 2 vs C doubled differ by {gap:e}");
}

/// Rows of weight 0 (or negative) are absent rows: the fit equals the fit without them
/// (to rounding),
/// also when they hold a whole class (which the model then does not know). Weights that
/// leave no row, non-finite ones and a wrong count are refused with what is wrong.
#[test]
fn zero_weights_are_absent_rows() {
    let (x, y) = data("wine.csv");
    let mut w = vec![1.0; y.len()];
    let dropped: Vec<usize> = (0..y.len()).filter(|t| t % 3 == 0).collect();
    dropped
        .iter()
        .for_each(|&t| w[t] = if t % 2 == 0 { 0.0 } else { -1.0 });
    let kept = complement(y.len(), &dropped);
    let (xs, ys) = (
        x.select_rows(&kept),
        kept.iter().map(|&t| y[t]).collect::<Vec<_>>(),
    );
    let params = uniform(1.0);
    let weighted = MklModel::fit_weighted(&params, &x, &y, Some(&w)).unwrap();
    let removed = MklModel::fit(&params, &xs, &ys).unwrap();
    // The same problem; the weighted trace normalisation rounds differently.
    let gap = relative_gap(
        &weighted.decision_function(&x).unwrap(),
        &removed.decision_function(&x).unwrap(),
    );
    assert!(gap < 1e-12, "weight 0 vs removed rows differ by {gap:e}");
    // Class 3 only at weight 0: a two-class model.
    let w3: Vec<f64> = y
        .iter()
        .map(|&v| if v == 3.0 { 0.0 } else { 1.0 })
        .collect();
    let two = MklModel::fit_weighted(&params, &x, &y, Some(&w3)).unwrap();
    assert_eq!(two.machines.classes, vec![1.0, 2.0]);
    let err = |w: &[f64]| {
        MklModel::fit_weighted(&params, &x, &y, Some(w))
            .unwrap_err()
            .to_string()
    };
    assert!(err(&vec![0.0; y.len()]).contains("zero or negative"));
    let mut nan = vec![1.0; y.len()];
    nan[4] = f64::NAN;
    assert!(err(&nan).contains("weight 4 is NaN"), "{}", err(&nan));
    assert!(err(&[1.0; 3]).contains("3 weights for 178"));
}

/// MWUMKL, EasyMKL and LIBLINEAR+ refuse weights, naming the method and why, rather
/// than fitting as if every weight were 1.
#[test]
fn methods_without_a_weighted_form_refuse_weights() {
    let (x, y) = data("wine.csv");
    let w = vec![1.0; y.len()];
    let mkl = |method| MklLearner {
        params: MklParams::new(method, family()),
        search: None,
        fallback: true,
    };
    let nystrom = NystromLinearLearner {
        params: NystromLinearParams::new(family(), 20),
        search: None,
    };
    let refused: [(&dyn Learner, &str); 3] = [
        (&mkl(MklMethod::Mwumkl(MwumklParams::default())), "MWUMKL"),
        (
            &mkl(MklMethod::EasyMkl(EasyMklParams::default())),
            "EasyMKL",
        ),
        (&nystrom, "LIBLINEAR+"),
    ];
    for (learner, name) in refused {
        let e = learner.fit_weighted(&x, &y, &w, 0, &|_| {}).unwrap_err();
        let message = e.to_string();
        assert!(message.contains(name), "{message}");
        assert!(message.contains("per-sample weights"), "{message}");
    }
    let e = MklModel::fit_weighted(
        &MklParams::new(MklMethod::Mwumkl(MwumklParams::default()), family()),
        &x,
        &y,
        Some(&w),
    );
    assert!(e.unwrap_err().to_string().contains("mwumkl cannot honour"));
}

/// The weighted k-fold CV score of `params` at each of `cs`, written out: the folds of
/// the candidate CV (stratified, seeded), each fitted with its training rows' weights and
/// scored by the weighted accuracy of its held-out rows.
fn weighted_cv(x: &Features, y: &[f64], w: &[f64], c: f64, folds: usize, seed: u64) -> Vec<f64> {
    let params = uniform(c);
    stratified_kfold(y, folds, seed)
        .unwrap()
        .iter()
        .map(|test| {
            let train = complement(y.len(), test);
            let pick = |rows: &[usize], v: &[f64]| rows.iter().map(|&t| v[t]).collect::<Vec<_>>();
            let model = MklModel::fit_weighted(
                &params,
                &x.select_rows(&train),
                &pick(&train, y),
                Some(&pick(&train, w)),
            )
            .unwrap();
            let pred = model.predict(&x.select_rows(test)).unwrap();
            Scoring::Accuracy
                .score(&pred, &pick(test, y), Some(&pick(test, w)))
                .unwrap()
        })
        .collect()
}

/// A weighted UNIFORM selection scores as the weighted CV written out: without the
/// fallback, C over the grid by that CV; with it, SVM-CV's fold scores are those of the
/// weighted grid search, the candidate's those of the written-out CV at SVM-CV's C, and
/// a fallback's model is the weighted SVM at SVM-CV's choice.
#[test]
fn a_weighted_selection_scores_weighted_folds() {
    let (x, y) = data("heart.csv");
    let (x, y) = (
        x.select_rows(&(0..150).collect::<Vec<_>>()),
        y[..150].to_vec(),
    );
    let w: Vec<f64> = (0..y.len()).map(|t| [0.5, 1.0, 3.0, 0.0][t % 4]).collect();
    let settings = GridSettings {
        grid: Grid {
            sigmas: vec![1.0, 4.0],
            cs: vec![0.5, 8.0],
            epsilons: vec![],
        },
        folds: 3,
        confirm_always: true,
        ..GridSettings::default()
    };
    let learner = |fallback| MklLearner {
        params: uniform(1.0),
        search: Some(settings.clone()),
        fallback,
    };
    let fit = learner(false).fit_weighted(&x, &y, &w, 5, &|_| {}).unwrap();
    let scores: Vec<f64> = (settings.grid.cs.iter())
        .map(|&c| {
            let s = weighted_cv(&x, &y, &w, c, 3, 5);
            s.iter().sum::<f64>() / s.len() as f64
        })
        .collect();
    let best = if scores[1] > scores[0] { 1 } else { 0 };
    assert_eq!(fit.chosen.c, Some(settings.grid.cs[best]), "{scores:?}");
    assert!((fit.chosen.cv_score.unwrap() - scores[best]).abs() < 1e-12);

    let fit = learner(true).fit_weighted(&x, &y, &w, 5, &|_| {}).unwrap();
    let evidence = fit.chosen.fallback_evidence.clone().expect("the check ran");
    let mut grid = settings.search(
        &SvmParams {
            svm_type: SvmType::CSvc,
            solver: tight(),
            ..SvmParams::default()
        },
        5,
    );
    grid.sample_weights = Some(w.clone());
    let svm = grid.run(&x, &y, &|| {}).unwrap();
    assert_eq!(evidence.svm, svm.best.fold_scores);
    let learned = weighted_cv(&x, &y, &w, svm.params.c, 3, 5);
    for (a, b) in evidence.learned.iter().zip(&learned) {
        assert!(
            (a - b).abs() < 1e-12,
            "{:?} vs {learned:?}",
            evidence.learned
        );
    }
    if fit.chosen.other[FELL_BACK] == 1.0 {
        let model = SvmModel::fit_weighted(&svm.params, &x, &y, Some(&w)).unwrap();
        assert_eq!(fit.model.predict(&x).unwrap(), model.predict(&x).unwrap());
    }
}
