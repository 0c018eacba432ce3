//! The optimisers of [`super::train`]: SGD with momentum (candle has none) and AdamW
//! (candle's rule), both updating each parameter in place in one fused pass.

use candle_core::backprop::GradStore;
use candle_core::{CpuStorage, InplaceOp2, Layout, Result, Tensor, Var};
use candle_nn::{Optimizer, ParamsAdamW};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;

/// Which optimiser trains the network.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum OptimizerChoice {
    /// SGD with momentum rising linearly from 0.5 to 0.99 over the first 10 epochs
    /// (thesis §5.4.1.3); weight decay is added to the gradient (L2).
    Sgd,
    /// AdamW (candle's rule and defaults: β = (0.9, 0.999), ε = 1e-8); weight decay is
    /// decoupled.
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
/// the thesis's training, §5.4.1.3; gradients come from candle's autodiff). Each
/// parameter is updated in place in one pass (`FusedUpdate`).
#[derive(Debug)]
pub struct MomentumSgd {
    vars: Vec<(Var, Vec<f32>)>,
    config: MomentumConfig,
}

impl MomentumSgd {
    /// Changes the momentum (the trainer ramps it per round).
    pub(crate) fn set_momentum(&mut self, momentum: f64) {
        self.config.momentum = momentum;
    }
}

impl Optimizer for MomentumSgd {
    type Config = MomentumConfig;

    fn new(vars: Vec<Var>, config: MomentumConfig) -> Result<Self> {
        Ok(Self {
            vars: with_state(vars),
            config,
        })
    }

    fn step(&mut self, grads: &GradStore) -> Result<()> {
        let c = self.config;
        let rule = Rule::Momentum {
            momentum: c.momentum as f32,
            learning_rate: c.learning_rate as f32,
            decay: c.weight_decay as f32,
        };
        for (var, velocity) in self.vars.iter_mut() {
            if let Some(g) = grads.get(var) {
                FusedUpdate::apply(rule, var, g, velocity, &mut [])?;
            }
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

/// AdamW (Loshchilov & Hutter 2019), the rule and defaults of candle's `AdamW`
/// (β = (0.9, 0.999), ε = 1e-8, decoupled weight decay `w ← w(1 − ℓλ)`), with each
/// parameter and its two moments updated in place in one pass (`FusedUpdate`): candle's
/// version runs a dozen tensor ops per parameter per step, each allocating, which was a
/// third of DKMO's training time.
#[derive(Debug)]
pub struct FusedAdamW {
    vars: Vec<(Var, Vec<f32>, Vec<f32>)>,
    params: ParamsAdamW,
    step_t: i32,
}

impl Optimizer for FusedAdamW {
    type Config = ParamsAdamW;

    fn new(vars: Vec<Var>, params: ParamsAdamW) -> Result<Self> {
        let vars = with_state(vars)
            .into_iter()
            .map(|(v, m)| {
                let second = m.clone();
                (v, m, second)
            })
            .collect();
        Ok(Self {
            vars,
            params,
            step_t: 0,
        })
    }

    fn step(&mut self, grads: &GradStore) -> Result<()> {
        self.step_t += 1;
        let p = &self.params;
        let rule = Rule::Adam {
            beta1: p.beta1 as f32,
            beta2: p.beta2 as f32,
            scale_m: (1.0 / (1.0 - p.beta1.powi(self.step_t))) as f32,
            scale_v: (1.0 / (1.0 - p.beta2.powi(self.step_t))) as f32,
            shrink: (1.0 - p.lr * p.weight_decay) as f32,
            learning_rate: p.lr as f32,
            eps: p.eps as f32,
        };
        for (var, m, v) in self.vars.iter_mut() {
            if let Some(g) = grads.get(var) {
                FusedUpdate::apply(rule, var, g, m, v)?;
            }
        }
        Ok(())
    }

    fn learning_rate(&self) -> f64 {
        self.params.lr
    }

    fn set_learning_rate(&mut self, lr: f64) {
        self.params.lr = lr;
    }
}

/// The trainable (floating-point) variables, each with a zeroed state vector of its size.
fn with_state(vars: Vec<Var>) -> Vec<(Var, Vec<f32>)> {
    vars.into_iter()
        .filter(|v| v.dtype().is_float())
        .map(|v| {
            let n = v.elem_count();
            (v, vec![0.0; n])
        })
        .collect()
}

/// One optimiser's per-element update rule, constants already in `f32`.
#[derive(Clone, Copy, Debug)]
enum Rule {
    /// `v ← μv − ℓ(g + λw)`, `w ← w + v`.
    Momentum {
        momentum: f32,
        learning_rate: f32,
        decay: f32,
    },
    /// `m ← β₁m + (1 − β₁)g`, `v ← β₂v + (1 − β₂)g²`,
    /// `w ← w(1 − ℓλ) − ℓ m̂ / (√v̂ + ε)` with `m̂ = m·scale_m`, `v̂ = v·scale_v`.
    Adam {
        beta1: f32,
        beta2: f32,
        scale_m: f32,
        scale_v: f32,
        shrink: f32,
        learning_rate: f32,
        eps: f32,
    },
}

/// A parameter update run in place on candle's CPU storage (an [`InplaceOp2`] of the
/// parameter with its gradient): the optimiser state lives in plain vectors beside it.
struct FusedUpdate<'a> {
    rule: Rule,
    state: RefCell<(&'a mut [f32], &'a mut [f32])>,
}

impl<'a> FusedUpdate<'a> {
    /// Updates `var` from its gradient `g` and the state `first` (velocity or first
    /// moment) and `second` (second moment; empty for momentum SGD).
    fn apply(
        rule: Rule,
        var: &Var,
        g: &Tensor,
        first: &'a mut [f32],
        second: &'a mut [f32],
    ) -> Result<()> {
        let op = FusedUpdate {
            rule,
            state: RefCell::new((first, second)),
        };
        var.as_tensor().inplace_op2(&g.contiguous()?, &op)
    }
}

impl InplaceOp2 for FusedUpdate<'_> {
    fn name(&self) -> &'static str {
        "fused-optimizer-step"
    }

