//! KEEL `.dat` reader and writer.
//!
//! A KEEL file is a header of `@relation`, `@attribute`, `@inputs`, `@outputs` lines
//! (keywords case-insensitive; `%` starts a comment line), then `@data` and
//! comma-separated rows. Attribute types:
//!
//! - `real [a, b]`, `integer [a, b]` (also `numeric`; the range is not checked): the value;
//! - `{v1, v2, ...}` (nominal): for an input, the 0-based position of the value in the
//!   declaration; for the output, the numeric value when every declared value is a
//!   number (e.g. `{-1, 1}`), else the 0-based position (class codes in declaration order).
//!
//! The output (label) is the attribute named in `@outputs`, or the last attribute; the
//! features are the `@inputs` attributes, or every other attribute. Missing values (`?`,
//! `<null>`) are rejected with their line and column: we do not impute.

use super::text::{
    fmt_f64, number_message, numbered_lines, parse_finite, push_f64, read_text, source_name,
    write_text, NumberError,
};
use super::{Dataset, Features};
use crate::{Error, Result};
use std::path::Path;

/// Reads a KEEL `.dat` file (see the [module documentation](self)).
pub fn read_keel(path: &Path) -> Result<Dataset> {
    parse_keel(&read_text(path)?, &source_name(path))
}

/// Parses KEEL text; `source_name` names the input in error messages.
pub fn parse_keel(text: &str, source_name: &str) -> Result<Dataset> {
    parse_keel_with_target(text, source_name, None)
}

/// Parses KEEL text taking the attribute `target` (when given) as the label instead of
/// the declared output.
pub fn parse_keel_with_target(
    text: &str,
    source_name: &str,
    target: Option<&str>,
) -> Result<Dataset> {
    let mut lines = numbered_lines(text);
    let header = parse_header(&mut lines, source_name)?;
    let layout = Layout::resolve(&header, target, source_name)?;
    let attrs = &header.attributes;
    let n_attr = attrs.len();

    let mut values = Vec::new();
    let mut y = Vec::new();
    for (ln, line) in lines {
        let line = line.trim();
        if line.is_empty() || line.starts_with('%') {
            continue;
        }
        let fields = split_list(line);
        if fields.len() != n_attr {
            return Err(Error::parse(
                source_name,
                ln,
                0,
                format!(
                    "line {ln} has {} fields, the header declares {n_attr} attributes",
                    fields.len()
                ),
            ));
        }
        let cell = |a: usize, is_output: bool| {
            attrs[a]
                .value(&fields[a], a, is_output)
                .map_err(|m| Error::parse(source_name, ln, a + 1, m))
        };
        for &a in &layout.inputs {
            values.push(cell(a, false)?);
        }
        y.push(cell(layout.output, true)?);
    }
    if y.is_empty() {
        return Err(Error::parse(
            source_name,
            header.data_line,
            0,
            "no data rows after `@data`",
        ));
    }
    Ok(Dataset {
        x: Features::new(y.len(), layout.inputs.len(), values)?,
        y,
        feature_names: layout
            .inputs
            .iter()
            .map(|&a| attrs[a].name.clone())
            .collect(),
        target_name: attrs[layout.output].name.clone(),
    })
}

/// A declared attribute.
#[derive(Debug)]
struct Attribute {
    name: String,
    /// Declared nominal values; `None` for a numeric attribute.
    levels: Option<Vec<String>>,
    /// For a nominal attribute whose values are all numbers: those numbers.
    numeric_levels: Option<Vec<f64>>,
}

