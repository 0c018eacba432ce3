//! CSV reader and writer.
//!
//! The dialect: a header row naming the columns is required, fields are separated by
//! commas, whitespace around a field is ignored, a field may be wrapped in double quotes
//! (`""` inside quotes is a literal quote, blanks inside quotes are kept; quoted fields
//! cannot span lines), line ends
//! may be `\n` or `\r\n`, blank lines are skipped. Every value must be a finite number;
//! missing values are rejected (impute or drop them before).
//!
//! Column numbers in error messages are 1-based field positions (the label column
//! included), not character offsets.

use super::text::{
    number_message, numbered_lines, parse_finite, push_f64, read_text, source_name, write_text,
};
use super::{Dataset, Features};
use crate::{Error, Result};
use std::borrow::Cow;
use std::path::Path;

/// Which column holds the label or target.
#[derive(Clone, Copy, Debug)]
enum TargetColumn<'a> {
    /// The last column.
    Last,
    /// The column with this header name.
    Named(&'a str),
    /// No label column: every column is a feature and `y` is empty.
    Absent,
}

impl<'a> From<Option<&'a str>> for TargetColumn<'a> {
    fn from(target: Option<&'a str>) -> Self {
        target.map_or(TargetColumn::Last, TargetColumn::Named)
    }
}

/// Reads a labelled CSV file.
///
/// The label (or regression target) is the last column, or the column whose header is
/// `target` when given. See the [module documentation](self) for the dialect.
pub fn read_csv(path: &Path, target: Option<&str>) -> Result<Dataset> {
    parse_csv(&read_text(path)?, &source_name(path), target)
}

/// Parses labelled CSV text; `source_name` names the input in error messages.
///
/// The label (or regression target) is the last column, or the column whose header is
/// `target` when given.
pub fn parse_csv(text: &str, source_name: &str, target: Option<&str>) -> Result<Dataset> {
    parse(text, source_name, target.into())
}

/// Reads a CSV file without a label column (e.g. samples to predict): every column is a
/// feature and `y` is empty.
pub fn read_csv_unlabeled(path: &Path) -> Result<Dataset> {
    parse_csv_unlabeled(&read_text(path)?, &source_name(path))
}

/// Parses CSV text without a label column: every column is a feature and `y` is empty.
pub fn parse_csv_unlabeled(text: &str, source_name: &str) -> Result<Dataset> {
    parse(text, source_name, TargetColumn::Absent)
}

fn parse(text: &str, src: &str, target: TargetColumn) -> Result<Dataset> {
    let mut lines = numbered_lines(text).filter(|(_, l)| !l.trim().is_empty());
    let (header_line, header) = lines.next().ok_or_else(|| {
        Error::parse(
            src,
            0,
            0,
            "empty file; expected a header row naming the columns",
        )
    })?;
    let names = parse_header(header, header_line, src)?;
    let target_idx = resolve_target(&names, target, src)?;
    let n_fields = names.len();

    let mut fields: Vec<Cow<str>> = Vec::with_capacity(n_fields);
    let mut values = Vec::new();
    let mut y = Vec::new();
    let mut n_rows = 0;
    for (ln, line) in lines {
        split_fields(line, &mut fields).map_err(|(c, m)| Error::parse(src, ln, c, m))?;
        if fields.len() != n_fields {
            return Err(Error::parse(
                src,
                ln,
                0,
                format!(
                    "line {ln} has {} fields, the header has {n_fields}",
                    fields.len()
                ),
            ));
        }
        for (j, field) in fields.iter().enumerate() {
            let raw = field.trim();
            let is_target = target_idx == Some(j);
            let v = parse_finite(raw).map_err(|e| {
                let what = column_label(j, &names[j], is_target);
                Error::parse(src, ln, j + 1, number_message(&what, raw, e))
            })?;
            if is_target {
                y.push(v);
            } else {
                values.push(v);
            }
        }
        n_rows += 1;
    }
    if n_rows == 0 {
        return Err(Error::parse(
            src,
            header_line,
            0,
            "the header is not followed by any data rows",
        ));
    }

    let target_name = target_idx.map_or_else(String::new, |t| names[t].clone());
    let feature_names: Vec<String> = names
        .into_iter()
        .enumerate()
        .filter(|&(j, _)| target_idx != Some(j))
        .map(|(_, n)| n)
        .collect();
    Ok(Dataset {
        x: Features::new(n_rows, feature_names.len(), values)?,
        y,
        feature_names,
        target_name,
    })
}

/// ``column 3 (`age`)`` or ``column 14 (`label`, the label column)``.
fn column_label(j: usize, name: &str, is_target: bool) -> String {
    if is_target {
        format!("column {} (`{name}`, the label column)", j + 1)
    } else {
        format!("column {} (`{name}`)", j + 1)
    }
}

