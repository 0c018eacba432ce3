//! The localized methods as [`Learner`]s: LMKL, C-LMKL, SWMKL and LD-MKL on a kernel
//! family, with the SVMs' C chosen by k-fold CV over the grid's Cs (the thesis fixes
//! C = 1).

use super::catalogue::{LKL_EPSILON, SOLVER};
use super::{
    ClmklSettings, GateRegression, LmklSettings, LocalizedMethod, LocalizedModel, LocalizedParams,
    SvmSolver,
};
use crate::bank::family_of;
use crate::data::{Dataset, Features};
use crate::learner::fallback::{finish, Decision, Fallback};
use crate::learner::options::{CLUSTERS, NO_FALLBACK};
use crate::learner::selection::{base_svm_cv, best_value, CvRows};
use crate::learner::{
    timed, AnyModel, ChosenParams, FittedMethod, GridSettings, Learner, Method, ProgressFn,
};
use crate::options::MethodOptions;
use crate::predictor::Task;
use crate::svm::SvmType;
use crate::Result;
use serde::{Deserialize, Serialize};

/// LMKL, C-LMKL, SWMKL or LD-MKL on a kernel family ([`LocalizedModel`]). With `search`
/// and `fallback` (the default): SVM-CV first, the method at SVM-CV's C scored
/// by CV on the same folds, and unless it beats SVM-CV
/// (`crate::learner::fallback::Fallback`) the fit is the SVM-CV model
/// ([`crate::learner::FELL_BACK`]). With `search` and no fallback: C by stratified k-fold
/// CV over the grid's Cs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LocalizedLearner {
    /// Method, its settings, the base kernels, C and the solver.
    pub params: LocalizedParams,
    /// Folds and the C values of the CV; `None` fits `params` as they are.
    #[serde(default)]
    pub search: Option<GridSettings>,
    /// With `search`: fall back to SVM-CV unless the localized model beats it in CV.
    #[serde(default = "crate::learner::yes")]
    pub fallback: bool,
}

/// Base kernels of the localized methods unless `--kernels` is given: linear, quadratic
/// and Gaussian, all on every feature, the Gaussian with LIBSVM's default width
/// `γ = 1/d` for `d` features (a fixed σ = 1 makes the Gaussian nearly the identity on
/// sonar's 60 features, and its classifier then votes a constant wherever it was not
/// trained).
pub(crate) fn default_kernels(n_features: usize) -> String {
    let gamma = 1.0 / n_features.max(1) as f64;
    format!("linear@all;poly(degree=2,gamma=1,coef0=1)@all;rbf(gamma={gamma})@all")
}

/// Catalogue builder of `ldmkl`, `swmkl`, `lmkl` and `clmkl`.
pub(crate) fn build(
    name: &str,
    options: &MethodOptions,
    data: &Dataset,
    search: Option<GridSettings>,
) -> Result<Method> {
    let family = family_of(options, &default_kernels(data.x.n_cols()), data)?;
    let base = options.svm_params(SvmType::CSvc, data.x.n_cols())?;
    let method = match name {
        "ldmkl" => LocalizedMethod::Ldmkl(GateRegression::default()),
        "swmkl" => LocalizedMethod::Swmkl(GateRegression::default()),
        "lmkl" => LocalizedMethod::Lmkl(LmklSettings::default()),
        _ => {
            let defaults = ClmklSettings::default();
            LocalizedMethod::Clmkl(ClmklSettings {
                clusters: options.count(&CLUSTERS)?.unwrap_or(defaults.clusters),
                seed: options.seed,
                ..defaults
            })
        }
    };
    let lkl_epsilon = options.number(&LKL_EPSILON)?;
    let solver = match options.text(&SOLVER).unwrap_or("smo") {
        "smo" if lkl_epsilon.is_some() => {
            return Err(crate::Error::param(
                "lkl-epsilon",
                "is the gap of the mwu solver; it does not apply with «solver=smo»",
            ))
        }
        "mwu" => SvmSolver::Mwu {
            epsilon: lkl_epsilon.unwrap_or(0.01),
        },
        _ => SvmSolver::Smo,
    };
    let params = LocalizedParams {
        c: base.c,
        solver,
        smo: base.solver,
        ..LocalizedParams::new(method, family)
    };
    params.validate()?;
    Ok(Method::new(LocalizedLearner {
        params,
        search,
        fallback: !options.flag(&NO_FALLBACK),
    }))
}

