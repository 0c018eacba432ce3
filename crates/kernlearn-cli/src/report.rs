//! Scores and output: one JSON object (`--json`) or a human-readable table.

use crate::out::{out, outln};
use kernlearn::method::{spell, Spelling};
use kernlearn::metrics::{accuracy, mse, relative_squared_error};
use kernlearn::predictor::ArtefactKind;
use kernlearn::Result;
use kernlearn::{Predictor, Task};
use serde_json::{json, Map, Value};

/// Adds `<prefix>_accuracy` (classification, novelty) or `<prefix>_mse` and
/// `<prefix>_rse` (regression) to `out`.
pub fn add_scores(
    out: &mut Map<String, Value>,
    prefix: &str,
    task: Task,
    pred: &[f64],
    truth: &[f64],
) -> Result<()> {
    match task {
        Task::Regression => {
            out.insert(format!("{prefix}_mse"), json!(mse(pred, truth)?));
            // RSE needs variance in the truth; leave it out when there is none.
            if let Ok(rse) = relative_squared_error(pred, truth) {
                out.insert(format!("{prefix}_rse"), json!(rse));
            }
        }
        Task::Classification | Task::Novelty => {
            let acc = accuracy(pred, truth)?;
            out.insert(format!("{prefix}_accuracy"), json!(acc));
            if prefix == "train" && task == Task::Classification {
                warn_below_majority(out, acc, truth);
            }
        }
    }
    Ok(())
}

/// A classifier whose training accuracy is below the share of the most frequent class
/// does worse than always predicting that class: the fit failed (too few epochs, a
/// diverged network, unsuited kernels). Said on standard error and in `warnings`.
fn warn_below_majority(out: &mut Map<String, Value>, acc: f64, truth: &[f64]) {
    let mut counts: Vec<(f64, usize)> = Vec::new();
    for &t in truth {
        match counts.iter_mut().find(|(c, _)| *c == t) {
            Some((_, n)) => *n += 1,
            None => counts.push((t, 1)),
        }
    }
    let majority =
        counts.iter().map(|&(_, n)| n).max().unwrap_or(0) as f64 / truth.len().max(1) as f64;
    if acc + 1e-12 >= majority {
        return;
    }
    let w = format!(
        "training accuracy {:.1} % is below the majority-class rate {:.1} %: the fit did \
         worse than always predicting the most frequent class (check the method's options: \
         epochs, learning rate, kernels, scaling)",
        100.0 * acc,
        100.0 * majority
    );
    eprintln!("warning: {w}");
    match out.get_mut("warnings").and_then(Value::as_array_mut) {
        Some(list) => list.push(json!(w)),
        None => {
            out.insert("warnings".into(), json!([w]));
        }
    }
}

/// Method, parameters and fit summary of a model.
pub fn model_fields(model: &dyn Predictor, out: &mut Map<String, Value>) {
    let s = model.summary();
    out.insert("method".into(), json!(model.method()));
    out.insert("n_support".into(), json!(s.n_support));
    out.insert("objective".into(), json!(s.objective));
    out.insert("iterations".into(), json!(s.iterations));
    out.insert("params".into(), model.params_json());
    let mut details = s.extra;
    let names = kernel_names(model);
    if let Some(w) = details.get_mut("weights") {
        *w = summarise_weights(w, names.as_deref());
    }
    if let Some(names) = names.filter(|n| n.len() <= WHOLE_WEIGHTS_UP_TO) {
        details["kernels"] = json!(names);
    }
    out.insert("details".into(), details);
    let warnings: Vec<String> = (model.warnings().iter())
        .map(|w| spell(w, Spelling::CommandLine))
        .collect();
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    if !warnings.is_empty() {
        out.insert("warnings".into(), json!(warnings));
    }
}

/// The learned kernel's per-feature artefacts, each under its name as `[{"feature",
/// "relevance"}]` in column order (`feature_relevance`: each feature's relevance to the
/// learned kernel); after a fallback to SVM-CV, the declined learned kernel's, and
/// `<name>_of` says so.
pub fn per_feature_fields(fitted: &kernlearn::FittedPipeline, out: &mut Map<String, Value>) {
    let (learned, declined) = fitted.learned();
    for name in learned.model.artefact_names(ArtefactKind::PerFeature) {
        let Some(shares) = learned.per_feature(name) else {
            continue;
        };
        let rows: Vec<Value> = (shares.iter())
            .map(|(column, r)| json!({ "feature": column, "relevance": r }))
            .collect();
        out.insert(name.into(), Value::Array(rows));
        if declined {
            out.insert(
                format!("{name}_of"),
                json!("the declined learned kernel (the fit fell back to SVM-CV)"),
            );
        }
    }
}

