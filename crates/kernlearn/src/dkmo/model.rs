//! Fitting and using DKMO / M-DKMO: kernels → dense embeddings → network.

use super::embed::{fit_ensemble, Embedding, EmbeddingScheme, EnsembleSize};
use super::input::{check_gram, cosine_gram, cosine_rows, rule_kernel, to_features, KernelInput};
use super::net::{Architecture, DkmoNet, Fusion};
use crate::check::memory_fits;
use crate::data::{class_labels, Features};
use crate::kernel::KernelOnFeatures;
use crate::nn::{
    softmax_rows, tensor_of, train, CandleResult, Network, OptimizerChoice, TrainSettings,
    TrainingData,
};
use crate::predictor::{Artefact, ArtefactValue, FitSummary, Predictor, Representation, Task};
use crate::trace::Trace;
use crate::{Error, Result};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// DKMO / M-DKMO settings (defaults: the paper's, §V, where it gives them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct DkmoParams {
    /// M-DKMO (several kernels, cosine-normalised, per-kernel pre-training, global
    /// fusion, fine-tuning) instead of DKMO (one kernel).
    pub multi: bool,
    /// Kernels on features (DKMO: one; M-DKMO: several). `None` with features: DKMO uses
    /// the Gaussian with the §V-A width rule on all features; with a precomputed input
    /// the kernels are the data.
    pub kernels: Option<Vec<KernelOnFeatures>>,
    /// The data are kernel values (a Gram set), not features.
    pub precomputed: bool,
    /// Embedding ensemble; `None`: clustered Nyström with features, conventional
    /// Nyström on precomputed kernels (the paper's two settings).
    pub scheme: Option<EmbeddingScheme>,
    /// Conventional Nyström embeddings per kernel `P` (paper, §V-B: 6).
    pub embeddings: usize,
    /// Landmarks per embedding `s` (the paper does not state it; default 100).
    pub landmarks: usize,
    /// Hidden layers of every branch (paper: 256-512-256-128).
    pub hidden: Vec<usize>,
    /// Dropout after every hidden layer (paper: 0.5).
    pub dropout: f64,
    /// Kernel dropout of the fusion layers (paper: 0.5).
    pub kernel_dropout: f64,
    /// Merge of the fusion layers (paper: sum).
    pub fusion: Fusion,
    /// Optimiser and stopping (paper: Adam, learning rate 0.001).
    pub train: TrainSettings,
    /// With a validation split: after early stopping has chosen the number of epochs
    /// of every training run (each pre-training and the final run), train the whole
    /// pipeline again from the same seed on all training rows for those epochs (the
    /// paper states neither epochs nor a validation split; this uses every training
    /// row and decides on the training part only). `false`: keep the best validation
    /// epoch's network, trained on the rows outside the validation split. Model files
    /// written before this setting existed read as `false`, which is how they were fitted.
    #[serde(default)]
    pub refit: bool,
}

impl Default for DkmoParams {
    fn default() -> Self {
        let train = TrainSettings {
            optimizer: OptimizerChoice::Adam,
            learning_rate: 1e-3,
            max_epochs: 100,
            patience: 10,
            batch_size: 32,
            validation_fraction: 0.1,
            // Keras's early stopping, the paper's: every round is one epoch.
            round_steps: None,
            ..TrainSettings::default()
        };
        Self {
            multi: false,
            kernels: None,
            precomputed: false,
            scheme: None,
            embeddings: 6,
            landmarks: 100,
            hidden: vec![256, 512, 256, 128],
            dropout: 0.5,
            kernel_dropout: 0.5,
            fusion: Fusion::Sum,
            train,
            refit: true,
        }
    }
}

impl DkmoParams {
    /// Checks every setting; errors name the command-line option.
    pub(crate) fn validate(&self) -> Result<()> {
        self.train.validate()?;
        if self.embeddings == 0 {
            return Err(Error::param("dkmo-embeddings", "must be at least 1"));
        }
        if self.landmarks == 0 {
            return Err(Error::param("landmarks", "must be at least 1"));
        }
        if self.hidden.is_empty() || self.hidden.contains(&0) {
            return Err(Error::param(
                "dkmo-hidden",
                "needs at least one layer, each of at least one unit",
            ));
        }
        for (name, rate) in [
            ("dropout", self.dropout),
            ("kernel-dropout", self.kernel_dropout),
        ] {
            if !(0.0..1.0).contains(&rate) {
                return Err(Error::param(name, format!("{rate} is outside [0, 1)")));
            }
        }
        if !self.multi && self.kernels.as_ref().is_some_and(|k| k.len() != 1) {
            return Err(Error::param(
                "kernel",
                "DKMO takes one kernel; use m-dkmo for several",
            ));
        }
        Ok(())
    }

