//! The fitted ARD-SVM: LIBSVM's C-SVC on the ARD Gaussian whose widths the alignment
//! learned ([`super::alignment`]), times the overall scale the selection chose, with each
//! feature's relevance.

use crate::data::Features;
use crate::predictor::{Artefact, ArtefactValue, FitSummary, Predictor, Task, FEATURE_RELEVANCE};
use crate::svm::SvmModel;
use crate::validate::ensure;
use crate::Result;
use serde::{Deserialize, Serialize};

/// An SVM on a learned ARD Gaussian kernel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArdModel {
    /// The kernel machine (kernel `ArdRbf { gammas }`).
    pub(crate) svm: SvmModel,
    /// Each feature's share of the kernel's exponent (sums to 1).
    pub(crate) relevance: Vec<f64>,
    /// Centered kernel-target alignment before and after learning the widths.
    pub(crate) alignment: (f64, f64),
    /// L-BFGS steps of the alignment ascent.
    pub(crate) iterations: usize,
}

impl Predictor for ArdModel {
    fn method(&self) -> String {
        "ard".into()
    }
    fn task(&self) -> Task {
        self.svm.task()
    }
    fn n_features(&self) -> usize {
        self.svm.n_features()
    }
    fn predict(&self, x: &Features) -> Result<Vec<f64>> {
        Predictor::predict(&self.svm, x)
    }
    fn decision_function(&self, x: &Features) -> Result<Vec<Vec<f64>>> {
        Predictor::decision_function(&self.svm, x)
    }
    fn params_json(&self) -> serde_json::Value {
        let mut params = self.svm.params_json();
        params["relevance"] = serde_json::json!(self.relevance);
        params
    }
    fn summary(&self) -> FitSummary {
        let mut s = self.svm.summary();
        s.extra["relevance"] = serde_json::json!(self.relevance);
        s.extra["alignment_start"] = serde_json::json!(self.alignment.0);
        s.extra["alignment"] = serde_json::json!(self.alignment.1);
        s.extra["alignment_iterations"] = serde_json::json!(self.iterations);
        s
    }
    fn classes(&self) -> Vec<f64> {
        self.svm.classes()
    }
    fn validate(&self) -> Result<()> {
        Predictor::validate(&self.svm)?;
        let d = self.svm.n_features();
        ensure(self.relevance.len() == d, || {
            format!(
                "relevance: {} values for {d} features",
                self.relevance.len()
            )
        })?;
        ensure(
            self.relevance.iter().all(|r| r.is_finite() && *r >= 0.0),
            || "relevance: a value is negative or not finite".to_string(),
        )
    }
    fn warnings(&self) -> Vec<String> {
        self.svm.warnings()
    }
    fn predict_from_decision(&self, dec: &[f64]) -> f64 {
        self.svm.predict_from_decision(dec)
    }
    fn probabilities_from_decision(&self, dec: &[f64]) -> Result<Vec<f64>> {
        Predictor::probabilities_from_decision(&self.svm, dec)
    }
    fn artefacts(&self) -> Vec<Artefact> {
        vec![Artefact {
            name: FEATURE_RELEVANCE,
            about: "each feature's share in the kernel's exponent",
            value: ArtefactValue::PerFeature(self.relevance.clone()),
        }]
    }
}