/// Kernel weight vectors up to this length are printed whole; longer ones (MWUMKL on a
/// million kernels) as a summary, the full vector staying in the model file.
const WHOLE_WEIGHTS_UP_TO: usize = 20;

/// Most kernels named one by one (each name is its spec, e.g. `rbf(gamma=1)@[3]`).
const NAMED_KERNELS_UP_TO: usize = 200_000;

/// The spec of each base kernel of a multiple-kernel model, in weight order (from the
/// kernel family its parameters record), when there are not too many.
fn kernel_names(model: &dyn Predictor) -> Option<Vec<String>> {
    let spec = model.params_json().get("kernels")?.as_str()?.to_string();
    let family: kernlearn::bank::KernelFamily = spec.parse().ok()?;
    let d = model.n_features();
    if family.len(d) > NAMED_KERNELS_UP_TO {
        return None;
    }
    let kernels = family.expand(d).ok()?;
    Some(kernels.iter().map(ToString::to_string).collect())
}

/// Each class pair's kernel weights, or for a long vector its count, the number above
/// zero, the effective number of kernels `1/Σμ²` and the largest 20 as
/// `{index, kernel, weight}`.
fn summarise_weights(pairs: &Value, names: Option<&[String]>) -> Value {
    let Some(pairs) = pairs.as_array() else {
        return pairs.clone();
    };
    let one = |w: &Value| -> Value {
        let v: Vec<f64> = w
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_f64)
            .collect();
        if v.len() <= WHOLE_WEIGHTS_UP_TO {
            return w.clone();
        }
        let largest: Vec<Value> = largest(&v, WHOLE_WEIGHTS_UP_TO)
            .into_iter()
            .map(|i| json!({"index": i, "kernel": names.and_then(|n| n.get(i)), "weight": v[i]}))
            .collect();
        json!({
            "count": v.len(),
            "nonzero": v.iter().filter(|&&x| x > 0.0).count(),
            "effective_kernels": 1.0 / v.iter().map(|x| x * x).sum::<f64>(),
            "largest": largest,
        })
    };
    Value::Array(pairs.iter().map(one).collect())
}

/// Indices of the `top` largest values, largest first.
fn largest(w: &[f64], top: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..w.len()).collect();
    order.sort_by(|&a, &b| w[b].total_cmp(&w[a]));
    order.truncate(top);
    order
}

/// Prints `out` as one JSON object, or as aligned `key  value` lines.
pub fn print(out: &Map<String, Value>, as_json: bool) {
    if as_json {
        outln!("{}", Value::Object(out.clone()));
    } else {
        out!("{}", render(out));
    }
}

/// `out` as aligned `key  value` lines (kernel weights as their largest few).
pub fn render(out: &Map<String, Value>) -> String {
    let mut s = String::new();
    let width = out.keys().map(String::len).max().unwrap_or(0);
    for (k, v) in out {
        if matches!(k.as_str(), "params" | "details") {
            continue;
        }
        s += &format!("{k:<width$}  {}\n", human(v));
    }
    let weights = out.get("details").and_then(|d| d.get("weights"));
    if let Some(pairs) = weights.and_then(Value::as_array) {
        for (p, w) in pairs.iter().enumerate() {
            let key = match pairs.len() {
                1 => "weights".to_string(),
                _ => format!("weights[{p}]"),
            };
            let names = out["details"].get("kernels").and_then(Value::as_array);
            s += &format!("{key:<width$}  {}\n", top_weights(w, names, 5));
        }
    }
    s
}

/// `m kernels, s > 0: #i KERNEL w_i, …` for the `top` largest kernel weights (0-based
/// kernel numbers in the family's order, with the kernel's spec when known), from a
/// whole weight vector (`names`: the kernels' specs) or its summary.
fn top_weights(w: &Value, names: Option<&Vec<Value>>, top: usize) -> String {
    let name = |i: usize| names.and_then(|n| n.get(i)).cloned().unwrap_or(Value::Null);
    let (count, nonzero, pairs): (usize, usize, Vec<(usize, Value, f64)>) = match w.as_array() {
        Some(a) => {
            let v: Vec<f64> = a.iter().filter_map(Value::as_f64).collect();
            let pairs = largest(&v, top)
                .into_iter()
                .map(|i| (i, name(i), v[i]))
                .collect();
            (v.len(), v.iter().filter(|&&x| x > 0.0).count(), pairs)
        }
        None => {
            let n = |k: &str| w.get(k).and_then(Value::as_u64).unwrap_or(0) as usize;
            let pairs = w["largest"]
                .as_array()
                .into_iter()
                .flatten()
                .take(top)
                .filter_map(|p| {
                    let i = p["index"].as_u64()? as usize;
                    Some((i, p["kernel"].clone(), p["weight"].as_f64()?))
                })
                .collect();
            (n("count"), n("nonzero"), pairs)
        }
    };
    let shown: Vec<String> = pairs
        .iter()
        .map(|(i, k, v)| match k.as_str() {
            Some(k) => format!("#{i} {k} {}", format_num(*v)),
            None => format!("#{i} {}", format_num(*v)),
        })
        .collect();
    format!("{count} kernels, {nonzero} > 0: {}", shown.join(", "))
}

