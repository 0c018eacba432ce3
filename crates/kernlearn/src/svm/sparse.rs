//! Kernel machines on sparse (CSR) features: fitting with [`SparseFeatureKernel`] rows,
//! sparse support vectors in the model, and decision values of sparse rows.

use super::model::{SvmModel, SvmParams, SvmType};
use crate::data::{Features, SparseFeatures};
use crate::kernel::{sparse_map_cross, SparseFeatureKernel};
use crate::{Error, Result};

impl SvmModel {
    /// Trains on sparse (CSR) features: the same machine as [`SvmModel::fit`] on the
    /// densified matrix (kernel values agree to rounding), with kernel rows computed by
    /// [`SparseFeatureKernel`] and the support vectors kept sparse
    /// (`sparse_support_vectors`). A precomputed kernel is refused: its input is a Gram
    /// matrix, not features.
    pub fn fit_sparse(params: &SvmParams, x: &SparseFeatures, y: &[f64]) -> Result<Self> {
        Self::fit_sparse_weighted(params, x, y, None)
    }

    /// [`SvmModel::fit_sparse`] with per-sample weights: each point's bound is
    /// C · w_i · its class weight, as in [`SvmModel::fit_weighted`].
    pub fn fit_sparse_weighted(
        params: &SvmParams,
        x: &SparseFeatures,
        y: &[f64],
        weights: Option<&[f64]>,
    ) -> Result<Self> {
        if params.kernel.is_precomputed() {
            return Err(Error::param(
                "kernel",
                "svm with a precomputed kernel cannot take sparse input: the Gram matrix is \
                 dense (pass it as dense features)",
            ));
        }
        params.validate(x.n_cols())?;
        if x.n_rows() == 0 {
            return Err(Error::data("the training set is empty"));
        }
        let needs_labels = params.svm_type != SvmType::OneClass;
        if needs_labels && y.len() != x.n_rows() {
            return Err(Error::data(format!(
                "{} labels for {} training rows",
                y.len(),
                x.n_rows()
            )));
        }
        if let Some(i) = y.iter().position(|v| !v.is_finite()) {
            return Err(Error::data(format!(
                "label of training row {} is not finite ({})",
                i + 1,
                y[i]
            )));
        }
        let source = SparseFeatureKernel::new(&params.kernel, x)?;
        let mut model = Self::fit_source_warm(params, &source, y, weights, None)?;
        model.n_features = x.n_cols();
        model.support_vectors = Features::new(0, x.n_cols(), Vec::new())?;
        model.sparse_support_vectors = Some(x.select_rows(&model.sv_indices));
        Ok(model)
    }

    /// Decision values of every row of sparse `x` (as [`SvmModel::decision_function`] on
    /// the dense rows). A model with dense support vectors converts them to CSR once; a
    /// precomputed kernel is refused (its input is kernel values, not features).
    pub fn decision_function_sparse(&self, x: &SparseFeatures) -> Result<Vec<Vec<f64>>> {
        if self.params.kernel.is_precomputed() {
            return Err(Error::param(
                "kernel",
                "svm with a precomputed kernel cannot take sparse input: it reads kernel \
                 values against the training points (pass them as dense features)",
            ));
        }
        if x.n_cols() != self.n_features {
            return Err(Error::data(format!(
                "the model was fitted on {} features, the input has {}",
                self.n_features,
                x.n_cols()
            )));
        }
        match &self.sparse_support_vectors {
            Some(sv) => self.decision_sparse_sv(sv, x),
            None => self.decision_sparse_sv(&SparseFeatures::from_dense(&self.support_vectors)?, x),
        }
    }

    /// Decision values of the rows of `x` against sparse support vectors `sv`, each
    /// point's kernel values reduced as soon as they are computed.
    pub(super) fn decision_sparse_sv(
        &self,
        sv: &SparseFeatures,
        x: &SparseFeatures,
    ) -> Result<Vec<Vec<f64>>> {
        sparse_map_cross(&self.params.kernel, sv, x, |k| self.decision_from_kernel(k))
    }

