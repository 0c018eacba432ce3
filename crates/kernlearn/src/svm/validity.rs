//! The consistency check of a [`SvmModel`] read from a file, before it predicts.

use super::model::SvmModel;
use crate::validate::{classes, ensure, finite, indices_below, pair_count, within};
use crate::Result;

impl SvmModel {
    /// Checks that the model is whole and consistent, as a model read from a file must
    /// be before it predicts: valid parameters for `n_features` features
    /// (`SvmParams::validate`); for a classifier at least two finite, distinct classes,
    /// one support-vector count per class summing to the number of support vectors
    /// (`sv_indices`), `k − 1` rows of `sv_coef` and `k(k−1)/2` offsets `rho`, for the
    /// other formulations no classes, one row and one offset; every `sv_coef` row one
    /// finite coefficient per support vector; `prob_a` and `prob_b` one finite value per
    /// class pair with probabilities, none without; the support vectors' matrix one row
    /// per support vector and `n_features` columns (for a precomputed kernel: every
    /// `sv_indices` entry below `n_features`, the number of training points). The fit
    /// report (`info`) is not checked: prediction does not read it.
    pub(crate) fn validate(&self) -> Result<()> {
        within("params", self.params.validate(self.n_features))?;
        let n_pairs = self.check_classes()?;
        self.check_coefficients(n_pairs)?;
        self.check_support_vectors()
    }

    /// The classes and per-class support-vector counts against the formulation; the
    /// number of decision functions (class pairs, 1 outside classification).
    fn check_classes(&self) -> Result<usize> {
        let kind = self.params.svm_type;
        let n_sv = self.sv_indices.len();
        Ok(if kind.is_classifier() {
            classes("classes", &self.classes)?;
            let k = self.classes.len();
            ensure(self.n_sv_per_class.len() == k, || {
                format!(
                    "n_sv_per_class has {} counts, the model has {k} classes",
                    self.n_sv_per_class.len()
                )
            })?;
            let total = self
                .n_sv_per_class
                .iter()
                .try_fold(0usize, |a, &n| a.checked_add(n));
            ensure(total == Some(n_sv), || match total {
                Some(t) => format!(
                    "n_sv_per_class sums to {t}, the model has {n_sv} support vectors (sv_indices)"
                ),
                None => "n_sv_per_class sums past the largest count".to_string(),
            })?;
            ensure(self.sv_coef.len() == k - 1, || {
                format!(
                    "sv_coef has {} rows, {k} classes need {}",
                    self.sv_coef.len(),
                    k - 1
                )
            })?;
            pair_count(k)
        } else {
            ensure(self.classes.is_empty(), || {
                format!(
                    "classes has {} labels; {kind} has no classes",
                    self.classes.len()
                )
            })?;
            ensure(self.n_sv_per_class.is_empty(), || {
                format!(
                    "n_sv_per_class has {} counts; {kind} has no classes",
                    self.n_sv_per_class.len()
                )
            })?;
            ensure(self.sv_coef.len() == 1, || {
                format!(
                    "sv_coef has {} rows; {kind} has one decision function (1 row)",
                    self.sv_coef.len()
                )
            })?;
            1
        })
    }

    /// `sv_coef`, `rho`, `prob_a` and `prob_b`: one finite value per support vector and
    /// per decision function (`n_pairs` of them).
    fn check_coefficients(&self, n_pairs: usize) -> Result<()> {
        let kind = self.params.svm_type;
        let n_sv = self.sv_indices.len();
        for (r, row) in self.sv_coef.iter().enumerate() {
            ensure(row.len() == n_sv, || {
                format!(
                    "sv_coef[{r}] has {} coefficients, the model has {n_sv} support vectors",
                    row.len()
                )
            })?;
            finite(format!("sv_coef[{r}]"), row)?;
        }
        ensure(self.rho.len() == n_pairs, || {
            if kind.is_classifier() {
                format!(
                    "rho has {} offsets, {} classes need {n_pairs} (one per class pair)",
                    self.rho.len(),
                    self.classes.len()
                )
            } else {
                format!(
                    "rho has {} offsets; {kind} has one decision function (1 offset)",
                    self.rho.len()
                )
            }
        })?;
        finite("rho", &self.rho)?;
        let n_prob = if self.params.probability { n_pairs } else { 0 };
        for (field, values) in [("prob_a", &self.prob_a), ("prob_b", &self.prob_b)] {
            ensure(values.len() == n_prob, || {
                if self.params.probability {
                    format!(
                        "{field} has {} values, the model has {n_pairs} class pairs with \
                         probability estimates",
                        values.len()
                    )
                } else {
                    format!(
                        "{field} has {} values, the model was fitted without probability \
                         estimates (params.probability is false)",
                        values.len()
                    )
                }
            })?;
            finite(field, values)?;
        }
        Ok(())
    }

    /// The support vectors: indices below the number of training points for a
    /// precomputed kernel, else one row each (sparse or dense, not both) of
    /// `n_features` columns.
    fn check_support_vectors(&self) -> Result<()> {
        let n_sv = self.sv_indices.len();
        if self.params.kernel.is_precomputed() {
            return indices_below(
                "sv_indices",
                &self.sv_indices,
                self.n_features,
                format_args!(
                    "the precomputed kernel has {} training points (n_features)",
                    self.n_features
                ),
            );
        }
        if let Some(sv) = &self.sparse_support_vectors {
            ensure(sv.n_cols() == self.n_features, || {
                format!(
                    "sparse_support_vectors has {} columns, n_features is {}",
                    sv.n_cols(),
                    self.n_features
                )
            })?;
            ensure(sv.n_rows() == n_sv, || {
                format!(
                    "sparse_support_vectors has {} rows, the model has {n_sv} support vectors \
                     (sv_indices)",
                    sv.n_rows()
                )
            })?;
            return ensure(self.support_vectors.n_rows() == 0, || {
                format!(
                    "the model has sparse_support_vectors and {} dense support_vectors rows; \
                     it holds one or the other",
                    self.support_vectors.n_rows()
                )
            });
        }
        let sv = &self.support_vectors;
        ensure(sv.n_cols() == self.n_features, || {
            format!(
                "support_vectors has {} columns, n_features is {}",
                sv.n_cols(),
                self.n_features
            )
        })?;
        ensure(sv.n_rows() == n_sv, || {
            format!(
                "support_vectors has {} rows, the model has {n_sv} support vectors (sv_indices)",
                sv.n_rows()
            )
        })
    }
}
