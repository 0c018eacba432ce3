//! A learning method together with how its hyper-parameters are chosen: the one thing
//! `kernlearn fit`, `evaluate`, `experiment` and the demo run.
//!
//! - [`catalogue`]: every method by name ([`MethodKind`], [`CATALOGUE`]): tasks, options,
//!   a one-line description, and how it is built from [`MethodOptions`].
//! - [`Learner`]: the contract each family implements in its own module (name, task,
//!   progress steps, selection and fit → [`FittedMethod`]).
//! - [`Method`]: the closed set of learners, for storage and dispatch; it delegates to
//!   [`Learner`] the way [`AnyModel`] delegates to [`crate::estimator::Estimator`].
//! - [`selection`]: the two selection shapes the learners share (SVM-CV first; a
//!   candidate list scored by k-fold CV).
//!
//! Fitting a scaler and a method on a dataset is [`crate::pipeline::Pipeline::fit`].

pub mod catalogue;
pub mod options;
pub mod selection;

pub use catalogue::{Family, MethodInfo, MethodKind, CATALOGUE};
pub use options::{
    GridSettings, MethodOptions, OptionSpec, OptionValue, SearchScoring, SolverChoice, OPTIONS,
};
pub use selection::select_candidate;

use crate::ckl::CklLearner;
use crate::data::{Dataset, Features};
use crate::dkmo::learner::DkmoLearner;
use crate::estimator::{AnyModel, Task};
use crate::hyperkernel::learner::HyperkernelLearner;
use crate::kernel::Kernel;
use crate::localized::learner::LocalizedLearner;
use crate::mkl::learner::{MklLearner, NystromLinearLearner};
use crate::nonparametric::learner::{DankLearner, KnplLearner, ScalableDankLearner};
use crate::nonparametric::Trace;
use crate::select::Selection;
use crate::svm::learner::SvmLearner;
use crate::svm::SvmParams;
use crate::Result;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Key of [`ChosenParams::other`] set by the learned-kernel methods' selection (issue 19):
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
}

/// `f`'s result and the seconds it took.
pub(crate) fn timed<T>(f: impl FnOnce() -> Result<T>) -> Result<(T, f64)> {
    let start = std::time::Instant::now();
    let value = f()?;
    Ok((value, start.elapsed().as_secs_f64()))
}

/// The contract every learning method implements in its own module: what it fits and
/// how it selects its hyper-parameters and fits on scaled training data.
pub trait Learner: Send + Sync {
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
    /// Predictions of `fitted` (a fit of this learner) on rows held out of the data it
    /// was fitted from: a selection's validation fold. By default the model's own; a
    /// learner that holds kernel values for those rows (an MKL candidate with its
    /// selection's kernel table) reads them instead of evaluating them again.
    fn predict_held_out(&self, fitted: &FittedMethod, x: &Features) -> Result<Vec<f64>> {
        crate::estimator::Estimator::predict(&fitted.model, x)
    }
    /// True when the learner reads kernel values, not features (a Gram set): the
    /// pipeline then leaves them unscaled, whatever the scaling asked for.
    fn reads_kernel_values(&self) -> bool {
        false
    }
}

/// A method and its hyper-parameter selection: one learner of each family.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Method {
    /// A kernel machine on a fixed kernel, optionally with SVM-CV / SVR-CV.
    Svm(SvmLearner),
    /// KNPL (`G ⊙ K`).
    Knpl(KnplLearner),
    /// DANK-SVM / DANK-SVR (`F ⊙ K`).
    Dank(DankLearner),
    /// UNIFORM, MWUMKL or EasyMKL on a kernel family.
    Mkl(MklLearner),
    /// LIBLINEAR+: Nyström features of every base kernel and a linear SVM.
    NystromLinear(NystromLinearLearner),
    /// Scalable DANK (k-means clusters, one DANK machine each).
    DankScalable(ScalableDankLearner),
    /// Localized MKL: LMKL, C-LMKL, SWMKL or LD-MKL.
    Localized(LocalizedLearner),
    /// Hyperkernels: a kernel learned in a hyper-RKHS by conic programming.
    Hyperkernel(HyperkernelLearner),
    /// CKL or its fixed-feature baseline (a network on Fourier / Nyström features).
    Ckl(CklLearner),
    /// DKMO / M-DKMO: networks on dense embeddings of kernels.
    Dkmo(DkmoLearner),
}

impl Method {
    /// The learner this method delegates to.
    pub fn learner(&self) -> &dyn Learner {
        match self {
            Method::Svm(l) => l,
            Method::Knpl(l) => l,
            Method::Dank(l) => l,
            Method::Mkl(l) => l,
            Method::NystromLinear(l) => l,
            Method::DankScalable(l) => l,
            Method::Localized(l) => l,
            Method::Hyperkernel(l) => l,
            Method::Ckl(l) => l,
            Method::Dkmo(l) => l,
        }
    }

    /// Method `kind` for `data` from `options` (unset options take the paper's
    /// defaults), selecting its hyper-parameters by `search` when given. Options the
    /// method does not read are an error.
    pub fn build(
        kind: MethodKind,
        options: &MethodOptions,
        data: &Dataset,
        search: Option<GridSettings>,
    ) -> Result<Method> {
        kind.check_options(options)?;
        (kind.info().build)(kind, options, data, search)
    }

    /// Method `kind` for `data` with every default, seeded by `seed`.
    pub fn defaults(
        kind: MethodKind,
        data: &Dataset,
        search: Option<GridSettings>,
        seed: u64,
    ) -> Result<Method> {
        let options = MethodOptions {
            seed,
            ..MethodOptions::default()
        };
        Self::build(kind, &options, data, search)
    }
}

/// A method is a learner: it delegates to the learner of its family.
impl Learner for Method {
    fn name(&self) -> String {
        self.learner().name()
    }
    fn task(&self) -> Task {
        self.learner().task()
    }
    fn steps(&self) -> u64 {
        self.learner().steps()
    }
    fn fit(
        &self,
        x: &Features,
        y: &[f64],
        seed: u64,
        progress: ProgressFn,
    ) -> Result<FittedMethod> {
        self.learner().fit(x, y, seed, progress)
    }
    fn reads_kernel_values(&self) -> bool {
        self.learner().reads_kernel_values()
    }
}
