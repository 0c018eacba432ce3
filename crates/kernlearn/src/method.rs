//! A learning method together with how its hyper-parameters are chosen: the one thing
//! `kernlearn fit`, `evaluate`, `experiment` and the demo run.
//!
//! [`Method::fit`] turns a scaled training set into an [`AnyModel`] (plus the parameters
//! it used and the time spent selecting and fitting); everything after that goes through
//! the [`crate::estimator::Estimator`] trait. Adding a kernel-learning method means one
//! [`Method`] variant (its parameters and selection), one [`AnyModel`] variant (its fitted
//! model) and the match arms below.

use crate::data::Features;
use crate::estimator::Task;
use crate::estimator::{AnyModel, Estimator};
use crate::kernel::Kernel;
use crate::localized::{LocalizedModel, LocalizedParams};
use crate::mkl::{MklMethod, MklModel, MklParams, NystromLinearModel, NystromLinearParams};
use crate::nonparametric::dank::{dank_search_base, DankModel, DankParams};
use crate::nonparametric::knpl::{gamma_reference, KnplModel, KnplParams, KnplSearch};
use crate::nonparametric::scalable::{ScalableDankModel, ScalableDankParams};
use crate::nonparametric::Trace;
use crate::select::{Grid, GridSearch, Selection};
use crate::svm::{SvmModel, SvmParams};
use crate::Result;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Instant;

/// Grid and folds of a cross-validated selection (the papers' SVM-CV / SVR-CV).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GridSettings {
    /// Values to try (the papers': σ, C ∈ 2⁻⁵…2⁵).
    pub grid: Grid,
    /// Number of folds (the papers: 5).
    pub folds: usize,
    /// Largest Gram matrix held in memory, bytes (see [`GridSearch::gram_budget_bytes`]).
    pub gram_budget_bytes: usize,
}

impl Default for GridSettings {
    /// The papers' protocol: default grid, 5 folds, 1 GiB.
    fn default() -> Self {
        Self {
            grid: Grid::default(),
            folds: 5,
            gram_budget_bytes: 1 << 30,
        }
    }
}

impl GridSettings {
    /// The grid search over `base` with these settings and fold seed `seed`.
    pub fn search(&self, base: &SvmParams, seed: u64) -> GridSearch {
        let mut gs = GridSearch::new(base.clone());
        gs.grid = self.grid.clone();
        gs.folds = self.folds;
        gs.seed = seed;
        gs.gram_budget_bytes = self.gram_budget_bytes;
        gs
    }

    /// Units of progress one search reports (σ × fold).
    pub fn steps(&self) -> u64 {
        (self.grid.sigmas.len() * self.folds) as u64
    }
}

