//! Helpers shared by the readers and writers: reading text files, iterating lines,
//! parsing and printing numbers.

use crate::{Error, Result};
use std::fmt::Write as _;
use std::path::Path;

/// Reads `path` whole, through the one bounded reader every input goes through: only a
/// regular file is opened (a directory, a device such as `/dev/zero`, a FIFO or a socket
/// is refused before `open`, which would block on a FIFO), and at most the smaller of
/// half the available memory and [`MAX_INPUT_BYTES`] is read, so an endless or growing
/// stream ends in an error naming the file instead of a hang or an abort.
pub(crate) fn read_bounded(path: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let refuse = |why: String| {
        Error::io(
            path,
            std::io::Error::new(std::io::ErrorKind::InvalidInput, why),
        )
    };
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if meta.is_dir() {
        return Err(refuse("it is a directory, not a file".into()));
    }
    if !meta.is_file() {
        return Err(refuse(
            "it is not a regular file (a device, FIFO or socket); kernlearn reads only \
             regular files"
                .into(),
        ));
    }
    let limit = (crate::check::available_memory() / 2).min(MAX_INPUT_BYTES);
    if meta.len() > limit {
        return Err(refuse(format!(
            "the file has {} bytes, more than the {limit} bytes kernlearn reads from one input",
            meta.len()
        )));
    }
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > limit {
        return Err(refuse(format!(
            "the file grew past {limit} bytes while it was read; kernlearn reads at most \
             that from one input"
        )));
    }
    Ok(bytes)
}

/// The largest input file read (16 GiB): far above any dataset a dense in-memory
/// reader can hold, low enough that a runaway stream stops in seconds of disk reads.
pub(crate) const MAX_INPUT_BYTES: u64 = 16 << 30;

/// Reads `path` as UTF-8 text through [`read_bounded`]; invalid UTF-8 is reported with
/// its line number.
pub(crate) fn read_text(path: &Path) -> Result<String> {
    let bytes = read_bounded(path)?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
        Error::parse(
            path.display().to_string(),
            line,
            0,
            "the file is not UTF-8 text (is it a binary or compressed file?)",
        )
    })
}

/// Writes `text` to `path`, mapping failures to [`Error::Io`].
pub(crate) fn write_text(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| Error::io(path, e))
}

/// Iterates over `(1-based line number, line)` with `\r\n` endings and a leading UTF-8
/// byte-order mark removed. Blank lines are included (callers decide).
pub(crate) fn numbered_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.split('\n').enumerate().map(|(i, l)| {
        let l = l.strip_suffix('\r').unwrap_or(l);
        (i + 1, l)
    })
}

/// Why a field is not a usable number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NumberError {
    /// Empty or a missing-value marker (`?`, `NA`, ...).
    Missing,
    /// Not a number at all.
    Invalid,
    /// `nan`, `inf` or a value that overflows.
    NonFinite,
}

/// Parses a trimmed decimal number and requires it to be finite.
#[inline]
pub(crate) fn parse_finite(s: &str) -> std::result::Result<f64, NumberError> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => Err(NumberError::NonFinite),
        Err(_) if is_missing_marker(s) => Err(NumberError::Missing),
        Err(_) => Err(NumberError::Invalid),
    }
}

fn is_missing_marker(s: &str) -> bool {
    matches!(s, "" | "?" | "<null>" | "-")
        || s.eq_ignore_ascii_case("na")
        || s.eq_ignore_ascii_case("n/a")
        || s.eq_ignore_ascii_case("null")
}

/// The message for a field that failed [`parse_finite`]; `what` names the place
/// (e.g. ``column 3 (`age`)``).
pub(crate) fn number_message(what: &str, raw: &str, err: NumberError) -> String {
    match err {
        NumberError::Missing if raw.is_empty() => format!(
            "{what}: empty field; missing values are not supported (remove or impute them first)"
        ),
        NumberError::Missing => format!(
            "{what}: missing value `{raw}`; missing values are not supported \
             (remove or impute them first)"
        ),
        NumberError::Invalid => format!("{what}: cannot parse `{raw}` as a number"),
        NumberError::NonFinite => format!("{what}: non-finite value `{raw}`"),
    }
}

/// Appends `v` in the shortest form that reads back to the same `f64`
/// (integers without a trailing `.0`, exponents for very large or small magnitudes).
#[inline]
pub(crate) fn push_f64(out: &mut String, v: f64) {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        let _ = write!(out, "{v}");
    } else {
        let _ = write!(out, "{v:?}");
    }
}

/// [`push_f64`] into a new string.
pub(crate) fn fmt_f64(v: f64) -> String {
    let mut s = String::new();
    push_f64(&mut s, v);
    s
}

/// The display name of a path for error messages.
pub(crate) fn source_name(path: &Path) -> String {
    path.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_round_trip_in_short_form() {
        for v in [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            0.1 + 0.2,
            1e-7,
            1e300,
            -2.5e-300,
            123456.789,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            1e15,
            999_999_999_999_999.0,
        ] {
            let s = fmt_f64(v);
            assert_eq!(s.parse::<f64>().unwrap().to_bits(), v.to_bits(), "{s}");
        }
        assert_eq!(fmt_f64(3.0), "3");
        assert_eq!(fmt_f64(-1.0), "-1");
        assert_eq!(fmt_f64(0.25), "0.25");
        assert_eq!(fmt_f64(1e-7), "1e-7");
    }

    #[test]
    fn parse_finite_classifies_failures() {
        assert_eq!(parse_finite("+1"), Ok(1.0));
        assert_eq!(parse_finite("-2.5e3"), Ok(-2500.0));
        assert_eq!(parse_finite("nan"), Err(NumberError::NonFinite));
        assert_eq!(parse_finite("-Infinity"), Err(NumberError::NonFinite));
        assert_eq!(parse_finite("1e400"), Err(NumberError::NonFinite));
        assert_eq!(parse_finite("?"), Err(NumberError::Missing));
        assert_eq!(parse_finite(""), Err(NumberError::Missing));
        assert_eq!(parse_finite("NA"), Err(NumberError::Missing));
        assert_eq!(parse_finite("abc"), Err(NumberError::Invalid));
        assert_eq!(parse_finite("1,5"), Err(NumberError::Invalid));
    }

    #[test]
    fn lines_strip_crlf_and_bom() {
        let v: Vec<_> = numbered_lines("\u{feff}a\r\nb\n\nc").collect();
        assert_eq!(v, vec![(1, "a"), (2, "b"), (3, ""), (4, "c")]);
    }
}
