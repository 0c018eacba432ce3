//! The one interface every fitted model implements.
//!
//! Every fitted method is an [`Predictor`]: it predicts, gives decision values and a
//! [`FitSummary`]. It sits below the kernel machine, which implements it; any family's
//! fitted model behind it is [`crate::learner::AnyModel`], which
//! [`crate::pipeline::Pipeline`] pairs with the scaler fitted on the training data.

use crate::data::Features;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

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

impl Task {
    /// `classification`, `regression` or `novelty`.
    pub fn name(self) -> &'static str {
        match self {
            Task::Classification => "classification",
            Task::Regression => "regression",
            Task::Novelty => "novelty",
        }
    }
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

/// A per-row representation a model offers beyond its decision values (the kernel gates
/// of a localized MKL model, the fused layer of a DKMO network): one row per input row,
/// one named column per component.
#[derive(Clone, Debug, PartialEq)]
pub struct Representation {
    /// Column names (a gate's base kernel, `f1`, `f2`, … for a network layer).
    pub columns: Vec<String>,
    /// One row per input row.
    pub values: Features,
}

/// A fitted predictor. Fitting is each method's own constructor (its parameters differ);
/// everything after fitting goes through this trait.
pub trait Predictor {
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
    /// Checks that the fitted model is whole and consistent before it is used: every
    /// length and count against the others, every number finite, the classes of a
    /// classifier finite, distinct and at least two, every stored index in range and
    /// the parameters valid. A model read from a file ([`crate::Pipeline::load`]) is
    /// checked this way, so an edited or damaged file is an error, never a panic or a
    /// wrong prediction. Violations are [`Error::InvalidData`] whose message starts with
    /// the field at fault (`sv_coef[0] has 80 coefficients, …`).
    fn validate(&self) -> Result<()>;
    /// The prediction from one point's decision values (as returned by
    /// [`Predictor::decision_function`]): the one-vs-one vote, the value, or ±1.
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
    /// Names of the `width` decision values of one row, for output tables: one per
    /// class pair for one-vs-one classification (`decision_1_vs_-1`, LIBSVM's pair
    /// order), else `decision` (or `decision_<k>`). Models whose decision values mean
    /// something else name them themselves.
    fn decision_names(&self, width: usize) -> Vec<String> {
        let classes = self.classes();
        if self.task() != Task::Classification || classes.len() < 2 {
            return (0..width)
                .map(|k| match width {
                    1 => "decision".to_string(),
                    _ => format!("decision_{k}"),
                })
                .collect();
        }
        let mut names = Vec::new();
        for i in 0..classes.len() {
            for j in i + 1..classes.len() {
                names.push(format!("decision_{}_vs_{}", classes[i], classes[j]));
            }
        }
        names
    }
    /// What a user should know about the fit (a solver stopped at its iteration cap,
    /// …), one sentence each; empty when the fit went as intended.
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }
    /// What the model shows of what it learned beyond its predictions (feature
    /// relevance, kernel gates, a fused layer, a learned spectrum), each a named, typed
    /// [`Artefact`]. The CLI's report, its figures and the Python bindings render every
    /// artefact by its kind, so a model offering a new one changes only its own file.
    /// None by default.
    fn artefacts(&self) -> Vec<Artefact> {
        Vec::new()
    }
    /// The value of a [`ArtefactValue::PerRow`] artefact `name` at the rows `x` (scaled as
    /// the model's inputs) for class pair `pair` (0 when it does not depend on the pair).
    /// Called through [`dyn Predictor::representation`](#method.representation-1), which
    /// first checks that the model lists `name`.
    fn per_row(&self, name: &str, _x: &Features, _pair: usize) -> Result<Representation> {
        Err(self.no_artefact(name, ArtefactKind::PerRow))
    }
    /// The training rows a model keeps as the support points of class pair `pair`, when
    /// it records which they are.
    fn support_rows(&self, _pair: usize) -> Option<Vec<usize>> {
        None
    }
    /// Draws the [`ArtefactValue::Figure`] artefact `name` to `path` (PNG or SVG).
    #[cfg(feature = "plot")]
    fn draw_figure(&self, name: &str, _path: &std::path::Path) -> Result<()> {
        Err(self.no_artefact(name, ArtefactKind::Figure))
    }
    /// Class probabilities (in [`Predictor::classes`] order) from decision values; an
    /// error for methods without probability estimates.
    fn probabilities_from_decision(&self, _dec: &[f64]) -> Result<Vec<f64>> {
        Err(Error::param(
            "probability",
            format!("method {} has no probability estimates", self.method()),
        ))
    }
}

