//! Fixed feature maps whose inner products approximate a kernel: random Fourier
//! features (Rahimi and Recht 2007; thesis §5.2.2) of the Gaussian and Laplacian kernels
//! and Nyström features on uniform or k-means landmarks. They are CKL's initial layer
//! and the inputs of the "fixed features + linear model" baselines.

use crate::bank::{KernelFamily, NystromFeatures};
use crate::cluster::KMeans;
use crate::data::Features;
use crate::{Error, Result};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Which feature map: the kernel it approximates and how it is built. All four are
/// scaled by one bandwidth parameter `s²` (`--init-variance`): the Gaussian's frequencies
/// are `N(0, s²)` per entry, i.e. the kernel `exp(−s²‖x − x'‖²/2)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum FeatureMapKind {
    /// Random Fourier features of `exp(−s²‖δ‖²/2)`: `ω ~ N(0, s² I)` (CKL's
    /// initialisation, thesis Table 5.2).
    Gaussian,
    /// Random Fourier features of the Laplacian `exp(−s‖δ‖₁)`: each entry of `ω` drawn
    /// from the Cauchy distribution of scale `s`.
    Laplacian,
    /// Nyström features of `exp(−s²‖δ‖²/2)` on `D` landmarks drawn uniformly.
    Nystrom,
    /// Nyström features of the same Gaussian on `D` k-means centres.
    NystromKmeans,
}

/// Command-line names of [`FeatureMapKind`].
pub(crate) const FEATURE_MAP_NAMES: [&str; 4] =
    ["gaussian", "laplacian", "nystrom", "nystrom-kmeans"];

impl std::str::FromStr for FeatureMapKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let values = [
            Self::Gaussian,
            Self::Laplacian,
            Self::Nystrom,
            Self::NystromKmeans,
        ];
        match FEATURE_MAP_NAMES.iter().position(|n| *n == s) {
            Some(i) => Ok(values[i]),
            None => Err(Error::param(
                "feature-map",
                format!("`{s}` is not one of {}", FEATURE_MAP_NAMES.join(", ")),
            )),
        }
    }
}

impl FeatureMapKind {
    /// Command-line name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Gaussian => FEATURE_MAP_NAMES[0],
            Self::Laplacian => FEATURE_MAP_NAMES[1],
            Self::Nystrom => FEATURE_MAP_NAMES[2],
            Self::NystromKmeans => FEATURE_MAP_NAMES[3],
        }
    }

    /// Whether the map is a Fourier embedding (a cosine layer CKL can train).
    pub(crate) fn is_fourier(self) -> bool {
        matches!(self, Self::Gaussian | Self::Laplacian)
    }
}

/// A Fourier embedding `z_j(x) = √2 cos(ω_jᵀx + b_j)`, `j = 1..D` (thesis §5.2.2): with
/// `ω_j` drawn from the spectral density of a shift-invariant kernel `k` and
/// `b_j ~ U[0, π)`, `(1/D) Σ_j z_j(x) z_j(x')` is an unbiased estimate of `k(x − x')`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FourierFeatures {
    /// Frequencies `ω_j`, one per row (`D × d`).
    pub omega: Features,
    /// Phases `b_j`.
    pub phase: Vec<f64>,
}

impl FourierFeatures {
    /// `width` random features of `kind` (Gaussian or Laplacian) with bandwidth
    /// parameter `s2` on `d` inputs, seeded.
    pub(crate) fn sample(
        kind: FeatureMapKind,
        d: usize,
        width: usize,
        s2: f64,
        seed: u64,
    ) -> Result<Self> {
        check_width(width)?;
        crate::check::positive_finite("init-variance", s2)?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let omega = match kind {
            FeatureMapKind::Gaussian => crate::nn::normal_values(&mut rng, width * d, s2.sqrt()),
            FeatureMapKind::Laplacian => crate::nn::uniform_values(&mut rng, width * d, 0.0, 1.0)
                .into_iter()
                .map(|u| s2.sqrt() * (std::f64::consts::PI * (u - 0.5)).tan())
                .collect(),
            other => {
                return Err(Error::param(
                    "feature-map",
                    format!("`{}` is not a Fourier embedding", other.name()),
                ))
            }
        };
        let phase = crate::nn::uniform_values(&mut rng, width, 0.0, std::f64::consts::PI);
        Ok(Self {
            omega: Features::new(width, d, omega)?,
            phase,
        })
    }

    /// Number of features `D`.
    pub(crate) fn width(&self) -> usize {
        self.phase.len()
    }

