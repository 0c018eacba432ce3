//! `kernlearn predict` on edited model files: an inconsistent file is a clear
//! `malformed model file` error, never a panic.

mod common;

use common::{json_of, repo, run, stderr_of};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> String {
    repo()
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "kernlearn-cli-model-files-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `predict` with `model` on heart's test half must fail with a malformed-model error
/// mentioning `field`, and without a Rust panic.
fn predict_refuses(model: &Path, field: &str) {
    let out = run(&[
        "predict",
        "--model",
        &model.display().to_string(),
        "--data",
        &fixture("heart.test.csv"),
    ]);
    let e = stderr_of(&out);
    assert!(!e.contains("panicked"), "{e}");
    assert!(e.contains("malformed model file"), "{e}");
    assert!(e.contains(field), "`{field}` missing from: {e}");
}

#[test]
fn predict_refuses_edited_model_files() {
    let dir = scratch("edited");
    let model = dir.join("m.json");
    json_of(&run(&[
        "fit",
        "--data",
        &fixture("heart.train.csv"),
        "--model-out",
        &model.display().to_string(),
        "--json",
    ]));
    // The unedited file predicts.
    json_of(&run(&[
        "predict",
        "--model",
        &model.display().to_string(),
        "--data",
        &fixture("heart.test.csv"),
        "--json",
    ]));
    let original: Value = serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    let write = |name: &str, edit: &dyn Fn(&mut Value)| {
        let mut v = original.clone();
        edit(&mut v["model"]["fitted"]);
        let path = dir.join(name);
        std::fs::write(&path, v.to_string()).unwrap();
        path
    };

    // The last support vector removed everywhere but from the per-class counts.
    let shorter = write("shorter.json", &|f| {
        let d = f["n_features"].as_u64().unwrap() as usize;
        f["sv_indices"].as_array_mut().unwrap().pop();
        for row in f["sv_coef"].as_array_mut().unwrap() {
            row.as_array_mut().unwrap().pop();
        }
        let sv = &mut f["support_vectors"];
        let n = sv["n_rows"].as_u64().unwrap();
        sv["n_rows"] = json!(n - 1);
        let values = sv["values"].as_array_mut().unwrap();
        values.truncate(values.len() - d);
    });
    predict_refuses(&shorter, "n_sv_per_class");

    // Only the coefficient list shortened.
    let coef = write("coef.json", &|f| {
        f["sv_coef"][0].as_array_mut().unwrap().pop();
    });
    predict_refuses(&coef, "sv_coef[0]");

    // The matrix's row count edited.
    let rows = write("rows.json", &|f| {
        let n = f["support_vectors"]["n_rows"].as_u64().unwrap();
        f["support_vectors"]["n_rows"] = json!(n + 1);
    });
    predict_refuses(&rows, "n_rows");

    // A classifier edited to hold one class.
    let one_class = write("one-class.json", &|f| f["classes"] = json!([1.0]));
    predict_refuses(&one_class, "classes");

    std::fs::remove_dir_all(&dir).unwrap();
}
