//! Pictures of the nonparametric methods: the per-iteration trace of a fit as PNG/SVG
//! (KNPL's Fig. 3, DANK's Fig. 4) and `kernlearn figure`, the decision boundaries of
//! SVM-CV, KNPL and DANK on a 2-D synthetic set (the papers' Figs. 1–2) with the range of
//! the learned G / F.

use crate::out::outln;
use crate::progress;
use crate::report;
use clap::Args;
use kernlearn::data::synthetic::generate;
use kernlearn::estimator::{AnyModel, Estimator};
use kernlearn::method::{Family, GridSettings, MethodOptions};
use kernlearn::metrics::accuracy;
use kernlearn::nonparametric::Trace;
use kernlearn::output::{write_atomic_with, Outputs};
use kernlearn::plot::{
    decision_boundaries, heatmap, line_plot, HeatPanel, LineKind, Panel, PlaneGrid,
};
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
/// residual: KNPL's ADMM `Diff`, DANK's `‖α_t − α_{t−1}‖`, log scale) and stem +
/// `-objective.png` (KNPL's `H(α, G)` per outer round, DANK's `H(α, F)` per iteration).
pub fn trace_plot_paths(csv: &Path) -> [PathBuf; 2] {
    [sibling(csv, "", "png"), sibling(csv, "-objective", "png")]
}

/// Writes the two plots of [`trace_plot_paths`] for a KNPL or DANK trace.
pub fn write_trace_plots(trace: &Trace, csv: &Path, method: &str) -> Result<()> {
    let col = |name: &str| {
        trace
            .column(name)
            .ok_or_else(|| Error::data(format!("the trace has no `{name}` column")))
    };
    let [residual_path, objective_path] = trace_plot_paths(csv);
    let diff = col("diff")?;
    let objective = col("objective")?;
    type Series = Vec<(String, Vec<(f64, f64)>)>;
    let (residual, objective, x_res, x_obj, what): (Series, Series, &str, &str, &str) =
        match trace.column("admm_iter") {
            // KNPL: ADMM rows (admm_iter > 0) carry Diff; outer rows carry the objective.
            Some(admm) => {
                let pair = col("pair")?;
                let outer = col("outer")?;
                let n_pairs = pair.iter().fold(0.0f64, |m, &p| m.max(p)) as usize + 1;
                let mut res: Series = (0..n_pairs)
                    .map(|p| (format!("pair {p}"), vec![]))
                    .collect();
                let mut obj = res.clone();
                for i in 0..admm.len() {
                    let p = pair[i] as usize;
                    if admm[i] > 0.0 {
                        let step = res[p].1.len() as f64 + 1.0;
                        res[p].1.push((step, diff[i]));
                    } else {
                        obj[p].1.push((outer[i], objective[i]));
                    }
                }
                let one = |s: Series| if n_pairs == 1 { rename(s, method) } else { s };
                (
                    one(res),
                    one(obj),
                    "ADMM iteration (all outer rounds)",
                    "outer iteration",
                    "ADMM residual Diff",
                )
            }
            // DANK: one row per iteration.
            None => {
                let iter = col("iter")?;
                let zip = |v: &[f64]| iter.iter().copied().zip(v.iter().copied()).collect();
                (
                    vec![(method.to_string(), zip(&diff))],
                    vec![(method.to_string(), zip(&objective))],
                    "iteration",
                    "iteration",
                    "‖α_t − α_{t−1}‖",
                )
            }
        };
    write_atomic_with(&residual_path, |tmp| {
        line_plot(
            tmp,
            &format!("{method}: {what}"),
            x_res,
            what,
            &residual,
            true,
        )
    })?;
    write_atomic_with(&objective_path, |tmp| {
        let title = format!("{method}: objective");
        line_plot(tmp, &title, x_obj, "objective", &objective, false)
    })
}

fn rename(mut s: Vec<(String, Vec<(f64, f64)>)>, name: &str) -> Vec<(String, Vec<(f64, f64)>)> {
    if let Some(first) = s.first_mut() {
        first.0 = name.to_string();
    }
    s
}

/// Options of `kernlearn figure`.
#[derive(Args, Debug, Clone)]
pub struct FigureArgs {
    /// The 2-D synthetic set: sandwich (the KNPL paper's Gaussian mixture) or clowns.
    #[arg(long, default_value = "sandwich")]
    pub synthetic: String,
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
    /// Instead: the per-kernel gate of a localized method (ldmkl, swmkl, lmkl, clmkl) over
    /// the plane, one panel per base kernel, support points drawn (thesis Fig. 4.1).
    #[arg(long)]
    pub gates: Option<String>,
    /// Base kernels of `--gates` (default: Fig. 4.1's quadratic and Gaussian).
    #[arg(
        long,
        default_value = "poly(degree=2,gamma=1,coef0=1)@all;rbf(sigma=1)@all"
    )]
    pub kernels: String,
}

