//! The one interface every method implements, and the model file that stores any of them.
//!
//! Every method (the SVM family now; KNPL, DANK, MKL, … later) is a [`Estimator`]: it
//! predicts, gives decision values and a [`FitSummary`]. [`AnyModel`] is the closed set of
//! fitted methods the CLI and bindings dispatch on, and [`Pipeline`] pairs it with the
//! scaler fitted on the training data. [`Pipeline::save`] / [`Pipeline::load`] write the
//! documented JSON model format (see `docs/DESIGN.md`, "Model files").

use crate::data::{Features, Scaler};
use crate::localized::LocalizedModel;
use crate::mkl::{MklModel, NystromLinearModel};
use crate::nonparametric::DankModel;
use crate::nonparametric::KnplModel;
use crate::nonparametric::ScalableDankModel;
use crate::svm::SvmModel;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What a method predicts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Task {
    /// Class labels; metric: accuracy.
    Classification,
    /// Real targets; metrics: MSE and relative squared error.
    Regression,
    /// +1 inlier / −1 outlier.
    Novelty,
}

/// What fitting reported, uniform across methods (fields a method lacks stay `None`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FitSummary {
    /// Number of support vectors (or of training points the predictor keeps).
    pub n_support: Option<usize>,
    /// Final objective (dual objective for SVMs; summed over class pairs).
    pub objective: Option<f64>,
    /// Optimiser iterations.
    pub iterations: Option<usize>,
    /// Method-specific extras (per-pair objectives, learned weights, …).
    pub extra: serde_json::Value,
}

/// A fitted predictor. Fitting is each method's own constructor (its parameters differ);
/// everything after fitting goes through this trait.
pub trait Estimator {
    /// Method name as on the command line (`svm`, `svr`, …).
    fn method(&self) -> String;
    /// Classification, regression or novelty detection.
    fn task(&self) -> Task;
    /// Number of input columns expected by `predict`.
    fn n_features(&self) -> usize;
    /// One prediction per row of `x`.
    fn predict(&self, x: &Features) -> Result<Vec<f64>>;
    /// Decision values per row of `x` (one per class pair for one-vs-one classifiers).
    fn decision_function(&self, x: &Features) -> Result<Vec<Vec<f64>>>;
    /// The fitted parameters, as JSON (for `--json` output).
    fn params_json(&self) -> serde_json::Value;
    /// What fitting reported.
    fn summary(&self) -> FitSummary;
    /// Class labels in the order of the one-vs-one pairs (empty for regression and
    /// novelty detection).
    fn classes(&self) -> Vec<f64>;
    /// The prediction from one point's decision values (as returned by
    /// [`Estimator::decision_function`]): the one-vs-one vote, the value, or ±1.
    fn predict_from_decision(&self, dec: &[f64]) -> f64 {
        match self.task() {
            Task::Classification => crate::multiclass::vote(&self.classes(), dec),
            Task::Regression => dec[0],
            Task::Novelty => {
                if dec[0] > 0.0 {
                    1.0
                } else {
                    -1.0
                }
            }
        }
    }
    /// Class probabilities (in [`Estimator::classes`] order) from decision values; an
    /// error for methods without probability estimates.
    fn probabilities_from_decision(&self, _dec: &[f64]) -> Result<Vec<f64>> {
        Err(Error::param(
            "probability",
            format!("method {} has no probability estimates", self.method()),
        ))
    }
}

impl Estimator for SvmModel {
    fn method(&self) -> String {
        self.params.svm_type.to_string()
    }

    fn task(&self) -> Task {
        use crate::svm::SvmType::*;
        match self.params.svm_type {
            CSvc | NuSvc => Task::Classification,
            EpsilonSvr | NuSvr => Task::Regression,
            OneClass => Task::Novelty,
        }
    }

    fn n_features(&self) -> usize {
        self.n_features
    }

    fn predict(&self, x: &Features) -> Result<Vec<f64>> {
        SvmModel::predict(self, x)
    }

    fn decision_function(&self, x: &Features) -> Result<Vec<Vec<f64>>> {
        SvmModel::decision_function(self, x)
    }

    fn params_json(&self) -> serde_json::Value {
        serde_json::to_value(&self.params).unwrap_or(serde_json::Value::Null)
    }

    fn summary(&self) -> FitSummary {
        FitSummary {
            n_support: Some(self.n_support()),
            objective: Some(self.info.objectives.iter().sum()),
            iterations: Some(self.info.iterations),
            extra: serde_json::json!({
                "objectives": self.info.objectives,
                "n_bounded": self.info.n_bounded,
                "n_sv_per_class": self.n_sv_per_class,
                "classes": self.classes,
                "rho": self.rho,
                "hit_max_iter": self.info.hit_max_iter,
            }),
        }
    }

    fn classes(&self) -> Vec<f64> {
        self.classes.clone()
    }

    fn predict_from_decision(&self, dec: &[f64]) -> f64 {
        SvmModel::predict_from_decision(self, dec)
    }

    fn probabilities_from_decision(&self, dec: &[f64]) -> Result<Vec<f64>> {
        SvmModel::probabilities_from_decision(self, dec)
    }
}

