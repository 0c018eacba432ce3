//! Per-sample weight files: one weight per training row, a number a line.

use super::text::read_text;
use crate::{Error, Result};
use std::path::Path;

/// Reads a weight file: one finite number a line, in the data's row order; blank lines
/// are skipped and a first line that is not a number at all is a header. The file goes
/// through the bounded reader (a FIFO or a device is refused, never read forever). A
/// number that is not finite (`NaN`, `inf`) is an error naming its line, on the first
/// line too: it parses as a number, so it is not a header. The count is checked against
/// the data by the caller, which knows the rows.
pub fn read_weight_file(path: &Path) -> Result<Vec<f64>> {
    let text = read_text(path)?;
    let mut weights = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        match line.parse::<f64>() {
            Ok(v) if v.is_finite() => weights.push(v),
            Err(_) if i == 0 => {} // a header
            _ => {
                return Err(Error::param(
                    "weight-file",
                    format!(
                        "{} line {}: `{line}` is not a finite number",
                        path.display(),
                        i + 1
                    ),
                ))
            }
        }
    }
    Ok(weights)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, text: &str) -> std::path::PathBuf {
        let path = std::env::temp_dir().join(format!("kernlearn-weights-{name}"));
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn a_header_blank_lines_and_numbers() {
        let path = file("ok", "weight\n1\n\n2.5\n0\n");
        assert_eq!(read_weight_file(&path).unwrap(), vec![1.0, 2.5, 0.0]);
    }

    /// `NaN` on the first line is a number that is not finite, not a header.
    #[test]
    fn non_finite_values_are_refused_on_every_line() {
        for (name, text, line) in [("nan1", "NaN\n1\n", 1), ("inf3", "w\n1\ninf\n", 3)] {
            let e = read_weight_file(&file(name, text)).unwrap_err().to_string();
            assert!(e.contains(&format!("line {line}")), "{e}");
            assert!(e.contains("not a finite number"), "{e}");
        }
        let e = read_weight_file(&file("text2", "w\nabc\n"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2"), "{e}");
    }

    /// A FIFO is refused by the bounded reader instead of blocking on `open`.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_fifo_is_refused() {
        let path = std::env::temp_dir().join("kernlearn-weights-fifo");
        let _ = std::fs::remove_file(&path);
        let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo reads a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_weight_file(&path).unwrap_err().to_string();
        assert!(e.contains("not a regular file"), "{e}");
        std::fs::remove_file(&path).unwrap();
    }
}
