//! The rows a weighted fit keeps: per-sample weights checked (one finite weight per
//! row) and the rows of zero or negative weight left out, as absent rows (LIBSVM's
//! `remove_zero_weight`), for the learned-kernel methods that honour weights.

use crate::data::Features;
use crate::Result;

/// The rows of positive weight (features, labels, weights): what a weighted fit sees.
pub(crate) struct PositiveRows {
    /// Their features.
    pub(crate) x: Features,
    /// Their labels.
    pub(crate) y: Vec<f64>,
    /// Their weights, all positive.
    pub(crate) w: Vec<f64>,
}

/// The rows of `(x, y)` whose weight in `weights` is positive, after checking one finite
/// weight per row; no row left is an error.
pub(crate) fn positive_rows(x: &Features, y: &[f64], weights: &[f64]) -> Result<PositiveRows> {
    let rows = crate::svm::positive_weights(
        weights,
        y.len(),
        "every sample weight is zero or negative: no row is left to fit",
    )?;
    Ok(PositiveRows {
        x: x.select_rows(&rows),
        y: rows.iter().map(|&t| y[t]).collect(),
        w: rows.iter().map(|&t| weights[t]).collect(),
    })
}
