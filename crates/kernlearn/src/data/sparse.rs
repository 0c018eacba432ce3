//! Compressed sparse row (CSR) features: what LIBSVM/SVMlight files hold (one-hot
//! categories, text, hashed features). Memory is proportional to the non-zeros, not to
//! `rows × columns`.

use super::{Dataset, Features};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// Sparse row-major feature matrix in CSR layout: row `i` holds the entries
/// `indptr[i]..indptr[i+1]` of `indices` (0-based columns, strictly increasing within a
/// row) and `values` (finite; explicit zeros are allowed but never produced by the
/// readers).
///
/// Serialised as `{"n_rows", "n_cols", "indptr", "indices", "values"}`; reading one back
/// checks the whole layout, so a model file cannot carry an inconsistent matrix.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawSparse")]
pub struct SparseFeatures {
    n_rows: usize,
    n_cols: usize,
    indptr: Vec<usize>,
    indices: Vec<u32>,
    values: Vec<f64>,
}

/// [`SparseFeatures`] as stored, before its layout is checked.
#[derive(Deserialize)]
struct RawSparse {
    n_rows: usize,
    n_cols: usize,
    indptr: Vec<usize>,
    indices: Vec<u32>,
    values: Vec<f64>,
}

impl TryFrom<RawSparse> for SparseFeatures {
    type Error = String;

    fn try_from(r: RawSparse) -> std::result::Result<Self, String> {
        SparseFeatures::new(r.n_rows, r.n_cols, r.indptr, r.indices, r.values)
            .map_err(crate::validate::message)
    }
}

impl SparseFeatures {
    /// Wraps a CSR matrix after checking it: `indptr` has `n_rows + 1` non-decreasing
    /// offsets from 0 to `indices.len() == values.len()`; each row's columns are below
    /// `n_cols` (which must fit in 32 bits) and strictly increasing; values are finite.
    pub fn new(
        n_rows: usize,
        n_cols: usize,
        indptr: Vec<usize>,
        indices: Vec<u32>,
        values: Vec<f64>,
    ) -> Result<Self> {
        let bad = |m: String| Err(Error::data(format!("sparse matrix: {m}")));
        if n_cols > u32::MAX as usize + 1 {
            return bad(format!("{n_cols} columns; at most 2^32 are supported"));
        }
        if indptr.len() != n_rows + 1 {
            return bad(format!(
                "indptr has {} offsets, {n_rows} rows need {}",
                indptr.len(),
                n_rows + 1
            ));
        }
        if indices.len() != values.len() {
            return bad(format!(
                "{} column indices for {} values",
                indices.len(),
                values.len()
            ));
        }
        if indptr[0] != 0 || indptr[n_rows] != values.len() {
            return bad(format!(
                "indptr must run from 0 to the number of values ({}), got {}..{}",
                values.len(),
                indptr[0],
                indptr[n_rows]
            ));
        }
        for i in 0..n_rows {
            let (a, b) = (indptr[i], indptr[i + 1]);
            if b < a {
                return bad(format!("indptr decreases at row {}", i + 1));
            }
            let mut prev: Option<u32> = None;
            for &j in &indices[a..b] {
                if j as usize >= n_cols {
                    return bad(format!(
                        "row {} has column {} (0-based), the matrix has {n_cols} columns",
                        i + 1,
                        j
                    ));
                }
                if prev.is_some_and(|p| p >= j) {
                    return bad(format!(
                        "row {} has columns out of order ({} after {}); they must be strictly \
                         increasing",
                        i + 1,
                        j,
                        prev.unwrap_or(0)
                    ));
                }
                prev = Some(j);
            }
        }
        if let Some(p) = values.iter().position(|v| !v.is_finite()) {
            let row = indptr.partition_point(|&s| s <= p) - 1;
            return bad(format!(
                "feature {} of row {} is not finite ({})",
                indices[p] as usize + 1,
                row + 1,
                values[p]
            ));
        }
        Ok(Self {
            n_rows,
            n_cols,
            indptr,
            indices,
            values,
        })
    }

    /// The non-zeros of a dense matrix.
    pub fn from_dense(x: &Features) -> Result<Self> {
        let mut indptr = Vec::with_capacity(x.n_rows() + 1);
        let (mut indices, mut values) = (Vec::new(), Vec::new());
        indptr.push(0);
        for row in x.rows() {
            for (j, &v) in row.iter().enumerate() {
                if v != 0.0 {
                    indices.push(j as u32);
                    values.push(v);
                }
            }
            indptr.push(values.len());
        }
        Self::new(x.n_rows(), x.n_cols(), indptr, indices, values)
    }

