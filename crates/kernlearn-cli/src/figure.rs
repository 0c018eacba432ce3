//! Pictures: the per-iteration trace of a KNPL or DANK fit as PNG (KNPL's Fig. 3, DANK's
//! Fig. 4; whether it converged in the subtitle), `kernlearn figure`, the decision
//! boundaries of SVM-CV, KNPL and DANK on a 2-D synthetic set (the papers' Figs. 1–2)
//! with the range of the learned G / F, and `kernlearn figure --gates`, where a localized
//! method uses each kernel (the thesis's Fig. 4.1). Every figure has titles in words,
//! axis labels and a legend; the gate map a labelled colour bar.

use crate::out::outln;
use crate::progress;
use crate::report;
use clap::Args;
use kernlearn::data::synthetic::generate;
use kernlearn::data::Features;
use kernlearn::estimator::Estimator;
use kernlearn::method::{GridSettings, MethodOptions};
use kernlearn::metrics::accuracy;
use kernlearn::nonparametric::knpl::{alternation, Alternation};
use kernlearn::output::{write_atomic_with, Outputs};
use kernlearn::plot::{
    decision_boundaries_titled, heatmap_with, line_plot, scatter_plot, ColourScale, HeatOptions,
    HeatPanel, LineKind, Panel, PlaneGrid,
};
use kernlearn::trace::Trace;
use kernlearn::AnyModel;
use kernlearn::{Error, Learner, Method, MethodKind, Result};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

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

/// Where `fit --trace FILE` draws a CKL model's spectrum: `FILE` stem + `-spectrum.png`.
pub fn spectrum_plot_path(csv: &Path) -> PathBuf {
    sibling(csv, "-spectrum", "png")
}

/// Histogram of the frequency norms ‖ω_j‖ before and after CKL's training, with the
/// density of the initial distribution (‖ω‖ = σ·χ_d for ω ~ N(0, σ² I_d)).
pub fn write_spectrum_plot(model: &kernlearn::ckl::CklModel, path: &Path) -> Result<()> {
    let (Some(initial), kernlearn::ckl::FeatureMap::Fourier(learned)) =
        (&model.initial, &model.features)
    else {
        return Err(Error::data("the model has no learned Fourier spectrum"));
    };
    let (before, after) = (initial.norms(), learned.norms());
    let top = before
        .iter()
        .chain(&after)
        .cloned()
        .fold(0.0f64, f64::max)
        .max(1e-12);
    let bins = ((before.len() as f64).sqrt().ceil() as usize).clamp(5, 40);
    let width = top / bins as f64;
    let histogram = |v: &[f64]| -> Vec<(f64, f64)> {
        let mut counts = vec![0usize; bins];
        for x in v {
            counts[((x / width) as usize).min(bins - 1)] += 1;
        }
        let scale = 1.0 / (v.len() as f64 * width);
        counts
            .iter()
            .enumerate()
            .flat_map(|(b, &c)| {
                let h = c as f64 * scale;
                [(b as f64 * width, h), ((b + 1) as f64 * width, h)]
            })
            .collect()
    };
    let mut series = vec![
        ("initial draw".to_string(), histogram(&before)),
        ("after training".to_string(), histogram(&after)),
    ];
    if model.params.feature_map == kernlearn::ckl::FeatureMapKind::Gaussian {
        let (s, d) = (model.params.init_variance.sqrt(), model.n_features as f64);
        // log of the χ_d density at r/s, over s.
        let ln_gamma_half_d = ln_gamma(d / 2.0);
        let density = (1..=200)
            .map(|i| {
                let r = top * i as f64 / 200.0;
                let t = r / s;
                let ln = (1.0 - d / 2.0) * 2f64.ln() - ln_gamma_half_d + (d - 1.0) * t.ln()
                    - t * t / 2.0;
                (r, ln.exp() / s)
            })
            .collect();
        series.push(("initial distribution σ·χ_d".to_string(), density));
    }
    write_atomic_with(path, |tmp| {
        line_plot(
            tmp,
            &format!(
                "{}: the learned spectrum\nnorms of the D = {} frequency vectors ω_j (density histogram)",
                model.method().to_uppercase(),
                before.len()
            ),
            "‖ω_j‖",
            "density",
            &series,
            false,
        )
    })
}

