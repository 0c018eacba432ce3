//! The learned kernel `k(x, x') = Σ_a β_a k̲(x̲_a, (x, x'))` (representer theorem for
//! hyperkernels, Lemma 7 and Proposition 8): an artifact that evaluates on new pairs and is
//! saved with the model.

use super::kernels::Hyperkernel;
use crate::data::Features;
#[cfg(test)]
use crate::kernel::PrecomputedKernel;
use crate::{Error, Result};
use faer::Mat;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// A learned kernel: the hyperkernel, the expansion pairs `x̲_a = (left_a, right_a)` and
/// their weights `β_a ≥ 0`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LearnedKernel {
    /// The hyperkernel `k̲`.
    pub hyperkernel: Hyperkernel,
    /// First point of each expansion pair (one row per pair).
    pub left: Features,
    /// Second point of each expansion pair.
    pub right: Features,
    /// `β_a ≥ 0` per pair.
    pub beta: Vec<f64>,
}

impl LearnedKernel {
    /// The kernel `Σ_a β_a k̲((left_a, right_a), ·)`; checks shapes, `β ≥ 0` finite and
    /// the hyperkernel's domain on the pairs.
    pub(crate) fn new(
        hyperkernel: Hyperkernel,
        left: Features,
        right: Features,
        beta: Vec<f64>,
    ) -> Result<Self> {
        let k = Self {
            hyperkernel,
            left,
            right,
            beta,
        };
        k.validate()?;
        Ok(k)
    }

    /// Number of input features.
    pub(crate) fn n_features(&self) -> usize {
        self.left.n_cols()
    }

    /// Number of expansion pairs.
    pub(crate) fn n_terms(&self) -> usize {
        self.beta.len()
    }

    /// Checks shapes, `β` finite and non-negative, and the hyperkernel on the pairs.
    pub(crate) fn validate(&self) -> Result<()> {
        use crate::validate::{ensure, finite, within};
        let p = self.beta.len();
        ensure(self.left.n_rows() == p && self.right.n_rows() == p, || {
            format!(
                "learned kernel: left has {} rows, right {}, beta {p} values",
                self.left.n_rows(),
                self.right.n_rows()
            )
        })?;
        ensure(self.left.n_cols() == self.right.n_cols(), || {
            "learned kernel: left and right differ in width".to_string()
        })?;
        finite("beta", &self.beta)?;
        ensure(self.beta.iter().all(|&b| b >= 0.0), || {
            "beta has a negative weight (the learned kernel must be a non-negative expansion, \
             Proposition 8)"
                .to_string()
        })?;
        within("hyperkernel", self.hyperkernel.validate(self.n_features()))?;
        self.pair_values().map(|_| ())
    }

    /// Pair values of every expansion pair, row-major.
    fn pair_values(&self) -> Result<Vec<f64>> {
        let w = self.hyperkernel.pair_len(self.n_features());
        let mut v = vec![0.0; self.n_terms() * w];
        for a in 0..self.n_terms() {
            self.hyperkernel.pair_values(
                self.left.row(a),
                self.right.row(a),
                &mut v[a * w..(a + 1) * w],
            )?;
        }
        Ok(v)
    }

    /// `k(x, x')`.
    #[cfg(test)]
    pub(crate) fn eval(&self, x: &[f64], x2: &[f64]) -> Result<f64> {
        let pv = self.pair_values()?;
        self.eval_with(&pv, x, x2)
    }

    fn eval_with(&self, pv: &[f64], x: &[f64], x2: &[f64]) -> Result<f64> {
        let w = self.hyperkernel.pair_len(self.n_features());
        let mut q = vec![0.0; w];
        self.hyperkernel.pair_values(x, x2, &mut q)?;
        let mut s = 0.0;
        for (a, &b) in self.beta.iter().enumerate() {
            s += b * self.hyperkernel.combine(&pv[a * w..(a + 1) * w], &q)?;
        }
        Ok(s)
    }

    fn check_width(&self, x: &Features) -> Result<()> {
        if x.n_cols() != self.n_features() {
            return Err(Error::data(format!(
                "the learned kernel takes {} features, got {}",
                self.n_features(),
                x.n_cols()
            )));
        }
        Ok(())
    }

