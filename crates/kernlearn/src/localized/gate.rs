//! The gated kernel of Moeller 2017, section 4.3.1:
//!
//! `κ_γ(x, x') = Σ_i γ_i(x, x') κ_i(x, x')`,
//!
//! with the trace-normalised base kernels `K̄_i` of [`crate::bank::KernelBank`] as the
//! `κ_i`. Two kinds of gate cover every method of chapter 4:
//!
//! - **separable** (section 4.3.1): `γ_i(x, x') = Σ_{q ∈ i} η_q(x) η_q(x')`, a sum of
//!   products of per-point gate values `η_q` attached to kernel `i`. LMKL and LD-MKL have
//!   one gate per kernel; C-LMKL (section 4.3.2.2) replicates each kernel once per
//!   cluster `r` with `η_{ir}(x) = √β_ir c_r(x)`;
//! - **pairwise normalised** (SWMKL, section 4.3.2.3): `γ_i(x, x') = g_i(x) g_i(x') /
//!   Σ_j g_j(x) g_j(x')`.
//!
//! The gates are stored per point (`n × q` values), never as `n × n × m` gating matrices:
//! [`GatedKernel`] is a [`KernelSource`] that computes each row from base-kernel columns
//! on demand, and [`GatedMachine`] is the fitted expansion on such a kernel.

use crate::bank::{KernelBank, KernelFamily};
use crate::data::Features;
use crate::kernel::{fill_row_chunked, KernelSource};
use crate::{Error, Result};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Per-point gate values: `values[t·q + j] = η_j(x_t)` for `q` gates, each attached to
/// one base kernel (`kernel_of[j]`). Reading one back checks at least one gate and
/// whole rows of finite values ([`GateMatrix::new`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawGateMatrix")]
pub(crate) struct GateMatrix {
    /// Base kernel each gate multiplies.
    pub kernel_of: Vec<usize>,
    /// Row-major `n × q` gate values.
    pub values: Vec<f64>,
}

/// [`GateMatrix`] as stored, before it is checked.
#[derive(Deserialize)]
struct RawGateMatrix {
    kernel_of: Vec<usize>,
    values: Vec<f64>,
}

impl TryFrom<RawGateMatrix> for GateMatrix {
    type Error = String;

    fn try_from(raw: RawGateMatrix) -> std::result::Result<Self, String> {
        GateMatrix::new(raw.kernel_of, raw.values).map_err(crate::validate::message)
    }
}

impl GateMatrix {
    /// Gates with one column per entry of `kernel_of`; fails unless `values` holds a whole
    /// number of finite rows.
    pub(crate) fn new(kernel_of: Vec<usize>, values: Vec<f64>) -> Result<Self> {
        let q = kernel_of.len();
        if q == 0 || !values.len().is_multiple_of(q) {
            return Err(Error::data(format!(
                "gate values: {} numbers do not form rows of {q} gates",
                values.len()
            )));
        }
        if let Some(p) = values.iter().position(|v| !v.is_finite()) {
            return Err(Error::numerical(format!(
                "gate {} of point {} is not finite ({}); the gating function diverged",
                p % q + 1,
                p / q + 1,
                values[p]
            )));
        }
        Ok(Self { kernel_of, values })
    }

    /// One gate per base kernel (`q = m`).
    pub(crate) fn per_kernel(m: usize, values: Vec<f64>) -> Result<Self> {
        Self::new((0..m).collect(), values)
    }

    /// Number of gates `q`.
    pub(crate) fn n_gates(&self) -> usize {
        self.kernel_of.len()
    }

    /// Number of points.
    pub(crate) fn n_points(&self) -> usize {
        self.values.len() / self.n_gates()
    }

    /// Gate values of point `t`.
    pub(crate) fn row(&self, t: usize) -> &[f64] {
        let q = self.n_gates();
        &self.values[t * q..(t + 1) * q]
    }

    /// The gates of the points `rows`, in that order.
    pub(crate) fn select_rows(&self, rows: &[usize]) -> GateMatrix {
        let values = rows.iter().flat_map(|&t| self.row(t)).copied().collect();
        GateMatrix {
            kernel_of: self.kernel_of.clone(),
            values,
        }
    }