    /// Refuses settings whose embeddings or networks cannot fit in memory on the `n`
    /// rows of `x`, before anything is allocated (an abort otherwise): the embeddings
    /// hold `M·P·n·r` doubles (`r ≤ min(s, n)` the rank), each of the `M·P` branch
    /// networks `r·h₁ + Σ hᵢhᵢ₊₁` f32 weights, kept four times over by Adam (weights,
    /// gradients, two moments), and a batch of `n` rows through every layer.
    fn check_memory(&self, x: &Features) -> Result<()> {
        let n = x.n_rows() as f64;
        let kernels = match (&self.kernels, self.precomputed) {
            (_, true) if x.n_rows() > 0 => (x.n_cols() / x.n_rows()).max(1) as f64,
            (Some(k), _) => k.len().max(1) as f64,
            _ => 1.0,
        };
        let per_kernel = match self.scheme {
            Some(EmbeddingScheme::Clustered) => 5.0,
            Some(EmbeddingScheme::Nystrom) => self.embeddings as f64,
            None if self.precomputed => self.embeddings as f64,
            None => 5.0,
        };
        let branches = kernels * per_kernel;
        let rank = (self.landmarks as f64).min(n);
        let embeddings = branches * n * rank * 8.0;
        memory_fits(
            "dkmo-embeddings",
            &format!("{branches} embeddings of {n} rows × rank {rank}"),
            embeddings,
        )?;
        let h = &self.hidden;
        let weights =
            rank * h[0] as f64 + h.windows(2).map(|w| w[0] as f64 * w[1] as f64).sum::<f64>();
        let units: f64 = h.iter().map(|&u| u as f64).sum();
        let network = branches * (4.0 * 4.0 * weights + 3.0 * 4.0 * n * units);
        memory_fits(
            "dkmo-hidden",
            &format!("{branches} branch networks of layers {h:?}"),
            network,
        )
    }
}

/// Network weights stored as base64 of little-endian f32 (model files stay a fraction
/// of the size of JSON numbers).
#[derive(Clone, Debug, PartialEq)]
pub struct Weights(pub Vec<(String, Vec<f32>)>);

impl Serialize for Weights {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let encoded: Vec<(&str, String)> = self
            .0
            .iter()
            .map(|(name, v)| {
                let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                (name.as_str(), base64::encode(bytes))
            })
            .collect();
        encoded.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Weights {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let encoded: Vec<(String, String)> = Vec::deserialize(d)?;
        encoded
            .into_iter()
            .map(|(name, text)| {
                let bytes = base64::decode(&text)
                    .map_err(|e| serde::de::Error::custom(format!("weights `{name}`: {e}")))?;
                if bytes.len() % 4 != 0 {
                    return Err(serde::de::Error::custom(format!(
                        "weights `{name}`: not a whole number of f32"
                    )));
                }
                let v = bytes
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                Ok((name, v))
            })
            .collect::<std::result::Result<Vec<_>, _>>()
            .map(Weights)
    }
}

/// How training went.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DkmoFitInfo {
    /// Epochs of each per-kernel pre-training (M-DKMO) of the kept network.
    pub pretrain_epochs: Vec<usize>,
    /// Epochs of the final (DKMO) or fine-tuning (M-DKMO) training of the kept network.
    pub epochs: usize,
    /// Epoch chosen on the validation split (the last without one); with a refit, the
    /// number of epochs the final run was repeated on all rows for.
    pub best_epoch: usize,
    /// Validation accuracy at the chosen epoch (`None` without a validation split);
    /// with a refit, measured before the refit (the refit network sees those rows).
    pub val_accuracy: Option<f64>,
    /// Whether the kept network was trained again on all training rows for the chosen
    /// epochs ([`DkmoParams::refit`]).
    #[serde(default)]
    pub refit: bool,
    /// Training rows the kept network was trained on (all of them after a refit, the
    /// rows outside the validation split otherwise).
    #[serde(default)]
    pub train_rows: usize,
}

