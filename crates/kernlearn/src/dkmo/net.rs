//! The DKMO and M-DKMO networks (§III-B, §III-C, §IV) on candle.
//!
//! - A *branch* per dense embedding: fully connected layers (paper: 256-512-256-128),
//!   each followed by batch normalisation, ReLU and dropout 0.5 ([`crate::nn::LayerStack`]).
//! - A *fusion layer* over the branches' outputs: sum (paper's choice) or concatenation,
//!   with *kernel dropout* in training (each branch's whole output dropped with
//!   probability 0.5, at least one kept; the kept ones scaled by `P / kept` so that
//!   evaluation, which keeps all, sees the same magnitude).
//! - DKMO: one group of branches (one kernel) → fusion → softmax layer.
//! - M-DKMO: one group per kernel, each fused locally, then a *global* fusion layer with
//!   kernel dropout over the kernels → softmax layer; groups are initialised from the
//!   per-kernel DKMO pre-training (their softmax layers dropped).
//!
//! The input of a network is every embedding of every kernel side by side (one row per
//! sample); `widths` says how many columns each branch reads.

use crate::nn::{CandleResult, LayerStack, Network, StackSettings};
use crate::{Error, Result};
use candle_core::{Tensor, D};
use candle_nn::VarMap;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::sync::Mutex;

/// How a fusion layer merges its inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fusion {
    /// Element-wise sum (the paper's experiments).
    Sum,
    /// Concatenation.
    Concat,
}

/// Names of [`Fusion`] for the option table.
pub const FUSION_NAMES: [&str; 2] = ["sum", "concat"];

impl std::str::FromStr for Fusion {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "sum" => Ok(Fusion::Sum),
            "concat" => Ok(Fusion::Concat),
            _ => Err(Error::param(
                "dkmo-fusion",
                format!("unknown fusion `{s}`; expected sum or concat"),
            )),
        }
    }
}

/// The shape of a DKMO / M-DKMO network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Architecture {
    /// Input columns of every branch, grouped by kernel (`groups[m][p]`).
    pub groups: Vec<Vec<usize>>,
    /// Hidden layer sizes of every branch (paper: 256, 512, 256, 128).
    pub hidden: Vec<usize>,
    /// Dropout rate after every hidden layer (paper: 0.5).
    pub dropout: f64,
    /// Kernel dropout rate of the fusion layers (paper: 0.5; 0 = off).
    pub kernel_dropout: f64,
    /// Merge of the branches of one kernel.
    pub fusion: Fusion,
    /// Number of classes.
    pub classes: usize,
}

impl Architecture {
    /// Checks the shape read from a model file before any network is built from it: at
    /// least one hidden layer, no layer of width 0, at least one kernel and one branch
    /// per kernel, at least two classes, dropout rates in `[0, 1)`.
    pub(crate) fn validate(&self) -> Result<()> {
        let fail = |why: &str| Err(Error::data(format!("architecture: {why}")));
        if self.hidden.is_empty() {
            return fail("`hidden` is empty; a branch needs at least one hidden layer");
        }
        if self.hidden.contains(&0) || self.groups.iter().flatten().any(|&w| w == 0) {
            return fail("a layer of width 0");
        }
        if self.groups.is_empty() || self.groups.iter().any(Vec::is_empty) {
            return fail("`groups` needs at least one kernel, each with at least one branch");
        }
        if self.classes < 2 {
            return fail("`classes` must be at least 2");
        }
        if !(0.0..1.0).contains(&self.dropout) || !(0.0..1.0).contains(&self.kernel_dropout) {
            return fail("a dropout rate outside [0, 1)");
        }
        Ok(())
    }

    /// The weights of every linear layer (`in · out`), counted with checked arithmetic:
    /// a lower bound on what a model file must store; `None` past `usize::MAX`.
    pub(crate) fn min_weights(&self) -> Option<usize> {
        let mut total = 0usize;
        for group in &self.groups {
            for &w in group {
                let mut prev = w;
                for &h in &self.hidden {
                    total = total.checked_add(prev.checked_mul(h)?)?;
                    prev = h;
                }
            }
        }
        let last = *self.hidden.last()?;
        let mut fused = 0usize;
        for group in &self.groups {
            let per = match self.fusion {
                Fusion::Sum => last,
                Fusion::Concat => last.checked_mul(group.len())?,
            };
            fused = match self.fusion {
                Fusion::Sum => per,
                Fusion::Concat => fused.checked_add(per)?,
            };
        }
        total.checked_add(fused.checked_mul(self.classes)?)
    }

