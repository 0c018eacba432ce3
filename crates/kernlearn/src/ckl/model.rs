//! CKL and the fixed-feature baselines as fitted models: a feature map and a softmax
//! layer, with the learned kernel as an artifact.

#[cfg(test)]
use super::features::dot;
use super::features::{FeatureMap, FeatureMapKind, FourierFeatures};
use super::network::CosineNetwork;
use crate::data::Features;
#[cfg(test)]
use crate::kernel::{FeatureKernel, Kernel};
use crate::nn::{self, EpochRecord, SoftmaxRegression, TrainReport, TrainSettings, TrainingData};
use crate::predictor::{Artefact, ArtefactValue, FitSummary, Predictor, Task, FEATURE_RELEVANCE};
use crate::{Error, Result};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Parameters of CKL (thesis §5.2–5.4) and of the "fixed features + linear model"
/// baselines.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CklParams {
    /// Feature map (default Gaussian random Fourier features; CKL needs a Fourier one).
    pub feature_map: FeatureMapKind,
    /// Number of features `D` (width of `h₀`; default 256, Table 5.3 draws `2^0..2^9`).
    pub width: usize,
    /// Variance `σ²` of the entries of the initial `W_{h₀}` (default 2⁻³; Table 5.3
    /// draws `2^−6..2^0`); the bandwidth of every feature map.
    pub init_variance: f64,
    /// Cap on each `‖ω_j‖` after every step (§5.2.4; default none).
    pub norm_cap: Option<f64>,
    /// Train the feature map's frequencies and phases (CKL) or keep them fixed (the
    /// baseline: softmax regression on the features).
    pub learn_features: bool,
    /// Optimiser, learning rate, epochs, early stopping, batches, weight decay.
    pub train: TrainSettings,
    /// Seed of the initial values, the validation split and the batch order.
    pub seed: u64,
}

impl Default for CklParams {
    fn default() -> Self {
        Self {
            feature_map: FeatureMapKind::Gaussian,
            width: 256,
            init_variance: 0.125,
            norm_cap: None,
            learn_features: true,
            train: TrainSettings::default(),
            seed: 1,
        }
    }
}

impl CklParams {
    /// Checks every parameter; errors name the command-line option.
    pub(crate) fn validate(&self) -> Result<()> {
        if self.width == 0 {
            return Err(Error::param("fourier-features", "D must be at least 1"));
        }
        crate::check::positive_finite("init-variance", self.init_variance)?;
        if let Some(c) = self.norm_cap {
            crate::check::positive_finite("norm-cap", c)?;
        }
        if self.learn_features && !self.feature_map.is_fourier() {
            return Err(Error::param(
                "feature-map",
                format!(
                    "CKL learns a Fourier embedding (gaussian or laplacian), not `{}`",
                    self.feature_map.name()
                ),
            ));
        }
        self.train.validate()
    }

    /// Refuses a width `D` whose feature map cannot fit in memory for `n` rows of `d`
    /// features, before anything is allocated: the frequencies (`D·d`) and the features
    /// of every row (`n·D`), in doubles, four times over (values, gradients and the
    /// optimiser's two moments).
    pub(crate) fn check_memory(&self, n: usize, d: usize) -> Result<()> {
        let width = self.width as f64;
        let bytes = 4.0 * 8.0 * width * (d.max(1) as f64 + n as f64 + 1.0);
        crate::check::memory_fits(
            "fourier-features",
            &format!("D = {} features on {n} rows of {d} columns", self.width),
            bytes,
        )
    }
}

/// Rows per block of [`CklModel::logits`].
const PREDICT_ROWS: usize = 1024;

/// A fitted CKL network or fixed-feature linear model: logits `z(x) W_o + b_o`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CklModel {
    /// Parameters of the fit.
    pub params: CklParams,
    /// Input columns.
    pub n_features: usize,
    /// Class labels; logit column `c` is `classes[c]`.
    pub classes: Vec<f64>,
    /// The feature map `z` (CKL: the learned frequencies and phases).
    pub features: FeatureMap,
    /// CKL: the Fourier embedding before training (for the spectrum plot).
    pub initial: Option<FourierFeatures>,
    /// Softmax weights `W_o`, row-major `dim × classes`.
    pub output_weights: Vec<f64>,
    /// Softmax biases `b_o`.
    pub output_bias: Vec<f64>,
    /// What training did.
    pub report: TrainReport,
}

