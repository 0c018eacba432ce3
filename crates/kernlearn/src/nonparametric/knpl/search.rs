//! KNPL model selection (the papers' protocol): σ and C by SVM-CV, then γ by 5-fold CV
//! of KNPL itself (KNPL paper, section "Experimental Setup") over a grid scaled by the
//! reference γ₀ of the data ([`gamma_reference`], [`KnplSearch`]).

use super::admm::gamma_target;
use super::fit::solve_alpha;
use super::model::KnplModel;
use super::params::KnplParams;
use crate::check::positive_finite;
use crate::data::{complement, stratified_kfold, Features};
use crate::metrics::accuracy;
use crate::multiclass::class_groups;
use crate::select::{Grid, GridSearch, Selection};
use crate::svm::SvmParams;
use crate::{Error, Result};
use faer::Mat;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// One γ of the KNPL γ search and its cross-validated accuracy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GammaPoint {
    /// Multiple `s` of the reference γ₀ (`gamma_reference`).
    pub scale: f64,
    /// γ = s·γ₀.
    pub gamma: f64,
    /// Mean fold accuracy.
    pub score: f64,
    /// Accuracy of each fold.
    pub fold_scores: Vec<f64>,
}

/// Outcome of `KnplSearch::run`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KnplSelection {
    /// The chosen parameters (σ, C from SVM-CV, γ from the γ search).
    pub params: KnplParams,
    /// The SVM-CV grid search that chose σ and C.
    pub svm: Selection,
    /// γ₀, the γ at which `‖Γ(α_SVM)‖_F = ‖11ᵀ‖_F = n` (averaged over class pairs).
    pub gamma_reference: f64,
    /// Every γ tried, in grid order.
    pub gamma_points: Vec<GammaPoint>,
    /// The best γ point.
    pub best: GammaPoint,
}

/// The reference regulariser γ₀ of the γ grid: with the plain SVM's α on each class
/// pair (σ, C as given), `γ₀ = ‖¼ diag(α∘y) K diag(α∘y)‖_F / n`, so that at γ = γ₀ the
/// target `Γ(α)` has the Frobenius norm `n` of the anchor `11ᵀ` (the minimiser of
/// `‖G‖_F` on `{G1 = n1}`). Averaged over class pairs.
pub(crate) fn gamma_reference(params: &KnplParams, x: &Features, y: &[f64]) -> Result<f64> {
    let (_, members) = class_groups(y);
    let mut refs = Vec::new();
    for i in 0..members.len() {
        for j in i + 1..members.len() {
            let idx: Vec<usize> = members[i].iter().chain(&members[j]).copied().collect();
            let yp: Vec<f64> = idx
                .iter()
                .map(|&t| if y[t] == y[members[i][0]] { 1.0 } else { -1.0 })
                .collect();
            let k = params.kernel.gram(&x.select_rows(&idx))?;
            let ones = Mat::<f64>::from_fn(idx.len(), idx.len(), |_, _| 1.0);
            let sol = solve_alpha(ones.as_ref(), k.as_ref(), &yp, params, None)?;
            let norm = gamma_target(k.as_ref(), &sol.coef, 1.0).norm_l2();
            refs.push(norm / idx.len() as f64);
        }
    }
    let mean = refs.iter().sum::<f64>() / refs.len().max(1) as f64;
    Ok(if mean > 0.0 && mean.is_finite() {
        mean
    } else {
        1.0
    })
}

/// KNPL model selection (the papers' protocol): σ and C by SVM-CV (5-fold grid search
/// over 2⁻⁵…2⁵), then γ by 5-fold CV of KNPL itself with σ, C fixed.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct KnplSearch {
    /// Outer/ADMM/solver settings; kernel, C and γ are filled in by the search.
    pub base: KnplParams,
    /// σ, C grid of SVM-CV.
    pub grid: Grid,
    /// Multiples `s` of γ₀ to try, γ = s·γ₀ (default {10⁻², 10⁻¹, 1, 10, 10²}).
    ///
    /// The paper gives no γ grid. γ only matters relative to the size of `Γ(α)`, which
    /// scales with C² and the kernel: γ₀ (`gamma_reference`) is where the data term
    /// `Γ` and the anchor `11ᵀ` of the constraint `G1 = n1` have equal norm. Two decades
    /// either side go from `G ≈ Π(Γ)` (data-driven, 100× the anchor) to `G ≈ 11ᵀ` (the
    /// plain SVM, 1 % perturbation), so the grid spans both regimes on every problem.
    pub gamma_scales: Vec<f64>,
    /// Folds of both searches (the papers: 5).
    pub folds: usize,
    /// Seed of the fold assignment (the same folds for both searches).
    pub seed: u64,
    /// Largest Gram matrix held in memory by the SVM-CV search (bytes).
    pub gram_budget_bytes: usize,
}

impl KnplSearch {
    /// The papers' protocol with `base`'s outer/ADMM settings.
    pub fn new(base: KnplParams, seed: u64) -> Self {
        Self {
            base,
            grid: Grid::default(),
            gamma_scales: vec![1e-2, 1e-1, 1.0, 1e1, 1e2],
            folds: 5,
            seed,
            gram_budget_bytes: 1 << 30,
        }
    }

