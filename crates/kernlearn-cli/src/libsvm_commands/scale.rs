//! `kernlearn svm-scale`: LIBSVM's `svm-scale`, scaling each feature of a LIBSVM file
//! to `[lower, upper]` (and optionally the targets), saving or restoring the ranges in
//! its range-file format, writing the scaled rows to standard output.

use super::{number, value, Fail};
use kernlearn::svm::printf_g;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

pub(crate) const USAGE: &str = "\
Usage: svm-scale [options] data_filename
options:
-l lower : x scaling lower limit (default -1)
-u upper : x scaling upper limit (default +1)
-y y_lower y_upper : y scaling limits (default: no y scaling)
-s save_filename : save scaling parameters to save_filename
-r restore_filename : restore scaling parameters from restore_filename
";

/// svm-scale's command line.
#[derive(Debug, PartialEq)]
struct ScaleArgs {
    lower: f64,
    upper: f64,
    y: Option<(f64, f64)>,
    save: Option<String>,
    restore: Option<String>,
    data: String,
}

fn parse(args: &[String]) -> Result<ScaleArgs, Fail> {
    let mut a = ScaleArgs {
        lower: -1.0,
        upper: 1.0,
        y: None,
        save: None,
        restore: None,
        data: String::new(),
    };
    let mut i = 0;
    while i < args.len() && args[i].starts_with('-') && args[i].len() > 1 {
        let opt = args[i].as_str();
        let v = value(args, &mut i, opt)?;
        match opt {
            "-l" => a.lower = number(v, opt)?,
            "-u" => a.upper = number(v, opt)?,
            "-y" => {
                let lo = number(v, opt)?;
                let hi = number(value(args, &mut i, opt)?, opt)?;
                a.y = Some((lo, hi));
            }
            "-s" => a.save = Some(v.to_string()),
            "-r" => a.restore = Some(v.to_string()),
            _ => return Err(Fail::Usage(Some(format!("unknown option {opt}")))),
        }
        i += 1;
    }
    if a.upper <= a.lower || a.y.is_some_and(|(lo, hi)| hi <= lo) {
        return Err(Fail::Error(
            "inconsistent lower/upper specification".to_string(),
        ));
    }
    if a.save.is_some() && a.restore.is_some() {
        return Err(Fail::Error(
            "cannot use -r and -s simultaneously".to_string(),
        ));
    }
    match &args[i..] {
        [data] => a.data = data.clone(),
        [] => return Err(Fail::Usage(None)),
        [_, extra, ..] => {
            return Err(Fail::Usage(Some(format!(
                "unexpected argument `{extra}` after the data file"
            ))))
        }
    }
    Ok(a)
}

/// One data line: the target and its `(index, value)` pairs.
type Row = (f64, Vec<(usize, f64)>);

/// Reads the data file's rows (LIBSVM format; errors name the line).
fn read_rows(path: &str) -> Result<Vec<Row>, Fail> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Fail::Error(format!("can't open file {path}: {e}")))?;
    let mut rows = Vec::new();
    for (ln, line) in text.lines().enumerate() {
        let bad = |why: String| Fail::Error(format!("{path}:{}: {why}", ln + 1));
        let mut tokens = line.split_ascii_whitespace();
        let Some(target) = tokens.next() else {
            continue;
        };
        let target: f64 = target
            .parse()
            .map_err(|_| bad(format!("ERROR: failed to read labels (`{target}`)")))?;
        let mut pairs = Vec::new();
        for t in tokens {
            let parsed = t
                .split_once(':')
                .and_then(|(i, v)| Some((i.parse::<usize>().ok()?, v.parse::<f64>().ok()?)));
            let (i, v) = parsed.ok_or_else(|| bad(format!("`{t}` is not index:value")))?;
            pairs.push((i, v));
        }
        rows.push((target, pairs));
    }
    Ok(rows)
}

/// The ranges: per feature (1-based, index 0 unused) and of the targets.
struct Ranges {
    min: Vec<f64>,
    max: Vec<f64>,
    y_min: f64,
    y_max: f64,
}

