//! The rows a weighted fit keeps: per-sample weights checked (one finite weight per
//! row) and the rows of zero or negative weight left out, as absent rows (LIBSVM's
//! `remove_zero_weight`), for the learned-kernel methods that honour weights.

use crate::data::Features;
use crate::multiclass::{BinaryMachine, OneVsOne};
use crate::Result;

/// One-vs-one machines on the rows of positive weight (every row without weights):
/// `fit_pair` gets each class pair's rows, their ±1 labels and, when weighted, their
/// weights. Also returns how many rows were fitted on.
pub(crate) fn one_vs_one_weighted<M: BinaryMachine>(
    x: &Features,
    y: &[f64],
    weights: Option<&[f64]>,
    mut fit_pair: impl FnMut(&Features, &[f64], Option<&[f64]>) -> Result<M>,
) -> Result<(OneVsOne<M>, usize)> {
    let Some(weights) = weights else {
        let machines = OneVsOne::fit_indexed(x, y, |xp, yp, _| fit_pair(xp, yp, None))?;
        return Ok((machines, x.n_rows()));
    };
    let rows = crate::svm::positive_weights(
        weights,
        y.len(),
        "every sample weight is zero or negative: no row is left to fit",
    )?;
    let (x, y) = (
        x.select_rows(&rows),
        rows.iter().map(|&t| y[t]).collect::<Vec<_>>(),
    );
    let w: Vec<f64> = rows.iter().map(|&t| weights[t]).collect();
    let machines = OneVsOne::fit_indexed(&x, &y, |xp, yp, pair_rows| {
        let wp: Vec<f64> = pair_rows.iter().map(|&t| w[t]).collect();
        fit_pair(xp, yp, Some(&wp))
    })?;
    Ok((machines, rows.len()))
}
