//! A Gram matrix held in memory as `f32` (the precision of the solver's row cache), so
//! that grid search computes each kernel once and every fold and C reads it.

use crate::data::Features;
use crate::kernel::{FeatureKernel, Kernel, KernelSource};
use crate::Result;
use rayon::prelude::*;

/// Copies the strictly lower triangle of the row-major `n × n` matrix onto the upper one,
/// in square tiles so that both the rows read and the rows written stay in cache.
fn mirror_lower(values: &mut [f32], n: usize) {
    const TILE: usize = 64;
    for i0 in (0..n).step_by(TILE) {
        for j0 in (i0..n).step_by(TILE) {
            for i in i0..(i0 + TILE).min(n) {
                for j in j0.max(i + 1)..(j0 + TILE).min(n) {
                    values[i * n + j] = values[j * n + i];
                }
            }
        }
    }
}

/// `K_ij = k(x_i, x_j)` for all training points, row-major `f32`, diagonal in `f64`.
pub struct DenseGram {
    n: usize,
    values: Vec<f32>,
    diag: Vec<f64>,
}

impl DenseGram {
    /// Bytes a Gram matrix of `n` points takes.
    pub fn bytes(n: usize) -> usize {
        n * n * std::mem::size_of::<f32>()
    }

    /// Computes the Gram matrix of `x`: the lower triangle row by row in parallel with
    /// [`FeatureKernel`] (the same `f32` values a solver's row cache would hold for
    /// these features), then mirrored. A precomputed kernel is read from `x`.
    pub fn new(kernel: &Kernel, x: &Features) -> Result<Self> {
        if kernel.is_precomputed() {
            let g = kernel.gram(x)?;
            let n = x.n_rows();
            let values = (0..n * n).map(|k| g[(k / n, k % n)] as f32).collect();
            let diag = (0..n).map(|i| g[(i, i)]).collect();
            return Ok(Self { n, values, diag });
        }
        let source = FeatureKernel::new(kernel, x)?;
        let n = x.n_rows();
        let cols: Vec<usize> = (0..n).collect();
        let mut values = vec![0f32; n * n];
        values
            .par_chunks_mut(n.max(1))
            .enumerate()
            .for_each(|(i, row)| source.fill_row_seq(i, &cols[..=i], &mut row[..=i]));
        mirror_lower(&mut values, n);
        let diag = (0..n).map(|i| source.diag(i)).collect();
        Ok(Self { n, values, diag })
    }

    /// `K_ij`.
    #[inline]
    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.values[i * self.n + j] as f64
    }

    /// The block `K[rows, cols]`, row-major.
    pub fn block(&self, rows: &[usize], cols: &[usize]) -> Vec<f32> {
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

    fn fill_row(&self, i: usize, cols: &[usize], out: &mut [f32]) {
        let row = &self.values[i * self.n..(i + 1) * self.n];
        for (o, &c) in out.iter_mut().zip(cols) {
            *o = row[c];
        }
    }
}
