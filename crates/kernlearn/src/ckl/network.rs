//! CKL's network (thesis §5.3): a cosine layer `h₀(x) = √2 cos(xW + b)` initialised as
//! a Fourier embedding, then a softmax layer `o`; `W`, `b` and `o` are trained together
//! by [`crate::nn::train`].

use super::features::FourierFeatures;
use crate::data::Features;
use crate::nn::{self, CandleResult, Dense, Network};
use crate::Result;
use candle_core::{Tensor, Var};
use candle_nn::VarMap;
use rand_chacha::ChaCha8Rng;

/// The cosine layer and the softmax layer; `omega` is `d × D` (one frequency per column).
pub(crate) struct CosineNetwork {
    vars: VarMap,
    omega: Var,
    phase: Var,
    pub(crate) out: Dense,
    norm_cap: Option<f64>,
}

impl CosineNetwork {
    /// The network whose first layer is `init` (trained from there) and whose softmax
    /// layer has `classes` outputs, `W_o ~ U[−0.1, 0.1]`, `b_o = 0` (Table 5.2).
    /// `norm_cap`: the largest `‖ω_j‖` kept after each step (§5.2.4).
    pub(crate) fn new(
        init: &FourierFeatures,
        classes: usize,
        norm_cap: Option<f64>,
        rng: &mut ChaCha8Rng,
    ) -> Result<Self> {
        let (width, d) = (init.width(), init.omega.n_cols());
        let vars = VarMap::new();
        // Stored transposed (d × D) so that the layer is one matrix product xW.
        let mut omega_t = vec![0.0; d * width];
        for j in 0..width {
            for (i, v) in init.omega.row(j).iter().enumerate() {
                omega_t[i * width + j] = *v;
            }
        }
        let omega = nn::parameter(&vars, "h0.omega", nn::to_f32(&omega_t), &[d, width])?;
        let phase = nn::parameter(&vars, "h0.phase", nn::to_f32(&init.phase), &[1, width])?;
        let out = Dense::new(&vars, "o", width, classes, 0.1, rng)?;
        let net = Self {
            vars,
            omega,
            phase,
            out,
            norm_cap,
        };
        net.after_step().nn()?;
        Ok(net)
    }

    /// The current first layer as a Fourier embedding (f64, `ω_j` as rows).
    pub(crate) fn fourier_features(&self) -> Result<FourierFeatures> {
        let (d, width) = self.omega.as_tensor().dims2().nn()?;
        let t = nn::values_of(&self.omega.as_tensor().t().nn()?.contiguous().nn()?)?;
        Ok(FourierFeatures {
            omega: Features::new(width, d, t)?,
            phase: nn::values_of(self.phase.as_tensor())?,
        })
    }
}

impl Network for CosineNetwork {
    fn vars(&self) -> &VarMap {
        &self.vars
    }

    fn forward(&self, x: &Tensor, _train: bool) -> candle_core::Result<Tensor> {
        let h = x
            .matmul(self.omega.as_tensor())?
            .broadcast_add(self.phase.as_tensor())?
            .cos()?;
        self.out.forward(&(h * std::f64::consts::SQRT_2)?)
    }

    /// Norm capping (§5.2.4): every `ω_j` longer than the cap is scaled back onto it.
    fn after_step(&self) -> candle_core::Result<()> {
        let Some(cap) = self.norm_cap else {
            return Ok(());
        };
        let w = self.omega.as_tensor();
        let shrink = (w.sqr()?.sum_keepdim(0)?.sqrt()? / cap)?.maximum(1.0)?;
        self.omega.set(&w.broadcast_div(&shrink)?)
    }
}
