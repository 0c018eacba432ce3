//! KNPL, DANK and scalable DANK as [`Learner`]s: each takes σ, C (and ε) from the
//! papers' SVM-CV / SVR-CV first when a search is set, then learns its Gram matrix.

use super::catalogue::{
    CLUSTERS, DANK_SCHEME, DANK_START, DANK_STEP, ETA, KNPL_ALTERNATE, KNPL_GAMMA, TAU,
};
use super::dank::{dank_search_base, DankModel, DankParams, DankSettings};
use super::knpl::{gamma_reference, KnplModel, KnplParams, KnplScheme, KnplSearch};
use super::scalable::{ScalableDankModel, ScalableDankParams};
use crate::data::{Dataset, Features};
use crate::learner::fallback::{finish, Decision, Fallback, Kept};
use crate::learner::options::NO_FALLBACK;
use crate::learner::selection::{best_on_path, svm_cv, FoldFit, Selected};
use crate::learner::{
    timed, AnyModel, ChosenParams, FittedMethod, GridSettings, Learner, Method, Progress,
    ProgressFn,
};
use crate::options::MethodOptions;
use crate::predictor::{Predictor, Task};
use crate::svm::{SvmParams, SvmType};
use crate::Result;
use serde::{Deserialize, Serialize};

/// KNPL (`G ⊙ K`): `params` as given, or σ, C by SVM-CV and then γ by k-fold CV
/// ([`KnplSearch`]) when `search` is set.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KnplLearner {
    /// Base kernel, C, γ and the ADMM / outer-loop settings.
    pub params: KnplParams,
    /// SVM-CV grid and folds of the σ, C stage (the γ stage uses the same folds).
    pub search: Option<GridSettings>,
    /// Without a search: set γ to the reference γ₀ of the data
    /// (`crate::nonparametric::knpl::gamma_reference`) instead of `params.gamma`.
    #[serde(default)]
    pub auto_gamma: bool,
    /// With `search`: unless the best γ's CV score beats SVM-CV's on the same
    /// folds (the limit γ → ∞, `G = 11ᵀ`), the fit is the SVM-CV model
    /// ([`crate::learner::FELL_BACK`]).
    #[serde(default = "crate::learner::yes")]
    pub fallback: bool,
}

/// DANK-SVM / DANK-SVR (`F ⊙ K`): `params` as given, or with σ, C (and ε) from SVM-CV /
/// SVR-CV when `search` is set; τ and η from `params.settings` (the papers: τ = 0.01,
/// η = ‖α_SVM‖²).
///
/// With `search` and `fallback` (the default), η is then chosen by k-fold CV on
/// the same folds over `DANK_ETA_SCALES` × `‖α_SVM‖²` (or the given η alone; on each
/// fold the η values are one path, `DankModel::fit_path`), and
/// unless the best one's CV score beats SVM-CV's (η → ∞, where `F = 11ᵀ` and DANK is
/// the SVM on the base kernel) the fit is the SVM-CV model
/// ([`crate::learner::FELL_BACK`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DankLearner {
    /// Task, base kernel, C, ε and the solver settings.
    pub params: DankParams,
    /// Grid search of the σ, C (, ε) stage.
    pub search: Option<GridSettings>,
    /// With `search`: η by CV and the fallback to SVM-CV / SVR-CV.
    #[serde(default = "crate::learner::yes")]
    pub fallback: bool,
}

/// Multiples of `‖α_SVM‖²` tried as DANK's η by the fallback selection, largest (closest
/// to the SVM) first so that CV ties keep the smoother model. The paper fixes 1; at 1 its
/// `F` stays within about 1 ± 0.07 of `11ᵀ` on the papers' data (docs/RESULTS.md), and
/// `Γ(α)` — hence `F − 11ᵀ` before the nuclear-norm shrinkage — grows as 1/η.
pub const DANK_ETA_SCALES: [f64; 3] = [1.0, 0.1, 0.01];

/// Scalable DANK (section 5 of the DANK paper, [`ScalableDankModel`]): k-means clusters,
/// one box-only τ = 0 DANK subproblem per cluster. `params` as given, or with σ, C from
/// SVM-CV when `search` is set; the k-means seed is the fit's seed. Binary only.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ScalableDankLearner {
    /// Base kernel, C, η, number of clusters and the subproblem solver settings.
    pub params: ScalableDankParams,
    /// Grid search of the σ, C stage.
    pub search: Option<GridSettings>,
    /// Set the number of clusters to `ScalableDankParams::default_clusters` of the rows
    /// the fit receives (so a split's training part, not the whole file, decides it).
    #[serde(default)]
    pub auto_clusters: bool,
}

