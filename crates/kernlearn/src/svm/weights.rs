//! The points a weighted fit keeps.

use super::model::SvmType;
use crate::{Error, Result};

/// The points of positive weight after checking one finite weight per point (`n` of
/// them); none left is the data error `none_left`.
pub(crate) fn positive_weights(weights: &[f64], n: usize, none_left: &str) -> Result<Vec<usize>> {
    if weights.len() != n {
        return Err(Error::param(
            "sample weights",
            format!("{} weights for {n} training points", weights.len()),
        ));
    }
    if let Some((i, v)) = weights.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        return Err(Error::param(
            "sample weights",
            format!("weight {i} is {v}; weights must be finite"),
        ));
    }
    let kept: Vec<usize> = (0..n).filter(|&i| weights[i] > 0.0).collect();
    if kept.is_empty() {
        return Err(Error::data(none_left));
    }
    Ok(kept)
}

/// The points of positive weight (LIBSVM's weighted variant and scikit-learn drop the
/// others), after checking that `weights` has one finite value per point, that some
/// are positive and, for classifiers, that every class keeps a point of positive weight
/// (at least two classes).
pub(super) fn positive_weight_points(
    svm_type: SvmType,
    y: &[f64],
    weights: &[f64],
    n: usize,
) -> Result<Vec<usize>> {
    let kept = positive_weights(
        weights,
        n,
        "Invalid input - all samples have zero or negative weights.",
    )?;
    if svm_type.is_classifier() {
        let mut classes: Vec<f64> = y.to_vec();
        classes.sort_by(f64::total_cmp);
        classes.dedup();
        let mut weighted: Vec<f64> = kept.iter().map(|&i| y[i]).collect();
        weighted.sort_by(f64::total_cmp);
        weighted.dedup();
        if weighted.len() < 2 {
            let what = if svm_type == SvmType::NuSvc {
                "specified nu is infeasible: "
            } else {
                ""
            };
            return Err(Error::data(format!(
                "{what}Invalid input - all samples with positive weights belong to the same \
                 class ({})",
                weighted[0]
            )));
        }
        if let Some(c) = classes.iter().find(|c| !weighted.contains(c)) {
            return Err(Error::data(format!(
                "class {c} has no sample of positive weight; remove its samples or weight \
                 some of them"
            )));
        }
    }
    Ok(kept)
}
