//! Grid search with k-fold cross-validation over (σ, C[, ε]) for RBF kernel machines:
//! the papers' "SVM-CV" and "SVR-CV".
//!
//! Speed comes from doing each piece of work once: the Gram matrix of the training set is
//! computed once per σ and shared by every fold and every C (when it fits the memory
//! budget; otherwise each fold uses the cached solver on its own points); along
//! increasing C each class pair of each fold is one [`crate::svm::CSvcPath`], whose `Q`
//! and solver state carry over from one C to the next (the previous solution stays
//! feasible because the box only grows); (σ, fold) pairs run in parallel, the costliest
//! first. See `docs/DESIGN.md`, "Grid search".

use super::gram::DenseGram;
use super::rows::SearchRows;
use super::scoring::Scoring;
use crate::data::{complement, kfold, stratified_kfold, Features, SparseFeatures};
use crate::kernel::{Kernel, KernelSource};
use crate::svm::{
    decisions_from_train_kernel, release_dense_storage, SubsetSource, SvmModel, SvmParams,
    SvmPaths, SvmType, WarmStart,
};
use crate::{Error, Result};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The hyper-parameter values to try. The Gaussian kernel is `exp(−‖x−x'‖²/σ²)`
/// (γ = 1/σ² in LIBSVM's terms).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Grid {
    /// Gaussian widths σ.
    pub sigmas: Vec<f64>,
    /// Trade-offs C.
    pub cs: Vec<f64>,
    /// SVR tube widths ε (ignored by classifiers). Empty = `Grid::default_epsilons`.
    pub epsilons: Vec<f64>,
}

/// `2^lo, 2^(lo+1), …, 2^hi`.
pub fn powers_of_two(lo: i32, hi: i32) -> Vec<f64> {
    (lo..=hi).map(|e| 2f64.powi(e)).collect()
}

impl Default for Grid {
    /// The papers' grid (DANK paper, section "Experiments"; applied to KNPL too): σ, C ∈ {2⁻⁵, …, 2⁵}.
    fn default() -> Self {
        Self {
            sigmas: powers_of_two(-5, 5),
            cs: powers_of_two(-5, 5),
            epsilons: Vec::new(),
        }
    }
}

impl Grid {
    /// ε for SVR when none are given: {0.01, 0.1, 0.5} × the standard deviation of the
    /// training targets, so the grid follows the targets' unit (the papers give no ε).
    pub(crate) fn default_epsilons(y: &[f64]) -> Vec<f64> {
        let n = y.len().max(1) as f64;
        let mean = y.iter().sum::<f64>() / n;
        let sd = (y.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n).sqrt();
        let sd = if sd > 0.0 { sd } else { 1.0 };
        [0.01, 0.1, 0.5].iter().map(|f| f * sd).collect()
    }

    fn validate(&self) -> Result<()> {
        let lists: [(&str, &[f64]); 3] = [
            ("sigma", &self.sigmas),
            ("C", &self.cs),
            ("epsilon", &self.epsilons),
        ];
        for (name, values) in lists {
            if values.is_empty() && name != "epsilon" {
                return Err(Error::param(
                    format!("{name} grid"),
                    "is empty; give at least one value",
                ));
            }
            let positive = name != "epsilon";
            if let Some(v) = values
                .iter()
                .find(|v| !v.is_finite() || **v < 0.0 || (positive && **v <= 0.0))
            {
                let need = if positive { "> 0" } else { ">= 0" };
                return Err(Error::param(
                    format!("{name} grid"),
                    format!("every value must be {need}, got {v}"),
                ));
            }
        }
        Ok(())
    }
}

/// One grid point and its cross-validated score.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GridPoint {
    /// Gaussian width σ (γ = 1/σ²).
    pub sigma: f64,
    /// Trade-off C.
    pub c: f64,
    /// SVR tube width (regression only).
    pub epsilon: Option<f64>,
    /// Mean over folds of the fold scores (accuracy, or MSE for regression), as
    /// scikit-learn's `GridSearchCV` averages them.
    pub score: f64,
    /// Score of each fold.
    pub fold_scores: Vec<f64>,
}