/// A fitted DKMO / M-DKMO classifier.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DkmoModel {
    /// The settings it was fitted with.
    pub params: DkmoParams,
    /// Where kernel rows come from.
    pub input: KernelInput,
    /// Training diagonal of every kernel when they are cosine-normalised (M-DKMO).
    pub cosine_diag: Option<Vec<Vec<f64>>>,
    /// The dense embeddings of every kernel.
    pub embeddings: Vec<Vec<Embedding>>,
    /// The network's shape.
    pub architecture: Architecture,
    /// The network's parameters.
    pub weights: Weights,
    /// Class labels in the order of the network's outputs.
    pub classes: Vec<f64>,
    /// How training went.
    pub info: DkmoFitInfo,
}

/// The fit's trace and the model.
pub struct DkmoFit {
    /// The model.
    pub model: DkmoModel,
    /// One row per epoch: `phase` (kernel `m` of the pre-training, or `M` for the
    /// final/fine-tuning run), `epoch`, `train_loss`, `val_loss`, `val_accuracy`.
    pub trace: Trace,
}

impl DkmoModel {
    /// Fits on training data `x` (features, or a Gram set's kernel values when
    /// `params.precomputed`) with labels `y`; `on_epoch` is called after every epoch.
    pub(crate) fn fit(
        params: &DkmoParams,
        x: &Features,
        y: &[f64],
        seed: u64,
        on_epoch: &(dyn Fn() + Sync),
    ) -> Result<DkmoFit> {
        params.validate()?;
        let classes = class_labels(y);
        if classes.len() < 2 {
            return Err(Error::data("DKMO needs at least two classes"));
        }
        params.check_memory(x)?;
        let input = kernel_input(params, x)?;
        let (grams, mats, cosine_diag) = kernel_matrices(params, &input, x)?;
        let scheme = params.scheme.unwrap_or(if params.precomputed {
            EmbeddingScheme::Nystrom
        } else {
            EmbeddingScheme::Clustered
        });
        let size = EnsembleSize {
            embeddings: params.embeddings,
            landmarks: params.landmarks,
        };
        let embeddings = mats
            .par_iter()
            .enumerate()
            .map(|(m, k)| fit_ensemble(k, scheme, size, seed.wrapping_add(1000 * m as u64)))
            .collect::<Result<Vec<_>>>()?;
        let per_kernel: Vec<Features> = embeddings
            .iter()
            .zip(&grams)
            .map(|(es, k)| embed(es, k))
            .collect::<Result<_>>()?;
        let arch = Architecture {
            groups: embeddings
                .iter()
                .map(|es| es.iter().map(|e| e.rank).collect())
                .collect(),
            hidden: params.hidden.clone(),
            dropout: params.dropout,
            kernel_dropout: params.kernel_dropout,
            fusion: params.fusion,
            classes: classes.len(),
        };
        let stages = Stages {
            params,
            arch: &arch,
            per_kernel: &per_kernel,
            y,
            classes: &classes,
            seed,
            on_epoch,
        };
        let (net, info, trace) = stages.train_and_refit()?;
        let model = DkmoModel {
            params: params.clone(),
            input,
            cosine_diag,
            embeddings,
            architecture: arch,
            weights: Weights(net.weights()?),
            classes,
            info,
        };
        Ok(DkmoFit { model, trace })
    }

    /// The network's input for the samples `x`: every kernel's embeddings side by side.
    fn network_input(&self, x: &Features) -> Result<Features> {
        let rows = self.input.rows(x)?;
        let own = self.input.self_values(x)?;
        let per_kernel = rows
            .iter()
            .enumerate()
            .map(|(m, r)| {
                let r = match &self.cosine_diag {
                    Some(d) => cosine_rows(r, own.as_ref().map(|o| o[m].as_slice()), &d[m])?,
                    None => r.clone(),
                };
                embed(&self.embeddings[m], &r)
            })
            .collect::<Result<Vec<_>>>()?;
        side_by_side(&per_kernel)
    }

    /// The trained network.
    fn network(&self) -> Result<DkmoNet> {
        let net = DkmoNet::new(&self.architecture, 0)?;
        net.load_weights(&self.weights.0)?;
        Ok(net)
    }

    /// Class probabilities (softmax outputs, `classes` order) of the samples `x`.
    pub(crate) fn probabilities(&self, x: &Features) -> Result<Vec<Vec<f64>>> {
        let z = tensor_of(&self.network_input(x)?)?;
        let logits = self.network()?.forward(&z, false).nn()?;
        softmax_rows(&logits)
    }

