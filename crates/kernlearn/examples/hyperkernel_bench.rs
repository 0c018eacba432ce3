//! Hyperkernel scaling (paper section 7.4) and the inputs of the CVXPY comparison
//! (docs/BENCHMARKS.md, "Hyperkernels").
//!
//! ```text
//! cargo run -p kernlearn --example hyperkernel_bench -- \
//!     [--data ../shared/datasets/pima.csv] [--sizes 50,100,200,300,400] [--repeats 3] \
//!     [--problem c-svm] [--width-factor 50] [--dump DIR] [--full 1] [--rounds 1]
//! ```
//!
//! `--full 1` also solves, for repeat 0 of each size, the whole conic program in one
//! piece (without the working set of expansion pairs the fit uses) and prints both
//! objectives and times. `--rounds 1` prints, for every fit, the working-set rounds of
//! its conic solve (pairs, factor columns, interior-point iterations, seconds).
//! `--width-factor F` sets the ARD widths to F × the 90 % quantile (default: the paper's 50).
//!
//! For each size `n`, `--repeats` random subsets of `n` rows (seed = repeat, no scaling,
//! the paper's untuned defaults) are fitted; the table gives the rank of the incomplete
//! Cholesky, the basis size `R` and total factor columns of the conic program, the
//! seconds of the factorisation, the conic solve and the whole fit (means), and the
//! least-squares slope of log(time) against log(n). `--dump DIR` writes, for repeat 0 of
//! each size, the exact conic program (JSON) that `scripts/bench_hyperkernel.py` hands
//! to CVXPY. `--write-syndata FILE [--n 400]` writes the paper's synthetic set (seed 0)
//! as CSV instead.

use kernlearn::data::{read_csv, Dataset};
use kernlearn::hyperkernel::{ConicInputs, HyperkernelModel, HyperkernelParams, Problem};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::path::Path;

/// CPU seconds of this process so far (user + system, all threads; Linux `/proc`), the
/// paper's MATLAB `cputime`. `None` off Linux.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    let (mx, my) = points.iter().fold((0.0, 0.0), |(a, b), (x, y)| {
        (a + x.ln() / n, b + y.ln() / n)
    });
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (x, y) in points {
        sxy += (x.ln() - mx) * (y.ln() - my);
        sxx += (x.ln() - mx).powi(2);
    }
    sxy / sxx
}

/// The working-set rounds of a fit's conic solve and its β, largest first.
fn print_rounds(n: usize, r: u64, model: &HyperkernelModel) {
    let info = &model.info;
    let rounds: Vec<String> = info
        .rounds
        .iter()
        .map(|w| {
            format!(
                "{} pairs / {} cols / {} it / {:.2} s",
                w.pairs, w.factor_columns, w.iterations, w.seconds
            )
        })
        .collect();
    println!(
        "n {n} repeat {r}: rank {}, R {}, terms {}, objective {:.6}, solve {:.2} s, rounds: {}",
        info.rank,
        info.basis_rank,
        info.terms,
        info.objective,
        info.seconds_solve,
        rounds.join("; ")
    );
    let mut beta = model.kernel.beta.clone();
    beta.sort_by(|a, b| b.total_cmp(a));
    let shown: Vec<String> = beta.iter().map(|b| format!("{b:.1e}")).collect();
    println!("  β (largest first): {}", shown.join(" "));
}

/// Writes the exact conic program of a fit on `d` (and Clarabel's result on it) as the
/// JSON that scripts/bench_hyperkernel.py hands to CVXPY.
fn dump_program(
    dir: &str,
    n: usize,
    params: &HyperkernelParams,
    d: &Dataset,
) -> Result<(), Box<dyn std::error::Error>> {
    let prep = ConicInputs::prepare(params, &d.x, &d.y)?;
    let (obj, _, iters, secs) = prep.solve(params)?;
    let q = &prep.q;
    let json = serde_json::json!({
        "n": n, "problem": params.problem.name(), "c": params.c, "nu": params.nu(),
        "lambda_q": params.lambda_q, "scale": prep.scale, "y": prep.labels,
        "q": (0..q.nrows()).map(|i| (0..q.ncols()).map(|k| q[(i, k)]).collect::<Vec<_>>()).collect::<Vec<_>>(),
        "factors": prep.factors.iter().map(|c| (0..c.nrows()).map(|i| (0..c.ncols()).map(|k| c[(i, k)]).collect::<Vec<_>>()).collect::<Vec<_>>()).collect::<Vec<_>>(),
        "hyper_chol": prep.hyper_chol, "rank": prep.rank(),
        "clarabel_objective": obj, "clarabel_seconds": secs, "clarabel_iterations": iters,
    });
    std::fs::create_dir_all(dir)?;
    std::fs::write(
        Path::new(dir).join(format!("hk_{n}.json")),
        json.to_string(),
    )?;
    Ok(())
}

