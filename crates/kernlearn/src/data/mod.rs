//! Datasets: dense features, labels or targets, readers and writers, scaling and splits.

use crate::{Error, Result};
use serde::{Deserialize, Serialize};

pub mod csv;
mod format;
pub mod gram;
pub mod keel;
pub mod libsvm;
pub mod scale;
pub mod sparse;
pub mod split;
pub mod standin;
pub mod synthetic;
mod text;
mod weights;
pub(crate) use text::read_text as read_text_bounded;

pub use csv::{
    parse_csv, parse_csv_unlabeled, read_csv, read_csv_unlabeled, to_csv_string, write_csv,
};
pub use format::{ensure_not_same_file, read_dataset, write_dataset, Format};
pub use gram::{gram_set_files, read_gram_set};
pub use keel::{parse_keel, parse_keel_with_target, read_keel, to_keel_string, write_keel};
pub use libsvm::{
    parse_libsvm, parse_libsvm_sparse, read_libsvm, read_libsvm_sparse, to_libsvm_string,
    write_libsvm,
};
pub use scale::{ScaleMode, Scaler};
pub use sparse::{SparseDataset, SparseFeatures};
pub use split::{
    class_counts, class_labels, complement, kfold, stratified_kfold, stratified_split,
    train_test_split,
};
pub use weights::read_weight_file;

/// Dense row-major feature matrix (`n_rows` samples × `n_cols` features).
///
/// Row-major because every kernel evaluation reads whole samples. Sparse data has its own
/// store beside it ([`SparseFeatures`], CSR): the solver only sees kernel rows (see
/// [`crate::kernel::KernelSource`]).
///
/// Serialised as `{"n_rows": r, "n_cols": c, "values": [...]}`; reading one back checks
/// that `values` holds exactly `r × c` finite numbers (a model file cannot carry an
/// inconsistent matrix).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawFeatures")]
pub struct Features {
    n_rows: usize,
    n_cols: usize,
    values: Vec<f64>,
}

/// [`Features`] as stored, before its shape and values are checked.
#[derive(Deserialize)]
struct RawFeatures {
    n_rows: usize,
    n_cols: usize,
    values: Vec<f64>,
}

impl TryFrom<RawFeatures> for Features {
    type Error = String;

    fn try_from(raw: RawFeatures) -> std::result::Result<Self, String> {
        if let Some(e) = shape_error(raw.n_rows, raw.n_cols, raw.values.len()) {
            return Err(e);
        }
        if let Some(p) = raw.values.iter().position(|v| !v.is_finite()) {
            return Err(format!(
                "matrix `values[{p}]` is not finite ({})",
                raw.values[p]
            ));
        }
        Ok(Self {
            n_rows: raw.n_rows,
            n_cols: raw.n_cols,
            values: raw.values,
        })
    }
}

/// Why `len` values cannot form an `n_rows × n_cols` matrix (`None` when they can).
fn shape_error(n_rows: usize, n_cols: usize, len: usize) -> Option<String> {
    match n_rows.checked_mul(n_cols) {
        Some(want) if want == len => None,
        Some(want) => Some(format!(
            "matrix of n_rows = {n_rows} × n_cols = {n_cols} needs {want} values, \
             `values` has {len}"
        )),
        None => Some(format!(
            "matrix of n_rows = {n_rows} × n_cols = {n_cols} is too large ({len} values given)"
        )),
    }
}

