//! CKL and the fixed-feature baselines as [`Learner`]s, with the random hyperparameter
//! search of thesis Table 5.3 through the candidate cross-validation of
//! `crate::learner::selection`.

use super::catalogue::{
    SearchScoring, CKL_SEARCH, CONFIGS, FEATURE_MAP, FOURIER_FEATURES, INIT_VARIANCE, NORM_CAP,
};
use super::model::{CklModel, CklParams};
use crate::data::{Dataset, Features};
use crate::learner::selection::best_candidate;
use crate::learner::{
    timed, AnyModel, ChosenParams, FittedMethod, GridSettings, Learner, Method, Progress,
    ProgressFn,
};
use crate::nn::options::apply_training;
use crate::options::MethodOptions;
use crate::predictor::Task;
use crate::{Error, Result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Random search over `(D, σ², ℓ)` (thesis Table 5.3): `D = 2^i`, `i ~ U{0..9}`;
/// `σ² = 2^i`, `i ~ U{−6..0}`; `ℓ ~ LU[1e-5, 0.2]`. Each configuration is scored on its
/// early-stopping split and the best fit kept (the thesis's §5.4.1), or by k-fold CV
/// (every fold's fit keeps its own early-stopping split) and the best refitted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RandomSearch {
    /// Number of configurations (default 100, the thesis's).
    pub configs: usize,
    /// How a configuration is scored (default: its validation split).
    pub scoring: SearchScoring,
    /// Folds and fold seed of the candidate CV (the grid of `--select` is not used).
    pub cv: GridSettings,
}

impl RandomSearch {
    /// The `configs` parameter sets drawn with `seed`, other settings from `base`.
    pub(crate) fn candidates(&self, base: &CklParams, seed: u64) -> Vec<CklParams> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (lo, hi) = (1e-5f64.ln(), 0.2f64.ln());
        (0..self.configs)
            .map(|_| {
                let mut p = base.clone();
                p.width = 1 << rng.random_range(0..=9u32);
                p.init_variance = 2f64.powi(rng.random_range(-6..=0i32));
                p.train.learning_rate = rng.random_range(lo..hi).exp();
                p
            })
            .collect()
    }
}

/// A CKL network or a fixed-feature linear model, with an optional random search.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CklLearner {
    /// Parameters of the fit (the search's starting point).
    pub params: CklParams,
    /// Random hyperparameter search, when `--select` was given.
    pub search: Option<RandomSearch>,
}

/// Catalogue builder of `ckl` and `rff-linear`.
pub(crate) fn build(
    name: &str,
    o: &MethodOptions,
    data: &Dataset,
    search: Option<GridSettings>,
) -> Result<Method> {
    let mut p = CklParams {
        seed: o.seed,
        learn_features: name == "ckl",
        ..CklParams::default()
    };
    if let Some(v) = o.parsed(&FEATURE_MAP)? {
        p.feature_map = v;
    }
    if let Some(v) = o.count(&FOURIER_FEATURES)? {
        p.width = v;
    }
    if let Some(v) = o.number(&INIT_VARIANCE)? {
        p.init_variance = v;
    }
    p.norm_cap = o.number(&NORM_CAP)?.or(p.norm_cap);
    apply_training(o, &mut p.train)?;
    p.validate()?;
    p.check_memory(data.len(), data.n_features())?;
    let search = match search {
        Some(cv) => {
            let configs = o.count(&CONFIGS)?.unwrap_or(100);
            if configs == 0 {
                return Err(Error::param(
                    "configs",
                    "the random search needs at least 1 configuration",
                ));
            }
            let scoring = o.parsed(&CKL_SEARCH)?.unwrap_or(SearchScoring::Validation);
            if scoring == SearchScoring::Validation && p.train.validation_fraction == 0.0 {
                return Err(Error::param(
                    "ckl-search",
                    "validation scores each configuration on its early-stopping split, so \
                     «validation-fraction» must be above 0 (or use «ckl-search=cv»)",
                ));
            }
            Some(RandomSearch {
                configs,
                scoring,
                cv,
            })
        }
        None => {
            for (name, given) in [
                ("configs", o.is_given(&CONFIGS)),
                ("ckl-search", o.is_given(&CKL_SEARCH)),
            ] {
                if given {
                    return Err(Error::param(
                        name,
                        "only applies with «select» (the random search)",
                    ));
                }
            }
            None
        }
    };
    Ok(Method::new(CklLearner { params: p, search }))
}

impl CklLearner {
    /// Fits `params` (no search), reporting every round and then the rounds early
    /// stopping skipped, so that a fit emits exactly `max_epochs` progress events.
    fn fit_fixed(
        params: &CklParams,
        x: &Features,
        y: &[f64],
        progress: ProgressFn,
    ) -> Result<CklModel> {
        let on_epoch = |r: &crate::nn::EpochRecord| {
            progress(Progress::Epoch {
                epoch: r.epoch,
                loss: r.train_loss as f32,
                val_accuracy: r.val_accuracy as f32,
            })
        };
        let model = CklModel::fit(params, x, y, &on_epoch)?;
        for _ in model.report.epochs..params.train.max_epochs {
            progress(Progress::Step);
        }
        Ok(model)
    }