impl Learner for LocalizedLearner {
    fn name(&self) -> String {
        self.params.method.display_name().into()
    }

    fn runs_fallback(&self) -> bool {
        self.fallback && self.search.is_some()
    }

    fn task(&self) -> Task {
        Task::Classification
    }

    fn steps(&self) -> u64 {
        (self.search.as_ref()).map_or(0, |s| match self.fallback {
            true => s.steps() + s.candidate_steps(1),
            false => s.candidate_steps(s.grid.cs.len()),
        })
    }

    fn fit(
        &self,
        x: &Features,
        y: &[f64],
        seed: u64,
        progress: ProgressFn,
    ) -> Result<FittedMethod> {
        self.fit_rows((x, y, None), seed, progress)
    }

    /// LMKL (SMO solver): the weighted C-SVC in every solve
    /// (`LocalizedModel::fit_weighted`) and weighted folds in every selection, SVM-CV's
    /// and the fallback's included; the other methods, and LMKL on the mwu solver,
    /// refuse, saying why.
    fn fit_weighted(
        &self,
        x: &Features,
        y: &[f64],
        weights: &[f64],
        seed: u64,
        progress: ProgressFn,
    ) -> Result<FittedMethod> {
        if let Some(why) = self.params.method.weights_refusal() {
            return Err(crate::learner::weights_refused(&self.name(), why));
        }
        if let SvmSolver::Mwu { .. } = self.params.solver {
            return Err(crate::Error::param(
                "solver",
                format!(
                    "{} with the mwu solver (kernelised Gilbert, a 2-norm soft margin) has \
                     no per-point bound for a sample weight to scale; use «solver=smo» \
                     with weights",
                    self.name()
                ),
            ));
        }
        self.fit_rows((x, y, Some(weights)), seed, progress)
    }
}

impl LocalizedLearner {
    /// The fit, with per-sample weights when given (every fit and fold of the selection).
    fn fit_rows(&self, rows: CvRows, seed: u64, progress: ProgressFn) -> Result<FittedMethod> {
        let (x, y, weights) = rows;
        // With the fallback, SVM-CV first and its C for the method (the base kernels are
        // trace-normalised to mean diagonal 1, as SVM-CV's Gaussian kernel is); without,
        // C over the grid.
        let start = std::time::Instant::now();
        let kept = match &self.search {
            None => None,
            Some(s) => {
                let svm = (self.fallback)
                    .then(|| base_svm_cv(s, self.params.smo, x, y, weights, seed, progress))
                    .transpose()?;
                let fallback = Fallback::new(svm, s, seed, start).weighted(weights);
                let make = |c| LocalizedLearner {
                    params: LocalizedParams {
                        c,
                        ..self.params.clone()
                    },
                    search: None,
                    fallback: false,
                };
                let cs = match fallback.svm() {
                    Some(svm) => vec![svm.chosen.params.c],
                    None => s.grid.cs.clone(),
                };
                let best = best_value(&cs, make, s, rows, seed, progress, fallback.race())?;
                match fallback.decide(best, x, y)? {
                    Decision::FellBack(fitted) => return Ok(fitted),
                    Decision::Kept(kept) => Some(kept),
                }
            }
        };
        let select_seconds = start.elapsed().as_secs_f64();
        let params = kept
            .as_ref()
            .map_or(&self.params, |k| &k.best.chosen.params);
        let (model, secs) = timed(|| LocalizedModel::fit_weighted(params, x, y, weights))?;
        let mut chosen = ChosenParams {
            c: Some(params.c),
            cv_score: kept.as_ref().map(|k| k.best.score),
            ..ChosenParams::default()
        };
        chosen
            .other
            .insert("support_percent".into(), model.support_percent());
        let select_seconds = if kept.is_some() { select_seconds } else { 0.0 };
        let fitted =
            FittedMethod::new(AnyModel::new(model), chosen, secs).selected(select_seconds, None);
        Ok(finish(kept.as_ref(), fitted))
    }
}