/// Scores of one fold, indexed `[ε][C]` in the grid's C order.
pub type FoldScores = Vec<Vec<f64>>;

/// What every block of a grid search shares ([`GridSearch::plan`]): a search split into
/// blocks of σ ([`GridSearch::score_sigmas`], e.g. one Ray task each) and put back
/// together ([`GridSearch::select`]) gives the single-process [`GridSearch::run`] result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GridPlan {
    /// Test indices of each fold.
    pub folds: Vec<Vec<usize>>,
    /// SVR tube widths (one `None` for classifiers).
    pub epsilons: Vec<Option<f64>>,
    /// Whether each σ's Gram matrix is held in memory.
    pub used_gram: bool,
}

/// Caller-given test folds of `n` rows, once checked: at least one (a single held-out
/// split validates too, as scikit-learn's `cv=[(train, test)]`), each with test and
/// training rows, every index a row, none twice in a fold.
fn checked_test_folds(folds: &[Vec<usize>], n: usize) -> Result<Vec<Vec<usize>>> {
    if folds.is_empty() {
        return Err(Error::param("test folds", "need at least 1 fold, got none"));
    }
    for (k, fold) in folds.iter().enumerate() {
        let mut rows = fold.clone();
        rows.sort_unstable();
        rows.dedup();
        let problem = if let Some(&i) = fold.iter().find(|&&i| i >= n) {
            Some(format!("row {i} is not one of the {n} rows"))
        } else if rows.len() != fold.len() {
            Some("a row is listed twice".to_string())
        } else if fold.is_empty() || fold.len() == n {
            Some(format!("{} of the {n} rows are test rows", fold.len()))
        } else {
            None
        };
        if let Some(p) = problem {
            return Err(Error::param("test folds", format!("fold {k}: {p}")));
        }
    }
    Ok(folds.to_vec())
}

impl GridPlan {
    fn check(&self, n: usize, y: &[f64]) -> Result<()> {
        if n != y.len() {
            return Err(Error::data(format!("{} labels for {n} rows", y.len())));
        }
        if self.folds.is_empty() || self.folds.iter().flatten().any(|&i| i >= n) {
            return Err(Error::param(
                "plan",
                format!("the folds are not a split of these {n} rows"),
            ));
        }
        if self.epsilons.is_empty() {
            return Err(Error::param("plan", "has no ε values"));
        }
        Ok(())
    }
}

/// Outcome of a grid search.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Selection {
    /// Parameters of the best grid point (the base parameters with σ, C, ε filled in).
    pub params: SvmParams,
    /// The best grid point.
    pub best: GridPoint,
    /// Every grid point, σ outermost, then ε, then C (in the grid's order).
    pub points: Vec<GridPoint>,
    /// The fold score's name ([`Scoring::name`]: `accuracy`, `balanced_accuracy`
    /// (higher is better), `mse`, `mae` (lower is better)).
    pub metric: String,
    /// How many grid points tied with the best score (1 = no tie).
    pub n_tied: usize,
    /// The rule that broke ties.
    pub tie_rule: String,
    /// Test indices of each fold.
    pub folds: Vec<Vec<usize>>,
    /// Whether Gram matrices were held in memory (false: cached solver per fold).
    pub used_gram: bool,
}

/// Grid search with k-fold cross-validation (stratified for classification).
#[derive(Clone, Debug)]
pub struct GridSearch {
    /// Formulation, solver settings and class weights; kernel, C and ε are set per point.
    pub base: SvmParams,
    /// Values to try.
    pub grid: Grid,
    /// Number of folds (the papers: 5).
    pub folds: usize,
    /// Seed of the fold assignment.
    pub seed: u64,
    /// Largest Gram matrix (in bytes, f32) held in memory; above it folds use the
    /// cached solver on their own points.
    pub gram_budget_bytes: usize,
    /// Per-sample weights of the training points (`None`: all 1). Each fold trains with
    /// the weights of its training points (points of zero or negative weight left out,
    /// as [`SvmModel::fit_weighted`]) and scores its test points weighted by theirs
    /// (weighted accuracy or MSE), as scikit-learn's `GridSearchCV` does with
    /// `sample_weight` passed to `fit`.
    pub sample_weights: Option<Vec<f64>>,
    /// Test rows of each fold chosen by the caller (e.g. a scikit-learn splitter), each
    /// fold training on the other rows; `None`: (stratified) k-fold from `folds` and
    /// `seed`.
    pub test_folds: Option<Vec<Vec<usize>>>,
    /// What each fold is scored by; `None`: accuracy, or MSE for regression.
    pub scoring: Option<Scoring>,
}