/// A method and its hyper-parameter selection.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Method {
    /// A kernel machine ([`SvmModel`]): `params` as given, or with σ, C (and ε) chosen
    /// by grid search on the training data when `search` is set (SVM-CV / SVR-CV).
    Svm {
        /// Formulation, kernel and solver settings (kernel, C, ε replaced when searching).
        params: SvmParams,
        /// Grid search settings; `None` fits `params` as they are.
        search: Option<GridSettings>,
    },
    /// KNPL (`G ⊙ K`): `params` as given, or σ, C by SVM-CV and then γ by k-fold CV
    /// ([`KnplSearch`]) when `search` is set.
    Knpl {
        /// Base kernel, C, γ and the ADMM / outer-loop settings.
        params: KnplParams,
        /// SVM-CV grid and folds of the σ, C stage (the γ stage uses the same folds).
        search: Option<GridSettings>,
        /// Without a search: set γ to the reference γ₀ of the data
        /// ([`crate::nonparametric::knpl::gamma_reference`]) instead of `params.gamma`.
        #[serde(default)]
        auto_gamma: bool,
    },
    /// DANK-SVM / DANK-SVR (`F ⊙ K`): `params` as given, or with σ, C (and ε) from
    /// SVM-CV / SVR-CV when `search` is set; τ and η from `params.settings` (the papers:
    /// τ = 0.01, η = ‖α_SVM‖²).
    Dank {
        /// Task, base kernel, C, ε and the solver settings.
        params: DankParams,
        /// Grid search of the σ, C (, ε) stage.
        search: Option<GridSettings>,
    },
    /// Multiple kernel learning: UNIFORM, MWUMKL or EasyMKL on a kernel family
    /// ([`MklModel`]). With `search`, the trade-off is chosen by stratified k-fold CV
    /// ([`MklParams::trade_off_candidates`]: C ∈ the grid's Cs for UNIFORM and MWUMKL,
    /// λ ∈ {0.1, …, 1} for EasyMKL); the kernels and MWUMKL's ε stay as given.
    Mkl {
        /// Method, its parameters and the base kernels.
        params: MklParams,
        /// Folds and the C values of the CV; `None` fits `params` as they are.
        #[serde(default)]
        search: Option<GridSettings>,
    },
    /// LIBLINEAR+: Nyström features of every base kernel and a linear SVM
    /// ([`NystromLinearModel`]); the landmark draw is seeded by the fit's seed. With
    /// `search`, the linear SVM's C is chosen by stratified k-fold CV over the grid's Cs.
    NystromLinear {
        /// Kernels, landmarks and the linear SVM.
        params: NystromLinearParams,
        /// Folds and the C values of the CV; `None` fits `params` as they are.
        #[serde(default)]
        search: Option<GridSettings>,
    },
    /// Scalable DANK (section 5 of the DANK paper, [`ScalableDankModel`]): k-means
    /// clusters, one box-only τ = 0 DANK subproblem per cluster. `params` as given, or
    /// with σ, C from SVM-CV when `search` is set (as for [`Method::Dank`]); the k-means
    /// seed is the fit's seed. Binary classification only.
    DankScalable {
        /// Base kernel, C, η, number of clusters and the subproblem solver settings.
        params: ScalableDankParams,
        /// Grid search of the σ, C stage.
        search: Option<GridSettings>,
        /// Set the number of clusters to
        /// [`ScalableDankParams::default_clusters`] of the rows the fit receives (so a
        /// split's training part, not the whole file, decides it).
        #[serde(default)]
        auto_clusters: bool,
    },
    /// Localized multiple kernel learning (Moeller 2017, chapter 4; [`LocalizedModel`]):
    /// LMKL, C-LMKL, SWMKL or LD-MKL on a kernel family. With `search`, the SVMs' C is
    /// chosen by stratified k-fold CV over the grid's Cs (the thesis fixes C = 1).
    Localized {
        /// Method, its settings, the base kernels, C and the solver.
        params: LocalizedParams,
        /// Folds and the C values of the CV; `None` fits `params` as they are.
        #[serde(default)]
        search: Option<GridSettings>,
    },
}

/// Progress of a fit or an experiment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// One unit of the method's selection or fitting work finished (SVM-CV: one σ × fold;
    /// scalable DANK: also one cluster).
    Step,
    /// Repeat `r` (0-based) of an experiment finished.
    RepeatDone(usize),
}

/// Hyper-parameters a fit used (selected or given).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ChosenParams {
    /// Gaussian width σ (`exp(−‖x−x'‖²/σ²)`), when the kernel is Gaussian.
    pub sigma: Option<f64>,
    /// Trade-off C.
    pub c: Option<f64>,
    /// SVR tube width ε (regression).
    pub epsilon: Option<f64>,
    /// Cross-validated score of the chosen point (accuracy or MSE), when selected.
    pub cv_score: Option<f64>,
    /// Method-specific values (KNPL's γ, DANK's τ and η, …).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub other: BTreeMap<String, f64>,
}

impl ChosenParams {
    /// σ (of a Gaussian kernel), C and ε.
    pub fn of(kernel: &Kernel, c: f64, epsilon: Option<f64>) -> Self {
        Self {
            sigma: match kernel {
                Kernel::Rbf { gamma } => Some(1.0 / gamma.sqrt()),
                _ => None,
            },
            c: Some(c),
            epsilon,
            ..Self::default()
        }
    }

    /// σ, C and ε of an SVM parameter set.
    pub fn of_svm(params: &SvmParams) -> Self {
        let eps = params.svm_type.is_regressor().then_some(params.epsilon);
        Self::of(&params.kernel, params.c, eps)
    }
}

/// What [`Method::fit`] returns.
#[derive(Clone, Debug)]
pub struct FittedMethod {
    /// The fitted model.
    pub model: AnyModel,
    /// The hyper-parameters used.
    pub chosen: ChosenParams,
    /// The grid search record, when one ran.
    pub selection: Option<Selection>,
    /// Seconds spent selecting hyper-parameters (0 without selection).
    pub select_seconds: f64,
    /// Seconds fitting the final model.
    pub fit_seconds: f64,
    /// Per-iteration records of the final fit (KNPL, DANK), for `--trace`.
    pub trace: Option<Trace>,
}