impl CklModel {
    /// Fits on `(x, y)` (classification, at least two classes); `on_epoch` sees every
    /// epoch (progress, trace).
    pub(crate) fn fit(
        params: &CklParams,
        x: &Features,
        y: &[f64],
        on_epoch: &dyn Fn(&EpochRecord),
    ) -> Result<Self> {
        params.validate()?;
        params.check_memory(x.n_rows(), x.n_cols())?;
        x.check_finite("features")?;
        let (classes, _) = crate::multiclass::class_groups(y);
        if classes.len() < 2 {
            return Err(Error::data("classification needs at least two classes"));
        }
        let p = params;
        let initial = FeatureMap::fit(p.feature_map, x, p.width, p.init_variance, p.seed)?;
        let mut rng = ChaCha8Rng::seed_from_u64(p.seed ^ 0x5eed_0fc1);
        let fraction = p.train.validation_fraction;
        let (features, start, (output_weights, output_bias), report) = match initial {
            FeatureMap::Fourier(init) if p.learn_features => {
                let net = CosineNetwork::new(&init, classes.len(), p.norm_cap, &mut rng)?;
                let data = TrainingData::new(x, y, &classes, fraction, p.seed)?;
                let report = nn::train(&net, &data, &p.train, p.seed, on_epoch)?;
                let learned = FeatureMap::Fourier(net.fourier_features()?);
                (learned, Some(init), net.out.values()?, report)
            }
            fixed => {
                let z = fixed.transform(x)?;
                let net = SoftmaxRegression::new(z.n_cols(), classes.len(), &mut rng)?;
                let data = TrainingData::new(&z, y, &classes, fraction, p.seed)?;
                let report = nn::train(&net, &data, &p.train, p.seed, on_epoch)?;
                (fixed, None, net.layer.values()?, report)
            }
        };
        Ok(Self {
            params: p.clone(),
            n_features: x.n_cols(),
            classes,
            features,
            initial: start,
            output_weights,
            output_bias,
            report,
        })
    }

    /// Logits `z(x) W_o + b_o` of every row (`n × classes`), in blocks of
    /// [`PREDICT_ROWS`] rows on rayon's threads: the features `z` (`D` doubles a row)
    /// never exist for all rows at once.
    pub(crate) fn logits(&self, x: &Features) -> Result<Vec<Vec<f64>>> {
        use rayon::prelude::*;
        if x.n_cols() != self.n_features {
            return Err(Error::data(format!(
                "the model was fitted on {} features, the input has {}",
                self.n_features,
                x.n_cols()
            )));
        }
        let k = self.classes.len();
        let d = x.n_cols().max(1);
        let blocks: Vec<Vec<Vec<f64>>> = x
            .as_slice()
            .par_chunks(PREDICT_ROWS * d)
            .map(|block| {
                let z =
                    self.features
                        .transform(&Features::new(block.len() / d, d, block.to_vec())?)?;
                Ok(z.rows()
                    .map(|zi| {
                        let mut l = self.output_bias.clone();
                        for (j, zj) in zi.iter().enumerate() {
                            let w = &self.output_weights[j * k..(j + 1) * k];
                            l.iter_mut().zip(w).for_each(|(a, b)| *a += zj * b);
                        }
                        l
                    })
                    .collect())
            })
            .collect::<Result<_>>()?;
        Ok(blocks.into_iter().flatten().collect())
    }

