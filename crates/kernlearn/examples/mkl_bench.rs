//! Benchmarks of the MKL module (docs/BENCHMARKS.md, "Multiple kernel learning").
//!
//! ```text
//! cargo run --release -p kernlearn --example mkl_bench -- accuracy [--datasets heart,sonar] [--repeats 5]
//! cargo run --release -p kernlearn --example mkl_bench -- mwumkl --dataset shuttle-binary [--kernels family12] [--eps 0.2]
//! ```
//!
//! `accuracy`: UNIFORM, MWUMKL, EasyMKL and LIBLINEAR+ (Nyström + linear SVM) with the
//! thesis's per-feature family (`family12@each`) on 80/20 stratified splits (seed =
//! repeat), features scaled to [0, 1] on the training part; test accuracy and fit time,
//! mean ± std over the repeats. `mwumkl`: one MWUMKL fit on an 80 % split of a data set
//! with any family (`--kernels`), time and test accuracy (run it under
//! `/usr/bin/time -v` for the peak memory). Options: `--datasets-dir DIR` (default
//! `../shared/datasets` from the repository root), `--eps`, `--c` (MWUMKL's 2-norm soft
//! margin; `none` = hard margin), `--svm-c` (UNIFORM), `--lambda` (EasyMKL),
//! `--landmarks` (LIBLINEAR+), `--methods uniform,mwumkl,easymkl,nystrom`, `--json FILE`.

use kernlearn::bank::KernelFamily;
use kernlearn::data::{read_csv, stratified_split, Dataset, ScaleMode, Scaler};
use kernlearn::metrics::accuracy;
use kernlearn::mkl::{
    weight_sparsity, EasyMklParams, MklMethod, MklModel, MklParams, MwumklParams,
    NystromLinearModel, NystromLinearParams, UniformParams,
};
use kernlearn::Predictor;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

struct Args {
    mode: String,
    opts: BTreeMap<String, String>,
}

impl Args {
    fn parse() -> Args {
        let mut it = std::env::args().skip(1);
        let mode = it.next().unwrap_or_else(|| "accuracy".into());
        let mut opts = BTreeMap::new();
        while let Some(k) = it.next() {
            let key = k.trim_start_matches("--").to_string();
            let v = it
                .next()
                .unwrap_or_else(|| panic!("option {k} needs a value"));
            opts.insert(key, v);
        }
        Args { mode, opts }
    }
    fn get(&self, k: &str, default: &str) -> String {
        self.opts
            .get(k)
            .cloned()
            .unwrap_or_else(|| default.to_string())
    }
    fn num(&self, k: &str, default: f64) -> f64 {
        self.get(k, &default.to_string()).parse().expect("a number")
    }
}

fn load(dir: &Path, name: &str) -> Dataset {
    read_csv(&dir.join(format!("{name}.csv")), None).unwrap_or_else(|e| panic!("{e}"))
}

/// 80/20 stratified split (seed `seed`), scaled to [0, 1] on the training part.
fn split(d: &Dataset, seed: u64) -> (Dataset, Dataset) {
    let (tr, te) = stratified_split(&d.y, 0.2, seed).unwrap();
    let (mut train, mut test) = (d.subset(&tr), d.subset(&te));
    let scaler = Scaler::fit(ScaleMode::ZeroOne, &train.x);
    train.x = scaler.transform(&train.x).unwrap();
    test.x = scaler.transform(&test.x).unwrap();
    (train, test)
}

fn mwumkl_params(a: &Args) -> MwumklParams {
    let c = a.get("c", "1");
    let mut params = MwumklParams::default();
    params.epsilon = a.num("eps", 0.2);
    params.c = if c == "none" {
        None
    } else {
        Some(c.parse().unwrap())
    };
    params
}

fn mean_std(v: &[f64]) -> (f64, f64) {
    let m = v.iter().sum::<f64>() / v.len() as f64;
    let var = if v.len() > 1 {
        v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - 1) as f64
    } else {
        0.0
    };
    (m, var.sqrt())
}

