//! `fit --sparse` / `predict --sparse`: a LIBSVM file with one huge feature index is fitted
//! without densifying, the model file grows with the non-zeros, and methods or scalings
//! that cannot keep the data sparse are refused with the reason.

mod common;

use common::{json_of, run, scratch_dir, stderr_of};
use std::fmt::Write as _;

#[test]
fn a_wide_sparse_file_fits_and_predicts_without_densifying() {
    let dir = scratch_dir("sparse", "wide");
    let data = dir.join("wide.svm");
    // 60 rows, 3 non-zeros each, columns up to 10^7: 4.8 GB dense.
    let mut text = String::new();
    for i in 0..60u64 {
        let label = if i % 2 == 0 { 1 } else { -1 };
        let marker = if label > 0 { 1 } else { 2 };
        let a = 100 + (i * 7919) % 5_000_000;
        let _ = writeln!(text, "{label} {marker}:1 {a}:0.5 10000000:0.25");
    }
    std::fs::write(&data, text).unwrap();
    let model = dir.join("m.json");
    let (d, m) = (data.to_str().unwrap(), model.to_str().unwrap());
    let out = run(&[
        "fit", "--sparse", "-d", d, "-o", m, "--scale", "none", "-c", "4", "--gamma", "0.5",
        "--json", "--force",
    ]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let fit = json_of(&out);
    assert_eq!(fit["n_features"], 10_000_000);
    assert_eq!(fit["nnz"], 180);
    assert_eq!(fit["train_accuracy"], 1.0);
    let size = std::fs::metadata(&model).unwrap().len();
    assert!(
        size < 64 * 1024,
        "model file of {size} bytes for 180 non-zeros"
    );
    let out = run(&["predict", "--sparse", "--model", m, "-d", d, "--json"]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(json_of(&out)["test_accuracy"], 1.0);

    let refused = |args: &[&str], needle: &str| {
        let out = run(args);
        assert!(!out.status.success());
        let err = stderr_of(&out);
        assert!(err.contains(needle), "`{err}` lacks `{needle}`");
    };
    let m2 = dir.join("m2.json");
    let m2 = m2.to_str().unwrap();
    refused(
        &[
            "fit", "--sparse", "-d", d, "-o", m2, "--method", "knpl", "--scale", "none",
        ],
        "method KNPL cannot take sparse input",
    );
    // The default `01` scaling would shift the last column (all 0.25): refused, not filled.
    refused(
        &["fit", "--sparse", "-d", d, "-o", m2],
        "shifts feature 10000000",
    );
    refused(
        &["fit", "--sparse", "-d", d, "-o", m2, "--scale", "standard"],
        "would densify",
    );
    let csv = dir.join("x.csv");
    std::fs::write(&csv, "a,label\n1,1\n2,-1\n").unwrap();
    refused(
        &["fit", "--sparse", "-d", csv.to_str().unwrap(), "-o", m2],
        "--sparse reads LIBSVM",
    );
}
