//! What DKMO reads its kernels from: features and kernel functions, or kernel values
//! only (a Gram set, [`crate::data::gram`]), and the checks a training Gram matrix must
//! pass.

use crate::data::Features;
use crate::kernel::{normalize_cosine, Kernel, KernelOnFeatures};
use crate::linalg::symmetric_eigen;
use crate::{Error, Result};
use faer::Mat;
use serde::{Deserialize, Serialize};

/// Symmetry tolerance of a training Gram matrix, relative to its largest `|K_ij|`.
pub const SYMMETRY_TOL: f64 = 1e-8;
/// PSD tolerance: the smallest eigenvalue must be `≥ −PSD_TOL · λ_max` (rounding of a
/// kernel written to text with ~7 significant digits stays well inside it).
pub const PSD_TOL: f64 = 1e-6;

/// Where a DKMO model's kernels come from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KernelInput {
    /// Kernel functions on the (scaled) features; the training features are kept to
    /// compute a new sample's kernel row.
    Features {
        /// One kernel per source (DKMO: one; M-DKMO: the family's base kernels).
        kernels: Vec<KernelOnFeatures>,
        /// The training features.
        train: Features,
    },
    /// Kernel values only: a sample is `[K_1(x, ·), …, K_M(x, ·)]` against `n_train`
    /// training samples (a Gram set).
    Precomputed {
        /// Number of kernels `M`.
        n_kernels: usize,
        /// Number of training samples `n`.
        n_train: usize,
    },
}

impl KernelInput {
    /// Number of kernels.
    pub(crate) fn n_kernels(&self) -> usize {
        match self {
            KernelInput::Features { kernels, .. } => kernels.len(),
            KernelInput::Precomputed { n_kernels, .. } => *n_kernels,
        }
    }

    /// Number of training samples.
    pub(crate) fn n_train(&self) -> usize {
        match self {
            KernelInput::Features { train, .. } => train.n_rows(),
            KernelInput::Precomputed { n_train, .. } => *n_train,
        }
    }

    /// Input width a sample must have.
    pub(crate) fn n_features(&self) -> usize {
        match self {
            KernelInput::Features { train, .. } => train.n_cols(),
            KernelInput::Precomputed { n_kernels, n_train } => n_kernels * n_train,
        }
    }

    /// The precomputed input of `x`, a training Gram set of `n` rows: `x.n_cols()` must
    /// be a multiple of `n`.
    pub(crate) fn precomputed(x: &Features) -> Result<Self> {
        let (n, d) = (x.n_rows(), x.n_cols());
        if n == 0 || d == 0 || d % n != 0 {
            return Err(Error::data(format!(
                "a precomputed training kernel must be square: {n} samples but {d} kernel \
                 values per sample, not a multiple of {n} (one n × n Gram matrix per kernel)"
            )));
        }
        Ok(KernelInput::Precomputed {
            n_kernels: d / n,
            n_train: n,
        })
    }

    /// Kernel rows of the samples `x` against the training samples, one `t × n` block
    /// per kernel (unnormalised).
    pub(crate) fn rows(&self, x: &Features) -> Result<Vec<Features>> {
        if x.n_cols() != self.n_features() {
            return Err(Error::data(match self {
                KernelInput::Precomputed { n_kernels, n_train } => format!(
                    "test kernel rows have the wrong width: {} values per sample, the model \
                     needs {n_kernels} kernel(s) × {n_train} training samples = {}",
                    x.n_cols(),
                    self.n_features()
                ),
                KernelInput::Features { .. } => format!(
                    "the model was fitted on {} features, the input has {}",
                    self.n_features(),
                    x.n_cols()
                ),
            }));
        }
        match self {
            KernelInput::Features { kernels, train } => kernels
                .iter()
                .map(|k| to_features(&k.cross(x, train)?))
                .collect(),
            KernelInput::Precomputed { n_kernels, n_train } => Ok((0..*n_kernels)
                .map(|m| block(x, m * n_train, *n_train))
                .collect()),
        }
    }

