//! DANK measurements (not part of the test run).
//!
//! ```text
//! cargo run --release -p kernlearn --example dank_bench -- speed DATA.csv [ROWS] [OUT_DIR]
//! cargo run --release -p kernlearn --example dank_bench -- accuracy REPEATS DATA.csv...
//! ```
//!
//! `speed`: a stratified sample of ROWS (default 1000) rows scaled to [0, 1]; SVM-CV picks
//! σ and C; then the time of one DANK fit (defaults) and of one from α = 0, of short fits
//! from α = 0 with the reduced and the full eigendecomposition of `11ᵀ + Γ(α)` (and the
//! largest difference of their learned `F`), and the Fig. 4 comparison (plain projected
//! gradient vs Nesterov, backtracking vs the paper's L) from α = 0, with traces written
//! to OUT_DIR as CSV. Everything goes through the public `DankModel` API (the times
//! include the SVM solve that sets η).
//!
//! `accuracy`: the papers' protocol (half/half splits, scaling to [0, 1] on the training
//! half, σ, C [, ε] by 5-fold SVM-CV / SVR-CV, τ = 0.01, η = ‖α_SVM‖²), REPEATS splits;
//! SVM-CV and DANK test accuracy (classification, last column `label`) or relative
//! squared error (regression, last column `target`), mean ± std.

use kernlearn::data::{
    read_dataset, stratified_split, train_test_split, Dataset, Features, ScaleMode, Scaler,
};
use kernlearn::learner::GridSettings;
use kernlearn::metrics::{accuracy, relative_squared_error};
use kernlearn::nonparametric::{DankMachines, DankModel, DankParams, EigenRoute, Scheme, StepRule};
use kernlearn::select::GridSearch;
use kernlearn::svm::{SvmModel, SvmParams};
use kernlearn::Method;
use kernlearn::MethodKind;
use kernlearn::{Predictor, Task};
use std::path::Path;
use std::time::Instant;

/// Iteration cap of the runs from α = 0 (each iteration then decomposes an `n`-square
/// matrix, the support being every point).
const COLD_ITERATIONS: usize = 40;

/// Iterations of the fits that compare the two eigendecomposition routes.
const ROUTE_ITERATIONS: usize = 3;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("speed") => speed(
            &args[1],
            args.get(2).map_or(Ok(1000), |s| s.parse())?,
            args.get(3).map(String::as_str),
        ),
        Some("accuracy") => accuracy_table(args[1].parse()?, &args[2..]),
        _ => Err(
            "usage: dank_bench speed DATA.csv [ROWS] [OUT_DIR] | accuracy REPEATS DATA.csv..."
                .into(),
        ),
    }
}

fn scaled(train: &Dataset, test: &Dataset) -> Res<(Dataset, Dataset)> {
    let scaler = Scaler::fit(ScaleMode::ZeroOne, &train.x);
    let mut a = train.clone();
    let mut b = test.clone();
    a.x = scaler.transform(&train.x)?;
    b.x = scaler.transform(&test.x)?;
    Ok((a, b))
}

fn speed(path: &str, rows: usize, out: Option<&str>) -> Res<()> {
    let data = read_dataset(Path::new(path), None, None)?;
    let frac = 1.0 - rows as f64 / data.len() as f64;
    let (keep, _) = stratified_split(&data.y, frac.max(1e-9), 0)?;
    let sample = data.subset(&keep);
    let (d, _) = scaled(&sample, &sample)?;
    let y: Vec<f64> =
        d.y.iter()
            .map(|&v| if v == d.y[0] { 1.0 } else { -1.0 })
            .collect();
    println!(
        "{path}: {} rows, {} features, threads {}",
        d.len(),
        d.x.n_cols(),
        rayon::current_num_threads()
    );
    let t = Instant::now();
    let sel = GridSearch::new(SvmParams::default()).run(&d.x, &y, &|| {})?;
    println!(
        "SVM-CV: sigma {} C {} cv acc {:.4} ({:.1} s)",
        sel.best.sigma,
        sel.best.c,
        sel.best.score,
        t.elapsed().as_secs_f64()
    );
    let mut params = DankParams::new(
        Task::Classification,
        sel.params.kernel.clone(),
        sel.params.c,
    );
    params.epsilon = 0.0;
    let t = Instant::now();
    let model = DankModel::fit(&params, &d.x, &y)?;
    let info = &model.info[0];
    println!(
        "DANK fit (defaults): {:.2} s, {} iterations, converged {}, h {:.6}, F in [{:.4}, {:.4}], rank {}, L {:.3}",
        t.elapsed().as_secs_f64(), info.iterations, info.converged, info.objective, info.f_min, info.f_max, info.rank, info.lipschitz
    );
    // The same fit from α = 0 (every iteration pays for F(α)).
    let mut cold = params.clone();
    cold.settings.init_from_svm = false;
    cold.settings.max_iter = COLD_ITERATIONS;
    let t = Instant::now();
    let model = DankModel::fit(&cold, &d.x, &y)?;
    let info = &model.info[0];
    println!(
        "DANK fit from alpha = 0: {:.2} s, {} iterations, converged {}, h {:.6}, F in [{:.4}, {:.4}], rank {}",
        t.elapsed().as_secs_f64(), info.iterations, info.converged, info.objective, info.f_min, info.f_max, info.rank
    );
    compare_eigen_routes(&cold, &d.x, &y)?;
    compare_schemes(&cold, &d.x, &y, out)
}

