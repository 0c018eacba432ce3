//! A fitted model with the scaler fitted on its training data: the one fitting path
//! ([`Pipeline::fit`], used by `kernlearn fit`, `evaluate`, `select`, the demo and
//! [`crate::experiment::Experiment`]) and the model file ([`Pipeline::save`] /
//! [`Pipeline::load`], the JSON format documented in `docs/DESIGN.md`, "Model files").

use crate::data::{Dataset, Features, ScaleMode, Scaler, SparseFeatures};
use crate::learner::AnyModel;
use crate::learner::{timed, ChosenParams, Method, Progress, ProgressFn};
use crate::predictor::Task;
use crate::select::Selection;
use crate::trace::Trace;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

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

/// Fewest training rows for which [`Pipeline::fit_time_estimate`] estimates.
pub const ESTIMATE_MIN_ROWS: usize = 20_000;
/// Rows of the pilot fit of [`Pipeline::fit_time_estimate`].
pub const ESTIMATE_PILOT_ROWS: usize = 4_000;

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

    /// Predictions for raw (unscaled) features, read from the decision values once they
    /// are checked finite: a damaged model (a weight edited to 1e308) whose outputs
    /// overflow is an error, never a label picked from NaN scores.
    pub fn predict(&self, x: &Features) -> Result<Vec<f64>> {
        let dec = self.decision_function(x)?;
        let pred: Vec<f64> = dec
            .iter()
            .map(|d| self.model.predict_from_decision(d))
            .collect();
        finite_outputs(pred.iter().map(std::slice::from_ref), "prediction")?;
        Ok(pred)
    }

    /// Decision values for raw (unscaled) features; an error when one is not finite
    /// (inputs beyond what f64 arithmetic can carry), never a silent NaN.
    pub fn decision_function(&self, x: &Features) -> Result<Vec<Vec<f64>>> {
        let dec = self.model.decision_function(&self.transform(x)?)?;
        finite_outputs(dec.iter().map(Vec::as_slice), "decision value")?;
        Ok(dec)
    }

    /// The unsigned dual variable of each of the `n_rows` training rows when the model
    /// is a binary C-SVC ([`crate::svm::SvmModel::row_alpha`]): the start of
    /// [`crate::svm::SvmModel::fit_from_alpha`] in a divide-and-conquer fit.
    pub fn row_alpha(&self, n_rows: usize) -> Result<Vec<f64>> {
        let svm = (self.model.downcast_ref::<crate::svm::SvmModel>()).ok_or_else(|| {
            Error::param(
                "model",
                format!(
                    "per-row dual variables are an SVM's, not {}'s",
                    self.model.method()
                ),
            )
        })?;
        svm.row_alpha(n_rows)
    }

    /// Whether it predicts sparse (CSR) rows: its model is an SVM.
    pub fn takes_sparse(&self) -> bool {
        self.sparse_model().is_ok()
    }

    /// The SVM of this pipeline, for sparse input; other methods refuse it, naming the
    /// method and why.
    fn sparse_model(&self) -> Result<&crate::svm::SvmModel> {
        self.model
            .downcast_ref::<crate::svm::SvmModel>()
            .ok_or_else(|| {
                Error::param(
                    "input",
                    format!(
                        "method {} cannot take sparse input: it reads dense feature rows \
                         (only svm has sparse kernels); densify the data to use it",
                        self.model.method()
                    ),
                )
            })
    }

    /// Decision values for raw sparse (CSR) features: scaled as at fit time when the
    /// scaling keeps zeros ([`Scaler::transform_sparse`]), then the SVM's sparse kernel;
    /// other methods refuse sparse input with the reason.
    pub fn decision_function_sparse(&self, x: &SparseFeatures) -> Result<Vec<Vec<f64>>> {
        let model = self.sparse_model()?;
        let dec = model.decision_function_sparse(&self.scaler.transform_sparse(x)?)?;
        finite_outputs(dec.iter().map(Vec::as_slice), "decision value")?;
        Ok(dec)
    }

    /// Predictions for raw sparse features (see [`Pipeline::decision_function_sparse`]).
    pub fn predict_sparse(&self, x: &SparseFeatures) -> Result<Vec<f64>> {
        let model = self.sparse_model()?;
        let pred: Vec<f64> = self
            .decision_function_sparse(x)?
            .iter()
            .map(|d| model.predict_from_decision(d))
            .collect();
        finite_outputs(pred.iter().map(std::slice::from_ref), "prediction")?;
        Ok(pred)
    }

    /// Each input column's relevance to the learned kernel, named by column (the names
    /// seen at fit time, or `f1..fd`), in column order; `None` for a model that learns
    /// none ([`crate::predictor::FEATURE_RELEVANCE`]).
    pub fn feature_relevance(&self) -> Option<Vec<(String, f64)>> {
        self.per_feature(crate::predictor::FEATURE_RELEVANCE)
    }

    /// The model's per-feature artefact `name` ([`crate::predictor::ArtefactValue::PerFeature`]),
    /// each share named by its column as [`Pipeline::feature_relevance`] names them.
    pub fn per_feature(&self, name: &str) -> Option<Vec<(String, f64)>> {
        let relevance = self.model.per_feature(name)?;
        let names = if self.feature_names.len() == relevance.len() {
            self.feature_names.clone()
        } else {
            (1..=relevance.len()).map(|k| format!("f{k}")).collect()
        };
        Some(names.into_iter().zip(relevance).collect())
    }

    /// Writes the model as JSON, atomically ([`crate::output::write_atomic`]: a failed
    /// write never leaves half a model behind). Whether `path` may be replaced is the
    /// caller's decision ([`crate::output::Outputs::plan`]).
    pub fn save(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string(self).map_err(|e| Error::Model {
            path: path.display().to_string(),
            reason: format!("cannot serialise: {e}"),
        })?;
        crate::output::write_atomic(path, text.as_bytes())
    }

    /// Reads a model written by [`Pipeline::save`]; a truncated, foreign or newer file
    /// gets an error saying which, and a file whose contents are inconsistent (edited
    /// lengths, counts, classes, parameters: see [`Pipeline::validate`]) a
    /// `malformed model file: …` error naming the field.
    pub fn load(path: &Path) -> Result<Self> {
        let text = crate::data::read_text_bounded(path)?;
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
        let pipeline = match Pipeline::deserialize(&value) {
            Ok(p) => p,
            Err(e) => {
                // A matrix that does not read back is reported with its path (the
                // model's own fields relative to the model, as validation reports them).
                let reason = match bad_matrix(&value, "") {
                    Some(m) => m.strip_prefix("model.fitted.").unwrap_or(&m).to_string(),
                    None => e.to_string(),
                };
                return Err(err(format!("malformed model file: {reason}")));
            }
        };
        pipeline.validate().map_err(|e| {
            err(format!(
                "malformed model file: {}",
                crate::validate::message(e)
            ))
        })?;
        Ok(pipeline)
    }

    /// Checks the model ([`crate::Predictor::validate`]), that the scaler has the model's
    /// feature count (`Scaler::validate`) and that `feature_names`, when given, has one
    /// name per feature. [`Pipeline::load`] runs this on every file it reads.
    pub fn validate(&self) -> Result<()> {
        self.model.validate()?;
        let d = self.model.n_features();
        crate::validate::within("scaler", self.scaler.validate(d))?;
        crate::validate::ensure(
            self.feature_names.is_empty() || self.feature_names.len() == d,
            || {
                format!(
                    "feature_names has {} names, the model has {d} features",
                    self.feature_names.len()
                )
            },
        )
    }
}

