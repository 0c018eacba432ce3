//! The contract every family implements, below the families and above the kernel
//! machine: the [`Learner`] trait (selection and fit → [`FittedMethod`]), [`Method`]
//! (any learner, for dispatch), [`AnyModel`] (any fitted model), the parameters a fit
//! chose ([`ChosenParams`]), progress events, the selection shapes the learners share
//! (`selection`), the kernel machine's options ([`options`]) and how a family
//! declares itself (`family`), and the protocol of fits spread over workers
//! (`scale_out`).
//!
//! The registry that names every family (the method catalogue) is `crate::method`,
//! above the families; fitting a scaler and a method is `crate::pipeline::Pipeline::fit`.

pub(crate) mod fallback;
pub(crate) mod family;
mod grid;
pub(crate) mod model;
pub mod options;
pub(crate) mod scale_out;
pub(crate) mod selection;
mod svm;
pub(crate) mod weights;

pub use family::{Family, MethodInfo, ModelKind, Takes};
pub use grid::GridSettings;
pub use model::{AnyModel, Model};
pub use scale_out::{
    Coordinator, Finished, Packet, ScaleOut, ScaleOutInput, ScaleOutWorker, Started, Step,
};
pub use selection::select_candidate;
pub use svm::SvmLearner;

use crate::data::{Features, SparseFeatures};
use crate::kernel::Kernel;
use crate::predictor::Task;
use crate::select::Selection;
use crate::svm::SvmParams;
use crate::trace::Trace;
use crate::Result;
use serde::{Deserialize, Serialize};
use std::any::Any;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// Key of [`ChosenParams::other`] set by the learned-kernel methods' selection:
/// `1` when no candidate of the learned kernel beat the SVM on the base kernel in the
/// selection's cross-validation (same folds), so the fitted model is that SVM (SVM-CV's
/// choice of σ and C, or C on the default RBF for the kernel-family methods); `0` when
/// the learned kernel was kept.
pub const FELL_BACK: &str = "fell_back_to_base_svm";

/// `true`, the default of the learners' `fallback` fields.
pub(crate) fn yes() -> bool {
    true
}

/// Progress of a fit or an experiment.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Progress {
    /// One unit of the method's selection or fitting work finished (SVM-CV: one σ × fold;
    /// scalable DANK: also one cluster).
    Step,
    /// Repeat `r` (0-based) of an experiment finished.
    RepeatDone(usize),
    /// A network's training epoch finished (counts as one step): its number (from 1),
    /// the mean training loss and the validation accuracy (NaN without a validation
    /// split).
    Epoch {
        /// Epoch number, from 1.
        epoch: usize,
        /// Mean training log loss.
        loss: f32,
        /// Validation accuracy.
        val_accuracy: f32,
    },
    /// A named stage of a fit begins (e.g. the hyperkernel's factorisation, then its
    /// conic solve): shown as a message, not counted as a step.
    Stage(&'static str),
}

impl Progress {
    /// Whether the event is one unit of work of a progress bar (every event but
    /// [`Progress::Stage`]).
    pub fn advances(&self) -> bool {
        !matches!(self, Progress::Stage(_))
    }
}

/// The progress callback every fit takes.
pub type ProgressFn<'a> = &'a (dyn Fn(Progress) + Sync);

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
    /// Method-specific values, named `<method>_<paper symbol>`: `knpl_regulariser_gamma`
    /// (KNPL's γ of γ‖G‖², not the RBF width), `dank_tau`, `dank_eta`, `mwu_epsilon`,
    /// `easymkl_lambda`, and sizes (`clusters`, `landmarks`, `support_percent`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub other: BTreeMap<String, f64>,
    /// The base-kernel fallback's evidence, when its check ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_evidence: Option<FallbackEvidence>,
}

/// What the base-kernel fallback decided on (accuracy per fold, or MSE for
/// regression): the learned kernel's and SVM-CV's scores on the selection folds, and on
/// the fresh confirmation folds when those ran (the learned kernel passed the first
/// check, or [`GridSettings::confirm_always`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FallbackEvidence {
    /// The learned kernel's best candidate on the selection folds.
    pub learned: Vec<f64>,
    /// SVM-CV's choice on the same folds.
    pub svm: Vec<f64>,
    /// Both chosen models refitted on a fresh partition: `[learned, svm]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation: Option<[Vec<f64>; 2]>,
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
    pub(crate) fn of_svm(params: &SvmParams) -> Self {
        let eps = params.svm_type.is_regressor().then_some(params.epsilon);
        Self::of(&params.kernel, params.c, eps)
    }
}

