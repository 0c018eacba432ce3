//! Datasets: dense features, labels or targets, readers and writers, scaling and splits.

use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// Dense row-major feature matrix (`n_rows` samples × `n_cols` features).
///
/// Row-major because every kernel evaluation reads whole samples. A sparse store can be
/// added beside it later: the solver only sees kernel rows (see [`crate::kernel::KernelSource`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Features {
    n_rows: usize,
    n_cols: usize,
    values: Vec<f64>,
}

impl Features {
    /// Wraps row-major `values`; fails when `values.len() != n_rows * n_cols`.
    pub fn new(n_rows: usize, n_cols: usize, values: Vec<f64>) -> Result<Self> {
        if values.len() != n_rows * n_cols {
            return Err(Error::data(format!(
                "feature buffer has {} values, expected {} rows × {} columns = {}",
                values.len(),
                n_rows,
                n_cols,
                n_rows * n_cols
            )));
        }
        Ok(Self {
            n_rows,
            n_cols,
            values,
        })
    }

    /// Builds a matrix from equally long rows.
    pub fn from_rows(rows: &[Vec<f64>]) -> Result<Self> {
        let n_cols = rows.first().map_or(0, Vec::len);
        if let Some((i, r)) = rows.iter().enumerate().find(|(_, r)| r.len() != n_cols) {
            return Err(Error::data(format!(
                "row {} has {} features, row 1 has {}",
                i + 1,
                r.len(),
                n_cols
            )));
        }
        Self::new(rows.len(), n_cols, rows.concat())
    }

    /// Number of samples.
    pub fn n_rows(&self) -> usize {
        self.n_rows
    }

    /// Number of features.
    pub fn n_cols(&self) -> usize {
        self.n_cols
    }

    /// Sample `i` as a slice of `n_cols` values.
    #[inline]
    pub fn row(&self, i: usize) -> &[f64] {
        &self.values[i * self.n_cols..(i + 1) * self.n_cols]
    }

    /// Mutable access to sample `i`.
    #[inline]
    pub fn row_mut(&mut self, i: usize) -> &mut [f64] {
        &mut self.values[i * self.n_cols..(i + 1) * self.n_cols]
    }

    /// All values, row-major.
    pub fn as_slice(&self) -> &[f64] {
        &self.values
    }

    /// Iterates over samples.
    pub fn rows(&self) -> impl Iterator<Item = &[f64]> {
        (0..self.n_rows).map(move |i| self.row(i))
    }

    /// A new matrix holding the given samples, in the given order.
    pub fn select_rows(&self, idx: &[usize]) -> Features {
        let mut values = Vec::with_capacity(idx.len() * self.n_cols);
        for &i in idx {
            values.extend_from_slice(self.row(i));
        }
        Features {
            n_rows: idx.len(),
            n_cols: self.n_cols,
            values,
        }
    }

    /// First non-finite value as `(row, column)`, 0-based.
    pub fn find_non_finite(&self) -> Option<(usize, usize)> {
        let pos = self.values.iter().position(|v| !v.is_finite())?;
        Some((pos / self.n_cols.max(1), pos % self.n_cols.max(1)))
    }
}

/// A labelled dataset: features plus one label (class code) or regression target per row.
///
/// Labels are stored as `f64` as LIBSVM does; whether they are classes or targets is
/// decided by the method that uses them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dataset {
    /// Samples.
    pub x: Features,
    /// Class code or regression target per sample (empty when the file had none).
    pub y: Vec<f64>,
    /// Feature names (from the header, or `f1..fd`).
    pub feature_names: Vec<String>,
    /// Name of the label/target column (`label`, `target`, ...).
    pub target_name: String,
}

impl Dataset {
    /// Number of samples.
    pub fn len(&self) -> usize {
        self.x.n_rows()
    }

    /// True when there are no samples.
    pub fn is_empty(&self) -> bool {
        self.x.n_rows() == 0
    }

    /// The subset of rows `idx`, in that order.
    pub fn subset(&self, idx: &[usize]) -> Dataset {
        Dataset {
            x: self.x.select_rows(idx),
            y: if self.y.is_empty() {
                Vec::new()
            } else {
                idx.iter().map(|&i| self.y[i]).collect()
            },
            feature_names: self.feature_names.clone(),
            target_name: self.target_name.clone(),
        }
    }
}