    /// `K[i, j] = k(a_i, b_j)` (rows in parallel).
    pub(crate) fn cross(&self, a: &Features, b: &Features) -> Result<Mat<f64>> {
        self.check_width(a)?;
        self.check_width(b)?;
        let pv = self.pair_values()?;
        let rows: Vec<Vec<f64>> = (0..a.n_rows())
            .into_par_iter()
            .map(|i| {
                (0..b.n_rows())
                    .map(|j| self.eval_with(&pv, a.row(i), b.row(j)))
                    .collect()
            })
            .collect::<Result<_>>()?;
        Ok(Mat::from_fn(a.n_rows(), b.n_rows(), |i, j| rows[i][j]))
    }

    /// The Gram matrix on `x` (upper triangle computed, mirrored).
    pub(crate) fn gram(&self, x: &Features) -> Result<Mat<f64>> {
        self.check_width(x)?;
        let pv = self.pair_values()?;
        let n = x.n_rows();
        let rows: Vec<Vec<f64>> = (0..n)
            .into_par_iter()
            .map(|i| {
                (i..n)
                    .map(|j| self.eval_with(&pv, x.row(i), x.row(j)))
                    .collect()
            })
            .collect::<Result<_>>()?;
        Ok(Mat::from_fn(n, n, |i, j| {
            if j >= i {
                rows[i][j - i]
            } else {
                rows[j][i - j]
            }
        }))
    }

    /// The learned kernel on the points `x` as a [`crate::kernel::KernelSource`] (the
    /// solver's kernel interface): hand it to `svm::solve_*`, `SvmModel::fit_source` or
    /// any other estimator that reads kernel rows.
    #[cfg(test)]
    pub(crate) fn source(&self, x: &Features) -> Result<PrecomputedKernel> {
        PrecomputedKernel::new(self.gram(x)?.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::synthetic::generate;
    use crate::kernel::KernelSource;
    use crate::svm::{solve_epsilon_svr, SolverSettings};

    #[test]
    fn evaluates_as_the_expansion_and_serves_the_svr() {
        let d = generate("sandwich", 30, 2).unwrap();
        let h = Hyperkernel::harmonic(0.6, 1.0).unwrap();
        let left = d.x.select_rows(&[0, 3]);
        let right = d.x.select_rows(&[1, 3]);
        let k = LearnedKernel::new(h.clone(), left, right, vec![0.25, 0.75]).unwrap();
        let (a, b) = (d.x.row(5), d.x.row(7));
        let want = 0.25 * h.eval(d.x.row(0), d.x.row(1), a, b).unwrap()
            + 0.75 * h.eval(d.x.row(3), d.x.row(3), a, b).unwrap();
        assert!((k.eval(a, b).unwrap() - want).abs() < 1e-14);
        let g = k.gram(&d.x).unwrap();
        let c = k.cross(&d.x, &d.x).unwrap();
        assert!((g[(5, 7)] - want).abs() < 1e-14 && (c[(7, 5)] - want).abs() < 1e-14);
        // The learned kernel is PSD (Proposition 8).
        let eig = crate::linalg::symmetric_eigen(g.as_ref()).unwrap();
        assert!(eig.values[0] > -1e-10, "{}", eig.values[0]);
        // Handed to another estimator through the solver's kernel interface.
        let src = k.source(&d.x).unwrap();
        assert_eq!(src.len(), 30);
        let targets: Vec<f64> = (0..30).map(|i| d.x.row(i)[0]).collect();
        let sol = solve_epsilon_svr(&src, &targets, 10.0, 0.05, &SolverSettings::default(), None)
            .unwrap();
        assert!(sol.n_support > 0);
        // Serialised and read back: same values.
        let json = serde_json::to_string(&k).unwrap();
        let back: LearnedKernel = serde_json::from_str(&json).unwrap();
        assert_eq!(back.eval(a, b).unwrap(), k.eval(a, b).unwrap());
        // A negative weight is refused.
        let e = LearnedKernel::new(h, d.x.select_rows(&[0]), d.x.select_rows(&[1]), vec![-1.0]);
        assert!(e.unwrap_err().to_string().contains("negative"));
    }
}
