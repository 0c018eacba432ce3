//! What a grid search scores each fold's held-out rows by: the scorers of scikit-learn
//! that read only the predictions, weighted by the rows' sample weights when given (as
//! scikit-learn's scorers given `sample_weight`).

use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// A fold's score of its held-out predictions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scoring {
    /// Fraction of rows classified right (higher is better; classification's default).
    Accuracy,
    /// Mean over the classes present of each class's recall (higher is better):
    /// scikit-learn's `balanced_accuracy_score`, for unbalanced classes.
    BalancedAccuracy,
    /// Mean squared error (lower is better; regression's default).
    Mse,
    /// Mean absolute error (lower is better).
    Mae,
}

impl Scoring {
    /// The default of a task: accuracy for classes, MSE for regression.
    pub fn default_for(regression: bool) -> Self {
        if regression {
            Self::Mse
        } else {
            Self::Accuracy
        }
    }

    /// The name a selection reports (`accuracy`, `balanced_accuracy`, `mse`, `mae`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Accuracy => "accuracy",
            Self::BalancedAccuracy => "balanced_accuracy",
            Self::Mse => "mse",
            Self::Mae => "mae",
        }
    }

    /// Whether a larger score is better.
    pub fn higher_is_better(self) -> bool {
        matches!(self, Self::Accuracy | Self::BalancedAccuracy)
    }

    /// Whether it scores regression (errors of values) rather than classes.
    pub fn is_for_regression(self) -> bool {
        !self.higher_is_better()
    }

    /// The score of `pred` against `truth`, each row counted by its weight in `w`.
    pub(crate) fn score(self, pred: &[f64], truth: &[f64], w: Option<&[f64]>) -> Result<f64> {
        if pred.len() != truth.len() || w.is_some_and(|w| w.len() != truth.len()) {
            return Err(Error::data(format!(
                "{} predictions for {} true values",
                pred.len(),
                truth.len()
            )));
        }
        let weight = |i: usize| w.map_or(1.0, |w| w[i]);
        let mean = |loss: &dyn Fn(f64, f64) -> f64| -> Result<f64> {
            let (mut sum, mut total) = (0.0, 0.0);
            for (i, (&p, &t)) in pred.iter().zip(truth).enumerate() {
                sum += weight(i) * loss(p, t);
                total += weight(i);
            }
            // NaN-safe: a NaN total is refused too.
            if total.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
                return Err(no_weight());
            }
            Ok(sum / total)
        };
        match self {
            Self::Accuracy => mean(&|p, t| f64::from(u8::from(p == t))),
            Self::Mse => mean(&|p, t| (p - t) * (p - t)),
            Self::Mae => mean(&|p, t| (p - t).abs()),
            Self::BalancedAccuracy => {
                let mut classes: Vec<f64> = truth.to_vec();
                classes.sort_by(f64::total_cmp);
                classes.dedup();
                // Each class's weighted recall; a class of zero total weight has none
                // (scikit-learn leaves it out of the mean, with a warning).
                let recalls: Vec<f64> = classes
                    .iter()
                    .filter_map(|&c| {
                        let (mut hit, mut total) = (0.0, 0.0);
                        for (i, (&p, &t)) in pred.iter().zip(truth).enumerate() {
                            if t == c {
                                total += weight(i);
                                hit += weight(i) * f64::from(u8::from(p == t));
                            }
                        }
                        (total > 0.0).then(|| hit / total)
                    })
                    .collect();
                if recalls.is_empty() {
                    return Err(no_weight());
                }
                Ok(recalls.iter().sum::<f64>() / recalls.len() as f64)
            }
        }
    }
}

/// A fold whose held-out rows weigh nothing: no score.
fn no_weight() -> Error {
    Error::data(
        "a fold's test points all have zero or negative weight (or there are none); use \
         fewer folds or other weights",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_equal_their_definitions() {
        let truth = [0.0, 0.0, 0.0, 1.0, 2.0, 2.0];
        let pred = [0.0, 0.0, 1.0, 1.0, 0.0, 2.0];
        assert_eq!(
            Scoring::Accuracy.score(&pred, &truth, None).unwrap(),
            4.0 / 6.0
        );
        // Recalls 2/3, 1 and 1/2 (scikit-learn's balanced_accuracy_score: 0.722…).
        let b = Scoring::BalancedAccuracy
            .score(&pred, &truth, None)
            .unwrap();
        assert!((b - (2.0 / 3.0 + 1.0 + 0.5) / 3.0).abs() < 1e-15);
        let w = [1.0, 1.0, 2.0, 1.0, 0.0, 3.0];
        // Class 0: 2 of 4; class 1: 1 of 1; class 2: 3 of 3.
        let bw = Scoring::BalancedAccuracy
            .score(&pred, &truth, Some(&w))
            .unwrap();
        assert!((bw - (0.5 + 1.0 + 1.0) / 3.0).abs() < 1e-15);
        assert_eq!(
            Scoring::Mse.score(&[1.0, 3.0], &[0.0, 0.0], None).unwrap(),
            5.0
        );
        assert_eq!(
            Scoring::Mae
                .score(&[1.0, -3.0], &[0.0, 0.0], Some(&[3.0, 1.0]))
                .unwrap(),
            1.5
        );
        assert!(Scoring::Accuracy
            .score(&[1.0], &[1.0], Some(&[0.0]))
            .is_err());
        assert!(Scoring::Accuracy.score(&[1.0], &[1.0, 2.0], None).is_err());
    }
}