    /// Diagonal `k_m(x, x)` of each kernel at the samples `x`, when it can be computed
    /// (features); a precomputed kernel's test points have none (taken as 1, see
    /// [`cosine_rows`]).
    pub(crate) fn self_values(&self, x: &Features) -> Result<Option<Vec<Vec<f64>>>> {
        match self {
            KernelInput::Features { kernels, .. } => kernels
                .iter()
                .map(|k| {
                    Ok((0..x.n_rows())
                        .map(|i| k.eval(x.row(i), x.row(i)))
                        .collect())
                })
                .collect::<Result<Vec<_>>>()
                .map(Some),
            KernelInput::Precomputed { .. } => Ok(None),
        }
    }
}

/// Columns `from..from + width` of `x`.
fn block(x: &Features, from: usize, width: usize) -> Features {
    let values = x
        .rows()
        .flat_map(|r| r[from..from + width].iter().copied())
        .collect();
    Features::new(x.n_rows(), width, values).expect("block sizes")
}

/// A faer matrix as row-major [`Features`].
pub(crate) fn to_features(m: &Mat<f64>) -> Result<Features> {
    Features::new(
        m.nrows(),
        m.ncols(),
        (0..m.nrows())
            .flat_map(|i| (0..m.ncols()).map(move |j| m[(i, j)]))
            .collect(),
    )
}

/// Checks that `k` is a usable training Gram matrix of kernel `which` (1-based in the
/// messages): square, symmetric to [`SYMMETRY_TOL`] (relative), positive semidefinite
/// to [`PSD_TOL`] (smallest eigenvalue by faer's symmetric eigendecomposition).
pub fn check_gram(k: &Features, which: usize) -> Result<()> {
    let n = k.n_rows();
    if k.n_cols() != n {
        return Err(Error::data(format!(
            "kernel {which}: the training Gram matrix must be square, it is {n}×{}",
            k.n_cols()
        )));
    }
    let scale = k
        .as_slice()
        .iter()
        .fold(0.0f64, |a, v| a.max(v.abs()))
        .max(f64::MIN_POSITIVE);
    for i in 0..n {
        for j in 0..i {
            let (a, b) = (k.row(i)[j], k.row(j)[i]);
            if (a - b).abs() > SYMMETRY_TOL * scale {
                return Err(Error::data(format!(
                    "kernel {which}: the training Gram matrix is not symmetric: K[{i}][{j}] = \
                     {a} but K[{j}][{i}] = {b} (tolerance {SYMMETRY_TOL:e} × max |K|)"
                )));
            }
        }
    }
    let m = Mat::from_fn(n, n, |i, j| k.row(i)[j]);
    let eig = symmetric_eigen(m.as_ref())?;
    let (lo, hi) = (eig.values[0], eig.values[n - 1]);
    if lo < -PSD_TOL * hi.abs().max(f64::MIN_POSITIVE) {
        return Err(Error::data(format!(
            "kernel {which}: the training Gram matrix is not positive semidefinite: smallest \
             eigenvalue {lo:e}, largest {hi:e} (tolerance: smallest ≥ −{PSD_TOL:e} × largest)"
        )));
    }
    Ok(())
}

/// Cosine-normalised training Gram matrix (M-DKMO, §V: `K̄_ij = K_ij / √(K_ii K_jj)`)
/// and its original diagonal.
pub(crate) fn cosine_gram(k: &Features) -> Result<(Mat<f64>, Vec<f64>)> {
    let mut m = Mat::from_fn(k.n_rows(), k.n_cols(), |i, j| k.row(i)[j]);
    let diag = normalize_cosine(&mut m)?;
    Ok((m, diag))
}

/// Cosine-normalised kernel rows `K(x_i, x_j) / √(k(x_i, x_i) K_jj)`; without the test
/// points' own values (`self_values = None`, a precomputed kernel) they are taken as 1,
/// exact for the unit-diagonal kernels (Gaussian, exponential χ²) the paper uses.
pub(crate) fn cosine_rows(
    rows: &Features,
    self_values: Option<&[f64]>,
    train_diag: &[f64],
) -> Result<Features> {
    let mut out = rows.clone();
    for i in 0..rows.n_rows() {
        let own = self_values.map_or(1.0, |s| s[i]);
        if !(own > 0.0 && own.is_finite()) {
            return Err(Error::data(format!(
                "sample {i}: kernel value with itself is {own}; cosine normalisation needs it positive"
            )));
        }
        for (v, d) in out.row_mut(i).iter_mut().zip(train_diag) {
            *v /= (own * d).sqrt();
        }
    }
    Ok(out)
}

