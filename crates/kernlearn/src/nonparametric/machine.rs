//! The predictor KNPL and DANK fit: a kernel machine on the learned kernel
//! `K̃ = W ⊙ K` (`W` = KNPL's `G` or DANK's `F`), extended to new points through their
//! nearest training point (DANK section 3.3, KNPL section "out-of-sample"):
//!
//! `f(x') = Σ_i c_i W_{i, j(x')} k(x_i, x') + b`,  `j(x') = argmin_j ‖x' − x_j‖`,
//!
//! with `c_i = α_i y_i` for classification and `c_i = α̂_i − α̌_i` for regression. Only
//! the rows of `W` with `c_i ≠ 0` are kept (all columns: any training point can be the
//! nearest), so the model holds at most `#SV × n` learned values. DANK's `F` has one
//! column for every point off the support (`11ᵀ + Γ` has equal columns there, so
//! `F = J_{τ/2}(11ᵀ + Γ)` does too; its reduced eigen route computes them bit for bit
//! equal): such columns are stored once, `#SV × (#SV + 1)` values.

use crate::data::Features;
use crate::kernel::Kernel;
use crate::multiclass::BinaryMachine;
use crate::neighbors::NearestNeighbors;
use crate::{Error, Result};
use faer::MatRef;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// A binary classifier or regressor on a learned Gram matrix `W ⊙ K`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LearnedKernelMachine {
    /// The base kernel `k`.
    pub kernel: Kernel,
    /// Training points (the nearest-neighbour index for the out-of-sample extension).
    pub(crate) train: NearestNeighbors,
    /// Indices of the support vectors (`c_i ≠ 0`) among the training points.
    pub support: Vec<usize>,
    /// `c_i` per support vector.
    pub coef: Vec<f64>,
    /// Row `s` holds `W[support[s], ·]` over the stored columns (row-major): column `j`
    /// of `W` is stored column `column_of[j]`, or `j` when `column_of` is empty.
    pub weights: Vec<f64>,
    /// The stored column of each training point when points share a column (DANK's
    /// points off the support); empty when every column is stored.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub column_of: Vec<usize>,
    /// Bias `b`.
    pub bias: f64,
}

impl LearnedKernelMachine {
    /// Keeps what prediction needs from a fit: training points `x`, the learned matrix
    /// `w` (`n × n`), dual coefficients `coef` (`c_i`, zero for non-support vectors), `b`.
    pub(crate) fn new(
        kernel: Kernel,
        x: &Features,
        w: MatRef<'_, f64>,
        coef: &[f64],
        bias: f64,
    ) -> Result<Self> {
        let n = x.n_rows();
        if w.nrows() != n || w.ncols() != n || coef.len() != n {
            return Err(Error::data(format!(
                "learned matrix {}×{} and {} coefficients do not match {n} training points",
                w.nrows(),
                w.ncols(),
                coef.len()
            )));
        }
        let support: Vec<usize> = (0..n).filter(|&i| coef[i] != 0.0).collect();
        let (columns, column_of) = stored_columns(w, &support, coef);
        let weights = support
            .iter()
            .flat_map(|&i| columns.iter().map(move |&j| w[(i, j)]))
            .collect();
        Ok(Self {
            kernel,
            train: NearestNeighbors::new(x.clone())?,
            coef: support.iter().map(|&i| coef[i]).collect(),
            support,
            weights,
            column_of,
            bias,
        })
    }

    /// Number of stored columns of the learned matrix.
    fn n_columns(&self) -> usize {
        match self.column_of.iter().max() {
            Some(&m) => m + 1,
            None => self.n_train(),
        }
    }

    /// The stored column of training point `j`.
    fn column(&self, j: usize) -> usize {
        self.column_of.get(j).copied().unwrap_or(j)
    }

    /// Number of training points.
    pub fn n_train(&self) -> usize {
        self.train.points().n_rows()
    }

    /// Number of input features.
    pub(crate) fn n_features(&self) -> usize {
        self.train.points().n_cols()
    }

