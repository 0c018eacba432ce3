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
use kernlearn::figure::{BOUNDARY_METHODS, GATES_METHOD};
use kernlearn::learner::{FittedMethod, GridSettings};
use kernlearn::metrics::accuracy;
use kernlearn::output::{write_atomic_with, Outputs};
use kernlearn::plot::{
    decision_boundaries_titled, heatmap_with, scatter_plot, ColourScale, GridValues, HeatOptions,
    HeatPanel, LineKind, Panel, PlaneGrid,
};
use kernlearn::AnyModel;
use kernlearn::MethodOptions;
use kernlearn::{Error, Method, MethodKind, Result};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

/// The fused representation of the rows `x` (already scaled) under a DKMO / M-DKMO model,
/// projected on its first two principal components and coloured by `labels` (one group
/// when there are none), written to `path`; returns the variance share of the two axes.
pub fn write_fused_plot(
    model: &AnyModel,
    x: &Features,
    labels: &[f64],
    path: &Path,
) -> Result<Vec<f64>> {
    let fused = model.representation("fused", x, 0)?.values;
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

/// Default data set of `figure` (decision boundaries) and of `figure --gates`.
const BOUNDARY_SET: &str = "sandwich";
const GATES_SET: &str = "clowns";
/// Default base kernels of `figure --gates`.
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
    if !kind.info().representations.contains(&"gates") {
        return Err(Error::param(
            "gates",
            format!(
                "`{method}` is not a localized method: its models have no gates (the \
                 methods whose models do: {})",
                MethodKind::offering("gates")
            ),
        ));
    }
    let chosen = Method::build(kind, &options, &train, None)?;
    let fitted = chosen.fit(&train.x, &train.y, args.seed, &|_| {})?;
    let grid = PlaneGrid::around(&train.x, 0.15, 120, 120)?;
    let nodes = grid.points();
    let gates = fitted.model.representation("gates", &nodes, 0)?;
    let kernels = gates.columns;
    let gates = gates.values.as_slice().to_vec();
    let m = kernels.len();
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
    let support = fitted.model.support_rows(0).unwrap_or_default();
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
    let report = GateReport {
        name,
        set,
        n_train: train.len(),
        n_support: support.len(),
        test_acc,
        kernels: &kernels,
        ranges: &ranges,
        uniform,
        colour_range: range,
        uniform_note: &uniform_note,
    };
    report_gates(args, &report);
    Ok(())
}

/// What `figure --gates` reports of its fit.
struct GateReport<'a> {
    name: String,
    set: &'a str,
    n_train: usize,
    n_support: usize,
    test_acc: f64,
    kernels: &'a [String],
    ranges: &'a [(f64, f64)],
    uniform: bool,
    colour_range: (f64, f64),
    uniform_note: &'a str,
}

/// What `figure --gates` prints after drawing: JSON, or the gates' ranges.
fn report_gates(args: &FigureArgs, r: &GateReport<'_>) {
    let percent = 100.0 * r.n_support as f64 / r.n_train as f64;
    if args.json {
        let gate_ranges: Vec<Value> = r
            .kernels
            .iter()
            .zip(r.ranges)
            .map(|(k, (lo, hi))| json!({"kernel": k.to_string(), "min": lo, "max": hi}))
            .collect();
        let mut out = json!({"figure": args.out.display().to_string(), "method": r.name,
               "synthetic": r.set, "n_support": r.n_support, "support_percent": percent,
               "test_accuracy": r.test_acc, "gates": gate_ranges, "gates_uniform": r.uniform,
               "colour_range": [r.colour_range.0, r.colour_range.1]});
        if r.uniform {
            out["warnings"] = json!([r.uniform_note]);
        }
        outln!("{out}");
    } else {
        outln!(
            "wrote {} ({} on {}: {} support points, {percent:.1} % of {}; test \
             accuracy {:.1} %)",
            args.out.display(),
            r.name,
            r.set,
            r.n_support,
            r.n_train,
            100.0 * r.test_acc
        );
        for (i, (k, (lo, hi))) in r.kernels.iter().zip(r.ranges).enumerate() {
            outln!("gate of kernel {} ({k}): {lo:.4} … {hi:.4}", i + 1);
        }
    }
}

/// Fewest sample points `figure` accepts.
const MIN_POINTS: usize = 20;
/// Most sample points `figure` accepts.
const MAX_POINTS: usize = 20_000;