    /// Fails unless these gates fit `n` points and `m` base kernels (the "gating
    /// dimension" of a method).
    pub(crate) fn check_shape(&self, n: usize, m: usize, what: &str) -> Result<()> {
        if self.n_points() != n {
            return Err(Error::data(format!(
                "{what}: gates for {} points, {n} points given",
                self.n_points()
            )));
        }
        if let Some(&k) = self.kernel_of.iter().find(|&&k| k >= m) {
            return Err(Error::data(format!(
                "{what}: a gate refers to base kernel {} of {m}",
                k + 1
            )));
        }
        Ok(())
    }
}

/// How gate values combine into `γ_i(x, x')` (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum GateKind {
    /// `γ_i = Σ_{q ∈ i} η_q(x) η_q(x')`.
    Separable,
    /// `γ_i = g_i(x) g_i(x') / Σ_j g_j(x) g_j(x')` (SWMKL; one gate per kernel).
    PairwiseNormalised,
}

impl GateKind {
    /// The name in model files: `separable`, `pairwise_normalised`.
    fn name(self) -> &'static str {
        match self {
            GateKind::Separable => "separable",
            GateKind::PairwiseNormalised => "pairwise_normalised",
        }
    }
}

/// `γ_i(a, b)` for every base kernel `i` from the two points' gate rows (`out` has one
/// entry per base kernel).
fn gate_products(kind: GateKind, kernel_of: &[usize], a: &[f64], b: &[f64], out: &mut [f64]) {
    out.fill(0.0);
    for ((&k, &ga), &gb) in kernel_of.iter().zip(a).zip(b) {
        out[k] += ga * gb;
    }
    if kind == GateKind::PairwiseNormalised {
        let z: f64 = out.iter().sum();
        // Gates are positive (SWMKL clamps them), so z > 0; guard anyway.
        if z > 0.0 {
            out.iter_mut().for_each(|v| *v /= z);
        }
    }
}

/// The gated kernel on a bank's training points, as the solver reads it.
pub(super) struct GatedKernel<'a> {
    bank: &'a KernelBank,
    gates: &'a GateMatrix,
    kind: GateKind,
    /// Base kernels with at least one gate (others contribute nothing).
    kernels: Vec<usize>,
    diag: Vec<f64>,
}

/// Kernel evaluations in a row above which it is split over threads.
const PAR_WORK: usize = 32 * 1024;

impl<'a> GatedKernel<'a> {
    /// `κ_γ` on `bank`'s points with per-point `gates`. Fails when the gates do not fit
    /// the bank (points, kernels) or a pairwise gate has more than one gate per kernel.
    pub(super) fn new(bank: &'a KernelBank, gates: &'a GateMatrix, kind: GateKind) -> Result<Self> {
        let m = bank.n_kernels();
        gates.check_shape(bank.n_points(), m, "gated kernel")?;
        if kind == GateKind::PairwiseNormalised && gates.n_gates() != m {
            return Err(Error::data(format!(
                "pairwise-normalised gating needs one gate per base kernel: {} gates for {m} kernels",
                gates.n_gates()
            )));
        }
        let mut kernels = gates.kernel_of.clone();
        kernels.sort_unstable();
        kernels.dedup();
        let mut me = Self {
            bank,
            gates,
            kind,
            kernels,
            diag: Vec::new(),
        };
        me.diag = (0..bank.n_points())
            .into_par_iter()
            .with_min_len(64)
            .map_init(
                || vec![0.0; m],
                |gamma, t| {
                    me.gamma(t, t, gamma);
                    me.kernels.iter().map(|&k| gamma[k] * bank.diag(k, t)).sum()
                },
            )
            .collect();
        Ok(me)
    }

    fn gamma(&self, a: usize, b: usize, out: &mut [f64]) {
        gate_products(
            self.kind,
            &self.gates.kernel_of,
            self.gates.row(a),
            self.gates.row(b),
            out,
        );
    }

    fn fill_seq(&self, i: usize, cols: &[usize], out: &mut [f32]) {
        let m = self.bank.n_kernels();
        // gamma[t·m + k] = γ_k(x_i, x_cols[t])
        let mut gamma = vec![0.0; cols.len() * m];
        for (t, &c) in cols.iter().enumerate() {
            self.gamma(i, c, &mut gamma[t * m..(t + 1) * m]);
        }
        let mut acc = vec![0.0; cols.len()];
        let mut col = vec![0.0; cols.len()];
        for &k in &self.kernels {
            self.bank.point_column_at(k, i, cols, &mut col);
            for t in 0..cols.len() {
                acc[t] += gamma[t * m + k] * col[t];
            }
        }
        out.iter_mut().zip(&acc).for_each(|(o, a)| *o = *a as f32);
    }
}