/// `kernlearn figure --gates METHOD`: fits the localized method (C = 1, SMO) on the 2-D
/// sample and draws `kernel_gates` of each base kernel on a grid, with the support points.
fn gates_figure(args: &FigureArgs, method: &str) -> Result<()> {
    let train = generate(&args.synthetic, args.n, args.seed)?;
    let mut options = MethodOptions::default();
    options.kernels = Some(args.kernels.clone());
    options.seed = args.seed;
    let kind: MethodKind = method.parse()?;
    if kind.info().family != Family::Localized {
        return Err(Error::param(
            "gates",
            format!("`{method}` is not a localized method (ldmkl, swmkl, lmkl, clmkl)"),
        ));
    }
    let chosen = Method::build(kind, &options, &train, None)?;
    let fitted = chosen.fit(&train.x, &train.y, args.seed, &|_| {})?;
    let AnyModel::Localized(model) = &fitted.model else {
        return Err(Error::param(
            "gates",
            format!("`{method}` is not a localized method (ldmkl, swmkl, lmkl, clmkl)"),
        ));
    };
    let machine = &model.machines.machines[0];
    let grid = PlaneGrid::around(&train.x, 0.15, 120, 120)?;
    let gates = machine.kernel_gates(&grid.points())?;
    let m = gates.len() / grid.len();
    let kernels = model.params.family.expand(2)?;
    let values: Vec<_> = (0..m)
        .map(|i| grid.with_values(gates.iter().skip(i).step_by(m).copied().collect()))
        .collect::<Result<_>>()?;
    let support = machine.support_rows();
    let sv_x = train.x.select_rows(&support);
    let sv_y: Vec<f64> = support.iter().map(|&t| train.y[t]).collect();
    let titles: Vec<String> = kernels
        .iter()
        .map(|k| format!("{} gate of {k}", chosen.name()))
        .collect();
    let panels: Vec<HeatPanel> = values
        .iter()
        .zip(&titles)
        .map(|(v, t)| HeatPanel::new(t.clone(), v).points(&sv_x, &sv_y))
        .collect();
    write_atomic_with(&args.out, |tmp| {
        heatmap(tmp, &panels, "gate", Some((0.0, 1.0)))
    })?;
    let percent = 100.0 * support.len() as f64 / train.len() as f64;
    if args.json {
        outln!(
            "{}",
            json!({"figure": args.out.display().to_string(), "method": chosen.name(),
                   "n_support": support.len(), "support_percent": percent})
        );
    } else {
        outln!(
            "wrote {} ({}: {} support points, {percent:.1} % of {})",
            args.out.display(),
            chosen.name(),
            support.len(),
            train.len()
        );
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
    let train = generate(&args.synthetic, args.n, args.seed)?;
    let test = generate(&args.synthetic, args.n, args.seed.wrapping_add(1))?;
    let grid = PlaneGrid::around(&train.x, 0.15, 160, 160)?;
    let nodes = grid.points();
    let methods = [MethodKind::Svm, MethodKind::Knpl, MethodKind::Dank];
    let pb = progress::bar(quiet, methods.len() as u64, "fits");
    let mut fits = Vec::new();
    for kind in methods {
        let method = Method::defaults(kind, &train, Some(GridSettings::default()), args.seed)?;
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
        .map(|(name, _, _, acc)| format!("{name} (test {:.1} %)", 100.0 * acc))
        .collect();
    let svm_values = &fits[0].2;
    let panels: Vec<Panel> = fits
        .iter()
        .zip(&titles)
        .enumerate()
        .map(|(i, ((name, _, values, _), title))| {
            let p =
                Panel::new(title.clone(), &train.x, &train.y, values).boundary_name(name.clone());
            if i == 0 {
                p
            } else {
                p.overlay("SVM-CV", svm_values, LineKind::Dashed)
            }
        })
        .collect();
    write_atomic_with(&args.out, |tmp| decision_boundaries(tmp, &panels))?;
    let mut out = Map::new();
    out.insert("figure".into(), json!(args.out.display().to_string()));
    out.insert("synthetic".into(), json!(args.synthetic));
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

/// The binary decision values (the first class pair's column).
fn first_column(rows: Vec<Vec<f64>>) -> Vec<f64> {
    rows.into_iter()
        .map(|r| r.first().copied().unwrap_or(f64::NAN))
        .collect()
}

/// Smallest and largest entry of the learned G (KNPL) or F (DANK), over all class
/// pairs; `None` for a fixed kernel.
pub fn learned_range(model: &AnyModel) -> Option<(f64, f64)> {
    match model {
        AnyModel::Knpl(m) => Some(m.g_range()),
        AnyModel::Dank(m) => Some(m.f_range()),
        _ => None,
    }
}
