//! The normalised base kernels of one fit: [`KernelBank`], a compiled family on a set of
//! points with the trace-normalisation factor `f_i` of each kernel (`K̄_i = f_i K_i`,
//! mean diagonal 1 on the training data; Moeller 2017 chapter 3).
//!
//! A bank evaluates kernel columns on its points, or reads them from a [`GramTable`]
//! that holds its points, with the same bits either way, and computes the decision
//! values of a machine whose support vectors are its points. The combination of its
//! kernels as a solver's kernel source is built in `combined` ([`KernelBank::combined`]).

use super::{BaseKernels, ByFeature, GramTable, KernelFamily};
use crate::data::Features;
use crate::kernel::Kernel;
use crate::simd::{add_scaled, add_scaled_product_squared};
use crate::{Error, Result};
use rayon::prelude::*;
use std::sync::Arc;

/// A compiled family on a set of points with the trace-normalisation factor of each
/// kernel: the normalised base kernels `K̄_i = f_i K_i` (mean diagonal 1 on the training
/// data) of one fit.
#[derive(Clone, Debug)]
pub(crate) struct KernelBank {
    pub(super) base: BaseKernels,
    pub(super) x: Features,
    pub(super) pts: ByFeature,
    pub(super) factors: Vec<f64>,
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
        Self::new_weighted(family, x, table, None)
    }

    /// [`KernelBank::new_with`] normalised by the weighted mean diagonal when per-sample
    /// weights `w` (one positive weight per row of `x`) are given
    /// ([`BaseKernels::trace_factors`]): a point of weight `k` weighs as `k` copies.
    pub(crate) fn new_weighted(
        family: &KernelFamily,
        x: &Features,
        table: Option<&Arc<GramTable>>,
        w: Option<&[f64]>,
    ) -> Result<Self> {
        let base = BaseKernels::compile(family, x.n_cols())?;
        if let Some(c) = base
            .kernels
            .iter()
            .find(|c| matches!(c.kernel, Kernel::ChiSquared { .. }))
        {
            c.kernel.check_data(x, "training")?;
        }
        let factors = base.trace_factors(x, w)?;
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
    pub(super) fn table_row(&self, p: usize) -> Option<usize> {
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
    pub(super) fn table_rows(&self) -> Option<(&GramTable, &[usize])> {
        (self.table.as_ref()).map(|(table, rows)| (&**table, &rows[..]))
    }

    /// With a [`GramTable`]: `out[t] = k_i(x_b, x_a)` (unnormalised) for the table's point
    /// `a` and the table rows `b = at(rows, t)`, `rows` being the table row of each of
    /// the bank's points; `false` (and `out` untouched) without a table.
    pub(super) fn tabled(
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

/// Largest [`GramTable`] a single fit builds for itself ([`KernelBank::with_own_table`]):
/// 32 MiB, the three default localized kernels on about 1,200 points. A selection runs
/// one such fit per thread.
const OWN_TABLE_BYTES: usize = 32 << 20;

#[cfg(test)]
mod tests {
    use super::super::points;
    use super::*;
    use crate::kernel::normalize_trace;

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