impl KernelSource for GatedKernel<'_> {
    fn len(&self) -> usize {
        self.bank.n_points()
    }

    fn diag(&self, i: usize) -> f64 {
        self.diag[i]
    }

    fn fill_row(&self, i: usize, cols: &[usize], out: &mut [f32]) {
        let work = cols.len() * self.kernels.len() * self.bank.base().n_features().max(1);
        fill_row_chunked(
            work >= PAR_WORK,
            64,
            cols,
            out,
            || (),
            |_, c, o| self.fill_seq(i, c, o),
        );
    }
}

/// A fitted kernel expansion on a gated kernel:
/// `f(x) = Σ_s coef_s κ_γ(sv_s, x) − rho`. The query points' gates come from the
/// method's gating function (LMKL's softmax, C-LMKL's clusters, SWMKL's regressors).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GatedMachine {
    /// The base kernels.
    pub family: KernelFamily,
    /// Trace-normalisation factor of each base kernel on the training data.
    pub trace_factors: Vec<f64>,
    /// Gate combination.
    pub(crate) kind: GateKind,
    /// Support vectors.
    pub support_vectors: Features,
    /// Training row of each support vector.
    #[serde(default)]
    pub sv_indices: Vec<usize>,
    /// Gate values of the support vectors.
    pub(crate) sv_gates: GateMatrix,
    /// Coefficient of each support vector (`y_s α_s`).
    pub coef: Vec<f64>,
    /// Offset.
    pub rho: f64,
}

impl GatedMachine {
    /// Keeps the points with non-zero coefficient of a solve on `GatedKernel(bank, gates)`.
    pub(crate) fn new(
        family: &KernelFamily,
        bank: &KernelBank,
        gates: &GateMatrix,
        kind: GateKind,
        coef: &[f64],
        rho: f64,
    ) -> Self {
        let sv: Vec<usize> = (0..coef.len()).filter(|&t| coef[t] != 0.0).collect();
        Self {
            family: family.clone(),
            trace_factors: bank.factors().to_vec(),
            kind,
            support_vectors: bank.points().select_rows(&sv),
            sv_gates: gates.select_rows(&sv),
            coef: sv.iter().map(|&t| coef[t]).collect(),
            sv_indices: sv,
            rho,
        }
    }

    /// Number of support vectors.
    pub(crate) fn n_support(&self) -> usize {
        self.coef.len()
    }

    /// Checks a machine read back for `n_features` features, trained on `n_train`
    /// points, whose method gates with `kind` and the gates `kernel_of` (the base kernel
    /// of each gate): support vectors with `n_features` columns, a valid family with one
    /// finite trace factor per base kernel, one support-vector row, one finite
    /// coefficient and one row of gates per support vector, training rows (when stored)
    /// below `n_train`, a finite `rho`.
    pub(crate) fn validate(
        &self,
        n_features: usize,
        n_train: usize,
        kind: GateKind,
        kernel_of: &[usize],
    ) -> Result<()> {
        use crate::validate::{ensure, finite, finite_value, indices_below};
        let sv = &self.support_vectors;
        let m = crate::bank::family_machine(
            "support_vectors",
            sv,
            &self.family,
            &self.trace_factors,
            n_features,
        )?;
        ensure(self.kind == kind, || {
            format!(
                "kind is {}, this method's gates are {}",
                self.kind.name(),
                kind.name()
            )
        })?;
        let n_sv = self.coef.len();
        finite("coef", &self.coef)?;
        ensure(sv.n_rows() == n_sv, || {
            format!(
                "support_vectors has {} rows, the machine has {n_sv} support vectors (coef)",
                sv.n_rows()
            )
        })?;
        // Files of release 0.1.0 have no `sv_indices`.
        if !self.sv_indices.is_empty() {
            ensure(self.sv_indices.len() == n_sv, || {
                format!(
                    "sv_indices has {} entries, the machine has {n_sv} support vectors (coef)",
                    self.sv_indices.len()
                )
            })?;
            indices_below(
                "sv_indices",
                &self.sv_indices,
                n_train,
                format_args!("the model has {n_train} training points (n_train)"),
            )?;
        }
        let gates = &self.sv_gates;
        ensure(gates.kernel_of.len() == kernel_of.len(), || {
            format!(
                "sv_gates.kernel_of has {} gates, the method's gating has {}",
                gates.n_gates(),
                kernel_of.len()
            )
        })?;
        if let Some(j) = (0..kernel_of.len()).find(|&j| gates.kernel_of[j] != kernel_of[j]) {
            return Err(Error::data(format!(
                "sv_gates.kernel_of[{j}] = {}, the method's gate {j} is on base kernel {}",
                gates.kernel_of[j], kernel_of[j]
            )));
        }
        indices_below(
            "sv_gates.kernel_of",
            &gates.kernel_of,
            m,
            format_args!("the family has {m} base kernels"),
        )?;
        ensure(gates.n_points() == n_sv, || {
            format!(
                "sv_gates has gates for {} points, the machine has {n_sv} support vectors",
                gates.n_points()
            )
        })?;
        finite_value("rho", self.rho)
    }

