//! The mini-batch trainer: epochs, early stopping on a validation split, best
//! parameters kept, divergence detection, per-epoch records.

use super::optim::AnyOptimizer;
use super::{tensor_of, CandleResult, Network, OptimizerChoice};
use crate::data::Features;
use crate::trace::Trace;
use crate::{Error, Result};
use candle_core::{DType, Tensor, Var};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// How a network is trained (defaults: the thesis's CKL protocol, §5.4.1.3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TrainSettings {
    /// Optimiser (default SGD with momentum 0.5 → 0.99).
    pub optimizer: OptimizerChoice,
    /// Learning rate ℓ (default 0.01; the thesis searches `LU[1e-5, 0.2]`).
    pub learning_rate: f64,
    /// Weight decay λ ≥ 0 (default 0; §5.2.4's first capacity control).
    pub weight_decay: f64,
    /// Most epochs (default 10,000, the thesis's).
    pub max_epochs: usize,
    /// Stop when the validation loss has not improved for this many epochs (default 100).
    pub patience: usize,
    /// Rows per mini-batch (default 128; the thesis does not state its size).
    pub batch_size: usize,
    /// Fraction of the training rows held out for early stopping, stratified (default
    /// 0.25, the thesis's 75/25; 0 = no validation split, all `max_epochs` run).
    pub validation_fraction: f64,
}

impl Default for TrainSettings {
    fn default() -> Self {
        Self {
            optimizer: OptimizerChoice::Sgd,
            learning_rate: 0.01,
            weight_decay: 0.0,
            max_epochs: 10_000,
            patience: 100,
            batch_size: 128,
            validation_fraction: 0.25,
        }
    }
}

impl TrainSettings {
    /// Checks every setting; errors name the command-line option.
    pub(crate) fn validate(&self) -> Result<()> {
        crate::check::positive_finite("learning-rate", self.learning_rate)?;
        crate::check::non_negative_finite("weight-decay", self.weight_decay)?;
        if self.max_epochs == 0 {
            return Err(Error::param("epochs", "must be at least 1"));
        }
        if self.patience == 0 {
            return Err(Error::param("patience", "must be at least 1 epoch"));
        }
        if self.batch_size == 0 {
            return Err(Error::param("batch-size", "must be at least 1 row"));
        }
        let f = self.validation_fraction;
        if !(0.0..1.0).contains(&f) {
            return Err(Error::param(
                "validation-fraction",
                format!("{f} is outside [0, 1) (0 turns early stopping off)"),
            ));
        }
        Ok(())
    }
}

/// One epoch of training.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochRecord {
    /// Epoch number, from 1.
    pub epoch: usize,
    /// Mean training log loss over the epoch's mini-batches.
    pub train_loss: f64,
    /// Log loss on the validation split after the epoch (NaN without one).
    pub val_loss: f64,
    /// Accuracy on the validation split after the epoch (NaN without one).
    pub val_accuracy: f64,
}

/// What a training run did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainReport {
    /// Epochs run.
    pub epochs: usize,
    /// Epoch whose parameters were kept (the best validation loss; the last without a
    /// validation split).
    pub best_epoch: usize,
    /// Validation loss of the kept parameters (none without a validation split).
    pub best_val_loss: Option<f64>,
    /// Validation accuracy of the kept parameters (none without a validation split).
    pub best_val_accuracy: Option<f64>,
    /// Whether early stopping ended the run before `max_epochs`.
    pub stopped_early: bool,
    /// Columns `epoch, train_loss, val_loss, val_accuracy`, one row per epoch.
    #[serde(skip)]
    pub trace: Trace,
}

/// Rows as a tensor and their class codes `0..k` as a `u32` tensor.
pub(crate) struct LabelledTensors {
    pub(crate) x: Tensor,
    pub(crate) y: Tensor,
    pub(crate) codes: Vec<u32>,
}

impl LabelledTensors {
    pub(crate) fn new(x: &Features, codes: Vec<u32>) -> Result<Self> {
        let y = Tensor::new(codes.as_slice(), &super::device()).nn()?;
        Ok(Self {
            x: tensor_of(x)?,
            y,
            codes,
        })
    }

    fn len(&self) -> usize {
        self.codes.len()
    }
}