impl Attribute {
    /// The numeric value of field `raw` of this attribute (column `a`, 0-based).
    fn value(&self, raw: &str, a: usize, is_output: bool) -> std::result::Result<f64, String> {
        let what = format!("column {} (`{}`)", a + 1, self.name);
        let Some(levels) = &self.levels else {
            return parse_finite(raw).map_err(|e| number_message(&what, raw, e));
        };
        let pos = levels.iter().position(|l| l == raw).or_else(|| {
            // `1.0` for a declared `1`: match numerically.
            let v = parse_finite(raw).ok()?;
            self.numeric_levels.as_ref()?.iter().position(|&l| l == v)
        });
        let Some(pos) = pos else {
            if let Err(e @ NumberError::Missing) = parse_finite(raw) {
                return Err(number_message(&what, raw, e));
            }
            return Err(format!(
                "{what}: `{raw}` is not one of the declared values {{{}}}",
                levels.join(", ")
            ));
        };
        Ok(match (&self.numeric_levels, is_output) {
            (Some(nums), true) => nums[pos],
            _ => pos as f64,
        })
    }
}

/// Everything before the data.
#[derive(Debug, Default)]
struct Header {
    attributes: Vec<Attribute>,
    inputs: Option<(usize, Vec<String>)>,
    outputs: Option<(usize, Vec<String>)>,
    data_line: usize,
}

/// Reads header lines up to and including `@data`.
fn parse_header<'a>(
    lines: &mut impl Iterator<Item = (usize, &'a str)>,
    src: &str,
) -> Result<Header> {
    let mut header = Header::default();
    for (ln, line) in lines {
        let line = line.trim();
        if line.is_empty() || line.starts_with('%') {
            continue;
        }
        let err = |m: String| Error::parse(src, ln, 0, m);
        let Some(rest) = line.strip_prefix('@') else {
            return Err(err(format!(
                "expected `@attribute`, `@inputs`, `@outputs` or `@data` before the data, \
                 found `{line}`"
            )));
        };
        let split = rest
            .find(|c: char| c.is_whitespace() || c == '{')
            .unwrap_or(rest.len());
        let (keyword, arg) = (&rest[..split], rest[split..].trim());
        match keyword.to_ascii_lowercase().as_str() {
            "relation" => {}
            "attribute" => {
                let attr = parse_attribute(arg).map_err(err)?;
                if header.attributes.iter().any(|a| a.name == attr.name) {
                    return Err(err(format!("attribute `{}` is declared twice", attr.name)));
                }
                header.attributes.push(attr);
            }
            "inputs" | "input" => header.inputs = Some((ln, split_list(arg))),
            "outputs" | "output" => header.outputs = Some((ln, split_list(arg))),
            "data" => {
                if header.attributes.is_empty() {
                    return Err(err("`@data` comes before any `@attribute`".into()));
                }
                header.data_line = ln;
                return Ok(header);
            }
            _ => return Err(err(format!("unknown keyword `@{keyword}`"))),
        }
    }
    Err(Error::parse(src, 0, 0, "no `@data` line: not a KEEL file?"))
}

/// Parses the text after `@attribute`: a name, then `{levels}` or a numeric type.
fn parse_attribute(arg: &str) -> std::result::Result<Attribute, String> {
    let (name, rest) = take_name(arg)?;
    let rest = rest.trim_start();
    if let Some(body) = rest.strip_prefix('{') {
        let end = body
            .find('}')
            .ok_or_else(|| format!("attribute `{name}`: unclosed `{{`"))?;
        let levels: Vec<String> = split_list(&body[..end]);
        if levels.is_empty() || levels.iter().any(String::is_empty) {
            return Err(format!(
                "attribute `{name}`: empty nominal value list or value"
            ));
        }
        let numeric_levels = levels
            .iter()
            .map(|l| parse_finite(l).ok())
            .collect::<Option<Vec<f64>>>();
        return Ok(Attribute {
            name,
            levels: Some(levels),
            numeric_levels,
        });
    }
    let ty_end = rest
        .find(|c: char| c.is_whitespace() || c == '[')
        .unwrap_or(rest.len());
    match rest[..ty_end].to_ascii_lowercase().as_str() {
        "real" | "integer" | "numeric" | "int" | "float" | "double" => Ok(Attribute {
            name,
            levels: None,
            numeric_levels: None,
        }),
        "" => Err(format!("attribute `{name}` has no type")),
        "string" | "date" => Err(format!(
            "attribute `{name}`: type `{}` is not supported (only real, integer and nominal)",
            &rest[..ty_end]
        )),
        other => Err(format!("attribute `{name}`: unknown type `{other}`")),
    }
}

