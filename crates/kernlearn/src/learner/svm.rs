//! The kernel machine as a [`Learner`]: fixed parameters, or σ, C (and ε) chosen by
//! the papers' SVM-CV / SVR-CV grid search. It is the `fixed` family's learner and the
//! baseline every learned-kernel selection compares with ([`super::selection`]).

use super::selection::svm_cv_on;
use super::{timed, AnyModel, ChosenParams, FittedMethod, GridSettings, Learner, ProgressFn};
use crate::data::{Features, SparseFeatures};
use crate::predictor::Task;
use crate::select::SearchRows;
use crate::svm::{SvmModel, SvmParams, SvmType};
use crate::Result;
use serde::{Deserialize, Serialize};

/// A kernel machine ([`SvmModel`]): `params` as given, or with σ, C (and ε) chosen by
/// grid search on the training data when `search` is set (SVM-CV / SVR-CV).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SvmLearner {
    /// Formulation, kernel and solver settings (kernel, C, ε replaced when searching).
    pub params: SvmParams,
    /// Grid search settings; `None` fits `params` as they are.
    pub search: Option<GridSettings>,
}

impl Learner for SvmLearner {
    fn name(&self) -> String {
        match self.search {
            Some(_) if self.params.svm_type.is_regressor() => "SVR-CV".into(),
            Some(_) => "SVM-CV".into(),
            None => self.params.svm_type.to_string(),
        }
    }

    fn task(&self) -> Task {
        match self.params.svm_type {
            SvmType::CSvc | SvmType::NuSvc => Task::Classification,
            SvmType::EpsilonSvr | SvmType::NuSvr => Task::Regression,
            SvmType::OneClass => Task::Novelty,
        }
    }

    fn steps(&self) -> u64 {
        self.search.as_ref().map_or(0, GridSettings::steps)
    }

    /// SMO's time grows about as `n²` on sets where a fixed share of the rows are
    /// support vectors (measured on the covtype-shaped stand-in, 76 % support vectors:
    /// 28 s at 50,000 rows, 478 s at 200,000, `docs/SCALING.md`). Only fixed parameters:
    /// a grid search is many such fits.
    fn fit_time_growth(&self) -> Option<(f64, &'static str)> {
        (self.search.is_none() && !self.params.kernel.is_precomputed()).then_some((
            2.0,
            "for an approximate model in a fraction of the time: -m nystrom-linear \
             (linear in n), -m ckl, or -m dank-scalable; for the exact one on several \
             machines, kernlearn.ray.svc",
        ))
    }

    /// A precomputed kernel's "features" are kernel values: scaling them column by
    /// column would make a symmetric Gram matrix asymmetric.
    fn reads_kernel_values(&self) -> bool {
        self.params.kernel.is_precomputed()
    }

    fn fit(
        &self,
        x: &Features,
        y: &[f64],
        seed: u64,
        progress: ProgressFn,
    ) -> Result<FittedMethod> {
        self.fit_with(SearchRows::Dense(x), y, None, seed, progress)
    }

    fn fit_weighted(
        &self,
        x: &Features,
        y: &[f64],
        weights: &[f64],
        seed: u64,
        progress: ProgressFn,
    ) -> Result<FittedMethod> {
        self.fit_with(SearchRows::Dense(x), y, Some(weights), seed, progress)
    }

    /// Sparse features ([`SvmModel::fit_sparse_weighted`]), the grid search too
    /// ([`crate::select::GridSearch::run_sparse`]); not a precomputed kernel, whose
    /// "features" are a dense Gram matrix.
    fn takes_sparse(&self) -> bool {
        !self.params.kernel.is_precomputed()
    }

    fn fit_sparse(
        &self,
        x: &SparseFeatures,
        y: &[f64],
        weights: Option<&[f64]>,
        seed: u64,
        progress: ProgressFn,
    ) -> Result<FittedMethod> {
        self.fit_with(SearchRows::Sparse(x), y, weights, seed, progress)
    }
}

impl SvmLearner {
    /// The fit, with per-sample weights when given: they weight every fold of the
    /// search (training and scoring) and the final fit.
    fn fit_with(
        &self,
        x: SearchRows,
        y: &[f64],
        weights: Option<&[f64]>,
        seed: u64,
        progress: ProgressFn,
    ) -> Result<FittedMethod> {
        let mut params = self.params.clone();
        params.seed = seed;
        let selected = (self.search.as_ref())
            .map(|s| svm_cv_on(s, &params, x, y, weights, seed, progress))
            .transpose()?;
        if let Some(s) = &selected {
            params = s.chosen.params.clone();
        }
        let mut chosen = ChosenParams::of_svm(&params);
        chosen.cv_score = selected.as_ref().map(|s| s.score);
        let (model, secs) = timed(|| match x {
            SearchRows::Dense(x) => SvmModel::fit_weighted(&params, x, y, weights),
            SearchRows::Sparse(x) => SvmModel::fit_sparse_weighted(&params, x, y, weights),
        })?;
        Ok(FittedMethod::new(AnyModel::new(model), chosen, secs).selected_by(selected))
    }
}
