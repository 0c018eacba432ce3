//! Base kernels evaluated column by column, never as Gram matrices.
//!
//! Multiple kernel learning touches `m` kernels on `n` points; storing their Gram
//! matrices costs `m·n²` (the reason MWUMKL exists, Moeller 2017 section 3.2). Here the
//! training points are stored feature-major (`d × n`) so that one kernel's column
//! `k_i(x_t, q)` for every point `t` is a few tight loops over contiguous feature
//! columns, and the kernel list is compiled into a flat table (a million kernels cost
//! tens of megabytes). Trace normalisation needs only the diagonal `k_i(x_t, x_t)`
//! ([`crate::kernel::trace_factor`]).

use super::family::KernelFamily;
use crate::data::Features;
use crate::kernel::{fill_row_chunked, powi, trace_factor, Kernel, KernelOnFeatures, KernelSource};
use crate::simd::{add_scaled, add_scaled_product_squared, add_scaled_squared, Squared};
use crate::{Error, Result};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Points stored feature by feature: `feature(f)[t]` is feature `f` of point `t`.
#[derive(Clone, Debug)]
pub(crate) struct ByFeature {
    n: usize,
    values: Vec<f64>,
}

impl ByFeature {
    pub(crate) fn new(x: &Features) -> Self {
        let (n, d) = (x.n_rows(), x.n_cols());
        let mut values = vec![0.0; n * d];
        for (t, row) in x.rows().enumerate() {
            for (f, &v) in row.iter().enumerate() {
                values[f * n + t] = v;
            }
        }
        Self { n, values }
    }

    #[inline]
    fn feature(&self, f: usize) -> &[f64] {
        &self.values[f * self.n..(f + 1) * self.n]
    }
}

/// One compiled base kernel: its function and its slice of the feature table.
#[derive(Clone, Debug)]
struct Compiled {
    kernel: Kernel,
    start: u32,
    len: u32,
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
    kernels: Vec<Compiled>,
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