/// Fits SVM-CV, KNPL and DANK (each with its CV protocol) on the unscaled 2-D sample and
/// draws their decision boundaries side by side, SVM-CV's dashed on the learned panels.
pub fn run(args: &FigureArgs, quiet: bool) -> Result<()> {
    check_args(args)?;
    Outputs::new(&[], args.force).plan_figure(&args.out)?;
    match &args.gates {
        Some(method) => gates_figure(args, method),
        None => boundary_figure(args, quiet),
    }
}

/// The sample size and the options `figure` accepts, checked before any fit.
fn check_args(args: &FigureArgs) -> Result<()> {
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
    // The figures' fits (cross-validated SVMs, localized MKL) hold n × n kernel
    // matrices: a sample larger than MAX_POINTS would run for hours or exhaust memory.
    if args.n > MAX_POINTS {
        return Err(Error::param(
            "n",
            format!(
                "the figure's methods fit n × n kernel matrices; give --n {MAX_POINTS} or \
                 fewer, got {}",
                args.n
            ),
        ));
    }
    if args.gates.is_none() && args.kernels != GATES_KERNELS {
        return Err(Error::param(
            "kernels",
            "only applies with --gates (the boundary figure's methods use their own \
             kernels)",
        ));
    }
    Ok(())
}

/// A method of the boundary figure fitted: its name, fit, decision values on the grid
/// and test accuracy.
type BoundaryFit = (String, FittedMethod, GridValues, f64);

/// Fits SVM-CV, KNPL and DANK on the sample and draws their boundaries side by side.
fn boundary_figure(args: &FigureArgs, quiet: bool) -> Result<()> {
    let set = args.synthetic();
    let train = generate(set, args.n, args.seed)?;
    let test = generate(set, args.n, args.seed.wrapping_add(1))?;
    let grid = PlaneGrid::around(&train.x, 0.15, 160, 160)?;
    let nodes = grid.points();
    let pb = progress::bar(quiet, BOUNDARY_METHODS.len() as u64, "fits");
    let mut fits: Vec<BoundaryFit> = Vec::new();
    for (method, settings) in BOUNDARY_METHODS {
        // The papers' protocol, which the figures show (`kernlearn::figure`).
        let kind: MethodKind = method.parse()?;
        let mut options = MethodOptions::default();
        options.set("seed", &args.seed.to_string())?;
        for (name, value) in *settings {
            options.set(name, value)?;
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
            let learned = learned_range(&fitted.model);
            let what = match &learned {
                Some((symbol, _, _)) => format!("{name} (learned {symbol} ⊙ K)"),
                None => format!("{name} (Gaussian K; σ, C by 5-fold CV)"),
            };
            let range = learned.map_or(String::new(), |(symbol, lo, hi)| {
                format!(
                    ", {symbol} ∈ [{}, {}]",
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
    report_boundaries(args, set, &fits);
    Ok(())
}

/// What `figure` prints after drawing the boundaries: JSON, or a line per method.
fn report_boundaries(args: &FigureArgs, set: &str, fits: &[BoundaryFit]) {
    let mut out = Map::new();
    out.insert("figure".into(), json!(args.out.display().to_string()));
    out.insert("synthetic".into(), json!(set));
    for (name, fitted, _, acc) in fits {
        let mut r = Map::new();
        r.insert("test_accuracy".into(), json!(acc));
        r.insert("chosen".into(), json!(fitted.chosen));
        if let Some((_, lo, hi)) = learned_range(&fitted.model) {
            r.insert("learned_min".into(), json!(lo));
            r.insert("learned_max".into(), json!(hi));
        }
        out.insert(name.clone(), Value::Object(r));
    }
    if args.json {
        outln!("{}", Value::Object(out));
    } else {
        outln!("wrote {}", args.out.display());
        for (name, fitted, _, acc) in fits {
            let range = learned_range(&fitted.model).map_or(String::new(), |(symbol, lo, hi)| {
                format!(
                    ", learned {symbol} ∈ [{}, {}]",
                    report::format_num(lo),
                    report::format_num(hi)
                )
            });
            outln!("{name:<7} test accuracy {:.1} %{range}", 100.0 * acc);
        }
    }
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

/// The symbol, smallest and largest entry of a learned kernel matrix (KNPL's G, DANK's
/// F, over all class pairs: the fit summary's `learned_matrix`); `None` for a fixed kernel.
pub fn learned_range(model: &AnyModel) -> Option<(String, f64, f64)> {
    let m = model.summary().extra.get("learned_matrix")?.clone();
    Some((
        m.get("symbol")?.as_str()?.to_string(),
        m.get("min")?.as_f64()?,
        m.get("max")?.as_f64()?,
    ))
}