/// Splits and checks the header: no empty names, and not a row of numbers.
fn parse_header(header: &str, line: usize, src: &str) -> Result<Vec<String>> {
    let mut fields = Vec::new();
    split_fields(header, &mut fields).map_err(|(c, m)| Error::parse(src, line, c, m))?;
    if let Some(j) = fields.iter().position(|f| f.trim().is_empty()) {
        return Err(Error::parse(
            src,
            line,
            j + 1,
            format!(
                "column {} has an empty name in the header (an index column written by \
                 pandas? save with index=False)",
                j + 1
            ),
        ));
    }
    if fields.iter().all(|f| parse_finite(f.trim()).is_ok()) {
        return Err(Error::parse(
            src,
            line,
            0,
            "the first row holds only numbers; a header row naming the columns is required",
        ));
    }
    // Unquoted names come trimmed; a quoted name keeps its blanks (the writer quotes
    // names with leading or trailing blanks so that they read back).
    Ok(fields.iter().map(|f| f.to_string()).collect())
}

/// Index of the label column, `None` when there is none.
fn resolve_target(names: &[String], target: TargetColumn, src: &str) -> Result<Option<usize>> {
    let idx = match target {
        TargetColumn::Absent => return Ok(None),
        TargetColumn::Last => names.len() - 1,
        TargetColumn::Named(name) => find_column(names, name, src)?,
    };
    if names.len() < 2 {
        return Err(Error::data(format!(
            "{src} has a single column (`{}`), taken as the label: there are no feature columns",
            names[0]
        )));
    }
    Ok(Some(idx))
}