/// The stratified `(train, validation)` split of `(x, codes)` (`fraction` of the rows
/// held out, seeded), or everything for training when `fraction` is 0. A validation
/// part with a single class cannot judge a classifier: that is an error naming
/// `validation-fraction`.
pub(crate) fn split_validation(
    x: &Features,
    codes: &[u32],
    fraction: f64,
    seed: u64,
) -> Result<(LabelledTensors, Option<LabelledTensors>)> {
    if fraction == 0.0 {
        return Ok((LabelledTensors::new(x, codes.to_vec())?, None));
    }
    let y: Vec<f64> = codes.iter().map(|&c| c as f64).collect();
    let (train, val) = crate::data::stratified_split(&y, fraction, seed).map_err(|e| {
        Error::param(
            "validation-fraction",
            format!("cannot hold out {fraction} of {} rows: {e}", y.len()),
        )
    })?;
    let classes = |idx: &[usize]| {
        let mut c: Vec<u32> = idx.iter().map(|&i| codes[i]).collect();
        c.sort_unstable();
        c.dedup();
        c.len()
    };
    if classes(&val) < 2 {
        return Err(Error::param(
            "validation-fraction",
            format!(
                "the validation split ({} of {} rows) has a single class; early stopping needs \
                 at least two (use more data, a larger fraction, or 0 to turn it off)",
                val.len(),
                y.len()
            ),
        ));
    }
    let part = |idx: &[usize]| {
        LabelledTensors::new(&x.select_rows(idx), idx.iter().map(|&i| codes[i]).collect())
    };
    Ok((part(&train)?, Some(part(&val)?)))
}

/// Mean log loss and accuracy of `net` on `data` (evaluation mode, no gradients).
fn evaluate(net: &dyn Network, data: &LabelledTensors) -> Result<(f64, f64)> {
    let logits = net.forward(&data.x, false).nn()?.detach();
    let loss = candle_nn::loss::cross_entropy(&logits, &data.y)
        .and_then(|l| l.to_dtype(DType::F64))
        .and_then(|l| l.to_scalar::<f64>())
        .nn()?;
    let predicted: Vec<u32> = logits.argmax(1).and_then(|p| p.to_vec1()).nn()?;
    let hits = predicted
        .iter()
        .zip(&data.codes)
        .filter(|(p, c)| p == c)
        .count();
    Ok((loss, hits as f64 / data.len() as f64))
}

/// A copy of every parameter's current value.
fn snapshot(vars: &[Var]) -> Result<Vec<Tensor>> {
    vars.iter()
        .map(|v| v.as_tensor().copy())
        .collect::<candle_core::Result<_>>()
        .nn()
}

/// Sets every parameter back to a snapshot.
fn restore(vars: &[Var], values: &[Tensor]) -> Result<()> {
    for (v, t) in vars.iter().zip(values) {
        v.set(t).nn()?;
    }
    Ok(())
}

/// The error of a diverged run: the loss is no longer finite.
/// The loss scales with the learning rate, the weight decay and the initial weights
/// (CKL: `«init-variance»`), so the message names the one that is out of proportion
/// when one is, and every suspect otherwise, instead of always blaming the learning rate.
fn diverged(epoch: usize, loss: f64, settings: &TrainSettings) -> Error {
    let (option, blame) = if settings.weight_decay >= 1e3 {
        (
            "weight-decay",
            format!("the weight decay {} is too large", settings.weight_decay),
        )
    } else {
        (
            "learning-rate",
            format!(
                "the learning rate {} ({}) may be too large, or the initial weights (CKL: \
                 «init-variance») or the weight decay {}",
                settings.learning_rate, settings.optimizer, settings.weight_decay
            ),
        )
    };
    Error::param(
        option,
        format!("training diverged in epoch {epoch}: the loss became {loss}; {blame}; try a smaller value"),
    )
}