    /// `f(x)` for every row of `x`, whose gate values are `gates`.
    pub(crate) fn decision(&self, x: &Features, gates: &GateMatrix) -> Result<Vec<f64>> {
        x.check_input(self.support_vectors.n_cols())?;
        if gates.kernel_of != self.sv_gates.kernel_of {
            return Err(Error::data(format!(
                "gating dimension mismatch: the model has {} gates, {} were given",
                self.sv_gates.n_gates(),
                gates.n_gates()
            )));
        }
        gates.check_shape(x.n_rows(), self.trace_factors.len(), "decision")?;
        let bank = KernelBank::with_factors(
            &self.family,
            &self.support_vectors,
            self.trace_factors.clone(),
        )?;
        let m = bank.n_kernels();
        let n_sv = self.n_support();
        let mut used = self.sv_gates.kernel_of.clone();
        used.sort_unstable();
        used.dedup();
        Ok((0..x.n_rows())
            .into_par_iter()
            .map_init(
                || (vec![0.0; n_sv], vec![0.0; n_sv * m]),
                |(col, gamma), r| {
                    for s in 0..n_sv {
                        gate_products(
                            self.kind,
                            &gates.kernel_of,
                            self.sv_gates.row(s),
                            gates.row(r),
                            &mut gamma[s * m..(s + 1) * m],
                        );
                    }
                    let mut f = -self.rho;
                    for &k in &used {
                        bank.column(k, x.row(r), col);
                        for s in 0..n_sv {
                            f += self.coef[s] * gamma[s * m + k] * col[s];
                        }
                    }
                    f
                },
            )
            .collect())
    }
}

/// Kernel–vector products on some training points, one per gate: with `w` holding a
/// weight per point of `rows` and gate (`w.row(t)[j]`),
/// `out[s·q + j] = Σ_t K̄_{kernel_of[j]}(x_{rows[s]}, x_{rows[t]}) · w.row(t)[j]`.
/// The `rows × rows` block is never stored (LMKL's and C-LMKL's gradient and weight
/// steps need these products on the support vectors only).
pub(crate) fn products_on(bank: &KernelBank, rows: &[usize], w: &GateMatrix) -> Vec<f64> {
    let q = w.n_gates();
    let mut kernels = w.kernel_of.clone();
    kernels.sort_unstable();
    kernels.dedup();
    let mut out = vec![0.0; rows.len() * q];
    out.par_chunks_mut(q).enumerate().for_each_init(
        || vec![0.0; rows.len()],
        |col, (s, o)| {
            for &k in &kernels {
                bank.point_column_at(k, rows[s], rows, col);
                for (j, _) in w.kernel_of.iter().enumerate().filter(|(_, &kj)| kj == k) {
                    o[j] = (0..rows.len()).map(|t| col[t] * w.row(t)[j]).sum();
                }
            }
        },
    );
    out
}

/// `softmax(z)` in place (shifted by the maximum, so large scores do not overflow);
/// fails, naming the score, when one is not finite.
pub(super) fn softmax(z: &mut [f64]) -> Result<()> {
    if let Some(i) = z.iter().position(|v| !v.is_finite()) {
        return Err(Error::numerical(format!(
            "gating score of kernel {} is not finite ({})",
            i + 1,
            z[i]
        )));
    }
    let max = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    z.iter_mut().for_each(|v| *v = (*v - max).exp());
    let s: f64 = z.iter().sum();
    z.iter_mut().for_each(|v| *v /= s);
    Ok(())
}