/// Catalogue builder of `knpl`, `dank`, `dank-svr` and `dank-scalable`.
pub(crate) fn build(
    name: &str,
    options: &MethodOptions,
    data: &Dataset,
    search: Option<GridSettings>,
) -> Result<Method> {
    options.check_searchable_kernel(search.as_ref())?;
    let svr = name == "dank-svr";
    let svm_type = if svr {
        SvmType::EpsilonSvr
    } else {
        SvmType::CSvc
    };
    let base = options.svm_params(svm_type, data.x.n_cols())?;
    match name {
        "knpl" => {
            let params = KnplParams {
                kernel: base.kernel,
                c: base.c,
                gamma: options.number(&KNPL_GAMMA)?.unwrap_or(1.0),
                solver: base.solver,
                ..KnplParams::default()
            };
            params.validate()?;
            Ok(Method::new(KnplLearner {
                params: KnplParams {
                    scheme: if options.flag(&KNPL_ALTERNATE) {
                        KnplScheme::Alternate
                    } else {
                        KnplScheme::Ascent
                    },
                    ..params
                },
                search,
                auto_gamma: !options.is_given(&KNPL_GAMMA),
                fallback: !options.flag(&NO_FALLBACK),
            }))
        }
        "dank-scalable" => Ok(Method::new(ScalableDankLearner {
            params: scalable_dank_params(options, data.len(), data.x.n_cols())?,
            search,
            auto_clusters: !options.is_given(&CLUSTERS),
        })),
        _ => Ok(Method::new(DankLearner {
            params: DankParams {
                task: if svr {
                    Task::Regression
                } else {
                    Task::Classification
                },
                settings: dank_settings(options, &base)?,
                kernel: base.kernel,
                c: base.c,
                epsilon: base.epsilon,
            },
            search,
            fallback: !options.flag(&NO_FALLBACK),
        })),
    }
}

/// Scalable DANK's parameters from the catalogue options, for `n` training rows of `d`
/// features (clusters: `--clusters`, else [`ScalableDankParams::default_clusters`];
/// k-means seed: the options' seed). Shared by the catalogue and the distributed fit.
pub(crate) fn scalable_dank_params(
    options: &MethodOptions,
    n: usize,
    d: usize,
) -> Result<ScalableDankParams> {
    let base = options.svm_params(SvmType::CSvc, d)?;
    let settings = DankSettings {
        tau: 0.0,
        ..dank_settings(options, &base)?
    };
    Ok(ScalableDankParams {
        kernel: base.kernel,
        c: base.c,
        eta: options.number(&ETA)?,
        clusters: options
            .count(&CLUSTERS)?
            .unwrap_or_else(|| ScalableDankParams::default_clusters(n)),
        seed: options.seed,
        settings,
    })
}

/// τ, η, the scheme, the step rule and the SVM solver settings of a DANK fit.
fn dank_settings(options: &MethodOptions, base: &SvmParams) -> Result<DankSettings> {
    let defaults = DankSettings::default();
    let settings = DankSettings {
        tau: options.number(&TAU)?.unwrap_or(defaults.tau),
        eta: options.number(&ETA)?,
        scheme: options.parsed(&DANK_SCHEME)?.unwrap_or(defaults.scheme),
        step: options.parsed(&DANK_STEP)?.unwrap_or(defaults.step),
        init_from_svm: match options.text(&DANK_START) {
            Some(start) => start == "svm",
            None => defaults.init_from_svm,
        },
        svm_solver: base.solver,
        ..defaults
    };
    if settings.scheme == super::dank::Scheme::Newton && options.is_given(&DANK_STEP) {
        return Err(crate::Error::param(
            "dank-step",
            "the step rule applies to the first-order schemes (nesterov, monotone, plain); \
             the newton scheme (the default «dank-scheme») takes Newton steps with a line \
             search and would ignore it",
        ));
    }
    settings.validate()?;
    Ok(settings)
}

impl Learner for KnplLearner {
    fn name(&self) -> String {
        "KNPL".into()
    }

    fn runs_fallback(&self) -> bool {
        self.fallback && self.search.is_some()
    }

    fn task(&self) -> Task {
        Task::Classification
    }

    fn steps(&self) -> u64 {
        self.search.as_ref().map_or(0, GridSettings::steps)
    }

