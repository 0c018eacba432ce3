//! The `kernlearn` binary end to end: the demo, fit → predict, evaluate, JSON fields, and
//! the errors a user meets with bad input.

mod common;

use common::{fixture, json_of, repo, run, stderr_of};
use std::path::PathBuf;

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    common::scratch_dir("kernlearn-cli", name)
}

#[test]
fn demo_runs_without_arguments() {
    let out = run(&[]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for name in ["heart", "sonar", "ionosphere", "wine", "housing"] {
        assert!(text.contains(name), "{text}");
    }
}

#[test]
fn fit_then_predict_matches_libsvm_accuracy() {
    let dir = scratch("fitpredict");
    let model = dir.join("m.json").display().to_string();
    let fit = json_of(&run(&[
        "fit",
        "--data",
        &fixture("heart.train.libsvm"),
        "--scale",
        "none",
        "--gamma",
        "0.10000000149011612",
        "--tol",
        "0.0010000000474974513",
        "--model-out",
        &model,
        "--json",
    ]));
    for key in [
        "method",
        "n_train",
        "train_accuracy",
        "fit_seconds",
        "n_support",
        "objective",
        "params",
    ] {
        assert!(fit.get(key).is_some(), "fit --json lacks {key}: {fit}");
    }
    assert_eq!(fit["n_support"], 81);
    let pred_file = dir.join("pred.csv").display().to_string();
    let pred = json_of(&run(&[
        "predict",
        "--model",
        &model,
        "--data",
        &fixture("heart.test.libsvm"),
        "--json",
        "--output",
        &pred_file,
        "--decision-values",
    ]));
    // LIBSVM: 79.2593% (107/135).
    assert_eq!(pred["test_accuracy"].as_f64().unwrap(), 107.0 / 135.0);
    assert!(pred["predict_seconds"].as_f64().is_some());
    let lines = std::fs::read_to_string(&pred_file).unwrap();
    // Decision columns are named by their class pair (LIBSVM order: +1 first).
    assert!(
        lines.starts_with("prediction,decision_1_vs_-1\n"),
        "{lines}"
    );
    assert_eq!(lines.lines().count(), 136);
    // An existing model is not replaced without --force.
    let e = stderr_of(&run(&[
        "fit",
        "--data",
        &fixture("heart.train.csv"),
        "--model-out",
        &model,
    ]));
    assert!(e.contains("--force"), "{e}");
    // An output that is one of the inputs is refused even with --force.
    let e = stderr_of(&run(&[
        "predict",
        "--model",
        &model,
        "--data",
        &fixture("heart.test.libsvm"),
        "--output",
        &fixture("heart.test.libsvm"),
        "--force",
    ]));
    assert!(e.contains("refusing"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn evaluate_reports_classification_and_regression_scores() {
    let out = json_of(&run(&[
        "evaluate",
        "--data",
        &fixture("wine.train.csv"),
        "--test",
        &fixture("wine.test.csv"),
        "--scale",
        "none",
        "-c",
        "2",
        "--gamma",
        "0.20000000298023224",
        "--json",
    ]));
    for key in [
        "n_train",
        "n_test",
        "train_accuracy",
        "test_accuracy",
        "fit_seconds",
        "predict_seconds",
        "n_support",
    ] {
        assert!(out.get(key).is_some(), "evaluate --json lacks {key}");
    }
    // LIBSVM: 96.6292% (86/89).
    assert_eq!(out["test_accuracy"].as_f64().unwrap(), 86.0 / 89.0);
    let reg = json_of(&run(&[
        "evaluate",
        "--data",
        &repo().join("data/housing.csv").display().to_string(),
        "--test-fraction",
        "0.3",
        "-c",
        "10",
        "--json",
    ]));
    assert_eq!(reg["method"], "epsilon-svr");
    for key in ["train_mse", "test_mse", "test_rse"] {
        assert!(reg[key].as_f64().is_some(), "lacks {key}");
    }
    assert!(reg["test_rse"].as_f64().unwrap() < 0.5);
}

#[test]
fn bad_files_get_errors_naming_line_and_column() {
    let dir = scratch("badfiles");
    let cases = [
        ("empty.csv", "", "empty"),
        ("ragged.csv", "a,b,label\n1,2,1\n3,1\n", ":3"),
        ("text.csv", "a,b,label\n1,2,1\n3,x,-1\n", ":3:2"),
        ("nan.csv", "a,b,label\n1,2,1\n3,nan,-1\n", "non-finite"),
        (
            "oneclass.csv",
            "a,b,label\n1,2,1\n3,4,1\n",
            "only one class",
        ),
    ];
    for (name, text, expect) in cases {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let model = dir.join("m.json").display().to_string();
        let e = stderr_of(&run(&[
            "fit",
            "--data",
            &path.display().to_string(),
            "--model-out",
            &model,
            "--force",
        ]));
        assert!(e.contains(expect), "{name}: expected `{expect}` in: {e}");
    }
    let e = stderr_of(&run(&[
        "evaluate",
        "--data",
        &fixture("heart.train.csv"),
        "-c",
        "0",
    ]));
    assert!(e.contains("`C`"), "{e}");
    let e = stderr_of(&run(&[
        "evaluate",
        "--data",
        &fixture("heart.train.csv"),
        "--sigma",
        "-1",
    ]));
    assert!(e.contains("sigma"), "{e}");
    let e = stderr_of(&run(&[
        "evaluate",
        "--data",
        &fixture("heart.train.csv"),
        "--test-fraction",
        "1.5",
    ]));
    assert!(e.contains("test fraction"), "{e}");
    // Feature count at predict time differs from fit time.
    let model = dir.join("m.json").display().to_string();
    json_of(&run(&[
        "fit",
        "--data",
        &fixture("heart.train.csv"),
        "--model-out",
        &model,
        "--force",
        "--json",
    ]));
    let e = stderr_of(&run(&[
        "predict",
        "--model",
        &model,
        "--data",
        &fixture("sonar.test.csv"),
    ]));
    assert!(e.contains("fitted on 13 features, input has 60"), "{e}");
    let e = stderr_of(&run(&[
        "predict",
        "--model",
        &fixture("heart.train.csv"),
        "--data",
        &fixture("heart.test.csv"),
    ]));
    assert!(e.contains("not a kernlearn model"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn mkl_methods_fit_predict_and_report_kernel_weights() {
    let dir = scratch("mkl");
    for method in ["uniform", "mwumkl", "easymkl", "nystrom-linear"] {
        let model = dir.join(format!("{method}.json")).display().to_string();
        // EasyMKL's trade-off is λ, not C: `-c` would be refused.
        let trade_off = if method == "easymkl" {
            ["--lambda", "0.1"]
        } else {
            ["-c", "4"]
        };
        let common = [
            "--method",
            method,
            "--kernels",
            "family12@all;rbf(sigma=1)@[0,1]",
            trade_off[0],
            trade_off[1],
        ];
        let fit = json_of(&run(&[
            &[
                "fit",
                "--data",
                &fixture("heart.train.csv"),
                "--model-out",
                &model,
                "--json",
            ][..],
            &common[..],
        ]
        .concat()));
        assert_eq!(fit["method"], method);
        if method != "nystrom-linear" {
            let weights = fit["details"]["weights"][0].as_array().unwrap();
            assert_eq!(weights.len(), 13, "{method}");
            let w: Vec<f64> = weights.iter().map(|v| v.as_f64().unwrap()).collect();
            assert!(w.iter().all(|&v| v >= 0.0), "{method}: {w:?}");
            assert!(
                (w.iter().sum::<f64>() - 1.0).abs() < 1e-9,
                "{method}: {w:?}"
            );
        }
        let acc = saved_model_matches_evaluate(&model, &common, method);
        assert!(acc > 0.7, "{method}: test accuracy {acc}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn localized_methods_fit_save_load_predict() {
    let dir = scratch("localized");
    let runs = [
        ("ldmkl", "smo"),
        ("ldmkl", "mwu"),
        ("swmkl", "smo"),
        ("lmkl", "smo"),
        ("clmkl", "mwu"),
    ];
    for (method, solver) in runs {
        let model = dir
            .join(format!("{method}-{solver}.json"))
            .display()
            .to_string();
        let common = ["--method", method, "--solver", solver];
        let fit = json_of(&run(&[
            &[
                "fit",
                "--data",
                &fixture("heart.train.csv"),
                "--model-out",
                &model,
                "--json",
            ][..],
            &common[..],
        ]
        .concat()));
        assert_eq!(fit["method"], method);
        let percent = fit["details"]["support_percent"].as_f64().unwrap();
        assert!(percent > 0.0 && percent <= 100.0, "{method}: {percent}");
        let acc = saved_model_matches_evaluate(&model, &common, method);
        assert!(acc > 0.7, "{method} ({solver}): test accuracy {acc}");
    }
    let data = fixture("heart.train.csv");
    let e = stderr_of(&run(&[
        "evaluate",
        "--data",
        &data,
        "--method",
        "ldmkl",
        "--kernels",
        "rbf(sigma=1)@all",
    ]));
    assert!(e.contains("needs at least two, got 1"), "{e}");
    let e = stderr_of(&run(&[
        "evaluate", "--data", &data, "--method", "lmkl", "--solver", "newton",
    ]));
    assert!(e.contains("solver") && e.contains("smo, mwu"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--method hyperkernel` fits, saves the learned kernel with the model, reloads and
/// predicts as `evaluate` does; bad λ_h names the option.
#[test]
fn hyperkernel_fits_saves_and_predicts() {
    let dir = scratch("hyperkernel");
    for problem in ["c-svm", "kta"] {
        let model = dir.join(format!("hk-{problem}.json")).display().to_string();
        let common = ["--method", "hyperkernel", "--problem", problem];
        let fit = json_of(&run(&[
            &[
                "fit",
                "--data",
                &fixture("heart.train.csv"),
                "--model-out",
                &model,
                "--json",
            ][..],
            &common[..],
        ]
        .concat()));
        assert_eq!(fit["method"], "hyperkernel");
        let saved = std::fs::read_to_string(&model).unwrap();
        assert!(saved.contains("\"beta\"") && saved.contains("\"hyperkernel\""));
        let acc = saved_model_matches_evaluate(&model, &common, problem);
        assert!(acc > 0.7, "{problem}: test accuracy {acc}");
    }
    let data = fixture("heart.train.csv");
    let e = stderr_of(&run(&[
        "evaluate",
        "--data",
        &data,
        "--method",
        "hyperkernel",
        "--lambda-h",
        "1",
    ]));
    assert!(e.contains("lambda-h") && e.contains("(0, 1)"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn gate_figure_is_written() {
    let dir = scratch("gates");
    let png = dir.join("gates.png").display().to_string();
    let out = json_of(&run(&[
        "figure",
        "--gates",
        "ldmkl",
        "--synthetic",
        "clowns",
        "--n",
        "120",
        "-o",
        &png,
        "--json",
    ]));
    assert!(std::fs::metadata(&png).unwrap().len() > 1000);
    let percent = out["support_percent"].as_f64().unwrap();
    assert!(percent > 0.0 && percent <= 100.0, "{out}");
    let e = stderr_of(&run(&["figure", "--gates", "svm", "-o", &png, "--force"]));
    assert!(e.contains("not a localized method"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `figure --gates` alone: LMKL with a linear and a Gaussian kernel on clowns, whose
/// gates span the whole of [0, 1] over the plane; the SVG has the colour bar's label,
/// the legend and the per-kernel ranges. Gates that do not vary are reported as uniform,
/// on stderr, in the JSON and in the figure's subtitle.
#[test]
fn gate_figure_shows_where_kernels_are_used_or_says_uniform() {
    let dir = scratch("gates-default");
    let svg = dir.join("gates.svg");
    let out = run(&["figure", "--gates", "-o", svg.to_str().unwrap(), "--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json = json_of(&out);
    assert_eq!(json["method"], "LMKL", "{json}");
    assert_eq!(json["synthetic"], "clowns", "{json}");
    assert_eq!(json["gates_uniform"], false, "{json}");
    assert!(!stderr.contains("uniform"), "{stderr}");
    let gates = json["gates"].as_array().unwrap();
    assert_eq!(gates.len(), 2);
    assert_eq!(gates[0]["kernel"], "linear");
    for g in gates {
        let (lo, hi) = (g["min"].as_f64().unwrap(), g["max"].as_f64().unwrap());
        assert!(lo < 0.05 && hi > 0.95, "{g}");
    }
    let text = std::fs::read_to_string(&svg).unwrap();
    for want in [
        "Where LMKL uses each kernel",
        "gate: share of the kernel at x (white = 1/2 = 0.5)",
        "support point, class +1",
        "support point, class −1",
        "LMKL decision boundary",
        "gate of kernel 1: linear",
        "x₁",
    ] {
        assert!(text.contains(want), "`{want}` missing");
    }
    assert!(!text.contains("uniform"));

    let svg = dir.join("uniform.svg");
    let out = run(&[
        "figure",
        "--gates",
        "ldmkl",
        "--kernels",
        "rbf(sigma=0.3)@all;rbf(sigma=3)@all",
        "-o",
        svg.to_str().unwrap(),
        "--json",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json = json_of(&out);
    assert_eq!(json["gates_uniform"], true, "{json}");
    assert!(
        stderr.contains("warning: the gates are uniform over the plane for this data"),
        "{stderr}"
    );
    assert!(
        json["warnings"][0]
            .as_str()
            .unwrap()
            .contains("no locality"),
        "{json}"
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("the gates are uniform over the plane for this data"));
    // Without --json, the same warning and one line per kernel on stdout.
    let out = run(&[
        "figure",
        "--gates",
        "ldmkl",
        "--kernels",
        "rbf(sigma=0.3)@all;rbf(sigma=3)@all",
        "-o",
        svg.to_str().unwrap(),
        "--force",
    ]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("gate of kernel 2"), "{stdout}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("uniform"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// KNPL's fit on heart (γ = γ₀) by Algorithm 2 as published (`--knpl-alternate`)
/// alternates between two states for all 10 rounds: the command line says so, on stderr
/// and in the JSON `warnings`. The default monotone ascent has no 2-cycle.
#[test]
fn knpl_oscillation_is_a_warning() {
    let dir = scratch("knpl-warn");
    let ascent = run(&[
        "fit",
        "--data",
        &fixture("heart.train.csv"),
        "--method",
        "knpl",
        "--model-out",
        dir.join("k0.json").to_str().unwrap(),
        "--json",
    ]);
    assert!(!String::from_utf8_lossy(&ascent.stderr).contains("2-cycle"));
    let out = run(&[
        "fit",
        "--data",
        &fixture("heart.train.csv"),
        "--method",
        "knpl",
        "--knpl-alternate",
        "--model-out",
        dir.join("k.json").to_str().unwrap(),
        "--trace",
        dir.join("k.csv").to_str().unwrap(),
        "--json",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json = json_of(&out);
    assert!(
        stderr.contains("warning: KNPL's alternation did not converge in 10 outer rounds"),
        "{stderr}"
    );
    let w = json["warnings"].as_array().expect("warnings");
    assert!(w[0].as_str().unwrap().contains("2-cycle"), "{json}");
    assert!(dir.join("k-objective.png").exists());
    // A large γ keeps G at 11ᵀ: no warning.
    let out = run(&[
        "fit",
        "--data",
        &fixture("heart.train.csv"),
        "--method",
        "knpl",
        "--knpl-gamma",
        "10000",
        "--model-out",
        dir.join("k2.json").to_str().unwrap(),
        "--json",
    ]);
    let json = json_of(&out);
    assert!(json.get("warnings").is_none(), "{json}");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("KNPL"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn mkl_bad_input_gets_clear_errors() {
    let data = fixture("heart.train.csv");
    let e = stderr_of(&run(&[
        "evaluate",
        "--data",
        &data,
        "--method",
        "uniform",
        "--kernels",
        "rbf(sigma=2)@all;bogus@each",
    ]));
    assert!(e.contains("column 18") && e.contains("bogus"), "{e}");
    let e = stderr_of(&run(&[
        "evaluate",
        "--data",
        &data,
        "--method",
        "uniform",
        "--kernels",
        "",
    ]));
    assert!(e.contains("kernels"), "{e}");
    let e = stderr_of(&run(&[
        "evaluate",
        "--data",
        &data,
        "--method",
        "mwumkl",
        "--mwu-epsilon",
        "0",
    ]));
    assert!(e.contains("epsilon") && e.contains("> 0"), "{e}");
    let e = stderr_of(&run(&[
        "evaluate", "--data", &data, "--method", "easymkl", "--lambda", "1.5",
    ]));
    assert!(e.contains("lambda"), "{e}");
}

fn is_png(path: &std::path::Path) -> bool {
    std::fs::read(path).is_ok_and(|b| b.starts_with(b"\x89PNG"))
}

#[test]
fn figure_and_trace_plots_are_written() {
    let dir = scratch("figure");
    let fig = dir.join("boundaries.png");
    let out = json_of(&run(&[
        "figure",
        "--synthetic",
        "clowns",
        "--n",
        "60",
        "--out",
        fig.to_str().unwrap(),
        "--json",
    ]));
    assert!(is_png(&fig));
    for name in ["SVM-CV", "KNPL", "DANK"] {
        let acc = out[name]["test_accuracy"].as_f64().unwrap();
        assert!(acc > 0.7, "{name}: {acc}");
    }
    // The learned F of DANK is reported and brackets 1 (F = 11ᵀ + a PSD perturbation).
    assert!(out["DANK"]["learned_min"].as_f64().unwrap() <= 1.0 + 1e-9);
    // An existing figure is kept without --force.
    let e = stderr_of(&run(&[
        "figure",
        "--n",
        "60",
        "--out",
        fig.to_str().unwrap(),
    ]));
    assert!(e.contains("--force"), "{e}");
    // An unknown toy set and an empty sample are named in the error.
    let other = dir.join("other.png");
    let e = stderr_of(&run(&[
        "figure",
        "--synthetic",
        "spirals",
        "--out",
        other.to_str().unwrap(),
    ]));
    assert!(e.contains("spirals"), "{e}");
    let e = stderr_of(&run(&[
        "figure",
        "--n",
        "0",
        "--out",
        other.to_str().unwrap(),
    ]));
    assert!(e.contains("`n`") && !other.exists(), "{e}");

    let csv = dir.join("dank.csv");
    let fit = json_of(&run(&[
        "fit",
        "--data",
        &fixture("heart.train.csv"),
        "--method",
        "dank",
        "--sigma",
        "2",
        "--trace",
        csv.to_str().unwrap(),
        "--model-out",
        dir.join("d.json").to_str().unwrap(),
        "--json",
    ]));
    assert!(std::fs::read_to_string(&csv)
        .unwrap()
        .starts_with("iter,objective,diff"));
    for p in fit["trace_plots"].as_array().unwrap() {
        assert!(is_png(std::path::Path::new(p.as_str().unwrap())), "{p}");
    }
    // KNPL: the ascent (exact G-steps, no ADMM rows) and Algorithm 2 (ADMM rows) both
    // draw their two plots; a large γ, where no step of the ascent gains, too.
    for (name, extra) in [
        ("ascent", vec![]),
        ("alternate", vec!["--knpl-alternate"]),
        ("flat", vec!["--knpl-gamma", "1e9"]),
    ] {
        let csv = dir.join(format!("knpl-{name}.csv"));
        let data = fixture("heart.train.csv");
        let mut args = vec!["fit", "--data", &data];
        args.extend([
            "--method",
            "knpl",
            "--sigma",
            "2",
            "--trace",
            csv.to_str().unwrap(),
        ]);
        let model = dir.join(format!("k-{name}.json"));
        args.extend(["--model-out", model.to_str().unwrap(), "--json"]);
        args.extend(extra);
        let fit = json_of(&run(&args));
        let admm_rows = std::fs::read_to_string(&csv)
            .unwrap()
            .lines()
            .skip(1)
            .filter(|l| l.split(',').nth(2) != Some("0"))
            .count();
        assert_eq!(admm_rows > 0, name == "alternate", "{name}: {admm_rows}");
        for p in fit["trace_plots"].as_array().unwrap() {
            assert!(
                is_png(std::path::Path::new(p.as_str().unwrap())),
                "{name}: {p}"
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn dank_scalable_fits_predicts_and_evaluates() {
    let dir = scratch("dankscalable");
    let model = dir.join("m.json").display().to_string();
    let fit = json_of(&run(&[
        "fit",
        "--data",
        &fixture("heart.train.csv"),
        "--method",
        "dank-scalable",
        "--clusters",
        "2",
        "--sigma",
        "2",
        "--model-out",
        &model,
        "--json",
    ]));
    assert_eq!(fit["method"], "dank-scalable", "{fit}");
    assert_eq!(fit["chosen"]["other"]["clusters"], 2.0, "{fit}");
    assert!(fit["train_accuracy"].as_f64().unwrap() > 0.8, "{fit}");
    let pred = json_of(&run(&[
        "predict",
        "--model",
        &model,
        "--data",
        &fixture("heart.test.csv"),
        "--json",
    ]));
    assert!(pred["test_accuracy"].as_f64().unwrap() > 0.7, "{pred}");
    let out = json_of(&run(&[
        "evaluate",
        "--data",
        &fixture("heart.train.csv"),
        "--test",
        &fixture("heart.test.csv"),
        "--method",
        "dank-scalable",
        "--clusters",
        "3",
        "--json",
    ]));
    assert_eq!(out["method"], "dank-scalable", "{out}");
    assert!(out["test_accuracy"].as_f64().unwrap() > 0.7, "{out}");
    // Default cluster count: max(1, round(n / 1000)) = 1 on this small set.
    let one = json_of(&run(&[
        "evaluate",
        "--data",
        &fixture("heart.train.csv"),
        "--test",
        &fixture("heart.test.csv"),
        "--method",
        "dank-scalable",
        "--json",
    ]));
    assert_eq!(one["chosen"]["other"]["clusters"], 1.0, "{one}");
    for (clusters, expect) in [("0", "clusters"), ("100000", "clusters")] {
        let e = stderr_of(&run(&[
            "evaluate",
            "--data",
            &fixture("heart.train.csv"),
            "--method",
            "dank-scalable",
            "--clusters",
            clusters,
        ]));
        assert!(e.contains(expect), "{e}");
    }
    let e = stderr_of(&run(&[
        "evaluate",
        "--data",
        &repo().join("data/wine.csv").display().to_string(),
        "--method",
        "dank-scalable",
    ]));
    assert!(e.contains("binary"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every `kernlearn …` line of the README names options the CLI has: clap rejects an
/// unknown option where it meets it, before the trailing `--help` prints the help.
#[test]
fn readme_commands_use_existing_options() {
    let readme = std::fs::read_to_string(common::repo().join("README.md")).unwrap();
    let mut checked = 0;
    for line in readme.lines().map(str::trim) {
        let words = common::shell_words(line);
        if words.first().map(String::as_str) != Some("kernlearn") || words.len() < 2 {
            continue;
        }
        let mut args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
        args.push("--help");
        let out = common::run(&args);
        assert!(
            out.status.success(),
            "README line `{line}`: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} README commands found");
}

/// The saved `model` predicts heart's test half exactly as `evaluate` with the same
/// options (`common`) measured it; returns that test accuracy.
fn saved_model_matches_evaluate(model: &str, common: &[&str], label: &str) -> f64 {
    let pred = json_of(&run(&[
        "predict",
        "--model",
        model,
        "--data",
        &fixture("heart.test.csv"),
        "--json",
    ]));
    let eval = json_of(&run(&[
        &[
            "evaluate",
            "--data",
            &fixture("heart.train.csv"),
            "--test",
            &fixture("heart.test.csv"),
            "--json",
        ][..],
        common,
    ]
    .concat()));
    let acc = pred["test_accuracy"].as_f64().unwrap();
    assert_eq!(acc, eval["test_accuracy"].as_f64().unwrap(), "{label}");
    acc
}

/// An unknown DANK solver is named with the ones that exist.
#[test]
fn unknown_dank_scheme_is_a_clear_error() {
    let dir = scratch("dank-scheme");
    let model = dir.join("m.json").display().to_string();
    let e = stderr_of(&run(&[
        "fit",
        "--data",
        &fixture("heart.train.csv"),
        "--method",
        "dank",
        "--dank-scheme",
        "bogus",
        "--model-out",
        &model,
    ]));
    assert!(
        e.contains("dank-scheme") && e.contains("newton, nesterov, monotone, plain"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The README's method table is the one the library's catalogue generates.
#[test]
fn readme_method_table_is_generated_from_the_catalogue() {
    let readme = std::fs::read_to_string(common::repo().join("README.md")).unwrap();
    let begin = readme
        .find("<!-- methods:begin -->\n")
        .expect("begin marker");
    let end = readme.find("<!-- methods:end -->").expect("end marker");
    let in_readme = &readme[begin + "<!-- methods:begin -->\n".len()..end];
    let out = run(&["methods", "--markdown"]);
    assert!(out.status.success());
    assert_eq!(
        in_readme,
        String::from_utf8_lossy(&out.stdout),
        "regenerate with `kernlearn methods --markdown`"
    );
}

/// Options a method does not read are refused, naming the option and its readers.
#[test]
fn options_a_method_ignores_are_refused() {
    let data = common::repo().join("data/heart.csv").display().to_string();
    for (method, option, value) in [
        ("mwumkl", "--tau", "0.1"),
        ("svc", "--lambda", "0.5"),
        ("dank", "--kernels", "linear@all"),
        ("easymkl", "-c", "2"),
        ("ldmkl", "--lkl-epsilon", "0.05"),
    ] {
        let e = stderr_of(&run(&[
            "evaluate", "--data", &data, "--method", method, option, value,
        ]));
        let name = option.trim_start_matches('-');
        assert!(
            e.contains(&format!("`{name}`")) && e.contains("does not apply")
                || e.contains("does not apply with --solver smo"),
            "{method} {option}: {e}"
        );
    }
}

#[test]
fn dkmo_draws_its_fused_representation_and_other_models_refuse() {
    let dir = scratch("fused");
    let model = dir.join("dkmo.json");
    let test = fixture("heart.test.csv");
    json_of(&run(&[
        "fit",
        "--data",
        &fixture("heart.train.csv"),
        "--method",
        "dkmo",
        "--dkmo-hidden",
        "8",
        "--landmarks",
        "10",
        "--epochs",
        "5",
        "--scale",
        "standard",
        "--model-out",
        model.to_str().unwrap(),
        "--json",
    ]));
    let fused_plot = |model: &std::path::Path, image: &std::path::Path| {
        run(&[
            "predict",
            "--model",
            model.to_str().unwrap(),
            "--data",
            &test,
            "--fused-plot",
            image.to_str().unwrap(),
            "--json",
        ])
    };
    let fig = dir.join("fused.png");
    let out = json_of(&fused_plot(&model, &fig));
    assert!(is_png(&fig));
    let explained: Vec<f64> = out["fused_explained_variance"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert!(explained[0] >= explained[1] && explained[0] + explained[1] <= 1.0 + 1e-9);
    // An existing image is kept without --force.
    let e = stderr_of(&fused_plot(&model, &fig));
    assert!(e.contains("--force"), "{e}");
    // A model without a fused representation names the option and writes nothing.
    let svm = dir.join("svm.json");
    json_of(&run(&[
        "fit",
        "--data",
        &fixture("heart.train.csv"),
        "--model-out",
        svm.to_str().unwrap(),
        "--json",
    ]));
    let other = dir.join("other.png");
    let e = stderr_of(&fused_plot(&svm, &other));
    assert!(
        e.contains("fused-plot") && e.contains("dkmo") && !other.exists(),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Per-sample weights from a column or a file give the same model; weights of 1 give the
/// unweighted model; a learned-kernel method refuses weights with a clear error.
#[test]
fn fit_takes_sample_weights_from_a_column_or_a_file() {
    let dir = scratch("weights");
    let text = std::fs::read_to_string(fixture("wine.train.csv")).unwrap();
    let (mut with_column, mut weights, mut ones) = (String::new(), String::new(), String::new());
    for (i, line) in text.lines().enumerate() {
        let w = if i == 0 {
            "w".to_string()
        } else {
            format!("{}", 0.5 + (i % 4) as f64)
        };
        with_column.push_str(&format!("{w},{line}\n"));
        if i > 0 {
            weights.push_str(&format!("{w}\n"));
            ones.push_str("1\n");
        }
    }
    let column_csv = dir.join("wine_w.csv");
    let (weight_file, ones_file) = (dir.join("w.txt"), dir.join("ones.txt"));
    std::fs::write(&column_csv, with_column).unwrap();
    std::fs::write(&weight_file, weights).unwrap();
    std::fs::write(&ones_file, ones).unwrap();
    let fit = |extra: &[&str]| {
        let model = dir.join("m.json").display().to_string();
        let mut args = vec!["fit", "--json", "--force", "--scale", "none", "-o", &model];
        args.extend_from_slice(extra);
        let out = run(&args);
        assert!(out.status.success(), "{}", stderr_of(&out));
        let v = json_of(&out);
        (v["n_support"].clone(), v["objective"].clone())
    };
    let wine = fixture("wine.train.csv");
    let column = column_csv.display().to_string();
    let (wf, of) = (
        weight_file.display().to_string(),
        ones_file.display().to_string(),
    );
    let by_column = fit(&["--data", &column, "--weight-column", "w"]);
    let by_file = fit(&["--data", &wine, "--weight-file", &wf]);
    assert_eq!(by_column, by_file);
    assert_eq!(
        fit(&["--data", &wine, "--weight-file", &of]),
        fit(&["--data", &wine])
    );
    assert_ne!(by_file, fit(&["--data", &wine]));
    let model = dir.join("k.json").display().to_string();
    let out = run(&[
        "fit",
        "--data",
        &wine,
        "--method",
        "knpl",
        "--weight-file",
        &wf,
        "-o",
        &model,
    ]);
    assert!(!out.status.success());
    assert!(
        stderr_of(&out).contains("cannot honour per-sample weights"),
        "{}",
        stderr_of(&out)
    );
    let out = run(&[
        "fit",
        "--data",
        &wine,
        "--weight-column",
        "nope",
        "-o",
        &model,
    ]);
    assert!(
        stderr_of(&out).contains("no feature column `nope`"),
        "{}",
        stderr_of(&out)
    );
    std::fs::write(&ones_file, "1\n2\n").unwrap();
    let out = run(&["fit", "--data", &wine, "--weight-file", &of, "-o", &model]);
    assert!(
        stderr_of(&out).contains("has 2 weights"),
        "{}",
        stderr_of(&out)
    );
}

/// `generate` writes a seeded stand-in that the other commands read: the same seed gives
/// the same file, `fit` learns it, an unknown shape names the known ones, and an existing
/// file is kept without `--force`.
#[test]
fn generate_writes_a_stand_in_the_other_commands_read() {
    let dir = scratch("generate");
    let csv = dir.join("cod.csv");
    let path = csv.to_str().unwrap();
    let args = [
        "generate", "--shape", "cod-rna", "--rows", "600", "--seed", "3", "-o", path,
    ];
    assert!(run(&args).status.success());
    let first = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(first.lines().count(), 601);
    assert!(first.starts_with("x1,x2,x3,x4,x5,x6,x7,x8,label\n"));
    let again = run(&args);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    let forced: Vec<&str> = args.iter().copied().chain(["--force"]).collect();
    assert!(run(&forced).status.success());
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), first);
    let model = dir.join("m.json");
    let fit = run(&[
        "fit",
        "-d",
        path,
        "-o",
        model.to_str().unwrap(),
        "--scale",
        "standard",
        "-c",
        "4",
        "--gamma",
        "0.25",
        "--json",
    ]);
    assert!(
        fit.status.success(),
        "{}",
        String::from_utf8_lossy(&fit.stderr)
    );
    let out: serde_json::Value = serde_json::from_slice(&fit.stdout).unwrap();
    assert!(out["train_accuracy"].as_f64().unwrap() > 0.8, "{out}");
    let none = run(&[
        "generate", "--shape", "ijcnn1", "--rows", "0", "-o", path, "--force",
    ]);
    assert!(String::from_utf8_lossy(&none.stderr).contains("`rows`"));
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), first);
    let unknown = run(&["generate", "--shape", "mnist", "-o", path, "--force"]);
    let err = String::from_utf8_lossy(&unknown.stderr);
    assert!(err.contains("covtype") && err.contains("ijcnn1"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