    /// Predicted class, value or ±1 for every row of sparse `x`.
    pub fn predict_sparse(&self, x: &SparseFeatures) -> Result<Vec<f64>> {
        Ok(self
            .decision_function_sparse(x)?
            .iter()
            .map(|d| self.predict_from_decision(d))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::Kernel;

    /// Two blobs with every other feature zeroed, so the CSR form is genuinely sparse.
    fn data() -> (Features, Vec<f64>) {
        let mut rows = Vec::new();
        let mut y = Vec::new();
        for i in 0..60 {
            let c = if i % 2 == 0 { 1.0 } else { -1.0 };
            let t = i as f64 * 0.37;
            let mut r = vec![0.0; 8];
            r[(i % 4) * 2] = c + (t.sin() * 0.8);
            r[1 + (i % 3) * 2] = t.cos() * 0.5;
            rows.push(r);
            y.push(if i % 7 == 0 { 3.0 } else { c });
        }
        (Features::from_rows(&rows).unwrap(), y)
    }

    #[test]
    fn sparse_fit_equals_dense_fit_and_saves_sparse_support_vectors() {
        let (x, y) = data();
        let s = SparseFeatures::from_dense(&x).unwrap();
        for svm_type in [
            SvmType::CSvc,
            SvmType::NuSvc,
            SvmType::OneClass,
            SvmType::EpsilonSvr,
            SvmType::NuSvr,
        ] {
            let params = SvmParams {
                svm_type,
                kernel: Kernel::Rbf { gamma: 0.5 },
                nu: 0.3,
                ..SvmParams::default()
            };
            let dense = SvmModel::fit(&params, &x, &y).unwrap();
            let sparse = SvmModel::fit_sparse(&params, &s, &y).unwrap();
            assert_eq!(dense.sv_indices, sparse.sv_indices, "{svm_type}");
            assert_eq!(dense.info.iterations, sparse.info.iterations, "{svm_type}");
            for (a, b) in dense.info.objectives.iter().zip(&sparse.info.objectives) {
                assert!(
                    (a - b).abs() <= 1e-6 * a.abs().max(1.0),
                    "{svm_type}: {a} {b}"
                );
            }
            let sv = sparse.sparse_support_vectors.as_ref().unwrap();
            assert_eq!(sv.to_dense("t").unwrap(), dense.support_vectors);
            sparse.validate().unwrap();
            let dd = dense.decision_function(&x).unwrap();
            for ds in [
                sparse.decision_function_sparse(&s).unwrap(),
                sparse.decision_function(&x).unwrap(),
                dense.decision_function_sparse(&s).unwrap(),
            ] {
                for (a, b) in dd.iter().flatten().zip(ds.iter().flatten()) {
                    assert!((a - b).abs() < 1e-5, "{svm_type}: {a} {b}");
                }
            }
            let json = serde_json::to_string(&sparse).unwrap();
            assert!(json.contains("sparse_support_vectors"));
            let back: SvmModel = serde_json::from_str(&json).unwrap();
            assert_eq!(back, sparse);
            assert!(!serde_json::to_string(&dense)
                .unwrap()
                .contains("sparse_support_vectors"));
        }
    }

    #[test]
    fn sparse_input_errors_name_the_reason() {
        let (x, y) = data();
        let s = SparseFeatures::from_dense(&x).unwrap();
        let pre = SvmParams {
            kernel: Kernel::Precomputed,
            ..SvmParams::default()
        };
        let err = SvmModel::fit_sparse(&pre, &s, &y).unwrap_err().to_string();
        assert!(
            err.contains("precomputed") && err.contains("sparse"),
            "{err}"
        );
        let err = SvmModel::fit_sparse(&SvmParams::default(), &s, &y[..3])
            .unwrap_err()
            .to_string();
        assert!(err.contains("3 labels for 60"), "{err}");
        let m = SvmModel::fit_sparse(&SvmParams::default(), &s, &y).unwrap();
        let narrow =
            SparseFeatures::from_dense(&Features::new(1, 3, vec![1.0, 0.0, 0.0]).unwrap()).unwrap();
        let err = m.decision_function_sparse(&narrow).unwrap_err().to_string();
        assert!(err.contains("fitted on 8 features"), "{err}");
        let mut bad = m.clone();
        bad.support_vectors = x.select_rows(&[0]);
        assert!(bad.validate().is_err());
    }
}
