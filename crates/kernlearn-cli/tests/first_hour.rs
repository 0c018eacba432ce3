//! What a new user does in the first hour: save a tuned model, read predictions from
//! standard output, predict on a file whose columns are in another order.

mod common;

use common::{fixture, json_of, repo, run, stderr_of};
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    common::scratch_dir("kernlearn-hour", name)
}

/// `fit --select grid` saves the model `evaluate --select grid` scores, and `evaluate` /
/// `select --model-out` save the same model.
#[test]
fn a_tuned_model_is_saved_and_predicts_as_evaluate_reported() {
    let dir = scratch("tuned");
    let grid = ["--select", "grid", "--sigmas", "1,2,4", "--cs", "0.5,2,8"];
    let fitted = dir.join("fit.json").display().to_string();
    let evaluated = dir.join("evaluate.json").display().to_string();
    let fit = json_of(&run(&[
        &[
            "fit",
            "-d",
            &fixture("heart.train.csv"),
            "-o",
            &fitted,
            "--json",
        ][..],
        &grid[..],
    ]
    .concat()));
    assert!(fit["selected"]["sigma"].as_f64().is_some(), "{fit}");
    let eval = json_of(&run(&[
        &[
            "evaluate",
            "-d",
            &fixture("heart.train.csv"),
            "--test",
            &fixture("heart.test.csv"),
            "--model-out",
            &evaluated,
            "--json",
        ][..],
        &grid[..],
    ]
    .concat()));
    assert_eq!(fit["selected"], eval["selected"]);
    for model in [&fitted, &evaluated] {
        let pred = json_of(&run(&[
            "predict",
            "--model",
            model,
            "-d",
            &fixture("heart.test.csv"),
            "--json",
        ]));
        assert_eq!(pred["test_accuracy"], eval["test_accuracy"], "{model}");
    }
    assert_eq!(
        std::fs::read_to_string(&fitted).unwrap().len(),
        std::fs::read_to_string(&evaluated).unwrap().len()
    );
    let selected = dir.join("select.json").display().to_string();
    let sel = json_of(&run(&[
        &[
            "select",
            "-d",
            &fixture("heart.train.csv"),
            "--model-out",
            &selected,
            "--json",
        ][..],
        &grid[2..],
    ]
    .concat()));
    assert_eq!(sel["selected"]["c"], fit["selected"]["c"]);
    assert!(std::path::Path::new(&selected).exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Without `--output` (or with `-o -`), predictions are a CSV on standard output and the
/// scores go to standard error.
#[test]
fn predictions_go_to_standard_output() {
    let dir = scratch("stdout");
    let model = dir.join("m.json").display().to_string();
    json_of(&run(&[
        "fit",
        "-d",
        &fixture("heart.train.csv"),
        "-o",
        &model,
        "--json",
    ]));
    for extra in [&[][..], &["-o", "-"][..]] {
        let out = run(&[
            &[
                "predict",
                "--model",
                &model,
                "-d",
                &fixture("heart.test.csv"),
            ][..],
            extra,
        ]
        .concat());
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some("prediction"));
        assert_eq!(lines.count(), 135);
        assert!(String::from_utf8_lossy(&out.stderr).contains("test_accuracy"));
    }
    assert!(
        !dir.join("-").exists(),
        "`-o -` must not create a file named `-`"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Columns are matched by name: reordered columns predict the same, a missing one and an
/// ambiguous label are errors.
#[test]
fn prediction_matches_columns_by_name() {
    let dir = scratch("columns");
    let model = dir.join("m.json").display().to_string();
    json_of(&run(&[
        "fit",
        "-d",
        &fixture("heart.train.csv"),
        "-o",
        &model,
        "--json",
    ]));
    let text = std::fs::read_to_string(fixture("heart.test.csv")).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
    let write = |name: &str, order: &[usize]| {
        let path = dir.join(name);
        let body: String = rows
            .iter()
            .map(|r| order.iter().map(|&i| r[i]).collect::<Vec<_>>().join(",") + "\n")
            .collect();
        std::fs::write(&path, body).unwrap();
        path.display().to_string()
    };
    let n = rows[0].len();
    let mut swapped: Vec<usize> = (0..n).collect();
    swapped.swap(0, 1);
    swapped.swap(2, n - 1); // the label is no longer last either
    let predict = |file: &str| run(&["predict", "--model", &model, "-d", file, "--json"]);
    let straight = json_of(&predict(&fixture("heart.test.csv")));
    let reordered = json_of(&predict(&write("swapped.csv", &swapped)));
    assert_eq!(straight["test_accuracy"], reordered["test_accuracy"]);
    let missing: Vec<usize> = (1..n).collect();
    let e = stderr_of(&predict(&write("missing.csv", &missing)));
    assert!(e.contains("is missing") && e.contains(rows[0][0]), "{e}");
    let doubled: Vec<usize> = (0..n).chain([n - 1]).collect();
    let mut with_extra = rows.clone();
    with_extra[0].push("extra"); // header of the duplicated column
    let path = dir.join("extra.csv");
    let body: String = with_extra
        .iter()
        .map(|r| {
            doubled
                .iter()
                .enumerate()
                .map(|(k, &i)| {
                    if k == n {
                        r.last().unwrap().to_string()
                    } else {
                        r[i].to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join(",")
                + "\n"
        })
        .collect();
    std::fs::write(&path, body).unwrap();
    let e = stderr_of(&predict(&path.display().to_string()));
    assert!(e.contains("cannot tell the label"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every command of the README's `sh` blocks runs as written, in order, from a copy of
/// the repository's `data/` (what a fresh clone has), and exits 0.
#[test]
fn readme_commands_run_as_written() {
    let dir = scratch("readme");
    std::fs::create_dir_all(dir.join("data")).unwrap();
    for f in std::fs::read_dir(repo().join("data")).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, dir.join("data").join(f.file_name().unwrap())).unwrap();
    }
    let commands = common::readme_commands();
    assert!(
        commands.len() >= 25,
        "only {} README commands",
        commands.len()
    );
    for words in commands {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_kernlearn"))
            .args(&words)
            .arg("--quiet")
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "README `kernlearn {}`: {}",
            words.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `fit -h` fits a screen: the base kernel machine's options, one line each; a family's
/// options are listed by `kernlearn methods METHOD` (with their help) and still parse.
#[test]
fn fit_help_fits_a_screen_and_methods_lists_a_family_options() {
    let help = String::from_utf8(run(&["fit", "-h"]).stdout).unwrap();
    let lines = help.lines().count();
    assert!(lines <= 50, "{lines} lines:\n{help}");
    assert!(
        help.contains("--gamma") && help.contains("kernlearn methods"),
        "{help}"
    );
    assert!(
        !help.contains("--mwu-epsilon") && !help.contains("--tau"),
        "{help}"
    );
    let long = String::from_utf8(run(&["fit", "--help"]).stdout).unwrap();
    assert!(!long.contains("--mwu-epsilon"), "{long}");
    let mwu = run(&["methods", "mwumkl"]);
    assert!(mwu.status.success(), "{}", stderr_of(&mwu));
    let text = String::from_utf8(mwu.stdout).unwrap();
    assert!(text.starts_with("mwumkl: MWUMKL"), "{text}");
    assert!(
        text.contains("--mwu-epsilon") && text.contains("0.005"),
        "{text}"
    );
    let out = run(&[
        "evaluate",
        "-d",
        &fixture("heart.train.csv"),
        "--test",
        &fixture("heart.test.csv"),
        "-m",
        "mwumkl",
        "--kernels",
        "rbf(gamma=1)@each",
        "--mwu-epsilon",
        "0.05",
        "--json",
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let unknown = run(&["methods", "no-such-method"]);
    assert!(!unknown.status.success());
    assert!(
        stderr_of(&unknown).contains("mwumkl"),
        "{}",
        stderr_of(&unknown)
    );
}
