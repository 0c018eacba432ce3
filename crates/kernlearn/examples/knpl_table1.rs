//! KNPL vs SVM-CV on the paper's Table 1 protocol (Liu et al., AAAI 2018): features
//! scaled to [0, 1] on the training half, random stratified half/half splits, σ and C by
//! 5-fold SVM-CV over 2⁻⁵…2⁵, KNPL's γ by 5-fold CV (see `KnplSearch`), T = 10,
//! k_max = 15, ε = 1e-4. Prints train/test accuracy (mean ± std over repeats) and
//! seconds, and writes the per-iteration trace of the first repeat of each dataset.
//!
//! `cargo run --release -p kernlearn --example knpl_table1 -- DATASET_DIR REPEATS OUT_DIR [NAMES...]`
//! (`KNPL_RELAXATION=ω` sets [`KnplParams::g_relaxation`]; default 1, the paper's
//! Algorithm 2).

use kernlearn::data::{read_dataset, stratified_split, ScaleMode, Scaler};
use kernlearn::metrics::accuracy;
use kernlearn::nonparametric::{KnplModel, KnplParams, KnplSearch};
use kernlearn::svm::SvmModel;
use std::path::PathBuf;
use std::time::Instant;

fn mean_std(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0).max(1.0);
    (m, var.sqrt())
}

fn fmt(v: &[f64]) -> String {
    let (m, s) = mean_std(v);
    format!("{:.2} ± {:.2}", 100.0 * m, 100.0 * s)
}

fn main() -> kernlearn::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let dir = PathBuf::from(args.get(1).map_or("../shared/datasets", |s| s.as_str()));
    let repeats: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3);
    let out = PathBuf::from(args.get(3).map_or("knpl-out", |s| s.as_str()));
    std::fs::create_dir_all(&out).map_err(|e| kernlearn::Error::io(&out, e))?;
    let default = [
        "heart",
        "sonar",
        "ionosphere",
        "breast-cancer",
        "wine",
        "glass",
    ];
    let names: Vec<String> = if args.len() > 4 {
        args[4..].to_vec()
    } else {
        default.iter().map(|s| s.to_string()).collect()
    };
    let relaxation: f64 = std::env::var("KNPL_RELAXATION")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1.0);
    let mut base = KnplParams::default();
    base.g_relaxation = relaxation;
    println!("KNPL G relaxation ω = {relaxation}, {repeats} repeats\n");
    println!("| dataset | n_train | SVM-CV train | SVM-CV test | KNPL train | KNPL test | γ/γ₀ chosen | G range | select s | KNPL fit s | ADMM s | SMO s |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: | ---: | ---: |");
    for name in &names {
        let data = read_dataset(&dir.join(format!("{name}.csv")), None, None)?;
        let mut rows: [Vec<f64>; 4] = Default::default();
        let (mut scales, mut ranges) = (Vec::new(), Vec::new());
        let (mut select_s, mut fit_s, mut admm_s, mut smo_s) = (0.0, 0.0, 0.0, 0.0);
        let mut n_train = 0;
        for r in 0..repeats {
            let seed = r as u64;
            let (tr, te) = stratified_split(&data.y, 0.5, seed)?;
            let (train, test) = (data.subset(&tr), data.subset(&te));
            let scaler = Scaler::fit(ScaleMode::ZeroOne, &train.x);
            let (xtr, xte) = (scaler.transform(&train.x)?, scaler.transform(&test.x)?);
            n_train = xtr.n_rows();
            let search = KnplSearch::new(base.clone(), seed);
            let t = Instant::now();
            let svm_sel = search.svm_search().run(&xtr, &train.y, &|| {})?;
            let svm = SvmModel::fit(&svm_sel.params, &xtr, &train.y)?;
            let svm_cv = svm_sel.best.score;
            let sel = search.run_with_svm(&xtr, &train.y, svm_sel)?;
            select_s += t.elapsed().as_secs_f64();
            let t = Instant::now();
            let (model, trace) = KnplModel::fit(&sel.params, &xtr, &train.y)?;
            fit_s += t.elapsed().as_secs_f64();
            admm_s += model.pairs.iter().map(|p| p.admm_seconds).sum::<f64>();
            smo_s += model.pairs.iter().map(|p| p.smo_seconds).sum::<f64>();
            if r == 0 {
                let path = out.join(format!("{name}-w{relaxation}-trace.csv"));
                std::fs::write(&path, trace.to_csv())
                    .map_err(|e| kernlearn::Error::io(&path, e))?;
            }
            rows[0].push(accuracy(&svm.predict(&xtr)?, &train.y)?);
            rows[1].push(accuracy(&svm.predict(&xte)?, &test.y)?);
            rows[2].push(accuracy(&model.predict(&xtr)?, &train.y)?);
            rows[3].push(accuracy(&model.predict(&xte)?, &test.y)?);
            scales.push(format!("{}", sel.best.scale));
            let (lo, hi) = model.g_range();
            ranges.push(format!("[{lo:.2}, {hi:.2}]"));
            eprintln!(
                "{name} repeat {r}: SVM-CV score {svm_cv:.4} σ={:?} C={} γ={:.3e} (γ₀={:.3e}) svm {:.4}/{:.4} knpl {:.4}/{:.4} γ-scores {:?}",
                sel.params.kernel,
                sel.params.c,
                sel.params.gamma,
                sel.gamma_reference,
                rows[0][r],
                rows[1][r],
                rows[2][r],
                rows[3][r],
                sel.gamma_points.iter().map(|g| (g.scale, g.score)).collect::<Vec<_>>()
            );
        }
        let k = repeats as f64;
        println!(
            "| {name} | {n_train} | {} | {} | {} | {} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} |",
            fmt(&rows[0]),
            fmt(&rows[1]),
            fmt(&rows[2]),
            fmt(&rows[3]),
            scales.join(", "),
            ranges.join(" "),
            select_s / k,
            fit_s / k,
            admm_s / k,
            smo_s / k
        );
    }
    Ok(())
}