fn accuracy_mode(a: &Args, dir: &Path) {
    let datasets = a.get("datasets", "breast-cancer,heart,ionosphere,pima,sonar,wdbc");
    let methods = a.get("methods", "uniform,mwumkl,easymkl,nystrom");
    let repeats = a.num("repeats", 5.0) as u64;
    let family: KernelFamily = a.get("kernels", "family12@each").parse().unwrap();
    let mut json = Vec::new();
    let mut splits = serde_json::Map::new();
    println!(
        "| dataset | n_train | m | method | test accuracy % | fit s | #SV | kernels selected | effective kernels |"
    );
    println!("| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |");
    for name in datasets.split(',') {
        let d = load(dir, name);
        let train_idx: Vec<Vec<usize>> = (0..repeats)
            .map(|r| stratified_split(&d.y, 0.2, r).unwrap().0)
            .collect();
        splits.insert(name.to_string(), serde_json::json!(train_idx));
        for method in methods.split(',') {
            let mut weights = Vec::new();
            let (mut accs, mut secs, mut svs, mut sel, mut eff) =
                (vec![], vec![], vec![], vec![], vec![]);
            let mut n_train = 0;
            let mut m = 0;
            for r in 0..repeats {
                let (train, test) = split(&d, r);
                n_train = train.len();
                m = family.len(train.x.n_cols());
                let t0 = Instant::now();
                let model: Box<dyn Predictor> = match method {
                    "nystrom" => {
                        let mut p = NystromLinearParams::new(
                            family.clone(),
                            a.num("landmarks", 150.0) as usize,
                        );
                        p.svm.c = a.num("lin-c", 1.0);
                        p.seed = r + 1;
                        Box::new(NystromLinearModel::fit(&p, &train.x, &train.y).unwrap())
                    }
                    other => {
                        let method = match other {
                            "uniform" => {
                                let mut p = UniformParams::default();
                                p.c = a.num("svm-c", 1.0);
                                MklMethod::Uniform(p)
                            }
                            "mwumkl" => MklMethod::Mwumkl(mwumkl_params(a)),
                            "easymkl" => {
                                let mut p = EasyMklParams::default();
                                p.lambda = a.num("lambda", 0.1);
                                MklMethod::EasyMkl(p)
                            }
                            _ => panic!("unknown method {other}"),
                        };
                        let model = MklModel::fit(
                            &MklParams::new(method, family.clone()),
                            &train.x,
                            &train.y,
                        )
                        .unwrap();
                        let (s, e) = weight_sparsity(&model.machines.machines[0].weights);
                        weights.push(model.machines.machines[0].weights.clone());
                        sel.push(s as f64);
                        eff.push(e);
                        svs.push(model.n_support() as f64);
                        Box::new(model)
                    }
                };
                secs.push(t0.elapsed().as_secs_f64());
                let pred = model.predict(&test.x).unwrap();
                accs.push(100.0 * accuracy(&pred, &test.y).unwrap());
            }
            let (am, asd) = mean_std(&accs);
            let (tm, _) = mean_std(&secs);
            let fmt = |v: &[f64]| {
                if v.is_empty() {
                    "–".to_string()
                } else {
                    format!("{:.0}", mean_std(v).0)
                }
            };
            println!(
                "| {name} | {n_train} | {m} | {method} | {am:.1} ± {asd:.1} | {tm:.3} | {} | {} | {} |",
                fmt(&svs),
                fmt(&sel),
                if eff.is_empty() { "–".into() } else { format!("{:.1}", mean_std(&eff).0) }
            );
            json.push(serde_json::json!({
                "dataset": name, "method": method, "n_train": n_train, "n_kernels": m,
                "accuracy": accs, "fit_seconds": secs, "n_sv": svs, "selected": sel, "effective": eff,
                "weights": weights,
            }));
        }
    }
    if let Some(path) = a.opts.get("json") {
        let out = serde_json::json!({
            "kernels": family.to_string(),
            "params": {"svm_c": a.num("svm-c", 1.0), "eps": a.num("eps", 0.2), "c": a.get("c", "1"),
                       "lambda": a.num("lambda", 0.1), "landmarks": a.num("landmarks", 150.0)},
            "splits": splits,
            "results": json,
        });
        std::fs::write(path, serde_json::to_string(&out).unwrap()).unwrap();
    }
}

fn mwumkl_mode(a: &Args, dir: &Path) {
    let d = load(dir, &a.get("dataset", "shuttle-binary"));
    let (train, test) = split(&d, a.num("seed", 0.0) as u64);
    let family: KernelFamily = a.get("kernels", "family12").parse().unwrap();
    let m = family.len(train.x.n_cols());
    let params = mwumkl_params(a);
    let t0 = Instant::now();
    let model = MklModel::fit(
        &MklParams::new(MklMethod::Mwumkl(params), family),
        &train.x,
        &train.y,
    )
    .unwrap();
    let fit = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let pred = model.predict(&test.x).unwrap();
    let predict = t1.elapsed().as_secs_f64();
    let acc = 100.0 * accuracy(&pred, &test.y).unwrap();
    let machine = &model.machines.machines[0];
    let (sel, eff) = weight_sparsity(&machine.weights);
    println!(
        "{} n_train={} d={} m={m} eps={} C={:?} rounds={} threads={}: fit {fit:.2} s, predict {} points {predict:.2} s, test accuracy {acc:.2} %, #SV {}, kernels selected {sel}, effective {eff:.1}, max weight {:.3e}",
        a.get("dataset", "shuttle-binary"),
        train.len(),
        train.x.n_cols(),
        params.epsilon,
        params.c,
        machine.info.iterations,
        rayon::current_num_threads(),
        test.len(),
        machine.n_support(),
        machine.weights.iter().cloned().fold(0.0, f64::max),
    );
}

fn main() {
    let a = Args::parse();
    let dir = PathBuf::from(a.get("datasets-dir", "../shared/datasets"));
    match a.mode.as_str() {
        "accuracy" => accuracy_mode(&a, &dir),
        "mwumkl" => mwumkl_mode(&a, &dir),
        other => panic!("unknown mode {other} (accuracy or mwumkl)"),
    }
}
