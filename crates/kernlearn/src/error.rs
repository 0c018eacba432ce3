//! The one error type of the library: every failure names what went wrong and where.

use std::path::PathBuf;

/// Errors returned by kernlearn. Messages name the file, line, column or parameter at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An operating-system error while reading or writing `path`.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Malformed input text. `line` and `column` are 1-based; `column` is 0 when unknown.
    #[error("{}", format_parse(source_name, *line, *column, message))]
    Parse {
        source_name: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// A hyper-parameter outside its domain (e.g. `C <= 0`).
    #[error("invalid parameter `{name}`: {reason}")]
    InvalidParameter { name: String, reason: String },
    /// Data that cannot be used for the requested task (one class only, NaN, shape mismatch...).
    #[error("invalid data: {0}")]
    InvalidData(String),
    /// A numerical computation that failed on valid input: an eigendecomposition or
    /// factorisation that did not succeed, a solver that did not converge, a non-finite
    /// objective or iterate.
    #[error("numerical failure: {0}")]
    Numerical(String),
    /// A model file that cannot be read back.
    #[error("model file {path}: {reason}")]
    Model { path: String, reason: String },
    /// A figure that cannot be drawn or written (unsupported extension, missing
    /// directory, backend error).
    #[error("plot {path}: {reason}")]
    Plot { path: String, reason: String },
    /// Refusal to overwrite something the user gave us.
    #[error("refusing to write {path}: {reason}")]
    WouldOverwrite { path: String, reason: String },
}

fn format_parse(source_name: &str, line: usize, column: usize, message: &str) -> String {
    match (line, column) {
        (0, _) => format!("{source_name}: {message}"),
        (l, 0) => format!("{source_name}:{l}: {message}"),
        (l, c) => format!("{source_name}:{l}:{c}: {message}"),
    }
}

impl Error {
    /// Shorthand for [`Error::InvalidParameter`].
    pub fn param(name: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::InvalidParameter {
            name: name.into(),
            reason: reason.into(),
        }
    }

    /// Shorthand for [`Error::InvalidData`].
    pub fn data(reason: impl Into<String>) -> Self {
        Error::InvalidData(reason.into())
    }

    /// Shorthand for [`Error::Numerical`].
    pub(crate) fn numerical(reason: impl Into<String>) -> Self {
        Error::Numerical(reason.into())
    }

    /// Shorthand for [`Error::Parse`].
    pub(crate) fn parse(
        source_name: impl Into<String>,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> Self {
        Error::Parse {
            source_name: source_name.into(),
            line,
            column,
            message: message.into(),
        }
    }

    /// Shorthand for [`Error::Io`].
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}

/// Result alias used throughout the crate.
pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numerical_failures_say_so() {
        let e = Error::numerical("symmetric eigendecomposition failed");
        assert!(matches!(e, Error::Numerical(_)));
        assert_eq!(
            e.to_string(),
            "numerical failure: symmetric eigendecomposition failed"
        );
    }
}
