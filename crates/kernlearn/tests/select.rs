//! Grid search: its shortcuts (one Gram matrix per σ, warm starts along C, parallel folds)
//! must not change any cross-validation score, checked against plain refits; and bad
//! grids get clear errors.

use kernlearn::data::{complement, read_csv, Dataset};
use kernlearn::metrics::{accuracy, mse};
use kernlearn::select::{Grid, GridSearch};
use kernlearn::svm::{SvmModel, SvmParams, SvmType};
use std::path::Path;

fn fixture(name: &str) -> Dataset {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(name);
    read_csv(&p, None).unwrap()
}

fn small_grid() -> Grid {
    Grid {
        sigmas: vec![0.5, 1.0, 4.0],
        cs: vec![8.0, 0.25, 1.0],
        epsilons: vec![],
    }
}

/// The CV score of a point recomputed the slow way: fresh fit per fold, features kernel.
fn brute_force(
    search: &GridSearch,
    data: &Dataset,
    sel_folds: &[Vec<usize>],
    p: &kernlearn::select::GridPoint,
) -> f64 {
    let params = search.params_at(p).unwrap();
    let n = data.len();
    let scores: Vec<f64> = sel_folds
        .iter()
        .map(|test| {
            let train = data.subset(&complement(n, test));
            let held = data.subset(test);
            let model = SvmModel::fit(&params, &train.x, &train.y).unwrap();
            let pred = model.predict(&held.x).unwrap();
            if params.svm_type.is_regressor() {
                mse(&pred, &held.y).unwrap()
            } else {
                accuracy(&pred, &held.y).unwrap()
            }
        })
        .collect();
    scores.iter().sum::<f64>() / scores.len() as f64
}

#[test]
fn classification_scores_equal_plain_refits() {
    for name in ["heart.train.csv", "wine.train.csv"] {
        let data = fixture(name);
        let mut search = GridSearch::new(SvmParams::default());
        search.grid = small_grid();
        let sel = search.run(&data.x, &data.y, &|| {}).unwrap();
        assert!(sel.used_gram);
        assert_eq!(sel.points.len(), 9);
        for p in &sel.points {
            let slow = brute_force(&search, &data, &sel.folds, p);
            assert!(
                (p.score - slow).abs() < 1e-9,
                "{name} σ={} C={}: grid {} vs refit {}",
                p.sigma,
                p.c,
                p.score,
                slow
            );
        }
        let best = sel.points.iter().map(|p| p.score).fold(f64::MIN, f64::max);
        assert_eq!(sel.best.score, best);
        // Without the Gram matrix (budget 0) the same scores come out.
        search.gram_budget_bytes = 0;
        let again = search.run(&data.x, &data.y, &|| {}).unwrap();
        assert!(!again.used_gram);
        for (a, b) in sel.points.iter().zip(&again.points) {
            assert!((a.score - b.score).abs() < 1e-9);
        }
    }
}

#[test]
fn regression_scores_equal_plain_refits() {
    let data = fixture("housing.train.csv");
    let mut base = SvmParams::default();
    base.svm_type = SvmType::EpsilonSvr;
    let mut search = GridSearch::new(base);
    search.grid = Grid {
        sigmas: vec![0.5, 2.0],
        cs: vec![1.0, 16.0],
        epsilons: vec![0.5, 2.0],
    };
    let sel = search.run(&data.x, &data.y, &|| {}).unwrap();
    assert_eq!(sel.metric, "mse");
    assert_eq!(sel.points.len(), 8);
    // Warm starts reach another point of the same ε-optimal set, so the fold MSEs agree
    // to the solver's tolerance rather than exactly.
    for p in &sel.points {
        let slow = brute_force(&search, &data, &sel.folds, p);
        assert!((p.score - slow).abs() < 1e-4 * slow, "{p:?} vs {slow}");
    }
    let best = sel.points.iter().map(|p| p.score).fold(f64::MAX, f64::min);
    assert_eq!(sel.best.score, best);
}

#[test]
fn ties_go_to_smaller_c_then_wider_sigma() {
    // Two well-separated clusters: many grid points reach 100% accuracy.
    let data = fixture("tiny.train.csv");
    let mut search = GridSearch::new(SvmParams::default());
    search.grid = Grid {
        sigmas: vec![0.25, 1.0, 4.0],
        cs: vec![4.0, 16.0, 64.0],
        epsilons: vec![],
    };
    search.folds = 2;
    let sel = search.run(&data.x, &data.y, &|| {}).unwrap();
    let best = sel.best.score;
    let tied: Vec<_> = sel.points.iter().filter(|p| p.score == best).collect();
    assert_eq!(sel.n_tied, tied.len());
    let min_c = tied.iter().map(|p| p.c).fold(f64::MAX, f64::min);
    let max_sigma = tied
        .iter()
        .filter(|p| p.c == min_c)
        .map(|p| p.sigma)
        .fold(0.0, f64::max);
    assert_eq!((sel.best.c, sel.best.sigma), (min_c, max_sigma));
}