    /// The dense matrix, refused (not attempted) when `rows × columns` values would not
    /// fit in the memory available: `what` names the caller in that error.
    pub fn to_dense(&self, what: &str) -> Result<Features> {
        let too_big = || {
            Error::data(format!(
                "{what}: densifying {} rows × {} columns does not fit in memory; keep the data \
                 sparse (a method that reads sparse features, or max-abs scaling)",
                self.n_rows, self.n_cols
            ))
        };
        let total = self.n_rows.checked_mul(self.n_cols).ok_or_else(too_big)?;
        if !crate::check::dense_matrix_fits(total, crate::check::READ_COPIES) {
            return Err(too_big());
        }
        let mut values = Vec::new();
        values.try_reserve_exact(total).map_err(|_| too_big())?;
        values.resize(total, 0.0);
        for i in 0..self.n_rows {
            let (cols, vals) = self.row(i);
            for (&j, &v) in cols.iter().zip(vals) {
                values[i * self.n_cols + j as usize] = v;
            }
        }
        Features::new(self.n_rows, self.n_cols, values)
    }

    /// Number of samples.
    pub fn n_rows(&self) -> usize {
        self.n_rows
    }

    /// Number of features.
    pub fn n_cols(&self) -> usize {
        self.n_cols
    }

    /// Number of stored entries.
    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    /// Sample `i`: its columns (increasing) and values.
    #[inline]
    pub fn row(&self, i: usize) -> (&[u32], &[f64]) {
        let (a, b) = (self.indptr[i], self.indptr[i + 1]);
        (&self.indices[a..b], &self.values[a..b])
    }

    /// The CSR arrays: row offsets, column indices, values.
    pub fn parts(&self) -> (&[usize], &[u32], &[f64]) {
        (&self.indptr, &self.indices, &self.values)
    }

    /// A new matrix holding the given samples, in the given order.
    pub fn select_rows(&self, idx: &[usize]) -> SparseFeatures {
        let mut indptr = Vec::with_capacity(idx.len() + 1);
        let nnz: usize = idx.iter().map(|&i| self.row(i).0.len()).sum();
        let (mut indices, mut values) = (Vec::with_capacity(nnz), Vec::with_capacity(nnz));
        indptr.push(0);
        for &i in idx {
            let (c, v) = self.row(i);
            indices.extend_from_slice(c);
            values.extend_from_slice(v);
            indptr.push(values.len());
        }
        SparseFeatures {
            n_rows: idx.len(),
            n_cols: self.n_cols,
            indptr,
            indices,
            values,
        }
    }

    /// The same rows with `n_cols` columns (at least the current count): a test file
    /// read on its own is as wide as its largest index, the model may be wider.
    pub fn with_n_cols(mut self, n_cols: usize) -> Result<Self> {
        if n_cols < self.n_cols {
            return Err(Error::data(format!(
                "the sparse input has {} columns, cannot narrow it to {n_cols}",
                self.n_cols
            )));
        }
        self.n_cols = n_cols;
        Ok(self)
    }

    /// The columns holding at least one entry and each one's range, in memory
    /// proportional to the non-zeros (never to the width: an index of 2³² is one column).
    pub(crate) fn column_ranges(&self) -> ColumnRanges {
        let mut sorted = self.indices.clone();
        sorted.sort_unstable();
        let (mut columns, mut full) = (Vec::new(), Vec::new());
        for run in sorted.chunk_by(|a, b| a == b) {
            columns.push(run[0]);
            full.push(run.len() == self.n_rows);
        }
        drop(sorted);
        // A column with an implicit zero starts its range at 0.
        let start =
            |inf: f64| -> Vec<f64> { full.iter().map(|&f| if f { inf } else { 0.0 }).collect() };
        let (mut lo, mut hi) = (start(f64::INFINITY), start(f64::NEG_INFINITY));
        for (&j, &v) in self.indices.iter().zip(&self.values) {
            let k = columns
                .binary_search(&j)
                .unwrap_or_else(|_| unreachable!("listed"));
            lo[k] = lo[k].min(v);
            hi[k] = hi[k].max(v);
        }
        ColumnRanges {
            columns,
            full,
            lo,
            hi,
        }
    }

    /// Applies `f(column, value)` to every stored value.
    pub(crate) fn map_values(&self, f: impl Fn(usize, f64) -> f64) -> SparseFeatures {
        let values = self
            .indices
            .iter()
            .zip(&self.values)
            .map(|(&j, &v)| f(j as usize, v))
            .collect();
        SparseFeatures {
            values,
            ..self.clone()
        }
    }

    /// Fails, naming `what`, when a value is negative or NaN (the χ² kernel's domain).
    pub(crate) fn check_non_negative(&self, what: &str) -> Result<()> {
        if let Some(p) = self.values.iter().position(|&v| v.is_nan() || v < 0.0) {
            let row = self.indptr.partition_point(|&s| s <= p) - 1;
            return Err(Error::data(format!(
                "the chi-squared kernel needs non-negative features: {what} row {}, feature {} \
                 is {}",
                row + 1,
                self.indices[p] as usize + 1,
                self.values[p]
            )));
        }
        Ok(())
    }
}

