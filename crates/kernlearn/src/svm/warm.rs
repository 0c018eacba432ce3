//! Where a fit's dual variables start: a model fitted with a smaller C (alpha seeding
//! along C) or one dual variable per row, the union of solutions on the parts of a
//! partition (the last step of a divide-and-conquer SVM).

use super::model::{SvmModel, SvmParams, SvmType};
use crate::data::Features;
use crate::{Error, Result};

/// Where a fit's dual variables start (cold: all zero).
#[derive(Clone, Copy)]
pub(crate) enum WarmStart<'p> {
    /// From a model fitted on the same points with a smaller or equal C (alpha seeding).
    Model(&'p SvmModel),
    /// From one unsigned `α_t` per training row of a binary C-SVC (a feasible point:
    /// `0 ≤ α_t ≤ C_t`, `Σ y_t α_t = 0`), e.g. the union of solutions on a partition.
    RowAlpha(&'p [f64]),
}

impl SvmModel {
    /// [`SvmModel::fit`] of a binary C-SVC started from `alpha`, one unsigned dual
    /// variable per row of `x` (`0 ≤ α_t ≤ C_{y_t}`, `Σ_t y_t α_t = 0`), e.g. the union of
    /// the solutions on the parts of a partition of the rows. This is the last step of a
    /// divide-and-conquer SVM (cascade SVM, Graf et al. 2005; DC-SVM, Hsieh, Si and
    /// Dhillon 2014, §3): the solver then runs to the same KKT tolerance as a cold start,
    /// so the answer is the exact solve's, in fewer iterations when the start is close.
    pub fn fit_from_alpha(
        params: &SvmParams,
        x: &Features,
        y: &[f64],
        alpha: &[f64],
    ) -> Result<Self> {
        if params.svm_type != SvmType::CSvc {
            return Err(Error::param(
                "initial_alpha",
                format!(
                    "warm starts from per-row duals are for C-SVC, not {:?}",
                    params.svm_type
                ),
            ));
        }
        if alpha.len() != x.n_rows() {
            return Err(Error::param(
                "initial_alpha",
                format!("has {} values for {} rows", alpha.len(), x.n_rows()),
            ));
        }
        let mut labels = y.to_vec();
        labels.sort_by(f64::total_cmp);
        labels.dedup();
        if labels.len() > 2 {
            return Err(Error::param(
                "initial_alpha",
                format!(
                    "one dual variable per row defines a binary problem; y has {} classes",
                    labels.len()
                ),
            ));
        }
        Self::fit_features(params, x, y, None, Some(WarmStart::RowAlpha(alpha)))
    }

    /// The unsigned dual variable `α_t` of every training row (`n_rows` of them; zero off
    /// the support) of a fitted binary C-SVC: the start [`SvmModel::fit_from_alpha`] takes.
    pub fn row_alpha(&self, n_rows: usize) -> Result<Vec<f64>> {
        if self.params.svm_type != SvmType::CSvc
            || self.sv_coef.len() != 1
            || self.classes.len() != 2
        {
            return Err(Error::param(
                "model",
                "per-row dual variables are defined for a binary C-SVC only",
            ));
        }
        let mut alpha = vec![0.0; n_rows];
        for (&i, &c) in self.sv_indices.iter().zip(&self.sv_coef[0]) {
            let slot = alpha.get_mut(i).ok_or_else(|| {
                Error::param(
                    "n_rows",
                    format!("support vector row {i} is not below {n_rows}"),
                )
            })?;
            *slot = c.abs();
        }
        Ok(alpha)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Two overlapping Gaussian classes in 3-D (many bounded and free support vectors).
    fn blobs(n: usize, seed: u64) -> (Features, Vec<f64>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut values = Vec::with_capacity(3 * n);
        let mut y = Vec::with_capacity(n);
        for i in 0..n {
            let label = if i % 3 == 0 { 1.0 } else { -1.0 };
            for _ in 0..3 {
                values.push(label * 0.6 + rng.random_range(-1.0..1.0));
            }
            y.push(label);
        }
        (Features::new(n, 3, values).unwrap(), y)
    }

    fn params(tol: f64) -> SvmParams {
        let mut p = SvmParams {
            kernel: crate::kernel::Kernel::rbf_gamma(0.7).unwrap(),
            c: 2.0,
            ..SvmParams::default()
        };
        p.solver.tol = tol;
        p
    }

    #[test]
    fn the_union_of_part_solutions_warm_starts_to_the_exact_solve() {
        let (x, y) = blobs(600, 3);
        let p = params(1e-6);
        let cold = SvmModel::fit(&p, &x, &y).unwrap();
        // Solve the two halves (alternate rows) on their own, then start from the union.
        let mut alpha = vec![0.0; 600];
        for part in 0..2 {
            let rows: Vec<usize> = (part..600).step_by(2).collect();
            let sub_y: Vec<f64> = rows.iter().map(|&i| y[i]).collect();
            let fit = SvmModel::fit(&p, &x.select_rows(&rows), &sub_y).unwrap();
            for (&r, a) in rows.iter().zip(fit.row_alpha(rows.len()).unwrap()) {
                alpha[r] = a;
            }
        }
        let warm = SvmModel::fit_from_alpha(&p, &x, &y, &alpha).unwrap();
        let (a, b) = (cold.info.objectives[0], warm.info.objectives[0]);
        assert!((a - b).abs() <= 1e-6 * a.abs(), "objective {a} vs {b}");
        assert_eq!(cold.sv_indices, warm.sv_indices);
        // From the exact solution itself the solver has (almost) nothing left to do.
        let again = SvmModel::fit_from_alpha(&p, &x, &y, &cold.row_alpha(600).unwrap()).unwrap();
        assert!(
            again.info.iterations <= 2,
            "{} iterations",
            again.info.iterations
        );
        let gap = (again.info.objectives[0] - a).abs();
        assert!(gap <= 1e-9 * a.abs());
    }

    #[test]
    fn starts_that_are_not_a_binary_c_svc_point_are_refused() {
        let (x, y) = blobs(30, 1);
        let p = params(1e-3);
        let err = |alpha: &[f64], y: &[f64], p: &SvmParams| {
            SvmModel::fit_from_alpha(p, &x, y, alpha)
                .unwrap_err()
                .to_string()
        };
        assert!(err(&[0.0; 29], &y, &p).contains("29 values for 30 rows"));
        let mut beyond = vec![0.0; 30];
        beyond[0] = 5.0;
        assert!(err(&beyond, &y, &p).contains("outside [0, 2]"));
        let mut unbalanced = vec![0.0; 30];
        unbalanced[0] = 1.0;
        assert!(err(&unbalanced, &y, &p).contains("yᵀα = 0"));
        let three: Vec<f64> = (0..30).map(|i| (i % 3) as f64).collect();
        assert!(err(&[0.0; 30], &three, &p).contains("3 classes"));
        let nu = SvmParams {
            svm_type: SvmType::NuSvc,
            ..p.clone()
        };
        assert!(err(&[0.0; 30], &y, &nu).contains("for C-SVC"));
        let multi = SvmModel::fit(&p, &x, &three).unwrap();
        assert!(multi
            .row_alpha(30)
            .unwrap_err()
            .to_string()
            .contains("binary C-SVC"));
    }
}