impl GridSearch {
    /// The papers' protocol: default grid, 5 folds, 1 GiB for the Gram matrix.
    pub fn new(base: SvmParams) -> Self {
        Self {
            base,
            grid: Grid::default(),
            folds: 5,
            seed: 0,
            gram_budget_bytes: 1 << 30,
            sample_weights: None,
            test_folds: None,
            scoring: None,
        }
    }

    fn is_regression(&self) -> bool {
        self.base.svm_type.is_regressor()
    }

    /// What the folds are scored by (the task's default unless set).
    fn scoring(&self) -> Scoring {
        (self.scoring).unwrap_or_else(|| Scoring::default_for(self.is_regression()))
    }

    /// Cross-validates every grid point on `(x, y)` and picks the best. `progress` is
    /// called once per (σ, fold) finished.
    pub fn run(&self, x: &Features, y: &[f64], progress: &(dyn Fn() + Sync)) -> Result<Selection> {
        self.run_rows(SearchRows::Dense(x), y, progress)
    }

    /// [`GridSearch::run`] on sparse (CSR) rows: the same folds, Gram matrices and warm
    /// starts, the kernel values computed as [`SvmModel::fit_sparse`] computes them, so
    /// that every fold's score is that of a sparse refit on the fold.
    pub fn run_sparse(
        &self,
        x: &SparseFeatures,
        y: &[f64],
        progress: &(dyn Fn() + Sync),
    ) -> Result<Selection> {
        self.run_rows(SearchRows::Sparse(x), y, progress)
    }

    /// [`GridSearch::run`] on dense or sparse rows.
    pub(crate) fn run_rows(
        &self,
        x: SearchRows,
        y: &[f64],
        progress: &(dyn Fn() + Sync),
    ) -> Result<Selection> {
        let plan = self.plan(x.n_rows(), y)?;
        // As many σ as their Gram matrices fit the budget are searched together, so that
        // all (σ, fold) pairs of a group share the cores (5 folds alone leave one idle).
        let bytes = DenseGram::bytes(x.n_rows()).max(1);
        let group = if plan.used_gram {
            (self.gram_budget_bytes / bytes).max(1)
        } else {
            1
        };
        let mut scores = Vec::with_capacity(self.grid.sigmas.len());
        for sigmas in self.grid.sigmas.chunks(group) {
            scores.extend(self.score_sigmas_of(&plan, sigmas, x, y, progress)?);
        }
        // The pool's threads keep the storage of their last dense Q for the next one.
        rayon::broadcast(|_| release_dense_storage());
        self.select(&plan, &scores)
    }

    /// What every block of the search shares: the checked grid, the folds (seeded,
    /// stratified for classification) and the ε values, for `n` rows labelled `y`.
    pub fn plan(&self, n: usize, y: &[f64]) -> Result<GridPlan> {
        let regression = self.is_regression();
        self.grid.validate()?;
        if self.scoring().is_for_regression() != regression {
            return Err(Error::param(
                "scoring",
                format!(
                    "{} scores {}, this search fits a {}",
                    self.scoring().name(),
                    if regression { "classes" } else { "values" },
                    if regression {
                        "regressor"
                    } else {
                        "classifier"
                    }
                ),
            ));
        }
        if n != y.len() {
            return Err(Error::data(format!("{} labels for {n} rows", y.len())));
        }
        self.check_weights(n)?;
        if let Some(w) = &self.sample_weights {
            if w.len() != n || w.iter().any(|v| !v.is_finite()) {
                return Err(Error::param(
                    "sample weights",
                    format!("need {n} finite weights (one per row), got {}", w.len()),
                ));
            }
        }
        let folds = match &self.test_folds {
            Some(folds) => checked_test_folds(folds, n)?,
            None if self.folds < 2 => {
                return Err(Error::param(
                    "folds",
                    format!("need at least 2, got {}", self.folds),
                ))
            }
            None if regression => kfold(n, self.folds, self.seed)?,
            None => stratified_kfold(y, self.folds, self.seed)?,
        };
        let epsilons: Vec<Option<f64>> = if !regression {
            vec![None]
        } else if self.grid.epsilons.is_empty() {
            Grid::default_epsilons(y).into_iter().map(Some).collect()
        } else {
            self.grid.epsilons.iter().copied().map(Some).collect()
        };
        Ok(GridPlan {
            folds,
            epsilons,
            used_gram: DenseGram::bytes(n) <= self.gram_budget_bytes,
        })
    }