/// The first matrix ([`Features`]: an object with `n_rows`, `n_cols` and `values`) in
/// `v` that does not read back, as `path: why` (`path` is `v`'s own path, fields joined
/// by `.`, list elements as `[i]`).
fn bad_matrix(v: &serde_json::Value, path: &str) -> Option<String> {
    use serde_json::Value;
    match v {
        Value::Object(map) => {
            if ["n_rows", "n_cols", "values"]
                .iter()
                .all(|k| map.contains_key(*k))
            {
                return Features::deserialize(v)
                    .err()
                    .map(|e| format!("{path}: {e}"));
            }
            map.iter().find_map(|(k, x)| {
                let sub = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                bad_matrix(x, &sub)
            })
        }
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, x)| bad_matrix(x, &format!("{path}[{i}]"))),
        _ => None,
    }
}

/// The first non-finite output, as an error naming its row.
fn finite_outputs<'a>(rows: impl Iterator<Item = &'a [f64]>, what: &str) -> Result<()> {
    for (i, row) in rows.enumerate() {
        if let Some(v) = row.iter().find(|v| !v.is_finite()) {
            return Err(Error::numerical(format!(
                "the {what} of row {} is {v}: the input is beyond what f64 arithmetic can \
                 carry (features near ±1e308, or a model file with extreme values)",
                i + 1
            )));
        }
    }
    Ok(())
}