/// Position of the column called `name` (exact match, else a unique case-insensitive one).
fn find_column(names: &[String], name: &str, src: &str) -> Result<usize> {
    let name = name.trim();
    let exact: Vec<usize> = positions(names, |n| n == name);
    let found = if exact.is_empty() {
        positions(names, |n| n.eq_ignore_ascii_case(name))
    } else {
        exact
    };
    match found.as_slice() {
        [j] => Ok(*j),
        [] => Err(Error::param(
            "target",
            format!(
                "{src} has no column named `{name}`; its columns are: {}",
                list_names(names)
            ),
        )),
        many => Err(Error::param(
            "target",
            format!(
                "{src} has {} columns named `{name}` (columns {}); the label column must be unique",
                many.len(),
                many.iter()
                    .map(|j| (j + 1).to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

fn positions(names: &[String], pred: impl Fn(&str) -> bool) -> Vec<usize> {
    (0..names.len()).filter(|&j| pred(&names[j])).collect()
}

/// Comma-separated names, at most 30 of them.
fn list_names(names: &[String]) -> String {
    const MAX: usize = 30;
    let shown: Vec<&str> = names.iter().take(MAX).map(String::as_str).collect();
    let mut s = shown.join(", ");
    if names.len() > MAX {
        s.push_str(&format!(", ... ({} in all)", names.len()));
    }
    s
}

/// Splits one line into fields: unquoted fields trimmed, quoted ones as written between
/// the quotes. On failure returns the 1-based field number and a message.
fn split_fields<'a>(
    line: &'a str,
    out: &mut Vec<Cow<'a, str>>,
) -> std::result::Result<(), (usize, String)> {
    out.clear();
    if !line.contains('"') {
        out.extend(line.split(',').map(|f| Cow::Borrowed(f.trim())));
        return Ok(());
    }
    let mut rest = line;
    loop {
        let field_no = out.len() + 1;
        let trimmed = rest.trim_start();
        if let Some(quoted) = trimmed.strip_prefix('"') {
            let (value, after) = read_quoted(quoted).ok_or_else(|| {
                (
                    field_no,
                    "unterminated quoted field (quoted fields cannot span lines)".to_string(),
                )
            })?;
            out.push(value);
            let after = after.trim_start();
            if after.is_empty() {
                return Ok(());
            }
            match after.strip_prefix(',') {
                Some(r) => rest = r,
                None => {
                    return Err((
                        field_no,
                        format!("unexpected text after the closing quote of field {field_no}"),
                    ))
                }
            }
        } else {
            match rest.find(',') {
                Some(p) => {
                    out.push(Cow::Borrowed(rest[..p].trim()));
                    rest = &rest[p + 1..];
                }
                None => {
                    out.push(Cow::Borrowed(rest.trim()));
                    return Ok(());
                }
            }
        }
    }
}

/// Reads a quoted field whose opening quote was consumed; returns the value and the text
/// after the closing quote, or `None` when the quote is not closed.
fn read_quoted(s: &str) -> Option<(Cow<'_, str>, &str)> {
    let mut owned: Option<String> = None;
    let mut start = 0;
    loop {
        let q = start + s[start..].find('"')?;
        if s[q + 1..].starts_with('"') {
            owned
                .get_or_insert_with(String::new)
                .push_str(&s[start..=q]);
            start = q + 2;
        } else {
            let value = match owned {
                Some(mut o) => {
                    o.push_str(&s[start..q]);
                    Cow::Owned(o)
                }
                None => Cow::Borrowed(&s[..q]),
            };
            return Some((value, &s[q + 1..]));
        }
    }
}

/// Quotes a header name when it would not read back as itself.
fn quote_name(name: &str) -> Cow<'_, str> {
    let needs = name.is_empty()
        || name.contains([',', '"', '\n', '\r'])
        || name.trim() != name
        || parse_finite(name).is_ok();
    if needs {
        Cow::Owned(format!("\"{}\"", name.replace('"', "\"\"")))
    } else {
        Cow::Borrowed(name)
    }
}

/// Formats `data` as CSV: a header, then one row per sample with the label last (when
/// there are labels). Values are written in shortest round-trip form.
pub fn to_csv_string(data: &Dataset) -> Result<String> {
    data.check_shape()?;
    let mut names = data.feature_names_or_default();
    if !data.y.is_empty() {
        names.push(data.target_name_or_default().to_string());
    }
    let header: Vec<Cow<str>> = names.iter().map(|n| quote_name(n)).collect();
    let mut out = String::with_capacity(data.x.as_slice().len() * 8 + 64);
    out.push_str(&header.join(","));
    out.push('\n');
    for (i, row) in data.x.rows().enumerate() {
        for (j, &v) in row.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            push_f64(&mut out, v);
        }
        if let Some(&label) = data.y.get(i) {
            if !row.is_empty() {
                out.push(',');
            }
            push_f64(&mut out, label);
        }
        out.push('\n');
    }
    Ok(out)
}

/// Writes `data` as CSV (see [`to_csv_string`]), replacing `path` if it exists.
pub fn write_csv(path: &Path, data: &Dataset) -> Result<()> {
    write_text(path, &to_csv_string(data)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_err(text: &str, target: Option<&str>) -> Error {
        parse_csv(text, "t.csv", target).unwrap_err()
    }

    fn assert_parse_at(err: Error, line: usize, column: usize, needle: &str) {
        match &err {
            Error::Parse {
                line: l,
                column: c,
                message,
                source_name,
            } => {
                assert_eq!((*l, *c), (line, column), "{err}");
                assert_eq!(source_name, "t.csv");
                assert!(message.contains(needle), "`{message}` lacks `{needle}`");
            }
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    #[test]
    fn reads_header_features_and_last_column_label() {
        let d = parse_csv("a,b,label\n1,2,-1\n3.5,-4e1,1\n", "t.csv", None).unwrap();
        assert_eq!(d.feature_names, vec!["a", "b"]);
        assert_eq!(d.target_name, "label");
        assert_eq!(d.x.as_slice(), &[1.0, 2.0, 3.5, -40.0]);
        assert_eq!(d.y, vec![-1.0, 1.0]);
    }

    #[test]
    fn picks_named_target_column() {
        let d = parse_csv("a,y,b\n1,10,2\n3,20,4\n", "t.csv", Some("y")).unwrap();
        assert_eq!(d.feature_names, vec!["a", "b"]);
        assert_eq!(d.target_name, "y");
        assert_eq!(d.x.as_slice(), &[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(d.y, vec![10.0, 20.0]);
        // Case-insensitive fallback.
        let d = parse_csv("a,Y,b\n1,10,2\n", "t.csv", Some("y")).unwrap();
        assert_eq!(d.y, vec![10.0]);
    }

    #[test]
    fn missing_target_names_available_columns() {
        let err = parse_err("a,b,label\n1,2,3\n", Some("class"));
        assert!(matches!(err, Error::InvalidParameter { .. }));
        let msg = err.to_string();
        assert!(
            msg.contains("`class`") && msg.contains("a, b, label"),
            "{msg}"
        );
    }

    #[test]
    fn duplicate_target_name_is_an_error() {
        let err = parse_err("y,b,y\n1,2,3\n", Some("y"));
        assert!(err.to_string().contains("columns 1, 3"), "{err}");
    }

    #[test]
    fn handles_crlf_whitespace_quotes_and_blank_lines() {
        let text = "\u{feff}\"a\" , \"b, c\",\"l\"\"x\"\r\n 1 , \"2\" ,3\r\n\r\n4,5,6\r\n\n";
        let d = parse_csv(text, "t.csv", None).unwrap();
        assert_eq!(d.feature_names, vec!["a", "b, c"]);
        assert_eq!(d.target_name, "l\"x");
        assert_eq!(d.x.as_slice(), &[1.0, 2.0, 4.0, 5.0]);
        assert_eq!(d.y, vec![3.0, 6.0]);
    }

    #[test]
    fn unlabeled_reads_every_column_as_feature() {
        let d = parse_csv_unlabeled("a,b\n1,2\n3,4\n", "t.csv").unwrap();
        assert_eq!(d.x.n_cols(), 2);
        assert!(d.y.is_empty());
        assert_eq!(d.target_name, "");
        let d = parse_csv_unlabeled("only\n7\n", "t.csv").unwrap();
        assert_eq!(d.x.as_slice(), &[7.0]);
    }

    #[test]
    fn empty_file_and_header_only() {
        assert_parse_at(parse_err("", None), 0, 0, "empty file");
        assert_parse_at(parse_err(" \n\r\n", None), 0, 0, "empty file");
        assert_parse_at(parse_err("\na,b\n\n", None), 2, 0, "data rows");
    }

    #[test]
    fn ragged_row_reports_line_and_counts() {
        let text = "a,b,c\n1,2,3\n4,5\n";
        assert_parse_at(
            parse_err(text, None),
            3,
            0,
            "line 3 has 2 fields, the header has 3",
        );
        let text = "a,b,c\n1,2,3\n4,5,6,7\n";
        assert_parse_at(parse_err(text, None), 3, 0, "4 fields");
    }

    #[test]
    fn non_numeric_cell_reports_line_column_and_name() {
        let text = "x,age,label\n1,2,1\n1,abc,1\n";
        let err = parse_err(text, None);
        assert_parse_at(
            err,
            3,
            2,
            "column 2 (`age`): cannot parse `abc` as a number",
        );
        let err = parse_err("x,label\n1,yes\n", None);
        assert_parse_at(err, 2, 2, "the label column");
    }

    #[test]
    fn non_finite_and_missing_values_are_rejected() {
        let err = parse_err("a,b,label\n1,nan,1\n", None);
        assert_parse_at(err, 2, 2, "non-finite value `nan`");
        let err = parse_err("a,b,label\n1,2,inf\n", None);
        assert_parse_at(err, 2, 3, "non-finite value `inf`");
        let err = parse_err("a,b,label\n1,2,1\n1,,1\n", None);
        assert_parse_at(err, 3, 2, "empty field");
        let err = parse_err("a,b,label\n1,?,1\n", None);
        assert_parse_at(err, 2, 2, "missing value `?`");
    }

    #[test]
    fn bad_quotes_and_headers() {
        assert_parse_at(parse_err("a,\"b,l\n1,2,3\n", None), 1, 2, "unterminated");
        assert_parse_at(
            parse_err("a,\"b\"x,l\n1,2,3\n", None),
            1,
            2,
            "after the closing",
        );
        assert_parse_at(parse_err(",a,l\n1,2,3\n", None), 1, 1, "empty name");
        assert_parse_at(parse_err("1,2,3\n4,5,6\n", None), 1, 0, "header");
        assert!(matches!(
            parse_err("label\n1\n", None),
            Error::InvalidData(_)
        ));
    }

    #[test]
    fn writer_round_trips_exactly() {
        let x = Features::new(2, 3, vec![0.1, -0.0, 1e-300, 12345.678, 3.0, -2.5e20]).unwrap();
        let d = Dataset {
            x,
            y: vec![0.30000000000000004, -7.0],
            feature_names: vec!["a".into(), "b, c".into(), "\"q\"".into()],
            target_name: "target".into(),
        };
        let text = to_csv_string(&d).unwrap();
        let back = parse_csv(&text, "t.csv", None).unwrap();
        assert_eq!(back, d);
        for (a, b) in back.x.as_slice().iter().zip(d.x.as_slice()) {
            assert_eq!(a.to_bits(), b.to_bits());
        }
    }

    #[test]
    fn quoted_names_keep_their_blanks() {
        // Regression (parser property tests): the writer quotes ` a ` so that it reads
        // back, but the reader trimmed inside the quotes.
        let d = parse_csv("\" a \", b ,\"l \"\n1,2,3\n", "t.csv", None).unwrap();
        assert_eq!(d.feature_names, vec![" a ", "b"]);
        assert_eq!(d.target_name, "l ");
        let text = to_csv_string(&d).unwrap();
        assert_eq!(parse_csv(&text, "t.csv", None).unwrap(), d);
        // Quoted values are still numbers with blanks around them.
        let d = parse_csv("a,l\n\" 1 \",2\n", "t.csv", None).unwrap();
        assert_eq!(d.x.as_slice(), &[1.0]);
    }

    #[test]
    fn writer_without_labels_or_names() {
        let d = Dataset {
            x: Features::new(1, 2, vec![1.0, 2.0]).unwrap(),
            y: vec![],
            feature_names: vec![],
            target_name: String::new(),
        };
        let text = to_csv_string(&d).unwrap();
        assert_eq!(text, "f1,f2\n1,2\n");
        assert_eq!(parse_csv_unlabeled(&text, "t.csv").unwrap().x, d.x);
    }
}
