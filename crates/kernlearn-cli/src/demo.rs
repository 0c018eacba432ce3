//! The main job: kernel machines on the bundled datasets, one row per dataset, with the
//! papers' protocol (scale to [0, 1] on the training half, random stratified half/half
//! split): the SVM with LIBSVM's defaults and with SVM-CV, then the learned kernels.

use crate::args::ModelArgs;
use crate::report::{format_num, table};
use crate::select::SelectArgs;
use crate::{evaluate_split, progress, split};
use clap::Parser;
use kernlearn::data::{parse_csv, Dataset};
use kernlearn::Result;
use serde_json::{json, Value};

/// Datasets compiled into the binary, so the demo runs anywhere without setup.
const BUNDLED: [(&str, &str); 5] = [
    ("heart", include_str!("../../../data/heart.csv")),
    ("sonar", include_str!("../../../data/sonar.csv")),
    ("ionosphere", include_str!("../../../data/ionosphere.csv")),
    ("wine", include_str!("../../../data/wine.csv")),
    ("housing", include_str!("../../../data/housing.csv")),
];

/// Default model and grid options, exactly as the command line would give them.
#[derive(Parser)]
pub struct Defaults {
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub grid: SelectArgs,
}

/// The learned-kernel methods of the table, by their `--method` names: KNPL and DANK
/// (nonparametric), UNIFORM and MWUMKL (multiple kernel learning on the thesis's
/// per-feature family), LD-MKL (localized, on linear, quadratic and Gaussian kernels).
/// Regression data gets DANK-SVR only.
const LEARNED_CLASSIFIERS: [&str; 5] = ["knpl", "dank", "uniform", "mwumkl", "ldmkl"];
const LEARNED_REGRESSORS: [&str; 1] = ["dank-svr"];

/// Default options for `--method m` (`None`: the SVM) plus `extra` arguments, exactly as
/// the command line would give them.
pub fn defaults(method: Option<&str>, extra: &[&str]) -> Defaults {
    let mut argv = vec!["kernlearn"];
    argv.extend(method.map(|m| ["--method", m]).into_iter().flatten());
    argv.extend(extra);
    Defaults::parse_from(argv)
}

/// Runs the demonstration and prints a table (or one JSON object).
pub fn run(as_json: bool, quiet: bool) -> Result<()> {
    let args = defaults(None, &[]).model;
    let runs_per_dataset = 2 + LEARNED_CLASSIFIERS.len() as u64;
    let pb = progress::bar(quiet, BUNDLED.len() as u64 * runs_per_dataset, "fits");
    let mut rows = Vec::new();
    let mut records = Vec::new();
    for (name, text) in BUNDLED {
        let data: Dataset = parse_csv(text, name, None)?;
        let classify = args.is_classifier(&data)?;
        let (train, test) = split(&data, classify, 0.5, args.seed)?;
        let learned: &[&str] = if classify {
            &LEARNED_CLASSIFIERS
        } else {
            &LEARNED_REGRESSORS
        };
        let mut results = Vec::new();
        pb.set_message(format!("{name}: SVM"));
        let mut fixed = evaluate_split(&train, &test, &args, None, true)?;
        let label = format!("{} default", fixed["method"].as_str().unwrap_or("?"));
        fixed.insert("method".into(), json!(label));
        results.push(fixed);
        pb.inc(1);
        let tuned = [defaults(None, &[])];
        let learned: Vec<Defaults> = learned.iter().map(|m| defaults(Some(m), &[])).collect();
        for d in tuned.iter().chain(&learned) {
            let settings = d.grid.settings(&d.model)?;
            let label = d.model.method(&train, Some(settings))?.name();
            pb.set_message(format!("{name}: {label}"));
            let mut r = evaluate_split(&train, &test, &d.model, Some(&d.grid), true)?;
            r.insert("method".into(), json!(label));
            results.push(r);
            pb.inc(1);
        }
        pb.inc(runs_per_dataset - 1 - tuned.len() as u64 - learned.len() as u64);
        for mut r in results {
            rows.push(row(name, &data, &r));
            r.insert("dataset".into(), json!(name));
            records.push(Value::Object(r));
        }
    }
    pb.finish_and_clear();
    if as_json {
        println!("{}", json!({ "results": records }));
    } else {
        println!(
            "kernlearn demo: kernel machines and learned kernels on each bundled dataset,\n\
             features scaled to [0, 1], random stratified 50/50 split (seed 0).\n\
             `default`: LIBSVM's defaults (γ = 1/d, C = 1, ε = 0.1). SVM-CV / SVR-CV: σ and C\n\
             (and ε) by 5-fold grid search on the training half (the papers' protocol).\n\
             KNPL, DANK, DANK-SVR: learned G ⊙ K / F ⊙ K on the SVM-CV kernel (KNPL's γ by CV;\n\
             DANK τ = 0.01, η = ‖α_SVM‖²). UNIFORM, MWUMKL: the thesis's 12 kernels on every\n\
             single feature (trace-normalised), C by 5-fold CV; MWUMKL ε = 0.2. LD-MKL\n\
             (thesis Algorithm 7): linear, quadratic and Gaussian (γ = 1/d) kernels on all\n\
             features, SVR gates, C by 5-fold CV.\n\
             Classification: accuracy; regression: relative squared error.\n"
        );
        let header = [
            "dataset", "n", "d", "method", "train", "test", "#SV", "select s", "fit s",
        ];
        print!("{}", table(&header, &rows));
    }
    Ok(())
}

fn row(name: &str, data: &Dataset, r: &serde_json::Map<String, Value>) -> Vec<String> {
    let get = |k: &str| r.get(k).and_then(Value::as_f64);
    let (train, test) = match get("test_accuracy") {
        Some(t) => (get("train_accuracy"), Some(t)),
        None => (get("train_rse"), get("test_rse")),
    };
    let fmt = |v: Option<f64>| v.map_or("-".into(), format_num);
    vec![
        name.to_string(),
        data.len().to_string(),
        data.x.n_cols().to_string(),
        r.get("method")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string(),
        fmt(train),
        fmt(test),
        r.get("n_support").map_or("-".into(), |v| v.to_string()),
        fmt(get("select_seconds")),
        fmt(get("fit_seconds")),
    ]
}
