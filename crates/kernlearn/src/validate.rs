//! Checks shared by the `validate` methods of fitted models and their parts (what
//! [`crate::Pipeline::load`] runs on every model file before it is used).
//!
//! A violation is an [`Error::InvalidData`] whose message starts with the field at fault,
//! as a path relative to the type being checked (`sv_coef[0] has 80 coefficients, …`);
//! [`within`] prefixes the path of the part, so a nested violation reads
//! `machines.machines[1].support[3] = 500 is out of range: …`.

use crate::{Error, Result};
use std::fmt::Display;

/// `Err(InvalidData(message()))` unless `ok`.
pub(crate) fn ensure(ok: bool, message: impl FnOnce() -> String) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::data(message()))
    }
}

/// The result of checking the part `field`, with `field` prefixed to its error: a
/// path for the part's own field errors (`field.sub …`), `field: …` for any other error
/// (an invalid parameter, say).
pub(crate) fn within<T>(field: impl Display, r: Result<T>) -> Result<T> {
    r.map_err(|e| match e {
        Error::InvalidData(m) => Error::data(format!("{field}.{m}")),
        other => Error::data(format!("{field}: {other}")),
    })
}

/// Every value of `field` is finite.
pub(crate) fn finite(field: impl Display, values: &[f64]) -> Result<()> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(i) => Err(Error::data(format!(
            "{field}[{i}] is not finite ({})",
            values[i]
        ))),
        None => Ok(()),
    }
}

/// The number `field` is finite.
pub(crate) fn finite_value(field: impl Display, value: f64) -> Result<()> {
    ensure(value.is_finite(), || {
        format!("{field} is not finite ({value})")
    })
}

/// Every index of `field` is below `bound`; `what` says what the bound counts.
pub(crate) fn indices_below(
    field: impl Display,
    indices: &[usize],
    bound: usize,
    what: impl Display,
) -> Result<()> {
    match indices.iter().position(|&i| i >= bound) {
        Some(p) => Err(Error::data(format!(
            "{field}[{p}] = {} is out of range: {what}",
            indices[p]
        ))),
        None => Ok(()),
    }
}

/// The class labels of a classifier: finite, distinct, at least two.
pub(crate) fn classes(field: impl Display, classes: &[f64]) -> Result<()> {
    finite(&field, classes)?;
    for (j, c) in classes.iter().enumerate() {
        if let Some(i) = classes[..j].iter().position(|d| d == c) {
            return Err(Error::data(format!(
                "{field}[{j}] = {c} repeats {field}[{i}]: class labels must be distinct"
            )));
        }
    }
    ensure(classes.len() >= 2, || match classes {
        [] => format!("{field} is empty; a classifier needs at least two classes"),
        [c] => format!("{field} has one class ({c}); a classifier needs at least two"),
        _ => unreachable!(),
    })
}

/// Number of class pairs of `k` classes, `k(k−1)/2` (saturating: `k` is a length).
pub(crate) fn pair_count(k: usize) -> usize {
    k.saturating_mul(k.saturating_sub(1)) / 2
}

/// The sum of counts read from a file (fit reports), saturating: a report is not
/// checked, and an absurd count must not overflow.
pub(crate) fn count_sum(counts: impl IntoIterator<Item = usize>) -> usize {
    counts.into_iter().fold(0, usize::saturating_add)
}

/// The error message of a part's check, without the `invalid data: ` of its display.
pub(crate) fn message(e: Error) -> String {
    match e {
        Error::InvalidData(m) => m,
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_messages() {
        let e = within(
            "machines[1]",
            indices_below("support", &[0, 7], 5, "5 points"),
        );
        assert_eq!(
            message(e.unwrap_err()),
            "machines[1].support[1] = 7 is out of range: 5 points"
        );
        let e = within("params", Err::<(), _>(Error::param("C", "must be > 0")));
        assert_eq!(
            message(e.unwrap_err()),
            "params: invalid parameter `C`: must be > 0"
        );
        assert!(classes("classes", &[1.0, -1.0]).is_ok());
        let m = |c: &[f64]| message(classes("classes", c).unwrap_err());
        assert!(m(&[1.0]).contains("one class (1)"), "{}", m(&[1.0]));
        assert!(m(&[]).contains("empty"));
        assert!(m(&[2.0, 3.0, 2.0]).contains("classes[2] = 2 repeats classes[0]"));
        assert!(m(&[f64::NAN, 1.0]).contains("classes[0] is not finite"));
        assert_eq!(pair_count(4), 6);
        assert_eq!(pair_count(0), 0);
        assert!(finite_value("rho", f64::INFINITY).is_err());
    }
}