    fn cols(&self, i: usize) -> &[u32] {
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
    /// diagonal only, in parallel over kernels.
    pub(crate) fn trace_factors(&self, x: &Features) -> Result<Vec<f64>> {
        let n = x.n_rows();
        (0..self.len())
            .into_par_iter()
            .with_min_len(64)
            .map(|i| {
                let trace: f64 = x.rows().map(|r| self.self_value(i, r)).sum();
                trace_factor(trace, n).map_err(|_| {
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

/// A compiled family on a set of points with the trace-normalisation factor of each
/// kernel: the normalised base kernels `K̄_i = f_i K_i` (mean diagonal 1 on the training
/// data) of one fit.
#[derive(Clone, Debug)]
pub(crate) struct KernelBank {
    base: BaseKernels,
    x: Features,
    pts: ByFeature,
    factors: Vec<f64>,
    /// Kernel values read from a [`GramTable`] instead of evaluated: the table and the
    /// table row of each of this bank's points.
    table: Option<(Arc<GramTable>, Vec<usize>)>,
}

impl KernelBank {
    /// The family on training points `x`, normalised on them.
    pub(crate) fn new(family: &KernelFamily, x: &Features) -> Result<Self> {
        Self::new_with(family, x, None)
    }

    /// [`KernelBank::new`] reading kernel values from `table` when it holds this family
    /// on every row of `x` (else evaluating them): the same values, bit for bit.
    pub(crate) fn new_with(
        family: &KernelFamily,
        x: &Features,
        table: Option<&Arc<GramTable>>,
    ) -> Result<Self> {
        let base = BaseKernels::compile(family, x.n_cols())?;
        if let Some(c) = base
            .kernels
            .iter()
            .find(|c| matches!(c.kernel, Kernel::ChiSquared { .. }))
        {
            c.kernel.check_data(x, "training")?;
        }
        let factors = base.trace_factors(x)?;
        Ok(Self::from_parts(base, x.clone(), factors).tabled_by(family, table))
    }

    /// This bank reading kernel values from `table` when it holds `family` (the bank's)
    /// on every one of the bank's points; else unchanged.
    pub(crate) fn tabled_by(
        mut self,
        family: &KernelFamily,
        table: Option<&Arc<GramTable>>,
    ) -> Self {
        self.table = table
            .filter(|t| t.family == *family)
            .and_then(|t| Some((Arc::clone(t), t.rows_of(&self.x)?)));
        self
    }

    /// The family on points `x` (e.g. support vectors) with factors found at training.
    pub(crate) fn with_factors(
        family: &KernelFamily,
        x: &Features,
        factors: Vec<f64>,
    ) -> Result<Self> {
        let base = BaseKernels::compile(family, x.n_cols())?;
        if factors.len() != base.len() {
            return Err(Error::data(format!(
                "{} trace factors for {} base kernels",
                factors.len(),
                base.len()
            )));
        }
        Ok(Self::from_parts(base, x.clone(), factors))
    }

    fn from_parts(base: BaseKernels, x: Features, factors: Vec<f64>) -> Self {
        let pts = ByFeature::new(&x);
        Self {
            base,
            x,
            pts,
            factors,
            table: None,
        }
    }

    /// The compiled kernels.
    pub(crate) fn base(&self) -> &BaseKernels {
        &self.base
    }

    /// Number of points.
    pub(crate) fn n_points(&self) -> usize {
        self.x.n_rows()
    }

    /// Number of base kernels.
    pub(crate) fn n_kernels(&self) -> usize {
        self.base.len()
    }

    /// The points.
    pub(crate) fn points(&self) -> &Features {
        &self.x
    }

    /// Trace-normalisation factor of each kernel.
    pub(crate) fn factors(&self) -> &[f64] {
        &self.factors
    }

    /// Normalised column: `out[t] = K̄_i(x_t, q)` for every point `t`.
    pub(crate) fn column(&self, i: usize, q: &[f64], out: &mut [f64]) {
        self.query_column(i, q, None, out);
    }

    /// Unnormalised column of the bank's point `p`: `out[t] = k_i(x_t, x_p)`, read from
    /// the [`GramTable`] when the bank has one; multiplied by the factor `f_i` it has the
    /// bits of [`KernelBank::column`].
    pub(crate) fn raw_point_column(&self, i: usize, p: usize, out: &mut [f64]) {
        self.raw_query_column(i, self.x.row(p), self.table_row(p), out);
    }

    /// The [`GramTable`] row of the bank's point `p`, when the bank has a table.
    fn table_row(&self, p: usize) -> Option<usize> {
        self.table.as_ref().map(|(_, rows)| rows[p])
    }

    /// [`KernelBank::column`] at the query `q`, read from the [`GramTable`] when the bank
    /// has one and `q` is its row `table_row` (the same values, bit for bit).
    fn query_column(&self, i: usize, q: &[f64], table_row: Option<usize>, out: &mut [f64]) {
        self.raw_query_column(i, q, table_row, out);
        let f = self.factors[i];
        out[..self.pts.n].iter_mut().for_each(|v| *v *= f);
    }

    /// [`KernelBank::query_column`] before the normalisation factor.
    fn raw_query_column(&self, i: usize, q: &[f64], table_row: Option<usize>, out: &mut [f64]) {
        let n = self.n_points();
        if !table_row.is_some_and(|a| self.tabled(i, a, |rows, t| rows[t], &mut out[..n])) {
            self.base.column(i, &self.pts, q, out);
        }
    }

    /// The table and the table row of each of the bank's points, when the bank reads a
    /// [`GramTable`] in which its points are distinct rows and at least a quarter of
    /// them ([`GramTable::whole_columns_pay`]). A fit can then keep its per-point vectors
    /// on all the table's rows and read every kernel column as a contiguous slice of the
    /// table ([`GramTable::column`]) instead of gathering it: the entries at the bank's
    /// points get the same arithmetic, so the same bits.
    pub(crate) fn table_space(&self) -> Option<(&GramTable, &[usize])> {
        let (table, rows) = self.table_rows()?;
        let mut seen = vec![false; table.n];
        (table.whole_columns_pay(rows.len())
            && rows.iter().all(|&r| !std::mem::replace(&mut seen[r], true)))
        .then_some((table, rows))
    }

    /// The bank's [`GramTable`] and the table row of each of its points.
    fn table_rows(&self) -> Option<(&GramTable, &[usize])> {
        (self.table.as_ref()).map(|(table, rows)| (&**table, &rows[..]))
    }

    /// With a [`GramTable`]: `out[t] = k_i(x_b, x_a)` (unnormalised) for the table's point
    /// `a` and the table rows `b = at(rows, t)`, `rows` being the table row of each of
    /// the bank's points; `false` (and `out` untouched) without a table.
    fn tabled(
        &self,
        i: usize,
        a: usize,
        at: impl Fn(&[usize], usize) -> usize,
        out: &mut [f64],
    ) -> bool {
        self.table_rows()
            .map(|(table, rows)| table.gather(i, a, |t| at(rows, t), out))
            .is_some()
    }

    /// Normalised column of the bank's point `p` at some of its points:
    /// `out[t] = K̄_i(x_{cols[t]}, x_p)`, read from the [`GramTable`] when the bank has
    /// one (the same values as [`KernelBank::column_at`]).
    pub(crate) fn point_column_at(&self, i: usize, p: usize, cols: &[usize], out: &mut [f64]) {
        let out = &mut out[..cols.len()];
        let at = |rows: &[usize], t: usize| rows[cols[t]];
        if !(self.table_row(p)).is_some_and(|a| self.tabled(i, a, at, out)) {
            return self.column_at(i, cols, self.x.row(p), out);
        }
        let f = self.factors[i];
        out.iter_mut().for_each(|v| *v *= f);
    }

    /// This bank reading its kernel values from a [`GramTable`] of its own points, when
    /// that takes at most [`OWN_TABLE_BYTES`]: for fits that read every kernel value many
    /// times (LMKL's and C-LMKL's alternations re-solve the SVM on a changing gated
    /// kernel of fixed base kernels).
    pub(crate) fn with_own_table(self, family: &KernelFamily) -> Result<Self> {
        if GramTable::bytes(family, &self.x) > OWN_TABLE_BYTES {
            return Ok(self);
        }
        let table = Arc::new(GramTable::new(family, &self.x)?);
        Ok(self.tabled_by(family, Some(&table)))
    }

    /// The table row of every row of `x`, when the bank reads a [`GramTable`] that holds
    /// them all.
    pub(crate) fn table_rows_of(&self, x: &Features) -> Option<Vec<usize>> {
        self.table.as_ref().and_then(|(table, _)| table.rows_of(x))
    }

    /// Normalised column at some points: `out[t] = K̄_i(x_{rows[t]}, q)`.
    pub(crate) fn column_at(&self, i: usize, rows: &[usize], q: &[f64], out: &mut [f64]) {
        self.base.column_at(i, &self.pts, rows, q, out);
        let f = self.factors[i];
        out[..rows.len()].iter_mut().for_each(|v| *v *= f);
    }

    /// `K̄_i(x_t, x_t)`.
    pub(crate) fn diag(&self, i: usize, t: usize) -> f64 {
        self.factors[i] * self.base.self_value(i, self.x.row(t))
    }

    /// The combination `Σ_i μ_i K̄_i` as a [`KernelSource`] for the SMO solver (entries
    /// computed on demand; kernels with `μ_i = 0` are skipped).
    pub(crate) fn combined(&self, weights: &[f64]) -> Result<CombinedKernel<'_>> {
        if weights.len() != self.n_kernels() {
            return Err(Error::data(format!(
                "{} kernel weights for {} base kernels",
                weights.len(),
                self.n_kernels()
            )));
        }
        let terms: Vec<(usize, f64)> = weights
            .iter()
            .enumerate()
            .filter(|(_, &w)| w != 0.0)
            .map(|(i, &w)| (i, w * self.factors[i]))
            .collect();
        let diag = (0..self.n_points())
            .into_par_iter()
            .with_min_len(64)
            .map(|t| {
                terms
                    .iter()
                    .map(|&(i, c)| c * self.base.self_value(i, self.x.row(t)))
                    .sum()
            })
            .collect();
        Ok(CombinedKernel {
            bank: self,
            terms,
            diag,
        })
    }

    /// `Σ_t coef_t Σ_i w_i K̄_i(x_t, q)` for every row `q` of `queries`: decision values
    /// of a machine whose support vectors are this bank's points. Parallel over queries.
    /// Kernel values come from the bank's [`GramTable`] when it holds the queries too
    /// (a selection's held-out fold).
    pub(crate) fn expansion(&self, weights: &[f64], coef: &[f64], queries: &Features) -> Vec<f64> {
        let table_rows = self.table_rows_of(queries);
        let n = self.n_points();
        let terms: Vec<(usize, f64)> = weights
            .iter()
            .enumerate()
            .filter(|(_, &w)| w != 0.0)
            .map(|(i, &w)| (i, w))
            .collect();
        let table = self.table_rows().filter(|(t, _)| t.whole_columns_pay(n));
        let width = table.map_or(n, |(t, _)| t.n_points());
        // The combined column `Σ_i w_i K̄_i(·, q)` first (vector adds), then one product
        // with `coef`: a sum over points per kernel would be a chain of dependent adds.
        (0..queries.n_rows())
            .into_par_iter()
            .map_init(
                || (vec![0.0; n], vec![0.0; width]),
                |(col, combined), r| {
                    let q = queries.row(r);
                    let table_row = table_rows.as_ref().map(|rows| rows[r]);
                    combined.fill(0.0);
                    if let (Some(a), Some((table, rows))) = (table_row, table) {
                        // Over every table row, then picked at the support vectors' rows
                        // (the same arithmetic per entry as below).
                        for &(i, w) in &terms {
                            let column = table.column(i, a);
                            add_scaled_product_squared(combined, w, self.factors[i], column);
                        }
                        return rows.iter().zip(coef).map(|(&b, c)| combined[b] * c).sum();
                    }
                    for &(i, w) in &terms {
                        self.query_column(i, q, table_row, col);
                        add_scaled(combined, w, col);
                    }
                    combined.iter().zip(coef).map(|(k, c)| k * c).sum()
                },
            )
            .collect()
    }
}

/// Every base kernel's Gram matrix on one set of points (unnormalised, `f64`), evaluated
/// once so that the many fits of a selection — every candidate C and every fold, each on
/// a subset of these points — read kernel values instead of evaluating them again
/// (issue 19: MWUMKL's selection spent 80 % of its time in `exp`). A bank finds its rows
/// by content ([`KernelBank::new_with`]), so a fold's training part or a class pair needs
/// no index bookkeeping; equal rows have equal kernel values, so any copy serves, and
/// a bank's copies of one row get distinct copies in the table while there are enough
/// (so that a fit with duplicate points still has its own table row for each).
pub(crate) struct GramTable {
    family: KernelFamily,
    n: usize,
    /// Number of base kernels.
    m: usize,
    /// The stored kernels' columns: `values[(a·s + slot_i)·n + b] = k_i(x_b, x_a)` (`s`
    /// stored kernels), bit for bit what [`BaseKernels::column`] computes (so cached and
    /// evaluated values are identical). Point-major: the columns of one point under
    /// every kernel are contiguous, because the fits read them together (MWUMKL's
    /// round, a row of a combined kernel).
    ///
    /// A chained kernel ([`BaseKernels::parent`]: `exp(−2γ·s)`, the square of its
    /// parent's value) is not stored: a read gives its chain root's column and the
    /// number of squarings, which the reading loop applies ([`GramTable::column`]).
    /// The thesis's family then stores 4 of its 12 kernels per feature set, so sonar's
    /// table (60 features) takes 21 MB instead of 63 MB: it is written three times
    /// faster and, read again every MWUMKL round, it stays in a 32 MB cache.
    values: Vec<f64>,
    /// Each kernel's slot in `values`, [`UNSTORED`] for a chained kernel.
    slot: Vec<u32>,
    /// Number of stored kernels.
    stored: usize,
    /// Each kernel's chain root (itself if it has no parent) and depth in the chain.
    root: Vec<u32>,
    depth: Vec<u32>,
    /// The table rows holding each distinct row, in order.
    rows: HashMap<Vec<u64>, Vec<usize>>,
}

impl std::fmt::Debug for GramTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GramTable({} kernels on {} points)", self.m, self.n)
    }
}

/// No slot.
const UNSTORED: u32 = u32::MAX;

impl GramTable {
    /// Bytes the table of `family` on `x` takes (`s·n²` values, `s` stored kernels).
    pub(crate) fn bytes(family: &KernelFamily, x: &Features) -> usize {
        let n = x.n_rows();
        let stored = BaseKernels::compile(family, x.n_cols()).map_or_else(
            |_| family.len(x.n_cols()),
            |b| (0..b.len()).filter(|&i| b.parent(i).is_none()).count(),
        );
        stored
            .saturating_mul(n.saturating_mul(n))
            .saturating_mul(std::mem::size_of::<f64>())
    }

    /// The Gram matrices of `family` on `x`, in parallel over points: each point's
    /// column under every stored kernel.
    pub(crate) fn new(family: &KernelFamily, x: &Features) -> Result<Self> {
        let len = Self::bytes(family, x) / std::mem::size_of::<f64>();
        let values = spare_table()
            .take(len)
            .unwrap_or_else(|| huge_page_zeros(len));
        Self::new_in(family, x, values)
    }

    /// [`GramTable::new`] in `values` (resized to fit; its old entries are all
    /// overwritten, so a reused buffer's values never show).
    fn new_in(family: &KernelFamily, x: &Features, mut values: Vec<f64>) -> Result<Self> {
        let base = BaseKernels::compile(family, x.n_cols())?;
        let pts = ByFeature::new(x);
        let (n, m) = (x.n_rows(), base.len());
        // Only chain roots are stored: the stored kernels' columns of every point (in
        // slot order), each chained kernel read as its root's squared.
        let mut stored = 0;
        let slot: Vec<u32> = (0..m)
            .map(|i| match base.parent(i) {
                None => (stored, stored += 1).0,
                Some(_) => UNSTORED,
            })
            .collect();
        let (root, depth): (Vec<u32>, Vec<u32>) = (0..m)
            .map(|i| {
                let (root, links) = base.chain(i);
                (root as u32, links)
            })
            .unzip();
        let stored = stored as usize;
        values.resize(stored * n * n, 0.0);
        values
            .par_chunks_mut((stored * n).max(1))
            .enumerate()
            .for_each_init(
                || vec![0.0; n],
                |sum, (a, block)| base.unchained_columns(&pts, x.row(a), (block, &slot), sum),
            );
        let mut rows: HashMap<Vec<u64>, Vec<usize>> = HashMap::new();
        x.rows()
            .enumerate()
            .for_each(|(a, r)| rows.entry(row_key(r)).or_default().push(a));
        Ok(Self {
            family: family.clone(),
            n,
            m,
            values,
            slot,
            stored,
            root,
            depth,
            rows,
        })
    }

    /// Number of points (rows) of the table.
    pub(crate) fn n_points(&self) -> usize {
        self.n
    }

    /// Whether a loop over `used` of the table's rows is faster over whole, contiguous
    /// table columns (then picking the rows) than gathering those rows: when they are at
    /// least a quarter of the table (vector loads against one load per row).
    pub(crate) fn whole_columns_pay(&self, used: usize) -> bool {
        4 * used >= self.n
    }

    /// Kernel `i`'s column at the table's point `a` (`k_i(x_b, x_a)` for every table
    /// point `b`): its chain root's stored column and the squarings from it to `i`'s
    /// values (the arithmetic of [`BaseKernels::column`], so the same bits).
    #[inline]
    pub(crate) fn column(&self, i: usize, a: usize) -> Squared<'_> {
        let slot = self.slot[self.root[i] as usize] as usize;
        let start = (a * self.stored + slot) * self.n;
        Squared {
            root: &self.values[start..start + self.n],
            squarings: self.depth[i],
        }
    }

    /// `out[t] = k_i(x_{at(t)}, x_a)` for the table points `at(t)` ([`GramTable::column`]).
    pub(crate) fn gather(&self, i: usize, a: usize, at: impl Fn(usize) -> usize, out: &mut [f64]) {
        self.column(i, a).gather(at, out);
    }

    /// The table row of every row of `x`, or `None` if one is not in the table: equal
    /// rows of `x` take the table's copies of that row in turn (the last again once they
    /// run out).
    fn rows_of(&self, x: &Features) -> Option<Vec<usize>> {
        // Copies taken so far, by the first table row of their row.
        let mut taken: HashMap<usize, usize> = HashMap::new();
        x.rows()
            .map(|r| {
                let copies = &self.rows.get(&row_key(r))?[..];
                let next = taken.entry(copies[0]).or_insert(0);
                let row = copies[(*next).min(copies.len() - 1)];
                *next += 1;
                Some(row)
            })
            .collect()
    }
}

/// `len` zeros for a large table, on transparent huge pages where Linux offers them for
/// the asking (`madvise`; `enabled = madvise`, the common default): with 4 KiB pages, the
/// first writes to sonar's 21 MB table take 5,000 page faults, which cost more than
/// computing its values.
fn huge_page_zeros(len: usize) -> Vec<f64> {
    let values = vec![0.0; len];
    #[cfg(target_os = "linux")]
    {
        const HUGE_PAGE: usize = 2 << 20;
        let start = values.as_ptr() as usize;
        let end = start + std::mem::size_of_val(&values[..]);
        let (lo, hi) = (
            start.next_multiple_of(HUGE_PAGE),
            end / HUGE_PAGE * HUGE_PAGE,
        );
        if hi > lo {
            // SAFETY: advice on whole pages inside `values`'s own allocation.
            // MADV_HUGEPAGE changes how pages are backed, never their contents; a refusal
            // (no huge pages) leaves them as they were, so its result is not needed.
            unsafe {
                libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
            }
        }
    }
    values
}

impl Drop for GramTable {
    fn drop(&mut self) {
        spare_table().keep(std::mem::take(&mut self.values));
    }
}

/// The buffer a dropped [`GramTable`] leaves for the next one while a
/// [`TableBufferReuse`] scope is open: at most one, the largest.
struct SpareTable {
    scopes: usize,
    buffer: Option<Vec<f64>>,
}

impl SpareTable {
    /// The kept buffer (stale contents) for a table of `len` values, if it has room for
    /// them and the table would use at least half of it (a small table — a class pair's,
    /// a localized fit's own — leaves it to the large one that follows).
    fn take(&mut self, len: usize) -> Option<Vec<f64>> {
        self.buffer
            .take_if(|b| b.capacity() >= len && 2 * len >= b.capacity())
    }

    /// Keeps `values` while a scope is open, if it is larger than the buffer kept and at
    /// most [`SPARE_TABLE_BYTES`].
    fn keep(&mut self, values: Vec<f64>) {
        let bytes = values.capacity() * std::mem::size_of::<f64>();
        let larger = (self.buffer.as_ref()).is_none_or(|b| b.capacity() < values.capacity());
        if self.scopes > 0 && larger && bytes <= SPARE_TABLE_BYTES {
            self.buffer = Some(values);
        }
    }
}

static SPARE_TABLE: Mutex<SpareTable> = Mutex::new(SpareTable {
    scopes: 0,
    buffer: None,
});

fn spare_table() -> std::sync::MutexGuard<'static, SpareTable> {
    // The state stays consistent whatever a panicking holder did (two plain fields).
    SPARE_TABLE.lock().unwrap_or_else(|e| e.into_inner())
}

/// While it lives, the buffer of the largest [`GramTable`] dropped (up to
/// [`SPARE_TABLE_BYTES`]) is kept and reused by the next table of a similar size instead
/// of fresh memory, whose pages the kernel must zero on first touch (a sixth of
/// UNIFORM's selection on sonar when its table per split was 63 MB). The buffer is
/// freed when the last scope ends, so nothing is held after the runs that asked for it
/// ([`crate::experiment::Experiment::run`] opens one for its repeats). The scope is
/// process-wide: while one is open, any thread's tables keep and take the buffer.
#[must_use = "the buffer is kept only while the scope lives"]
pub(crate) struct TableBufferReuse(());

impl TableBufferReuse {
    /// Opens a scope (scopes nest and may overlap across threads).
    pub(crate) fn begin() -> Self {
        spare_table().scopes += 1;
        Self(())
    }
}

impl Drop for TableBufferReuse {
    fn drop(&mut self) {
        let mut spare = spare_table();
        spare.scopes -= 1;
        if spare.scopes == 0 {
            spare.buffer = None;
        }
    }
}

/// Largest buffer kept ([`TableBufferReuse`]), in bytes: a kept buffer is held until the
/// next table is built (through the next split's SVM-CV, with the fallback), so it adds
/// to the peak memory of what runs before; 256 MiB bounds what is added (sonar's table
/// is 21 MB).
const SPARE_TABLE_BYTES: usize = 256 << 20;

/// A row's bits, the key of [`GramTable`]'s row lookup.
fn row_key(row: &[f64]) -> Vec<u64> {
    row.iter().map(|v| v.to_bits()).collect()
}

/// Largest [`GramTable`] a single fit builds for itself ([`KernelBank::with_own_table`]):
/// 32 MiB, the three default localized kernels on about 1,200 points. A selection runs
/// one such fit per thread.
const OWN_TABLE_BYTES: usize = 32 << 20;

/// `Σ_i c_i K_i` on the bank's points, computed row by row for the solver.
pub(crate) struct CombinedKernel<'a> {
    bank: &'a KernelBank,
    /// `(kernel, μ_i f_i)` for the kernels with non-zero weight.
    terms: Vec<(usize, f64)>,
    diag: Vec<f64>,
}

/// Work (terms × table rows) of a row summed over a table's rows above which the sum is
/// split over threads.
const PAR_TABLE_WORK: usize = 1 << 18;

/// Work (kernel-feature evaluations) of a row above which it is split over threads.
const PAR_WORK: usize = 32 * 1024;

impl CombinedKernel<'_> {
    /// The row of the table's point `a` over every row of the table: `Σ_k c_k k_k(x_b,
    /// x_a)` for each table point `b`, the terms added in order (so each entry has the
    /// bits of [`CombinedKernel::fill_seq`]'s).
    fn table_row(&self, table: &GramTable, a: usize) -> Vec<f64> {
        let width = table.n_points();
        let mut full = vec![0.0; width];
        let add_terms = |part: &mut [f64], start: usize| {
            for &(k, c) in &self.terms {
                let column = table.column(k, a);
                let root = &column.root[start..start + part.len()];
                add_scaled_squared(part, c, Squared { root, ..column });
            }
        };
        if width * self.terms.len() >= PAR_TABLE_WORK {
            let chunk = 1024;
            (full.par_chunks_mut(chunk).enumerate())
                .for_each(|(c, part)| add_terms(part, c * chunk));
        } else {
            add_terms(&mut full, 0);
        }
        full
    }

