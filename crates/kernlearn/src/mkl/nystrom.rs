//! LIBLINEAR+ (Moeller 2017, section 3.4.2): Nyström features of every base kernel
//! (Williams and Seeger 2001), concatenated, and a linear SVM on them
//! ([`super::linear`], dual coordinate descent).
//!
//! For `s` landmarks `L` drawn uniformly (seeded) from the training points and each
//! trace-normalised base kernel `K̄_r`: `W_r = K̄_r(L, L) = U Λ Uᵀ`, and the features of
//! `x` are `z_r(x) = Λ^{-1/2} Uᵀ K̄_r(L, x)`, so that `z_r(x)ᵀz_r(x') ≈ K̄_r(x, x')`
//! (exact on the landmarks). Eigenvalues below `1e-10 λ_max` are dropped (a kernel on one
//! feature has low numerical rank; scikit-learn's `Nystroem` instead clips them at
//! `1e-12` and keeps `s` columns). The thesis does not normalise the kernels here (the
//! linear model weighs each block anyway); they are trace-normalised as for the other
//! methods so that one family spec means the same kernels everywhere. Memory is
//! `n × Σ_r rank_r` features (`O(snm)`, the baseline's known limit).

use super::base::KernelBank;
use super::family::KernelFamily;
use super::linear::{solve_linear_svm, LinearSvmParams};
use super::machine::check_binary;
use crate::data::Features;
use crate::estimator::one_vs_one_estimator_methods;
use crate::estimator::{Estimator, FitSummary};
use crate::linalg::symmetric_eigen;
use crate::multiclass::{BinaryMachine, OneVsOne};
use crate::validate::count_sum;
use crate::{Error, Result};
use faer::Mat;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Relative eigenvalue threshold of the Nyström maps.
const EIG_TOL: f64 = 1e-10;

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

/// The Nyström map of one kernel: `Λ^{-1/2}Uᵀ`, stored as `U Λ^{-1/2}` (`s × rank`,
/// row-major).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NystromMap {
    /// Kept eigenpairs.
    pub rank: usize,
    /// `s × rank` values.
    pub values: Vec<f64>,
}

/// Nyström feature maps of every base kernel on a set of landmarks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NystromFeatures {
    /// The base kernels.
    pub family: KernelFamily,
    /// Trace factors of the base kernels on the training data.
    pub trace_factors: Vec<f64>,
    /// The landmarks' features.
    pub landmarks: Features,
    /// One map per base kernel.
    pub maps: Vec<NystromMap>,
}

impl NystromFeatures {
    /// Draws `s` landmarks from `x` and builds every kernel's map.
    pub fn fit(family: &KernelFamily, x: &Features, s: usize, seed: u64) -> Result<Self> {
        let s = s.min(x.n_rows());
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut idx = rand::seq::index::sample(&mut rng, x.n_rows(), s).into_vec();
        idx.sort_unstable();
        Self::at_landmarks(family, x, x.select_rows(&idx))
    }

    /// Every kernel's map on the given landmarks (e.g. k-means centres, which need not
    /// be training points), trace factors from the training points `x`.
    pub(crate) fn at_landmarks(
        family: &KernelFamily,
        x: &Features,
        landmarks: Features,
    ) -> Result<Self> {
        let bank = KernelBank::new(family, x)?;
        bank.base().require_psd("the Nyström approximation")?;
        let s = landmarks.n_rows();
        let at = KernelBank::with_factors(family, &landmarks, bank.factors().to_vec())?;
        let maps = (0..at.n_kernels())
            .into_par_iter()
            .map(|r| {
                let mut col = vec![0.0; s];
                let mut w = Mat::<f64>::zeros(s, s);
                for j in 0..s {
                    at.column(r, landmarks.row(j), &mut col);
                    for i in 0..s {
                        w[(i, j)] = col[i];
                    }
                }
                let eig = symmetric_eigen(w.as_ref())?;
                let top = eig.values.iter().cloned().fold(0.0, f64::max);
                let kept: Vec<usize> = (0..s).filter(|&k| eig.values[k] > EIG_TOL * top).collect();
                let mut values = vec![0.0; s * kept.len()];
                for i in 0..s {
                    for (c, &k) in kept.iter().enumerate() {
                        values[i * kept.len() + c] = eig.vectors[(i, k)] / eig.values[k].sqrt();
                    }
                }
                Ok(NystromMap {
                    rank: kept.len(),
                    values,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Self {
            family: family.clone(),
            trace_factors: bank.factors().to_vec(),
            landmarks,
            maps,
        })
    }

    /// Total feature dimension `Σ_r rank_r` (saturating).
    pub fn dim(&self) -> usize {
        self.maps
            .iter()
            .fold(0usize, |a, m| a.saturating_add(m.rank))
    }

    /// Checks maps read back for `n_features` features: landmarks with `n_features`
    /// columns, a valid family ([`KernelFamily::validate`]) with one finite trace factor
    /// and one map per base kernel, each map `landmarks × rank` finite values.
    pub(crate) fn validate(&self, n_features: usize) -> Result<()> {
        use crate::validate::{ensure, finite};
        let m = crate::mkl::family_machine(
            "landmarks",
            &self.landmarks,
            &self.family,
            &self.trace_factors,
            n_features,
        )?;
        ensure(self.maps.len() == m, || {
            format!(
                "maps has {} maps, the family has {m} base kernels on {n_features} features",
                self.maps.len()
            )
        })?;
        let s = self.landmarks.n_rows();
        for (r, map) in self.maps.iter().enumerate() {
            let want = s.checked_mul(map.rank);
            ensure(want == Some(map.values.len()), || {
                format!(
                    "maps[{r}].values has {} values, {s} landmarks × rank {} need {}",
                    map.values.len(),
                    map.rank,
                    want.map_or("more".to_string(), |w| w.to_string())
                )
            })?;
            finite(format!("maps[{r}].values"), &map.values)?;
        }
        Ok(())
    }

    /// Features of every row of `x` (row-major, `x.n_rows() × dim`), in parallel.
    pub fn transform(&self, x: &Features) -> Result<Vec<f64>> {
        if x.n_cols() != self.landmarks.n_cols() {
            return Err(Error::data(format!(
                "the model was fitted on {} features, the input has {}",
                self.landmarks.n_cols(),
                x.n_cols()
            )));
        }
        let at =
            KernelBank::with_factors(&self.family, &self.landmarks, self.trace_factors.clone())?;
        let (s, dim) = (self.landmarks.n_rows(), self.dim());
        let mut out = vec![0.0; x.n_rows() * dim];
        out.par_chunks_mut(dim.max(1)).enumerate().for_each_init(
            || vec![0.0; s],
            |col, (t, z)| {
                let mut off = 0;
                for (r, map) in self.maps.iter().enumerate() {
                    at.column(r, x.row(t), col);
                    let zr = &mut z[off..off + map.rank];
                    zr.fill(0.0);
                    for i in 0..s {
                        let row = &map.values[i * map.rank..(i + 1) * map.rank];
                        zr.iter_mut().zip(row).for_each(|(a, v)| *a += col[i] * v);
                    }
                    off += map.rank;
                }
            },
        );
        Ok(out)
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

impl Estimator for NystromLinearModel {
    one_vs_one_estimator_methods!();

    fn method(&self) -> String {
        "nystrom-linear".to_string()
    }
    /// Valid parameters and family on `n_features` features, one-vs-one machines
    /// ([`OneVsOne::validate`]), each valid ([`NystromLinearMachine::validate`]).
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
