//! Neural-network training on candle, shared by the families that learn a kernel with a
//! network (CKL, thesis ch. 5; DKMO).
//!
//! - [`Network`]: a model is a [`candle_nn::VarMap`] of trainable parameters and a
//!   forward pass returning logits (one column per class).
//! - [`train`]: rounds of mini-batch steps (an epoch, or [`TrainSettings::round_steps`]
//!   steps when an epoch is longer) with SGD + momentum ([`MomentumSgd`], the thesis's
//!   0.5 → 0.99 ramp) or AdamW, optional weight decay, early stopping on a validation
//!   split with patience (thesis §5.4.1.3: 100 epochs; here rounds), the
//!   best-validation parameters restored at the end, a non-finite loss reported as an
//!   error naming the learning rate, and one [`EpochRecord`] per round (progress and the
//!   `--trace` table).
//! - conversions between [`Features`] / labels and tensors, and seeded initial values
//!   drawn from our ChaCha generator (candle's CPU generator cannot be seeded), so that a
//!   fit is reproducible from its seed.

mod dense;
pub(crate) mod optim;
pub(crate) mod options;
mod train;

pub use dense::{softmax_rows, LayerStack, StackSettings};
pub use optim::{FusedAdamW, MomentumSgd, OptimizerChoice};
pub use train::{
    train, EpochRecord, TrainReport, TrainSettings, TrainingData, DEFAULT_ROUND_STEPS,
};

use crate::data::Features;
use crate::{Error, Result};
use candle_core::{DType, Device, Tensor, Var};
use candle_nn::VarMap;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};

/// A trainable network: its parameters and its forward pass (shared with the thread a
/// round of steps runs on, see [`Network::step_threads`]).
pub trait Network: Sync {
    /// Every trainable parameter (the optimiser updates all of them).
    fn vars(&self) -> &VarMap;
    /// Logits (`n × classes`) of the rows of `x`; `train` is true while training
    /// (dropout and batch statistics on), false for validation and prediction.
    fn forward(&self, x: &Tensor, train: bool) -> candle_core::Result<Tensor>;
    /// Called after every optimiser step: projections of the parameters onto a
    /// constraint set (CKL's per-ω norm cap, thesis §5.2.4). Default: none.
    fn after_step(&self) -> candle_core::Result<()> {
        Ok(())
    }
    /// Threads one optimiser step's matrix products may use, when training is called
    /// from outside rayon's pool (`None`, the default: every thread of the pool). Inside
    /// the pool (a random search or a CV fitting models side by side) the steps always run
    /// where they are called.
    fn step_threads(&self) -> Option<usize> {
        None
    }
}

/// candle's errors as the library's: a failed tensor operation is a numerical failure.
pub(crate) trait CandleResult<T> {
    /// The value, or [`Error::Numerical`] with candle's message.
    fn nn(self) -> Result<T>;
}

impl<T> CandleResult<T> for candle_core::Result<T> {
    fn nn(self) -> Result<T> {
        self.map_err(|e| Error::numerical(format!("neural network (candle): {e}")))
    }
}

/// Index of the largest of `scores` (the first on ties, as numpy's `argmax`, so the
/// library and the Python layer pick the same class); 0 when empty.
pub(crate) fn argmax(scores: &[f64]) -> usize {
    (1..scores.len()).fold(0, |b, c| if scores[c] > scores[b] { c } else { b })
}

/// The device every network runs on (CPU; candle's `cuda` feature is not enabled).
///
/// Before the first tensor exists, element-wise ops are kept on the calling thread
/// (`CANDLE_NUM_THREADS=1`, unless the user set that variable): candle runs them on a
/// spin-waiting barrier pool of its own beside rayon's, and on a busy two-core machine
/// the caller spins on a descheduled worker (a 3-epoch DKMO fit took 739 s instead of
/// 8 s, docs/BENCHMARKS.md "Neural-network threads"). Matrix products still use rayon's
/// threads.
///
/// `RAYON_NUM_THREADS` is pinned to the count rayon's global pool takes by default (the
/// available parallelism, unless the user set the variable): candle asks for it on every
/// matrix product and, without the variable, counts the physical cores by reading
/// `/proc/cpuinfo` each time, a tenth of CKL's training time on a 128-row batch.
pub(crate) fn device() -> Device {
    static ELEMENTWISE_ON_CALLER: std::sync::Once = std::sync::Once::new();
    ELEMENTWISE_ON_CALLER.call_once(|| {
        if std::env::var_os("CANDLE_NUM_THREADS").is_none() {
            std::env::set_var("CANDLE_NUM_THREADS", "1");
        }
        if std::env::var_os("RAYON_NUM_THREADS").is_none() {
            let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
            std::env::set_var("RAYON_NUM_THREADS", threads.to_string());
        }
    });
    Device::Cpu
}

