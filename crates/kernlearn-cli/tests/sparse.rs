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
    // The default `01` scaling takes non-negative data (the last column, all 0.25, has
    // no zeros: it is constant, so it maps to 0).
    let m3 = dir.join("m3.json");
    let out = run(&[
        "fit",
        "--sparse",
        "-d",
        d,
        "-o",
        m3.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(json_of(&out)["n_features"], 10_000_000);
    refused(
        &["fit", "--sparse", "-d", d, "-o", m2, "--target", "f3"],
        "`target`: not available with --sparse",
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

/// `data/heart.csv` as LIBSVM text (zeros left out), and its number of rows.
fn heart_libsvm() -> (String, usize) {
    let csv = std::fs::read_to_string(common::repo().join("data/heart.csv")).unwrap();
    let mut text = String::new();
    let mut n = 0;
    for line in csv.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split(',').collect();
        let (label, features) = fields.split_last().unwrap();
        text.push_str(label);
        for (j, v) in features.iter().enumerate() {
            if v.parse::<f64>().unwrap() != 0.0 {
                let _ = write!(text, " {}:{v}", j + 1);
            }
        }
        text.push('\n');
        n += 1;
    }
    (text, n)
}

#[test]
fn default_scaling_of_non_negative_sparse_data_equals_the_dense_fit() {
    let dir = scratch_dir("sparse", "heart");
    let (text, n) = heart_libsvm();
    let data = dir.join("heart.libsvm");
    std::fs::write(&data, text).unwrap();
    let d = data.to_str().unwrap();
    let (ms, md) = (dir.join("s.json"), dir.join("d.json"));
    let (ms, md) = (ms.to_str().unwrap(), md.to_str().unwrap());
    // Age, blood pressure, cholesterol have no zeros: `01` shifts them, as dense `01` does.
    let sparse = json_of(&run(&["fit", "--sparse", "-d", d, "-o", ms, "--json"]));
    let dense = json_of(&run(&["fit", "-d", d, "-o", md, "--json"]));
    assert_eq!(sparse["train_accuracy"], dense["train_accuracy"]);
    assert_eq!(sparse["n_support"], dense["n_support"]);
    let predictions = |model: &str, sparse: bool| {
        let out_file = dir.join(format!("p-{sparse}.csv"));
        let o = out_file.to_str().unwrap();
        let mut args = vec!["predict", "--model", model, "-d", d, "-o", o, "--force"];
        if sparse {
            args.push("--sparse");
        }
        assert!(run(&args).status.success());
        std::fs::read_to_string(&out_file).unwrap()
    };
    let want = predictions(md, false);
    assert_eq!(want.lines().count(), n + 1);
    assert_eq!(predictions(ms, true), want);
    assert_eq!(predictions(ms, false), want);
    assert_eq!(predictions(md, true), want);
}

#[test]
fn sparse_fits_check_labels_as_dense_fits_do() {
    let dir = scratch_dir("sparse", "labels");
    let data = dir.join("reg.libsvm");
    let mut text = String::new();
    for i in 0..40 {
        let _ = writeln!(text, "{} 1:{} 5:1", 0.37 * i as f64 + 0.01, i + 1);
    }
    std::fs::write(&data, text).unwrap();
    let (d, m) = (data.to_str().unwrap(), dir.join("m.json"));
    let m = m.to_str().unwrap();
    for sparse in [true, false] {
        let mut args = vec!["fit", "-d", d, "-o", m];
        if sparse {
            args.push("--sparse");
        }
        let err = stderr_of(&run(&args));
        assert!(err.contains("looks like a regression target"), "{err}");
        assert!(err.contains("--method svr"), "{err}");
    }
    let fit = json_of(&run(&[
        "fit", "--sparse", "-d", d, "-o", m, "-m", "svr", "--json",
    ]));
    assert_eq!(fit["n_train"], 40);
}

/// A 40-row file naming feature 2^32 (the largest index a sparse matrix takes): the
/// sparse fit needs memory for its non-zeros only, asked (`--sparse`) or not; a fit
/// that needs it dense is refused with the reason, never an allocation abort.
#[test]
fn an_index_of_2_to_the_32_fits_sparse_asked_or_not() {
    let dir = scratch_dir("sparse", "huge-index");
    let data = dir.join("huge.libsvm");
    let mut text = String::new();
    for i in 0..40u64 {
        let label = if i % 2 == 0 { 1 } else { -1 };
        let _ = writeln!(
            text,
            "{label} {}:1 {}:{} 4294967296:1",
            1 + i % 2,
            3 + i % 5,
            i + 1
        );
    }
    std::fs::write(&data, text).unwrap();
    let (d, m) = (data.to_str().unwrap(), dir.join("m.json"));
    let m = m.to_str().unwrap();
    for scale in ["01", "maxabs", "none"] {
        let out = run(&[
            "fit", "--sparse", "-d", d, "-o", m, "--scale", scale, "--gamma", "0.5", "-c", "4",
            "--force", "--json",
        ]);
        let fit = json_of(&out);
        assert_eq!(fit["n_features"], 1u64 << 32, "{scale}");
        assert_eq!(fit["train_accuracy"], 1.0, "{scale}");
        let size = std::fs::metadata(m).unwrap().len();
        assert!(size < 64 * 1024, "{scale}: a model file of {size} bytes");
        let out = run(&["predict", "--sparse", "--model", m, "-d", d, "--json"]);
        assert_eq!(json_of(&out)["test_accuracy"], 1.0, "{scale}");
    }
    // Unasked, the file is kept sparse (its dense form would take 2^32 columns per row)
    // and the model is the --sparse fit's; a fit that needs dense rows says why not.
    let out = run(&[
        "fit", "-d", d, "-o", m, "--gamma", "0.5", "-c", "4", "--force", "--json",
    ]);
    let note = String::from_utf8_lossy(&out.stderr);
    assert!(note.contains("kept sparse"), "{note}");
    // `predict` reads the same file sparse unasked, and predicts as with --sparse.
    assert_eq!(json_of(&out)["n_features"], 1u64 << 32);
    assert_eq!(json_of(&out)["train_accuracy"], 1.0);
    let pred = run(&["predict", "--model", m, "-d", d, "--json"]);
    assert!(String::from_utf8_lossy(&pred.stderr).contains("kept sparse"));
    assert_eq!(json_of(&pred)["test_accuracy"], 1.0);
    let err = stderr_of(&run(&["fit", "-d", d, "-o", m, "--force", "-m", "knpl"]));
    assert!(
        err.contains("does not fit in memory") && err.contains("cannot keep it sparse"),
        "{err}"
    );
    assert!(!err.contains("kept sparse"), "{err}");
    // The grid search and a weight file keep it sparse too.
    let weights = dir.join("w.txt");
    std::fs::write(&weights, "1\n".repeat(40)).unwrap();
    let out = run(&[
        "fit",
        "-d",
        d,
        "-o",
        m,
        "--force",
        "--select",
        "grid",
        "--sigmas",
        "1,2",
        "--cs",
        "1,4",
        "--weight-file",
        weights.to_str().unwrap(),
        "--json",
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("kept sparse"));
    let fit = json_of(&out);
    assert_eq!(fit["n_features"], 1u64 << 32);
    assert!(
        [1.0, 2.0].contains(&fit["selected"]["sigma"].as_f64().unwrap()),
        "{fit}"
    );
    // `select` searches it sparse too, and picks what `fit --select grid` picked.
    let out = run(&[
        "select", "-d", d, "--sigmas", "1,2", "--cs", "1,4", "--json",
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("kept sparse"));
    let sel = json_of(&out);
    assert_eq!(sel["n_train"], 40);
    assert_eq!(sel["grid"].as_array().map(Vec::len), Some(4), "{sel}");
    assert_eq!(sel["selected"]["sigma"], fit["selected"]["sigma"]);
    // So does `evaluate`, on a split and on a separate test file.
    for extra in [&[][..], &["--test", d][..]] {
        let mut args = vec!["evaluate", "-d", d, "--gamma", "0.5", "-c", "4", "--json"];
        args.extend(extra);
        let out = run(&args);
        assert!(String::from_utf8_lossy(&out.stderr).contains("kept sparse"));
        let eval = json_of(&out);
        assert_eq!(eval["n_features"], 1u64 << 32, "{eval}");
        assert_eq!(eval["test_accuracy"], 1.0, "{eval}");
        assert_eq!(eval["n_test"], if extra.is_empty() { 8 } else { 40 });
    }
}

/// `--select grid` on sparse rows picks what the dense search picks on the same data,
/// with the same CV score; `--weight-file` weights it as it weights a dense fit.
#[test]
fn sparse_grid_search_and_weights_equal_the_dense_ones() {
    let dir = scratch_dir("sparse", "grid");
    let (text, n) = heart_libsvm();
    let data = dir.join("heart.libsvm");
    std::fs::write(&data, text).unwrap();
    let weights = dir.join("w.txt");
    let w: String = (0..n).map(|i| format!("{}\n", 1 + i % 3)).collect();
    std::fs::write(&weights, w).unwrap();
    let d = data.to_str().unwrap();
    let (ms, md) = (dir.join("s.json"), dir.join("d.json"));
    let (ms, md) = (ms.to_str().unwrap(), md.to_str().unwrap());
    for weighted in [false, true] {
        let fit = |model: &str, sparse: bool| {
            let mut args = vec!["fit", "-d", d, "-o", model, "--force", "--json"];
            args.extend(["--select", "grid", "--scale", "maxabs"]);
            if sparse {
                args.push("--sparse");
            }
            if weighted {
                args.extend(["--weight-file", weights.to_str().unwrap()]);
            }
            json_of(&run(&args))
        };
        let (sparse, dense) = (fit(ms, true), fit(md, false));
        assert_eq!(sparse["chosen"], dense["chosen"], "weighted {weighted}");
        assert_eq!(
            sparse["n_support"], dense["n_support"],
            "weighted {weighted}"
        );
        assert_eq!(sparse["train_accuracy"], dense["train_accuracy"]);
        let (a, b) = (&sparse["selected"], &dense["selected"]);
        assert_eq!((&a["sigma"], &a["c"]), (&b["sigma"], &b["c"]));
        let score = |v: &serde_json::Value| v["cv_score"].as_f64().unwrap();
        assert!((score(a) - score(b)).abs() < 1e-9, "{a} vs {b}");
        // `select` takes the weight file too, and picks what `fit --select grid` picks.
        let mut args = vec!["select", "-d", d, "--scale", "maxabs", "--json"];
        if weighted {
            args.extend(["--weight-file", weights.to_str().unwrap()]);
        }
        let sel = json_of(&run(&args));
        assert_eq!(sel["selected"], dense["selected"], "weighted {weighted}");
    }
}
