//! LIBSVM / SVMlight sparse format: one sample per line, `label index:value ...`, with
//! 1-based strictly increasing indices; absent features are zero. `#` starts a comment;
//! SVMlight `qid:` tokens are skipped. [`read_libsvm`] densifies the samples into
//! [`Features`]; [`read_libsvm_sparse`] keeps them in CSR form ([`SparseFeatures`]), in
//! memory proportional to the non-zeros.

use super::text::{
    number_message, numbered_lines, parse_finite, push_f64, read_text, source_name, write_text,
};
use super::{Dataset, Features, SparseDataset, SparseFeatures};
use crate::{Error, Result};
use std::fmt::Write as _;
use std::path::Path;

/// Reads a LIBSVM/SVMlight file.
///
/// The number of feature columns is the largest index seen, or `n_features` when given
/// and larger (so test files can be read with the training file's width); an index
/// beyond a given `n_features` is an error. Feature names are `f1..fd`, the target name
/// is `label`.
pub fn read_libsvm(path: &Path, n_features: Option<usize>) -> Result<Dataset> {
    parse_libsvm(&read_text(path)?, &source_name(path), n_features)
}

/// Parses LIBSVM/SVMlight text (see [`read_libsvm`]); `source_name` names the input in
/// error messages.
pub fn parse_libsvm(text: &str, source_name: &str, n_features: Option<usize>) -> Result<Dataset> {
    let sparse = parse_entries(text, source_name, n_features)?;
    let n_cols = sparse.max_index.max(n_features.unwrap_or(0));
    let x = sparse.densify(n_cols, source_name)?;
    Ok(Dataset {
        x,
        y: sparse.labels,
        feature_names: (1..=n_cols).map(|j| format!("f{j}")).collect(),
        target_name: "label".to_string(),
    })
}

/// Reads a LIBSVM/SVMlight file without densifying it: the same lines, errors and
/// column count as [`read_libsvm`], stored as CSR.
pub fn read_libsvm_sparse(path: &Path, n_features: Option<usize>) -> Result<SparseDataset> {
    parse_libsvm_sparse(&read_text(path)?, &source_name(path), n_features)
}

/// Parses LIBSVM/SVMlight text into CSR features (see [`read_libsvm_sparse`]).
pub fn parse_libsvm_sparse(
    text: &str,
    source_name: &str,
    n_features: Option<usize>,
) -> Result<SparseDataset> {
    let sparse = parse_entries(text, source_name, n_features)?;
    let n_cols = sparse.max_index.max(n_features.unwrap_or(0));
    let mut indptr = Vec::with_capacity(sparse.row_ends.len() + 1);
    indptr.push(0);
    indptr.extend_from_slice(&sparse.row_ends);
    let (indices, values) = sparse.entries.iter().map(|&(j, v)| (j as u32, v)).unzip();
    let x = SparseFeatures::new(sparse.labels.len(), n_cols, indptr, indices, values)
        .map_err(|e| Error::data(format!("{source_name}: {}", crate::validate::message(e))))?;
    Ok(SparseDataset {
        x,
        y: sparse.labels,
    })
}

/// The lines of a LIBSVM file as entries (shared by the dense and sparse readers).
fn parse_entries(text: &str, source_name: &str, n_features: Option<usize>) -> Result<Sparse> {
    let mut sparse = Sparse::default();
    for (ln, line) in numbered_lines(text) {
        let content = line.split_once('#').map_or(line, |(c, _)| c);
        parse_line(content, n_features, &mut sparse)
            .map_err(|msg| Error::parse(source_name, ln, 0, msg))?;
    }
    if sparse.labels.is_empty() {
        return Err(Error::parse(
            source_name,
            0,
            0,
            "no data rows (the file is empty or holds only comments)",
        ));
    }
    Ok(sparse)
}

/// Rows as read: labels, `(0-based column, value)` entries and row boundaries.
#[derive(Default)]
struct Sparse {
    labels: Vec<f64>,
    entries: Vec<(usize, f64)>,
    row_ends: Vec<usize>,
    max_index: usize,
}

impl Sparse {
    fn densify(&self, n_cols: usize, src: &str) -> Result<Features> {
        let n_rows = self.labels.len();
        let too_big = || {
            Error::data(format!(
                "{src}: a dense matrix of {n_rows} rows × {n_cols} features does not fit in \
                 memory; read it sparse instead, in memory proportional to its non-zeros: \
                 the svm methods can (fit, predict, evaluate and select keep such a file \
                 sparse for them, «sparse» asks for it; from Python, pass a scipy.sparse \
                 matrix)"
            ))
        };
        let total = n_rows.checked_mul(n_cols).ok_or_else(too_big)?;
        // Refuse before allocating: a small file naming a feature index of 10⁸ would
        // otherwise take gigabytes (or abort the process) instead of a clear error.
        if !crate::check::dense_matrix_fits(total, crate::check::READ_COPIES) {
            return Err(too_big());
        }
        let mut values = Vec::new();
        values.try_reserve_exact(total).map_err(|_| too_big())?;
        values.resize(total, 0.0);
        let mut start = 0;
        for (i, &end) in self.row_ends.iter().enumerate() {
            for &(j, v) in &self.entries[start..end] {
                values[i * n_cols + j] = v;
            }
            start = end;
        }
        Features::new(n_rows, n_cols, values)
    }
}