/// `x` as an `n × d` f32 tensor (the networks train in single precision).
pub(crate) fn tensor_of(x: &Features) -> Result<Tensor> {
    let values: Vec<f32> = x.as_slice().iter().map(|&v| v as f32).collect();
    Tensor::from_vec(values, (x.n_rows(), x.n_cols()), &device()).nn()
}

/// A tensor's values as f64, row-major.
pub(crate) fn values_of(t: &Tensor) -> Result<Vec<f64>> {
    t.to_dtype(DType::F64)
        .and_then(|t| t.flatten_all())
        .and_then(|t| t.to_vec1::<f64>())
        .nn()
}

/// Class codes `0..k` of `y` in the order of `classes`; a label not in `classes` is an
/// error.
pub(crate) fn class_codes(y: &[f64], classes: &[f64]) -> Result<Vec<u32>> {
    y.iter()
        .map(|v| {
            classes
                .iter()
                .position(|c| c == v)
                .map(|k| k as u32)
                .ok_or_else(|| Error::data(format!("label {v} is not one of the classes")))
        })
        .collect()
}

/// A trainable parameter of shape `shape` with the given initial values, registered in
/// `vars` under `name`.
pub(crate) fn parameter(
    vars: &VarMap,
    name: &str,
    values: Vec<f32>,
    shape: &[usize],
) -> Result<Var> {
    let var = Var::from_tensor(&Tensor::from_vec(values, shape, &device()).nn()?).nn()?;
    vars.data()
        .lock()
        .map_err(|_| Error::numerical("parameter store poisoned by a panic"))?
        .insert(name.to_string(), var.clone());
    Ok(var)
}

/// `n` draws of `N(0, std²)` from `rng`.
pub(crate) fn normal_values(rng: &mut ChaCha8Rng, n: usize, std: f64) -> Vec<f64> {
    (0..n)
        .map(|_| {
            let z: f64 = StandardNormal.sample(&mut *rng);
            std * z
        })
        .collect()
}

/// `n` draws of `U[lo, hi)` from `rng`.
pub(crate) fn uniform_values(rng: &mut ChaCha8Rng, n: usize, lo: f64, hi: f64) -> Vec<f64> {
    (0..n).map(|_| rng.random_range(lo..hi)).collect()
}

/// f64 values as f32 (tensor initial values).
pub(crate) fn to_f32(v: &[f64]) -> Vec<f32> {
    v.iter().map(|&x| x as f32).collect()
}

/// A dense layer `z ↦ zW + b` (`W`: inputs × outputs): the softmax layer `o` of CKL
/// (thesis §5.3) and the linear model on fixed features.
pub(crate) struct Dense {
    pub(crate) w: Var,
    pub(crate) b: Var,
}

impl Dense {
    /// A layer registered in `vars` as `NAME.w` / `NAME.b`, with weights drawn from
    /// `U[−init, init]` and zero biases (thesis Table 5.2: `W_o ~ U[−0.1, 0.1]`,
    /// `b_o = 0`).
    pub(crate) fn new(
        vars: &VarMap,
        name: &str,
        inputs: usize,
        outputs: usize,
        init: f64,
        rng: &mut ChaCha8Rng,
    ) -> Result<Self> {
        let w = uniform_values(rng, inputs * outputs, -init, init);
        Ok(Self {
            w: parameter(vars, &format!("{name}.w"), to_f32(&w), &[inputs, outputs])?,
            b: parameter(
                vars,
                &format!("{name}.b"),
                vec![0.0; outputs],
                &[1, outputs],
            )?,
        })
    }

    /// `zW + b`.
    pub(crate) fn forward(&self, z: &Tensor) -> candle_core::Result<Tensor> {
        z.matmul(self.w.as_tensor())?
            .broadcast_add(self.b.as_tensor())
    }

    /// Weights (row-major, inputs × outputs) and biases as f64.
    pub(crate) fn values(&self) -> Result<(Vec<f64>, Vec<f64>)> {
        Ok((
            values_of(self.w.as_tensor())?,
            values_of(self.b.as_tensor())?,
        ))
    }
}

/// Multinomial logistic regression on given features: one [`Dense`] layer.
pub(crate) struct SoftmaxRegression {
    vars: VarMap,
    pub(crate) layer: Dense,
}

impl SoftmaxRegression {
    /// `inputs` features, `classes` outputs, seeded initial weights.
    pub(crate) fn new(inputs: usize, classes: usize, rng: &mut ChaCha8Rng) -> Result<Self> {
        let vars = VarMap::new();
        let layer = Dense::new(&vars, "out", inputs, classes, 0.1, rng)?;
        Ok(Self { vars, layer })
    }
}

impl Network for SoftmaxRegression {
    fn vars(&self) -> &VarMap {
        &self.vars
    }
    fn forward(&self, x: &Tensor, _train: bool) -> candle_core::Result<Tensor> {
        self.layer.forward(x)
    }
}

#[cfg(test)]
mod tests;