    /// `f(x')` for every row of `x` (see the module docs).
    pub(crate) fn decision(&self, x: &Features) -> Result<Vec<f64>> {
        let nearest = self.train.nearest(x)?;
        let sv = self.train.points().select_rows(&self.support);
        let k = self.kernel.cross(&sv, x)?;
        let m = self.n_columns();
        Ok((0..x.n_rows())
            .into_par_iter()
            .map(|r| {
                let j = self.column(nearest[r]);
                let s: f64 = (0..self.support.len())
                    .map(|s| self.coef[s] * self.weights[s * m + j] * k[(s, r)])
                    .sum();
                s + self.bias
            })
            .collect())
    }

    /// Checks a machine read back: a valid feature kernel for the training points'
    /// features, one finite coefficient per support vector, support indices below the
    /// number of training points, `#SV × n` finite learned values and a finite bias.
    pub(crate) fn validate(&self) -> Result<()> {
        use crate::validate::{ensure, finite, finite_value, indices_below, within};
        ensure(!self.kernel.is_precomputed(), || {
            "kernel is precomputed; the nearest-neighbour extension needs a feature kernel"
                .to_string()
        })?;
        within("kernel", self.kernel.validate(self.n_features()))?;
        let (n, n_sv) = (self.n_train(), self.support.len());
        ensure(self.coef.len() == n_sv, || {
            format!(
                "coef has {} values, the machine has {n_sv} support vectors (support)",
                self.coef.len()
            )
        })?;
        finite("coef", &self.coef)?;
        indices_below(
            "support",
            &self.support,
            n,
            format_args!("the machine has {n} training points (train.points)"),
        )?;
        if !self.column_of.is_empty() {
            ensure(self.column_of.len() == n, || {
                format!(
                    "column_of has {} entries for {n} training points",
                    self.column_of.len()
                )
            })?;
        }
        let m = self.n_columns();
        let want = n_sv.checked_mul(m);
        ensure(want == Some(self.weights.len()), || {
            format!(
                "weights has {} values, {n_sv} support vectors × {m} stored columns need {}",
                self.weights.len(),
                want.map_or("more".to_string(), |w| w.to_string())
            )
        })?;
        finite("weights", &self.weights)?;
        finite_value("bias", self.bias)
    }

    /// Smallest and largest learned value over the kept rows (the papers report the range
    /// of `G` / `F`).
    #[cfg(test)]
    pub(crate) fn weight_range(&self) -> (f64, f64) {
        self.weights
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                (lo.min(v), hi.max(v))
            })
    }
}

/// The columns of `w` to store (the support's, then one shared by every point off the
/// support when those columns are equal on the support's rows) and each point's stored
/// column; every column and no map when they differ (KNPL's `G`, or DANK's full eigen
/// route, whose equal columns differ in the last bits).
fn stored_columns(w: MatRef<'_, f64>, support: &[usize], coef: &[f64]) -> (Vec<usize>, Vec<usize>) {
    let n = w.ncols();
    let off: Vec<usize> = (0..n).filter(|&j| coef[j] == 0.0).collect();
    let shared = match off.first() {
        Some(&first) => off
            .iter()
            .all(|&j| support.iter().all(|&i| w[(i, j)] == w[(i, first)])),
        None => false,
    };
    if !shared || off.len() < 2 {
        return ((0..n).collect(), Vec::new());
    }
    let mut columns = support.to_vec();
    columns.push(off[0]);
    let mut column_of = vec![support.len(); n];
    for (s, &i) in support.iter().enumerate() {
        column_of[i] = s;
    }
    (columns, column_of)
}

/// [`LearnedKernelMachine::validate`], and its training points have `n_features`
/// columns (the model's feature count).
pub(crate) fn learned_machine_on(m: &LearnedKernelMachine, n_features: usize) -> Result<()> {
    m.validate()?;
    crate::validate::ensure(m.n_features() == n_features, || {
        format!(
            "train.points has {} columns, n_features is {n_features}",
            m.n_features()
        )
    })
}