/// F(α) by both eigendecomposition routes: the same short fits from α = 0 (each
/// iteration decomposes 11ᵀ + Γ(α)), compared by time and by the learned F.
fn compare_eigen_routes(cold: &DankParams, x: &Features, y: &[f64]) -> Res<()> {
    let mut times = [0.0; 2];
    let mut f = Vec::new();
    for (r, route) in [EigenRoute::Reduced, EigenRoute::Full]
        .into_iter()
        .enumerate()
    {
        let mut p = cold.clone();
        p.settings.eigen = route;
        p.settings.max_iter = ROUTE_ITERATIONS;
        let t = Instant::now();
        let model = DankModel::fit(&p, x, y)?;
        times[r] = t.elapsed().as_secs_f64();
        let DankMachines::Classifier(ovo) = &model.machines else {
            return Err("DANK: a classifier was expected".into());
        };
        f.push(ovo.machines[0].weights.clone());
    }
    let diff = f[0]
        .iter()
        .zip(&f[1])
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    println!(
        "{ROUTE_ITERATIONS} iterations from alpha = 0: reduced eig {:.2} s, full eig {:.2} s, speed-up {:.1}x, max |F_red - F_full| = {diff:.2e}",
        times[0],
        times[1],
        times[1] / times[0],
    );
    Ok(())
}

/// Fig. 4: the first-order schemes and step rules from α = 0, each fit's trace written
/// to `out` as CSV.
fn compare_schemes(cold: &DankParams, x: &Features, y: &[f64], out: Option<&str>) -> Res<()> {
    for (name, scheme, step) in [
        (
            "pg_backtracking",
            Scheme::ProjectedGradient,
            StepRule::Backtracking,
        ),
        (
            "nesterov_backtracking",
            Scheme::Nesterov,
            StepRule::Backtracking,
        ),
        (
            "monotone_backtracking",
            Scheme::NesterovMonotone,
            StepRule::Backtracking,
        ),
        (
            "pg_paper_l",
            Scheme::ProjectedGradient,
            StepRule::PaperLipschitz,
        ),
        (
            "nesterov_paper_l",
            Scheme::Nesterov,
            StepRule::PaperLipschitz,
        ),
    ] {
        let mut p = cold.clone();
        p.settings.scheme = scheme;
        p.settings.step = step;
        let t = Instant::now();
        let (model, traces) = DankModel::fit_traced(&p, x, y)?;
        let info = &model.info[0];
        println!(
            "{name:24} {:5} iterations, converged {}, h {:.6}, L {:.3e}, {:.2} s",
            info.iterations,
            info.converged,
            info.objective,
            info.lipschitz,
            t.elapsed().as_secs_f64()
        );
        if let Some(dir) = out {
            std::fs::create_dir_all(dir)?;
            std::fs::write(
                Path::new(dir).join(format!("{name}.csv")),
                traces[0].to_csv(),
            )?;
        }
    }
    Ok(())
}

struct Stats(Vec<f64>);
impl std::fmt::Display for Stats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.0.len() as f64;
        let m = self.0.iter().sum::<f64>() / n;
        let s = if self.0.len() > 1 {
            (self.0.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
        } else {
            0.0
        };
        write!(f, "{m:.4} ± {s:.4}")
    }
}

fn accuracy_table(repeats: usize, paths: &[String]) -> Res<()> {
    println!("| dataset | n | metric | SVM-CV test | DANK test | DANK F range | DANK s/fit |");
    println!("|---|---|---|---|---|---|---|");
    for path in paths {
        let data = read_dataset(Path::new(path), None, None)?;
        let task = if data.target_name == "target" {
            Task::Regression
        } else {
            Task::Classification
        };
        let (mut svm_scores, mut dank_scores, mut secs) = (Vec::new(), Vec::new(), Vec::new());
        let (mut f_lo, mut f_hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for r in 0..repeats as u64 {
            let (tr, te) = match task {
                Task::Regression => train_test_split(data.len(), 0.5, r)?,
                _ => stratified_split(&data.y, 0.5, r)?,
            };
            let (train, test) = scaled(&data.subset(&tr), &data.subset(&te))?;
            // SVM-CV / SVR-CV (default grid, 5 folds, fold seed r) picks σ, C (and ε); τ and
            // η are the paper's defaults.
            let kind = match task {
                Task::Regression => "dank-svr".parse::<MethodKind>().unwrap(),
                _ => "dank".parse::<MethodKind>().unwrap(),
            };
            let method = Method::defaults(kind, &train, Some(GridSettings::default()), r)?;
            let t = Instant::now();
            let fitted = method.fit(&train.x, &train.y, r, &|_| {})?;
            secs.push(t.elapsed().as_secs_f64());
            let sel = fitted
                .selection
                .ok_or("DANK: the grid search did not run")?;
            let Some(dank) = fitted
                .model
                .downcast_ref::<kernlearn::nonparametric::DankModel>()
            else {
                return Err("DANK: the dank method returned another model".into());
            };
            let svm = SvmModel::fit(&sel.params, &train.x, &train.y)?;
            let (sp, dp) = (svm.predict(&test.x)?, dank.predict(&test.x)?);
            let score = |p: &[f64]| match task {
                Task::Regression => relative_squared_error(p, &test.y),
                _ => accuracy(p, &test.y),
            };
            svm_scores.push(score(&sp)?);
            dank_scores.push(score(&dp)?);
            let (lo, hi) = dank.f_range();
            f_lo = f_lo.min(lo);
            f_hi = f_hi.max(hi);
        }
        let name = Path::new(path).file_stem().unwrap().to_string_lossy();
        let metric = if task == Task::Regression {
            "RSE"
        } else {
            "accuracy"
        };
        println!(
            "| {name} | {} | {metric} | {} | {} | [{f_lo:.3}, {f_hi:.3}] | {:.1} |",
            data.len(),
            Stats(svm_scores),
            Stats(dank_scores),
            secs.iter().sum::<f64>() / secs.len() as f64
        );
    }
    Ok(())
}