/// The fused representation of the rows `x` (already scaled) under a DKMO / M-DKMO model,
/// projected on its first two principal components and coloured by `labels` (one group
/// when there are none), written to `path`; returns the variance share of the two axes.
pub fn write_fused_plot(
    model: &kernlearn::dkmo::DkmoModel,
    x: &Features,
    labels: &[f64],
    path: &Path,
) -> Result<Vec<f64>> {
    let fused = model.fused_representation(x)?;
    let (z, explained) = kernlearn::linalg::principal_components(&fused, 2)?;
    let mut classes: Vec<f64> = labels.to_vec();
    classes.sort_by(f64::total_cmp);
    classes.dedup();
    let groups: Vec<(String, Vec<(f64, f64)>)> = if labels.is_empty() {
        vec![(
            "samples".into(),
            (0..z.nrows()).map(|i| (z[(i, 0)], z[(i, 1)])).collect(),
        )]
    } else {
        classes
            .iter()
            .map(|c| {
                let pts = (0..z.nrows())
                    .filter(|&i| labels[i] == *c)
                    .map(|i| (z[(i, 0)], z[(i, 1)]))
                    .collect();
                (format!("class {c}"), pts)
            })
            .collect()
    };
    let title = format!(
        "{}: fused representation of {} samples ({} dimensions), first two principal components",
        model.method().to_uppercase(),
        fused.n_rows(),
        fused.n_cols()
    );
    write_atomic_with(path, |tmp| {
        scatter_plot(
            tmp,
            &title,
            &format!("PC 1 ({:.1} % of the variance)", 100.0 * explained[0]),
            &format!("PC 2 ({:.1} % of the variance)", 100.0 * explained[1]),
            &groups,
        )
    })?;
    Ok(explained)
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, 9 terms; relative error below 1e-13).
fn ln_gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let t = x + 7.5;
    let sum = C[0] + (1..9).map(|i| C[i] / (x + i as f64)).sum::<f64>();
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

fn rename(mut s: Series, name: &str) -> Series {
    if let Some(first) = s.first_mut() {
        first.0 = name.to_string();
    }
    s
}

/// Default data set of `figure` (decision boundaries) and of `figure --gates`.
const BOUNDARY_SET: &str = "sandwich";
const GATES_SET: &str = "clowns";
/// Default method and base kernels of `figure --gates`.
const GATES_METHOD: &str = "lmkl";
const GATES_KERNELS: &str = "linear@all;rbf(sigma=0.5)@all";
/// A gate map whose every kernel's gate varies by less than this over the plane is
/// reported as uniform.
pub const UNIFORM_GATES: f64 = 1e-3;

/// Options of `kernlearn figure`.
#[derive(Args, Debug, Clone)]
pub struct FigureArgs {
    /// The 2-D synthetic set: sandwich (the KNPL paper's Gaussian mixture) or clowns
    /// (default: sandwich; with --gates, clowns).
    #[arg(long)]
    pub synthetic: Option<String>,
    /// Training points (a test set of the same size is drawn with seed + 1).
    #[arg(long, default_value_t = 200)]
    pub n: usize,
    /// Seed of the training sample and of the CV folds.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Output image (.png or .svg).
    #[arg(long, short = 'o')]
    pub out: PathBuf,
    /// Overwrite an existing image.
    #[arg(long)]
    pub force: bool,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Instead: where a localized method (lmkl, clmkl, ldmkl, swmkl; default lmkl) uses
    /// each base kernel: its gate per kernel over the plane (one panel per kernel, as the
    /// thesis's Fig. 4.1), on a diverging colour scale, white at the equal share 1/m and
    /// spanning the gates' largest departure from it, with the support points and the
    /// classifier's boundary. The defaults (LMKL; a linear and a Gaussian σ = 0.5
    /// kernel; the clowns set) were chosen because their gates really differ over the
    /// plane, for every seed tried: the Gaussian carries the blob of class +1 and the
    /// linear kernel the smile below it (each gate goes from 0 to 1). With Fig. 4.1's
    /// quadratic + Gaussian σ = 1 kernels, or σ = 1 with the linear kernel, LMKL puts
    /// all the weight on the Gaussian everywhere, and LD-MKL's gates stay within 0.04 of
    /// ½. When every gate varies by less than 0.001 over the plane the command prints a
    /// warning and the figure's subtitle says that the gates are uniform.
    #[arg(long, value_name = "METHOD", num_args = 0..=1, default_missing_value = GATES_METHOD)]
    pub gates: Option<String>,
    /// Base kernels of `--gates` (default: linear and Gaussian σ = 0.5; the thesis's
    /// Fig. 4.1 used `poly(degree=2,gamma=1,coef0=1)@all;rbf(sigma=1)@all`).
    #[arg(long, default_value = GATES_KERNELS)]
    pub kernels: String,
}