    fn fit(
        &self,
        x: &Features,
        y: &[f64],
        seed: u64,
        progress: ProgressFn,
    ) -> Result<FittedMethod> {
        let start = std::time::Instant::now();
        let (params, chosen, selection, kept) = match &self.search {
            Some(s) => {
                let mut ks = KnplSearch::new(self.params.clone(), seed);
                ks.grid = s.grid.clone();
                ks.folds = s.folds;
                ks.gram_budget_bytes = s.gram_budget_bytes;
                let base = SvmParams {
                    solver: self.params.solver,
                    ..SvmParams::default()
                };
                let svm = svm_cv(s, &base, x, y, seed, progress)?;
                let sel = ks.run_with_svm(x, y, svm.chosen)?;
                let mut chosen = ChosenParams::of(&sel.params.kernel, sel.params.c, None);
                chosen.cv_score = Some(sel.best.score);
                chosen
                    .other
                    .insert("knpl_regulariser_gamma".into(), sel.best.gamma);
                chosen
                    .other
                    .insert("knpl_regulariser_scale".into(), sel.best.scale);
                // SVM-CV's scores are on the same folds (seed, count) as the γ search.
                let svm = Selected {
                    score: sel.svm.best.score,
                    fold_scores: sel.svm.best.fold_scores.clone(),
                    chosen: sel.svm,
                    seconds: svm.seconds,
                };
                let (fallback, record) = match self.fallback {
                    true => (Fallback::new(Some(svm), s, seed, start), None),
                    false => (Fallback::off(), Some(svm.chosen)),
                };
                let learned = Selected {
                    chosen: KnplLearner {
                        params: sel.params.clone(),
                        search: None,
                        auto_gamma: false,
                        fallback: false,
                    },
                    score: sel.best.score,
                    fold_scores: sel.best.fold_scores.clone(),
                    seconds: 0.0,
                };
                let kept = match fallback.decide(learned, x, y)? {
                    Decision::FellBack(fitted) => return Ok(fitted),
                    Decision::Kept(kept) => kept,
                };
                let record = record.or_else(|| kept.svm_record());
                (sel.params, chosen, record, Some(kept))
            }
            None => {
                let mut params = self.params.clone();
                if self.auto_gamma {
                    params.gamma = gamma_reference(&params, x, y)?;
                }
                let mut chosen = ChosenParams::of(&params.kernel, params.c, None);
                chosen
                    .other
                    .insert("knpl_regulariser_gamma".into(), params.gamma);
                (params, chosen, None, None)
            }
        };
        let select_seconds = if selection.is_some() {
            start.elapsed().as_secs_f64()
        } else {
            0.0
        };
        let ((model, trace), secs) = timed(|| KnplModel::fit(&params, x, y))?;
        let fitted = FittedMethod::new(AnyModel::new(model), chosen, secs)
            .selected(select_seconds, selection)
            .traced(Some(trace));
        Ok(finish(kept.as_ref(), fitted))
    }
}

impl Learner for DankLearner {
    fn name(&self) -> String {
        match self.params.task {
            Task::Regression => "DANK-SVR".into(),
            _ => "DANK".into(),
        }
    }

    fn runs_fallback(&self) -> bool {
        self.fallback && self.search.is_some()
    }

    fn task(&self) -> Task {
        self.params.task
    }

    fn steps(&self) -> u64 {
        self.search.as_ref().map_or(0, |s| {
            s.steps()
                + match (self.fallback, self.params.settings.eta) {
                    (false, _) => 0,
                    (true, Some(_)) => s.candidate_steps(1),
                    (true, None) => s.candidate_steps(DANK_ETA_SCALES.len()),
                }
        })
    }