    /// The thesis's search (§5.4.1): every candidate fitted once (in parallel), scored
    /// by the validation accuracy of its kept epoch; the best candidate, its fit, that
    /// accuracy and the fit's seconds. Equal accuracies (common on easy sets, where many
    /// configurations classify the validation split perfectly) go to the lower
    /// validation log loss, the early-stopping objective, then to the earlier candidate.
    /// One progress step per candidate.
    fn best_by_validation(
        candidates: &[CklParams],
        x: &Features,
        y: &[f64],
        progress: ProgressFn,
    ) -> Result<(CklParams, CklModel, f64, f64)> {
        use rayon::prelude::*;
        let fits: Vec<(CklModel, f64, f64)> = candidates
            .par_iter()
            .map(|p| {
                let (model, secs) = timed(|| CklModel::fit(p, x, y, &|_| {}))?;
                progress(Progress::Step);
                let score = model.report.best_val_accuracy.unwrap_or(f64::NAN);
                Ok((model, score, secs))
            })
            .collect::<Result<_>>()?;
        let loss = |c: usize| fits[c].0.report.best_val_loss.unwrap_or(f64::INFINITY);
        let better = |c: usize, b: usize| {
            fits[c].1 > fits[b].1 || (fits[c].1 == fits[b].1 && loss(c) < loss(b))
        };
        let best = (1..fits.len()).fold(0, |b, c| if better(c, b) { c } else { b });
        let (model, score, secs) = fits.into_iter().nth(best).expect("at least one candidate");
        Ok((candidates[best].clone(), model, score, secs))
    }
}

impl Learner for CklLearner {
    /// The random search draws its own `(D, σ², ℓ)` (thesis Table 5.3): it reads the
    /// folds when it scores by k-fold CV, and no grid.
    fn grid_reads(&self) -> &'static [&'static str] {
        match &self.search {
            Some(s) if s.scoring == SearchScoring::Cv => &["folds"],
            _ => &[],
        }
    }

    fn name(&self) -> String {
        let p = &self.params;
        let base = if p.learn_features {
            format!("CKL ({})", p.feature_map.name())
        } else {
            format!("{} features + softmax", p.feature_map.name())
        };
        match &self.search {
            Some(s) => format!("{base}, random search of {} configurations", s.configs),
            None => base,
        }
    }

    fn task(&self) -> Task {
        Task::Classification
    }

    fn steps(&self) -> u64 {
        match &self.search {
            Some(s) if s.scoring == SearchScoring::Validation => s.configs as u64,
            Some(s) => s.cv.candidate_steps(s.configs) + self.params.train.max_epochs as u64,
            None => self.params.train.max_epochs as u64,
        }
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
        let mut chosen = ChosenParams::default();
        let (mut select_seconds, mut selected) = (0.0, None);
        let mut kept = None;
        if let Some(search) = &self.search {
            let candidates = search.candidates(&params, seed);
            let start = std::time::Instant::now();
            let (best, score) = match search.scoring {
                SearchScoring::Validation => {
                    let (best, model, score, secs) =
                        Self::best_by_validation(&candidates, x, y, progress)?;
                    kept = Some((model, secs));
                    (best, score)
                }
                SearchScoring::Cv => {
                    let learners = candidates
                        .into_iter()
                        .map(|p| CklLearner {
                            params: p,
                            search: None,
                        })
                        .collect();
                    let best =
                        best_candidate(learners, &search.cv, (x, y, None), seed, progress, None)?;
                    (best.chosen.params, best.score)
                }
            };
            params = best;
            params.seed = seed;
            chosen.cv_score = Some(score);
            select_seconds = start.elapsed().as_secs_f64();
            selected = Some(search.configs);
        }
        let (model, secs) = match kept {
            Some(fit) => fit,
            None => timed(|| Self::fit_fixed(&params, x, y, progress))?,
        };
        let other = &mut chosen.other;
        other.insert("ckl_features_d".into(), params.width as f64);
        other.insert("ckl_init_variance".into(), params.init_variance);
        other.insert("ckl_learning_rate".into(), params.train.learning_rate);
        other.insert("epochs".into(), model.report.epochs as f64);
        other.insert("best_epoch".into(), model.report.best_epoch as f64);
        other.insert("round_steps".into(), model.report.round_steps as f64);
        other.insert("examples_seen".into(), model.report.examples as f64);
        if let Some(n) = selected {
            other.insert("configurations".into(), n as f64);
        }
        let trace = model.report.trace.clone();
        let mut fitted = FittedMethod::new(AnyModel::new(model), chosen, secs).traced(Some(trace));
        fitted.select_seconds = select_seconds;
        Ok(fitted)
    }
}