impl BinaryMachine for LearnedKernelMachine {
    fn decision_values(&self, x: &Features) -> Result<Vec<f64>> {
        self.decision(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::Mat;

    #[test]
    fn training_points_use_their_own_column() {
        // With W = all ones the machine is a plain kernel expansion; with W chosen so that
        // column j is j+1, f(x_j) scales accordingly: the nearest point of x_j is itself.
        let x = Features::new(4, 1, vec![0.0, 1.0, 2.0, 3.0]).unwrap();
        let kernel = Kernel::rbf_gamma(0.5).unwrap();
        let coef = [1.0, -0.5, 0.0, 2.0];
        let ones = Mat::<f64>::from_fn(4, 4, |_, _| 1.0);
        let plain =
            LearnedKernelMachine::new(kernel.clone(), &x, ones.as_ref(), &coef, 0.1).unwrap();
        assert_eq!(plain.support, vec![0, 1, 3]);
        let base = plain.decision(&x).unwrap();
        let k = kernel.gram(&x).unwrap();
        for j in 0..4 {
            let want: f64 = (0..4).map(|i| coef[i] * k[(i, j)]).sum::<f64>() + 0.1;
            assert!((base[j] - want).abs() < 1e-12);
        }
        let w = Mat::<f64>::from_fn(4, 4, |_, j| (j + 1) as f64);
        let scaled = LearnedKernelMachine::new(kernel, &x, w.as_ref(), &coef, 0.1).unwrap();
        let got = scaled.decision(&x).unwrap();
        for j in 0..4 {
            let want = (base[j] - 0.1) * (j + 1) as f64 + 0.1;
            assert!(
                (got[j] - want).abs() < 1e-12,
                "point {j}: {} vs {want}",
                got[j]
            );
        }
        assert_eq!(scaled.weight_range(), (1.0, 4.0));
    }

    #[test]
    fn columns_shared_off_the_support_are_stored_once() {
        // Points 1 and 3 are off the support; W's columns 1 and 3 are equal, as DANK's F.
        let x = Features::new(5, 1, vec![0.0, 1.0, 2.0, 3.0, 4.0]).unwrap();
        let kernel = Kernel::rbf_gamma(0.3).unwrap();
        let coef = [1.0, 0.0, -0.5, 0.0, 0.7];
        let shared = [1.5, 0.5, 2.5, 0.5, 3.5];
        let w = Mat::<f64>::from_fn(5, 5, |i, j| (i + 1) as f64 * shared[j]);
        let m = LearnedKernelMachine::new(kernel.clone(), &x, w.as_ref(), &coef, 0.2).unwrap();
        assert_eq!(m.column_of, vec![0, 3, 1, 3, 2]);
        assert_eq!(m.weights.len(), 3 * 4);
        m.validate().unwrap();
        let q = Features::new(4, 1, vec![-0.4, 1.1, 2.9, 5.0]).unwrap();
        let k = kernel.cross(&x, &q).unwrap();
        let got = m.decision(&q).unwrap();
        for (r, j) in [0, 1, 3, 4].into_iter().enumerate() {
            let want: f64 = (0..5).map(|i| coef[i] * w[(i, j)] * k[(i, r)]).sum::<f64>() + 0.2;
            assert!(
                (got[r] - want).abs() < 1e-12,
                "query {r}: {} vs {want}",
                got[r]
            );
        }
        // One differing entry on a support row: every column is stored.
        let mut uneven = w.clone();
        uneven[(2, 3)] += 1e-15;
        let full = LearnedKernelMachine::new(kernel, &x, uneven.as_ref(), &coef, 0.2).unwrap();
        assert!(full.column_of.is_empty());
        assert_eq!(full.weights.len(), 3 * 5);
        let mut broken = m.clone();
        broken.column_of.pop();
        assert!(broken
            .validate()
            .unwrap_err()
            .to_string()
            .contains("column_of has 4"));
    }

    #[test]
    fn shape_mismatch_and_nan_queries_are_errors() {
        let x = Features::new(2, 1, vec![0.0, 1.0]).unwrap();
        let w = Mat::<f64>::identity(3, 3);
        let k = Kernel::Linear;
        assert!(LearnedKernelMachine::new(k.clone(), &x, w.as_ref(), &[1.0, 1.0], 0.0).is_err());
        let w = Mat::<f64>::identity(2, 2);
        let m = LearnedKernelMachine::new(k, &x, w.as_ref(), &[1.0, -1.0], 0.0).unwrap();
        let q = Features::new(1, 1, vec![f64::NAN]).unwrap();
        assert!(m.decision(&q).is_err());
    }
}