/// What [`Pipeline::fit`] returns: the pipeline and what its fit reported.
#[derive(Clone, Debug)]
pub struct FittedPipeline {
    /// Scaler and model, ready to predict or save.
    pub pipeline: Pipeline,
    /// Per-iteration records of the final fit (KNPL, DANK), for `--trace`.
    pub trace: Option<Trace>,
    /// The hyper-parameters used (selected or given).
    pub chosen: ChosenParams,
    /// The grid search record, when one ran.
    pub selection: Option<Selection>,
    /// Seconds spent selecting hyper-parameters (0 without selection).
    pub select_seconds: f64,
    /// Seconds fitting the final model.
    pub fit_seconds: f64,
    /// After the base-kernel fallback, the declined learned kernel's model
    /// ([`crate::learner::FittedMethod::declined`]) behind the same scaler; `None` when the
    /// learned kernel was kept or no fallback ran. Not part of `pipeline`, so not saved.
    pub declined: Option<Pipeline>,
}

impl FittedPipeline {
    /// What the front ends report of the fit (`learner::fit_record`).
    pub fn record(&self) -> serde_json::Value {
        crate::learner::fit_record(
            &self.chosen,
            self.selection.as_ref(),
            self.select_seconds,
            self.fit_seconds,
        )
    }

    /// The pipeline whose model learned a kernel: the fitted one, or after the base-kernel
    /// fallback the declined learned kernel's (`true`: the fitted model is SVM-CV's).
    /// What a report shows of the learned kernel (its feature relevance) reads from it.
    pub fn learned(&self) -> (&Pipeline, bool) {
        match &self.declined {
            Some(declined) => (declined, true),
            None => (&self.pipeline, false),
        }
    }
}

impl Pipeline {
    /// A fit whose objective is not finite is an error (features or targets beyond f64).
    fn check_objective(fitted: &crate::learner::FittedMethod) -> Result<()> {
        if let Some(objective) = fitted.model.summary().objective {
            if !objective.is_finite() {
                return Err(Error::numerical(format!(
                    "the fit's objective is {objective}: the features or targets are too \
                     large for f64 arithmetic; rescale them (e.g. «scale=standard», or \
                     «scale=maxabs» on sparse data, or targets in smaller units)"
                )));
            }
        }
        Ok(())
    }

