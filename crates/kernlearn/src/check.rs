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

/// Memory this machine has available, in bytes (Linux `MemAvailable`; 16 GiB when it
/// cannot be read).
pub(crate) fn available_memory() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            let line = m.lines().find(|l| l.starts_with("MemAvailable:"))?;
            let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kb * 1024)
        })
        .unwrap_or(16 << 30)
}

/// Refuses work that needs more memory than is available, before it starts: `bytes`
/// is an estimate of what `what` needs; the error names the option to change.
pub(crate) fn memory_fits(option: &str, what: &str, bytes: f64) -> Result<()> {
    let available = available_memory() as f64;
    if bytes <= available {
        return Ok(());
    }
    Err(Error::param(
        option,
        format!(
            "{what} needs about {:.1} GB of memory, more than the {:.1} GB available",
            bytes / 1e9,
            available / 1e9
        ),
    ))
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
        assert!(memory_fits("kernels", "x", 1e3).is_ok());
        let e = memory_fits("kernels", "1e8 kernels", 1e30)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`kernels`") && e.contains("GB"), "{e}");
    }
}