/// Pass 2 of svm-scale: each feature's minimum and maximum (absent entries are zeros).
fn ranges(rows: &[Row], max_index: usize) -> Ranges {
    let mut r = Ranges {
        min: vec![f64::MAX; max_index + 1],
        max: vec![-f64::MAX; max_index + 1],
        y_min: f64::MAX,
        y_max: -f64::MAX,
    };
    for (target, pairs) in rows {
        r.y_max = r.y_max.max(*target);
        r.y_min = r.y_min.min(*target);
        let mut next = 1;
        for &(index, value) in pairs {
            for i in next..index {
                r.max[i] = r.max[i].max(0.0);
                r.min[i] = r.min[i].min(0.0);
            }
            r.max[index] = r.max[index].max(value);
            r.min[index] = r.min[index].min(value);
            next = index + 1;
        }
        for i in next..=max_index {
            r.max[i] = r.max[i].max(0.0);
            r.min[i] = r.min[i].min(0.0);
        }
    }
    r
}

/// Pass 2.5 with `-r`: the ranges, limits and target scaling of a range file;
/// features it does not list are scaled to 0 (with LIBSVM's warning).
fn restore(a: &mut ScaleArgs, r: &mut Ranges, path: &str) -> Result<(), Fail> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Fail::Error(format!("can't open file {path}: {e}")))?;
    let failed = || Fail::Error("ERROR: failed to read scaling parameters".to_string());
    let mut lines = text.lines().peekable();
    let pair = |line: Option<&str>| -> Result<(f64, f64), Fail> {
        let mut t = line.ok_or_else(failed)?.split_ascii_whitespace();
        let mut next = || {
            t.next()
                .and_then(|v| v.parse::<f64>().ok())
                .ok_or_else(failed)
        };
        Ok((next()?, next()?))
    };
    if lines.peek().is_some_and(|l| l.starts_with('y')) {
        lines.next();
        a.y = Some(pair(lines.next())?);
        (r.y_min, r.y_max) = pair(lines.next())?;
    }
    if !lines.next().is_some_and(|l| l.starts_with('x')) {
        return Ok(());
    }
    (a.lower, a.upper) = pair(lines.next())?;
    let max_index = r.min.len() - 1;
    let mut next = 1;
    let unseen = |i: usize, r: &mut Ranges| {
        if i <= max_index && r.min[i] != r.max[i] {
            eprintln!(
                "WARNING: feature index {i} appeared in file {} was not seen in the scaling \
                 factor file {path}. The feature is scaled to 0.",
                a.data
            );
            r.min[i] = 0.0;
            r.max[i] = 0.0;
        }
    };
    for line in lines {
        let t: Vec<&str> = line.split_ascii_whitespace().collect();
        let [idx, lo, hi] = t[..] else { break };
        let (Ok(idx), Ok(lo), Ok(hi)) = (idx.parse::<usize>(), lo.parse(), hi.parse()) else {
            break;
        };
        for i in next..idx {
            unseen(i, r);
        }
        if idx >= r.min.len() {
            r.min.resize(idx + 1, 0.0);
            r.max.resize(idx + 1, 0.0);
        }
        r.min[idx] = lo;
        r.max[idx] = hi;
        next = idx + 1;
    }
    for i in next..=max_index {
        unseen(i, r);
    }
    Ok(())
}

/// The range file of `-s`.
fn range_file(a: &ScaleArgs, r: &Ranges) -> String {
    let g = |v: f64| printf_g(v, 17);
    let mut s = String::new();
    if let Some((lo, hi)) = a.y {
        let _ = write!(s, "y\n{} {}\n{} {}\n", g(lo), g(hi), g(r.y_min), g(r.y_max));
    }
    let _ = writeln!(s, "x\n{} {}", g(a.lower), g(a.upper));
    for i in 1..r.min.len() {
        if r.min[i] != r.max[i] {
            let _ = writeln!(s, "{i} {} {}", g(r.min[i]), g(r.max[i]));
        }
    }
    s
}