/// The name of the per-feature artefact every relevance-learning model offers.
pub const FEATURE_RELEVANCE: &str = "feature_relevance";

/// Something a fitted model shows of what it learned, beyond its predictions
/// ([`Predictor::artefacts`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Artefact {
    /// Its name in reports, error messages and Python (`feature_relevance`, `gates`, …).
    pub name: &'static str,
    /// What it is, in one sentence (shown beside it).
    pub about: &'static str,
    /// Its value where it needs no data, else how to get it.
    pub value: ArtefactValue,
}

/// An artefact's value, by kind.
#[derive(Clone, Debug, PartialEq)]
pub enum ArtefactValue {
    /// One non-negative share per input column, in column order, summing to 1: how much
    /// of the learned kernel rests on each feature.
    PerFeature(Vec<f64>),
    /// A representation of any rows, one named column per component
    /// ([`Predictor::per_row`]).
    PerRow,
    /// A picture the model draws of itself, without data ([`Predictor::draw_figure`]).
    Figure,
}

/// The kind of an [`ArtefactValue`], for asking a model whether it offers one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArtefactKind {
    /// [`ArtefactValue::PerFeature`].
    PerFeature,
    /// [`ArtefactValue::PerRow`].
    PerRow,
    /// [`ArtefactValue::Figure`].
    Figure,
}

impl ArtefactKind {
    /// `per-feature`, `per-row` or `figure` (for messages and the Python `info()`).
    pub fn name(self) -> &'static str {
        match self {
            ArtefactKind::PerFeature => "per-feature",
            ArtefactKind::PerRow => "per-row",
            ArtefactKind::Figure => "figure",
        }
    }
}

impl Artefact {
    /// As JSON: `name`, `kind`, `about` and, for a per-feature artefact, its `value`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut out = serde_json::json!({
            "name": self.name,
            "kind": self.value.kind().name(),
            "about": self.about,
        });
        if let ArtefactValue::PerFeature(shares) = &self.value {
            out["value"] = serde_json::json!(shares);
        }
        out
    }
}

impl ArtefactValue {
    /// Its kind.
    pub fn kind(&self) -> ArtefactKind {
        match self {
            ArtefactValue::PerFeature(_) => ArtefactKind::PerFeature,
            ArtefactValue::PerRow => ArtefactKind::PerRow,
            ArtefactValue::Figure => ArtefactKind::Figure,
        }
    }
}

/// Reading a model's artefacts by name; the one path every renderer takes, so that an
/// artefact a model does not list is a clear error, never a silent absence.
impl dyn Predictor + '_ {
    /// The names of the model's artefacts of `kind`.
    pub fn artefact_names(&self, kind: ArtefactKind) -> Vec<&'static str> {
        names_of_kind(self.artefacts(), kind)
    }

    /// The per-feature artefact `name`, if the model offers it.
    pub fn per_feature(&self, name: &str) -> Option<Vec<f64>> {
        self.artefacts().into_iter().find_map(|a| match a.value {
            ArtefactValue::PerFeature(v) if a.name == name => Some(v),
            _ => None,
        })
    }

    /// Each input feature's relevance to the learned kernel (the
    /// [`FEATURE_RELEVANCE`] artefact: the ARD-SVM's share of each feature in the
    /// kernel's exponent, an MKL model's kernel weights per feature); `None` for models
    /// that learn none.
    pub fn feature_relevance(&self) -> Option<Vec<f64>> {
        self.per_feature(FEATURE_RELEVANCE)
    }

    /// The per-row artefact `name` at the rows `x` for class pair `pair`; an error
    /// naming the ones the model offers when it lists no per-row `name`.
    pub fn representation(&self, name: &str, x: &Features, pair: usize) -> Result<Representation> {
        if !self.artefact_names(ArtefactKind::PerRow).contains(&name) {
            return Err(self.no_artefact(name, ArtefactKind::PerRow));
        }
        self.per_row(name, x, pair)
    }

    /// Draws the figure artefact `name` to `path`; an error naming the ones the model
    /// offers when it lists no figure `name`.
    #[cfg(feature = "plot")]
    pub fn figure(&self, name: &str, path: &std::path::Path) -> Result<()> {
        if !self.artefact_names(ArtefactKind::Figure).contains(&name) {
            return Err(self.no_artefact(name, ArtefactKind::Figure));
        }
        self.draw_figure(name, path)
    }
}