    /// The fused representation (the layer the softmax reads; M-DKMO: the global
    /// fusion layer) of the samples `x`, one row each: the paper's Fig. 7 idea.
    pub(crate) fn fused_representation(&self, x: &Features) -> Result<Features> {
        let z = tensor_of(&self.network_input(x)?)?;
        let h = self.network()?.fused(&z, false).nn()?;
        let (n, d) = h.dims2().nn()?;
        Features::new(n, d, crate::nn::values_of(&h)?)
    }
}

/// Each kernel's Gram matrix as features and as a matrix, and M-DKMO's cosine diagonals.
type KernelMatrices = (Vec<Features>, Vec<faer::Mat<f64>>, Option<Vec<Vec<f64>>>);

/// Every kernel's Gram matrix of the training rows, as features (the embeddings' input)
/// and as a matrix (the embeddings' fit), after the kernel count is checked against the
/// variant: M-DKMO's are cosine-normalised (with each kernel's training diagonal, which
/// prediction reuses), DKMO's single one is used as is.
fn kernel_matrices(
    params: &DkmoParams,
    input: &KernelInput,
    x: &Features,
) -> Result<KernelMatrices> {
    let mut grams = input.rows(x)?;
    if params.precomputed {
        grams
            .iter()
            .enumerate()
            .try_for_each(|(m, k)| check_gram(k, m + 1))?;
    }
    if params.multi == (input.n_kernels() == 1) && params.multi {
        return Err(Error::param(
            "kernels",
            "M-DKMO needs at least two kernels (DKMO takes one)",
        ));
    }
    if !params.multi && input.n_kernels() != 1 {
        return Err(Error::data(format!(
            "DKMO takes one kernel, the data hold {}; use m-dkmo to fuse several",
            input.n_kernels()
        )));
    }
    let mut cosine_diag = None;
    let mut mats = Vec::with_capacity(grams.len());
    if params.multi {
        let mut diags = Vec::new();
        for k in &grams {
            let (m, d) = cosine_gram(k)?;
            mats.push(m);
            diags.push(d);
        }
        grams = mats.iter().map(to_features).collect::<Result<_>>()?;
        cosine_diag = Some(diags);
    } else {
        mats = grams
            .iter()
            .map(|k| faer::Mat::from_fn(k.n_rows(), k.n_cols(), |i, j| k.row(i)[j]))
            .collect();
    }
    Ok((grams, mats, cosine_diag))
}

/// Where the kernels come from for these settings and data.
fn kernel_input(params: &DkmoParams, x: &Features) -> Result<KernelInput> {
    if params.precomputed {
        return KernelInput::precomputed(x);
    }
    let kernels =
        match &params.kernels {
            Some(k) => k.clone(),
            None if params.multi => return Err(Error::param(
                "kernels",
                "M-DKMO on features needs its kernels («kernels»), or give the data as a Gram set",
            )),
            None => vec![rule_kernel(x, None)?],
        };
    for k in &kernels {
        k.validate(x.n_cols())?;
    }
    Ok(KernelInput::Features {
        kernels,
        train: x.clone(),
    })
}

/// Every embedding of one kernel of the rows `k`, side by side.
fn embed(embeddings: &[Embedding], k: &Features) -> Result<Features> {
    let parts: Vec<Features> = embeddings
        .iter()
        .map(|e| Features::new(k.n_rows(), e.rank, e.transform(k)))
        .collect::<Result<_>>()?;
    side_by_side(&parts)
}

/// Matrices with the same rows, concatenated column-wise.
fn side_by_side(parts: &[Features]) -> Result<Features> {
    let n = parts[0].n_rows();
    let width: usize = parts.iter().map(Features::n_cols).sum();
    let mut values = Vec::with_capacity(n * width);
    for i in 0..n {
        parts
            .iter()
            .for_each(|p| values.extend_from_slice(p.row(i)));
    }
    Features::new(n, width, values)
}

/// The fit's trace: one row per epoch of every phase (pre-training of kernel `m` is
/// phase `m`, fine-tuning the last); `refit` is 1 on the rows of the refit on all
/// training rows, 0 on those of the run that chose the epochs.
fn new_trace() -> Trace {
    Trace::new(&[
        "phase",
        "epoch",
        "train_loss",
        "val_loss",
        "val_accuracy",
        "refit",
    ])
}

