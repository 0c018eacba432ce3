//! Figures of fits, drawn by the library so that every front end draws the same: the
//! per-iteration trace plots that `fit --trace` writes beside the CSV (KNPL's Fig. 3,
//! DANK's Fig. 4, SPG-GMKL's objective, a network's learning curves), and the choices of
//! the papers' figures that `kernlearn figure` draws (which methods, run how).
//!
//! A trace's plots are chosen by the columns its family records (`admm_iter`: KNPL's
//! ADMM; `pg_norm`: SPG-GMKL; `val_accuracy`: a network; otherwise DANK's solver).

use crate::output::write_atomic_with;
use crate::pipeline::Pipeline;
use crate::plot::{bar_chart, line_plot};
use crate::trace::Trace;
use crate::trace::{alternation, Alternation};
use crate::{Error, Result};
use std::path::{Path, PathBuf};

/// The methods of the decision-boundary figure (the KNPL and DANK papers' Figs. 1–2) and
/// the options each runs with there: the papers' protocol, the learned G / F kept (no
/// fallback to SVM-CV) and KNPL's Algorithm 2 as published; σ and C by 5-fold CV.
pub const BOUNDARY_METHODS: &[(&str, &[(&str, &str)])] = &[
    ("svm", &[]),
    (
        "knpl",
        &[("no-fallback", "true"), ("knpl-alternate", "true")],
    ),
    ("dank", &[("no-fallback", "true")]),
];

/// The default method of the gates figure (the thesis's Fig. 4.1): LMKL, whose gates
/// really differ over the plane with the default kernels for every seed tried.
pub const GATES_METHOD: &str = "lmkl";

/// Where `fit --trace FILE` draws a model's figure `name`: `FILE` stem + `-NAME.png`.
pub fn figure_path(csv: &Path, name: &str) -> PathBuf {
    sibling(csv, &format!("-{name}"), "png")
}

/// `path` with `suffix` added to its stem and the extension `ext` (`run.csv` →
/// `run-objective.png`).
fn sibling(path: &Path, suffix: &str, ext: &str) -> PathBuf {
    let stem = path
        .file_stem()
        .map_or_else(|| "trace".into(), |s| s.to_string_lossy());
    path.with_file_name(format!("{stem}{suffix}.{ext}"))
}

/// The plots `fit --trace FILE` writes beside the CSV: `FILE` stem + `.png` (the
/// residual: KNPL's ADMM `Diff`, DANK's `‖αₜ − αₜ₋₁‖`, log scale) and stem +
/// `-objective.png` (KNPL's `H(α, G)` per outer round, DANK's `h(α) = H(α, F(α))` per
/// iteration).
pub fn trace_plot_paths(csv: &Path) -> [PathBuf; 2] {
    [sibling(csv, "", "png"), sibling(csv, "-objective", "png")]
}

type Series = Vec<(String, Vec<(f64, f64)>)>;

/// What the two trace plots show: series, titles and axis labels.
struct TracePlots {
    residual: Series,
    residual_title: String,
    residual_x: &'static str,
    residual_y: &'static str,
    /// Whether the residual plot's y axis is logarithmic.
    residual_log: bool,
    objective: Series,
    objective_title: String,
    objective_x: &'static str,
    objective_y: &'static str,
}

/// Writes the two plots of [`trace_plot_paths`] for a KNPL or DANK trace.
pub fn write_trace_plots(trace: &Trace, csv: &Path, method: &str) -> Result<()> {
    let col = |name: &str| {
        trace
            .column(name)
            .ok_or_else(|| Error::data(format!("the trace has no `{name}` column")))
    };
    let [residual_path, objective_path] = trace_plot_paths(csv);
    let plots = if trace.column("pg_norm").is_some() {
        spg_plots(trace, method)?
    } else if trace.column("val_accuracy").is_some() {
        network_plots(trace, method)?
    } else {
        solver_plots(trace, method, &col)?
    };
    write_plots(&residual_path, &objective_path, &plots)
}

/// A network's epochs (CKL, rff-linear, DKMO, M-DKMO): training and validation loss, validation
/// accuracy, one series per training run (`phase`: M-DKMO's per-kernel pre-training
/// runs, then fine-tuning).
fn network_plots(trace: &Trace, method: &str) -> Result<TracePlots> {
    let col = |name: &str| {
        trace
            .column(name)
            .ok_or_else(|| Error::data(format!("the trace has no `{name}` column")))
    };
    let (epoch, train, val, acc) = (
        col("epoch")?,
        col("train_loss")?,
        col("val_loss")?,
        col("val_accuracy")?,
    );
    let phase = trace
        .column("phase")
        .unwrap_or_else(|| vec![0.0; epoch.len()]);
    let last = phase.iter().fold(0.0f64, |m, &p| m.max(p));
    let name = |p: f64, what: &str| {
        if last == 0.0 {
            what.to_string()
        } else if p == last {
            format!("fine-tuning, {what}")
        } else {
            format!("kernel {} pre-training, {what}", p as usize + 1)
        }
    };
    let mut loss: Series = Vec::new();
    let mut accuracy: Series = Vec::new();
    let add = |series: &mut Series, label: String, x: f64, value: f64| {
        if !value.is_finite() {
            return;
        }
        match series.iter_mut().find(|s| s.0 == label) {
            Some(s) => s.1.push((x, value)),
            None => series.push((label, vec![(x, value)])),
        }
    };
    for i in 0..epoch.len() {
        add(&mut loss, name(phase[i], "train"), epoch[i], train[i]);
        add(&mut loss, name(phase[i], "validation"), epoch[i], val[i]);
        add(
            &mut accuracy,
            name(phase[i], "validation"),
            epoch[i],
            acc[i],
        );
    }
    Ok(TracePlots {
        residual: loss,
        residual_title: format!("{method}: cross-entropy loss per epoch"),
        residual_x: "epoch",
        residual_y: "loss",
        residual_log: true,
        objective: accuracy,
        objective_title: format!("{method}: validation accuracy per epoch"),
        objective_x: "epoch",
        objective_y: "accuracy",
    })
}

