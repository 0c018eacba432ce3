//! `kernlearn experiment` and `evaluate --select grid` end to end, on small grids.

mod common;

use common::{json_of, repo, run, stderr_of};

fn data(name: &str) -> String {
    repo().join("data").join(name).display().to_string()
}

const SMALL: [&str; 6] = ["--sigmas", "1,4", "--cs", "1,4", "--repeats", "2"];

#[test]
fn experiment_json_has_mean_and_std_per_dataset() {
    let heart = data("heart.csv");
    let mut args = vec!["experiment", "-q", "--json", "--data", &heart];
    args.extend(SMALL);
    let v = json_of(&run(&args));
    let sets = v["datasets"].as_array().unwrap();
    assert_eq!(sets.len(), 1);
    let d = &sets[0];
    assert_eq!(d["dataset"], "heart");
    assert_eq!(d["method"], "SVM-CV");
    assert_eq!(d["n"], 270);
    assert_eq!(d["d"], 13);
    for key in [
        "train_accuracy",
        "test_accuracy",
        "fit_seconds",
        "select_seconds",
    ] {
        let s = &d["summary"][key];
        assert!(s["mean"].is_f64() && s["std"].is_f64(), "{key}: {s}");
    }
    let acc = d["summary"]["test_accuracy"]["mean"].as_f64().unwrap();
    assert!((0.6..=1.0).contains(&acc), "{acc}");
    let runs = d["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0]["n_test"], 135);
    assert!([1.0, 4.0].contains(&runs[0]["chosen"]["sigma"].as_f64().unwrap()));
    // Same seed, same numbers.
    let again = json_of(&run(&args));
    assert_eq!(
        again["datasets"][0]["summary"]["test_accuracy"],
        d["summary"]["test_accuracy"]
    );
}

#[test]
fn experiment_table_csv_markdown_and_regression() {
    let dir = std::env::temp_dir().join(format!("kernlearn-exp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("runs.csv").display().to_string();
    let md = dir.join("table.md").display().to_string();
    let (heart, housing) = (data("heart.csv"), data("housing.csv"));
    let mut args = vec![
        "experiment",
        "-q",
        "--data",
        &heart,
        "--data",
        &housing,
        "--csv",
        &csv,
        "--markdown",
        &md,
        "--method",
        "svm",
    ];
    args.extend(SMALL);
    let out = run(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("| heart | 270 | 13 | SVM-CV | accuracy % |"),
        "{table}"
    );
    assert!(
        table.contains("| housing | 506 | 13 | SVR-CV | RSE |"),
        "{table}"
    );
    assert_eq!(std::fs::read_to_string(&md).unwrap(), table);
    let rows = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(rows.lines().count(), 1 + 2 + 2);
    assert!(rows.starts_with("dataset,method,repeat,seed"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn experiment_without_selection() {
    let heart = data("heart.csv");
    let v = json_of(&run(&[
        "experiment",
        "-q",
        "--json",
        "--data",
        &heart,
        "--select",
        "none",
        "--repeats",
        "3",
        "--sigma",
        "2",
        "-c",
        "2",
    ]));
    let d = &v["datasets"][0];
    assert_eq!(d["method"], "c-svc");
    assert_eq!(d["runs"][2]["chosen"]["sigma"], 2.0);
    assert_eq!(d["summary"]["select_seconds"]["mean"], 0.0);
}

#[test]
fn experiment_bad_protocol_parameters() {
    let heart = data("heart.csv");
    let e = stderr_of(&run(&[
        "experiment",
        "-q",
        "--data",
        &heart,
        "--repeats",
        "0",
    ]));
    assert!(e.contains("repeats") && e.contains("at least 1"), "{e}");
    let e = stderr_of(&run(&[
        "experiment",
        "-q",
        "--data",
        &heart,
        "--test-fraction",
        "0",
    ]));
    assert!(
        e.contains("test-fraction") && e.contains("between 0 and 1"),
        "{e}"
    );
    let e = stderr_of(&run(&["experiment", "-q", "--data", "no/such.csv"]));
    assert!(e.contains("no/such.csv"), "{e}");
}

#[test]
fn evaluate_with_grid_reports_the_selection() {
    let heart = data("heart.csv");
    let v = json_of(&run(&[
        "evaluate", "-q", "--json", "--data", &heart, "--select", "grid", "--sigmas", "1,4",
        "--cs", "1,4",
    ]));
    let s = &v["selected"];
    assert!([1.0, 4.0].contains(&s["sigma"].as_f64().unwrap()), "{v}");
    assert!([1.0, 4.0].contains(&s["c"].as_f64().unwrap()), "{v}");
    assert!(v["test_accuracy"].is_f64() && v["select_seconds"].is_f64());
    // Default: no selection, no `selected` field.
    let v = json_of(&run(&["evaluate", "-q", "--json", "--data", &heart]));
    assert!(v.get("selected").is_none());
}

/// `--baseline svm` runs SVM-CV on the same splits and reports the paired
/// comparison in the JSON, the markdown table and the CSV.
#[test]
fn experiment_baseline_gives_the_paired_comparison() {
    let dir = std::env::temp_dir().join(format!("kernlearn-paired-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (csv, md) = (dir.join("p.csv"), dir.join("p.md"));
    let (csv_s, md_s) = (csv.display().to_string(), md.display().to_string());
    let wine = data("wine.csv");
    let mut args = vec![
        "experiment",
        "-q",
        "--json",
        "--data",
        &wine,
        "--method",
        "dank",
        "--baseline",
        "svm",
        "--csv",
        &csv_s,
        "--markdown",
        &md_s,
        "--force",
    ];
    args.extend(["--sigmas", "1,4", "--cs", "1,4", "--repeats", "3"]);
    let v = json_of(&run(&args));
    let base = &v["baselines"][0];
    assert_eq!(base["method"], "SVM-CV");
    let d = &v["datasets"][0];
    assert_eq!(d["method"], "DANK");
    let p = &d["paired"];
    assert_eq!(p["baseline"], "SVM-CV");
    assert_eq!(p["splits"], 3);
    let diffs: Vec<f64> = (p["differences"].as_array().unwrap().iter())
        .map(|x| x.as_f64().unwrap())
        .collect();
    for (r, diff) in diffs.iter().enumerate() {
        let a = d["runs"][r]["test"]["accuracy"].as_f64().unwrap();
        let b = base["runs"][r]["test"]["accuracy"].as_f64().unwrap();
        assert!((diff - (a - b)).abs() < 1e-12);
        // every repeat says whether DANK fell back to SVM-CV
        let flag = &d["runs"][r]["chosen"]["other"]["fell_back_to_base_svm"];
        assert!(flag == 0.0 || flag == 1.0, "{flag}");
    }
    let (w, t, l) = (
        p["wins"].as_u64().unwrap(),
        p["ties"].as_u64().unwrap(),
        p["losses"].as_u64().unwrap(),
    );
    assert_eq!(w + t + l, 3);
    let pv = p["wilcoxon"]["p_value"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&pv), "{pv}");
    let table = std::fs::read_to_string(&md).unwrap();
    assert!(table.contains("| wine | DANK | SVM-CV | 3 |"), "{table}");
    assert!(table.contains("| wine | 178 | 13 | SVM-CV |"), "{table}");
    let rows = std::fs::read_to_string(&csv).unwrap();
    assert!(rows
        .lines()
        .next()
        .unwrap()
        .ends_with("baseline,paired_difference,fell_back"));
    assert_eq!(rows.lines().count(), 1 + 3 + 3, "{rows}");
    // A baseline of another task is an error, not a panic.
    let housing = data("housing.csv");
    let e = stderr_of(&run(&[
        "experiment",
        "-q",
        "--data",
        &housing,
        "--method",
        "knpl",
        "--baseline",
        "svm",
        "--repeats",
        "2",
    ]));
    assert!(!e.is_empty());
}