    /// The learned kernel (CKL): `k(x, x') = (1/D) Σ_j cos(ω_jᵀ(x − x'))` over the
    /// learned frequencies (Bochner, §5.2.1); `None` for the Nyström baselines.
    #[cfg(test)]
    pub(crate) fn learned_kernel(&self) -> Option<SpectralKernel> {
        match &self.features {
            FeatureMap::Fourier(f) => Some(SpectralKernel {
                omega: f.omega.clone(),
            }),
            FeatureMap::Nystrom(_) => None,
        }
    }
}

/// The shift-invariant kernel of a set of frequencies, `k(x, x') = (1/D) Σ_j
/// cos(ω_jᵀ(x − x'))`: the kernel whose spectral measure is the empirical distribution
/// of the `ω_j` (thesis §5.2.1–5.2.2). It is the inner product of the features
/// `[cos ω_jᵀx, sin ω_jᵀx]_j / √D`, so it is positive semi-definite. (The network's own
/// features `√2 cos(ω_jᵀx + b_j)` add the phase term `cos(ω_jᵀ(x + x') + 2b_j)`, which
/// averages to zero over the phases.)
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpectralKernel {
    /// Frequencies `ω_j`, one per row.
    pub omega: Features,
}

impl SpectralKernel {
    /// `k(a, b)`.
    #[cfg(test)]
    pub(crate) fn eval(&self, a: &[f64], b: &[f64]) -> f64 {
        let diff: Vec<f64> = a.iter().zip(b).map(|(u, v)| u - v).collect();
        self.omega.rows().map(|o| dot(o, &diff).cos()).sum::<f64>() / self.omega.n_rows() as f64
    }

    /// The explicit features `[cos ω_jᵀx, sin ω_jᵀx]_j / √D` of every row of `x`.
    #[cfg(test)]
    pub(crate) fn features(&self, x: &Features) -> Result<Features> {
        if x.n_cols() != self.omega.n_cols() {
            return Err(Error::data(format!(
                "the kernel was learned on {} features, the input has {}",
                self.omega.n_cols(),
                x.n_cols()
            )));
        }
        let w = self.omega.n_rows();
        let scale = 1.0 / (w as f64).sqrt();
        let mut out = Vec::with_capacity(x.n_rows() * 2 * w);
        for row in x.rows() {
            for o in self.omega.rows() {
                let t = dot(o, row);
                out.push(scale * t.cos());
                out.push(scale * t.sin());
            }
        }
        Features::new(x.n_rows(), 2 * w, out)
    }

    /// The kernel on the rows of `x` as a [`crate::kernel::KernelSource`] (a linear
    /// kernel on [`SpectralKernel::features`]): SMO and every estimator on a kernel
    /// source can train on it.
    #[cfg(test)]
    pub(crate) fn source(&self, x: &Features) -> Result<FeatureKernel<'static>> {
        FeatureKernel::from_owned(&Kernel::Linear, self.features(x)?)
    }
}

impl Predictor for CklModel {
    /// When the frequencies were trained (CKL, not its fixed baseline): `spectrum`, and
    /// `feature_relevance`, each input's share of the learned frequencies' second moment
    /// `Σ_i ω_ij² / Σ_ij ω_ij²`. The kernel `(1/D) Σ_i cos(ω_iᵀδ)` is
    /// `1 − ½ Σ_j (Σ_i ω_ij² / D) δ_j² + O(‖δ‖⁴)` near `δ = 0`, so these are the
    /// ARD-SVM's exponent shares ([`crate::ard`]) of the kernel CKL learned.
    fn artefacts(&self) -> Vec<Artefact> {
        let (Some(_), super::FeatureMap::Fourier(fourier)) = (&self.initial, &self.features) else {
            return Vec::new();
        };
        let mut artefacts = vec![Artefact {
            name: "spectrum",
            about: "the learned frequencies against their initial draw (the thesis's Fig. 5.2)",
            value: ArtefactValue::Figure,
        }];
        let mut moment = vec![0.0; fourier.omega.n_cols()];
        for row in fourier.omega.rows() {
            moment.iter_mut().zip(row).for_each(|(m, w)| *m += w * w);
        }
        let total: f64 = moment.iter().sum();
        if total > 0.0 && total.is_finite() {
            artefacts.push(Artefact {
                name: FEATURE_RELEVANCE,
                about: "each feature's share of the learned frequencies' second moment",
                value: ArtefactValue::PerFeature(moment.iter().map(|m| m / total).collect()),
            });
        }
        artefacts
    }

