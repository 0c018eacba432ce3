//! A kernel family compiled against a number of features, and its columns.
//!
//! [`BaseKernels`] holds every kernel of the expanded family with its slice of one flat
//! feature list. A column `k_i(x_t, q)` over the points stored feature by feature
//! ([`ByFeature`]) is the kernel's sum over its features (dot product or distance), then
//! its outer map. Kernels with the same feature sum share it, and a kernel `exp(−γ·s)`
//! whose rate is twice another's on the same features is chained to it and computed as
//! its square (the thesis's widths `γ = 2^−k`, Moeller 2017 chapter 3), so that every
//! path — column, diagonal, [`GramTable`] — gives the same bits.

#[cfg(doc)]
use super::GramTable;
use super::{ByFeature, KernelFamily};
use crate::data::Features;
use crate::kernel::{powi, trace_factor, Kernel, KernelOnFeatures};
use crate::{Error, Result};
use rayon::prelude::*;
use std::collections::HashMap;

/// One compiled base kernel: its function and its slice of the feature table.
#[derive(Clone, Debug)]
pub(super) struct Compiled {
    pub(super) kernel: Kernel,
    start: u32,
    pub(super) len: u32,
    /// `k(x, x)` when it is the same for every `x` (distance kernels: `κ(0)`), computed
    /// once as [`BaseKernels::column`] would.
    self_value: Option<f64>,
    /// The kernel whose value squared is this one's: for `exp(−γ·s)` kernels, the one of
    /// rate `γ/2` on the same features (`exp(−γ·s) = exp(−γ/2·s)²`). A chain of doubling
    /// rates (the thesis's widths `γ = 2^−k`) then costs one `exp` and a product per
    /// kernel; each squaring doubles the relative error, so a value `k` links from its
    /// root is within about `2^k` ulp of a direct `exp` (about 10⁻¹³ for the thesis's
    /// chains of 8; beyond `γ·s ≈ 708` it may be subnormal or 0 where [`crate::simd`]'s
    /// `exp` stops at `e^−708`), and every path (table, column, diagonal) computes it
    /// this way.
    parent: Option<u32>,
    /// Kernels with the same id sum the same thing over the same features (a dot product
    /// or a distance): [`BaseKernels::unchained_columns`] computes that sum once for all of them.
    sum_id: u32,
}

/// What a kernel sums over its features before its outer map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum FeatureSum {
    Dot,
    SquaredDistance,
    AbsoluteDistance,
    ChiSquared,
    /// A sum with the kernel's own weights (ARD), shared with no other kernel.
    Own(usize),
}

impl FeatureSum {
    fn of(kernel: &Kernel, index: usize) -> Self {
        match kernel {
            Kernel::Linear | Kernel::Polynomial { .. } | Kernel::Sigmoid { .. } => Self::Dot,
            Kernel::Rbf { .. } => Self::SquaredDistance,
            Kernel::Laplacian { .. } => Self::AbsoluteDistance,
            Kernel::ChiSquared { .. } => Self::ChiSquared,
            Kernel::ArdRbf { .. } | Kernel::Precomputed => Self::Own(index),
        }
    }
}

/// The rate `γ` of a kernel `exp(−γ·s)` of its feature sum `s`.
fn exp_rate(kernel: &Kernel) -> Option<f64> {
    match *kernel {
        Kernel::Rbf { gamma } | Kernel::Laplacian { gamma } | Kernel::ChiSquared { gamma } => {
            Some(gamma).filter(|g| g.is_finite() && *g > 0.0)
        }
        _ => None,
    }
}

/// A kernel family compiled against a number of features.
#[derive(Clone, Debug)]
pub(crate) struct BaseKernels {
    pub(super) kernels: Vec<Compiled>,
    features: Vec<u32>,
    n_features: usize,
    /// The kernels without a parent first, grouped by feature sum, then every chain level
    /// after the one before ([`BaseKernels::unchained_columns`]).
    order: Vec<u32>,
}

