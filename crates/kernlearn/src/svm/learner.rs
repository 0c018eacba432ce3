//! The kernel machines as [`Learner`]s: fixed parameters, or σ, C (and ε) chosen by
//! the papers' SVM-CV / SVR-CV grid search.

use super::{SvmModel, SvmParams, SvmType};
use crate::data::{Dataset, Features};
use crate::estimator::{AnyModel, Task};
use crate::method::selection::svm_cv;
use crate::method::timed;
use crate::method::{
    ChosenParams, FittedMethod, GridSettings, Learner, Method, MethodKind, MethodOptions,
    ProgressFn,
};
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

/// The formulation `kind` names; `svm` is ε-SVR when the data's last column is named
/// `target`, C-SVC otherwise.
fn svm_type(kind: MethodKind, data: &Dataset) -> SvmType {
    match kind {
        MethodKind::Svm if data.target_name == "target" => SvmType::EpsilonSvr,
        MethodKind::NuSvc => SvmType::NuSvc,
        MethodKind::OneClass => SvmType::OneClass,
        MethodKind::Svr => SvmType::EpsilonSvr,
        MethodKind::NuSvr => SvmType::NuSvr,
        _ => SvmType::CSvc,
    }
}

/// Catalogue builder of `svm`, `svc`, `nu-svc`, `one-class`, `svr`, `nu-svr`.
pub(crate) fn build(
    kind: MethodKind,
    options: &MethodOptions,
    data: &Dataset,
    search: Option<GridSettings>,
) -> Result<Method> {
    options.check_searchable_kernel(search.as_ref())?;
    let params = options.svm_params(svm_type(kind, data), data.x.n_cols())?;
    Ok(Method::Svm(SvmLearner { params, search }))
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

    fn fit(
        &self,
        x: &Features,
        y: &[f64],
        seed: u64,
        progress: ProgressFn,
    ) -> Result<FittedMethod> {
        let mut params = self.params.clone();
        params.seed = seed;
        let selected = (self.search.as_ref())
            .map(|s| svm_cv(s, &params, x, y, seed, progress))
            .transpose()?;
        if let Some(s) = &selected {
            params = s.chosen.params.clone();
        }
        let mut chosen = ChosenParams::of_svm(&params);
        chosen.cv_score = selected.as_ref().map(|s| s.score);
        let (model, secs) = timed(|| SvmModel::fit(&params, x, y))?;
        Ok(FittedMethod::new(AnyModel::Svm(model), chosen, secs).selected_by(selected))
    }
}