/// KNPL's monotone ascent, whose G-step is the exact projection (no ADMM rows): the
/// relative gain of φ per accepted round (what its stopping rule reads), and the objective.
/// A run that accepted no step has no gain to draw; its first plot is then the objective
/// on a linear scale.
fn ascent_plots(objective: Series, method: &str, note: &str) -> TracePlots {
    let gains: Series = (objective.iter())
        .map(|(name, pts)| {
            let g = pts
                .windows(2)
                .map(|w| (w[1].0, (w[1].1 - w[0].1) / w[0].1.abs().max(1.0)));
            (name.clone(), g.filter(|p| p.1 > 0.0).collect())
        })
        .collect();
    let gained = gains.iter().any(|s| !s.1.is_empty());
    TracePlots {
        residual: if gained { gains } else { objective.clone() },
        residual_title: match gained {
            true => format!("{method}: relative gain of φ per round of the ascent\nexact G-step (no ADMM); the ascent stops when the gain falls below its tolerance"),
            false => format!("{method}: no step of the ascent increased φ\nthe start (the SVM's α) is already the maximiser to the solvers' accuracy"),
        },
        residual_x: "outer round t",
        residual_y: if gained { "(φₜ − φₜ₋₁) / max(1, |φₜ₋₁|)" } else { "objective φ" },
        residual_log: gained,
        objective,
        objective_title: format!("{method}: objective after each outer round{note}"),
        objective_x: "outer round t (0 = plain SVM, G = 11ᵀ)",
        objective_y: "objective H(α, G) (max over α, min over G)",
    }
}

/// KNPL's and DANK's solver traces.
fn solver_plots(
    trace: &Trace,
    method: &str,
    col: &dyn Fn(&str) -> Result<Vec<f64>>,
) -> Result<TracePlots> {
    let diff = col("diff")?;
    let objective = col("objective")?;
    let plots = match trace.column("admm_iter") {
        // KNPL: ADMM rows (admm_iter > 0) carry Diff; outer rows carry the objective.
        Some(admm) => {
            let pair = col("pair")?;
            let outer = col("outer")?;
            let dual = col("dual_objective")?;
            let n_pairs = pair.iter().fold(0.0f64, |m, &p| m.max(p)) as usize + 1;
            let mut res: Series = (0..n_pairs)
                .map(|p| (format!("class pair {}", p + 1), vec![]))
                .collect();
            let mut obj = res.clone();
            let mut duals = vec![vec![]; n_pairs];
            for i in 0..admm.len() {
                let p = pair[i] as usize;
                if admm[i] > 0.0 {
                    let step = res[p].1.len() as f64 + 1.0;
                    res[p].1.push((step, diff[i]));
                } else {
                    obj[p].1.push((outer[i], objective[i]));
                    duals[p].push(dual[i]);
                }
            }
            let rounds = obj.iter().map(|s| s.1.len()).max().unwrap_or(1) - 1;
            // Judged on the SVM dual of the α-step, as the model's warning is.
            let unsettled: Vec<String> = duals
                .iter()
                .enumerate()
                .filter_map(|(p, d)| match alternation(d) {
                    Alternation::Converged => None,
                    a => Some((p, matches!(a, Alternation::TwoCycle { .. }))),
                })
                .map(|(p, cycle)| {
                    let which = if n_pairs == 1 {
                        String::new()
                    } else {
                        format!("class pair {}: ", p + 1)
                    };
                    let how = if cycle {
                        "alternates between two levels (a 2-cycle)"
                    } else {
                        "still moving in the last round"
                    };
                    format!("{which}{how}")
                })
                .collect();
            let note = match unsettled.len() {
                0 => format!(
                    "\nconverged: the last of the {rounds} rounds no longer changes the objectives"
                ),
                1 | 2 => format!("\nnot converged — {}", unsettled.join("; ")),
                k => format!("\nnot converged in {k} of {n_pairs} class pairs"),
            };
            let one = |s: Series| if n_pairs == 1 { rename(s, method) } else { s };
            if res.iter().all(|s| s.1.is_empty()) {
                return Ok(ascent_plots(one(obj), method, &note));
            }
            TracePlots {
                residual: one(res),
                residual_title: format!(
                    "{method}: ADMM residual of the G-step\neach of the {rounds} outer rounds \
                     restarts the ADMM; rounds follow one another along the x axis"
                ),
                residual_x: "ADMM iteration k (all outer rounds in sequence)",
                residual_y: "ADMM residual Diffₖ",
                residual_log: true,
                objective: one(obj),
                objective_title: format!("{method}: objective after each outer round{note}"),
                objective_x: "outer round t (0 = plain SVM, G = 11ᵀ)",
                objective_y: "objective H(α, G) (max over α, min over G)",
            }
        }
        // DANK: one row per iteration.
        None => {
            let iter = col("iter")?;
            let zip = |v: &[f64]| iter.iter().copied().zip(v.iter().copied()).collect();
            TracePlots {
                residual: vec![(method.to_string(), zip(&diff))],
                residual_title: format!("{method}: change in α per iteration"),
                residual_x: "iteration t",
                residual_y: "‖αₜ − αₜ₋₁‖",
                residual_log: true,
                objective: vec![(method.to_string(), zip(&objective))],
                objective_title: format!("{method}: objective per iteration"),
                objective_x: "iteration t",
                objective_y: "objective h(α) = H(α, F(α)) (maximised)",
            }
        }
    };
    Ok(plots)
}

