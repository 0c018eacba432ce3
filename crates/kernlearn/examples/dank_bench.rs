//! DANK measurements (not part of the test run).
//!
//! ```text
//! cargo run --release -p kernlearn --example dank_bench -- speed DATA.csv [ROWS] [OUT_DIR]
//! cargo run --release -p kernlearn --example dank_bench -- accuracy REPEATS DATA.csv...
//! ```
//!
//! `speed`: a stratified sample of ROWS (default 1000) rows scaled to [0, 1]; SVM-CV picks
//! σ and C; then the time of one DANK fit (defaults), of one `F(α)` by the reduced and the
//! full eigendecomposition (and their difference), and the Fig. 4 comparison (plain
//! projected gradient vs Nesterov, backtracking vs the paper's L) from α = 0, with traces
//! written to OUT_DIR as CSV.
//!
//! `accuracy`: the papers' protocol (half/half splits, scaling to [0, 1] on the training
//! half, σ, C [, ε] by 5-fold SVM-CV / SVR-CV, τ = 0.01, η = ‖α_SVM‖²), REPEATS splits;
//! SVM-CV and DANK test accuracy (classification, last column `label`) or relative
//! squared error (regression, last column `target`), mean ± std.

use faer::Mat;
use kernlearn::data::{
    read_dataset, stratified_split, train_test_split, Dataset, ScaleMode, Scaler,
};
use kernlearn::estimator::{AnyModel, Estimator, Task};
use kernlearn::kernel::PrecomputedKernel;
use kernlearn::method::{GridSettings, Learner, Method, MethodKind};
use kernlearn::metrics::{accuracy, relative_squared_error};
use kernlearn::nonparametric::dank::{
    adaptive_matrix, DankModel, DankParams, DankProblem, DankSettings, Dual, EigenRoute, Scheme,
    StepRule,
};
use kernlearn::select::GridSearch;
use kernlearn::svm::{solve_c_svc, SolverSettings, SvmModel, SvmParams};
use std::path::Path;
use std::time::Instant;

/// Iteration cap of the runs from α = 0 (each iteration then decomposes an `n`-square
/// matrix, the support being every point).
const COLD_ITERATIONS: usize = 40;

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
    let params = DankParams {
        task: Task::Classification,
        kernel: sel.params.kernel.clone(),
        c: sel.params.c,
        epsilon: 0.0,
        settings: DankSettings::default(),
    };
    let t = Instant::now();
    let model = DankModel::fit(&params, &d.x, &y)?;
    let info = &model.info[0];
    println!(
        "DANK fit (Nesterov, backtracking, reduced eig): {:.2} s, {} iterations, converged {}, h {:.6}, F in [{:.4}, {:.4}], rank {}, L {:.3}",
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
    // One F(α) by both routes at the SVM solution.
    let k = params.kernel.gram(&d.x)?;
    let svm = solve_c_svc(
        &PrecomputedKernel::new(k.as_ref())?,
        &y,
        params.c,
        params.c,
        &SolverSettings::default(),
        None,
    )?;
    let eta: f64 = svm.coef.iter().map(|v| v * v).sum();
    println!("SVM: {} SVs of {}", svm.n_support, y.len());
    let mut times = [0.0; 2];
    let mut f = Vec::new();
    for (r, route) in [EigenRoute::Reduced, EigenRoute::Full]
        .into_iter()
        .enumerate()
    {
        let t = Instant::now();
        let reps = 3;
        let mut last = None;
        for _ in 0..reps {
            last = Some(adaptive_matrix(k.as_ref(), &svm.coef, eta, 0.01, route)?);
        }
        times[r] = t.elapsed().as_secs_f64() / reps as f64;
        f.push(last.unwrap().matrix());
    }
    let diff: Mat<f64> = &f[0] - &f[1];
    println!(
        "F(alpha): reduced {:.1} ms, full {:.1} ms, speed-up {:.1}x, ||F_red - F_full||_F = {:.2e}",
        1e3 * times[0],
        1e3 * times[1],
        times[1] / times[0],
        diff.norm_l2()
    );
    // Fig. 4: schemes from α_SVM.
    let problem = DankProblem {
        k: k.as_ref(),
        dual: Dual::Svm { y: &y },
        c: params.c,
        eta,
        tau: 0.01,
    };
    let z0 = vec![0.0; y.len()];
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
        let settings = DankSettings {
            scheme,
            step,
            max_iter: COLD_ITERATIONS,
            ..DankSettings::default()
        };
        let t = Instant::now();
        let sol = problem.solve(&z0, &settings)?;
        println!(
            "{name:24} {:5} iterations, converged {}, h {:.6}, L {:.3e}, {:.2} s",
            sol.iterations,
            sol.converged,
            sol.objective,
            sol.lipschitz,
            t.elapsed().as_secs_f64()
        );
        if let Some(dir) = out {
            std::fs::create_dir_all(dir)?;
            std::fs::write(
                Path::new(dir).join(format!("{name}.csv")),
                sol.trace.to_csv(),
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
                Task::Regression => MethodKind::DankSvr,
                _ => MethodKind::Dank,
            };
            let method = Method::defaults(kind, &train, Some(GridSettings::default()), r)?;
            let t = Instant::now();
            let fitted = method.fit(&train.x, &train.y, r, &|_| {})?;
            secs.push(t.elapsed().as_secs_f64());
            let sel = fitted
                .selection
                .ok_or("DANK: the grid search did not run")?;
            let AnyModel::Dank(dank) = fitted.model else {
                return Err("DANK: Method::Dank returned another model".into());
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