/// Runs svm-scale.
pub(crate) fn run(args: &[String]) -> Result<(), Fail> {
    let mut a = parse(args)?;
    let rows = read_rows(&a.data)?;
    let mut max_index = rows
        .iter()
        .filter_map(|(_, p)| p.last().map(|&(i, _)| i))
        .max()
        .unwrap_or(0);
    let min_index = rows
        .iter()
        .filter_map(|(_, p)| p.first().map(|&(i, _)| i))
        .min()
        .unwrap_or(1);
    if min_index < 1 {
        eprintln!("WARNING: minimal feature index is {min_index}, but indices should start from 1");
    }
    let mut restore_max = 0;
    if let Some(path) = &a.restore {
        // The range file's largest index widens the scan, as in LIBSVM's pass 1.
        if let Ok(text) = std::fs::read_to_string(path) {
            restore_max = text
                .lines()
                .filter_map(|l| {
                    let t: Vec<&str> = l.split_ascii_whitespace().collect();
                    (t.len() == 3).then(|| t[0].parse::<usize>().ok()).flatten()
                })
                .max()
                .unwrap_or(0);
        }
    }
    max_index = max_index.max(restore_max);
    let mut r = ranges(&rows, max_index);
    if let Some(path) = a.restore.clone() {
        restore(&mut a, &mut r, &path)?;
    }
    if let Some(path) = &a.save {
        super::refuse_output_over_input(Path::new(path), &[Path::new(&a.data)])?;
        kernlearn::output::write_atomic(Path::new(path), range_file(&a, &r).as_bytes())
            .map_err(|e| Fail::Error(format!("can't open file {path}: {e}")))?;
    }
    write_scaled(&a, &r, &rows, max_index)
}

/// Pass 3: the scaled rows on standard output.
fn write_scaled(a: &ScaleArgs, r: &Ranges, rows: &[Row], max_index: usize) -> Result<(), Fail> {
    let (mut old_nonzeros, mut new_nonzeros) = (0usize, 0usize);
    let mut out = String::new();
    let mut feature = |out: &mut String, index: usize, value: f64| {
        if index >= r.min.len() || r.max[index] == r.min[index] {
            return;
        }
        let v = if value == r.min[index] {
            a.lower
        } else if value == r.max[index] {
            a.upper
        } else {
            a.lower + (a.upper - a.lower) * (value - r.min[index]) / (r.max[index] - r.min[index])
        };
        if v != 0.0 {
            let _ = write!(out, "{index}:{} ", printf_g(v, 6));
            new_nonzeros += 1;
        }
    };
    for (target, pairs) in rows {
        let t = match a.y {
            Some((lo, _)) if *target == r.y_min => lo,
            Some((_, hi)) if *target == r.y_max => hi,
            Some((lo, hi)) => lo + (hi - lo) * (target - r.y_min) / (r.y_max - r.y_min),
            None => *target,
        };
        let _ = write!(out, "{} ", printf_g(t, 17));
        let mut next = 1;
        for &(index, value) in pairs {
            old_nonzeros += 1;
            for i in next..index {
                feature(&mut out, i, 0.0);
            }
            feature(&mut out, index, value);
            next = index + 1;
        }
        for i in next..=max_index {
            feature(&mut out, i, 0.0);
        }
        out.push('\n');
    }
    std::io::stdout()
        .write_all(out.as_bytes())
        .map_err(|e| Fail::Error(format!("cannot write the scaled rows: {e}")))?;
    if new_nonzeros > old_nonzeros {
        eprintln!(
            "WARNING: original #nonzeros {old_nonzeros}\n       > new      #nonzeros \
             {new_nonzeros}\nIf feature values are non-negative and sparse, use -l 0 rather \
             than the default -l -1"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::words as args;

    #[test]
    fn parses_negative_limits_and_y_pairs() {
        let a = parse(&args("-l -1 -u 1 -y 0 10 -s range train")).unwrap();
        assert_eq!((a.lower, a.upper, a.y), (-1.0, 1.0, Some((0.0, 10.0))));
        assert_eq!(a.save.as_deref(), Some("range"));
        assert!(matches!(parse(&args("-l 1 -u 0 f")), Err(Fail::Error(_))));
        assert!(matches!(parse(&args("-s a -r b f")), Err(Fail::Error(_))));
        assert!(matches!(parse(&args("-l")), Err(Fail::Usage(Some(_)))));
    }
}