#[test]
fn bad_grids_are_refused() {
    let data = fixture("heart.train.csv");
    let run = |grid: Grid, folds: usize| {
        let mut s = GridSearch::new(SvmParams::default());
        s.grid = grid;
        s.folds = folds;
        s.run(&data.x, &data.y, &|| {}).unwrap_err().to_string()
    };
    let e = run(
        Grid {
            sigmas: vec![],
            ..small_grid()
        },
        5,
    );
    assert!(e.contains("sigma grid") && e.contains("empty"), "{e}");
    let e = run(
        Grid {
            cs: vec![1.0, 0.0],
            ..small_grid()
        },
        5,
    );
    assert!(e.contains("C grid") && e.contains("> 0"), "{e}");
    let e = run(
        Grid {
            sigmas: vec![-1.0],
            ..small_grid()
        },
        5,
    );
    assert!(e.contains("sigma grid"), "{e}");
    let e = run(small_grid(), 100);
    assert!(
        e.contains("fewer than 100 folds") || e.contains("100"),
        "{e}"
    );
    let e = run(small_grid(), 1);
    assert!(e.contains("folds") || e.contains("k"), "{e}");
    // A score of the other task is refused, naming it.
    let data = fixture("heart.train.csv");
    let mut search = GridSearch::new(SvmParams::default());
    search.grid = small_grid();
    search.scoring = Some(kernlearn::select::Scoring::Mse);
    let e = search
        .run(&data.x, &data.y, &|| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains("scoring") && e.contains("mse"), "{e}");
}

/// Folds given by the caller (a scikit-learn splitter's test rows) are the ones scored:
/// each point's score equals plain refits on them; folds that are not a split of the
/// rows are refused, naming the fold and the problem.
#[test]
fn caller_given_folds_are_scored_and_checked() {
    let data = fixture("heart.train.csv");
    let n = data.y.len();
    let folds: Vec<Vec<usize>> = (0..3)
        .map(|k| (0..n).filter(|i| i % 3 == k).collect())
        .collect();
    let mut search = GridSearch::new(SvmParams::default());
    search.grid = small_grid();
    search.test_folds = Some(folds.clone());
    let sel = search.run(&data.x, &data.y, &|| {}).unwrap();
    assert_eq!(sel.folds, folds);
    for p in &sel.points {
        let slow = brute_force(&search, &data, &sel.folds, p);
        assert!((p.score - slow).abs() < 1e-9, "{} vs {slow}", p.score);
    }
    // One held-out split is scored as its refit too.
    search.test_folds = Some(vec![folds[0].clone()]);
    let one = search.run(&data.x, &data.y, &|| {}).unwrap();
    for p in &one.points {
        let slow = brute_force(&search, &data, &one.folds, p);
        assert!((p.score - slow).abs() < 1e-9, "{} vs {slow}", p.score);
    }
    let mut refused = |test_folds: Vec<Vec<usize>>| {
        search.test_folds = Some(test_folds);
        search
            .run(&data.x, &data.y, &|| {})
            .unwrap_err()
            .to_string()
    };
    let e = refused(vec![]);
    assert!(e.contains("at least 1 fold"), "{e}");
    let e = refused(vec![folds[0].clone(), vec![0, n]]);
    assert!(
        e.contains("fold 1") && e.contains(&format!("row {n}")),
        "{e}"
    );
    let e = refused(vec![folds[0].clone(), vec![1, 1]]);
    assert!(e.contains("fold 1") && e.contains("twice"), "{e}");
    let e = refused(vec![folds[0].clone(), vec![]]);
    assert!(e.contains("fold 1") && e.contains("test rows"), "{e}");
}

/// On sparse (CSR) rows every point's score is that of plain sparse refits on its folds
/// (with and without the Gram matrix, with weights too), and equals the dense search's.
#[test]
fn sparse_rows_score_as_sparse_refits_and_as_the_dense_search() {
    use kernlearn::data::SparseFeatures;
    let data = fixture("heart.train.csv");
    let x = SparseFeatures::from_dense(&data.x).unwrap();
    let n = data.len();
    let weights: Vec<f64> = (0..n).map(|i| 0.5 + (i % 3) as f64).collect();
    for w in [None, Some(weights)] {
        let mut search = GridSearch::new(SvmParams::default());
        search.grid = small_grid();
        search.sample_weights = w.clone();
        let sel = search.run_sparse(&x, &data.y, &|| {}).unwrap();
        assert!(sel.used_gram);
        let dense = search.run(&data.x, &data.y, &|| {}).unwrap();
        for p in &sel.points {
            let params = search.params_at(p).unwrap();
            let mut correct = 0.0;
            let mut total = 0.0;
            for test in &sel.folds {
                let train = complement(n, test);
                let tw = w
                    .as_ref()
                    .map(|w| train.iter().map(|&i| w[i]).collect::<Vec<_>>());
                let ty: Vec<f64> = train.iter().map(|&i| data.y[i]).collect();
                let model = SvmModel::fit_sparse_weighted(
                    &params,
                    &x.select_rows(&train),
                    &ty,
                    tw.as_deref(),
                )
                .unwrap();
                let pred = model.predict_sparse(&x.select_rows(test)).unwrap();
                let (mut c, mut t) = (0.0, 0.0);
                for (&i, &yhat) in test.iter().zip(&pred) {
                    let wi = w.as_ref().map_or(1.0, |w| w[i]);
                    c += wi * f64::from(u8::from(yhat == data.y[i]));
                    t += wi;
                }
                correct += c / t;
                total += 1.0;
            }
            let slow = correct / total;
            assert!(
                (p.score - slow).abs() < 1e-9,
                "σ={} C={}: grid {} vs sparse refit {slow}",
                p.sigma,
                p.c,
                p.score
            );
        }
        for (a, b) in sel.points.iter().zip(&dense.points) {
            assert!(
                (a.score - b.score).abs() < 1e-9,
                "σ={} C={}: sparse {} vs dense {}",
                a.sigma,
                a.c,
                a.score,
                b.score
            );
        }
        search.gram_budget_bytes = 0;
        let streamed = search.run_sparse(&x, &data.y, &|| {}).unwrap();
        assert!(!streamed.used_gram);
        for (a, b) in sel.points.iter().zip(&streamed.points) {
            assert!((a.score - b.score).abs() < 1e-9);
        }
    }
}