/// What a method reports for one train/test split.
#[derive(Clone, Debug)]
pub struct SplitOutcome {
    /// Predictions for the training part.
    pub train_pred: Vec<f64>,
    /// Predictions for the test part.
    pub test_pred: Vec<f64>,
    /// The parameters used (selected or fixed).
    pub chosen: ChosenParams,
    /// Support vectors (or the method's equivalent size measure).
    pub n_support: usize,
    /// Seconds spent selecting parameters (0 without selection).
    pub select_seconds: f64,
    /// Seconds fitting the final model.
    pub fit_seconds: f64,
    /// Seconds predicting the test part.
    pub predict_seconds: f64,
}

impl Method {
    /// The papers' name: `SVM-CV` / `SVR-CV` with a search, else the formulation
    /// (`c-svc`, `epsilon-svr`, …).
    pub fn name(&self) -> String {
        match self {
            Method::Svm { params, search } => match search {
                Some(_) if params.svm_type.is_regressor() => "SVR-CV".into(),
                Some(_) => "SVM-CV".into(),
                None => params.svm_type.to_string(),
            },
            Method::Knpl { .. } => "KNPL".into(),
            Method::Dank { params, .. } => match params.task {
                Task::Regression => "DANK-SVR".into(),
                _ => "DANK".into(),
            },
            Method::Mkl { params, .. } => match params.method {
                MklMethod::Uniform(_) => "UNIFORM".into(),
                MklMethod::Mwumkl(_) => "MWUMKL".into(),
                MklMethod::EasyMkl(_) => "EasyMKL".into(),
            },
            Method::NystromLinear { .. } => "LIBLINEAR+".into(),
            Method::DankScalable { .. } => "DANK-scalable".into(),
            Method::Localized { params, .. } => params.method.display_name().into(),
        }
    }

    /// Whether the targets are real values (scored by MSE and RSE).
    pub fn is_regression(&self) -> bool {
        match self {
            Method::Svm { params, .. } => params.svm_type.is_regressor(),
            Method::Knpl { .. } => false,
            Method::Dank { params, .. } => params.task == Task::Regression,
            Method::Mkl { .. } | Method::NystromLinear { .. } => false,
            Method::DankScalable { .. } | Method::Localized { .. } => false,
        }
    }

    /// Whether the method needs no labels (one-class).
    pub fn is_unsupervised(&self) -> bool {
        match self {
            Method::Svm { params, .. } => params.svm_type == crate::svm::SvmType::OneClass,
            Method::Knpl { .. } | Method::Dank { .. } | Method::DankScalable { .. } => false,
            Method::Mkl { .. } | Method::NystromLinear { .. } | Method::Localized { .. } => false,
        }
    }

    /// How many [`Progress::Step`] events one fit emits.
    pub fn steps(&self) -> u64 {
        match self {
            Method::Svm { search, .. }
            | Method::Knpl { search, .. }
            | Method::Dank { search, .. } => search.as_ref().map_or(0, GridSettings::steps),
            Method::Mkl { params, search } => search.as_ref().map_or(0, |s| {
                (params.trade_off_candidates(&s.grid).len() * s.folds) as u64
            }),
            Method::NystromLinear { search, .. } | Method::Localized { search, .. } => search
                .as_ref()
                .map_or(0, |s| (s.grid.cs.len() * s.folds) as u64),
            Method::DankScalable { params, search, .. } => {
                search.as_ref().map_or(0, GridSettings::steps) + params.clusters as u64
            }
        }
    }

