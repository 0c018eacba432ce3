//! Scores and output: one JSON object (`--json`) or a human-readable table.

use kernlearn::estimator::{Estimator, Task};
use kernlearn::metrics::{accuracy, mse, relative_squared_error};
use kernlearn::Result;
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
            out.insert(format!("{prefix}_accuracy"), json!(accuracy(pred, truth)?));
        }
    }
    Ok(())
}

/// Method, parameters and fit summary of a model.
pub fn model_fields(model: &dyn Estimator, out: &mut Map<String, Value>) {
    let s = model.summary();
    out.insert("method".into(), json!(model.method()));
    out.insert("n_support".into(), json!(s.n_support));
    out.insert("objective".into(), json!(s.objective));
    out.insert("iterations".into(), json!(s.iterations));
    out.insert("params".into(), model.params_json());
    out.insert("details".into(), s.extra);
}

/// Prints `out` as one JSON object, or as aligned `key  value` lines.
pub fn print(out: &Map<String, Value>, as_json: bool) {
    if as_json {
        println!("{}", Value::Object(out.clone()));
        return;
    }
    let width = out.keys().map(String::len).max().unwrap_or(0);
    for (k, v) in out {
        if matches!(k.as_str(), "params" | "details") {
            continue;
        }
        println!("{k:<width$}  {}", human(v));
    }
    let weights = out.get("details").and_then(|d| d.get("weights"));
    if let Some(pairs) = weights.and_then(Value::as_array) {
        for (p, w) in pairs.iter().enumerate() {
            let key = match pairs.len() {
                1 => "weights".to_string(),
                _ => format!("weights[{p}]"),
            };
            let w: Vec<f64> = w
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_f64)
                .collect();
            println!("{key:<width$}  {}", top_weights(&w, 5));
        }
    }
}

/// `m kernels, s > 0: #i w_i, …` for the `top` largest kernel weights (0-based kernel
/// numbers in the family's order).
fn top_weights(w: &[f64], top: usize) -> String {
    let mut order: Vec<usize> = (0..w.len()).collect();
    order.sort_by(|&a, &b| w[b].total_cmp(&w[a]));
    let shown: Vec<String> = order
        .iter()
        .take(top)
        .map(|&i| format!("#{i} {}", format_num(w[i])))
        .collect();
    let nonzero = w.iter().filter(|&&v| v > 0.0).count();
    format!("{} kernels, {nonzero} > 0: {}", w.len(), shown.join(", "))
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
    if x == 0.0 || (1e-4..1e6).contains(&x.abs()) {
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