    /// Fold scores of every σ of `sigmas` (one block of the search: one Gram matrix per
    /// σ shared by every fold and C), indexed `[σ][fold][ε][C]`, the (σ, fold) pairs in
    /// parallel, narrowest σ first. `progress` is called once per (σ, fold) finished.
    pub fn score_sigmas(
        &self,
        plan: &GridPlan,
        sigmas: &[f64],
        x: &Features,
        y: &[f64],
        progress: &(dyn Fn() + Sync),
    ) -> Result<Vec<Vec<FoldScores>>> {
        self.score_sigmas_of(plan, sigmas, SearchRows::Dense(x), y, progress)
    }

    fn score_sigmas_of(
        &self,
        plan: &GridPlan,
        sigmas: &[f64],
        x: SearchRows,
        y: &[f64],
        progress: &(dyn Fn() + Sync),
    ) -> Result<Vec<Vec<FoldScores>>> {
        let n = x.n_rows();
        plan.check(n, y)?;
        self.check_weights(n)?;
        let mut c_order: Vec<usize> = (0..self.grid.cs.len()).collect();
        c_order.sort_by(|&a, &b| self.grid.cs[a].total_cmp(&self.grid.cs[b]));
        let folds = &plan.folds;
        let kernels = sigmas
            .iter()
            .map(|&s| Kernel::rbf_sigma(s))
            .collect::<Result<Vec<_>>>()?;
        let grams = kernels
            .iter()
            .map(|k| plan.used_gram.then(|| x.gram(k)).transpose())
            .collect::<Result<Vec<_>>>()?;
        let pairs: Vec<(usize, &Vec<usize>)> = (0..sigmas.len())
            .flat_map(|s| folds.iter().map(move |f| (s, f)))
            .collect();
        // Narrow kernels take the longest (most support vectors, most iterations):
        // they start first, so that the cheap wide ones fill the gaps at the end.
        let mut order: Vec<usize> = (0..pairs.len()).collect();
        order.sort_by(|&a, &b| sigmas[pairs[a].0].total_cmp(&sigmas[pairs[b].0]));
        let scores = in_order(&order, |k| {
            let (s, test) = pairs[k];
            let job = FoldJob {
                search: self,
                kernel: &kernels[s],
                gram: grams[s].as_ref(),
                rows: x,
                y,
                train: self.fold_train(complement(n, test)),
                test,
            };
            let r = job.scores(&plan.epsilons, &c_order);
            progress();
            r
        })
        .into_iter()
        .collect::<Result<Vec<_>>>()?;
        Ok(scores
            .chunks(folds.len().max(1))
            .map(<[FoldScores]>::to_vec)
            .collect())
    }

