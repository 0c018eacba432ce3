//! A Gram matrix held in memory as `f32` (the precision of the solver's row cache), so
//! that grid search computes each kernel once and every fold and C reads it.

use crate::data::Features;
use crate::kernel::{Kernel, KernelSource};
use crate::Result;
use rayon::prelude::*;

/// `K_ij = k(x_i, x_j)` for all training points, row-major `f32`, diagonal in `f64`.
pub(super) struct DenseGram {
    n: usize,
    values: Vec<f32>,
    diag: Vec<f64>,
}

impl DenseGram {
    /// Bytes a Gram matrix of `n` points takes.
    pub(super) fn bytes(n: usize) -> usize {
        n * n * std::mem::size_of::<f32>()
    }

    /// Computes the Gram matrix of `x` (in parallel, see [`Kernel::gram_f32`]).
    pub(super) fn new(kernel: &Kernel, x: &Features) -> Result<Self> {
        let values = kernel.gram_f32(x)?;
        let n = x.n_rows();
        let diag = if kernel.is_precomputed() {
            (0..n).map(|i| x.row(i)[i]).collect()
        } else {
            (0..n).map(|i| kernel.eval(x.row(i), x.row(i))).collect()
        };
        Ok(Self { n, values, diag })
    }

    /// The Gram matrix of every row of `source`, rows in parallel, each as the solver
    /// reads it from `source` (the sparse kernels, which have no blocked product).
    pub(super) fn from_source(source: &dyn KernelSource) -> Self {
        let n = source.len();
        let mut values = vec![0f32; n * n];
        let all: Vec<usize> = (0..n).collect();
        values
            .par_chunks_mut(n.max(1))
            .enumerate()
            .for_each(|(i, row)| source.fill_row(i, &all, row));
        let diag = (0..n).map(|i| source.diag(i)).collect();
        Self { n, values, diag }
    }

    /// The block `K[rows, cols]`, row-major.
    pub(super) fn block(&self, rows: &[usize], cols: &[usize]) -> Vec<f32> {
        let mut out = vec![0f32; rows.len() * cols.len()];
        for (chunk, &r) in out.chunks_exact_mut(cols.len().max(1)).zip(rows) {
            self.fill_row(r, cols, chunk);
        }
        out
    }
}

impl KernelSource for DenseGram {
    fn len(&self) -> usize {
        self.n
    }

    fn diag(&self, i: usize) -> f64 {
        self.diag[i]
    }

    fn stored_row(&self, i: usize) -> Option<&[f32]> {
        Some(&self.values[i * self.n..(i + 1) * self.n])
    }

    fn fill_row(&self, i: usize, cols: &[usize], out: &mut [f32]) {
        let row = &self.values[i * self.n..(i + 1) * self.n];
        for (o, &c) in out.iter_mut().zip(cols) {
            *o = row[c];
        }
    }
}
