//! Kernels restricted to a subset of the feature columns, and the "every kernel on every
//! single feature" family used by multiple kernel learning.

use super::functions::Kernel;
#[cfg(test)]
use super::source::FeatureKernel;
use crate::data::Features;
use crate::{Error, Result};
use faer::Mat;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;

/// A kernel applied to a subset of the feature columns:
/// `k_S(x, x') = k(x_S, x'_S)` with `S = features` (0-based column indices, in the given
/// order); `None` means all columns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelOnFeatures {
    /// The kernel function.
    pub kernel: Kernel,
    /// Columns it reads (0-based), or `None` for all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub features: Option<Vec<usize>>,
}

/// Every kernel on every single feature: for `kernels = [k₁, k₂]` and `d` features,
/// `[k₁@0, k₁@1, …, k₁@(d−1), k₂@0, …]` (kernel-major order).
pub(crate) fn per_feature(kernels: &[Kernel], n_features: usize) -> Vec<KernelOnFeatures> {
    kernels
        .iter()
        .flat_map(|k| (0..n_features).map(move |f| KernelOnFeatures::single(k.clone(), f)))
        .collect()
}

impl KernelOnFeatures {
    /// `kernel` on `features` (`None` = all columns).
    pub(crate) fn new(kernel: Kernel, features: Option<Vec<usize>>) -> Self {
        KernelOnFeatures { kernel, features }
    }

    /// `kernel` on all columns.
    pub(crate) fn all(kernel: Kernel) -> Self {
        Self::new(kernel, None)
    }

    /// `kernel` on column `feature` alone.
    pub(crate) fn single(kernel: Kernel, feature: usize) -> Self {
        Self::new(kernel, Some(vec![feature]))
    }

    /// Number of columns the kernel reads, for data with `n_features` columns.
    pub(crate) fn n_used(&self, n_features: usize) -> usize {
        self.features.as_ref().map_or(n_features, Vec::len)
    }

    /// Checks the kernel parameters and that the columns exist in data with `n_features`
    /// features (and are not empty); a precomputed kernel cannot be restricted.
    pub(crate) fn validate(&self, n_features: usize) -> Result<()> {
        if let Some(f) = &self.features {
            if self.kernel.is_precomputed() {
                return Err(Error::param(
                    "features",
                    "a precomputed kernel cannot be restricted to features",
                ));
            }
            if f.is_empty() {
                return Err(Error::param("features", "the feature subset is empty"));
            }
            if let Some(&bad) = f.iter().find(|&&c| c >= n_features) {
                return Err(Error::param(
                    "features",
                    format!("feature index {bad} out of range: the data has {n_features} features"),
                ));
            }
        }
        self.kernel.validate(self.n_used(n_features))
    }

    /// The columns this kernel reads, as a new matrix (borrowed when `features` is `None`).
    pub(crate) fn restrict<'a>(&self, x: &'a Features) -> Result<Cow<'a, Features>> {
        self.validate(x.n_cols())?;
        match &self.features {
            None => Ok(Cow::Borrowed(x)),
            Some(f) => {
                let mut values = Vec::with_capacity(x.n_rows() * f.len());
                for r in x.rows() {
                    values.extend(f.iter().map(|&c| r[c]));
                }
                Ok(Cow::Owned(Features::new(x.n_rows(), f.len(), values)?))
            }
        }
    }

    /// `k(a_S, b_S)` on full-length samples (unchecked like [`Kernel::eval`]; indices
    /// must be in range).
    #[cfg(any(test, feature = "networks", feature = "conic"))]
    pub(crate) fn eval(&self, a: &[f64], b: &[f64]) -> f64 {
        match &self.features {
            None => self.kernel.eval(a, b),
            Some(f) if f.len() == 1 => self.kernel.eval(&[a[f[0]]], &[b[f[0]]]),
            Some(f) => {
                let sa: Vec<f64> = f.iter().map(|&c| a[c]).collect();
                let sb: Vec<f64> = f.iter().map(|&c| b[c]).collect();
                self.kernel.eval(&sa, &sb)
            }
        }
    }

    /// Gram matrix of the restricted kernel (see [`Kernel::gram`]).
    pub fn gram(&self, x: &Features) -> Result<Mat<f64>> {
        self.kernel.gram(&*self.restrict(x)?)
    }

    /// Cross matrix of the restricted kernel, `a` × `b` (see [`Kernel::cross`]).
    #[cfg(any(test, feature = "networks", feature = "conic"))]
    pub(crate) fn cross(&self, a: &Features, b: &Features) -> Result<Mat<f64>> {
        if a.n_cols() != b.n_cols() && !self.kernel.is_precomputed() {
            return Err(Error::data(format!(
                "kernel {self} was fitted on {} features, got {}",
                b.n_cols(),
                a.n_cols()
            )));
        }
        if self.kernel.is_precomputed() {
            return self.kernel.cross(a, b);
        }
        self.kernel.cross(&*self.restrict(a)?, &*self.restrict(b)?)
    }

    /// A row source for the solver on the restricted features (owns the selected columns).
    #[cfg(test)]
    pub(crate) fn source(&self, x: &Features) -> Result<FeatureKernel<'static>> {
        FeatureKernel::from_owned(&self.kernel, self.restrict(x)?.into_owned())
    }
}