    /// Selects hyper-parameters (when the method has a search) and fits on the scaled
    /// training data. `seed` seeds the method's own randomness (CV folds, probabilities).
    pub fn fit(
        &self,
        x: &Features,
        y: &[f64],
        seed: u64,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<FittedMethod> {
        match self {
            Method::Svm { params, search } => {
                let mut params = params.clone();
                params.seed = seed;
                let (selection, select_seconds) = match search {
                    Some(s) => {
                        let start = Instant::now();
                        let sel = s
                            .search(&params, seed)
                            .run(x, y, &|| progress(Progress::Step))?;
                        params = sel.params.clone();
                        (Some(sel), start.elapsed().as_secs_f64())
                    }
                    None => (None, 0.0),
                };
                let mut chosen = ChosenParams::of_svm(&params);
                chosen.cv_score = selection.as_ref().map(|s| s.best.score);
                let start = Instant::now();
                let model = SvmModel::fit(&params, x, y)?;
                Ok(FittedMethod {
                    model: AnyModel::Svm(model),
                    chosen,
                    selection,
                    select_seconds,
                    fit_seconds: start.elapsed().as_secs_f64(),
                    trace: None,
                })
            }
            Method::Knpl {
                params,
                search,
                auto_gamma,
            } => {
                let (params, chosen, selection, select_seconds) = match search {
                    Some(s) => {
                        let start = Instant::now();
                        let mut ks = KnplSearch::new(params.clone(), seed);
                        ks.grid = s.grid.clone();
                        ks.folds = s.folds;
                        ks.gram_budget_bytes = s.gram_budget_bytes;
                        let svm = ks.svm_search().run(x, y, &|| progress(Progress::Step))?;
                        let sel = ks.run_with_svm(x, y, svm)?;
                        let mut chosen = ChosenParams::of(&sel.params.kernel, sel.params.c, None);
                        chosen.cv_score = Some(sel.best.score);
                        chosen.other.insert("gamma".into(), sel.best.gamma);
                        chosen.other.insert("gamma_scale".into(), sel.best.scale);
                        let secs = start.elapsed().as_secs_f64();
                        (sel.params, chosen, Some(sel.svm), secs)
                    }
                    None => {
                        let mut params = params.clone();
                        if *auto_gamma {
                            params.gamma = gamma_reference(&params, x, y)?;
                        }
                        let mut chosen = ChosenParams::of(&params.kernel, params.c, None);
                        chosen.other.insert("gamma".into(), params.gamma);
                        (params, chosen, None, 0.0)
                    }
                };
                let start = Instant::now();
                let (model, trace) = KnplModel::fit(&params, x, y)?;
                Ok(FittedMethod {
                    model: AnyModel::Knpl(model),
                    chosen,
                    selection,
                    select_seconds,
                    fit_seconds: start.elapsed().as_secs_f64(),
                    trace: Some(trace),
                })
            }
            Method::Dank { params, search } => {
                let mut params = params.clone();
                let (selection, select_seconds) = match search {
                    Some(s) => {
                        let start = Instant::now();
                        let base = dank_search_base(params.task, &params.settings)?;
                        let sel = s
                            .search(&base, seed)
                            .run(x, y, &|| progress(Progress::Step))?;
                        params.kernel = sel.params.kernel.clone();
                        params.c = sel.params.c;
                        params.epsilon = sel.params.epsilon;
                        (Some(sel), start.elapsed().as_secs_f64())
                    }
                    None => (None, 0.0),
                };
                let eps = (params.task == Task::Regression).then_some(params.epsilon);
                let mut chosen = ChosenParams::of(&params.kernel, params.c, eps);
                chosen.cv_score = selection.as_ref().map(|s| s.best.score);
                chosen.other.insert("tau".into(), params.settings.tau);
                let start = Instant::now();
                let (model, traces) = DankModel::fit_traced(&params, x, y)?;
                if let Some(info) = model.info.first() {
                    chosen.other.insert("eta".into(), info.eta);
                }
                Ok(FittedMethod {
                    model: AnyModel::Dank(model),
                    chosen,
                    selection,
                    select_seconds,
                    fit_seconds: start.elapsed().as_secs_f64(),
                    // The first class pair's (or the regressor's) iterations.
                    trace: traces.into_iter().next(),
                })
            }
            Method::Mkl { params, search } => {
                let start = Instant::now();
                let (params, cv_score) = match search {
                    Some(s) => {
                        let candidates: Vec<MklParams> = params
                            .trade_off_candidates(&s.grid)
                            .into_iter()
                            .map(|v| params.with_trade_off(v))
                            .collect();
                        let methods: Vec<Method> = candidates
                            .iter()
                            .map(|p| Method::Mkl {
                                params: p.clone(),
                                search: None,
                            })
                            .collect();
                        let (best, score) =
                            select_candidate(&methods, x, y, s.folds, seed, progress)?;
                        (candidates[best].clone(), Some(score))
                    }
                    None => (params.clone(), None),
                };
                let select_seconds = start.elapsed().as_secs_f64();
                let mut chosen = ChosenParams {
                    cv_score,
                    ..ChosenParams::default()
                };
                match &params.method {
                    MklMethod::Uniform(p) => chosen.c = Some(p.c),
                    MklMethod::Mwumkl(p) => {
                        chosen.c = p.c;
                        chosen.other.insert("eps".into(), p.epsilon);
                    }
                    MklMethod::EasyMkl(p) => {
                        chosen.other.insert("lambda".into(), p.lambda);
                    }
                }
                let start = Instant::now();
                let model = MklModel::fit(&params, x, y)?;
                Ok(FittedMethod {
                    model: AnyModel::Mkl(model),
                    chosen,
                    selection: None,
                    select_seconds,
                    fit_seconds: start.elapsed().as_secs_f64(),
                    trace: None,
                })
            }
            Method::NystromLinear { params, search } => {
                let mut params = params.clone();
                params.seed = seed;
                let start = Instant::now();
                let cv_score = match search {
                    Some(s) => {
                        let methods: Vec<Method> = s
                            .grid
                            .cs
                            .iter()
                            .map(|&c| {
                                let mut p = params.clone();
                                p.svm.c = c;
                                Method::NystromLinear {
                                    params: p,
                                    search: None,
                                }
                            })
                            .collect();
                        let (best, score) =
                            select_candidate(&methods, x, y, s.folds, seed, progress)?;
                        params.svm.c = s.grid.cs[best];
                        Some(score)
                    }
                    None => None,
                };
                let select_seconds = start.elapsed().as_secs_f64();
                let mut chosen = ChosenParams {
                    c: Some(params.svm.c),
                    cv_score,
                    ..ChosenParams::default()
                };
                chosen
                    .other
                    .insert("landmarks".into(), params.landmarks as f64);
                let start = Instant::now();
                let model = NystromLinearModel::fit(&params, x, y)?;
                Ok(FittedMethod {
                    model: AnyModel::NystromLinear(model),
                    chosen,
                    selection: None,
                    select_seconds,
                    fit_seconds: start.elapsed().as_secs_f64(),
                    trace: None,
                })
            }
            Method::Localized { params, search } => {
                fit_localized(params, search, x, y, seed, progress)
            }
            Method::DankScalable {
                params,
                search,
                auto_clusters,
            } => {
                let mut params = params.clone();
                params.seed = seed;
                if *auto_clusters {
                    params.clusters = ScalableDankParams::default_clusters(x.n_rows());
                }
                let (selection, select_seconds) = match search {
                    Some(s) => {
                        let start = Instant::now();
                        let base = dank_search_base(Task::Classification, &params.settings)?;
                        let sel = s
                            .search(&base, seed)
                            .run(x, y, &|| progress(Progress::Step))?;
                        params.kernel = sel.params.kernel.clone();
                        params.c = sel.params.c;
                        (Some(sel), start.elapsed().as_secs_f64())
                    }
                    None => (None, 0.0),
                };
                let mut chosen = ChosenParams::of(&params.kernel, params.c, None);
                chosen.cv_score = selection.as_ref().map(|s| s.best.score);
                let start = Instant::now();
                let model = ScalableDankModel::fit_with_progress(&params, x, y, &|| {
                    progress(Progress::Step)
                })?;
                chosen
                    .other
                    .insert("clusters".into(), model.clusters.len() as f64);
                Ok(FittedMethod {
                    model: AnyModel::DankScalable(model),
                    chosen,
                    selection,
                    select_seconds,
                    fit_seconds: start.elapsed().as_secs_f64(),
                    trace: None,
                })
            }
        }
    }

    /// Fits on the (already scaled) training part and predicts both parts.
    pub fn run_split(
        &self,
        train_x: &Features,
        train_y: &[f64],
        test_x: &Features,
        seed: u64,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<SplitOutcome> {
        let fitted = self.fit(train_x, train_y, seed, progress)?;
        let model = &fitted.model;
        let train_pred = model.predict(train_x)?;
        let start = Instant::now();
        let test_pred = model.predict(test_x)?;
        Ok(SplitOutcome {
            train_pred,
            test_pred,
            n_support: model.summary().n_support.unwrap_or(0),
            chosen: fitted.chosen,
            select_seconds: fitted.select_seconds,
            fit_seconds: fitted.fit_seconds,
            predict_seconds: start.elapsed().as_secs_f64(),
        })
    }
}

/// [`Method::Localized`]: C by k-fold CV over the grid's Cs when `search` is set, then
/// the fit.
fn fit_localized(
    params: &LocalizedParams,
    search: &Option<GridSettings>,
    x: &Features,
    y: &[f64],
    seed: u64,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<FittedMethod> {
    let start = Instant::now();
    let mut params = params.clone();
    let cv_score = match search {
        Some(s) => {
            let with_c = |c: f64| LocalizedParams {
                c,
                ..params.clone()
            };
            let methods: Vec<Method> = s
                .grid
                .cs
                .iter()
                .map(|&c| Method::Localized {
                    params: with_c(c),
                    search: None,
                })
                .collect();
            let (best, score) = select_candidate(&methods, x, y, s.folds, seed, progress)?;
            params.c = s.grid.cs[best];
            Some(score)
        }
        None => None,
    };
    let select_seconds = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let model = LocalizedModel::fit(&params, x, y)?;
    let mut chosen = ChosenParams {
        c: Some(params.c),
        cv_score,
        ..ChosenParams::default()
    };
    chosen
        .other
        .insert("support_percent".into(), model.support_percent());
    Ok(FittedMethod {
        model: AnyModel::Localized(model),
        chosen,
        selection: None,
        select_seconds,
        fit_seconds: start.elapsed().as_secs_f64(),
        trace: None,
    })
}

/// k-fold cross-validation of fixed-parameter candidates (each fitted with its own
/// parameters, no inner search): stratified folds seeded by `seed` for classification,
/// plain folds for regression; all (candidate, fold) fits run in parallel and each
/// reports one [`Progress::Step`]. Returns the index of the best candidate and its mean
/// fold score (accuracy, or MSE for regression). Ties go to the earlier candidate, so
/// callers list the simpler models first.
pub fn select_candidate(
    candidates: &[Method],
    x: &Features,
    y: &[f64],
    folds: usize,
    seed: u64,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<(usize, f64)> {
    use crate::data::{complement, kfold, stratified_kfold};
    use rayon::prelude::*;
    let Some(first) = candidates.first() else {
        return Err(crate::Error::param(
            "grid",
            "is empty; give at least one value",
        ));
    };
    let regression = first.is_regression();
    let folds = if regression {
        kfold(y.len(), folds, seed)?
    } else {
        stratified_kfold(y, folds, seed)?
    };
    let jobs: Vec<(usize, &Vec<usize>)> = (0..candidates.len())
        .flat_map(|c| folds.iter().map(move |f| (c, f)))
        .collect();
    let scores: Vec<f64> = jobs
        .par_iter()
        .map(|&(c, test)| {
            let train = complement(y.len(), test);
            let pick = |rows: &[usize]| rows.iter().map(|&i| y[i]).collect::<Vec<f64>>();
            let fitted = candidates[c].fit(&x.select_rows(&train), &pick(&train), seed, &|_| {})?;
            let pred = fitted.model.predict(&x.select_rows(test))?;
            progress(Progress::Step);
            if regression {
                crate::metrics::mse(&pred, &pick(test))
            } else {
                crate::metrics::accuracy(&pred, &pick(test))
            }
        })
        .collect::<Result<_>>()?;
    let means: Vec<f64> = scores
        .chunks(folds.len())
        .map(|s| s.iter().sum::<f64>() / s.len() as f64)
        .collect();
    let better = |a: f64, b: f64| if regression { a < b } else { a > b };
    let best = (1..means.len()).fold(0, |b, c| if better(means[c], means[b]) { c } else { b });
    Ok((best, means[best]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::synthetic::sandwich;
    use crate::select::powers_of_two;

    /// The generic candidate CV scores a list of fixed SVMs exactly as the grid search
    /// scores the same points on the same folds (an independent code path: Gram reuse,
    /// C paths, warm starts).
    #[test]
    fn candidate_cv_matches_the_grid_search() {
        let data = sandwich(150, 0.3, 4).unwrap();
        let settings = GridSettings {
            grid: Grid {
                sigmas: vec![0.5],
                cs: powers_of_two(-3, 5),
                epsilons: vec![],
            },
            ..GridSettings::default()
        };
        let base = SvmParams::default();
        let selection = settings
            .search(&base, 7)
            .run(&data.x, &data.y, &|| {})
            .unwrap();
        let candidates: Vec<Method> = settings
            .grid
            .cs
            .iter()
            .map(|&c| Method::Svm {
                params: SvmParams {
                    kernel: Kernel::rbf_gamma(4.0).unwrap(),
                    c,
                    ..base.clone()
                },
                search: None,
            })
            .collect();
        let (best, score) = select_candidate(&candidates, &data.x, &data.y, 5, 7, &|_| {}).unwrap();
        assert!(
            (score - selection.best.score).abs() < 1e-12,
            "{score} vs {}",
            selection.best.score
        );
        assert_eq!(settings.grid.cs[best], selection.best.c);
        assert!(select_candidate(&[], &data.x, &data.y, 5, 7, &|_| {}).is_err());
    }
}