    /// [`Pipeline::fit_weighted`] on sparse (CSR) features with labels or targets `y`:
    /// the scaler is fitted without densifying ([`Scaler::fit_sparse`]: `none`, `maxabs`,
    /// or `01` on non-negative data), the labels checked for the method's task as
    /// [`Pipeline::fit`] checks them, the method by [`crate::Learner::fit_sparse`]
    /// (methods without sparse kernels refuse, naming themselves). Feature names are
    /// `f1..fd`.
    pub fn fit_sparse(
        scale: ScaleMode,
        method: &Method,
        x: &SparseFeatures,
        y: &[f64],
        weights: Option<&[f64]>,
        seed: u64,
        progress: ProgressFn,
    ) -> Result<FittedPipeline> {
        if method.reads_kernel_values() {
            return Err(Error::param(
                "input",
                format!(
                    "method {} reads kernel values, not features: sparse input does not apply",
                    method.name()
                ),
            ));
        }
        // The dense fit's label check, on the LIBSVM file's label field.
        match method.task() {
            Task::Classification => {
                crate::data::check_training_labels(y, x.n_rows(), "label", true)?;
            }
            Task::Regression => {
                crate::data::check_training_labels(y, x.n_rows(), "label", false)?;
            }
            Task::Novelty => {}
        }
        let scaler = Scaler::fit_sparse(scale, x)?;
        let xs = scaler.transform_sparse(x)?;
        let fitted = method.fit_sparse(&xs, y, weights, seed, progress)?;
        Self::check_objective(&fitted)?;
        // No feature names: `f1..fd` of a 10⁶-column file would outweigh the model.
        Ok(FittedPipeline {
            pipeline: Pipeline::new(scaler, fitted.model, Vec::new()),
            declined: None,
            trace: fitted.trace,
            chosen: fitted.chosen,
            selection: fitted.selection,
            select_seconds: fitted.select_seconds,
            fit_seconds: fitted.fit_seconds,
        })
    }

    /// Checks `train` for `method`'s task, fits the `scale` scaler on it and then the
    /// method (with its selection) on the scaled features, seeded by `seed`.
    pub fn fit(
        scale: ScaleMode,
        method: &Method,
        train: &Dataset,
        seed: u64,
        progress: ProgressFn,
    ) -> Result<FittedPipeline> {
        Self::fit_weighted(scale, method, train, None, seed, progress)
    }

    /// An estimate of [`Pipeline::fit`]'s seconds on `train` and the learner's advice,
    /// for a learner that declares how its fit time grows ([`crate::Learner::fit_time_growth`])
    /// on at least [`ESTIMATE_MIN_ROWS`] rows: the fit timed on a pilot sample of
    /// [`ESTIMATE_PILOT_ROWS`] evenly spaced rows (scaled as the fit will be), times
    /// `(n / pilot)^growth`. A rough figure (within a factor of about 2 on the stand-ins),
    /// for deciding whether to wait; the pilot costs well under a second.
    pub fn fit_time_estimate(
        scale: ScaleMode,
        method: &Method,
        train: &Dataset,
        seed: u64,
    ) -> Result<Option<(f64, &'static str)>> {
        let n = train.len();
        let Some((growth, advice)) = method.fit_time_growth() else {
            return Ok(None);
        };
        if n < ESTIMATE_MIN_ROWS {
            return Ok(None);
        }
        let rows: Vec<usize> = (0..ESTIMATE_PILOT_ROWS)
            .map(|i| i * n / ESTIMATE_PILOT_ROWS)
            .collect();
        let y: Vec<f64> = rows.iter().map(|&i| train.y[i]).collect();
        let x = Scaler::fit(scale, &train.x).transform(&train.x.select_rows(&rows))?;
        let no_progress = |_: Progress| {};
        let Ok((_, seconds)) = timed(|| method.fit(&x, &y, seed, &no_progress)) else {
            // A pilot the method refuses (e.g. one class in the sample) gives no estimate.
            return Ok(None);
        };
        let ratio = n as f64 / ESTIMATE_PILOT_ROWS as f64;
        Ok(Some((seconds * ratio.powf(growth), advice)))
    }