/// What [`Learner::fit`] returns.
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
    /// After the base-kernel fallback ([`FELL_BACK`] = 1), the learned kernel's model that
    /// the fallback declined: the learned kernel fitted on the whole training data at the
    /// parameters its selection chose, so that what it learned (kernel weights, gates,
    /// learned matrices) stays inspectable although `model` is the SVM. `None` when the
    /// learned kernel was kept or no fallback ran.
    pub declined: Option<AnyModel>,
}

impl FittedMethod {
    /// `model`, fitted in `fit_seconds` with the parameters `chosen`, without selection.
    pub(crate) fn new(model: AnyModel, chosen: ChosenParams, fit_seconds: f64) -> Self {
        Self {
            model,
            chosen,
            selection: None,
            select_seconds: 0.0,
            fit_seconds,
            trace: None,
            declined: None,
        }
    }

    /// With the time selection took and its grid-search record (if any).
    pub(crate) fn selected(mut self, select_seconds: f64, selection: Option<Selection>) -> Self {
        self.select_seconds = select_seconds;
        self.selection = selection;
        self
    }

    /// With an SVM-CV stage's record, when one ran.
    pub(crate) fn selected_by(self, svm_cv: Option<selection::Selected<Selection>>) -> Self {
        match svm_cv {
            Some(s) => self.selected(s.seconds, Some(s.chosen)),
            None => self,
        }
    }

    /// With the per-iteration records of the final fit.
    pub(crate) fn traced(mut self, trace: Option<Trace>) -> Self {
        self.trace = trace;
        self
    }

    /// What the front ends report of the fit (`fit_record`).
    pub fn record(&self) -> serde_json::Value {
        fit_record(
            &self.chosen,
            self.selection.as_ref(),
            self.select_seconds,
            self.fit_seconds,
        )
    }
}

/// A fit's report as the front ends print and return it: the parameters chosen, the
/// grid-search record, and the selection and fit seconds (one layout for every fit,
/// single-machine or distributed).
pub(crate) fn fit_record(
    chosen: &ChosenParams,
    selection: Option<&Selection>,
    select_seconds: f64,
    fit_seconds: f64,
) -> serde_json::Value {
    serde_json::json!({
        "chosen": chosen,
        "selection": selection,
        "select_seconds": select_seconds,
        "fit_seconds": fit_seconds,
    })
}

/// `f`'s result and the seconds it took.
/// The error of a learner that cannot honour per-sample weights, saying why.
pub(crate) fn weights_refused(method: &str, why: &str) -> crate::Error {
    crate::Error::param(
        "sample weights",
        format!("{method} cannot honour per-sample weights: {why}"),
    )
}

pub(crate) fn timed<T>(f: impl FnOnce() -> Result<T>) -> Result<(T, f64)> {
    let start = std::time::Instant::now();
    let value = f()?;
    Ok((value, start.elapsed().as_secs_f64()))
}

