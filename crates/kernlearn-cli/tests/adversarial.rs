//! The hostile new user's inputs, one case per group of the hardening issue: each must
//! end with a clear error (exit status ≠ 0, the cause and the option or path named),
//! never a Rust panic, and must leave every file that existed before unchanged.

mod common;

use common::{repo, run};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A scratch directory with copies of the inputs the cases use.
fn workspace(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kernlearn-adv-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    for f in ["heart.csv", "housing.csv"] {
        std::fs::copy(repo().join("data").join(f), d.join(f)).unwrap();
    }
    std::fs::write(d.join("fam.json"), r#"{"kernels":[{"kernel":"linear","features":"all"},{"kernel":{"rbf":{"gamma":1.0}},"features":"all"}]}"#).unwrap();
    std::fs::write(d.join("model.json"), "not yet a model").unwrap();
    d
}

/// Every file under `dir` with a checksum of its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, u64> {
    use std::hash::{Hash, Hasher};
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().map(|t| t.is_file()).unwrap_or(false))
        .map(|e| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            std::fs::read(e.path()).unwrap().hash(&mut h);
            (e.path(), h.finish())
        })
        .collect()
}

/// Runs `args` (with `{d}` replaced by the workspace) and checks the refusal.
fn refused(dir: &Path, args: &[&str], expect: &[&str]) {
    let d = dir.display().to_string();
    let args: Vec<String> = args.iter().map(|a| a.replace("{d}", &d)).collect();
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let before = snapshot(dir);
    let out = run(&argv);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{argv:?} succeeded");
    assert_ne!(out.status.code(), Some(101), "{argv:?} panicked: {err}");
    assert!(!err.contains("panicked"), "{argv:?}: {err}");
    for e in expect {
        assert!(err.contains(e), "{argv:?}: `{e}` not in: {err}");
    }
    assert_eq!(before, snapshot(dir), "{argv:?} changed a file");
}