/// Splits off a possibly quoted attribute name.
fn take_name(arg: &str) -> std::result::Result<(String, &str), String> {
    if let Some(q) = arg.chars().next().filter(|&c| c == '\'' || c == '"') {
        let body = &arg[1..];
        let end = body
            .find(q)
            .ok_or_else(|| format!("unclosed quote in attribute name `{arg}`"))?;
        return Ok((body[..end].to_string(), &body[end + 1..]));
    }
    let end = arg
        .find(|c: char| c.is_whitespace() || c == '{' || c == '[')
        .unwrap_or(arg.len());
    if end == 0 {
        return Err("`@attribute` without a name".into());
    }
    Ok((arg[..end].to_string(), &arg[end..]))
}

/// Splits a comma-separated list, trimming items and removing quotes around them.
/// Commas inside `'...'` or `"..."` do not split.
fn split_list(s: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut quote: Option<char> = None;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '\'' | '"') => quote = Some(c),
            (None, ',') => {
                items.push(unquote(&s[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s.trim().is_empty() || !items.is_empty() {
        items.push(unquote(&s[start..]));
    }
    items
}

fn unquote(s: &str) -> String {
    let s = s.trim();
    for q in ['\'', '"'] {
        if s.len() >= 2 && s.starts_with(q) && s.ends_with(q) {
            return s[1..s.len() - 1].to_string();
        }
    }
    s.to_string()
}

/// Which attributes are features and which is the label.
struct Layout {
    inputs: Vec<usize>,
    output: usize,
}

impl Layout {
    fn resolve(header: &Header, target: Option<&str>, src: &str) -> Result<Layout> {
        let attrs = &header.attributes;
        let missing = |name: &str| {
            let names: Vec<&str> = attrs.iter().map(|a| a.name.as_str()).collect();
            format!(
                "{src} has no attribute named `{name}`; its attributes are: {}",
                names.join(", ")
            )
        };
        let find = |name: &str, line: usize| {
            find_attribute(attrs, name).ok_or_else(|| Error::parse(src, line, 0, missing(name)))
        };
        let output = match (target, &header.outputs) {
            (Some(t), _) => {
                find_attribute(attrs, t).ok_or_else(|| Error::param("target", missing(t)))?
            }
            (None, Some((ln, outs))) => match outs.as_slice() {
                [one] => find(one, *ln)?,
                [] => return Err(Error::parse(src, *ln, 0, "`@outputs` names no attribute")),
                many => {
                    return Err(Error::parse(
                        src,
                        *ln,
                        0,
                        format!(
                            "{} outputs ({}); only one output attribute is supported",
                            many.len(),
                            many.join(", ")
                        ),
                    ))
                }
            },
            (None, None) => attrs.len() - 1,
        };
        let inputs: Vec<usize> = match &header.inputs {
            Some((ln, names)) => names
                .iter()
                .map(|n| find(n, *ln))
                .collect::<Result<Vec<_>>>()?
                .into_iter()
                .filter(|&a| a != output)
                .collect(),
            None => (0..attrs.len()).filter(|&a| a != output).collect(),
        };
        if inputs.is_empty() {
            return Err(Error::data(format!(
                "{src}: no input attributes besides the output `{}`",
                attrs[output].name
            )));
        }
        Ok(Layout { inputs, output })
    }
}

/// Position of the attribute called `name` (exact, else case-insensitive).
fn find_attribute(attrs: &[Attribute], name: &str) -> Option<usize> {
    attrs
        .iter()
        .position(|a| a.name == name)
        .or_else(|| attrs.iter().position(|a| a.name.eq_ignore_ascii_case(name)))
}

/// Formats `data` as a KEEL file named `relation`.
///
/// Features are declared `integer [min, max]` when all their values are integers, else
/// `real [min, max]`. The label is declared nominal (`{v1, v2, ...}`, sorted) when every
/// label is an integer, which suits class codes, else `real [min, max]`. Fails when the
/// dataset has no labels.
pub fn to_keel_string(data: &Dataset, relation: &str) -> Result<String> {
    data.check_shape()?;
    if data.y.is_empty() {
        return Err(Error::data(
            "the KEEL format needs an output attribute, and this dataset has no labels",
        ));
    }
    let names: Vec<String> = data
        .feature_names_or_default()
        .iter()
        .map(|n| quote_name(n))
        .collect();
    let target = quote_name(data.target_name_or_default());
    let mut out = format!("@relation {}\n", quote_name(relation));
    for (j, name) in names.iter().enumerate() {
        let column: Vec<f64> = data.x.rows().map(|r| r[j]).collect();
        out.push_str(&format!("@attribute {name} {}\n", numeric_type(&column)));
    }
    let all_integer = data.y.iter().all(|v| v.fract() == 0.0);
    let label_type = if all_integer {
        let classes = super::split::class_labels(&data.y);
        let levels: Vec<String> = classes.iter().map(|&c| fmt_f64(c)).collect();
        format!("{{{}}}", levels.join(", "))
    } else {
        numeric_type(&data.y)
    };
    out.push_str(&format!("@attribute {target} {label_type}\n"));
    out.push_str(&format!("@inputs {}\n", names.join(", ")));
    out.push_str(&format!("@outputs {target}\n@data\n"));
    for (row, &label) in data.x.rows().zip(&data.y) {
        for &v in row {
            push_f64(&mut out, v);
            out.push(',');
        }
        push_f64(&mut out, label);
        out.push('\n');
    }
    Ok(out)
}

/// `integer [min, max]` or `real [min, max]` for a column.
fn numeric_type(column: &[f64]) -> String {
    let ty = if column.iter().all(|v| v.fract() == 0.0) {
        "integer"
    } else {
        "real"
    };
    let min = column.iter().copied().fold(f64::INFINITY, f64::min);
    let max = column.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if column.is_empty() {
        return ty.to_string();
    }
    format!("{ty} [{}, {}]", fmt_f64(min), fmt_f64(max))
}

/// Quotes a name that would not read back as one token.
fn quote_name(name: &str) -> String {
    let plain = !name.is_empty()
        && !name
            .chars()
            .any(|c| c.is_whitespace() || ",{}[]'\"%".contains(c));
    if plain {
        name.to_string()
    } else if name.contains('\'') {
        format!("\"{}\"", name.replace('"', "_"))
    } else {
        format!("'{name}'")
    }
}

/// Writes `data` as a KEEL file (see [`to_keel_string`]), named after the file stem.
pub fn write_keel(path: &Path, data: &Dataset) -> Result<()> {
    let relation = path.file_stem().and_then(|s| s.to_str()).unwrap_or("data");
    write_text(path, &to_keel_string(data, relation)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    const IRIS_LIKE: &str = "\
@relation  toy
% a comment
@attribute SepalLength real [4.3, 7.9]
@Attribute Colour {red, 'dark green', blue}
@ATTRIBUTE count integer[0,10]
@attribute Class{Iris-setosa, Iris-versicolor}
@inputs SepalLength, Colour, count
@outputs Class
@data
5.1, red, 3, Iris-setosa
4.9,'dark green',0,Iris-versicolor

6.0, blue, 10, Iris-setosa
";

    fn err_at(text: &str, line: usize, column: usize, needle: &str) {
        match parse_keel(text, "t.dat").unwrap_err() {
            Error::Parse {
                line: l,
                column: c,
                message,
                ..
            } => {
                assert_eq!((l, c), (line, column), "{message}");
                assert!(message.contains(needle), "`{message}` lacks `{needle}`");
            }
            other => panic!("expected a parse error, got {other:?}"),
        }
    }

    #[test]
    fn reads_numeric_and_nominal_attributes() {
        let d = parse_keel(IRIS_LIKE, "t.dat").unwrap();
        assert_eq!(d.feature_names, vec!["SepalLength", "Colour", "count"]);
        assert_eq!(d.target_name, "Class");
        assert_eq!(
            d.x.as_slice(),
            &[5.1, 0.0, 3.0, 4.9, 1.0, 0.0, 6.0, 2.0, 10.0]
        );
        assert_eq!(d.y, vec![0.0, 1.0, 0.0]);
    }

    #[test]
    fn numeric_nominal_output_keeps_its_values() {
        let text =
            "@relation r\n@attribute a real\n@attribute c {1, -1}\n@data\n0.5,-1\n1,1\n2,-1.0\n";
        let d = parse_keel(text, "t.dat").unwrap();
        assert_eq!(d.y, vec![-1.0, 1.0, -1.0]);
        assert_eq!(d.feature_names, vec!["a"]);
        assert_eq!(d.target_name, "c");
    }

    #[test]
    fn inputs_order_output_and_target_override() {
        let text = "@relation r\n@attribute y real\n@attribute a real\n@attribute b real\n\
                    @inputs b, a\n@output y\n@data\n1,2,3\n";
        let d = parse_keel(text, "t.dat").unwrap();
        assert_eq!(d.feature_names, vec!["b", "a"]);
        assert_eq!(d.x.as_slice(), &[3.0, 2.0]);
        assert_eq!(d.y, vec![1.0]);
        let d = parse_keel_with_target(text, "t.dat", Some("a")).unwrap();
        assert_eq!(d.feature_names, vec!["b"]);
        assert_eq!(d.y, vec![2.0]);
    }

    #[test]
    fn malformed_files_report_line_and_column() {
        let head = "@relation r\n@attribute a real\n@attribute c {x, y}\n@data\n";
        err_at(&format!("{head}1,x\n?,y\n"), 6, 1, "missing value `?`");
        err_at(&format!("{head}1,x\n2,<null>\n"), 6, 2, "missing value");
        err_at(
            &format!("{head}1,z\n"),
            5,
            2,
            "`z` is not one of the declared values {x, y}",
        );
        err_at(&format!("{head}abc,x\n"), 5, 1, "cannot parse `abc`");
        err_at(&format!("{head}nan,x\n"), 5, 1, "non-finite");
        err_at(&format!("{head}1,x,3\n"), 5, 0, "3 fields");
        err_at(head, 4, 0, "no data rows");
        err_at(
            "@relation r\n@attribute a real\n1,2\n",
            3,
            0,
            "expected `@attribute`",
        );
        err_at("@relation r\n@attribute a real\n", 0, 0, "no `@data`");
        err_at(
            "@relation r\n@attribute a text\n@data\n",
            2,
            0,
            "unknown type",
        );
        err_at("@relation r\n@bogus\n@data\n", 2, 0, "unknown keyword");
        err_at(
            "@relation r\n@attribute a real\n@attribute a real\n",
            3,
            0,
            "twice",
        );
        err_at(
            "@relation r\n@attribute a real\n@attribute b real\n@outputs q\n@data\n1,2\n",
            4,
            0,
            "no attribute named `q`",
        );
    }

    #[test]
    fn writer_round_trips() {
        let x = Features::new(3, 2, vec![0.5, 3.0, -1e-9, 4.0, 2.25, 5.0]).unwrap();
        let d = Dataset {
            x,
            y: vec![1.0, -1.0, 1.0],
            feature_names: vec!["a b".into(), "c".into()],
            target_name: "label".into(),
        };
        let text = to_keel_string(&d, "toy").unwrap();
        assert!(text.contains("@attribute label {-1, 1}"), "{text}");
        assert!(text.contains("@attribute c integer [3, 5]"), "{text}");
        assert_eq!(parse_keel(&text, "t.dat").unwrap(), d);
        let reg = Dataset {
            y: vec![0.5, 1.0, 2.0],
            ..d
        };
        let text = to_keel_string(&reg, "toy").unwrap();
        assert!(text.contains("@attribute label real [0.5, 2]"), "{text}");
        assert_eq!(parse_keel(&text, "t.dat").unwrap(), reg);
    }
}