impl FigureArgs {
    fn synthetic(&self) -> &str {
        self.synthetic
            .as_deref()
            .unwrap_or(if self.gates.is_some() {
                GATES_SET
            } else {
                BOUNDARY_SET
            })
    }
}

/// `v` with at most three decimals, trailing zeros dropped.
fn trimmed(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Smallest "nice" number (1, 2, 2.5 or 5 times a power of ten) at least `x > 0`.
fn nice_ceil(x: f64) -> f64 {
    let p = 10f64.powf(x.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|&v| v >= x * (1.0 - 1e-12))
        .unwrap_or(10.0 * p)
}

/// `kernlearn figure --gates METHOD`: fits the localized method (C = 1, SMO) on the 2-D
/// sample and draws `kernel_gates` of each base kernel on a grid, with the support points
/// and the classifier's boundary, on a colour scale centred at 1/m and spanning the
/// gates' largest departure from it.
fn gates_figure(args: &FigureArgs, method: &str) -> Result<()> {
    let set = args.synthetic();
    let train = generate(set, args.n, args.seed)?;
    let test = generate(set, args.n, args.seed.wrapping_add(1))?;
    let mut options = MethodOptions::default();
    options.set("kernels", &args.kernels)?;
    options.seed = args.seed;
    let kind: MethodKind = method.parse()?;
    let not_localized = || {
        Error::param(
            "gates",
            format!("`{method}` is not a localized method (lmkl, clmkl, ldmkl, swmkl)"),
        )
    };
    if kind.family().name != "localized MKL" {
        return Err(not_localized());
    }
    let chosen = Method::build(kind, &options, &train, None)?;
    let fitted = chosen.fit(&train.x, &train.y, args.seed, &|_| {})?;
    let Some(model) = fitted
        .model
        .downcast_ref::<kernlearn::localized::LocalizedModel>()
    else {
        return Err(not_localized());
    };
    let machine = &model.machines.machines[0];
    let grid = PlaneGrid::around(&train.x, 0.15, 120, 120)?;
    let nodes = grid.points();
    let gates = machine.kernel_gates(&nodes)?;
    let m = gates.len() / grid.len();
    let kernels = model.params.family.expand(2)?;
    let values: Vec<_> = (0..m)
        .map(|i| grid.with_values(gates.iter().skip(i).step_by(m).copied().collect()))
        .collect::<Result<_>>()?;
    let ranges: Vec<(f64, f64)> = values
        .iter()
        .map(|v| v.finite_range().unwrap_or((f64::NAN, f64::NAN)))
        .collect();
    let uniform = ranges.iter().all(|(lo, hi)| hi - lo < UNIFORM_GATES);
    let decision = grid.with_values(first_column(fitted.model.decision_function(&nodes)?))?;
    let test_acc = accuracy(&fitted.model.predict(&test.x)?, &test.y)?;
    let support = machine.support_rows();
    let sv_x = train.x.select_rows(&support);
    let sv_y: Vec<f64> = support.iter().map(|&t| train.y[t]).collect();
    // Diverging scale: white at the equal share 1/m, each side out to the gates' largest
    // departure from it (rounded up; at least 0.01, so that noise is not amplified).
    let centre = 1.0 / m as f64;
    let departure = gates
        .iter()
        .filter(|g| g.is_finite())
        .fold(0.0f64, |d, g| d.max((g - centre).abs()));
    let half = nice_ceil(departure.max(0.01));
    let range = ((centre - half).max(0.0), (centre + half).min(1.0));
    let name = chosen.name();
    let titles: Vec<String> = kernels
        .iter()
        .zip(&ranges)
        .enumerate()
        .map(|(i, (k, (lo, hi)))| {
            format!(
                "gate of kernel {}: {k}\nfrom {lo:.3} to {hi:.3} over the plane",
                i + 1
            )
        })
        .collect();
    let (x_label, y_label) = axis_names(&train.feature_names);
    let panels: Vec<HeatPanel> = values
        .iter()
        .zip(&titles)
        .map(|(v, t)| {
            HeatPanel::new(t.clone(), v)
                .points(&sv_x, &sv_y)
                .contour(format!("{name} decision boundary"), &decision)
                .axes(x_label.clone(), y_label.clone())
        })
        .collect();
    let uniform_note = format!(
        "the gates are uniform over the plane for this data (each varies by less than \
         {UNIFORM_GATES}): every point uses the same kernel combination, so the figure \
         shows no locality"
    );
    let mut title = format!(
        "Where {name} uses each kernel: its gates on the {set} set\n{} training points \
         (seed {}), test accuracy {:.1} %; {} support points drawn; white = equal share 1/{m}",
        train.len(),
        args.seed,
        100.0 * test_acc,
        support.len(),
    );
    if uniform {
        title.push_str(&format!("\n{uniform_note}"));
    }
    let heat = HeatOptions::new(format!(
        "gate: share of the kernel at x (white = 1/{m} = {})",
        trimmed(centre)
    ))
    .range(range.0, range.1)
    .scale(ColourScale::Diverging { centre })
    .title(title)
    .point_names("support point, class +1", "support point, class −1");
    write_atomic_with(&args.out, |tmp| heatmap_with(tmp, &panels, &heat))?;
    if uniform {
        eprintln!("warning: {uniform_note}");
    }
    let percent = 100.0 * support.len() as f64 / train.len() as f64;
    if args.json {
        let gate_ranges: Vec<Value> = kernels
            .iter()
            .zip(&ranges)
            .map(|(k, (lo, hi))| json!({"kernel": k.to_string(), "min": lo, "max": hi}))
            .collect();
        let mut out = json!({"figure": args.out.display().to_string(), "method": name,
               "synthetic": set, "n_support": support.len(), "support_percent": percent,
               "test_accuracy": test_acc, "gates": gate_ranges, "gates_uniform": uniform,
               "colour_range": [range.0, range.1]});
        if uniform {
            out["warnings"] = json!([uniform_note]);
        }
        outln!("{out}");
    } else {
        outln!(
            "wrote {} ({name} on {set}: {} support points, {percent:.1} % of {}; test \
             accuracy {:.1} %)",
            args.out.display(),
            support.len(),
            train.len(),
            100.0 * test_acc
        );
        for (i, (k, (lo, hi))) in kernels.iter().zip(&ranges).enumerate() {
            outln!("gate of kernel {} ({k}): {lo:.4} … {hi:.4}", i + 1);
        }
    }
    Ok(())
}

/// Fewest sample points `figure` accepts.
const MIN_POINTS: usize = 20;

/// Fits SVM-CV, KNPL and DANK (each with its CV protocol) on the unscaled 2-D sample and
/// draws their decision boundaries side by side, SVM-CV's dashed on the learned panels.
pub fn run(args: &FigureArgs, quiet: bool) -> Result<()> {
    // Each method selects its parameters by 5-fold CV: at least two points per fold and
    // class.
    if args.n < MIN_POINTS {
        return Err(Error::param(
            "n",
            format!(
                "the figure's methods choose σ and C by 5-fold cross-validation on the \
                 sample; give --n {MIN_POINTS} or more, got {}",
                args.n
            ),
        ));
    }
    Outputs::new(&[], args.force).plan(&args.out)?;
    if let Some(method) = &args.gates {
        return gates_figure(args, method);
    }
    let set = args.synthetic();
    let train = generate(set, args.n, args.seed)?;
    let test = generate(set, args.n, args.seed.wrapping_add(1))?;
    let grid = PlaneGrid::around(&train.x, 0.15, 160, 160)?;
    let nodes = grid.points();
    let methods = [
        "svm".parse::<MethodKind>().unwrap(),
        "knpl".parse::<MethodKind>().unwrap(),
        "dank".parse::<MethodKind>().unwrap(),
    ];
    let pb = progress::bar(quiet, methods.len() as u64, "fits");
    let mut fits = Vec::new();
    for kind in methods {
        // The papers' protocol, which the figures show: the learned G / F are kept
        // (no fallback to SVM-CV) and KNPL runs Algorithm 2 as published.
        let mut options = MethodOptions::default();
        options.set("seed", &args.seed.to_string())?;
        if kind != "svm".parse::<MethodKind>().unwrap() {
            options.set("no-fallback", "true")?;
        }
        if kind == "knpl".parse::<MethodKind>().unwrap() {
            options.set("knpl-alternate", "true")?;
        }
        let method = Method::build(kind, &options, &train, Some(GridSettings::default()))?;
        pb.set_message(method.name());
        let fitted = method.fit(&train.x, &train.y, args.seed, &|_| {})?;
        let decision = first_column(fitted.model.decision_function(&nodes)?);
        let values = grid.with_values(decision)?;
        let test_acc = accuracy(&fitted.model.predict(&test.x)?, &test.y)?;
        fits.push((method.name(), fitted, values, test_acc));
        pb.inc(1);
    }
    pb.finish_and_clear();
    let titles: Vec<String> = fits
        .iter()
        .map(|(name, fitted, _, acc)| {
            let what = match name.as_str() {
                "KNPL" => "KNPL (learned G ⊙ K)".to_string(),
                "DANK" => "DANK (learned F ⊙ K)".to_string(),
                "SVM-CV" => "SVM-CV (Gaussian K; σ, C by 5-fold CV)".to_string(),
                other => other.to_string(),
            };
            let range = learned_range(&fitted.model).map_or(String::new(), |(lo, hi)| {
                format!(
                    ", {} ∈ [{}, {}]",
                    if name == "KNPL" { "G" } else { "F" },
                    report::format_num(lo),
                    report::format_num(hi)
                )
            });
            format!("{what}\ntest accuracy {:.1} %{range}", 100.0 * acc)
        })
        .collect();
    let svm_values = &fits[0].2;
    let (x_label, y_label) = axis_names(&train.feature_names);
    let panels: Vec<Panel> = fits
        .iter()
        .zip(&titles)
        .enumerate()
        .map(|(i, ((_, _, values, _), title))| {
            let p = Panel::new(title.clone(), &train.x, &train.y, values)
                .boundary_name("decision boundary of the panel's method")
                .axes(x_label.clone(), y_label.clone());
            if i == 0 {
                p
            } else {
                p.overlay(
                    "SVM-CV boundary (for comparison)",
                    svm_values,
                    LineKind::Dashed,
                )
            }
        })
        .collect();
    let title = format!(
        "Decision boundaries on the {} set\n{} training points drawn (seed {}); test accuracy \
         on {} fresh points (seed {})",
        set.to_ascii_lowercase(),
        train.len(),
        args.seed,
        test.len(),
        args.seed.wrapping_add(1)
    );
    write_atomic_with(&args.out, |tmp| {
        decision_boundaries_titled(tmp, &title, &panels)
    })?;
    let mut out = Map::new();
    out.insert("figure".into(), json!(args.out.display().to_string()));
    out.insert("synthetic".into(), json!(set));
    for (name, fitted, _, acc) in &fits {
        let mut r = Map::new();
        r.insert("test_accuracy".into(), json!(acc));
        r.insert("chosen".into(), json!(fitted.chosen));
        if let Some((lo, hi)) = learned_range(&fitted.model) {
            r.insert("learned_min".into(), json!(lo));
            r.insert("learned_max".into(), json!(hi));
        }
        out.insert(name.clone(), Value::Object(r));
    }
    if args.json {
        outln!("{}", Value::Object(out));
    } else {
        outln!("wrote {}", args.out.display());
        for (name, fitted, _, acc) in &fits {
            let range = learned_range(&fitted.model).map_or(String::new(), |(lo, hi)| {
                format!(
                    ", learned {} ∈ [{}, {}]",
                    if name == "KNPL" { "G" } else { "F" },
                    report::format_num(lo),
                    report::format_num(hi)
                )
            });
            outln!("{name:<7} test accuracy {:.1} %{range}", 100.0 * acc);
        }
    }
    Ok(())
}

/// Axis labels from the first two feature names, `x1` written `x₁`.
fn axis_names(names: &[String]) -> (String, String) {
    let pretty = |j: usize| {
        let name = names
            .get(j)
            .cloned()
            .unwrap_or_else(|| format!("x{}", j + 1));
        match name.strip_prefix('x') {
            Some(digits) if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) => {
                let sub: String = digits
                    .chars()
                    .map(|c| char::from_u32(0x2080 + c.to_digit(10).unwrap_or(0)).unwrap_or(c))
                    .collect();
                format!("x{sub}")
            }
            _ => name,
        }
    };
    (pretty(0), pretty(1))
}

/// The binary decision values (the first class pair's column).
fn first_column(rows: Vec<Vec<f64>>) -> Vec<f64> {
    rows.into_iter()
        .map(|r| r.first().copied().unwrap_or(f64::NAN))
        .collect()
}

/// Smallest and largest entry of the learned G (KNPL) or F (DANK), over all class
/// pairs; `None` for a fixed kernel.
pub fn learned_range(model: &AnyModel) -> Option<(f64, f64)> {
    if let Some(m) = model.downcast_ref::<kernlearn::nonparametric::KnplModel>() {
        return Some(m.g_range());
    }
    model
        .downcast_ref::<kernlearn::nonparametric::DankModel>()
        .map(|m| m.f_range())
}