/// Every fitted method, for dispatch and storage. New methods add a variant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "fitted", rename_all = "snake_case")]
// One model lives per file or command; boxing variants would only complicate matching.
#[allow(clippy::large_enum_variant)]
pub enum AnyModel {
    /// A kernel machine (C-SVC, ν-SVC, one-class, ε-SVR, ν-SVR).
    Svm(SvmModel),
    /// KNPL: an SVM on a learned `G ⊙ K` (one `G` per class pair).
    Knpl(KnplModel),
    /// DANK (`dank` / `dank-svr`): a kernel machine on a learned `F ⊙ K`.
    Dank(DankModel),
    /// A multiple-kernel classifier (UNIFORM, MWUMKL, EasyMKL).
    Mkl(MklModel),
    /// LIBLINEAR+: Nyström features of each base kernel and a linear SVM.
    NystromLinear(NystromLinearModel),
    /// Scalable DANK (`dank-scalable`): k-means routing to one DANK machine per cluster.
    DankScalable(ScalableDankModel),
    /// A localized multiple-kernel classifier (LMKL, C-LMKL, SWMKL, LD-MKL).
    Localized(LocalizedModel),
}

impl AnyModel {
    fn inner(&self) -> &dyn Estimator {
        match self {
            AnyModel::Svm(m) => m,
            AnyModel::Knpl(m) => m,
            AnyModel::Dank(m) => m,
            AnyModel::Mkl(m) => m,
            AnyModel::NystromLinear(m) => m,
            AnyModel::DankScalable(m) => m,
            AnyModel::Localized(m) => m,
        }
    }
}

impl Estimator for AnyModel {
    fn method(&self) -> String {
        self.inner().method()
    }
    fn task(&self) -> Task {
        self.inner().task()
    }
    fn n_features(&self) -> usize {
        self.inner().n_features()
    }
    fn predict(&self, x: &Features) -> Result<Vec<f64>> {
        self.inner().predict(x)
    }
    fn decision_function(&self, x: &Features) -> Result<Vec<Vec<f64>>> {
        self.inner().decision_function(x)
    }
    fn params_json(&self) -> serde_json::Value {
        self.inner().params_json()
    }
    fn summary(&self) -> FitSummary {
        self.inner().summary()
    }
    fn classes(&self) -> Vec<f64> {
        self.inner().classes()
    }
    fn predict_from_decision(&self, dec: &[f64]) -> f64 {
        self.inner().predict_from_decision(dec)
    }
    fn probabilities_from_decision(&self, dec: &[f64]) -> Result<Vec<f64>> {
        self.inner().probabilities_from_decision(dec)
    }
}

/// Identifies kernlearn model files.
pub const MODEL_FORMAT: &str = "kernlearn-model";
/// Version of the model file layout; bumped on incompatible changes.
pub const MODEL_FORMAT_VERSION: u32 = 1;

/// A fitted model together with the scaler fitted on its training data: what `fit`
/// saves and `predict` loads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pipeline {
    /// Always [`MODEL_FORMAT`].
    pub format: String,
    /// [`MODEL_FORMAT_VERSION`] at writing time.
    pub version: u32,
    /// kernlearn version that wrote the file.
    pub created_by: String,
    /// Feature names seen at fit time.
    pub feature_names: Vec<String>,
    /// Scaling applied before the model.
    pub scaler: Scaler,
    /// The fitted method.
    pub model: AnyModel,
}

impl Pipeline {
    /// Wraps a fitted model and its scaler.
    pub fn new(scaler: Scaler, model: AnyModel, feature_names: Vec<String>) -> Self {
        Self {
            format: MODEL_FORMAT.to_string(),
            version: MODEL_FORMAT_VERSION,
            created_by: format!("kernlearn {}", env!("CARGO_PKG_VERSION")),
            feature_names,
            scaler,
            model,
        }
    }

    /// Scales raw features as at fit time.
    pub fn transform(&self, x: &Features) -> Result<Features> {
        self.scaler.transform(x)
    }

    /// Predictions for raw (unscaled) features.
    pub fn predict(&self, x: &Features) -> Result<Vec<f64>> {
        self.model.predict(&self.transform(x)?)
    }

    /// Decision values for raw (unscaled) features.
    pub fn decision_function(&self, x: &Features) -> Result<Vec<Vec<f64>>> {
        self.model.decision_function(&self.transform(x)?)
    }

    /// Writes the model as JSON. Written to a temporary file first, then renamed, so a
    /// failed write never leaves half a model behind.
    pub fn save(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string(self).map_err(|e| Error::Model {
            path: path.display().to_string(),
            reason: format!("cannot serialise: {e}"),
        })?;
        let tmp = path.with_extension("kernlearn-tmp");
        std::fs::write(&tmp, text).map_err(|e| Error::io(&tmp, e))?;
        std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
    }

    /// Reads a model written by [`Pipeline::save`]; a truncated, foreign or newer file
    /// gets an error saying which.
    pub fn load(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Self::from_json(&text, &path.display().to_string())
    }

    /// Parses a model from JSON text (`source_name` is used in errors).
    pub fn from_json(text: &str, source_name: &str) -> Result<Self> {
        let err = |reason: String| Error::Model {
            path: source_name.to_string(),
            reason,
        };
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            if e.is_eof() {
                err(format!(
                    "truncated (the JSON ends early at line {}, column {})",
                    e.line(),
                    e.column()
                ))
            } else {
                err(format!(
                    "not a kernlearn model: invalid JSON at line {}, column {}: {e}",
                    e.line(),
                    e.column()
                ))
            }
        })?;
        match value.get("format").and_then(|f| f.as_str()) {
            Some(MODEL_FORMAT) => {}
            Some(other) => return Err(err(format!("not a kernlearn model (format `{other}`)"))),
            None => return Err(err("not a kernlearn model (no `format` field)".into())),
        }
        let version = value.get("version").and_then(|v| v.as_u64()).unwrap_or(0);
        if version != MODEL_FORMAT_VERSION as u64 {
            return Err(err(format!(
                "format version {version} is not supported (this build reads version {MODEL_FORMAT_VERSION})"
            )));
        }
        serde_json::from_value(value).map_err(|e| err(format!("malformed model: {e}")))
    }
}