/// SPG-GMKL: per class pair, the projected-gradient norm and the objective `T(d)` per
/// SPG iteration.
fn spg_plots(trace: &Trace, method: &str) -> Result<TracePlots> {
    let col = |name: &str| {
        trace
            .column(name)
            .ok_or_else(|| Error::data(format!("the trace has no `{name}` column")))
    };
    let (pair, iter) = (col("pair")?, col("iter")?);
    let (pg, objective) = (col("pg_norm")?, col("objective")?);
    let n_pairs = pair.iter().fold(0.0f64, |m, &p| m.max(p)) as usize + 1;
    let mut res: Series = (0..n_pairs)
        .map(|p| (format!("class pair {}", p + 1), vec![]))
        .collect();
    let mut obj = res.clone();
    for i in 0..pair.len() {
        let p = pair[i] as usize;
        // The log-scale plot cannot show an exact zero (a converged L1 problem).
        res[p].1.push((iter[i], pg[i].max(1e-16)));
        obj[p].1.push((iter[i], objective[i]));
    }
    let one = |s: Series| if n_pairs == 1 { rename(s, method) } else { s };
    Ok(TracePlots {
        residual: one(res),
        residual_title: format!("{method}: projected-gradient norm per SPG iteration"),
        residual_x: "SPG iteration (0 = uniform weights)",
        residual_y: "‖P(d − ∇T) − d‖∞",
        residual_log: true,
        objective: one(obj),
        objective_title: format!(
            "{method}: objective T(d) = r(d) + W(d) (non-monotone line search)"
        ),
        objective_x: "SPG iteration (0 = uniform weights)",
        objective_y: "T(d)",
    })
}

fn write_plots(residual_path: &Path, objective_path: &Path, plots: &TracePlots) -> Result<()> {
    write_atomic_with(residual_path, |tmp| {
        line_plot(
            tmp,
            &plots.residual_title,
            plots.residual_x,
            plots.residual_y,
            &plots.residual,
            plots.residual_log,
        )
    })?;
    write_atomic_with(objective_path, |tmp| {
        line_plot(
            tmp,
            &plots.objective_title,
            plots.objective_x,
            plots.objective_y,
            &plots.objective,
            false,
        )
    })
}

fn rename(mut s: Series, name: &str) -> Series {
    if let Some(first) = s.first_mut() {
        first.0 = name.to_string();
    }
    s
}

/// Each input feature's relevance in `pipeline`'s model, named by column
/// ([`Pipeline::feature_relevance`]); an error naming the option for a model that learns
/// none, so a command can check before it writes anything.
pub fn relevance_of(pipeline: &Pipeline) -> Result<Vec<(String, f64)>> {
    pipeline.feature_relevance().ok_or_else(|| {
        Error::param(
            "relevance-plot",
            format!(
                "a {} model learns no feature relevance (ARD-SVM, MKL and CKL models do); \
                 nothing was written",
                pipeline.model.method()
            ),
        )
    })
}

/// Draws the relevance of each input feature of `pipeline`'s model
/// ([`Pipeline::feature_relevance`]) as a bar chart, largest first, to `path` (PNG or
/// SVG); an error for a model that learns no relevance.
pub fn relevance_plot(pipeline: &Pipeline, path: &Path) -> Result<()> {
    let method = pipeline.model.method();
    let relevance = relevance_of(pipeline)?;
    let (names, values): (Vec<String>, Vec<f64>) = relevance.into_iter().unzip();
    let title = format!("{} relevance of each feature", method.to_uppercase());
    bar_chart(
        path,
        &title,
        "share of the kernel's exponent",
        &names,
        &values,
    )
}