impl BaseKernels {
    /// Expands and compiles `family` for data with `n_features` features.
    pub(crate) fn compile(family: &KernelFamily, n_features: usize) -> Result<Self> {
        if n_features > u32::MAX as usize {
            return Err(Error::data("too many features for a kernel family"));
        }
        let mut kernels = Vec::with_capacity(family.len(n_features));
        let mut features: Vec<u32> = Vec::new();
        family.for_each_kernel(n_features, |k| {
            let start = features.len() as u32;
            match &k.features {
                None => features.extend(0..n_features as u32),
                Some(cols) => features.extend(cols.iter().map(|&c| c as u32)),
            }
            kernels.push(Compiled {
                kernel: k.kernel,
                start,
                len: features.len() as u32 - start,
                self_value: None,
                parent: None,
                sum_id: 0,
            });
        })?;
        let order = link(&mut kernels, &features);
        let mut base = Self {
            kernels,
            features,
            n_features,
            order,
        };
        for i in 0..base.len() {
            if FeatureSum::of(&base.kernels[i].kernel, i) != FeatureSum::Dot {
                let mut v = [0.0];
                base.outer(i, &mut v);
                base.kernels[i].self_value = Some(v[0]);
            }
        }
        Ok(base)
    }

    /// Number of base kernels `m`.
    pub(crate) fn len(&self) -> usize {
        self.kernels.len()
    }

    /// Number of features the family was compiled for.
    pub(crate) fn n_features(&self) -> usize {
        self.n_features
    }

    pub(super) fn cols(&self, i: usize) -> &[u32] {
        let c = &self.kernels[i];
        &self.features[c.start as usize..(c.start + c.len) as usize]
    }

    /// Base kernel `i` as a [`KernelOnFeatures`] (for messages and reports).
    pub(crate) fn kernel(&self, i: usize) -> KernelOnFeatures {
        let cols: Vec<usize> = self.cols(i).iter().map(|&c| c as usize).collect();
        let all = cols.len() == self.n_features && cols.iter().enumerate().all(|(k, &c)| k == c);
        KernelOnFeatures::new(
            self.kernels[i].kernel.clone(),
            if all { None } else { Some(cols) },
        )
    }

    /// Fails, naming the first offending kernel, unless every base kernel is positive
    /// semi-definite ([`Kernel::is_positive_semidefinite`]); `method` names who needs it.
    pub(crate) fn require_psd(&self, method: &str) -> Result<()> {
        match self
            .kernels
            .iter()
            .position(|c| !c.kernel.is_positive_semidefinite())
        {
            Some(i) => Err(Error::param(
                "kernels",
                format!(
                    "base kernel {} ({}) is not positive semi-definite; {method} needs PSD kernels",
                    i + 1,
                    self.kernel(i)
                ),
            )),
            None => Ok(()),
        }
    }

    /// The root of kernel `i`'s chain ([`Compiled::parent`]; `i` if it has no parent)
    /// and the number of links from `i` up to it.
    pub(crate) fn chain(&self, i: usize) -> (usize, u32) {
        chain_of(&self.kernels, i)
    }

    /// The kernel whose column squared is kernel `i`'s ([`Compiled::parent`]).
    pub(crate) fn parent(&self, i: usize) -> Option<usize> {
        self.kernels[i].parent.map(|p| p as usize)
    }

    /// Kernel `i`'s outer map applied to its feature sums `out`: its chain root's map,
    /// then one squaring per link of the chain ([`Compiled::parent`]).
    fn outer(&self, i: usize, out: &mut [f64]) {
        let (root, squarings) = self.chain(i);
        apply_outer(&self.kernels[root].kernel, out);
        for _ in 0..squarings {
            out.iter_mut().for_each(|v| *v *= *v);
        }
    }

    /// The columns at `q` of the kernels without a parent ([`GramTable`]'s stored ones):
    /// kernel `i`'s into column `slots[i]` of `block`, bit for bit
    /// [`BaseKernels::column`], each feature sum that several of them share computed
    /// once. `sum` is scratch of length `n`.
    pub(crate) fn unchained_columns(
        &self,
        pts: &ByFeature,
        q: &[f64],
        (block, slots): (&mut [f64], &[u32]),
        sum: &mut [f64],
    ) {
        let n = pts.n;
        let mut summed = None;
        // The order puts them first, grouped by feature sum.
        for &i in self
            .order
            .iter()
            .take_while(|&&i| self.parent(i as usize).is_none())
        {
            let i = i as usize;
            let id = self.kernels[i].sum_id;
            if summed != Some(id) {
                self.feature_sum(i, pts, q, &mut sum[..n], |col, t| col[t]);
                summed = Some(id);
            }
            let at = slots[i] as usize;
            let col = &mut block[at * n..(at + 1) * n];
            col.copy_from_slice(&sum[..n]);
            apply_outer(&self.kernels[i].kernel, col);
        }
    }

