//! Kernel-only input: samples given by their kernel values instead of features (the DKMO
//! paper's §III-A.1 setting: protein sequences, graphs, anything with a similarity).
//!
//! A *Gram set* is a small JSON manifest naming one or more kernel files and, optionally,
//! a labels file (paths relative to the manifest):
//!
//! ```json
//! {"kernels": ["fou.csv", "kar.csv"], "labels": "y.csv"}
//! ```
//!
//! - For training, each kernel file is the `n × n` Gram matrix `K_ij = k(x_i, x_j)` of
//!   the training samples; for prediction, the `t × n` rows `k(x_test_i, x_train_j)`
//!   against the same training samples in the same order.
//! - A kernel file is plain numbers, one matrix row per line, separated by commas or
//!   white space, no header; blank lines are skipped.
//! - The labels file holds one label per line (one per matrix row).
//!
//! The result is a [`Dataset`] whose row `i` is `[K_1(i, ·), …, K_M(i, ·)]` (the LIBSVM
//! `-t 4` convention of [`crate::kernel::Kernel::Precomputed`], one block per kernel):
//! fit it with `--kernel precomputed` (DKMO, M-DKMO). Reading checks that every kernel
//! has the same number of rows and of columns and that the labels match the rows; the
//! checks that need the training role (square, symmetric, positive semidefinite) are
//! [`crate::dkmo::check_gram`], run when a model is fitted.

use super::text::{number_message, numbered_lines, parse_finite, read_text, source_name};
use super::{Dataset, Features};
use crate::{Error, Result};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The manifest of a Gram set.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    kernels: Vec<PathBuf>,
    #[serde(default)]
    labels: Option<PathBuf>,
}

/// One kernel file read as a dense row-major matrix.
struct KernelFile {
    rows: usize,
    cols: usize,
    values: Vec<f64>,
}

/// The files a Gram-set manifest names (kernels, then labels), each resolved against
/// the manifest's folder and confined to it (see [`read_gram_set`]). A command that
/// reads the set counts every one of them as an input, so no output replaces one.
pub fn gram_set_files(manifest: &Path) -> Result<Vec<PathBuf>> {
    let m = read_manifest(manifest)?;
    let dir = manifest_dir(manifest);
    m.kernels
        .iter()
        .chain(m.labels.as_ref())
        .map(|p| confined(manifest, dir, p))
        .collect()
}

fn manifest_dir(manifest: &Path) -> &Path {
    match manifest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// `name` joined to the manifest's folder, refused when it would leave that folder: an
/// absolute path, a `..` component, or a link resolving outside it. A manifest from
/// elsewhere cannot make kernlearn read (and quote in an error) an unrelated file; the
/// refusal names the manifest and the entry's position, never the file it points at.
fn confined(manifest: &Path, dir: &Path, name: &Path) -> Result<PathBuf> {
    use std::path::Component;
    let refuse = |why: &str| {
        Error::data(format!(
            "{}: a path in the manifest {why}; kernel and label files must be inside the \
             manifest's folder (copy them there and name them relative to it)",
            manifest.display()
        ))
    };
    if name.as_os_str().is_empty() {
        return Err(refuse("is empty"));
    }
    if name
        .components()
        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(refuse("is absolute or climbs out with `..`"));
    }
    let path = dir.join(name);
    if let (Ok(real), Ok(root)) = (path.canonicalize(), dir.canonicalize()) {
        if !real.starts_with(&root) {
            return Err(refuse("is a link that leads outside the folder"));
        }
    }
    Ok(path)
}

fn read_manifest(manifest: &Path) -> Result<Manifest> {
    let text = read_text(manifest)?;
    let m: Manifest = serde_json::from_str(&text).map_err(|e| {
        Error::parse(
            source_name(manifest),
            e.line(),
            e.column(),
            format!(
                "not a Gram-set manifest ({e}); expected {{\"kernels\": [\"K1.csv\", …], \
                 \"labels\": \"y.csv\"}}"
            ),
        )
    })?;
    if m.kernels.is_empty() {
        return Err(Error::data(format!(
            "{}: `kernels` is empty; name at least one kernel file",
            manifest.display()
        )));
    }
    Ok(m)
}

/// Reads a Gram-set manifest and its files into a [`Dataset`] (see the module docs).
/// Every path the manifest names must lie inside the manifest's folder.
pub fn read_gram_set(manifest: &Path) -> Result<Dataset> {
    let m = read_manifest(manifest)?;
    let dir = manifest_dir(manifest);
    let paths = m
        .kernels
        .iter()
        .map(|p| confined(manifest, dir, p))
        .collect::<Result<Vec<_>>>()?;
    let labels = m
        .labels
        .as_ref()
        .map(|p| confined(manifest, dir, p))
        .transpose()?;
    let kernels = paths
        .iter()
        .map(|p| read_kernel_file(p))
        .collect::<Result<Vec<_>>>()?;
    check_same_shape(&kernels, &paths)?;
    let y = match &labels {
        Some(p) => read_labels(p, kernels[0].rows)?,
        None => Vec::new(),
    };
    Ok(stack(&kernels, y))
}

/// The kernels side by side: row `i` is `[K_1(i, ·), …, K_M(i, ·)]`; columns named
/// `k<m>_<j>` (kernel `m`, training sample `j`, both 1-based).
fn stack(kernels: &[KernelFile], y: Vec<f64>) -> Dataset {
    let (rows, cols) = (kernels[0].rows, kernels[0].cols);
    let width = cols * kernels.len();
    let mut values = Vec::with_capacity(rows * width);
    for i in 0..rows {
        for k in kernels {
            values.extend_from_slice(&k.values[i * cols..(i + 1) * cols]);
        }
    }
    let feature_names = (1..=kernels.len())
        .flat_map(|m| (1..=cols).map(move |j| format!("k{m}_{j}")))
        .collect();
    Dataset {
        x: Features::new(rows, width, values).expect("sizes computed above"),
        y,
        feature_names,
        target_name: "label".into(),
    }
}