/// The [`crate::predictor::Predictor`] methods of a classifier model that is a
/// [`crate::multiclass::OneVsOne`] in `self.machines` over `self.n_features` features: the task, the feature
/// count, the classes, and prediction and decision values delegated to the machines.
/// Used inside `impl Predictor for …` blocks, beside the model's own `method`,
/// `params_json` and `summary`.
macro_rules! one_vs_one_predictor_methods {
    () => {
        fn task(&self) -> $crate::predictor::Task {
            $crate::predictor::Task::Classification
        }

        fn n_features(&self) -> usize {
            self.n_features
        }

        fn classes(&self) -> Vec<f64> {
            self.machines.classes.clone()
        }

        fn predict(&self, x: &$crate::data::Features) -> $crate::Result<Vec<f64>> {
            self.machines.predict(x)
        }

        fn decision_function(&self, x: &$crate::data::Features) -> $crate::Result<Vec<Vec<f64>>> {
            self.machines.decision_function(x)
        }
    };
}
pub(crate) use one_vs_one_predictor_methods;

/// The error for an artefact of `kind` a model does not offer, naming the ones it does.
trait NoArtefact {
    fn no_artefact(&self, name: &str, kind: ArtefactKind) -> Error;
}

/// The names of the artefacts of `kind` among `artefacts`.
fn names_of_kind(artefacts: Vec<Artefact>, kind: ArtefactKind) -> Vec<&'static str> {
    (artefacts.into_iter())
        .filter(|a| a.value.kind() == kind)
        .map(|a| a.name)
        .collect()
}

impl<P: Predictor + ?Sized> NoArtefact for P {
    fn no_artefact(&self, name: &str, kind: ArtefactKind) -> Error {
        let offered = names_of_kind(self.artefacts(), kind);
        let offered = if offered.is_empty() {
            "none".to_string()
        } else {
            offered.join(", ")
        };
        let what = kind.name();
        Error::param(
            "artefact",
            format!(
                "a {} model has no {what} artefact `{name}` (it offers: {offered})",
                self.method()
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::synthetic::sandwich;
    use crate::svm::{SvmModel, SvmParams};

    /// Asking a model for a representation it does not offer names what it offers.
    #[test]
    fn a_missing_representation_is_a_clear_error() {
        let data = sandwich(40, 0.3, 3).unwrap();
        let model = SvmModel::fit(&SvmParams::default(), &data.x, &data.y).unwrap();
        let model: &dyn Predictor = &model;
        assert!(model.artefacts().is_empty());
        let e = model
            .representation("gates", &data.x, 0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`gates`") && e.contains("offers: none"), "{e}");
        assert_eq!(model.support_rows(0), None);
    }

    /// A solver stopped by its iteration cap says so; a converged one says nothing.
    #[test]
    fn an_iteration_cap_is_a_warning() {
        let data = sandwich(120, 0.3, 3).unwrap();
        let mut params = SvmParams::default();
        let model = SvmModel::fit(&params, &data.x, &data.y).unwrap();
        assert!(model.warnings().is_empty());
        params.solver.max_iter = Some(3);
        let model = SvmModel::fit(&params, &data.x, &data.y).unwrap();
        let w = model.warnings();
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("iteration cap"), "{w:?}");
    }
}
