//! Scores of predictions: accuracy for classes, mean squared error and relative squared
//! error `Σ(ŷ−y)² / Σ(y−ȳ)²` (DANK's Table 4 "RMSE") for regression.

use crate::{Error, Result};

fn check(pred: &[f64], truth: &[f64]) -> Result<()> {
    if pred.len() != truth.len() {
        return Err(Error::data(format!(
            "{} predictions for {} true values",
            pred.len(),
            truth.len()
        )));
    }
    if truth.is_empty() {
        return Err(Error::data("no values to score"));
    }
    Ok(())
}

/// Fraction of exact matches.
pub fn accuracy(pred: &[f64], truth: &[f64]) -> Result<f64> {
    check(pred, truth)?;
    let hits = pred.iter().zip(truth).filter(|(p, t)| p == t).count();
    Ok(hits as f64 / truth.len() as f64)
}

/// Mean squared error `Σ(ŷ−y)²/n`.
pub fn mse(pred: &[f64], truth: &[f64]) -> Result<f64> {
    check(pred, truth)?;
    Ok(sum_sq_err(pred, truth) / truth.len() as f64)
}

/// Relative squared error `Σ(ŷ−y)² / Σ(y−ȳ)²` (1 = as good as predicting the mean).
pub fn relative_squared_error(pred: &[f64], truth: &[f64]) -> Result<f64> {
    check(pred, truth)?;
    let mean = truth.iter().sum::<f64>() / truth.len() as f64;
    let total: f64 = truth.iter().map(|t| (t - mean) * (t - mean)).sum();
    if total == 0.0 {
        return Err(Error::data(
            "relative squared error is undefined: every true value is the same",
        ));
    }
    Ok(sum_sq_err(pred, truth) / total)
}

fn sum_sq_err(pred: &[f64], truth: &[f64]) -> f64 {
    pred.iter().zip(truth).map(|(p, t)| (p - t) * (p - t)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_forms() {
        assert_eq!(
            accuracy(&[1.0, -1.0, 1.0, 1.0], &[1.0, 1.0, 1.0, -1.0]).unwrap(),
            0.5
        );
        assert_eq!(mse(&[1.0, 2.0], &[0.0, 0.0]).unwrap(), 2.5);
        // Predicting the mean gives RSE 1; perfect prediction gives 0.
        let y = [1.0, 2.0, 3.0];
        assert_eq!(relative_squared_error(&[2.0, 2.0, 2.0], &y).unwrap(), 1.0);
        assert_eq!(relative_squared_error(&y, &y).unwrap(), 0.0);
    }

    #[test]
    fn bad_input() {
        assert!(accuracy(&[1.0], &[1.0, 2.0]).is_err());
        assert!(mse(&[], &[]).is_err());
        assert!(relative_squared_error(&[1.0, 1.0], &[3.0, 3.0]).is_err());
    }
}