/// Every kernel must describe the same samples against the same training samples.
fn check_same_shape(kernels: &[KernelFile], paths: &[PathBuf]) -> Result<()> {
    let first = &kernels[0];
    for (k, path) in kernels.iter().zip(paths).skip(1) {
        if k.rows != first.rows || k.cols != first.cols {
            return Err(Error::data(format!(
                "kernels with different sample counts: `{}` is {}×{}, but `{}` is {}×{}; \
                 every kernel of a Gram set must cover the same samples in the same order",
                path.display(),
                k.rows,
                k.cols,
                paths[0].display(),
                first.rows,
                first.cols
            )));
        }
    }
    Ok(())
}

/// A matrix of numbers, one row per non-blank line, every row the same width.
fn read_kernel_file(path: &Path) -> Result<KernelFile> {
    let text = read_text(path)?;
    let name = source_name(path);
    let mut values = Vec::new();
    let (mut rows, mut cols) = (0usize, None);
    for (line_no, line) in numbered_lines(&text) {
        if line.trim().is_empty() {
            continue;
        }
        let before = values.len();
        for (c, field) in line
            .split(|ch: char| ch == ',' || ch.is_whitespace())
            .filter(|f| !f.is_empty())
            .enumerate()
        {
            let v = parse_finite(field).map_err(|e| {
                Error::parse(
                    &name,
                    line_no,
                    c + 1,
                    number_message("kernel value", field, e),
                )
            })?;
            values.push(v);
        }
        let width = values.len() - before;
        match cols {
            None => cols = Some(width),
            Some(w) if w != width => {
                return Err(Error::parse(
                    &name,
                    line_no,
                    0,
                    format!("row has {width} kernel values, the first row has {w}"),
                ))
            }
            _ => {}
        }
        rows += 1;
    }
    let cols = cols.ok_or_else(|| Error::data(format!("kernel file `{name}` has no rows")))?;
    Ok(KernelFile { rows, cols, values })
}

/// One label per non-blank line; exactly `rows` of them.
fn read_labels(path: &Path, rows: usize) -> Result<Vec<f64>> {
    let text = read_text(path)?;
    let name = source_name(path);
    let mut y = Vec::with_capacity(rows);
    for (line_no, line) in numbered_lines(&text) {
        let field = line.trim();
        if field.is_empty() {
            continue;
        }
        let v = parse_finite(field)
            .map_err(|e| Error::parse(&name, line_no, 1, number_message("label", field, e)))?;
        y.push(v);
    }
    if y.len() != rows {
        return Err(Error::data(format!(
            "labels file `{name}` has {} labels, the kernels have {rows} rows",
            y.len()
        )));
    }
    Ok(y)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("kernlearn-gram-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn write(dir: &Path, name: &str, text: &str) {
        std::fs::write(dir.join(name), text).unwrap();
    }

    #[test]
    fn a_gram_set_stacks_its_kernels_row_by_row() {
        let dir = scratch("stack");
        write(dir.as_path(), "a.csv", "1,0.5\n0.5,1\n");
        write(dir.as_path(), "b.csv", "2 1\n1 2\n\n");
        write(dir.as_path(), "y.txt", "1\n2\n");
        write(
            dir.as_path(),
            "set.json",
            r#"{"kernels": ["a.csv", "b.csv"], "labels": "y.txt"}"#,
        );
        let d = read_gram_set(&dir.as_path().join("set.json")).unwrap();
        assert_eq!(d.x.row(0), &[1.0, 0.5, 2.0, 1.0]);
        assert_eq!(d.x.row(1), &[0.5, 1.0, 1.0, 2.0]);
        assert_eq!(d.y, vec![1.0, 2.0]);
        assert_eq!(d.feature_names[2], "k2_1");
    }

    #[test]
    fn kernels_of_different_sample_counts_are_refused() {
        let dir = scratch("counts");
        write(dir.as_path(), "a.csv", "1,0.5\n0.5,1\n");
        write(dir.as_path(), "b.csv", "1,0.5,0\n0.5,1,0\n0,0,1\n");
        write(
            dir.as_path(),
            "set.json",
            r#"{"kernels": ["a.csv", "b.csv"]}"#,
        );
        let e = read_gram_set(&dir.as_path().join("set.json"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("different sample counts") && e.contains("b.csv"),
            "{e}"
        );
    }

    #[test]
    fn ragged_rows_and_label_counts_are_refused() {
        let dir = scratch("ragged");
        write(dir.as_path(), "a.csv", "1,0.5\n0.5\n");
        write(dir.as_path(), "set.json", r#"{"kernels": ["a.csv"]}"#);
        let e = read_gram_set(&dir.as_path().join("set.json"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("a.csv") && e.contains("row has 1"), "{e}");
        write(dir.as_path(), "a.csv", "1,0.5\n0.5,1\n");
        write(dir.as_path(), "y.txt", "1\n");
        write(
            dir.as_path(),
            "set.json",
            r#"{"kernels": ["a.csv"], "labels": "y.txt"}"#,
        );
        let e = read_gram_set(&dir.as_path().join("set.json"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("has 1 labels"), "{e}");
    }
}