/// Short human rendering of a JSON value (numbers to 4 significant places).
pub fn human(v: &Value) -> String {
    match v {
        Value::Number(n) if n.is_f64() => format_num(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => s.clone(),
        Value::Null => "-".into(),
        other => other.to_string(),
    }
}

/// A number with four significant digits, without exponent for ordinary magnitudes.
pub fn format_num(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if (1e-4..1e6).contains(&x.abs()) {
        let digits = (3 - x.abs().log10().floor() as i32).clamp(0, 6) as usize;
        format!("{x:.digits$}")
    } else {
        format!("{x:.3e}")
    }
}

/// Renders rows as a markdown table with aligned columns.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut width: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: Vec<String>| -> String {
        let padded: Vec<String> = cells
            .iter()
            .zip(&width)
            .map(|(c, &w)| format!("{c:<w$}"))
            .collect();
        format!("| {} |\n", padded.join(" | "))
    };
    let mut s = line(header.iter().map(|h| h.to_string()).collect());
    s += &line(width.iter().map(|&w| "-".repeat(w)).collect());
    for r in rows {
        s += &line(r.clone());
    }
    s
}

/// `kernlearn methods`: the library's catalogue as a table, markdown or JSON, or what one
/// method is and the options it reads.
pub fn methods(method: Option<kernlearn::MethodKind>, markdown: bool, as_json: bool) {
    if let Some(kind) = method {
        method_options(kind);
        return;
    }
    if markdown {
        out!("{}", kernlearn::MethodKind::markdown_table());
        return;
    }
    if as_json {
        outln!("{}", kernlearn::MethodKind::catalogue_json());
        return;
    }
    let rows: Vec<Vec<String>> = kernlearn::MethodKind::all()
        .map(|k| {
            let i = k.info();
            let tasks: Vec<&str> = i.tasks.iter().map(|t| t.name()).collect();
            vec![
                i.name.to_string(),
                k.family().name.to_string(),
                tasks.join(", "),
                i.takes.describe().to_string(),
                i.summary.to_string(),
            ]
        })
        .collect();
    out!(
        "{}",
        table(&["method", "family", "tasks", "takes", "what it is"], &rows)
    );
    outln!(
        "\ntakes: per-sample weights (fit --weight-file / --weight-column, Python's \
         sample_weight) and sparse rows kept sparse, where the method honours them; the \
         others refuse them.\nOptions one method reads: `kernlearn methods METHOD` (all: \
         `kernlearn methods --json`); others are refused."
    );
}

/// What method `kind` is and every option it reads, each with its help.
fn method_options(kind: kernlearn::MethodKind) {
    let info = kind.info();
    let tasks: Vec<&str> = info.tasks.iter().map(|t| t.name()).collect();
    outln!("{}: {}", info.name, info.summary);
    outln!(
        "family: {}; tasks: {}",
        kind.family().name,
        tasks.join(", ")
    );
    outln!("--select grid chooses: {}", info.selection);
    outln!(
        "per-sample weights (--weight-file, --weight-column): {}; sparse rows: {}",
        if info.takes.sample_weights {
            "yes"
        } else {
            "refused"
        },
        if info.takes.sparse {
            "kept sparse"
        } else {
            "read densely"
        }
    );
    outln!("\nOptions it reads (any other method option is refused):");
    for spec in info.options() {
        let short = spec.short.map(|c| format!("-{c}, ")).unwrap_or_default();
        outln!("\n  {short}--{}", spec.name);
        for line in wrap(spec.help, 88) {
            outln!("          {line}");
        }
    }
}

/// `text` in lines of at most `width` characters, broken at spaces.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let line = lines.last_mut().expect("one line at least");
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(word.to_string());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::format_num;

    #[test]
    fn numbers_are_formatted_without_overflow() {
        assert_eq!(format_num(0.0), "0");
        assert_eq!(format_num(-0.0), "0");
        assert_eq!(format_num(0.5), "0.5000");
        assert_eq!(format_num(1234.5), "1234");
        assert_eq!(format_num(1e-9), "1.000e-9");
        assert_eq!(format_num(f64::NAN), "NaN");
    }
}
