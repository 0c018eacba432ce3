//! Fully connected layer stacks with batch normalisation and dropout (the building
//! block of the DKMO networks; any family can use it).
//!
//! Each layer is `Linear → [BatchNorm] → [ReLU] → [Dropout]`, in Keras's conventions
//! (the DKMO paper's implementation): Glorot-uniform weights and zero biases, batch
//! normalisation with momentum 0.99 and ε = 1e-3 whose running statistics are kept as
//! (gradient-free) parameters so that a trainer's best-epoch snapshot restores them too,
//! inverted dropout. Every random draw comes from a seeded ChaCha generator.

use super::{parameter, CandleResult, Dense};
use crate::Result;
use candle_core::{Tensor, Var, D};
use candle_nn::VarMap;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Mutex;

/// Batch-normalisation momentum of the running statistics (Keras's default).
const BN_MOMENTUM: f64 = 0.99;
/// Batch-normalisation ε (Keras's default).
const BN_EPS: f64 = 1e-3;

/// What follows the linear map of every layer of a [`LayerStack`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StackSettings {
    /// Batch normalisation after the linear map.
    pub batch_norm: bool,
    /// Dropout rate after the activation (0 = none).
    pub dropout: f64,
    /// ReLU activation.
    pub relu: bool,
}

/// Batch normalisation of one layer.
struct BatchNorm {
    gamma: Var,
    beta: Var,
    running_mean: Var,
    running_var: Var,
}

/// One layer.
struct Layer {
    linear: Dense,
    norm: Option<BatchNorm>,
}

/// A stack of fully connected layers.
pub struct LayerStack {
    layers: Vec<Layer>,
    settings: StackSettings,
    rng: Mutex<ChaCha8Rng>,
}

impl LayerStack {
    /// Layers of `sizes` on `input` columns, parameters registered in `vars` as
    /// `prefix.l<i>.{w,b,gamma,beta,mean,var}`, initial values drawn from `rng`.
    pub(crate) fn stack(
        vars: &VarMap,
        prefix: &str,
        input: usize,
        sizes: &[usize],
        settings: StackSettings,
        rng: &mut ChaCha8Rng,
    ) -> Result<Self> {
        let mut fan_in = input;
        let mut layers = Vec::with_capacity(sizes.len());
        for (i, &out) in sizes.iter().enumerate() {
            let name = |p: &str| format!("{prefix}.l{i}.{p}");
            let glorot = (6.0 / (fan_in + out) as f64).sqrt();
            let linear = Dense::new(vars, &format!("{prefix}.l{i}"), fan_in, out, glorot, rng)?;
            let norm = if settings.batch_norm {
                Some(BatchNorm {
                    gamma: parameter(vars, &name("gamma"), vec![1.0; out], &[out])?,
                    beta: parameter(vars, &name("beta"), vec![0.0; out], &[out])?,
                    running_mean: parameter(vars, &name("mean"), vec![0.0; out], &[out])?,
                    running_var: parameter(vars, &name("var"), vec![1.0; out], &[out])?,
                })
            } else {
                None
            };
            layers.push(Layer { linear, norm });
            fan_in = out;
        }
        Ok(Self {
            layers,
            settings,
            rng: Mutex::new(ChaCha8Rng::seed_from_u64(rng.random())),
        })
    }

    /// The stack on the rows of `x`; `train` turns on batch statistics and dropout.
    pub(crate) fn forward(&self, x: &Tensor, train: bool) -> candle_core::Result<Tensor> {
        let mut h = x.clone();
        for layer in &self.layers {
            h = layer.linear.forward(&h)?;
            if let Some(bn) = &layer.norm {
                h = bn.forward(&h, train)?;
            }
            if self.settings.relu {
                h = h.relu()?;
            }
            if train && self.settings.dropout > 0.0 {
                h = self.dropout(&h)?;
            }
        }
        Ok(h)
    }

    /// Inverted dropout: each value kept with probability `1 − rate`, scaled by its
    /// inverse.
    fn dropout(&self, h: &Tensor) -> candle_core::Result<Tensor> {
        let rate = self.settings.dropout;
        let keep = 1.0 / (1.0 - rate);
        let mut rng = self.rng.lock().unwrap_or_else(|e| e.into_inner());
        let mask: Vec<f32> = (0..h.elem_count())
            .map(|_| {
                if rng.random::<f64>() >= rate {
                    keep as f32
                } else {
                    0.0
                }
            })
            .collect();
        h.mul(&Tensor::from_vec(mask, h.shape(), h.device())?)
    }
}

impl BatchNorm {
    fn forward(&self, h: &Tensor, train: bool) -> candle_core::Result<Tensor> {
        let (mean, var) = if train {
            let mean = h.mean_keepdim(0)?;
            let var = h.broadcast_sub(&mean)?.sqr()?.mean_keepdim(0)?;
            let update = |running: &Var, batch: &Tensor| -> candle_core::Result<()> {
                let next = (running.as_tensor().affine(BN_MOMENTUM, 0.0)?
                    + batch.squeeze(0)?.detach().affine(1.0 - BN_MOMENTUM, 0.0)?)?;
                running.set(&next)
            };
            update(&self.running_mean, &mean)?;
            update(&self.running_var, &var)?;
            (mean, var)
        } else {
            (
                self.running_mean.as_tensor().unsqueeze(0)?,
                self.running_var.as_tensor().unsqueeze(0)?,
            )
        };
        let normalised = h
            .broadcast_sub(&mean)?
            .broadcast_div(&(var + BN_EPS)?.sqrt()?)?;
        normalised
            .broadcast_mul(self.gamma.as_tensor())?
            .broadcast_add(self.beta.as_tensor())
    }
}

/// `x`'s rows as probabilities (softmax over the last dimension).
pub fn softmax_rows(logits: &Tensor) -> Result<Vec<Vec<f64>>> {
    let p = candle_nn::ops::softmax(logits, D::Minus1).nn()?;
    let p = p.to_dtype(candle_core::DType::F64).nn()?;
    p.to_vec2::<f64>().nn()
}
