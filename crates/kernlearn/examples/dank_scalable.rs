//! Scalable DANK (section 5) against the exact RBF SVM (not part of the test run).
//!
//! ```text
//! cargo run --release -p kernlearn --example dank_scalable -- DATA.csv CLUSTERS [EXACT_DANK_ROWS [MAX_ITER]]
//! ```
//!
//! MAX_ITER is the iteration cap of each scalable-DANK subproblem (default 2000, the
//! paper's t_max).
//!
//! A stratified 80/20 split (seed 0), features scaled to [0, 1] on the training part;
//! σ and C by 5-fold SVM-CV (the default grid) on a stratified 2,000-row sample of the
//! training part; then, with that σ and C, the exact C-SVC (`SvmModel::fit`) and
//! scalable DANK (CLUSTERS k-means clusters, η = ‖α_SVM‖² per cluster, default solver
//! settings) on the whole training part, and, when EXACT_DANK_ROWS > 0, exact DANK
//! (τ = 0.01, η = ‖α_SVM‖²) on a stratified sample of that many training rows. Prints
//! training seconds and test accuracy of each. As a diagnostic it also fits a "local
//! SVM": one C-SVC with bias per scalable-DANK cluster (same σ, C and routing), which
//! separates what the partition costs from what DANK's subproblem (no bias, learned `F`)
//! adds.

use kernlearn::data::{read_dataset, stratified_split, Dataset, ScaleMode, Scaler};
use kernlearn::metrics::accuracy;
use kernlearn::nonparametric::{
    DankModel, DankParams, DankSettings, ScalableDankModel, ScalableDankParams,
};
use kernlearn::select::GridSearch;
use kernlearn::svm::{SvmModel, SvmParams};
use kernlearn::{Predictor, Task};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// Rows of the SVM-CV sample.
const CV_ROWS: usize = 2000;

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, clusters) = match (args.first(), args.get(1)) {
        (Some(p), Some(v)) => (p.as_str(), v.parse::<usize>()?),
        _ => {
            return Err(
                "usage: dank_scalable DATA.csv CLUSTERS [EXACT_DANK_ROWS [MAX_ITER]]".into(),
            )
        }
    };
    let exact_rows: usize = args.get(2).map_or(Ok(0), |s| s.parse())?;
    let max_iter: usize = args
        .get(3)
        .map_or(Ok(DankSettings::default().max_iter), |s| s.parse())?;
    let data = read_dataset(Path::new(path), None, None)?;
    let (train_idx, test_idx) = stratified_split(&data.y, 0.2, 0)?;
    let (train, test) = scaled(&data.subset(&train_idx), &data.subset(&test_idx))?;
    println!(
        "{path}: {} train / {} test rows, {} features, {} threads",
        train.len(),
        test.len(),
        train.x.n_cols(),
        rayon::current_num_threads()
    );

    let cv = sample(&train, CV_ROWS)?;
    let t = Instant::now();
    let sel = GridSearch::new(SvmParams::default()).run(&cv.x, &cv.y, &|| {})?;
    println!(
        "SVM-CV on {} rows: sigma {} C {} (cv acc {:.4}, {:.1} s)",
        cv.len(),
        sel.best.sigma,
        sel.best.c,
        sel.best.score,
        t.elapsed().as_secs_f64()
    );

    let t = Instant::now();
    let svm = SvmModel::fit(&sel.params, &train.x, &train.y)?;
    let svm_s = t.elapsed().as_secs_f64();
    let svm_acc = accuracy(&svm.predict(&test.x)?, &test.y)?;
    println!(
        "exact SVM: train {svm_s:.1} s, test acc {svm_acc:.4}, {} SVs",
        svm.n_support()
    );

    let mut params = ScalableDankParams::new(sel.params.kernel.clone(), sel.params.c, clusters);
    params.settings.max_iter = max_iter;
    let done = AtomicUsize::new(0);
    let t = Instant::now();
    let model = ScalableDankModel::fit_with_progress(&params, &train.x, &train.y, &|| {
        done.fetch_add(1, Ordering::Relaxed);
    })?;
    let dank_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let dank_acc = accuracy(&model.predict(&test.x)?, &test.y)?;
    let predict_s = t.elapsed().as_secs_f64();
    let sizes = model.cluster_sizes();
    let iters: Vec<usize> = model.clusters.iter().map(|c| c.info.iterations).collect();
    let single = model
        .clusters
        .iter()
        .filter(|c| c.info.eta == params.c * params.c * c.machine.n_train() as f64)
        .count();
    let (f_min, f_max) = model.f_range();
    let unconverged = model.clusters.iter().filter(|c| !c.info.converged).count();
    println!(
        "scalable DANK ({} clusters, {} finished): train {dank_s:.1} s, test acc {dank_acc:.4} \
         (predict {predict_s:.1} s); cluster sizes {}..{}, iterations {}..{} (total {}, \
         {unconverged} clusters at the cap of {max_iter}), about {single} single-class clusters, F in [{f_min:.4}, {f_max:.4}], {} SVs",
        sizes.len(),
        done.load(Ordering::Relaxed),
        sizes.iter().min().unwrap_or(&0),
        sizes.iter().max().unwrap_or(&0),
        iters.iter().min().unwrap_or(&0),
        iters.iter().max().unwrap_or(&0),
        iters.iter().sum::<usize>(),
        model.summary().n_support.unwrap_or(0),
    );

    let t = Instant::now();
    let local_acc = local_svm_accuracy(&model, &sel.params, &train, &test)?;
    println!(
        "local SVM (C-SVC with bias per cluster, same routing): train {:.1} s, test acc \
         {local_acc:.4}",
        t.elapsed().as_secs_f64()
    );

    if exact_rows > 0 {
        let sub = sample(&train, exact_rows)?;
        let mut dank_params = DankParams::new(
            Task::Classification,
            sel.params.kernel.clone(),
            sel.params.c,
        );
        dank_params.epsilon = 0.0;
        let t = Instant::now();
        let exact = DankModel::fit(&dank_params, &sub.x, &sub.y)?;
        let exact_s = t.elapsed().as_secs_f64();
        let exact_acc = accuracy(&exact.predict(&test.x)?, &test.y)?;
        let t = Instant::now();
        let sub_svm = SvmModel::fit(&sel.params, &sub.x, &sub.y)?;
        let sub_svm_s = t.elapsed().as_secs_f64();
        let sub_svm_acc = accuracy(&sub_svm.predict(&test.x)?, &test.y)?;
        println!(
            "on a {}-row training sample: exact DANK train {exact_s:.1} s, test acc \
             {exact_acc:.4}; exact SVM train {sub_svm_s:.2} s, test acc {sub_svm_acc:.4}",
            sub.len()
        );
    }
    Ok(())
}