/// Row-wise softmax of an `n × m` score matrix (one row per point).
pub(super) fn softmax_rows(scores: &mut [f64], m: usize) -> Result<()> {
    for (t, row) in scores.chunks_mut(m).enumerate() {
        softmax(row).map_err(|e| Error::data(format!("point {}: {e}", t + 1)))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bank::KernelBank;

    /// The floor's deterministic test points in `[0, 1)`.
    fn points(n: usize, d: usize, seed: u64) -> Features {
        crate::bank::points(n, d, seed, 0.0)
    }

    fn family() -> KernelFamily {
        "linear@all;poly(degree=2,gamma=1,coef0=1)@all;rbf(sigma=1)@all;rbf(sigma=0.5)@[1]"
            .parse()
            .unwrap()
    }

    /// Gate values in (0, 1) that differ per point and kernel.
    fn gates(n: usize, q: usize) -> Vec<f64> {
        (0..n * q)
            .map(|v| 0.5 + 0.45 * (v as f64 * 0.73).sin())
            .collect()
    }

    /// Brute force `Σ_i γ_i(a, b) K̄_i(a, b)` from kernel evaluations.
    fn brute(bank: &KernelBank, g: &GateMatrix, kind: GateKind, a: usize, b: usize) -> f64 {
        let list = bank.base();
        let x = bank.points();
        let mut gamma = vec![0.0; bank.n_kernels()];
        for (j, &k) in g.kernel_of.iter().enumerate() {
            gamma[k] += g.row(a)[j] * g.row(b)[j];
        }
        let z: f64 = gamma.iter().sum();
        (0..bank.n_kernels())
            .map(|k| {
                let kab = bank.factors()[k] * list.kernel(k).eval(x.row(a), x.row(b));
                let w = if kind == GateKind::PairwiseNormalised {
                    gamma[k] / z
                } else {
                    gamma[k]
                };
                w * kab
            })
            .sum()
    }

    #[test]
    fn gated_rows_match_brute_force() {
        let x = points(400, 3, 1);
        let bank = KernelBank::new(&family(), &x).unwrap();
        let m = bank.n_kernels();
        // Separable with one gate per kernel, a C-LMKL-style replicated gate set, and the
        // pairwise-normalised SWMKL gate.
        let cases = [
            (
                GateMatrix::per_kernel(m, gates(400, m)).unwrap(),
                GateKind::Separable,
            ),
            (
                GateMatrix::new(vec![0, 1, 2, 3, 0, 2], gates(400, 6)).unwrap(),
                GateKind::Separable,
            ),
            (
                GateMatrix::per_kernel(m, gates(400, m)).unwrap(),
                GateKind::PairwiseNormalised,
            ),
        ];
        let cols: Vec<usize> = (0..400).rev().collect();
        let mut out = vec![0f32; 400];
        for (g, kind) in &cases {
            let src = GatedKernel::new(&bank, g, *kind).unwrap();
            for i in [0, 123, 399] {
                src.fill_row(i, &cols, &mut out); // long row: split over threads
                for (t, &c) in cols.iter().enumerate() {
                    let e = brute(&bank, g, *kind, i, c);
                    assert!(
                        (out[t] as f64 - e).abs() < 1e-5 * e.abs().max(1.0),
                        "{kind:?}"
                    );
                }
                src.fill_row(i, &cols[..7], &mut out[..7]); // short row: sequential
                assert!((out[3] as f64 - brute(&bank, g, *kind, i, cols[3])).abs() < 1e-5);
                let d = brute(&bank, g, *kind, i, i);
                assert!((src.diag(i) - d).abs() < 1e-10 * d.abs().max(1.0));
            }
            // The fitted expansion evaluates the same kernel at new points.
            let coef: Vec<f64> = (0..400).map(|t| (t as f64 * 0.31).cos()).collect();
            let machine = GatedMachine::new(&family(), &bank, g, *kind, &coef, 0.25);
            let rows = [5, 77, 301];
            let q = x.select_rows(&rows);
            let dec = machine.decision(&q, &g.select_rows(&rows)).unwrap();
            for (r, &p) in rows.iter().enumerate() {
                let e: f64 = (0..400)
                    .map(|s| coef[s] * brute(&bank, g, *kind, s, p))
                    .sum();
                assert!((dec[r] - (e - 0.25)).abs() < 1e-8 * e.abs().max(1.0));
            }
        }
    }

    /// A bank with a kernel table of its own points (LMKL's and C-LMKL's fits) gives the
    /// gated rows and the kernel–vector products bit for bit as evaluating them does,
    /// with duplicated points (one table row serves both copies).
    #[test]
    fn an_own_table_gives_the_same_rows_and_products() {
        let mut x = points(60, 3, 4);
        let dup = x.select_rows(&[7]);
        x = Features::new(
            61,
            3,
            x.rows().chain(dup.rows()).flatten().copied().collect(),
        )
        .unwrap();
        let plain = KernelBank::new(&family(), &x).unwrap();
        let tabled = KernelBank::new(&family(), &x)
            .unwrap()
            .with_own_table(&family())
            .unwrap();
        assert!(tabled.table_rows_of(&x).is_some());
        let m = plain.n_kernels();
        let g = GateMatrix::per_kernel(m, gates(61, m)).unwrap();
        let (a, b) = (
            GatedKernel::new(&plain, &g, GateKind::Separable).unwrap(),
            GatedKernel::new(&tabled, &g, GateKind::Separable).unwrap(),
        );
        let cols: Vec<usize> = (0..61).rev().collect();
        let (mut ra, mut rb) = (vec![0f32; 61], vec![0f32; 61]);
        for i in [0, 7, 33, 60] {
            a.fill_row(i, &cols, &mut ra);
            b.fill_row(i, &cols, &mut rb);
            assert_eq!(ra, rb);
        }
        let rows = [60, 2, 7, 41];
        let w = GateMatrix::per_kernel(m, gates(4, m)).unwrap();
        assert_eq!(
            products_on(&plain, &rows, &w),
            products_on(&tabled, &rows, &w)
        );
    }

    #[test]
    fn equal_gates_give_the_uniform_kernel() {
        // η_i = 1/√m for every point: Σ_i (1/m) K̄_i, exactly UNIFORM's combination.
        let x = points(120, 2, 7);
        let bank = KernelBank::new(&family(), &x).unwrap();
        let m = bank.n_kernels();
        let g = GateMatrix::per_kernel(m, vec![1.0 / (m as f64).sqrt(); 120 * m]).unwrap();
        let gated = GatedKernel::new(&bank, &g, GateKind::Separable).unwrap();
        let pairwise = GatedKernel::new(&bank, &g, GateKind::PairwiseNormalised).unwrap();
        let uniform = bank.combined(&vec![1.0 / m as f64; m]).unwrap();
        let cols: Vec<usize> = (0..120).collect();
        let (mut a, mut b, mut c) = (vec![0f32; 120], vec![0f32; 120], vec![0f32; 120]);
        for i in 0..120 {
            gated.fill_row(i, &cols, &mut a);
            pairwise.fill_row(i, &cols, &mut b);
            uniform.fill_row(i, &cols, &mut c);
            for t in 0..120 {
                assert!((a[t] - c[t]).abs() < 1e-6 && (b[t] - c[t]).abs() < 1e-6);
            }
            assert!((gated.diag(i) - uniform.diag(i)).abs() < 1e-12);
        }
    }

    #[test]
    fn bad_gates_are_errors() {
        let x = points(10, 2, 3);
        let bank = KernelBank::new(&family(), &x).unwrap();
        let e = GateMatrix::per_kernel(4, vec![0.5; 39]).unwrap_err();
        assert!(e.to_string().contains("rows of 4 gates"), "{e}");
        let mut v = vec![0.5; 40];
        v[9] = f64::NAN;
        let e = GateMatrix::per_kernel(4, v).unwrap_err().to_string();
        assert!(e.contains("gate 2 of point 3 is not finite"), "{e}");
        let short = GateMatrix::per_kernel(4, vec![0.5; 36]).unwrap();
        let e = GatedKernel::new(&bank, &short, GateKind::Separable)
            .err()
            .unwrap();
        assert!(
            e.to_string()
                .contains("gates for 9 points, 10 points given"),
            "{e}"
        );
        let wide = GateMatrix::per_kernel(5, vec![0.5; 50]).unwrap();
        let e = GatedKernel::new(&bank, &wide, GateKind::Separable)
            .err()
            .unwrap();
        assert!(e.to_string().contains("base kernel 5 of 4"), "{e}");
        let mut z = [1.0, f64::INFINITY];
        assert!(softmax(&mut z)
            .unwrap_err()
            .to_string()
            .contains("kernel 2"));
        // A diverged gate is a numerical failure, not bad input.
        let mut z = [f64::NAN, 0.0];
        assert!(matches!(softmax(&mut z), Err(crate::Error::Numerical(_))));
        let mut z = [1000.0, 0.0];
        softmax(&mut z).unwrap();
        assert!((z[0] - 1.0).abs() < 1e-12 && z[1] >= 0.0);
    }
}