/// Parses one comment-free line into `sparse`; blank lines are skipped.
fn parse_line(
    content: &str,
    n_features: Option<usize>,
    sparse: &mut Sparse,
) -> std::result::Result<(), String> {
    let mut tokens = content.split_ascii_whitespace();
    let Some(label_tok) = tokens.next() else {
        return Ok(());
    };
    if label_tok.contains(':') {
        return Err(format!(
            "the line starts with `{label_tok}`, expected a label first \
             (LIBSVM lines are `label index:value ...`)"
        ));
    }
    let label =
        parse_finite(label_tok).map_err(|e| number_message("token 1 (the label)", label_tok, e))?;
    let mut prev = 0;
    for (t, tok) in tokens.enumerate() {
        let Some((idx, v)) = parse_pair(tok, t + 2, prev, n_features)? else {
            continue;
        };
        sparse.entries.push((idx - 1, v));
        prev = idx;
    }
    sparse.max_index = sparse.max_index.max(prev);
    sparse.labels.push(label);
    sparse.row_ends.push(sparse.entries.len());
    Ok(())
}

/// Parses token number `tno` as `index:value` (`None` for a `qid:` token).
fn parse_pair(
    tok: &str,
    tno: usize,
    prev: usize,
    n_features: Option<usize>,
) -> std::result::Result<Option<(usize, f64)>, String> {
    let Some((idx_s, val_s)) = tok.split_once(':') else {
        return Err(format!("token {tno} `{tok}`: expected `index:value`"));
    };
    if idx_s.eq_ignore_ascii_case("qid") {
        return Ok(None);
    }
    let too_large = || {
        format!(
            "token {tno} `{tok}`: feature index {idx_s} is too large (indices go up to 2^32; \
             a file whose indices are larger is not a LIBSVM feature file)"
        )
    };
    let idx: usize = idx_s.parse().map_err(|_| {
        if !idx_s.is_empty() && idx_s.bytes().all(|b| b.is_ascii_digit()) {
            too_large()
        } else {
            format!("token {tno} `{tok}`: feature index `{idx_s}` is not a positive integer")
        }
    })?;
    if idx == 0 {
        return Err(format!(
            "token {tno} `{tok}`: feature index 0; indices start at 1"
        ));
    }
    if idx > 1 << 32 {
        return Err(too_large());
    }
    if idx <= prev {
        return Err(format!(
            "token {tno} `{tok}`: feature index {idx} does not follow the previous index {prev}; \
             indices must be strictly increasing"
        ));
    }
    if let Some(d) = n_features.filter(|&d| idx > d) {
        return Err(format!(
            "token {tno} `{tok}`: feature index {idx} exceeds the number of features ({d})"
        ));
    }
    let what = format!("token {tno} (feature {idx})");
    let v = parse_finite(val_s).map_err(|e| number_message(&what, val_s, e))?;
    Ok(Some((idx, v)))
}

/// Formats `data` in LIBSVM format: `label index:value ...` per sample, zeros omitted,
/// values in shortest round-trip form. Fails when the dataset has no labels.
pub fn to_libsvm_string(data: &Dataset) -> Result<String> {
    data.check_shape()?;
    if data.y.is_empty() && !data.is_empty() {
        return Err(Error::data(
            "the LIBSVM format needs a label on every line, and this dataset has no labels",
        ));
    }
    let mut out = String::with_capacity(data.x.as_slice().len() * 8);
    for (row, &label) in data.x.rows().zip(&data.y) {
        push_f64(&mut out, label);
        for (j, &v) in row.iter().enumerate() {
            if v != 0.0 {
                let _ = write!(out, " {}:", j + 1);
                push_f64(&mut out, v);
            }
        }
        out.push('\n');
    }
    Ok(out)
}

