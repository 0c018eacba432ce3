//! Choosing a reader or writer by format name or file extension.

use super::{csv, keel, libsvm, Dataset};
use crate::{Error, Result};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// A dataset file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Comma-separated values with a header row (see [`csv`](super::csv)).
    Csv,
    /// LIBSVM / SVMlight sparse text (see [`libsvm`](super::libsvm)).
    Libsvm,
    /// KEEL `.dat` (see [`keel`](super::keel)).
    Keel,
    /// A Gram-set manifest `.json`: samples given by kernel values only (see
    /// [`gram`](super::gram)); read-only.
    Gram,
}

impl Format {
    /// The format name as the CLI spells it (`csv`, `libsvm`, `keel`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Libsvm => "libsvm",
            Format::Keel => "keel",
            Format::Gram => "gram",
        }
    }

    /// Guesses the format from the extension of `path`: `.csv` → CSV;
    /// `.libsvm`, `.svm`, `.svmlight`, `.txt`, `.scale`, `.t` → LIBSVM; `.dat` → KEEL.
    pub fn from_path(path: &Path) -> Result<Format> {
        if path.is_dir() {
            return Err(Error::data(format!(
                "`{}` is a directory; give a data file",
                path.display()
            )));
        }
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("csv") => Ok(Format::Csv),
            Some("libsvm" | "svm" | "svmlight" | "txt" | "scale" | "t") => Ok(Format::Libsvm),
            Some("dat") => Ok(Format::Keel),
            Some("json") => Ok(Format::Gram),
            _ => Err(Error::param(
                "format",
                format!(
                    "cannot tell the format of `{}` from its extension; \
                     pass «format» csv, libsvm, keel or gram",
                    path.display()
                ),
            )),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = Error;

    fn from_str(s: &str) -> Result<Format> {
        match s.trim().to_ascii_lowercase().as_str() {
            "csv" => Ok(Format::Csv),
            "libsvm" | "svmlight" => Ok(Format::Libsvm),
            "keel" => Ok(Format::Keel),
            "gram" => Ok(Format::Gram),
            _ => Err(Error::param(
                "format",
                format!("unknown format `{s}`; expected one of csv, libsvm, keel, gram"),
            )),
        }
    }
}

/// Reads a dataset in `format`, or the format guessed from the extension.
///
/// `target` names the label column (CSV) or attribute (KEEL); LIBSVM files have no
/// names, so a `target` is an error there.
pub fn read_dataset(path: &Path, format: Option<Format>, target: Option<&str>) -> Result<Dataset> {
    let format = match format {
        Some(f) => f,
        None => Format::from_path(path)?,
    };
    match format {
        Format::Csv => csv::read_csv(path, target),
        Format::Libsvm => match target {
            Some(t) => Err(Error::param(
                "target",
                format!(
                    "`{t}`: LIBSVM files have no column names; the label is always first on \
                     each line"
                ),
            )),
            None => libsvm::read_libsvm(path, None),
        },
        Format::Keel => {
            let text = super::text::read_text(path)?;
            keel::parse_keel_with_target(&text, &path.display().to_string(), target)
        }
        Format::Gram => match target {
            Some(t) => Err(Error::param(
                "target",
                format!("`{t}`: a Gram set names its labels file in the manifest (`labels`)"),
            )),
            None => super::gram::read_gram_set(path),
        },
    }
}

/// Writes `data` to `path` in `format`, replacing the file if it exists (the overwrite
/// policy is the caller's; see [`ensure_not_same_file`]).
pub fn write_dataset(path: &Path, data: &Dataset, format: Format) -> Result<()> {
    match format {
        Format::Csv => csv::write_csv(path, data),
        Format::Libsvm => libsvm::write_libsvm(path, data),
        Format::Keel => keel::write_keel(path, data),
        Format::Gram => Err(Error::param(
            "format",
            "gram sets are read-only (write the kernel files and a manifest yourself)",
        )),
    }
}