    fn cpu_fwd(&self, w: &mut CpuStorage, lw: &Layout, g: &CpuStorage, lg: &Layout) -> Result<()> {
        let (CpuStorage::F32(w), CpuStorage::F32(g)) = (w, g) else {
            candle_core::bail!("the fused optimiser step needs f32 parameters and gradients");
        };
        let (Some((w0, w1)), Some((g0, g1))) = (lw.contiguous_offsets(), lg.contiguous_offsets())
        else {
            candle_core::bail!("the fused optimiser step needs contiguous tensors");
        };
        let (w, g) = (&mut w[w0..w1], &g[g0..g1]);
        let mut state = self.state.borrow_mut();
        let (first, second) = &mut *state;
        if w.len() != g.len() || first.len() != w.len() {
            candle_core::bail!("the fused optimiser step got mismatched sizes");
        }
        match self.rule {
            Rule::Momentum {
                momentum,
                learning_rate,
                decay,
            } => {
                for ((w, &g), v) in w.iter_mut().zip(g).zip(first.iter_mut()) {
                    *v = *v * momentum - (g + *w * decay) * learning_rate;
                    *w += *v;
                }
            }
            Rule::Adam {
                beta1,
                beta2,
                scale_m,
                scale_v,
                shrink,
                learning_rate,
                eps,
            } => {
                if second.len() != w.len() {
                    candle_core::bail!("the fused Adam step got mismatched sizes");
                }
                let moments = first.iter_mut().zip(second.iter_mut());
                for ((w, &g), (m, v)) in w.iter_mut().zip(g).zip(moments) {
                    *m = *m * beta1 + g * (1.0 - beta1);
                    *v = *v * beta2 + g * g * (1.0 - beta2);
                    let step = (*m * scale_m) / ((*v * scale_v).sqrt() + eps);
                    *w = *w * shrink - step * learning_rate;
                }
            }
        }
        Ok(())
    }
}

/// The optimiser of one training run.
pub(crate) enum AnyOptimizer {
    Sgd(MomentumSgd),
    Adam(FusedAdamW),
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
            OptimizerChoice::Adam => Self::Adam(FusedAdamW::new(
                vars,
                ParamsAdamW {
                    lr: learning_rate,
                    weight_decay,
                    ..ParamsAdamW::default()
                },
            )?),
        })
    }

    /// Sets the schedule of round `epoch` (SGD's momentum ramp; a round is an epoch
    /// unless an epoch is longer than [`super::TrainSettings::round_steps`]).
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