    /// The grid points and the pick from the fold scores of every σ of the grid, in the
    /// grid's order (`[σ][fold][ε][C]`, as [`GridSearch::score_sigmas`] gives them).
    pub fn select(&self, plan: &GridPlan, scores: &[Vec<FoldScores>]) -> Result<Selection> {
        let (n_eps, n_c) = (plan.epsilons.len(), self.grid.cs.len());
        let shape_ok = scores.len() == self.grid.sigmas.len()
            && scores
                .iter()
                .flatten()
                .all(|f| f.len() == n_eps && f.iter().all(|row| row.len() == n_c))
            && scores.iter().all(|s| s.len() == plan.folds.len());
        if !shape_ok {
            return Err(Error::param(
                "scores",
                format!(
                    "need [σ][fold][ε][C] = [{}][{}][{n_eps}][{n_c}] fold scores",
                    self.grid.sigmas.len(),
                    plan.folds.len()
                ),
            ));
        }
        let mut points = Vec::new();
        for (per_fold, &sigma) in scores.iter().zip(&self.grid.sigmas) {
            for (e, &eps) in plan.epsilons.iter().enumerate() {
                for (ci, &c) in self.grid.cs.iter().enumerate() {
                    let fold_scores: Vec<f64> = per_fold.iter().map(|f| f[e][ci]).collect();
                    let score = fold_scores.iter().sum::<f64>() / fold_scores.len() as f64;
                    points.push(GridPoint {
                        sigma,
                        c,
                        epsilon: eps,
                        score,
                        fold_scores,
                    });
                }
            }
        }
        let (best, n_tied) = pick_best(&points, !self.scoring().higher_is_better());
        let mut params = self.params_at(&points[best])?;
        params.seed = self.base.seed;
        Ok(Selection {
            params,
            best: points[best].clone(),
            points,
            metric: self.scoring().name().into(),
            n_tied,
            tie_rule: "ties go to the simpler model: smaller C, then wider σ, then wider ε".into(),
            folds: plan.folds.clone(),
            used_gram: plan.used_gram,
        })
    }

    /// The base parameters with one grid point's σ, C and ε.
    pub fn params_at(&self, p: &GridPoint) -> Result<SvmParams> {
        let mut params = self.base.clone();
        params.kernel = Kernel::rbf_sigma(p.sigma)?;
        params.c = p.c;
        if let Some(e) = p.epsilon {
            params.epsilon = e;
        }
        Ok(params)
    }

    /// Runs the search, then refits the best parameters on all of `(x, y)`.
    pub fn fit_best(
        &self,
        x: &Features,
        y: &[f64],
        progress: &(dyn Fn() + Sync),
    ) -> Result<(Selection, SvmModel)> {
        let sel = self.run(x, y, progress)?;
        let model = SvmModel::fit_weighted(&sel.params, x, y, self.sample_weights.as_deref())?;
        Ok((sel, model))
    }

    /// One finite weight per row, when weights are given.
    fn check_weights(&self, n: usize) -> Result<()> {
        if let Some(w) = &self.sample_weights {
            if w.len() != n || w.iter().any(|v| !v.is_finite()) {
                return Err(Error::param(
                    "sample weights",
                    format!("need {n} finite weights (one per row), got {}", w.len()),
                ));
            }
            if w.iter().all(|&v| v <= 0.0) {
                return Err(Error::data(
                    "Invalid input - all samples have zero or negative weights.",
                ));
            }
        }
        Ok(())
    }

    /// A fold's training points: all of `train`, or with weights those of positive weight.
    fn fold_train(&self, train: Vec<usize>) -> Vec<usize> {
        match &self.sample_weights {
            None => train,
            Some(w) => train.into_iter().filter(|&i| w[i] > 0.0).collect(),
        }
    }
}

/// `job(k)` for every `k` in `order`, on all threads of the rayon pool: each thread takes
/// the next job of `order` when it is free (list scheduling). Results are indexed by `k`.
fn in_order<T: Send>(order: &[usize], job: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<T>>> = order.iter().map(|_| Mutex::new(None)).collect();
    let workers = rayon::current_num_threads().min(order.len());
    (0..workers).into_par_iter().for_each(|_| {
        while let Some(&k) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
            let r = job(k);
            *results[k].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
        }
    });
    results
        .into_iter()
        .map(|m| {
            m.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every job ran")
        })
        .collect()
}

/// Best point, and how many share its score. Ties: smaller C, then larger σ, then
/// larger ε (each makes the model simpler).
fn pick_best(points: &[GridPoint], lower_is_better: bool) -> (usize, usize) {
    let better = |a: f64, b: f64| if lower_is_better { a < b } else { a > b };
    let mut best = 0;
    for (i, p) in points.iter().enumerate().skip(1) {
        let b = &points[best];
        let simpler =
            (p.c, -p.sigma, -p.epsilon.unwrap_or(0.0)) < (b.c, -b.sigma, -b.epsilon.unwrap_or(0.0));
        if better(p.score, b.score) || (p.score == b.score && simpler) {
            best = i;
        }
    }
    let n_tied = points
        .iter()
        .filter(|p| p.score == points[best].score)
        .count();
    (best, n_tied)
}