    fn fill_seq(
        &self,
        i: usize,
        cols: &[usize],
        out: &mut [f32],
        acc: &mut Vec<f64>,
        tmp: &mut Vec<f64>,
    ) {
        let q = self.bank.x.row(i);
        acc.clear();
        acc.resize(cols.len(), 0.0);
        tmp.resize(cols.len(), 0.0);
        let table_row = self.bank.table_row(i);
        for &(k, c) in &self.terms {
            let at = |rows: &[usize], t: usize| rows[cols[t]];
            if !table_row.is_some_and(|a| self.bank.tabled(k, a, at, tmp)) {
                self.bank.base.column_at(k, &self.bank.pts, cols, q, tmp);
            }
            acc.iter_mut()
                .zip(tmp.iter())
                .for_each(|(a, v)| *a += c * v);
        }
        out.iter_mut()
            .zip(acc.iter())
            .for_each(|(o, a)| *o = *a as f32);
    }
}

impl KernelSource for CombinedKernel<'_> {
    fn len(&self) -> usize {
        self.bank.n_points()
    }

    fn diag(&self, i: usize) -> f64 {
        self.diag[i]
    }

    fn fill_row(&self, i: usize, cols: &[usize], out: &mut [f32]) {
        assert_eq!(
            cols.len(),
            out.len(),
            "fill_row: cols and out differ in length"
        );
        // With the bank's table, a row wanted at enough columns is summed over every row
        // of the table (contiguous columns) and its columns picked from that (duplicate
        // points read their own or a shared copy: equal values).
        let table = (self.bank.table_rows()).filter(|(t, _)| t.whole_columns_pay(cols.len()));
        if let Some((table, rows)) = table {
            let full = self.table_row(table, rows[i]);
            (out.iter_mut().zip(cols)).for_each(|(o, &j)| *o = full[rows[j]] as f32);
            return;
        }
        let per_col: usize = self
            .terms
            .iter()
            .map(|&(k, _)| self.bank.base.kernels[k].len as usize + 1)
            .sum();
        fill_row_chunked(
            cols.len() * per_col >= PAR_WORK,
            64,
            cols,
            out,
            || (Vec::new(), Vec::new()),
            |(acc, tmp), c, o| self.fill_seq(i, c, o, acc, tmp),
        );
    }
}