/// Writes `data` in LIBSVM format (see [`to_libsvm_string`]), replacing `path`.
pub fn write_libsvm(path: &Path, data: &Dataset) -> Result<()> {
    write_text(path, &to_libsvm_string(data)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err_at(text: &str, n_features: Option<usize>, line: usize, needle: &str) {
        match parse_libsvm(text, "t.svm", n_features).unwrap_err() {
            Error::Parse {
                line: l, message, ..
            } => {
                assert_eq!(l, line, "{message}");
                assert!(message.contains(needle), "`{message}` lacks `{needle}`");
            }
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    #[test]
    fn reads_sparse_lines_comments_and_qid() {
        let text = "# header comment\n+1 1:0.5 3:-2 # trailing\n\n-1 qid:7 2:1e-3\r\n0\n";
        let d = parse_libsvm(text, "t.svm", None).unwrap();
        assert_eq!(d.x.n_rows(), 3);
        assert_eq!(d.x.n_cols(), 3);
        assert_eq!(
            d.x.as_slice(),
            &[0.5, 0.0, -2.0, 0.0, 1e-3, 0.0, 0.0, 0.0, 0.0]
        );
        assert_eq!(d.y, vec![1.0, -1.0, 0.0]);
        assert_eq!(d.feature_names, vec!["f1", "f2", "f3"]);
        assert_eq!(d.target_name, "label");
    }

    #[test]
    fn sparse_reader_matches_the_dense_one_without_densifying() {
        let text = "# c\n+1 1:0.5 3:-2\n\n-1 qid:7 2:1e-3\n0\n";
        let s = parse_libsvm_sparse(text, "t.svm", Some(4)).unwrap();
        let d = parse_libsvm(text, "t.svm", Some(4)).unwrap();
        assert_eq!(s.y, d.y);
        assert_eq!(s.x.nnz(), 3);
        assert_eq!(s.x.to_dense("t").unwrap(), d.x);
        // One index of 10^8 on two rows: two entries, not 2 × 10^8 zeros.
        let wide = parse_libsvm_sparse("1 100000000:1\n-1 1:2\n", "t.svm", None).unwrap();
        assert_eq!((wide.x.n_cols(), wide.x.nnz()), (100_000_000, 2));
        // Read densely, an index of 2^32 is refused, naming the sparse reading as the way out.
        let huge = parse_libsvm_sparse("1 4294967296:1\n-1 1:2\n", "t.svm", None).unwrap();
        assert_eq!((huge.x.n_cols(), huge.x.nnz()), (1 << 32, 2));
        let err = parse_libsvm("1 4294967296:1\n-1 1:2\n", "t.svm", None)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("does not fit") && err.contains("«sparse»"),
            "{err}"
        );
        assert!(parse_libsvm_sparse("1 2:1 2:3\n", "t.svm", None)
            .unwrap_err()
            .to_string()
            .contains("strictly increasing"));
    }

    #[test]
    fn n_features_widens_and_bounds() {
        let d = parse_libsvm("1 2:1\n", "t.svm", Some(5)).unwrap();
        assert_eq!(d.x.n_cols(), 5);
        assert_eq!(d.x.as_slice(), &[0.0, 1.0, 0.0, 0.0, 0.0]);
        err_at(
            "1 1:1\n1 2:1 6:1\n",
            Some(5),
            2,
            "exceeds the number of features (5)",
        );
    }

    #[test]
    fn malformed_lines_report_line_and_token() {
        err_at("", None, 0, "no data rows");
        err_at("# only\n\n", None, 0, "no data rows");
        err_at(
            "1 1:1\n1 1:1 2\n",
            None,
            2,
            "token 3 `2`: expected `index:value`",
        );
        err_at("1 0:1\n", None, 1, "token 2 `0:1`: feature index 0");
        err_at(
            "1 2:1 2:3\n",
            None,
            1,
            "token 3 `2:3`: feature index 2 does not follow",
        );
        err_at("1 3:1 2:3\n", None, 1, "strictly increasing");
        err_at("1 a:1\n", None, 1, "`a` is not a positive integer");
        err_at(
            "1 18446744073709551616:1\n",
            None,
            1,
            "is too large (indices go up to 2^32",
        );
        err_at("1 -1:1\n", None, 1, "not a positive integer");
        err_at(
            "1\n1 1:x\n",
            None,
            2,
            "token 2 (feature 1): cannot parse `x`",
        );
        err_at("1 1:nan\n", None, 1, "non-finite value `nan`");
        err_at(
            "1 1:1\ninf 1:1\n",
            None,
            2,
            "token 1 (the label): non-finite",
        );
        err_at("abc 1:1\n", None, 1, "cannot parse `abc`");
        err_at("1:2 3:4\n", None, 1, "expected a label first");
    }

    #[test]
    fn writer_omits_zeros_and_round_trips() {
        let x = Features::new(2, 3, vec![0.0, 0.1, 0.0, -3.0, 0.0, 1e-17]).unwrap();
        let d = Dataset {
            x,
            y: vec![1.0, -1.0],
            feature_names: vec!["f1".into(), "f2".into(), "f3".into()],
            target_name: "label".into(),
        };
        let text = to_libsvm_string(&d).unwrap();
        assert_eq!(text, "1 2:0.1\n-1 1:-3 3:1e-17\n");
        assert_eq!(parse_libsvm(&text, "t.svm", None).unwrap(), d);
    }

    #[test]
    fn writer_needs_labels() {
        let d = Dataset {
            x: Features::new(1, 1, vec![1.0]).unwrap(),
            y: vec![],
            feature_names: vec![],
            target_name: String::new(),
        };
        assert!(matches!(to_libsvm_string(&d), Err(Error::InvalidData(_))));
    }
}