/// The paper's §V-A width: `γ = 1 / mean pairwise distance`, the distance being the
/// squared Euclidean one of a Gaussian `exp(−γ‖x − x'‖²)`, on the columns `cols`
/// (all when `None`). The mean over pairs `i ≠ j` is `2n/(n−1) · Σ_j var(x_j)`.
pub fn gamma_rule(x: &Features, cols: Option<&[usize]>) -> Result<f64> {
    let n = x.n_rows();
    let all: Vec<usize>;
    let cols = match cols {
        Some(c) => c,
        None => {
            all = (0..x.n_cols()).collect();
            &all
        }
    };
    if n < 2 {
        return Err(Error::data("the γ rule needs at least two samples"));
    }
    let total_var: f64 = cols
        .iter()
        .map(|&j| {
            let mean = x.rows().map(|r| r[j]).sum::<f64>() / n as f64;
            x.rows().map(|r| (r[j] - mean).powi(2)).sum::<f64>() / n as f64
        })
        .sum();
    let mean_dist = 2.0 * n as f64 / (n as f64 - 1.0) * total_var;
    if mean_dist.is_nan() || mean_dist <= 0.0 {
        return Err(Error::data(
            "all samples coincide: the mean pairwise distance is 0",
        ));
    }
    Ok(1.0 / mean_dist)
}

/// The Gaussian of [`gamma_rule`] on `x` (columns `cols`).
pub fn rule_kernel(x: &Features, cols: Option<Vec<usize>>) -> Result<KernelOnFeatures> {
    let gamma = gamma_rule(x, cols.as_deref())?;
    Ok(KernelOnFeatures::new(Kernel::Rbf { gamma }, cols))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mat(rows: &[&[f64]]) -> Features {
        Features::from_rows(&rows.iter().map(|r| r.to_vec()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn bad_gram_matrices_are_refused_with_the_reason() {
        let e = check_gram(&mat(&[&[1.0, 0.5, 0.0]]), 2)
            .unwrap_err()
            .to_string();
        assert!(e.contains("kernel 2") && e.contains("square"), "{e}");
        let e = check_gram(&mat(&[&[1.0, 0.5], &[0.4, 1.0]]), 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not symmetric") && e.contains("K[1][0]"), "{e}");
        let e = check_gram(&mat(&[&[1.0, 2.0], &[2.0, 1.0]]), 1)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("not positive semidefinite") && e.contains("-1"),
            "{e}"
        );
        check_gram(&mat(&[&[1.0, 0.5], &[0.5, 1.0]]), 1).unwrap();
    }

    #[test]
    fn precomputed_input_checks_widths() {
        let e = KernelInput::precomputed(&mat(&[&[1.0, 0.5, 0.2], &[0.5, 1.0, 0.1]])).unwrap_err();
        assert!(e.to_string().contains("must be square"), "{e}");
        let input = KernelInput::precomputed(&mat(&[&[1.0, 0.5, 2.0, 1.0], &[0.5, 1.0, 1.0, 2.0]]))
            .unwrap();
        assert_eq!(input.n_kernels(), 2);
        let e = input
            .rows(&mat(&[&[1.0, 0.5, 2.0]]))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("wrong width") && e.contains("2 kernel(s) × 2"),
            "{e}"
        );
        let rows = input.rows(&mat(&[&[0.1, 0.2, 0.3, 0.4]])).unwrap();
        assert_eq!(rows[1].row(0), &[0.3, 0.4]);
    }

    #[test]
    fn the_gamma_rule_is_one_over_the_mean_pairwise_squared_distance() {
        let x = mat(&[&[0.0, 1.0], &[2.0, 0.0], &[1.0, 3.0]]);
        let mut sum = 0.0;
        for i in 0..3 {
            for j in 0..3 {
                if i != j {
                    sum += x
                        .row(i)
                        .iter()
                        .zip(x.row(j))
                        .map(|(a, b)| (a - b) * (a - b))
                        .sum::<f64>();
                }
            }
        }
        let want = 1.0 / (sum / 6.0);
        assert!((gamma_rule(&x, None).unwrap() - want).abs() < 1e-12);
    }
}
