//! Checks of parameter domains shared by every module, so each domain has one message.

use crate::{Error, Result};

/// `value` must be finite and `> 0`; the error names the parameter `name`.
pub(crate) fn positive_finite(name: &str, value: f64) -> Result<()> {
    if value > 0.0 && value.is_finite() {
        Ok(())
    } else {
        Err(Error::param(
            name,
            format!("must be finite and > 0, got {value}"),
        ))
    }
}

/// `value` must be finite and `≥ 0`; the error names the parameter `name`.
pub(crate) fn non_negative_finite(name: &str, value: f64) -> Result<()> {
    if value >= 0.0 && value.is_finite() {
        Ok(())
    } else {
        Err(Error::param(
            name,
            format!("must be finite and >= 0, got {value}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains() {
        assert!(positive_finite("c", 1e-300).is_ok());
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let e = positive_finite("c", bad).unwrap_err().to_string();
            assert!(e.contains("`c`"), "{e}");
        }
        assert!(non_negative_finite("tau", 0.0).is_ok());
        assert!(non_negative_finite("tau", f64::NAN).is_err());
    }
}