    /// The SVM-CV search of the first stage.
    pub fn svm_search(&self) -> GridSearch {
        let base = SvmParams {
            solver: self.base.solver,
            ..SvmParams::default()
        };
        GridSearch {
            base,
            grid: self.grid.clone(),
            folds: self.folds,
            seed: self.seed,
            gram_budget_bytes: self.gram_budget_bytes,
            sample_weights: None,
            test_folds: None,
            scoring: None,
        }
    }

    /// Both stages on `(x, y)`.
    #[cfg(test)]
    pub(crate) fn run(&self, x: &Features, y: &[f64]) -> Result<KnplSelection> {
        x.check_training(y, true)?;
        let svm = self.svm_search().run(x, y, &|| {})?;
        self.run_with_svm(x, y, svm)
    }

    /// The γ stage given an SVM-CV selection already made on `(x, y)` (so a protocol that
    /// also reports SVM-CV runs the grid search once).
    pub fn run_with_svm(&self, x: &Features, y: &[f64], svm: Selection) -> Result<KnplSelection> {
        x.check_training(y, true)?;
        if self.gamma_scales.is_empty() {
            return Err(Error::param(
                "gamma grid",
                "is empty; give at least one scale",
            ));
        }
        for &s in &self.gamma_scales {
            positive_finite("gamma grid", s)?;
        }
        let mut params = self.base.clone();
        params.kernel = svm.params.kernel.clone();
        params.c = svm.params.c;
        params.validate()?;
        let gamma0 = gamma_reference(&params, x, y)?;
        let folds = stratified_kfold(y, self.folds, self.seed)?;
        let jobs: Vec<(usize, &Vec<usize>)> = (0..self.gamma_scales.len())
            .flat_map(|s| folds.iter().map(move |f| (s, f)))
            .collect();
        let scores: Vec<f64> = jobs
            .par_iter()
            .map(|&(s, test)| {
                let mut p = params.clone();
                p.gamma = self.gamma_scales[s] * gamma0;
                fold_accuracy(&p, x, y, test)
            })
            .collect::<Result<_>>()?;
        let points: Vec<GammaPoint> = self
            .gamma_scales
            .iter()
            .enumerate()
            .map(|(s, &scale)| {
                let fold_scores = scores[s * folds.len()..(s + 1) * folds.len()].to_vec();
                GammaPoint {
                    scale,
                    gamma: scale * gamma0,
                    score: fold_scores.iter().sum::<f64>() / fold_scores.len() as f64,
                    fold_scores,
                }
            })
            .collect();
        // Ties go to the larger γ: the model closer to the plain SVM.
        let best = points
            .iter()
            .max_by(|a, b| {
                a.score
                    .total_cmp(&b.score)
                    .then(a.gamma.total_cmp(&b.gamma))
            })
            .cloned()
            .expect("non-empty γ grid");
        params.gamma = best.gamma;
        Ok(KnplSelection {
            params,
            svm,
            gamma_reference: gamma0,
            gamma_points: points,
            best,
        })
    }
}

/// Accuracy on fold `test` of KNPL trained on the rest.
fn fold_accuracy(params: &KnplParams, x: &Features, y: &[f64], test: &[usize]) -> Result<f64> {
    let train = complement(x.n_rows(), test);
    let ty: Vec<f64> = train.iter().map(|&i| y[i]).collect();
    let (model, _) = KnplModel::fit(params, &x.select_rows(&train), &ty)?;
    let pred = model.predict(&x.select_rows(test))?;
    let truth: Vec<f64> = test.iter().map(|&i| y[i]).collect();
    accuracy(&pred, &truth)
}

#[cfg(test)]
mod tests {
    use super::super::testing::sine_data;
    use super::*;
    use crate::select::Grid;

    #[test]
    fn gamma_search_scores_match_plain_refits() {
        let (x, y) = sine_data(40, 11);
        let mut search = KnplSearch::new(
            KnplParams {
                outer_iters: 2,
                ..KnplParams::default()
            },
            3,
        );
        search.grid = Grid {
            sigmas: vec![0.5, 1.0],
            cs: vec![1.0, 8.0],
            epsilons: Vec::new(),
        };
        search.gamma_scales = vec![0.1, 10.0];
        let sel = search.run(&x, &y).unwrap();
        assert_eq!(sel.gamma_points.len(), 2);
        assert!(sel.gamma_points.iter().any(|g| g.gamma == sel.params.gamma));
        assert_eq!(sel.params.c, sel.svm.best.c);
        // Recompute one point by hand on the same folds.
        let folds = stratified_kfold(&y, 5, 3).unwrap();
        let point = &sel.gamma_points[0];
        let mut p = sel.params.clone();
        p.gamma = point.gamma;
        for (f, test) in folds.iter().enumerate() {
            let train = complement(40, test);
            let ty: Vec<f64> = train.iter().map(|&i| y[i]).collect();
            let (m, _) = KnplModel::fit(&p, &x.select_rows(&train), &ty).unwrap();
            let pred = m.predict(&x.select_rows(test)).unwrap();
            let hits = test.iter().zip(&pred).filter(|(&i, &q)| y[i] == q).count();
            let acc = hits as f64 / test.len() as f64;
            assert!((acc - point.fold_scores[f]).abs() < 1e-12);
        }
    }
}