/// Epochs of every training run, fixed (a refit): each kernel's pre-training
/// (M-DKMO) and the final run.
struct Epochs {
    pretrain: Vec<usize>,
    last: usize,
}

/// The trained network of one pass over the stages, and how it went.
struct Trained {
    net: DkmoNet,
    info: DkmoFitInfo,
    trace: Trace,
    /// The epoch each pre-training kept (M-DKMO).
    pretrain_best: Vec<usize>,
}

/// Everything the training stages read: the network's shape, every kernel's
/// embeddings of the training rows, labels and settings.
struct Stages<'a> {
    params: &'a DkmoParams,
    arch: &'a Architecture,
    per_kernel: &'a [Features],
    y: &'a [f64],
    classes: &'a [f64],
    seed: u64,
    on_epoch: &'a (dyn Fn() + Sync),
}

impl Stages<'_> {
    /// Pre-training of every kernel (M-DKMO), then the final / fine-tuning run. With
    /// `fixed`, every run takes its epochs from it and learns from all rows (no
    /// validation split); otherwise the settings' early stopping decides.
    fn train(&self, fixed: Option<&Epochs>) -> Result<Trained> {
        let (arch, seed) = (self.arch, self.seed);
        let mut trace = new_trace();
        let mut info = DkmoFitInfo::default();
        let mut pretrain_best = Vec::new();
        let net = DkmoNet::new(arch, seed)?;
        if self.params.multi {
            // Each kernel's pre-training is independent (own network, own seeds), so
            // they run side by side; results and trace order are those of a loop.
            let pretrained: Vec<(DkmoNet, crate::nn::TrainReport, Trace)> = self
                .per_kernel
                .par_iter()
                .enumerate()
                .map(|(m, z)| {
                    let single = Architecture {
                        groups: vec![arch.groups[m].clone()],
                        ..arch.clone()
                    };
                    let pre = DkmoNet::new(&single, seed.wrapping_add(m as u64 + 1))?;
                    let mut own = new_trace();
                    let epochs = fixed.map(|f| f.pretrain[m]);
                    let (report, _) = self.run(&pre, z, m, epochs, &mut own)?;
                    Ok((pre, report, own))
                })
                .collect::<Result<_>>()?;
            for (m, (pre, report, own)) in pretrained.into_iter().enumerate() {
                own.rows.into_iter().for_each(|r| trace.push(r));
                info.pretrain_epochs.push(report.epochs);
                pretrain_best.push(report.best_epoch);
                net.adopt_group(m, &pre)?;
            }
        }
        let all = side_by_side(self.per_kernel)?;
        let phase = self.per_kernel.len() * usize::from(self.params.multi);
        let (report, rows) = self.run(&net, &all, phase, fixed.map(|f| f.last), &mut trace)?;
        info.train_rows = rows;
        info.epochs = report.epochs;
        info.best_epoch = report.best_epoch;
        info.val_accuracy = report.best_val_accuracy;
        Ok(Trained {
            net,
            info,
            trace,
            pretrain_best,
        })
    }

    /// The stages with the settings' early stopping, then (with [`DkmoParams::refit`] and a
    /// validation split) again on all rows for the epochs it chose: the kept network, its
    /// fit report and the trace of every run.
    fn train_and_refit(&self) -> Result<(DkmoNet, DkmoFitInfo, Trace)> {
        let chosen = self.train(None)?;
        if !(self.params.refit && self.params.train.validation_fraction > 0.0) {
            return Ok((chosen.net, chosen.info, chosen.trace));
        }
        // The epochs early stopping chose, then every stage again on all rows from the
        // same seed: the usual way to use the validation rows as well.
        let epochs = Epochs {
            pretrain: chosen.pretrain_best.clone(),
            last: chosen.info.best_epoch,
        };
        let refit = self.train(Some(&epochs))?;
        let mut trace = chosen.trace;
        refit.trace.rows.into_iter().for_each(|r| trace.push(r));
        let info = DkmoFitInfo {
            best_epoch: chosen.info.best_epoch,
            val_accuracy: chosen.info.val_accuracy,
            refit: true,
            ..refit.info
        };
        Ok((refit.net, info, trace))
    }

    /// One training run of `net` on `z`, its epochs appended to `trace` as `phase`;
    /// `epochs`: exactly that many on all rows (a refit) instead of early stopping.
    /// Also returns the number of rows it learnt from.
    fn run(
        &self,
        net: &DkmoNet,
        z: &Features,
        phase: usize,
        epochs: Option<usize>,
        trace: &mut Trace,
    ) -> Result<(crate::nn::TrainReport, usize)> {
        let mut settings = self.params.train.clone();
        if let Some(e) = epochs {
            settings.validation_fraction = 0.0;
            settings.max_epochs = e.max(1);
        }
        let data = TrainingData::new(
            z,
            self.y,
            self.classes,
            settings.validation_fraction,
            self.seed,
        )?;
        let report = train(
            net,
            &data,
            &settings,
            self.seed.wrapping_add(phase as u64),
            &|_| (self.on_epoch)(),
        )?;
        let refit = f64::from(u8::from(epochs.is_some()));
        for row in &report.trace.rows {
            let mut r = vec![phase as f64];
            r.extend_from_slice(row);
            r.push(refit);
            trace.push(r);
        }
        Ok((report, data.n_train()))
    }
}