/// The work of one fold for one σ: every ε and every C (ascending, warm-started).
struct FoldJob<'a> {
    search: &'a GridSearch,
    kernel: &'a Kernel,
    gram: Option<&'a DenseGram>,
    rows: SearchRows<'a>,
    y: &'a [f64],
    train: Vec<usize>,
    test: &'a [usize],
}

impl FoldJob<'_> {
    /// Scores indexed `[ε][C]` in the grid's C order.
    fn scores(&self, epsilons: &[Option<f64>], c_order: &[usize]) -> Result<Vec<Vec<f64>>> {
        let train_y: Vec<f64> = self.train.iter().map(|&i| self.y[i]).collect();
        let weights = self.search.sample_weights.as_ref();
        let train_w: Option<Vec<f64>> = weights.map(|w| self.train.iter().map(|&i| w[i]).collect());
        let train_w = train_w.as_deref();
        let test_w: Option<Vec<f64>> = weights.map(|w| self.test.iter().map(|&i| w[i]).collect());
        let test_y: Vec<f64> = self.test.iter().map(|&i| self.y[i]).collect();
        let source: Box<dyn KernelSource + '_> = match self.gram {
            Some(g) => Box::new(SubsetSource::new(g, self.train.clone())),
            None => self.rows.fold_source(self.kernel, &self.train)?,
        };
        let source = &*source;
        // Kernel values of the test points against the training points, once per fold.
        let test_kernel = self.gram.map(|g| g.block(self.test, &self.train));
        let cs = &self.search.grid.cs;
        let along_path = self.search.base.svm_type == SvmType::CSvc;
        let mut out = Vec::with_capacity(epsilons.len());
        for &eps in epsilons {
            let mut models: Vec<SvmModel> = Vec::with_capacity(c_order.len());
            let mut paths = SvmPaths::default();
            for &ci in c_order {
                let mut params = self.search.base.clone();
                params.kernel = self.kernel.clone();
                params.c = cs[ci];
                params.probability = false;
                if let Some(e) = eps {
                    params.epsilon = e;
                }
                let model = if along_path {
                    SvmModel::fit_source_path_weighted(
                        &params, source, &train_y, train_w, &mut paths,
                    )?
                } else {
                    let previous = models.last();
                    SvmModel::fit_source_warm(
                        &params,
                        source,
                        &train_y,
                        train_w,
                        previous.map(WarmStart::Model),
                    )?
                };
                models.push(model);
            }
            // Every C's predictions in one pass over the test kernel block.
            let predictions: Vec<Vec<f64>> = match &test_kernel {
                Some(k) => {
                    let refs: Vec<&SvmModel> = models.iter().collect();
                    decisions_from_train_kernel(&refs, k, self.train.len())
                        .iter()
                        .zip(&models)
                        .map(|(decisions, m)| {
                            decisions
                                .iter()
                                .map(|d| m.predict_from_decision(d))
                                .collect()
                        })
                        .collect()
                }
                None => models
                    .iter()
                    .map(|m| self.predict(m))
                    .collect::<Result<_>>()?,
            };
            let scoring = self.search.scoring();
            let mut row = vec![0.0; cs.len()];
            for (&ci, pred) in c_order.iter().zip(&predictions) {
                row[ci] = scoring.score(pred, &test_y, test_w.as_deref())?;
            }
            out.push(row);
        }
        Ok(out)
    }

    /// Predictions for the fold's test points from kernel values against the SVs,
    /// computed from the features (without a Gram matrix).
    fn predict(&self, model: &SvmModel) -> Result<Vec<f64>> {
        let decisions = (self.rows).decisions(self.kernel, model, &self.train, self.test)?;
        Ok(decisions
            .iter()
            .map(|d| model.predict_from_decision(d))
            .collect())
    }
}