/// Test accuracy of one C-SVC per cluster of `model` (a one-class cluster predicts its
/// class), with test points routed as scalable DANK routes them.
fn local_svm_accuracy(
    model: &ScalableDankModel,
    params: &SvmParams,
    train: &Dataset,
    test: &Dataset,
) -> Res<f64> {
    let route = model.route(&train.x)?;
    let test_route = model.route(&test.x)?;
    let mut pred = vec![0.0; test.len()];
    for c in 0..model.clusters.len() {
        let idx: Vec<usize> = (0..train.len()).filter(|&i| route[i] == c).collect();
        let rows: Vec<usize> = (0..test.len()).filter(|&i| test_route[i] == c).collect();
        if rows.is_empty() {
            continue;
        }
        let part = train.subset(&idx);
        let xt = test.x.select_rows(&rows);
        let p = if part.y.iter().all(|&v| v == part.y[0]) {
            vec![part.y[0]; rows.len()]
        } else {
            SvmModel::fit(params, &part.x, &part.y)?.predict(&xt)?
        };
        for (&r, v) in rows.iter().zip(p) {
            pred[r] = v;
        }
    }
    Ok(accuracy(&pred, &test.y)?)
}

/// Training and test parts scaled to [0, 1] by the training range.
fn scaled(train: &Dataset, test: &Dataset) -> Res<(Dataset, Dataset)> {
    let scaler = Scaler::fit(ScaleMode::ZeroOne, &train.x);
    let mut a = train.clone();
    let mut b = test.clone();
    a.x = scaler.transform(&train.x)?;
    b.x = scaler.transform(&test.x)?;
    Ok((a, b))
}

/// A stratified sample of `rows` rows (all of `d` when it has no more).
fn sample(d: &Dataset, rows: usize) -> Res<Dataset> {
    if rows >= d.len() {
        return Ok(d.clone());
    }
    let frac = 1.0 - rows as f64 / d.len() as f64;
    let (keep, _) = stratified_split(&d.y, frac, 1)?;
    Ok(d.subset(&keep))
}
