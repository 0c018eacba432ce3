//! The main job: kernel machines on the bundled datasets, one row per dataset, with the
//! papers' protocol (scale to [0, 1] on the training half, random stratified half/half
//! split). Later methods add their rows beside the SVM.

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

/// Default model options, exactly as the command line would give them.
#[derive(Parser)]
struct Defaults {
    #[command(flatten)]
    model: ModelArgs,
    #[command(flatten)]
    grid: SelectArgs,
}

/// Runs the demonstration and prints a table (or one JSON object).
pub fn run(as_json: bool, quiet: bool) -> Result<()> {
    let Defaults { model: args, grid } = Defaults::parse_from(["kernlearn"]);
    let pb = progress::bar(quiet, BUNDLED.len() as u64, "datasets");
    let mut rows = Vec::new();
    let mut records = Vec::new();
    for (name, text) in BUNDLED {
        pb.set_message(name.to_string());
        let data: Dataset = parse_csv(text, name, None)?;
        let classify = args.is_classifier(&data)?;
        let (train, test) = split(&data, classify, 0.5, args.seed)?;
        let fixed = evaluate_split(&train, &test, &args, None, true)?;
        let tuned = evaluate_split(&train, &test, &args, Some(&grid), true)?;
        for (label, mut r) in [("default", fixed), ("CV", tuned)] {
            let method = format!("{} {label}", r["method"].as_str().unwrap_or("?"));
            r.insert("method".into(), json!(method));
            rows.push(row(name, &data, &r));
            r.insert("dataset".into(), json!(name));
            records.push(Value::Object(r));
        }
        pb.inc(1);
    }
    pb.finish_and_clear();
    if as_json {
        println!("{}", json!({ "results": records }));
    } else {
        println!(
            "kernlearn demo: RBF kernel machines on each bundled dataset, features scaled to\n\
             [0, 1], random stratified 50/50 split (seed 0). `default`: LIBSVM's defaults\n\
             (γ = 1/d, C = 1, ε = 0.1); `CV`: σ and C (and ε) chosen by 5-fold grid search\n\
             on the training half (the papers' SVM-CV / SVR-CV).\n\
             Classification: accuracy; regression (ε-SVR): relative squared error.\n"
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
