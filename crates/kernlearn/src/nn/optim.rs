//! The optimisers of [`super::train`]: SGD with momentum (candle has none) and candle's
//! AdamW.

use candle_core::backprop::GradStore;
use candle_core::{Result, Tensor, Var};
use candle_nn::{AdamW, Optimizer, ParamsAdamW};
use serde::{Deserialize, Serialize};

/// Which optimiser trains the network.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum OptimizerChoice {
    /// SGD with momentum rising linearly from 0.5 to 0.99 over the first 10 epochs
    /// (thesis §5.4.1.3); weight decay is added to the gradient (L2).
    Sgd,
    /// AdamW (candle's; β = (0.9, 0.999), ε = 1e-8); weight decay is decoupled.
    Adam,
}

/// Command-line names of [`OptimizerChoice`].
pub(crate) const OPTIMIZER_NAMES: [&str; 2] = ["sgd", "adam"];

impl std::str::FromStr for OptimizerChoice {
    type Err = crate::Error;
    fn from_str(s: &str) -> crate::Result<Self> {
        match s {
            "sgd" => Ok(Self::Sgd),
            "adam" => Ok(Self::Adam),
            other => Err(crate::Error::param(
                "optimizer",
                format!("`{other}` is not one of {}", OPTIMIZER_NAMES.join(", ")),
            )),
        }
    }
}

impl std::fmt::Display for OptimizerChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Sgd => "sgd",
            Self::Adam => "adam",
        })
    }
}

/// Settings of [`MomentumSgd`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MomentumConfig {
    /// Step size.
    pub learning_rate: f64,
    /// Momentum μ of the velocity `v ← μv − ℓ(g + λw)`.
    pub momentum: f64,
    /// L2 weight decay λ.
    pub weight_decay: f64,
}

/// SGD with classical momentum: `v ← μv − ℓ(g + λw)`, `w ← w + v` (the update rule of
/// the thesis's training, §5.4.1.3; gradients come from candle's autodiff).
#[derive(Debug)]
pub struct MomentumSgd {
    vars: Vec<(Var, Tensor)>,
    config: MomentumConfig,
}

impl MomentumSgd {
    /// Changes the momentum (the trainer ramps it per epoch).
    pub fn set_momentum(&mut self, momentum: f64) {
        self.config.momentum = momentum;
    }
}

impl Optimizer for MomentumSgd {
    type Config = MomentumConfig;

    fn new(vars: Vec<Var>, config: MomentumConfig) -> Result<Self> {
        let vars = vars
            .into_iter()
            .filter(|v| v.dtype().is_float())
            .map(|v| {
                let velocity = v.zeros_like()?;
                Ok((v, velocity))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Self { vars, config })
    }

    fn step(&mut self, grads: &GradStore) -> Result<()> {
        let c = self.config;
        for (var, velocity) in self.vars.iter_mut() {
            let Some(g) = grads.get(var) else { continue };
            let g = if c.weight_decay > 0.0 {
                (g + (var.as_tensor() * c.weight_decay)?)?
            } else {
                g.clone()
            };
            *velocity = ((&*velocity * c.momentum)? - (g * c.learning_rate)?)?;
            var.set(&(var.as_tensor() + &*velocity)?)?;
        }
        Ok(())
    }

    fn learning_rate(&self) -> f64 {
        self.config.learning_rate
    }

    fn set_learning_rate(&mut self, lr: f64) {
        self.config.learning_rate = lr;
    }
}

/// The optimiser of one training run.
pub(crate) enum AnyOptimizer {
    Sgd(MomentumSgd),
    Adam(AdamW),
}

/// Momentum of epoch `epoch` (0-based): 0.5 rising linearly to 0.99 at epoch 10.
pub(crate) fn momentum_at(epoch: usize) -> f64 {
    let t = (epoch as f64 / 10.0).min(1.0);
    0.5 + t * (0.99 - 0.5)
}

impl AnyOptimizer {
    /// `choice` over `vars`.
    pub(crate) fn new(
        choice: OptimizerChoice,
        vars: Vec<Var>,
        learning_rate: f64,
        weight_decay: f64,
    ) -> Result<Self> {
        Ok(match choice {
            OptimizerChoice::Sgd => Self::Sgd(MomentumSgd::new(
                vars,
                MomentumConfig {
                    learning_rate,
                    momentum: momentum_at(0),
                    weight_decay,
                },
            )?),
            OptimizerChoice::Adam => Self::Adam(AdamW::new(
                vars,
                ParamsAdamW {
                    lr: learning_rate,
                    weight_decay,
                    ..ParamsAdamW::default()
                },
            )?),
        })
    }

    /// Sets the schedule of epoch `epoch` (SGD's momentum ramp).
    pub(crate) fn start_epoch(&mut self, epoch: usize) {
        if let Self::Sgd(o) = self {
            o.set_momentum(momentum_at(epoch));
        }
    }

    /// One step on the gradients of `loss`.
    pub(crate) fn backward_step(&mut self, loss: &Tensor) -> Result<()> {
        match self {
            Self::Sgd(o) => o.backward_step(loss),
            Self::Adam(o) => o.backward_step(loss),
        }
    }
}