    #[cfg(feature = "plot")]
    fn draw_figure(&self, _name: &str, path: &std::path::Path) -> Result<()> {
        super::figure::write_spectrum_plot(self, path)
    }

    fn method(&self) -> String {
        if self.params.learn_features {
            "ckl"
        } else {
            "rff-linear"
        }
        .into()
    }

    fn task(&self) -> Task {
        Task::Classification
    }

    fn n_features(&self) -> usize {
        self.n_features
    }

    fn predict(&self, x: &Features) -> Result<Vec<f64>> {
        Ok(self
            .logits(x)?
            .iter()
            .map(|l| self.classes[crate::nn::argmax(l)])
            .collect())
    }

    /// One value per class pair `(i, j)`, `i < j`, in one-vs-one order: `l_i − l_j`
    /// (positive votes for class `i`, so the vote is the arg-max of the logits).
    fn decision_function(&self, x: &Features) -> Result<Vec<Vec<f64>>> {
        Ok(self.logits(x)?.iter().map(|l| pairwise(l)).collect())
    }

    fn params_json(&self) -> serde_json::Value {
        serde_json::to_value(&self.params).unwrap_or_default()
    }

    fn summary(&self) -> FitSummary {
        FitSummary {
            n_support: None,
            objective: self.report.best_val_loss,
            iterations: Some(self.report.epochs),
            extra: serde_json::json!({
                "feature_map": self.params.feature_map.name(),
                "features": self.features.dim(),
                "best_epoch": self.report.best_epoch,
                "stopped_early": self.report.stopped_early,
                "validation_accuracy": self.report.best_val_accuracy,
            }),
        }
    }

    fn classes(&self) -> Vec<f64> {
        self.classes.clone()
    }

    fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(Error::data(m));
        self.params.validate()?;
        crate::validate::classes("classes", &self.classes)?;
        self.features.validate(self.n_features)?;
        if let Some(f) = &self.initial {
            f.validate(self.n_features)?;
        }
        let (dim, k) = (self.features.dim(), self.classes.len());
        if self.output_weights.len() != dim * k {
            return bad(format!(
                "output_weights has {} values, expected {dim} features × {k} classes",
                self.output_weights.len()
            ));
        }
        if self.output_bias.len() != k {
            return bad(format!(
                "output_bias has {} values, expected {k}",
                self.output_bias.len()
            ));
        }
        crate::validate::finite("output_weights", &self.output_weights)?;
        crate::validate::finite("output_bias", &self.output_bias)
    }

    fn warnings(&self) -> Vec<String> {
        let r = &self.report;
        if r.best_val_loss.is_some() && !r.stopped_early {
            vec![format!(
                "training ran all {} rounds without early stopping; the validation loss may \
                 still have been falling (raise «epochs» or the learning rate)",
                r.epochs
            )]
        } else {
            Vec::new()
        }
    }

    /// Softmax of the logits, recovered from the pairs `(0, j)`: `l_j − l_0 = −dec_{0j}`.
    fn probabilities_from_decision(&self, dec: &[f64]) -> Result<Vec<f64>> {
        let k = self.classes.len();
        let mut l = vec![0.0];
        l.extend(dec.iter().take(k - 1).map(|d| -d));
        let top = l.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = l.iter().map(|v| (v - top).exp()).collect();
        let sum: f64 = e.iter().sum();
        Ok(e.iter().map(|v| v / sum).collect())
    }
}

/// `l_i − l_j` for the pairs `(0,1), (0,2), …, (1,2), …`.
fn pairwise(l: &[f64]) -> Vec<f64> {
    let k = l.len();
    let mut out = Vec::with_capacity(k * (k - 1) / 2);
    for i in 0..k {
        for j in i + 1..k {
            out.push(l[i] - l[j]);
        }
    }
    out
}
