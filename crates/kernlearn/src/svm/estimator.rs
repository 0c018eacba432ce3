//! The kernel machine as an [`Predictor`]: what every front end reads of a fitted
//! [`SvmModel`] (its task from the formulation, LIBSVM's per-pair objectives, support
//! counts and `rho` as the fit summary, a warning when SMO stopped at its iteration cap).

use super::SvmModel;
use crate::data::Features;
use crate::predictor::{FitSummary, Predictor, Task};
use crate::Result;

impl Predictor for SvmModel {
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

    fn validate(&self) -> Result<()> {
        SvmModel::validate(self)
    }

    fn warnings(&self) -> Vec<String> {
        if !self.info.hit_max_iter {
            return Vec::new();
        }
        vec![format!(
            "the SMO solver stopped at its iteration cap ({} iterations in all) before \
             reaching tolerance {}; the model may be poor (as LIBSVM warns: scale the \
             features, or lower C)",
            self.info.iterations, self.params.solver.tol
        )]
    }

    fn predict_from_decision(&self, dec: &[f64]) -> f64 {
        SvmModel::predict_from_decision(self, dec)
    }

    fn probabilities_from_decision(&self, dec: &[f64]) -> Result<Vec<f64>> {
        SvmModel::probabilities_from_decision(self, dec)
    }
}