/// `rbf(gamma=1)` for all features, `rbf(gamma=1)@[0,3]` for a subset (0-based).
impl fmt::Display for KernelOnFeatures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kernel)?;
        if let Some(cols) = &self.features {
            f.write_str("@[")?;
            for (k, c) in cols.iter().enumerate() {
                if k > 0 {
                    f.write_str(",")?;
                }
                write!(f, "{c}")?;
            }
            f.write_str("]")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::matrix::tests::random_features;
    use crate::kernel::KernelSource;

    #[test]
    fn per_feature_kernels() {
        let x = random_features(40, 3, 8, 0.0);
        let ks = [Kernel::rbf_gamma(0.5).unwrap(), Kernel::Linear];
        let list = per_feature(&ks, 3);
        assert_eq!(list.len(), 6);
        assert_eq!(list[4], KernelOnFeatures::single(Kernel::Linear, 1));
        for kf in &list {
            kf.validate(3).unwrap();
            let g = kf.gram(&x).unwrap();
            let f = kf.features.as_ref().unwrap()[0];
            for i in 0..40 {
                for j in 0..40 {
                    let e = kf.kernel.eval(&[x.row(i)[f]], &[x.row(j)[f]]);
                    assert!((g[(i, j)] - e).abs() < 1e-12, "{kf}");
                    assert!((kf.eval(x.row(i), x.row(j)) - e).abs() < 1e-15);
                }
            }
            let src = kf.source(&x).unwrap();
            assert_eq!(src.len(), 40);
        }
        let j = serde_json::to_string(&list[0]).unwrap();
        assert_eq!(
            serde_json::from_str::<KernelOnFeatures>(&j).unwrap(),
            list[0]
        );
        assert_eq!(list[0].to_string(), "rbf(gamma=0.5)@[0]");
    }

    #[test]
    fn subsets() {
        let a = random_features(20, 5, 1, 0.0);
        let b = random_features(30, 5, 2, 0.0);
        let k = Kernel::rbf_gamma(0.3).unwrap();
        let kf = KernelOnFeatures::new(k.clone(), Some(vec![4, 1]));
        let c = kf.cross(&a, &b).unwrap();
        for i in 0..20 {
            for j in 0..30 {
                let e = k.eval(&[a.row(i)[4], a.row(i)[1]], &[b.row(j)[4], b.row(j)[1]]);
                assert!((c[(i, j)] - e).abs() < 1e-12);
                assert!((kf.eval(a.row(i), b.row(j)) - e).abs() < 1e-15);
            }
        }
        let all = KernelOnFeatures::all(k.clone());
        assert_eq!(all.gram(&a).unwrap(), k.gram(&a).unwrap());
        let j = serde_json::to_string(&all).unwrap();
        assert!(!j.contains("features"), "{j}");
        assert_eq!(serde_json::from_str::<KernelOnFeatures>(&j).unwrap(), all);

        let e = KernelOnFeatures::single(k.clone(), 5)
            .validate(5)
            .unwrap_err();
        assert!(
            e.to_string().contains("feature index 5 out of range"),
            "{e}"
        );
        assert!(KernelOnFeatures::new(k.clone(), Some(vec![]))
            .validate(5)
            .is_err());
        let ard = Kernel::ard_gammas(vec![1.0, 2.0]).unwrap();
        assert!(KernelOnFeatures::new(ard.clone(), Some(vec![0, 3]))
            .validate(5)
            .is_ok());
        assert!(KernelOnFeatures::all(ard).validate(5).is_err());
        assert!(KernelOnFeatures::single(Kernel::Precomputed, 0)
            .validate(5)
            .is_err());
    }
}