impl Predictor for DkmoModel {
    fn artefacts(&self) -> Vec<Artefact> {
        vec![Artefact {
            name: "fused",
            about: "the fused layer the softmax reads (the DKMO paper's Fig. 3)",
            value: ArtefactValue::PerRow,
        }]
    }

    /// `fused`: the layer the softmax reads (`DkmoModel::fused_representation`).
    fn per_row(&self, _name: &str, x: &Features, _pair: usize) -> Result<Representation> {
        let values = self.fused_representation(x)?;
        let columns = (1..=values.n_cols()).map(|j| format!("f{j}")).collect();
        Ok(Representation { columns, values })
    }

    fn method(&self) -> String {
        if self.params.multi { "m-dkmo" } else { "dkmo" }.into()
    }

    fn task(&self) -> Task {
        Task::Classification
    }

    fn n_features(&self) -> usize {
        self.input.n_features()
    }

    fn predict(&self, x: &Features) -> Result<Vec<f64>> {
        Ok(self
            .probabilities(x)?
            .iter()
            .map(|p| self.predict_from_decision(p))
            .collect())
    }

    /// One value per class (in [`Predictor::classes`] order): the softmax outputs.
    fn decision_function(&self, x: &Features) -> Result<Vec<Vec<f64>>> {
        self.probabilities(x)
    }

    fn params_json(&self) -> serde_json::Value {
        serde_json::to_value(&self.params).unwrap_or(serde_json::Value::Null)
    }

    fn summary(&self) -> FitSummary {
        FitSummary {
            n_support: None,
            objective: None,
            iterations: Some(
                self.info
                    .pretrain_epochs
                    .iter()
                    .fold(self.info.epochs, |a, &b| a.saturating_add(b)),
            ),
            extra: serde_json::json!({
                "embeddings": self.embeddings.iter().map(|es| es.iter().map(|e| (e.method, e.landmarks.len(), e.rank)).collect::<Vec<_>>()).collect::<Vec<_>>(),
                "info": self.info,
                "classes": self.classes,
            }),
        }
    }

    fn classes(&self) -> Vec<f64> {
        self.classes.clone()
    }

    fn validate(&self) -> Result<()> {
        use crate::validate::ensure;
        crate::validate::classes("classes", &self.classes)?;
        ensure(self.architecture.classes == self.classes.len(), || {
            format!(
                "architecture has {} outputs, the model {} classes",
                self.architecture.classes,
                self.classes.len()
            )
        })?;
        let m = self.input.n_kernels();
        ensure(
            self.embeddings.len() == m && self.architecture.groups.len() == m,
            || {
                format!(
                    "embeddings cover {} kernels, the input has {m}",
                    self.embeddings.len()
                )
            },
        )?;
        for (es, widths) in self.embeddings.iter().zip(&self.architecture.groups) {
            ensure(
                es.len() == widths.len() && es.iter().zip(widths).all(|(e, &w)| e.rank == w),
                || "embedding ranks do not match the network's branch widths".to_string(),
            )?;
            es.iter()
                .try_for_each(|e| e.validate(self.input.n_train()))?;
        }
        if let Some(d) = &self.cosine_diag {
            ensure(
                d.len() == m
                    && d.iter().all(|v| {
                        v.len() == self.input.n_train()
                            && v.iter().all(|x| *x > 0.0 && x.is_finite())
                    }),
                || "cosine_diag must hold a positive diagonal per kernel".to_string(),
            )?;
        }
        self.architecture.validate()?;
        // Every layer of width w stores at least w values (its bias), so no width can
        // exceed the stored values: checked before the network is built from them.
        let stored: usize = self.weights.0.iter().map(|(_, v)| v.len()).sum();
        let a = &self.architecture;
        let widest = a
            .hidden
            .iter()
            .chain(a.groups.iter().flatten())
            .chain([&a.classes])
            .max()
            .copied()
            .unwrap_or(0);
        ensure(widest <= stored, || {
            format!("a layer of {widest} units, but the model stores {stored} weights")
        })?;
        // Nor can the layers' weight matrices need more values than are stored: the
        // network is allocated from the architecture before the weights are copied in.
        let needed = self.architecture.min_weights();
        ensure(needed.is_some_and(|w| w <= stored), || {
            format!(
                "the architecture needs {} weights, but the model stores {stored}",
                needed.map_or_else(|| "more than can be counted".into(), |w| w.to_string())
            )
        })?;
        self.network().map(|_| ())
    }