/// The contract every learning method implements in its own module: what it fits and
/// how it selects its hyper-parameters and fits on scaled training data.
pub trait Learner: AsAny + fmt::Debug + Send + Sync {
    /// The papers' name (`SVM-CV`, `KNPL`, `MWUMKL`, …).
    fn name(&self) -> String;
    /// What it fits.
    fn task(&self) -> Task;
    /// How many [`Progress::Step`] events one fit emits.
    fn steps(&self) -> u64;
    /// Selects hyper-parameters (when the learner has a search) and fits on the scaled
    /// training data. `seed` seeds the method's own randomness (CV folds, probabilities).
    fn fit(&self, x: &Features, y: &[f64], seed: u64, progress: ProgressFn)
        -> Result<FittedMethod>;
    /// [`Learner::fit`] with per-sample weights `weights` (one per row; each point's
    /// bound `C_t = C · w_t` in the SVM dual, as LIBSVM's weighted variant and
    /// scikit-learn's `sample_weight`). A learner that cannot honour them refuses,
    /// rather than fitting as if all weights were 1.
    fn fit_weighted(
        &self,
        x: &Features,
        y: &[f64],
        weights: &[f64],
        seed: u64,
        progress: ProgressFn,
    ) -> Result<FittedMethod> {
        let _ = (x, y, weights, seed, progress);
        Err(weights_refused(
            &self.name(),
            "its kernel learning has no weighted form; fit it without weights, or use a \
             method that takes them (the kernel machines svm, svr, one-class, ...; the \
             method catalogue says which)",
        ))
    }
    /// Predictions of `fitted` (a fit of this learner) on rows held out of the data it
    /// was fitted from: a selection's validation fold. By default the model's own; a
    /// learner that holds kernel values for those rows (an MKL candidate with its
    /// selection's kernel table) reads them instead of evaluating them again.
    fn predict_held_out(&self, fitted: &FittedMethod, x: &Features) -> Result<Vec<f64>> {
        fitted.model.predict(x)
    }
    /// The settings of a grid search ([`GridSettings`]: `sigmas`, `cs`, `epsilons`,
    /// `folds`) its selection reads. By default all of them (SVM-CV first, then its own
    /// candidates over the same folds), the tube widths ε only for regression; a learner whose selection reads fewer says so,
    /// and a front end refuses a setting the user gave that would be ignored.
    fn grid_reads(&self) -> &'static [&'static str] {
        match self.task() {
            Task::Regression => &["sigmas", "cs", "epsilons", "folds"],
            _ => &["sigmas", "cs", "folds"],
        }
    }
    /// Whether its selection ends with the base-kernel fallback (`fallback::Fallback`),
    /// and so reads the fallback's settings ([`GridSettings::confirm_always`],
    /// [`GridSettings::confirmation_folds`]). `false` by default.
    fn runs_fallback(&self) -> bool {
        false
    }
    /// How its fit time grows with the number of training rows, `t ∝ n^growth`, and
    /// what to run instead when that is too long, when the learner knows (the exact
    /// SVM: about `n²` once most rows are support vectors). A front end times a fit on a
    /// small sample and extrapolates ([`crate::Pipeline::fit_time_estimate`]). `None`
    /// by default: no estimate.
    fn fit_time_growth(&self) -> Option<(f64, &'static str)> {
        None
    }
    /// True when the learner reads kernel values, not features (a Gram set): the
    /// pipeline then leaves them unscaled, whatever the scaling asked for.
    fn reads_kernel_values(&self) -> bool {
        false
    }
    /// True when [`Learner::fit_sparse`] fits (a sparse kernel), so a front end may keep a
    /// wide sparse file sparse without being asked.
    fn takes_sparse(&self) -> bool {
        false
    }
    /// Fits on scaled sparse (CSR) features, with per-sample weights when given (as
    /// [`Learner::fit_weighted`]). Refused by default, naming the method: its kernels,
    /// features or networks are computed on dense rows. Learners with sparse kernels
    /// override it.
    fn fit_sparse(
        &self,
        _x: &SparseFeatures,
        _y: &[f64],
        _weights: Option<&[f64]>,
        _seed: u64,
        _progress: ProgressFn,
    ) -> Result<FittedMethod> {
        Err(crate::Error::param(
            "input",
            format!(
                "method {} cannot take sparse input: it computes its kernels or features on \
                 dense rows; read the data densely (without «sparse», or as a dense array) \
                 to use it",
                self.name()
            ),
        ))
    }
}

/// A learner as [`Any`], so that tests and a family's own code can reach its type.
pub trait AsAny {
    /// `self` as [`Any`].
    fn as_any(&self) -> &dyn Any;
}

impl<T: Any> AsAny for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A method and its hyper-parameter selection: any family's learner, built by the
/// registry (`crate::method::MethodKind::build`) or directly from a learner.
#[derive(Clone)]
pub struct Method(Arc<dyn Learner>);

impl Method {
    /// Wraps a learner.
    pub(crate) fn new(learner: impl Learner + 'static) -> Self {
        Self(Arc::new(learner))
    }

    /// The learner as its own type, when it is an `L`.
    #[cfg(test)]
    pub(crate) fn learner_as<L: Learner + 'static>(&self) -> Option<&L> {
        // Through the trait object: `Arc<dyn Learner>` is itself `Any`.
        (*self.0).as_any().downcast_ref()
    }
}

impl fmt::Debug for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A method is its family's learner: every [`Learner`] method is reached through the
/// trait object itself, so no forwarding can leave one out.
impl std::ops::Deref for Method {
    type Target = dyn Learner + 'static;
    fn deref(&self) -> &(dyn Learner + 'static) {
        &*self.0
    }
}
