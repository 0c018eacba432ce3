//! LIBLINEAR+ (Moeller 2017, section 3.4.2): Nyström features of every base kernel
//! (Williams and Seeger 2001), concatenated, and a linear SVM on them
//! ([`super::linear`], dual coordinate descent).
//!
//! The feature maps are [`crate::bank::NystromFeatures`]. For `s` landmarks `L` drawn uniformly (seeded) from the training points and each
//! trace-normalised base kernel `K̄_r`: `W_r = K̄_r(L, L) = U Λ Uᵀ`, and the features of
//! `x` are `z_r(x) = Λ^{-1/2} Uᵀ K̄_r(L, x)`, so that `z_r(x)ᵀz_r(x') ≈ K̄_r(x, x')`
//! (exact on the landmarks). Eigenvalues below `1e-10 λ_max` are dropped (a kernel on one
//! feature has low numerical rank; scikit-learn's `Nystroem` instead clips them at
//! `1e-12` and keeps `s` columns). The thesis does not normalise the kernels here (the
//! linear model weighs each block anyway); they are trace-normalised as for the other
//! methods so that one family spec means the same kernels everywhere. Memory is
//! `n × Σ_r rank_r` features (`O(snm)`, the baseline's known limit).

use super::linear::{solve_linear_svm, LinearSvmParams};
use crate::bank::{check_binary, KernelFamily, NystromFeatures};
use crate::data::Features;
use crate::multiclass::{BinaryMachine, OneVsOne};
use crate::predictor::one_vs_one_predictor_methods;
use crate::predictor::{FitSummary, Predictor};
use crate::validate::count_sum;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// Parameters of LIBLINEAR+.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NystromLinearParams {
    /// The base kernels.
    pub family: KernelFamily,
    /// Landmarks per kernel (the thesis: 150; at most the number of training points).
    pub landmarks: usize,
    /// Seed of the landmark draw.
    pub seed: u64,
    /// The linear SVM.
    pub svm: LinearSvmParams,
}

impl NystromLinearParams {
    /// `landmarks` landmarks (150 in the thesis), default linear SVM.
    pub fn new(family: KernelFamily, landmarks: usize) -> Self {
        Self {
            family,
            landmarks,
            seed: 1,
            svm: LinearSvmParams::default(),
        }
    }

    /// Checks the landmark count and the SVM parameters.
    pub(crate) fn validate(&self) -> Result<()> {
        if self.landmarks == 0 {
            return Err(Error::param("landmarks", "must be >= 1"));
        }
        self.svm.validate()
    }
}

/// A binary LIBLINEAR+ machine: `f(x) = wᵀz(x) + b`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NystromLinearMachine {
    /// The feature map.
    pub features: NystromFeatures,
    /// Linear weights.
    pub w: Vec<f64>,
    /// Bias.
    pub b: f64,
    /// Outer DCD iterations.
    pub iterations: usize,
}

impl NystromLinearMachine {
    /// Fits on one class pair (`y ∈ {±1}`).
    pub(crate) fn fit(params: &NystromLinearParams, x: &Features, y: &[f64]) -> Result<Self> {
        params.validate()?;
        check_binary(y, x.n_rows())?;
        let features = NystromFeatures::fit(&params.family, x, params.landmarks, params.seed)?;
        let z = features.transform(x)?;
        let sol = solve_linear_svm(&z, features.dim(), y, &params.svm)?;
        Ok(Self {
            features,
            w: sol.w,
            b: sol.b,
            iterations: sol.iterations,
        })
    }
}

impl NystromLinearMachine {
    /// Checks a machine read back for `n_features` features: valid feature maps
    /// ([`NystromFeatures::validate`]), one finite weight per feature dimension, a
    /// finite bias.
    pub(crate) fn validate(&self, n_features: usize) -> Result<()> {
        use crate::validate::{ensure, finite, finite_value, within};
        within("features", self.features.validate(n_features))?;
        let dim = self.features.dim();
        ensure(self.w.len() == dim, || {
            format!(
                "w has {} weights, the feature maps have {dim} dimensions (the sum of their ranks)",
                self.w.len()
            )
        })?;
        finite("w", &self.w)?;
        finite_value("b", self.b)
    }
}

impl BinaryMachine for NystromLinearMachine {
    fn decision_values(&self, x: &Features) -> Result<Vec<f64>> {
        x.check_finite("input")?;
        let z = self.features.transform(x)?;
        let dim = self.w.len();
        Ok((0..x.n_rows())
            .map(|t| {
                z[t * dim..(t + 1) * dim]
                    .iter()
                    .zip(&self.w)
                    .map(|(a, b)| a * b)
                    .sum::<f64>()
                    + self.b
            })
            .collect())
    }
}

/// A fitted LIBLINEAR+ classifier (one-vs-one over [`NystromLinearMachine`]s).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NystromLinearModel {
    /// What was fitted.
    pub params: NystromLinearParams,
    /// Number of input features.
    pub n_features: usize,
    /// One machine per class pair.
    pub machines: OneVsOne<NystromLinearMachine>,
}

impl NystromLinearModel {
    /// Fits on features `x` and class labels `y`.
    pub fn fit(params: &NystromLinearParams, x: &Features, y: &[f64]) -> Result<Self> {
        params.validate()?;
        params.family.validate(x.n_cols())?;
        x.check_training(y, true)?;
        let machines = OneVsOne::fit(x, y, |xp, yp| NystromLinearMachine::fit(params, xp, yp))?;
        Ok(Self {
            params: params.clone(),
            n_features: x.n_cols(),
            machines,
        })
    }
}

impl Predictor for NystromLinearModel {
    one_vs_one_predictor_methods!();

    fn method(&self) -> String {
        "nystrom-linear".to_string()
    }
    /// Valid parameters and family on `n_features` features, one-vs-one machines
    /// (`OneVsOne::validate`), each valid (`NystromLinearMachine::validate`).
    fn validate(&self) -> Result<()> {
        use crate::validate::within;
        within("params", self.params.validate())?;
        within(
            "params.family",
            self.params.family.validate(self.n_features),
        )?;
        within(
            "machines",
            self.machines.validate(|m| m.validate(self.n_features)),
        )
    }
    fn params_json(&self) -> serde_json::Value {
        serde_json::json!({
            "kernels": self.params.family.to_string(),
            "landmarks": self.params.landmarks,
            "seed": self.params.seed,
            "svm": self.params.svm,
        })
    }
    /// `extra`: feature dimension and landmarks per pair.
    fn summary(&self) -> FitSummary {
        let ms = &self.machines.machines;
        FitSummary {
            n_support: None,
            objective: None,
            iterations: Some(count_sum(ms.iter().map(|m| m.iterations))),
            extra: serde_json::json!({
                "kernels": self.params.family.to_string(),
                "classes": self.machines.classes,
                "feature_dim": ms.iter().map(|m| m.features.dim()).collect::<Vec<_>>(),
                "landmarks": ms.iter().map(|m| m.features.landmarks.n_rows()).collect::<Vec<_>>(),
            }),
        }
    }
}