    /// `z(x)` of every row of `x` (`n × D`, the inputs of CKL's softmax layer).
    pub(crate) fn transform(&self, x: &Features) -> Result<Features> {
        check_inputs(self.omega.n_cols(), x)?;
        let w = self.width();
        let mut out = vec![0.0; x.n_rows() * w];
        for (row, z) in x.rows().zip(out.chunks_mut(w.max(1))) {
            for (j, zj) in z.iter_mut().enumerate() {
                *zj =
                    std::f64::consts::SQRT_2 * (dot(self.omega.row(j), row) + self.phase[j]).cos();
            }
        }
        Features::new(x.n_rows(), w, out)
    }

    /// The feature estimate `(1/D) Σ_j z_j(x) z_j(x')` of the kernel.
    #[cfg(test)]
    pub(crate) fn estimate(&self, x: &[f64], x2: &[f64]) -> f64 {
        let w = self.width();
        (0..w)
            .map(|j| {
                let (o, b) = (self.omega.row(j), self.phase[j]);
                2.0 * (dot(o, x) + b).cos() * (dot(o, x2) + b).cos()
            })
            .sum::<f64>()
            / w as f64
    }

    /// Euclidean norms `‖ω_j‖` (the learned spectrum's radial histogram).
    #[cfg(any(test, feature = "plot"))]
    pub(crate) fn norms(&self) -> Vec<f64> {
        self.omega.rows().map(|o| dot(o, o).sqrt()).collect()
    }

    /// Checks shapes and finiteness (model files).
    pub(crate) fn validate(&self, n_features: usize) -> Result<()> {
        if self.omega.n_cols() != n_features || self.omega.n_rows() != self.phase.len() {
            return Err(Error::data(format!(
                "omega is {} × {}, expected {} × {n_features} (one row per phase)",
                self.omega.n_rows(),
                self.omega.n_cols(),
                self.phase.len()
            )));
        }
        self.omega.check_finite("omega")?;
        if self.phase.iter().any(|v| !v.is_finite()) {
            return Err(Error::data("phase has a non-finite value"));
        }
        check_width(self.width())
    }
}

pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(u, v)| u * v).sum()
}

fn check_width(width: usize) -> Result<()> {
    if width == 0 {
        return Err(Error::param("fourier-features", "D must be at least 1"));
    }
    Ok(())
}

fn check_inputs(expected: usize, x: &Features) -> Result<()> {
    if x.n_cols() != expected {
        return Err(Error::data(format!(
            "the model was fitted on {expected} features, the input has {}",
            x.n_cols()
        )));
    }
    Ok(())
}

/// A fitted feature map: Fourier (fixed or learned) or Nyström.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "map", rename_all = "snake_case")]
pub enum FeatureMap {
    /// A Fourier embedding.
    Fourier(FourierFeatures),
    /// Nyström features of a Gaussian (one-kernel family).
    Nystrom(NystromFeatures),
}

impl FeatureMap {
    /// The map `kind` with `width` features and bandwidth parameter `s2`, fitted on the
    /// training rows `x` where it needs them (Nyström landmarks), seeded.
    pub(crate) fn fit(
        kind: FeatureMapKind,
        x: &Features,
        width: usize,
        s2: f64,
        seed: u64,
    ) -> Result<Self> {
        if kind.is_fourier() {
            return Ok(Self::Fourier(FourierFeatures::sample(
                kind,
                x.n_cols(),
                width,
                s2,
                seed,
            )?));
        }
        check_width(width)?;
        crate::check::positive_finite("init-variance", s2)?;
        // exp(−s²‖δ‖²/2) is the library's rbf with γ = s²/2.
        let family: KernelFamily = format!("rbf(gamma={})@all", s2 / 2.0).parse()?;
        let features = match kind {
            FeatureMapKind::Nystrom => NystromFeatures::fit(&family, x, width, seed)?,
            _ => {
                let k = width.min(x.n_rows());
                let centres = KMeans::new(k).seed(seed).fit(x)?.centres;
                NystromFeatures::at_landmarks(&family, x, centres.as_features().clone())?
            }
        };
        Ok(Self::Nystrom(features))
    }

    /// Features of every row of `x` (`n × dim`).
    pub(crate) fn transform(&self, x: &Features) -> Result<Features> {
        match self {
            Self::Fourier(f) => f.transform(x),
            Self::Nystrom(f) => Features::new(x.n_rows(), f.dim(), f.transform(x)?),
        }
    }

    /// Output dimension.
    pub(crate) fn dim(&self) -> usize {
        match self {
            Self::Fourier(f) => f.width(),
            Self::Nystrom(f) => f.dim(),
        }
    }

    /// Checks shapes and finiteness (model files).
    pub(crate) fn validate(&self, n_features: usize) -> Result<()> {
        match self {
            Self::Fourier(f) => f.validate(n_features),
            Self::Nystrom(f) => f.validate(n_features),
        }
    }
}