    /// The softmax output of each class: `decision_<class>`, one column per class (not
    /// one per class pair).
    fn decision_names(&self, _width: usize) -> Vec<String> {
        self.classes
            .iter()
            .map(|c| format!("decision_{c}"))
            .collect()
    }

    fn predict_from_decision(&self, dec: &[f64]) -> f64 {
        self.classes[crate::nn::argmax(dec)]
    }

    fn probabilities_from_decision(&self, dec: &[f64]) -> Result<Vec<f64>> {
        Ok(dec.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::synthetic::gaussian_blobs;
    use crate::data::Dataset;
    use crate::kernel::Kernel;

    fn blobs(seed: u64) -> Dataset {
        let means = vec![
            vec![0.0, 0.0, 0.0],
            vec![4.0, 0.0, 0.0],
            vec![0.0, 4.0, 0.0],
        ];
        gaussian_blobs(&means, 40, 0.7, seed).unwrap()
    }

    /// Small networks so that the test stays fast; the paper's sizes are the defaults.
    fn small(multi: bool) -> DkmoParams {
        let mut p = DkmoParams {
            multi,
            hidden: vec![16, 8],
            landmarks: 10,
            embeddings: 3,
            ..DkmoParams::default()
        };
        p.train.max_epochs = 40;
        p.train.patience = 40;
        p.train.batch_size = 16;
        p.train.validation_fraction = 0.0;
        p.train.learning_rate = 0.01;
        p
    }

    #[test]
    fn dkmo_separates_blobs_reproducibly_and_survives_a_model_file() {
        let (train, test) = (blobs(1), blobs(2));
        let fit = DkmoModel::fit(&small(false), &train.x, &train.y, 5, &|| {}).unwrap();
        let model = fit.model;
        let pred = model.predict(&test.x).unwrap();
        let acc = crate::metrics::accuracy(&test.y, &pred).unwrap();
        assert!(acc > 0.9, "accuracy {acc}");
        let again = DkmoModel::fit(&small(false), &train.x, &train.y, 5, &|| {})
            .unwrap()
            .model;
        assert_eq!(again.weights, model.weights, "same seed, same network");
        let text = serde_json::to_string(&model).unwrap();
        let back: DkmoModel = serde_json::from_str(&text).unwrap();
        back.validate().unwrap();
        assert_eq!(back.predict(&test.x).unwrap(), pred);
        assert_eq!(fit.trace.rows.len(), 40);
    }

    /// The default refit: early stopping on the validation split chooses the epochs,
    /// then the kept network is the one trained from the same seed on all rows for that
    /// many epochs, weight for weight; without the refit the network of the best
    /// validation epoch on the other rows is kept.
    #[test]
    fn refit_trains_again_on_all_rows_for_the_chosen_epochs() {
        let train = blobs(6);
        let n = train.y.len();
        let mut p = small(false);
        p.train.validation_fraction = 0.25;
        p.train.patience = 5;
        assert!(p.refit, "the refit is the default");
        let fit = DkmoModel::fit(&p, &train.x, &train.y, 3, &|| {}).unwrap();
        let info = &fit.model.info;
        assert!(info.refit);
        assert_eq!(info.train_rows, n, "the refit learns from every row");
        assert_eq!(info.epochs, info.best_epoch, "as many epochs as chosen");
        assert!(info.val_accuracy.is_some());
        let refit_rows = fit.trace.rows.iter().filter(|r| r[5] == 1.0).count();
        assert_eq!(refit_rows, info.best_epoch);
        // The same network as a run on all rows for the chosen epochs.
        let mut direct = p.clone();
        direct.train.validation_fraction = 0.0;
        direct.train.max_epochs = info.best_epoch;
        let again = DkmoModel::fit(&direct, &train.x, &train.y, 3, &|| {}).unwrap();
        assert_eq!(again.model.weights, fit.model.weights);
        // Without the refit: the best validation epoch, on the rows outside the split.
        p.refit = false;
        let kept = DkmoModel::fit(&p, &train.x, &train.y, 3, &|| {})
            .unwrap()
            .model;
        assert!(!kept.info.refit);
        assert_eq!(
            kept.info.best_epoch, info.best_epoch,
            "same choice of epochs"
        );
        assert!(kept.info.train_rows < n, "{} rows", kept.info.train_rows);
        assert_ne!(kept.weights, fit.model.weights);
    }

    /// M-DKMO refits every stage: each kernel's pre-training for the epochs it kept,
    /// then the fine-tuning, on all rows.
    #[test]
    fn m_dkmo_refits_pretraining_and_fine_tuning() {
        let train = blobs(7);
        let n = train.y.len();
        let mut p = small(true);
        p.kernels = Some(vec![
            KernelOnFeatures::all(Kernel::Rbf { gamma: 0.1 }),
            KernelOnFeatures::all(Kernel::Rbf { gamma: 1.0 }),
        ]);
        p.train.validation_fraction = 0.25;
        p.train.patience = 3;
        p.train.max_epochs = 12;
        let fit = DkmoModel::fit(&p, &train.x, &train.y, 2, &|| {}).unwrap();
        let info = &fit.model.info;
        assert!(info.refit);
        assert_eq!(info.train_rows, n);
        let refit: Vec<&Vec<f64>> = fit.trace.rows.iter().filter(|r| r[5] == 1.0).collect();
        for (m, &e) in info.pretrain_epochs.iter().enumerate() {
            let rows = refit.iter().filter(|r| r[0] == m as f64).count();
            assert_eq!(rows, e, "pre-training of kernel {m}");
            assert!(refit
                .iter()
                .filter(|r| r[0] == m as f64)
                .all(|r| r[3].is_nan()));
        }
        assert_eq!(
            refit.iter().filter(|r| r[0] == 2.0).count(),
            info.best_epoch
        );
    }

    /// Two kernels given only as values (a Gram set), cosine-normalised, pre-trained and
    /// fused; test rows of the wrong width are refused.
    #[test]
    fn m_dkmo_fits_precomputed_kernels() {
        let (train, test) = (blobs(3), blobs(4));
        let kernels = [
            Kernel::Rbf { gamma: 0.1 },
            Kernel::Polynomial {
                degree: 2,
                gamma: 0.2,
                coef0: 1.0,
            },
        ];
        let stack = |a: &Features| {
            let blocks: Vec<Features> = kernels
                .iter()
                .map(|k| to_features(&k.cross(a, &train.x).unwrap()).unwrap())
                .collect();
            side_by_side(&blocks).unwrap()
        };
        let mut p = small(true);
        p.precomputed = true;
        let model = DkmoModel::fit(&p, &stack(&train.x), &train.y, 1, &|| {})
            .unwrap()
            .model;
        assert_eq!(model.info.pretrain_epochs, vec![40, 40]);
        let acc =
            crate::metrics::accuracy(&test.y, &model.predict(&stack(&test.x)).unwrap()).unwrap();
        assert!(acc > 0.9, "accuracy {acc}");
        let narrow = Features::new(2, 5, vec![0.5; 10]).unwrap();
        let e = model.predict(&narrow).unwrap_err().to_string();
        assert!(e.contains("wrong width"), "{e}");
        let fused = model.fused_representation(&stack(&test.x)).unwrap();
        assert_eq!(fused.n_cols(), 8);
    }

    #[test]
    fn kernel_checks_run_on_precomputed_training_data() {
        let train = blobs(5);
        let mut p = small(false);
        p.precomputed = true;
        let mut k = to_features(&Kernel::Rbf { gamma: 0.1 }.gram(&train.x).unwrap()).unwrap();
        k.row_mut(0)[1] += 0.5;
        let e = DkmoModel::fit(&p, &k, &train.y, 1, &|| {})
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("not symmetric"), "{e}");
    }
}