    fn fit(
        &self,
        x: &Features,
        y: &[f64],
        seed: u64,
        progress: ProgressFn,
    ) -> Result<FittedMethod> {
        let start = std::time::Instant::now();
        let mut params = self.params.clone();
        let regression = params.task == Task::Regression;
        let mut selected = (self.search.as_ref())
            .map(|s| {
                svm_cv(
                    s,
                    &dank_search_base(params.task, &params.settings)?,
                    x,
                    y,
                    seed,
                    progress,
                )
            })
            .transpose()?;
        if let Some(s) = &selected {
            params.kernel = s.chosen.params.kernel.clone();
            params.c = s.chosen.params.c;
            params.epsilon = s.chosen.params.epsilon;
        }
        let mut learned_score = selected.as_ref().map(|s| s.score);
        let mut kept = None;
        if let (Some(search), true) = (&self.search, self.fallback) {
            let scales = match params.settings.eta {
                Some(_) => vec![params.settings.eta_scale],
                None => DANK_ETA_SCALES.to_vec(),
            };
            let candidates: Vec<DankLearner> = scales
                .iter()
                .map(|&e| {
                    let mut p = params.clone();
                    p.settings.eta_scale = e;
                    DankLearner {
                        params: p,
                        search: None,
                        fallback: false,
                    }
                })
                .collect();
            // The η values of a fold as one path: one Gram matrix and SVM start, each η
            // warm-started from the previous (larger) one's solution.
            let eta_path: &FoldFit = &|xt, yt, held| {
                (DankModel::fit_path(&params, &scales, xt, yt)?.iter())
                    .map(|model| {
                        progress(Progress::Step);
                        model.predict(held)
                    })
                    .collect()
            };
            let svm = selected.take().expect("SVM-CV ran with the search");
            let fallback = Fallback::new(Some(svm), search, seed, start);
            let path = (eta_path, progress);
            let best = best_on_path(
                candidates,
                regression,
                search,
                x,
                y,
                seed,
                path,
                fallback.race(),
            )?;
            let k = match fallback.decide(best, x, y)? {
                Decision::FellBack(fitted) => return Ok(fitted),
                Decision::Kept(k) => k,
            };
            params = k.best.chosen.params.clone();
            learned_score = Some(k.best.score);
            kept = Some(k);
        }
        let eps = regression.then_some(params.epsilon);
        let mut chosen = ChosenParams::of(&params.kernel, params.c, eps);
        chosen.cv_score = learned_score;
        chosen.other.insert("dank_tau".into(), params.settings.tau);
        if kept.is_some() {
            chosen
                .other
                .insert("dank_eta_scale".into(), params.settings.eta_scale);
        }
        let select_seconds = start.elapsed().as_secs_f64();
        if params.settings.scheme != super::dank::Scheme::Newton {
            // The paper's first-order updates take many more iterations than the Newton
            // scheme; the front ends show what runs while it does.
            progress(Progress::Stage(
                "the paper's first-order updates (slower than the default newton scheme)",
            ));
        }
        let ((model, traces), secs) = timed(|| DankModel::fit_traced(&params, x, y))?;
        if let Some(info) = model.info.first() {
            chosen.other.insert("dank_eta".into(), info.eta);
        }
        let selection = kept
            .as_ref()
            .and_then(Kept::svm_record)
            .or(selected.map(|s| s.chosen));
        let select_seconds = if selection.is_some() {
            select_seconds
        } else {
            0.0
        };
        // The trace of the first class pair's (or the regressor's) iterations.
        let fitted = FittedMethod::new(AnyModel::new(model), chosen, secs)
            .selected(select_seconds, selection)
            .traced(traces.into_iter().next());
        Ok(finish(kept.as_ref(), fitted))
    }
}

impl Learner for ScalableDankLearner {
    fn name(&self) -> String {
        "DANK-scalable".into()
    }

    fn task(&self) -> Task {
        Task::Classification
    }

    fn steps(&self) -> u64 {
        self.search.as_ref().map_or(0, GridSettings::steps) + self.params.clusters as u64
    }

    fn fit(
        &self,
        x: &Features,
        y: &[f64],
        seed: u64,
        progress: ProgressFn,
    ) -> Result<FittedMethod> {
        let mut params = self.params.clone();
        params.seed = seed;
        if self.auto_clusters {
            params.clusters = ScalableDankParams::default_clusters(x.n_rows());
        }
        let selected = (self.search.as_ref())
            .map(|s| {
                let base = dank_search_base(Task::Classification, &params.settings)?;
                svm_cv(s, &base, x, y, seed, progress)
            })
            .transpose()?;
        if let Some(s) = &selected {
            params.kernel = s.chosen.params.kernel.clone();
            params.c = s.chosen.params.c;
        }
        let mut chosen = ChosenParams::of(&params.kernel, params.c, None);
        chosen.cv_score = selected.as_ref().map(|s| s.score);
        let step = || progress(Progress::Step);
        let (model, secs) = timed(|| ScalableDankModel::fit_with_progress(&params, x, y, &step))?;
        chosen
            .other
            .insert("clusters".into(), model.clusters.len() as f64);
        let model = AnyModel::new(model);
        Ok(FittedMethod::new(model, chosen, secs).selected_by(selected))
    }
}