/// One epoch of mini-batch steps over `data` in a fresh seeded order; the mean loss.
fn run_epoch(
    net: &dyn Network,
    opt: &mut AnyOptimizer,
    data: &LabelledTensors,
    batch_size: usize,
    rng: &mut ChaCha8Rng,
) -> Result<f64> {
    let mut order: Vec<u32> = (0..data.len() as u32).collect();
    order.shuffle(rng);
    let mut total = 0.0;
    for batch in order.chunks(batch_size) {
        let idx = Tensor::new(batch, &super::device()).nn()?;
        let x = data.x.index_select(&idx, 0).nn()?;
        let y = data.y.index_select(&idx, 0).nn()?;
        let loss = net
            .forward(&x, true)
            .and_then(|logits| candle_nn::loss::cross_entropy(&logits, &y))
            .nn()?;
        let value = loss
            .to_dtype(DType::F64)
            .and_then(|l| l.to_scalar::<f64>())
            .nn()?;
        if !value.is_finite() {
            return Ok(value);
        }
        opt.backward_step(&loss).nn()?;
        net.after_step().nn()?;
        total += value * batch.len() as f64;
    }
    Ok(total / data.len() as f64)
}

/// The rows a network trains on and, for early stopping, a held-out validation part.
pub struct TrainingData {
    train: LabelledTensors,
    validation: Option<LabelledTensors>,
}

impl TrainingData {
    /// Rows `x` with labels `y` (each one of `classes`, whose order gives the logits'
    /// columns), `validation_fraction` of them held out by a stratified split seeded by
    /// `seed` (0: none).
    pub(crate) fn new(
        x: &Features,
        y: &[f64],
        classes: &[f64],
        validation_fraction: f64,
        seed: u64,
    ) -> Result<Self> {
        let codes = super::class_codes(y, classes)?;
        let (train, validation) = split_validation(x, &codes, validation_fraction, seed)?;
        Ok(Self { train, validation })
    }

    /// Rows the network learns from (those outside the validation split).
    pub(crate) fn n_train(&self) -> usize {
        self.train.len()
    }
}

/// Trains `net` on `data` with early stopping on its validation part (when it has one):
/// the parameters of the epoch with the lowest validation loss are restored at the end.
/// `seed` orders the mini-batches; `on_epoch` sees every epoch's record. A non-finite
/// loss stops the run with an error naming the learning rate.
pub fn train(
    net: &dyn Network,
    data: &TrainingData,
    settings: &TrainSettings,
    seed: u64,
    on_epoch: &dyn Fn(&EpochRecord),
) -> Result<TrainReport> {
    settings.validate()?;
    let vars = net.vars().all_vars();
    let mut opt = AnyOptimizer::new(
        settings.optimizer,
        vars.clone(),
        settings.learning_rate,
        settings.weight_decay,
    )
    .nn()?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut trace = Trace::new(&["epoch", "train_loss", "val_loss", "val_accuracy"]);
    let mut best: Option<(usize, f64, f64, Vec<Tensor>)> = None;
    let mut epochs = 0;
    for epoch in 1..=settings.max_epochs {
        if epoch > 1 && crate::cancel::requested() {
            break;
        }
        opt.start_epoch(epoch - 1);
        let train_loss = run_epoch(net, &mut opt, &data.train, settings.batch_size, &mut rng)?;
        if !train_loss.is_finite() {
            return Err(diverged(epoch, train_loss, settings));
        }
        let (val_loss, val_accuracy) = match &data.validation {
            Some(v) => evaluate(net, v)?,
            None => (f64::NAN, f64::NAN),
        };
        if data.validation.is_some() && !val_loss.is_finite() {
            return Err(diverged(epoch, val_loss, settings));
        }
        epochs = epoch;
        let record = EpochRecord {
            epoch,
            train_loss,
            val_loss,
            val_accuracy,
        };
        trace.push(vec![epoch as f64, train_loss, val_loss, val_accuracy]);
        on_epoch(&record);
        if data.validation.is_none() {
            continue;
        }
        if best.as_ref().is_none_or(|b| val_loss < b.1) {
            best = Some((epoch, val_loss, val_accuracy, snapshot(&vars)?));
        } else if epoch - best.as_ref().map_or(0, |b| b.0) >= settings.patience {
            break;
        }
    }
    let (best_epoch, best_val_loss, best_val_accuracy) = match best {
        Some((e, loss, acc, values)) => {
            restore(&vars, &values)?;
            (e, Some(loss), Some(acc))
        }
        None => (epochs, None, None),
    };
    Ok(TrainReport {
        epochs,
        best_epoch,
        best_val_loss,
        best_val_accuracy,
        stopped_early: epochs < settings.max_epochs,
        trace,
    })
}