#[test]
fn nothing_the_user_gave_is_overwritten() {
    let dir = workspace("loss");
    let cases: &[(&[&str], &[&str])] = &[
        (
            &[
                "experiment",
                "-d",
                "{d}/heart.csv",
                "--csv",
                "{d}/heart.csv",
                "--force",
                "--select",
                "none",
                "--repeats",
                "1",
            ],
            &["input file"],
        ),
        (
            &[
                "experiment",
                "-d",
                "{d}/heart.csv",
                "--csv",
                "{d}/out.txt",
                "--markdown",
                "{d}/out.txt",
                "--select",
                "none",
                "--repeats",
                "1",
            ],
            &["already writes another output"],
        ),
        (
            &[
                "experiment",
                "-d",
                "{d}/heart.csv",
                "--csv",
                "{d}/fam.json",
                "--select",
                "none",
                "--repeats",
                "1",
            ],
            &["--force"],
        ),
        (
            &[
                "fit",
                "-d",
                "{d}/heart.csv",
                "-m",
                "uniform",
                "--kernels",
                "{d}/fam.json",
                "-o",
                "{d}/fam.json",
                "--force",
            ],
            &["input file"],
        ),
        (
            &["fit", "-d", "{d}/heart.csv", "-o", "{d}/model.json"],
            &["--force"],
        ),
        (
            &["fit", "-d", "{d}/heart.csv", "-o", "/dev/full", "--force"],
            &["not a regular file"],
        ),
        (
            &[
                "fit",
                "-d",
                "{d}/heart.csv",
                "-o",
                "{d}/t.csv",
                "-m",
                "dank",
                "--trace",
                "{d}/t.csv",
            ],
            &["another output"],
        ),
        (
            &["fit", "-d", "{d}/heart.csv", "-o", "{d}/no/such/dir/m.json"],
            &["does not exist"],
        ),
        (
            &["fit", "-d", "{d}/heart.csv", "-o", "{d}"],
            &["is a directory"],
        ),
    ];
    for (args, expect) in cases {
        refused(&dir, args, expect);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn no_silent_wrong_answer() {
    let dir = workspace("wrong");
    let huge: String = std::fs::read_to_string(dir.join("housing.csv"))
        .unwrap()
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                return format!("{l}\n");
            }
            let (x, y) = l.rsplit_once(',').unwrap();
            format!("{x},{}\n", y.parse::<f64>().unwrap() * 1e306)
        })
        .collect();
    std::fs::write(dir.join("huge.csv"), huge).unwrap();
    let cases: &[(&[&str], &[&str])] = &[
        (
            &[
                "fit",
                "-d",
                "{d}/housing.csv",
                "-m",
                "svc",
                "-o",
                "{d}/m1.json",
            ],
            &["regression target", "--method svr"],
        ),
        (
            &[
                "fit",
                "-d",
                "{d}/housing.csv",
                "-m",
                "knpl",
                "-o",
                "{d}/m2.json",
            ],
            &["regression target"],
        ),
        (
            &["fit", "-d", "{d}/huge.csv", "-o", "{d}/m3.json"],
            &["objective is -inf", "rescale"],
        ),
    ];
    for (args, expect) in cases {
        refused(&dir, args, expect);
    }
    for m in ["m1.json", "m2.json", "m3.json"] {
        assert!(!dir.join(m).exists(), "{m} written by a refused fit");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn no_runaway_work() {
    let dir = workspace("hang");
    let cases: &[(&[&str], &[&str])] = &[
        (
            &[
                "evaluate",
                "-d",
                "{d}/heart.csv",
                "-m",
                "uniform",
                "--kernels",
                "rbf(sigma=1)@random(subsets=100000000,size=2,seed=1)",
            ],
            &["`kernels`", "GB"],
        ),
        (
            &[
                "evaluate",
                "-d",
                "{d}/heart.csv",
                "-m",
                "mwumkl",
                "--mwu-epsilon",
                "1e-300",
            ],
            &["`mwu-epsilon`", "rounds"],
        ),
    ];
    for (args, expect) in cases {
        let start = std::time::Instant::now();
        refused(&dir, args, expect);
        assert!(
            start.elapsed().as_secs() < 20,
            "{args:?} took {:?}",
            start.elapsed()
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unclear_inputs_get_errors_that_name_the_option() {
    let dir = workspace("unclear");
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["evaluate", "-d", "{d}/heart.csv", "--sigma", "1e308"],
            &["`sigma`"],
        ),
        (
            &[
                "evaluate",
                "-d",
                "{d}/heart.csv",
                "-m",
                "ldmkl",
                "--solver",
                "mwu",
                "--lkl-epsilon",
                "0",
            ],
            &["`lkl-epsilon`"],
        ),
        (
            &["figure", "--n", "1", "-o", "{d}/f.png"],
            &["`n`", "--n 20"],
        ),
        (
            &["fit", "-d", "{d}", "-o", "{d}/m.json"],
            &["is a directory"],
        ),
        (
            &["evaluate", "-d", "{d}/heart.csv", "--cache-mb", "-1"],
            &["cache-mb"],
        ),
        (
            &["evaluate", "-d", "{d}/heart.csv", "--cache-mb", "NaN"],
            &["cache-mb"],
        ),
        (
            &[
                "evaluate",
                "-d",
                "{d}/heart.csv",
                "--select",
                "grid",
                "--gram-mb",
                "-5",
            ],
            &["gram-mb"],
        ),
        (
            &[
                "evaluate",
                "-d",
                "{d}/heart.csv",
                "--select",
                "grid",
                "--gram-mb",
                "NaN",
            ],
            &["gram-mb"],
        ),
        (
            &[
                "evaluate",
                "-d",
                "{d}/heart.csv",
                "--class-weight",
                "1=2",
                "--class-weight",
                "1=3",
            ],
            &["twice"],
        ),
        (
            &[
                "evaluate",
                "-d",
                "{d}/heart.csv",
                "-m",
                "mwumkl",
                "--tau",
                "0.1",
            ],
            &["`tau`", "does not apply"],
        ),
        (
            &[
                "evaluate",
                "-d",
                "{d}/heart.csv",
                "-m",
                "dank",
                "--probability",
            ],
            &["`probability`", "does not apply"],
        ),
    ];
    for (args, expect) in cases {
        refused(&dir, args, expect);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The kernel-family example of `--help` is accepted as written.
#[test]
fn the_kernels_example_of_help_parses() {
    let help = String::from_utf8_lossy(&run(&["evaluate", "--help"]).stdout).into_owned();
    let start = help.find("`rbf(sigma=2)@all;").expect("example in --help");
    let example = &help[start + 1..];
    let example = &example[..example.find('`').unwrap()];
    let out = run(&[
        "evaluate",
        "-d",
        &repo().join("data/heart.csv").display().to_string(),
        "-m",
        "uniform",
        "--kernels",
        example,
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{example}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A closed pipe ends the program quietly; a full device is a plain error.
#[test]
fn output_to_a_closed_pipe_or_a_full_device() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kernlearn"))
        .args(["methods", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader goes away before anything is written
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && !err.contains("panicked"),
        "{:?}: {err}",
        out.status
    );
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kernlearn"))
        .args(["methods", "--json"])
        .stdout(full)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot write to standard output") && !err.contains("panicked"),
        "{err}"
    );
}