impl Features {
    /// Wraps row-major `values`; fails when `values.len() != n_rows * n_cols` (or that
    /// product overflows).
    pub fn new(n_rows: usize, n_cols: usize, values: Vec<f64>) -> Result<Self> {
        if let Some(e) = shape_error(n_rows, n_cols, values.len()) {
            return Err(Error::data(e));
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

    /// Fails on the first NaN or infinite value, naming it as "feature `j` of `what` row
    /// `i`" (1-based; `what` says which data: "training", "input", ...).
    pub(crate) fn check_finite(&self, what: &str) -> Result<()> {
        match self.find_non_finite() {
            Some((r, c)) => Err(Error::data(format!(
                "feature {} of {what} row {} is not finite ({})",
                c + 1,
                r + 1,
                self.row(r)[c]
            ))),
            None => Ok(()),
        }
    }

    /// Checks a training set: at least one row, finite features and, when
    /// `needs_labels`, one label per row; every label given must be finite.
    pub(crate) fn check_training(&self, y: &[f64], needs_labels: bool) -> Result<()> {
        if self.n_rows() == 0 {
            return Err(Error::data("the training set is empty"));
        }
        self.check_finite("training")?;
        if needs_labels && y.len() != self.n_rows() {
            return Err(Error::data(format!(
                "{} labels for {} training rows",
                y.len(),
                self.n_rows()
            )));
        }
        if let Some(i) = y.iter().position(|v| !v.is_finite()) {
            return Err(Error::data(format!(
                "label of training row {} is not finite ({})",
                i + 1,
                y[i]
            )));
        }
        Ok(())
    }

    /// Checks points to predict on: `n_features` columns, finite values.
    pub(crate) fn check_input(&self, n_features: usize) -> Result<()> {
        if self.n_cols() != n_features {
            return Err(Error::data(format!(
                "the model was fitted on {n_features} features, the input has {}",
                self.n_cols()
            )));
        }
        self.check_finite("input")
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

    /// Number of features.
    pub fn n_features(&self) -> usize {
        self.x.n_cols()
    }

    /// Checks that `y` is empty or has one value per row, and that `feature_names` is
    /// empty or has one name per column.
    pub fn check_shape(&self) -> Result<()> {
        if !self.y.is_empty() && self.y.len() != self.len() {
            return Err(Error::data(format!(
                "{} labels for {} samples",
                self.y.len(),
                self.len()
            )));
        }
        if !self.feature_names.is_empty() && self.feature_names.len() != self.x.n_cols() {
            return Err(Error::data(format!(
                "{} feature names for {} features",
                self.feature_names.len(),
                self.x.n_cols()
            )));
        }
        Ok(())
    }

    /// The feature names, or `f1..fd` when there are none.
    pub fn feature_names_or_default(&self) -> Vec<String> {
        if self.feature_names.is_empty() {
            (1..=self.x.n_cols()).map(|j| format!("f{j}")).collect()
        } else {
            self.feature_names.clone()
        }
    }

    /// The target name, or `label` when it is empty.
    pub(crate) fn target_name_or_default(&self) -> &str {
        if self.target_name.is_empty() {
            "label"
        } else {
            &self.target_name
        }
    }

    /// Checks that the data can train a classifier and returns its sorted distinct
    /// classes. Fails when there are no samples or no labels, when a label or feature is
    /// not finite, or when the labels are not classes (`check_training_labels`).
    pub fn validate_classification(&self) -> Result<Vec<f64>> {
        self.validate_common()?;
        check_training_labels(&self.y, self.len(), &self.target_name, true)
    }

    /// Checks that the data can train a regressor: samples, one finite target per
    /// sample, finite features.
    pub fn validate_regression(&self) -> Result<()> {
        self.validate_common()
    }

    fn validate_common(&self) -> Result<()> {
        check_training_labels(&self.y, self.len(), &self.target_name, false)?;
        self.check_shape()?;
        if let Some((i, j)) = self.x.find_non_finite() {
            return Err(Error::data(format!(
                "feature {} of sample {} is not finite ({})",
                j + 1,
                i + 1,
                self.x.row(i)[j]
            )));
        }
        Ok(())
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

/// The check of training labels or targets shared by every fit, dense or sparse: there
/// are samples (`n_rows`), one finite value per sample and, with `classes`, at least
/// two distinct labels that read as classes rather than a regression target (errors
/// name the column `target_name`, `label` when empty). Returns the sorted classes
/// (empty without `classes`).
pub(crate) fn check_training_labels(
    y: &[f64],
    n_rows: usize,
    target_name: &str,
    classes: bool,
) -> Result<Vec<f64>> {
    if n_rows == 0 {
        return Err(Error::data("the training data has no samples"));
    }
    if y.is_empty() {
        return Err(Error::data(
            "the training data has no labels (no label or target column was read)",
        ));
    }
    if y.len() != n_rows {
        return Err(Error::data(format!(
            "{} labels for {n_rows} samples",
            y.len()
        )));
    }
    if let Some(i) = y.iter().position(|v| !v.is_finite()) {
        return Err(Error::data(format!(
            "the label of sample {} is not finite ({})",
            i + 1,
            y[i]
        )));
    }
    if !classes {
        return Ok(Vec::new());
    }
    let classes = split::class_labels(y);
    if classes.len() < 2 {
        return Err(Error::data(format!(
            "only one class ({}) in the training data; classification needs at least two",
            classes[0]
        )));
    }
    // A continuous target given to a classifier: non-integer labels, or more than 50
    // distinct labels with fewer than two samples each on average (a classifier would
    // silently learn hundreds of "classes").
    let fractional = classes.iter().find(|c| c.fract() != 0.0);
    let too_many = classes.len() > 50 && 2 * classes.len() > n_rows;
    if fractional.is_none() && !too_many {
        return Ok(classes);
    }
    let why = match fractional {
        Some(c) => format!("non-integer labels such as {c}"),
        None => format!("{} distinct labels in {n_rows} rows", classes.len()),
    };
    let name = if target_name.is_empty() {
        "label"
    } else {
        target_name
    };
    Err(Error::data(format!(
        "column `{name}` looks like a regression target ({why}), not class labels: use a \
         regression method («method» svr, nu-svr or dank-svr; `svm` chooses svr when the \
         column is named `target`), or encode the classes as integers"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ds(x: Vec<f64>, y: Vec<f64>) -> Dataset {
        let n = y.len().max(1);
        Dataset {
            x: Features::new(n, x.len() / n, x).unwrap(),
            y,
            feature_names: vec![],
            target_name: String::new(),
        }
    }

    #[test]
    fn features_read_back_are_checked() {
        let x = Features::new(2, 3, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        let text = serde_json::to_string(&x).unwrap();
        assert_eq!(serde_json::from_str::<Features>(&text).unwrap(), x);
        let bad = |json: &str| {
            serde_json::from_str::<Features>(json)
                .unwrap_err()
                .to_string()
        };
        let e = bad(r#"{"n_rows": 3, "n_cols": 3, "values": [1, 2, 3, 4, 5, 6]}"#);
        assert!(
            e.contains("n_rows = 3 × n_cols = 3 needs 9 values, `values` has 6"),
            "{e}"
        );
        let huge = format!(r#"{{"n_rows": {}, "n_cols": 2, "values": []}}"#, usize::MAX);
        assert!(bad(&huge).contains("too large"));
        assert!(Features::new(usize::MAX, 2, vec![]).is_err());
        // Non-finite values cannot be written as JSON numbers; other formats are checked.
        let raw = RawFeatures {
            n_rows: 1,
            n_cols: 1,
            values: vec![f64::NAN],
        };
        assert!(Features::try_from(raw).unwrap_err().contains("values[0]"));
    }

    #[test]
    fn validate_classification_returns_classes() {
        let d = ds(vec![1.0, 2.0, 3.0], vec![2.0, -1.0, 2.0]);
        assert_eq!(d.validate_classification().unwrap(), vec![-1.0, 2.0]);
        d.validate_regression().unwrap();
    }

    #[test]
    fn validate_errors() {
        let msg = |d: &Dataset| d.validate_classification().unwrap_err().to_string();
        let one = ds(vec![1.0, 2.0], vec![1.0, 1.0]);
        assert!(msg(&one).contains("only one class (1) in the training data"));
        let none = ds(vec![1.0], vec![]);
        assert!(msg(&none).contains("no labels"));
        let empty = Dataset {
            x: Features::new(0, 2, vec![]).unwrap(),
            ..none.clone()
        };
        assert!(msg(&empty).contains("no samples"));
        assert!(empty.validate_regression().is_err());
        let nan_y = ds(vec![1.0, 2.0], vec![1.0, f64::NAN]);
        assert!(msg(&nan_y).contains("label of sample 2"));
        let nan_x = ds(vec![1.0, f64::INFINITY], vec![1.0, 2.0]);
        assert!(nan_x
            .validate_regression()
            .unwrap_err()
            .to_string()
            .contains("sample 2"));
        let ragged = Dataset {
            y: vec![1.0],
            ..ds(vec![1.0, 2.0], vec![1.0, 2.0])
        };
        assert!(matches!(ragged.check_shape(), Err(Error::InvalidData(_))));
    }
}
