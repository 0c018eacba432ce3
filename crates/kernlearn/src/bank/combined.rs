//! Kernel sources for the SMO solver built on base kernels
//! ([`crate::kernel::KernelSource`]): [`CombinedKernel`], the combination
//! `Σ_i μ_i K̄_i` of a bank's normalised kernels computed row by row
//! ([`KernelBank::combined`]; Moeller 2017 chapter 3), and [`Ridged`], `s·K + r·I` on
//! any source (the 2-norm soft margin, and EasyMKL's `(1 − λ) K + λ I`).

use super::{GramTable, KernelBank};
use crate::kernel::{fill_row_chunked, KernelSource};
use crate::simd::{add_scaled_squared, Squared};
use crate::{Error, Result};
use rayon::prelude::*;

impl KernelBank {
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
}

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
    use super::super::{points, KernelFamily};
    use super::*;
    use crate::kernel::normalize_trace;

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
}
