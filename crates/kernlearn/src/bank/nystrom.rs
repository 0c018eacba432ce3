//! Nyström features of a kernel family (Williams and Seeger 2001): for `s` landmarks `L`
//! drawn uniformly (seeded) from the training points and each trace-normalised base
//! kernel `K̄_r`: `W_r = K̄_r(L, L) = U Λ Uᵀ`, and the features of `x` are
//! `z_r(x) = Λ^{-1/2} Uᵀ K̄_r(L, x)`, so that `z_r(x)ᵀz_r(x') ≈ K̄_r(x, x')` (exact on
//! the landmarks). Eigenvalues below `1e-10 λ_max` are dropped (a kernel on one feature
//! has low numerical rank; scikit-learn's `Nystroem` instead clips them at `1e-12` and
//! keeps `s` columns). Read by LIBLINEAR+ (Moeller 2017, section 3.4.2) and by CKL's
//! feature maps.

use super::{KernelBank, KernelFamily};
use crate::data::Features;
use crate::linalg::symmetric_eigen;
use crate::{Error, Result};
use faer::Mat;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Relative eigenvalue threshold of the Nyström maps.
const EIG_TOL: f64 = 1e-10;

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
        let m = crate::bank::family_machine(
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
