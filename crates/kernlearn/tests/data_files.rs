//! Reads every benchmark CSV in `shared/datasets/` and checks it against `MANIFEST.tsv`;
//! round-trips each through the LIBSVM and KEEL writers. Skipped when the directory is
//! absent.

use kernlearn::data::{
    class_counts, parse_csv, parse_keel, parse_libsvm, read_csv, stratified_kfold, to_csv_string,
    to_keel_string, to_libsvm_string, Dataset, ScaleMode, Scaler,
};
use std::path::PathBuf;

fn datasets_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/datasets"
    ));
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("note: {} not found; skipping dataset tests", dir.display());
        None
    }
}

/// One line of MANIFEST.tsv.
struct Entry {
    file: String,
    task: String,
    n_rows: usize,
    n_features: usize,
    class_counts: Vec<(f64, usize)>,
}

fn manifest(dir: &std::path::Path) -> Vec<Entry> {
    let text = std::fs::read_to_string(dir.join("MANIFEST.tsv")).expect("MANIFEST.tsv");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (file, task, rows, feats, counts) = (
        col("file"),
        col("task"),
        col("n_rows"),
        col("n_features"),
        col("class_counts"),
    );
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let class_counts = if f[counts] == "-" {
                vec![]
            } else {
                let mut cc: Vec<(f64, usize)> = f[counts]
                    .split(',')
                    .map(|p| {
                        let (c, n) = p.split_once(':').unwrap();
                        (c.parse().unwrap(), n.parse().unwrap())
                    })
                    .collect();
                cc.sort_by(|a, b| a.0.total_cmp(&b.0));
                cc
            };
            Entry {
                file: f[file].to_string(),
                task: f[task].to_string(),
                n_rows: f[rows].parse().unwrap(),
                n_features: f[feats].parse().unwrap(),
                class_counts,
            }
        })
        .collect()
}

fn round_trips(d: &Dataset, name: &str) {
    let csv = to_csv_string(d).unwrap();
    assert_eq!(&parse_csv(&csv, name, None).unwrap(), d, "{name}: CSV");
    let svm = to_libsvm_string(d).unwrap();
    let back = parse_libsvm(&svm, name, Some(d.x.n_cols())).unwrap();
    assert_eq!(back.x, d.x, "{name}: LIBSVM features");
    assert_eq!(back.y, d.y, "{name}: LIBSVM labels");
    // CSV -> LIBSVM -> CSV gives the same values.
    let again = Dataset {
        feature_names: d.feature_names.clone(),
        target_name: d.target_name.clone(),
        ..back
    };
    assert_eq!(
        to_csv_string(&again).unwrap(),
        csv,
        "{name}: CSV→LIBSVM→CSV"
    );
    let keel = to_keel_string(d, name).unwrap();
    assert_eq!(&parse_keel(&keel, name).unwrap(), d, "{name}: KEEL");
}

#[test]
fn every_benchmark_csv_matches_the_manifest() {
    let Some(dir) = datasets_dir() else { return };
    let entries = manifest(&dir);
    let mut csv_files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".csv"))
        .collect();
    csv_files.sort();
    assert!(!csv_files.is_empty());
    for file in &csv_files {
        let d = read_csv(&dir.join(file), None).unwrap_or_else(|e| panic!("{e}"));
        let Some(e) = entries.iter().find(|e| &e.file == file) else {
            eprintln!("note: {file} is not in MANIFEST.tsv; only checked that it reads");
            continue;
        };
        assert_eq!(d.len(), e.n_rows, "{file}: rows");
        assert_eq!(d.x.n_cols(), e.n_features, "{file}: features");
        assert_eq!(d.feature_names.len(), e.n_features, "{file}: names");
        if e.task == "regression" {
            assert_eq!(d.target_name, "target", "{file}");
            d.validate_regression().unwrap();
        } else {
            assert_eq!(d.target_name, "label", "{file}");
            d.validate_classification().unwrap();
            assert_eq!(class_counts(&d.y), e.class_counts, "{file}: class counts");
        }
        // Keep the run fast: round-trip the smaller files in full.
        if d.len() <= 6000 {
            round_trips(&d, file);
        }
    }
}

#[test]
fn scaling_and_folds_on_a_real_dataset() {
    let Some(dir) = datasets_dir() else { return };
    let d = read_csv(&dir.join("heart.csv"), None).unwrap();
    let s = Scaler::fit(ScaleMode::PlusMinusOne, &d.x);
    let x = s.transform(&d.x).unwrap();
    for j in 0..x.n_cols() {
        let col: Vec<f64> = x.rows().map(|r| r[j]).collect();
        let lo = col.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = col.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        assert_eq!((lo, hi), (-1.0, 1.0), "column {j}");
    }
    let folds = stratified_kfold(&d.y, 10, 42).unwrap();
    assert_eq!(folds.iter().map(Vec::len).sum::<usize>(), d.len());
}
