//! CKL's network (thesis §5.3): a cosine layer `h₀(x) = √2 cos(xW + b)` initialised as
//! a Fourier embedding, then a softmax layer `o`; `W`, `b` and `o` are trained together
//! by [`crate::nn::train`].

use super::features::FourierFeatures;
use crate::data::Features;
use crate::nn::{self, CandleResult, Dense, Network};
use crate::Result;
use candle_core::{CpuStorage, CustomOp2, Layout, Shape, Tensor, Var};
use candle_nn::VarMap;
use rand_chacha::ChaCha8Rng;
use std::f32::consts::SQRT_2;
use std::sync::Mutex;

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

    fn forward(&self, x: &Tensor, train: bool) -> candle_core::Result<Tensor> {
        let pre = x.matmul(self.omega.as_tensor())?;
        let h = if train {
            pre.apply_op2(self.phase.as_tensor(), Cosine::new(true))?
        } else {
            pre.apply_op2_no_bwd(self.phase.as_tensor(), &Cosine::new(false))?
        };
        self.out.forward(&h)
    }

    /// One thread: a step multiplies a 128-row batch by `d × D` and `D × classes`
    /// matrices, too little work to share (on two cores, splitting the products made
    /// CKL's epochs a third slower, the threads waking and sleeping at every product).
    fn step_threads(&self) -> Option<usize> {
        Some(1)
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

/// Elements from which [`Cosine`] splits its rows over rayon's threads when not training
/// (validation blocks); a training batch stays on the calling thread, where waking a
/// second one costs more than it saves on 128 × 256 values.
const PARALLEL_ELEMENTS: usize = 1 << 18;

/// The cosine layer's activation `√2 cos(p + b)` of pre-activations `p = xW` (`n × D`)
/// and phases `b` (`1 × D`) as one fused pass, with its gradient `−√2 sin(p + b) ⊙ g`
/// (for `p`) and that summed over the rows (for `b`). It replaces candle's broadcast add,
/// cosine and scaling (three passes and allocations forward, four backward, the phase
/// gradient by a strided reduction that was a tenth of CKL's training time). In training
/// the sines of the forward pass are kept for the backward one.
pub(super) struct Cosine {
    train: bool,
    sines: Mutex<Option<Vec<f32>>>,
}

impl Cosine {
    /// The activation of a training step (`train`: sines kept for the backward pass) or
    /// of an evaluation.
    pub(super) fn new(train: bool) -> Self {
        Self {
            train,
            sines: Mutex::new(None),
        }
    }

    /// `√2 cos(p + b)` of rows of `b.len()` values, and `sin(p + b)` when training
    /// (empty otherwise).
    fn activate(&self, p: &[f32], b: &[f32]) -> (Vec<f32>, Vec<f32>) {
        let width = b.len().max(1);
        let mut out = vec![0.0f32; p.len()];
        if self.train {
            let mut sines = vec![0.0f32; p.len()];
            let rows = out.chunks_mut(width).zip(sines.chunks_mut(width));
            for ((o, s), pi) in rows.zip(p.chunks(width)) {
                for (((o, s), &v), &bj) in o.iter_mut().zip(s).zip(pi).zip(b) {
                    let (sin, cos) = (v + bj).sin_cos();
                    (*o, *s) = (SQRT_2 * cos, sin);
                }
            }
            return (out, sines);
        }
        let row = |(o, pi): (&mut [f32], &[f32])| {
            for ((o, &v), &bj) in o.iter_mut().zip(pi).zip(b) {
                *o = SQRT_2 * (v + bj).cos();
            }
        };
        if p.len() >= PARALLEL_ELEMENTS {
            use rayon::prelude::*;
            out.par_chunks_mut(width)
                .zip(p.par_chunks(width))
                .for_each(row);
        } else {
            out.chunks_mut(width).zip(p.chunks(width)).for_each(row);
        }
        (out, Vec::new())
    }
}

/// A contiguous f32 tensor's values.
fn contiguous_f32<'a>(s: &'a CpuStorage, l: &Layout) -> candle_core::Result<&'a [f32]> {
    let (CpuStorage::F32(v), Some((a, b))) = (s, l.contiguous_offsets()) else {
        candle_core::bail!("the cosine layer needs contiguous f32 tensors");
    };
    Ok(&v[a..b])
}

impl CustomOp2 for Cosine {
    fn name(&self) -> &'static str {
        "ckl-cosine"
    }

    fn cpu_fwd(
        &self,
        s1: &CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
    ) -> candle_core::Result<(CpuStorage, Shape)> {
        let (p, b) = (contiguous_f32(s1, l1)?, contiguous_f32(s2, l2)?);
        let (_, width) = l1.shape().dims2()?;
        if b.len() != width {
            candle_core::bail!("the cosine layer got {} phases for {width} units", b.len());
        }
        let (out, sines) = self.activate(p, b);
        if self.train {
            *self
                .sines
                .lock()
                .map_err(|_| candle_core::Error::msg("poisoned"))? = Some(sines);
        }
        Ok((CpuStorage::F32(out), l1.shape().clone()))
    }

    fn bwd(
        &self,
        pre: &Tensor,
        phase: &Tensor,
        _res: &Tensor,
        grad: &Tensor,
    ) -> candle_core::Result<(Option<Tensor>, Option<Tensor>)> {
        let (n, width) = pre.dims2()?;
        let kept = self
            .sines
            .lock()
            .map_err(|_| candle_core::Error::msg("poisoned"))?
            .take();
        let sines = match kept {
            Some(s) => s,
            None => {
                let arg = pre.broadcast_add(phase)?.sin()?;
                arg.flatten_all()?.to_vec1::<f32>()?
            }
        };
        let g = grad.flatten_all()?.to_vec1::<f32>()?;
        let mut d_pre = vec![0.0f32; n * width];
        let mut d_phase = vec![0.0f32; width];
        for ((d, s), g) in d_pre
            .chunks_mut(width)
            .zip(sines.chunks(width))
            .zip(g.chunks(width))
        {
            for (((d, &s), &g), acc) in d.iter_mut().zip(s).zip(g).zip(&mut d_phase) {
                *d = -SQRT_2 * s * g;
                *acc += *d;
            }
        }
        let device = pre.device();
        Ok((
            Some(Tensor::from_vec(d_pre, (n, width), device)?),
            Some(Tensor::from_vec(d_phase, (1, width), device)?),
        ))
    }
}