/// The whole program in one solve next to the working set of the fit: objectives,
/// iterations, seconds and the largest difference in β.
fn compare_full(params: &HyperkernelParams, d: &Dataset) -> Result<(), Box<dyn std::error::Error>> {
    let prep = ConicInputs::prepare(params, &d.x, &d.y)?;
    let (obj_ws, beta_ws, it_ws, s_ws) = prep.solve(params)?;
    let (obj, beta, it, s) = prep.solve_full(params)?;
    let dbeta = beta
        .iter()
        .zip(&beta_ws)
        .fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
    let support = beta.iter().filter(|&&b| b > 1e-6 * prep.scale).count();
    println!(
        "full program: objective {obj:.9} ({it} iterations, {s:.2} s); working set: \
         {obj_ws:.9} ({it_ws} iterations, {s_ws:.2} s); rel. diff {:.1e}, max |Δβ| {dbeta:.1e}, \
         pairs with β > 1e-6: {support}",
        (obj - obj_ws).abs() / obj.abs().max(1e-300)
    );
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut opts = BTreeMap::new();
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        opts.insert(
            k.trim_start_matches("--").to_string(),
            it.next().unwrap_or_default(),
        );
    }
    if let Some(out) = opts.get("write-syndata") {
        let n: usize = opts.get("n").map_or(Ok(400), |s| s.parse())?;
        let d = kernlearn::data::synthetic::syndata(n, 0)?;
        kernlearn::data::write_csv(Path::new(out), &d)?;
        println!("wrote {n} rows of syndata to {out}");
        return Ok(());
    }
    let path = opts
        .get("data")
        .cloned()
        .unwrap_or_else(|| "../shared/datasets/pima.csv".into());
    let data = read_csv(Path::new(&path), None)?;
    let sizes: Vec<usize> = opts
        .get("sizes")
        .map(String::as_str)
        .unwrap_or("50,100,200,300,400")
        .split(',')
        .map(|s| s.trim().parse())
        .collect::<Result<_, _>>()?;
    let repeats: u64 = opts.get("repeats").map_or(Ok(3), |s| s.parse())?;
    let problem: Problem = opts
        .get("problem")
        .map_or(Ok(Problem::CSvm), |s| s.parse())?;
    let dump = opts.get("dump").cloned();
    let mut params = HyperkernelParams::default();
    params.problem = problem;
    if let Some(f) = opts.get("width-factor") {
        params.width_factor = f.parse()?;
    }
    println!("| n | rank | R | factor columns | factor s | solve s | fit s (wall) | fit CPU s | IP iterations |");
    println!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let (mut fit_pts, mut solve_pts, mut cpu_pts) = (Vec::new(), Vec::new(), Vec::new());
    for &n in &sizes {
        let mut acc = [0.0f64; 8];
        for r in 0..repeats {
            let mut idx: Vec<usize> = (0..data.len()).collect();
            idx.shuffle(&mut ChaCha8Rng::seed_from_u64(r));
            idx.truncate(n);
            let d = data.subset(&idx);
            let cpu0 = cpu_seconds().unwrap_or(f64::NAN);
            let model = HyperkernelModel::fit(&params, &d.x, &d.y, &|_| {})?;
            let cpu = cpu_seconds().unwrap_or(f64::NAN) - cpu0;
            let info = &model.info;
            if opts.contains_key("rounds") {
                print_rounds(n, r, &model);
            }
            if r == 0 {
                if let Some(dir) = &dump {
                    dump_program(dir, n, &params, &d)?;
                }
            }
            if r == 0 && opts.contains_key("full") {
                compare_full(&params, &d)?;
            }
            let cols: usize = ConicInputs::prepare(&params, &d.x, &d.y)?
                .factors
                .iter()
                .map(|c| c.ncols())
                .sum();
            for (a, v) in acc.iter_mut().zip([
                info.rank as f64,
                info.basis_rank as f64,
                cols as f64,
                info.seconds_factor,
                info.seconds_solve,
                info.seconds_total,
                info.iterations as f64,
                cpu,
            ]) {
                *a += v / repeats as f64;
            }
        }
        println!(
            "| {n} | {:.0} | {:.0} | {:.0} | {:.2} | {:.2} | {:.2} | {:.2} | {:.0} |",
            acc[0], acc[1], acc[2], acc[3], acc[4], acc[5], acc[7], acc[6]
        );
        cpu_pts.push((n as f64, acc[7]));
        fit_pts.push((n as f64, acc[5]));
        solve_pts.push((n as f64, acc[4]));
    }
    println!(
        "\nlog-log slope: fit (wall) {:.2}, fit (CPU) {:.2}, conic solve {:.2} (paper, SeDuMi cputime: 3.13 C-SVM, 3.05 ν-SVM, 3.03 Lag-SVM)",
        slope(&fit_pts),
        slope(&cpu_pts),
        slope(&solve_pts)
    );
    Ok(())
}