/// The columns of a [`SparseFeatures`] that hold entries, with their ranges
/// ([`SparseFeatures::column_ranges`]); every other column is zero throughout.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ColumnRanges {
    /// The columns with at least one entry, increasing.
    pub columns: Vec<u32>,
    /// Per listed column: whether every row has an entry in it (no implicit zero).
    pub full: Vec<bool>,
    /// Per listed column: its smallest value, counting implicit zeros.
    pub lo: Vec<f64>,
    /// Per listed column: its largest value, counting implicit zeros.
    pub hi: Vec<f64>,
}

/// Labelled sparse samples, as read from a LIBSVM/SVMlight file
/// ([`crate::data::libsvm::read_libsvm_sparse`]).
#[derive(Clone, Debug, PartialEq)]
pub struct SparseDataset {
    /// Features.
    pub x: SparseFeatures,
    /// One label or target per row.
    pub y: Vec<f64>,
}

impl SparseDataset {
    /// Bytes of the dense form (`f64` values) over bytes of the CSR form (a value and a
    /// `u32` index per non-zero, a `usize` offset per row).
    pub fn dense_to_sparse_ratio(&self) -> f64 {
        self.dense_bytes() as f64 / (12 * self.x.nnz() + 8 * (self.x.n_rows() + 1)) as f64
    }

    /// Bytes the dense form of the features would take.
    pub fn dense_bytes(&self) -> u64 {
        (self.x.n_rows() as u64)
            .saturating_mul(self.x.n_cols() as u64)
            .saturating_mul(8)
    }

    /// The dense dataset a LIBSVM file is read as (feature names `f1..fd`, target
    /// `label`), from the rows already read; `what` names the data in the error when
    /// the dense matrix does not fit.
    pub fn into_dense(self, what: &str) -> Result<Dataset> {
        let x = self.x.to_dense(what)?;
        Ok(Dataset {
            feature_names: (1..=x.n_cols()).map(|j| format!("f{j}")).collect(),
            x,
            y: self.y,
            target_name: "label".to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_round_trip_and_select() {
        let x = Features::new(3, 4, vec![0., 1., 0., 2., 0., 0., 0., 0., -3., 0., 0., 4.]).unwrap();
        let s = SparseFeatures::from_dense(&x).unwrap();
        assert_eq!(s.nnz(), 4);
        assert_eq!(s.row(0), (&[1u32, 3][..], &[1.0, 2.0][..]));
        assert_eq!(s.row(1).0.len(), 0);
        assert_eq!(s.to_dense("t").unwrap(), x);
        let sel = s.select_rows(&[2, 0]);
        assert_eq!(sel.to_dense("t").unwrap(), x.select_rows(&[2, 0]));
        let r = s.column_ranges();
        assert_eq!(r.columns, vec![0, 1, 3]);
        assert_eq!(r.full, vec![false, false, false]);
        assert_eq!(r.lo, vec![-3.0, 0.0, 0.0]);
        assert_eq!(r.hi, vec![0.0, 1.0, 4.0]);
        let full = SparseFeatures::from_dense(&Features::new(2, 2, vec![2., 0., 3., 1.]).unwrap())
            .unwrap()
            .column_ranges();
        assert_eq!(
            (full.full, full.lo, full.hi),
            (vec![true, false], vec![2., 0.], vec![3., 1.])
        );
    }

    #[test]
    fn inconsistent_layouts_are_refused() {
        let e = |r: Result<SparseFeatures>| r.unwrap_err().to_string();
        assert!(
            e(SparseFeatures::new(2, 3, vec![0, 1], vec![0], vec![1.0])).contains("indptr has 2")
        );
        assert!(e(SparseFeatures::new(
            1,
            3,
            vec![0, 2],
            vec![2, 1],
            vec![1.0, 1.0]
        ))
        .contains("out of order"));
        assert!(e(SparseFeatures::new(1, 3, vec![0, 1], vec![3], vec![1.0])).contains("column 3"));
        assert!(e(SparseFeatures::new(
            1,
            3,
            vec![0, 1],
            vec![0],
            vec![f64::NAN]
        ))
        .contains("not finite"));
        assert!(
            e(SparseFeatures::new(1, 3, vec![0, 1], vec![0, 1], vec![1.0])).contains("indices for")
        );
        assert!(e(SparseFeatures::new(1, 3, vec![0, 2], vec![0], vec![1.0])).contains("run from 0"));
        let json = r#"{"n_rows":1,"n_cols":2,"indptr":[0,1],"indices":[5],"values":[1.0]}"#;
        let err = serde_json::from_str::<SparseFeatures>(json)
            .unwrap_err()
            .to_string();
        assert!(err.contains("column 5"), "{err}");
    }
}