    /// Width of a branch's output.
    fn branch_out(&self) -> usize {
        *self
            .hidden
            .last()
            .expect("hidden sizes are checked non-empty")
    }

    /// Width of one kernel's fused representation.
    pub(crate) fn group_out(&self, m: usize) -> usize {
        match self.fusion {
            Fusion::Sum => self.branch_out(),
            Fusion::Concat => self.branch_out() * self.groups[m].len(),
        }
    }

    /// Width of the representation the softmax layer reads.
    pub(crate) fn fused_out(&self) -> usize {
        let per: Vec<usize> = (0..self.groups.len()).map(|m| self.group_out(m)).collect();
        if self.groups.len() == 1 {
            return per[0];
        }
        match self.fusion {
            Fusion::Sum => per[0],
            Fusion::Concat => per.iter().sum(),
        }
    }
}

/// A DKMO (one group) or M-DKMO (several) network.
pub struct DkmoNet {
    arch: Architecture,
    vars: VarMap,
    /// `branches[m][p]`.
    branches: Vec<Vec<LayerStack>>,
    head: LayerStack,
    /// Kernel-dropout draws (seeded: candle's CPU generator cannot be).
    rng: Mutex<ChaCha8Rng>,
}

impl DkmoNet {
    /// A freshly initialised network (seeded), named `prefix.*` in its parameters.
    pub(crate) fn new(arch: &Architecture, seed: u64) -> Result<Self> {
        let vars = VarMap::new();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let settings = StackSettings {
            batch_norm: true,
            dropout: arch.dropout,
            relu: true,
        };
        let branches = arch
            .groups
            .iter()
            .enumerate()
            .map(|(m, widths)| {
                widths
                    .iter()
                    .enumerate()
                    .map(|(p, &w)| {
                        LayerStack::stack(
                            &vars,
                            &format!("k{m}.e{p}"),
                            w,
                            &arch.hidden,
                            settings,
                            &mut rng,
                        )
                    })
                    .collect::<Result<Vec<_>>>()
            })
            .collect::<Result<Vec<_>>>()?;
        let linear = StackSettings {
            batch_norm: false,
            dropout: 0.0,
            relu: false,
        };
        let head = LayerStack::stack(
            &vars,
            "head",
            arch.fused_out(),
            &[arch.classes],
            linear,
            &mut rng,
        )?;
        Ok(Self {
            arch: arch.clone(),
            vars,
            branches,
            head,
            rng: Mutex::new(ChaCha8Rng::seed_from_u64(seed ^ 0x5eed)),
        })
    }

    /// Copies the branch parameters of kernel `m` from a pre-trained single-kernel
    /// network (its softmax layer is not copied: M-DKMO's head is new).
    pub(crate) fn adopt_group(&self, m: usize, single: &DkmoNet) -> Result<()> {
        let theirs = single
            .vars
            .data()
            .lock()
            .map_err(|_| Error::numerical("parameter store poisoned"))?;
        let ours = self
            .vars
            .data()
            .lock()
            .map_err(|_| Error::numerical("parameter store poisoned"))?;
        for (name, var) in theirs.iter() {
            if let Some(rest) = name.strip_prefix("k0.") {
                let target = ours.get(&format!("k{m}.{rest}")).ok_or_else(|| {
                    Error::numerical(format!("no parameter k{m}.{rest} to adopt"))
                })?;
                target.set(var.as_tensor()).nn()?;
            }
        }
        Ok(())
    }