/// Fails with [`Error::WouldOverwrite`] when `output` is the same file as one of
/// `inputs` (after resolving symbolic links and `..` where the files exist).
pub fn ensure_not_same_file(output: &Path, inputs: &[&Path]) -> Result<()> {
    let out = resolve(output);
    for input in inputs {
        if same_file(output, input) || out == resolve(input) {
            return Err(Error::WouldOverwrite {
                path: output.display().to_string(),
                reason: format!("it is the input file `{}`", input.display()),
            });
        }
    }
    Ok(())
}

/// Canonical path when it exists; otherwise the canonical parent joined with the name,
/// or the absolute path as given.
fn resolve(path: &Path) -> PathBuf {
    if let Ok(p) = path.canonicalize() {
        return p;
    }
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
    let parent = parent.map_or_else(|| Path::new(".").canonicalize(), Path::canonicalize);
    match (parent, path.file_name()) {
        (Ok(dir), Some(name)) => dir.join(name),
        _ => std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()),
    }
}

/// Same device and inode (hard links included); false when either does not exist.
#[cfg(unix)]
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_: &Path, _: &Path) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Features;

    fn temp_dir(tag: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("kernlearn-format-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn formats_from_extensions_and_names() {
        let f = |p: &str| Format::from_path(Path::new(p)).unwrap();
        assert_eq!(f("a/b.CSV"), Format::Csv);
        for p in ["x.libsvm", "x.svm", "x.svmlight", "x.txt", "x.scale", "x.t"] {
            assert_eq!(f(p), Format::Libsvm);
        }
        assert_eq!(f("x.dat"), Format::Keel);
        let err = Format::from_path(Path::new("x.xlsx")).unwrap_err();
        assert!(err.to_string().contains("«format»"), "{err}");
        assert!(Format::from_path(Path::new("noext")).is_err());
        for fmt in [Format::Csv, Format::Libsvm, Format::Keel] {
            assert_eq!(fmt.to_string().parse::<Format>().unwrap(), fmt);
        }
        assert!("arff".parse::<Format>().is_err());
    }

    #[test]
    fn write_and_read_every_format() {
        let dir = temp_dir("rw");
        let d = Dataset {
            x: Features::new(3, 2, vec![0.0, 1.5, -2.0, 0.0, 1e-5, 3.0]).unwrap(),
            y: vec![1.0, -1.0, 1.0],
            feature_names: vec!["f1".into(), "f2".into()],
            target_name: "label".into(),
        };
        for (name, fmt) in [
            ("d.csv", Format::Csv),
            ("d.svm", Format::Libsvm),
            ("d.dat", Format::Keel),
        ] {
            let path = dir.join(name);
            write_dataset(&path, &d, fmt).unwrap();
            assert_eq!(read_dataset(&path, None, None).unwrap(), d, "{name}");
            assert_eq!(read_dataset(&path, Some(fmt), None).unwrap(), d, "{name}");
        }
        let picked = read_dataset(&dir.join("d.csv"), None, Some("f1")).unwrap();
        assert_eq!(picked.y, vec![0.0, -2.0, 1e-5]);
        assert!(read_dataset(&dir.join("d.svm"), None, Some("f1")).is_err());
        let missing = read_dataset(&dir.join("nope.csv"), None, None).unwrap_err();
        assert!(matches!(missing, Error::Io { .. }));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn same_file_detection() {
        let dir = temp_dir("same");
        let input = dir.join("in.csv");
        std::fs::write(&input, "a,label\n1,1\n").unwrap();
        let dotted = dir.join(".").join("in.csv");
        let err = ensure_not_same_file(&dotted, &[Path::new("other.csv"), &input]).unwrap_err();
        assert!(matches!(err, Error::WouldOverwrite { .. }));
        ensure_not_same_file(&dir.join("out.csv"), &[&input]).unwrap();
        // Neither exists: compared by resolved path.
        let a = dir.join("new.csv");
        let b = dir.join("sub").join("..").join("new.csv");
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        assert!(ensure_not_same_file(&a, &[&b]).is_err());
        #[cfg(unix)]
        {
            let link = dir.join("link.csv");
            std::os::unix::fs::symlink(&input, &link).unwrap();
            assert!(ensure_not_same_file(&link, &[&input]).is_err());
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
}