/// `s·K + r·I` on any source: the kernel of the 2-norm soft margin and of KOMD's
/// `(1 − λ) K + λ I` (EasyMKL).
pub(crate) struct Ridged<'a> {
    pub inner: &'a dyn KernelSource,
    pub scale: f64,
    pub ridge: f64,
}

impl KernelSource for Ridged<'_> {
    fn len(&self) -> usize {
        self.inner.len()
    }

    fn diag(&self, i: usize) -> f64 {
        self.scale * self.inner.diag(i) + self.ridge
    }

    fn fill_row(&self, i: usize, cols: &[usize], out: &mut [f32]) {
        self.inner.fill_row(i, cols, out);
        for (o, &c) in out.iter_mut().zip(cols) {
            *o = (self.scale * *o as f64 + if c == i { self.ridge } else { 0.0 }) as f32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::{normalize_trace, Kernel};

    /// Deterministic points in `[lo, lo + 1)`.
    pub(crate) fn points(n: usize, d: usize, seed: u64, lo: f64) -> Features {
        let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let v = (0..n * d)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                lo + (s >> 11) as f64 / (1u64 << 53) as f64
            })
            .collect();
        Features::new(n, d, v).unwrap()
    }

    #[test]
    fn columns_match_gram_matrices() {
        let x = points(37, 4, 3, 0.0);
        let family: KernelFamily = "family12@each;laplacian(gamma=0.7)@[1,3];chi2(gamma=0.3);ard(gammas=[0.5,2])@[0,2];sigmoid(gamma=0.1,coef0=0.2);linear@random(subsets=3,size=2,seed=4)"
            .parse()
            .unwrap();
        let bank = KernelBank::new(&family, &x).unwrap();
        let list = family.expand(4).unwrap();
        assert_eq!(bank.n_kernels(), list.len());
        let mut col = vec![0.0; 37];
        let rows = [5, 0, 36, 5];
        let mut part = vec![0.0; 4];
        for (i, k) in list.iter().enumerate() {
            assert_eq!(bank.base().kernel(i), *k);
            let mut g = k.gram(&x).unwrap();
            let f = normalize_trace(&mut g).unwrap();
            assert!((f - bank.factors()[i]).abs() < 1e-12 * f, "{k}");
            for q in [0, 17, 36] {
                bank.column(i, x.row(q), &mut col);
                for t in 0..37 {
                    assert!(
                        (col[t] - g[(t, q)]).abs() < 1e-12 * g[(t, q)].abs().max(1.0),
                        "{k}"
                    );
                }
                bank.column_at(i, &rows, x.row(q), &mut part);
                for (s, &t) in rows.iter().enumerate() {
                    assert_eq!(part[s], col[t]);
                }
                assert!((bank.diag(i, q) - g[(q, q)]).abs() < 1e-12 * g[(q, q)].abs().max(1.0));
            }
        }
        let e = bank.base().require_psd("MWUMKL").unwrap_err().to_string();
        assert!(
            e.contains("sigmoid")
                && e.contains("not positive semi-definite")
                && e.contains("MWUMKL"),
            "{e}"
        );
    }

    /// A table built in a reused buffer (longer than it, full of NaN) has the values a
    /// computation of every column gives: no stale entry shows, also where a χ² term is
    /// skipped (a zero feature).
    #[test]
    fn a_reused_table_buffer_shows_no_stale_value() {
        let family: KernelFamily = "family12@each;chi2(gamma=0.3)".parse().unwrap();
        let x = points(41, 3, 8, 0.0);
        let x = Features::new(
            41,
            3,
            (0..123)
                .map(|v| x.row(v / 3)[v % 3] * (v % 3) as f64)
                .collect(),
        )
        .unwrap();
        let base = BaseKernels::compile(&family, 3).unwrap();
        let table = GramTable::new_in(&family, &x, vec![f64::NAN; 50 * 50 * base.len()]).unwrap();
        let pts = ByFeature::new(&x);
        let (mut col, mut got) = (vec![0.0; 41], vec![0.0; 41]);
        for a in 0..41 {
            for i in 0..base.len() {
                base.column(i, &pts, x.row(a), &mut col);
                table.gather(i, a, |t| t, &mut got);
                let same = got.iter().zip(&col);
                assert!(same.into_iter().all(|(t, c)| t.to_bits() == c.to_bits()));
            }
        }
    }

    /// Only the kernels without a parent are stored (4 of the thesis's 12 per feature
    /// set: the 3 polynomials and the widest Gaussian), and a column read from the table
    /// — summed into a vector, or gathered at some rows — has the bits of
    /// [`BaseKernels::column`]; those are within 10⁻¹³ of a direct `exp`.
    #[test]
    fn chained_kernels_are_squared_from_stored_columns_with_the_same_bits() {
        // The thesis's family on each feature and on all, an unchained width, a Laplacian
        // chain beside a Gaussian of half its rate (no link across kernel types), and a
        // chain of 11 widths (more squarings than the loops' constant cases).
        let deep: Vec<String> = (0..11)
            .map(|k| format!("rbf(gamma={})@[1,2]", 0.5f64.powi(k)))
            .collect();
        let spec = format!(
            "family12@each;family12;rbf(gamma=3)@[1];laplacian(gamma=0.5)@[0];laplacian(gamma=0.25)@[0];{}",
            deep.join(";")
        );
        let family: KernelFamily = spec.parse().unwrap();
        let x = points(23, 3, 5, -0.5);
        let base = BaseKernels::compile(&family, 3).unwrap();
        let table = GramTable::new(&family, &x).unwrap();
        let m = base.len();
        assert_eq!(m, 49 + 2 + 11);
        assert_eq!(table.stored, 4 * 4 + 1 + 1 + 1);
        assert_eq!(GramTable::bytes(&family, &x), 19 * 23 * 23 * 8);
        let pts = ByFeature::new(&x);
        let mut col = vec![0.0; 23];
        for a in [0, 9, 22] {
            // Summed into a vector, as the fits read them.
            let mut sum = vec![0.5; 23];
            let mut expected = sum.clone();
            for i in 0..m {
                base.column(i, &pts, x.row(a), &mut col);
                add_scaled_squared(&mut sum, 0.3 + i as f64, table.column(i, a));
                add_scaled(&mut expected, 0.3 + i as f64, &col);
            }
            assert!((0..23).all(|t| sum[t].to_bits() == expected[t].to_bits()));
            let rows = [3, 3, 0, 22];
            let mut part = vec![0.0; 4];
            for i in 0..m {
                base.column(i, &pts, x.row(a), &mut col);
                table.gather(i, a, |t| rows[t], &mut part);
                assert!((0..4).all(|t| part[t].to_bits() == col[rows[t]].to_bits()));
                let (gamma, power) = match base.kernels[i].kernel {
                    Kernel::Rbf { gamma } => (gamma, 2),
                    Kernel::Laplacian { gamma } => (gamma, 1),
                    _ => continue,
                };
                // Each squaring doubles the relative error: about 2^links ulp.
                let tol = 6e-16 * 2f64.powi(base.chain(i).1 as i32);
                for (b, &v) in col.iter().enumerate() {
                    let d: f64 = (base.cols(i).iter())
                        .map(|&f| {
                            (x.row(a)[f as usize] - x.row(b)[f as usize])
                                .abs()
                                .powi(power)
                        })
                        .sum();
                    assert!((v - (-gamma * d).exp()).abs() <= tol * v, "{i}");
                }
            }
            // Values of columns with different squarings, read side by side.
            let (c0, c1) = (table.column(m - 11, a), table.column(m - 2, a));
            let pair = Squared::at_each([(c0, 4), (c1, 17)]);
            assert_eq!(
                pair.map(f64::to_bits),
                [c0.at(4).to_bits(), c1.at(17).to_bits()]
            );
        }
        // The widest width of a chain is its root; γ = 3 has no γ = 1.5 to square, and
        // the Laplacian of rate 0.25 has no Laplacian of rate 0.125 (the Gaussian of that
        // rate on its feature is no parent of it).
        for i in 0..m {
            let widest = if base.cols(i) == [1, 2] {
                1.0 / 1024.0
            } else {
                1.0 / 256.0
            };
            let chained = match base.kernels[i].kernel {
                Kernel::Rbf { gamma } => gamma > widest && gamma != 3.0,
                Kernel::Laplacian { gamma } => gamma == 0.5,
                _ => false,
            };
            assert_eq!(base.parent(i).is_some(), chained, "{i}");
        }
        assert_eq!(base.chain(m - 11), (m - 1, 10));
    }

    /// The spare buffer goes to a table of a similar size (at least half of it), only
    /// the largest is kept, none above [`SPARE_TABLE_BYTES`], and none without a scope.
    #[test]
    fn the_spare_buffer_serves_tables_of_a_similar_size() {
        let mut spare = SpareTable {
            scopes: 0,
            buffer: None,
        };
        spare.keep(vec![0.0; 100]);
        assert!(spare.buffer.is_none());
        spare.scopes = 1;
        spare.keep(vec![0.0; 100]);
        spare.keep(vec![0.0; 60]);
        assert_eq!(spare.buffer.as_ref().map(Vec::capacity), Some(100));
        spare.keep(Vec::with_capacity(SPARE_TABLE_BYTES / 8 + 1));
        assert_eq!(spare.buffer.as_ref().map(Vec::capacity), Some(100));
        assert!(spare.take(101).is_none() && spare.take(49).is_none());
        assert_eq!(spare.take(50).map(|b| b.capacity()), Some(100));
        assert!(spare.buffer.is_none());
    }

    #[test]
    fn combined_source_is_the_weighted_sum() {
        let x = points(300, 3, 5, 0.0);
        let family: KernelFamily = "family12@each;poly(degree=2,gamma=1,coef0=0)"
            .parse()
            .unwrap();
        let bank = KernelBank::new(&family, &x).unwrap();
        let m = bank.n_kernels();
        let weights: Vec<f64> = (0..m)
            .map(|i| if i % 5 == 1 { 0.0 } else { 1.0 + i as f64 })
            .collect();
        let mut sum = faer::Mat::<f64>::zeros(300, 300);
        for (i, k) in family.expand(3).unwrap().iter().enumerate() {
            let mut g = k.gram(&x).unwrap();
            normalize_trace(&mut g).unwrap();
            sum += faer::Scale(weights[i]) * &g;
        }
        let src = bank.combined(&weights).unwrap();
        let cols: Vec<usize> = (0..300).rev().collect();
        let mut out = vec![0f32; 300];
        for i in [0, 150, 299] {
            src.fill_row(i, &cols, &mut out); // long row: split over threads
            for (t, &c) in cols.iter().enumerate() {
                let e = sum[(i, c)];
                assert!((out[t] as f64 - e).abs() < 1e-6 * e.abs().max(1.0));
            }
            assert!((src.diag(i) - sum[(i, i)]).abs() < 1e-10 * sum[(i, i)]);
        }
        let coef: Vec<f64> = (0..300).map(|t| (t as f64 * 0.37).sin()).collect();
        let q = points(4, 3, 9, 0.0);
        let dec = bank.expansion(&weights, &coef, &q);
        for r in 0..4 {
            let mut e = 0.0;
            for (i, k) in family.expand(3).unwrap().iter().enumerate() {
                for t in 0..300 {
                    e += coef[t] * weights[i] * bank.factors()[i] * k.eval(x.row(t), q.row(r));
                }
            }
            assert!((dec[r] - e).abs() < 1e-9 * e.abs().max(1.0));
        }
        assert!(bank.combined(&weights[1..]).is_err());
    }

    #[test]
    fn zero_trace_is_an_error() {
        let x = Features::new(3, 2, vec![0.0, 1.0, 0.0, 2.0, 0.0, 3.0]).unwrap();
        let family: KernelFamily = "linear@each".parse().unwrap();
        let e = KernelBank::new(&family, &x).unwrap_err().to_string();
        assert!(
            e.contains("base kernel 1 (linear@[0])") && e.contains("trace 0"),
            "{e}"
        );
        let ok: KernelFamily = "family12@each".parse().unwrap();
        assert!(KernelBank::new(&ok, &x).is_ok());
        let _ = Kernel::Linear;
    }
}