    /// Every parameter's values by name (model files).
    pub(crate) fn weights(&self) -> Result<Vec<(String, Vec<f32>)>> {
        let data = self
            .vars
            .data()
            .lock()
            .map_err(|_| Error::numerical("parameter store poisoned"))?;
        let mut out = data
            .iter()
            .map(|(name, var)| {
                Ok((
                    name.clone(),
                    var.as_tensor()
                        .flatten_all()
                        .and_then(|t| t.to_vec1::<f32>())
                        .nn()?,
                ))
            })
            .collect::<Result<Vec<_>>>()?;
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    /// Sets every parameter from [`DkmoNet::weights`]' output; names and sizes must
    /// match the architecture.
    pub(crate) fn load_weights(&self, weights: &[(String, Vec<f32>)]) -> Result<()> {
        let data = self
            .vars
            .data()
            .lock()
            .map_err(|_| Error::numerical("parameter store poisoned"))?;
        if weights.len() != data.len() {
            return Err(Error::data(format!(
                "network weights: {} tensors stored, the architecture has {}",
                weights.len(),
                data.len()
            )));
        }
        for (name, values) in weights {
            let var = data
                .get(name)
                .ok_or_else(|| Error::data(format!("network weights: unknown tensor `{name}`")))?;
            let shape = var.as_tensor().shape().clone();
            if shape.elem_count() != values.len() || values.iter().any(|v| !v.is_finite()) {
                return Err(Error::data(format!(
                    "network weights: `{name}` has {} values (finite?), its shape {shape:?} needs {}",
                    values.len(),
                    shape.elem_count()
                )));
            }
            var.set(&Tensor::from_vec(values.clone(), shape, &crate::nn::device()).nn()?)
                .nn()?;
        }
        Ok(())
    }

    /// The representation before the softmax layer (the global fusion for M-DKMO).
    pub(crate) fn fused(&self, x: &Tensor, train: bool) -> candle_core::Result<Tensor> {
        let mut offset = 0;
        let mut groups = Vec::with_capacity(self.branches.len());
        for (m, branches) in self.branches.iter().enumerate() {
            let mut outs = Vec::with_capacity(branches.len());
            for (p, branch) in branches.iter().enumerate() {
                let w = self.arch.groups[m][p];
                outs.push(branch.forward(&x.narrow(1, offset, w)?, train)?);
                offset += w;
            }
            groups.push(self.merge(outs, train)?);
        }
        if groups.len() == 1 {
            return Ok(groups.remove(0));
        }
        self.merge(groups, train)
    }

    /// Fusion with kernel dropout (training only).
    fn merge(&self, parts: Vec<Tensor>, train: bool) -> candle_core::Result<Tensor> {
        let keep = if train && self.arch.kernel_dropout > 0.0 && parts.len() > 1 {
            self.kernel_dropout_mask(parts.len())
        } else {
            vec![true; parts.len()]
        };
        let kept = keep.iter().filter(|&&k| k).count();
        let scale = parts.len() as f64 / kept as f64;
        let parts: Vec<Tensor> = parts
            .into_iter()
            .zip(&keep)
            .map(|(t, &k)| {
                if k {
                    t.affine(scale, 0.0)
                } else {
                    t.zeros_like()
                }
            })
            .collect::<candle_core::Result<_>>()?;
        match self.arch.fusion {
            Fusion::Sum => {
                let mut acc = parts[0].clone();
                for t in &parts[1..] {
                    acc = (acc + t)?;
                }
                Ok(acc)
            }
            Fusion::Concat => Tensor::cat(&parts, D::Minus1),
        }
    }

    /// Which of `p` parts survive kernel dropout (Bernoulli, at least one).
    fn kernel_dropout_mask(&self, p: usize) -> Vec<bool> {
        let mut rng = self.rng.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let keep: Vec<bool> = (0..p)
                .map(|_| rng.random::<f64>() >= self.arch.kernel_dropout)
                .collect();
            if keep.iter().any(|&k| k) {
                return keep;
            }
        }
    }
}

impl Network for DkmoNet {
    fn vars(&self) -> &VarMap {
        &self.vars
    }

    fn forward(&self, x: &Tensor, train: bool) -> candle_core::Result<Tensor> {
        let h = self.fused(x, train)?;
        self.head.forward(&h, train)
    }
}