    /// [`Pipeline::fit`] with per-sample weights (one per training row, see
    /// [`crate::Learner::fit_weighted`]); methods that cannot honour them refuse. The scaler
    /// is fitted unweighted.
    pub fn fit_weighted(
        scale: ScaleMode,
        method: &Method,
        train: &Dataset,
        weights: Option<&[f64]>,
        seed: u64,
        progress: ProgressFn,
    ) -> Result<FittedPipeline> {
        if train.n_features() == 0 {
            return Err(Error::data(
                "the training data has no feature columns (only labels or targets): there \
                 is nothing to learn a kernel on",
            ));
        }
        let values = train.len() * train.n_features();
        if !crate::check::dense_matrix_fits(values, crate::check::FIT_COPIES - 1.0) {
            return Err(Error::data(format!(
                "a fit on {} rows × {} dense features holds about {:.1} GB (the scaled \
                 copy and the kernel's), more than the memory available; read the data \
                 sparse («sparse»), or fit on fewer rows",
                train.len(),
                train.n_features(),
                values as f64 * 8.0 * (crate::check::FIT_COPIES - 1.0) / 1e9
            )));
        }
        match method.task() {
            Task::Classification => {
                train.validate_classification()?;
            }
            Task::Regression => train.validate_regression()?,
            Task::Novelty => {}
        }
        // Kernel values are not features: scaling columns would break the Gram matrix.
        let scale = if method.reads_kernel_values() {
            ScaleMode::None
        } else {
            scale
        };
        let scaler = Scaler::fit(scale, &train.x);
        let x = scaler.transform(&train.x)?;
        let fitted = match weights {
            None => method.fit(&x, &train.y, seed, progress)?,
            Some(w) => {
                if w.len() != train.len() {
                    return Err(Error::param(
                        "sample weights",
                        format!("{} weights for {} training rows", w.len(), train.len()),
                    ));
                }
                method.fit_weighted(&x, &train.y, w, seed, progress)?
            }
        };
        Self::check_objective(&fitted)?;
        let names = &train.feature_names;
        let declined = (fitted.declined).map(|m| Pipeline::new(scaler.clone(), m, names.clone()));
        Ok(FittedPipeline {
            pipeline: Pipeline::new(scaler, fitted.model, names.clone()),
            declined,
            trace: fitted.trace,
            chosen: fitted.chosen,
            selection: fitted.selection,
            select_seconds: fitted.select_seconds,
            fit_seconds: fitted.fit_seconds,
        })
    }
}

#[cfg(test)]
mod estimate_tests {
    use super::*;
    use crate::learner::{GridSettings, SvmLearner};
    use crate::svm::SvmParams;

    fn blobs(n: usize) -> Dataset {
        // Two interleaved classes along a line: every row a plausible support vector.
        let x: Vec<f64> = (0..n)
            .flat_map(|i| [(i % 97) as f64 / 97.0, (i % 13) as f64])
            .collect();
        Dataset {
            x: Features::new(n, 2, x).unwrap(),
            y: (0..n)
                .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
                .collect(),
            feature_names: vec!["a".into(), "b".into()],
            target_name: "label".into(),
        }
    }

    #[test]
    fn an_exact_fit_on_many_rows_is_estimated_from_a_pilot_and_nothing_else_is() {
        let fixed = Method::new(SvmLearner {
            params: SvmParams::default(),
            search: None,
        });
        let big = blobs(ESTIMATE_MIN_ROWS);
        let (seconds, advice) = Pipeline::fit_time_estimate(ScaleMode::ZeroOne, &fixed, &big, 1)
            .unwrap()
            .expect("an exact SVM on 20,000 rows is estimated");
        assert!(seconds.is_finite() && seconds > 0.0);
        assert!(advice.contains("nystrom-linear"));
        let small = blobs(ESTIMATE_MIN_ROWS - 1);
        assert!(
            Pipeline::fit_time_estimate(ScaleMode::ZeroOne, &fixed, &small, 1)
                .unwrap()
                .is_none()
        );
        let searched = Method::new(SvmLearner {
            params: SvmParams::default(),
            search: Some(GridSettings::default()),
        });
        assert!(
            Pipeline::fit_time_estimate(ScaleMode::ZeroOne, &searched, &big, 1)
                .unwrap()
                .is_none()
        );
    }
}