    /// `out[t]` = kernel `i`'s sum over its features (dot product or distance) between
    /// `q` and the point selected by `get`.
    #[inline(always)]
    fn feature_sum(
        &self,
        i: usize,
        pts: &ByFeature,
        q: &[f64],
        out: &mut [f64],
        get: impl Fn(&[f64], usize) -> f64,
    ) {
        let m = out.len();
        out.fill(0.0);
        let kernel = &self.kernels[i].kernel;
        let cols = self.cols(i);
        // First the sum over features (dot product or distance), then the outer map.
        match kernel {
            Kernel::Linear | Kernel::Polynomial { .. } | Kernel::Sigmoid { .. } => {
                for &f in cols {
                    let (col, qf) = (pts.feature(f as usize), q[f as usize]);
                    for t in 0..m {
                        out[t] += get(col, t) * qf;
                    }
                }
            }
            Kernel::Rbf { .. } => {
                for &f in cols {
                    let (col, qf) = (pts.feature(f as usize), q[f as usize]);
                    for t in 0..m {
                        let d = get(col, t) - qf;
                        out[t] += d * d;
                    }
                }
            }
            Kernel::Laplacian { .. } => {
                for &f in cols {
                    let (col, qf) = (pts.feature(f as usize), q[f as usize]);
                    for t in 0..m {
                        out[t] += (get(col, t) - qf).abs();
                    }
                }
            }
            Kernel::ChiSquared { .. } => {
                for &f in cols {
                    let (col, qf) = (pts.feature(f as usize), q[f as usize]);
                    for t in 0..m {
                        let (v, s) = (get(col, t), get(col, t) + qf);
                        if s != 0.0 {
                            out[t] += (v - qf) * (v - qf) / s;
                        }
                    }
                }
            }
            Kernel::ArdRbf { gammas } => {
                for (k, &f) in cols.iter().enumerate() {
                    let (col, qf, g) = (pts.feature(f as usize), q[f as usize], gammas[k]);
                    for t in 0..m {
                        let d = get(col, t) - qf;
                        out[t] += g * d * d;
                    }
                }
            }
            Kernel::Precomputed => unreachable!("families reject precomputed kernels"),
        }
    }

    /// Column of base kernel `i` (unnormalised): `out[t] = k_i(p_t, q)` for every point
    /// `p_t` of `pts`; `q` is a full-length sample.
    pub(crate) fn column(&self, i: usize, pts: &ByFeature, q: &[f64], out: &mut [f64]) {
        let n = pts.n;
        let out = &mut out[..n];
        self.feature_sum(i, pts, q, out, |col, t| col[t]);
        self.outer(i, out);
    }

    /// [`BaseKernels::column`] restricted to the points `rows`: `out[t] = k_i(p_{rows[t]}, q)`.
    pub(crate) fn column_at(
        &self,
        i: usize,
        pts: &ByFeature,
        rows: &[usize],
        q: &[f64],
        out: &mut [f64],
    ) {
        let out = &mut out[..rows.len()];
        self.feature_sum(i, pts, q, out, |col, t| col[rows[t]]);
        self.outer(i, out);
    }

    /// `k_i(x, x)`.
    pub(crate) fn self_value(&self, i: usize, x: &[f64]) -> f64 {
        let c = &self.kernels[i];
        if let Some(v) = c.self_value {
            return v;
        }
        let mut v = [self
            .cols(i)
            .iter()
            .map(|&f| x[f as usize] * x[f as usize])
            .sum()];
        self.outer(i, &mut v);
        v[0]
    }

    /// Trace-normalisation factor of every base kernel on the points `x`
    /// ([`crate::kernel::trace_factor`]: `n / Σ_t k_i(x_t, x_t)`), computed from the
    /// diagonal only, in parallel over kernels. With per-sample weights `w` (positive),
    /// the weighted mean diagonal is made 1: `Σ_t w_t / Σ_t w_t k_i(x_t, x_t)`, so that a
    /// point of weight `k` counts as `k` copies of it.
    pub(crate) fn trace_factors(&self, x: &Features, w: Option<&[f64]>) -> Result<Vec<f64>> {
        let n = x.n_rows();
        let total: f64 = w.map_or(0.0, |w| w.iter().sum());
        (0..self.len())
            .into_par_iter()
            .with_min_len(64)
            .map(|i| {
                let value = |(t, r): (usize, &[f64])| {
                    w.map_or(1.0, |w| w[t]) * self.self_value(i, r)
                };
                let trace: f64 = x.rows().enumerate().map(value).sum();
                let factor = match w {
                    None => trace_factor(trace, n),
                    Some(_) => trace_factor(trace, 1).map(|f| f * total),
                };
                factor.map_err(|_| {
                    Error::data(format!(
                        "base kernel {} ({}) has trace {trace} on the training data and cannot be trace-normalised (a kernel that vanishes on a constant column? use coef0 > 0)",
                        i + 1,
                        self.kernel(i)
                    ))
                })
            })
            .collect()
    }
}

/// Sets each kernel's feature-sum id and chain parent ([`Compiled::parent`]); returns
/// the order of [`BaseKernels::unchained_columns`].
fn link(kernels: &mut [Compiled], features: &[u32]) -> Vec<u32> {
    let mut sums: HashMap<(FeatureSum, &[u32]), u32> = HashMap::new();
    for (i, c) in kernels.iter_mut().enumerate() {
        let cols = &features[c.start as usize..(c.start + c.len) as usize];
        let next = sums.len() as u32;
        c.sum_id = *sums
            .entry((FeatureSum::of(&c.kernel, i), cols))
            .or_insert(next);
    }
    // The first kernel of each (sum, rate): a duplicate kernel is no one's parent.
    let mut by_rate: HashMap<(u32, u64), u32> = HashMap::new();
    for (i, c) in kernels.iter().enumerate() {
        if let Some(g) = exp_rate(&c.kernel) {
            by_rate.entry((c.sum_id, g.to_bits())).or_insert(i as u32);
        }
    }
    for c in kernels.iter_mut() {
        // Only an exact half (not a subnormal rate rounded when halved).
        let half = |g: f64| Some(g / 2.0).filter(|h| h * 2.0 == g);
        c.parent = (exp_rate(&c.kernel).and_then(half))
            .and_then(|h| by_rate.get(&(c.sum_id, h.to_bits())))
            .copied();
    }
    let mut order: Vec<u32> = (0..kernels.len() as u32).collect();
    order.sort_by_key(|&i| {
        (
            chain_of(kernels, i as usize).1,
            kernels[i as usize].sum_id,
            i,
        )
    });
    order
}

/// Kernel `i`'s chain root and its number of links to it ([`BaseKernels::chain`]).
fn chain_of(kernels: &[Compiled], mut i: usize) -> (usize, u32) {
    let mut links = 0;
    while let Some(p) = kernels[i].parent {
        (i, links) = (p as usize, links + 1);
    }
    (i, links)
}

/// The map applied after the feature sum: `κ(s)` with `s` a dot product or distance.
#[inline(always)]
fn apply_outer(kernel: &Kernel, out: &mut [f64]) {
    match *kernel {
        Kernel::Linear | Kernel::Precomputed => {}
        Kernel::Polynomial {
            gamma,
            coef0,
            degree,
        } => out.iter_mut().for_each(|v| {
            let x = gamma * *v + coef0;
            // Constant degrees let the loop vectorise (the same products as `powi`).
            *v = match degree {
                1 => powi(x, 1),
                2 => powi(x, 2),
                3 => powi(x, 3),
                _ => powi(x, degree),
            }
        }),
        Kernel::Sigmoid { gamma, coef0 } => out
            .iter_mut()
            .for_each(|v| *v = (gamma * *v + coef0).tanh()),
        // The branch-free `exp` of the SVM's kernel rows: it vectorises, libm's does not.
        Kernel::Rbf { gamma } | Kernel::Laplacian { gamma } | Kernel::ChiSquared { gamma } => {
            out.iter_mut().for_each(|v| *v *= -gamma);
            crate::simd::exp_in_place(out);
        }
        Kernel::ArdRbf { .. } => {
            out.iter_mut().for_each(|v| *v = -*v);
            crate::simd::exp_in_place(out);
        }
    }
}
