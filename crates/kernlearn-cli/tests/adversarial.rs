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
    std::fs::write(d.join("w.txt"), "1\n".repeat(270)).unwrap();
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

/// Every case of `cases` is refused (see [`refused`]) in a fresh workspace `name`.
fn all_refused(name: &str, cases: &[(&[&str], &[&str])]) {
    let dir = workspace(name);
    for (args, expect) in cases {
        refused(&dir, args, expect);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn nothing_the_user_gave_is_overwritten() {
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
    all_refused("loss", cases);
}

/// The weight file is an input of the output planner, and figures are checked with the
/// other outputs before the model is written.
#[test]
fn weight_files_and_figures_are_checked_before_any_write() {
    let cases: &[(&[&str], &[&str])] = &[
        // The weight file is an input, with or without a grid search.
        (
            &[
                "fit",
                "-d",
                "{d}/heart.csv",
                "--weight-file",
                "{d}/w.txt",
                "-o",
                "{d}/w.txt",
                "--force",
            ],
            &["input file"],
        ),
        (
            &[
                "fit",
                "-d",
                "{d}/heart.csv",
                "--weight-file",
                "{d}/w.txt",
                "-o",
                "{d}/w.txt",
                "--force",
                "--select",
                "grid",
            ],
            &["input file"],
        ),
        // Every output is checked before the model is written: a relevance plot of a
        // model that learns none, or in a format the plots cannot write.
        (
            &[
                "fit",
                "-d",
                "{d}/heart.csv",
                "-m",
                "svc",
                "-o",
                "{d}/model.json",
                "--force",
                "--relevance-plot",
                "{d}/r.png",
            ],
            &["learns no feature relevance"],
        ),
        (
            &[
                "fit",
                "-d",
                "{d}/heart.csv",
                "-m",
                "ard",
                "-o",
                "{d}/model.json",
                "--force",
                "--relevance-plot",
                "{d}/r.gif",
            ],
            &["use .png or .svg"],
        ),
    ];
    all_refused("weights", cases);
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
    std::fs::write(dir.join("labels.libsvm"), "1\n-1\n1\n-1\n1\n-1\n").unwrap();
    let cases: &[(&[&str], &[&str])] = &[
        // Labels without features: no 0-feature model.
        (
            &["fit", "-d", "{d}/labels.libsvm", "-o", "{d}/m0.json"],
            &["no feature columns"],
        ),
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
        // The fallback's measurement settings: at least 2 confirmation folds, and only
        // for a selection that ends with the fallback (not SVM-CV's own), in every
        // command that selects.
        (
            &[
                "evaluate",
                "-d",
                "{d}/heart.csv",
                "-m",
                "ard",
                "--select",
                "grid",
                "--confirmation-folds",
                "1",
            ],
            &["`confirmation-folds`", "at least 2 folds"],
        ),
        (
            &[
                "evaluate",
                "-d",
                "{d}/heart.csv",
                "--select",
                "grid",
                "--confirm-always",
            ],
            &["`confirm-always`", "does not read it"],
        ),
        (
            &[
                "experiment",
                "-d",
                "{d}/heart.csv",
                "--select",
                "grid",
                "--confirm-always",
            ],
            &["`confirm-always`", "does not read it"],
        ),
        // A tiny KNPL γ names γ and the smallest that works, not "features too large".
        (
            &[
                "fit",
                "-d",
                "{d}/heart.csv",
                "-m",
                "knpl",
                "--knpl-gamma",
                "1e-300",
                "-o",
                "{d}/k.json",
            ],
            &["`knpl-gamma`", "use γ ≥"],
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

/// The kernel-family example of `kernlearn methods uniform` (the help of `--kernels`) is
/// accepted as written.
#[test]
fn the_kernels_example_of_help_parses() {
    let help = String::from_utf8_lossy(&run(&["methods", "uniform"]).stdout).into_owned();
    let start = help
        .find("`rbf(sigma=2)@all;")
        .expect("example in the help");
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

/// Runs `args` with `{d}` replaced by `dir`, killed after `secs` seconds: a hang fails
/// the test instead of stalling it. Returns the status code (`None`: killed by a
/// signal, e.g. an abort), stdout and stderr.
fn run_within(dir: &Path, args: &[&str], secs: u64) -> (Option<i32>, String, String) {
    use std::io::Read;
    let d = dir.display().to_string();
    let args: Vec<String> = args.iter().map(|a| a.replace("{d}", &d)).collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kernlearn"))
        .args(&args)
        .arg("--quiet")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed().as_secs() >= secs {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} still running after {secs} s (a hang)");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let (mut out, mut err) = (String::new(), String::new());
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status.code(), out, err)
}

/// `args` must end, within `secs`, in a refusal (status 1, no panic, no abort) whose
/// message holds every `expect`, leaving every file of `dir` unchanged.
fn refused_within(dir: &Path, args: &[&str], expect: &[&str], secs: u64) -> String {
    let before = snapshot(dir);
    let (code, _, err) = run_within(dir, args, secs);
    assert_eq!(
        code,
        Some(1),
        "{args:?}: status {code:?} (101 = panic, None = abort): {err}"
    );
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    for e in expect {
        assert!(err.contains(e), "{args:?}: `{e}` not in: {err}");
    }
    assert_eq!(before, snapshot(dir), "{args:?} changed a file");
    err
}

/// A workspace with a 6-sample Gram set (`set.json` naming `K.csv` and `y.csv`).
fn gram_workspace(name: &str) -> PathBuf {
    let d = workspace(name);
    // K = X Xᵀ + I for six 2-D points: symmetric positive definite.
    let x = [
        [0.0, 1.0],
        [1.0, 0.0],
        [1.0, 1.0],
        [3.0, 3.0],
        [3.0, 4.0],
        [4.0, 3.0],
    ];
    let mut k = String::new();
    for a in &x {
        let row: Vec<String> = x
            .iter()
            .map(|b| {
                let same = std::ptr::eq(a, b);
                format!("{}", a[0] * b[0] + a[1] * b[1] + f64::from(u8::from(same)))
            })
            .collect();
        k += &(row.join(",") + "\n");
    }
    std::fs::write(d.join("K.csv"), k).unwrap();
    std::fs::write(d.join("y.csv"), "1\n1\n1\n2\n2\n2\n").unwrap();
    std::fs::write(
        d.join("set.json"),
        r#"{"kernels": ["K.csv"], "labels": "y.csv"}"#,
    )
    .unwrap();
    d
}

#[test]
fn files_a_gram_set_names_are_inputs_and_stay_in_its_folder() {
    let dir = gram_workspace("gram");
    let fit = [
        "fit",
        "-d",
        "{d}/set.json",
        "-m",
        "dkmo",
        "--kernel",
        "precomputed",
    ];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        fit.iter().chain(extra).copied().collect()
    };
    for extra in [
        &["-o", "{d}/K.csv", "--force"][..],
        &["-o", "{d}/y.csv", "--force"],
        &["-o", "{d}/m.json", "--trace", "{d}/K.csv", "--force"],
    ] {
        refused_within(&dir, &with(extra), &["input file"], 60);
    }
    // Predict: -o and --fused-plot onto a file of the set.
    for out in [["-o", "{d}/y.csv"], ["--fused-plot", "{d}/K.csv"]] {
        let args = [
            "predict",
            "--model",
            "{d}/heart.csv",
            "-d",
            "{d}/set.json",
            out[0],
            out[1],
            "--force",
        ];
        refused_within(&dir, &args, &["input file"], 60);
    }
    // Paths leaving the manifest's folder are refused, and what they point at is never
    // read or quoted.
    for (i, entry) in [
        "../../../../etc/passwd",
        "/etc/passwd",
        "/dev/zero",
        "../heart.csv",
    ]
    .iter()
    .enumerate()
    {
        let name = format!("escape{i}.json");
        std::fs::write(dir.join(&name), format!(r#"{{"kernels": ["{entry}"]}}"#)).unwrap();
        let data = format!("{{d}}/{name}");
        let err = refused_within(
            &dir,
            &[
                "fit",
                "-d",
                &data,
                "-m",
                "dkmo",
                "--kernel",
                "precomputed",
                "-o",
                "{d}/m.json",
            ],
            &["inside the manifest's folder"],
            20,
        );
        assert!(!err.contains("root:") && !err.contains("age,"), "{err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn devices_fifos_and_endless_streams_are_refused_at_once() {
    let dir = workspace("devices");
    let fifo = dir.join("pipe.csv");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    std::fs::write(dir.join("dev.json"), r#"{"kernels": ["pipe.csv"]}"#).unwrap();
    let mut cases: Vec<Vec<&str>> = vec![
        vec![
            "fit",
            "-d",
            "/dev/zero",
            "--format",
            "csv",
            "-o",
            "{d}/m.json",
        ],
        vec![
            "fit",
            "-d",
            "/dev/urandom",
            "--format",
            "csv",
            "-o",
            "{d}/m.json",
        ],
        vec!["predict", "--model", "/dev/zero", "-d", "{d}/heart.csv"],
        vec![
            "fit",
            "-d",
            "{d}/heart.csv",
            "-m",
            "uniform",
            "--kernels",
            "/dev/zero",
            "-o",
            "{d}/m.json",
        ],
    ];
    if made {
        cases.push(vec!["fit", "-d", "{d}/pipe.csv", "-o", "{d}/m.json"]);
        cases.push(vec![
            "fit",
            "-d",
            "{d}/dev.json",
            "-m",
            "dkmo",
            "--kernel",
            "precomputed",
            "-o",
            "{d}/m.json",
        ]);
    }
    for args in &cases {
        let (code, _, err) = run_within(&dir, args, 20);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn huge_sizes_are_refused_before_allocating() {
    let dir = workspace("sizes");
    let fit = |extra: &[&'static str]| -> Vec<&'static str> {
        ["fit", "-d", "{d}/heart.csv", "-o", "{d}/m.json"]
            .iter()
            .chain(extra)
            .copied()
            .collect()
    };
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            fit(&["-m", "ckl", "--fourier-features", "100000000000"]),
            "`fourier-features`",
        ),
        (
            fit(&["-m", "rff-linear", "--fourier-features", "100000000000"]),
            "`fourier-features`",
        ),
        (
            fit(&["-m", "dkmo", "--dkmo-hidden", "100000000"]),
            "`dkmo-hidden`",
        ),
        (
            fit(&["-m", "dkmo", "--dkmo-hidden", "100000,100000"]),
            "`dkmo-hidden`",
        ),
        (
            fit(&[
                "-m",
                "dkmo",
                "--dkmo-embedding",
                "nystrom",
                "--dkmo-embeddings",
                "100000000000",
            ]),
            "`dkmo-embeddings`",
        ),
        (
            vec![
                "figure",
                "--gates",
                "--n",
                "100000000000",
                "-o",
                "{d}/g.png",
            ],
            "`n`",
        ),
    ];
    for (args, option) in &cases {
        refused_within(&dir, args, &[option], 30);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A dense read is checked against the memory the process may still allocate, not only
/// the machine's: under an address-space limit (`ulimit -v`, as a batch scheduler sets)
/// a LIBSVM file naming index 10⁷ (40 × 10⁷ dense values, 3.2 GB) is refused at once
/// instead of aborting mid-fit.
#[test]
fn an_address_space_limit_is_respected() {
    let dir = workspace("rlimit");
    let mut text = String::new();
    for i in 0..40 {
        let extra = if i == 3 { " 10000000:1" } else { "" };
        text += &format!("{} 1:0.{i} 2:0.5{extra}\n", if i % 2 == 0 { 1 } else { -1 });
    }
    std::fs::write(dir.join("wide.libsvm"), text).unwrap();
    let script = format!(
        // KNPL reads dense rows (an svm fit would keep the file sparse).
        "ulimit -v 4000000 && exec '{}' fit -d '{}' -o '{}' -m knpl --quiet",
        env!("CARGO_BIN_EXE_kernlearn"),
        dir.join("wide.libsvm").display(),
        dir.join("m.json").display()
    );
    let out = Command::new("sh").args(["-c", &script]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "status {:?}: {err}", out.status);
    assert!(err.contains("does not fit in memory"), "{err}");
    assert!(!dir.join("m.json").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn options_the_chosen_variant_does_not_read_are_errors() {
    let dir = workspace("variant");
    let fit = |extra: &[&'static str]| -> Vec<&'static str> {
        ["fit", "-d", "{d}/heart.csv", "-o", "{d}/m.json"]
            .iter()
            .chain(extra)
            .copied()
            .collect()
    };
    let cases: Vec<(Vec<&str>, &[&str])> = vec![
        (
            fit(&["-m", "hyperkernel", "--problem", "nu-svm", "-c", "5"]),
            &["`c`", "nu-svm"],
        ),
        (
            fit(&["-m", "hyperkernel", "--problem", "one-class", "-c", "5"]),
            &["`c`"],
        ),
        (
            fit(&["-m", "hyperkernel", "--problem", "c-svm", "--nu", "0.2"]),
            &["`nu`"],
        ),
        (
            fit(&["-m", "hyperkernel", "--problem", "lsvm", "--nu", "0.2"]),
            &["`nu`"],
        ),
        (
            fit(&["-m", "hyperkernel", "--problem", "kta", "--nu", "0.2"]),
            &["`nu`"],
        ),
        (
            fit(&[
                "-m",
                "hyperkernel",
                "--hyperkernel",
                "exp",
                "--lambda-h",
                "0.5",
            ]),
            &["`lambda-h`"],
        ),
        (
            fit(&["-m", "svm", "--sigmas", "1,2"]),
            &["`sigmas`", "--select grid"],
        ),
        (fit(&["-m", "ckl", "--cs", "1,2"]), &["`cs`"]),
        // A selection that does not read a grid setting refuses it: CKL's random search
        // draws its own widths (folds only with --ckl-search cv); DKMO has no search.
        (
            fit(&["-m", "ckl", "--select", "grid", "--sigmas", "1,2"]),
            &["`sigmas`", "does not read it"],
        ),
        (
            fit(&["-m", "ckl", "--select", "grid", "--folds", "3"]),
            &["`folds`", "does not read it"],
        ),
        (
            fit(&["-m", "dkmo", "--select", "grid", "--cs", "1"]),
            &["`cs`", "does not read it"],
        ),
        (
            fit(&["--select", "grid", "--epsilons", "0.1"]),
            &["`epsilons`", "does not read it"],
        ),
        (
            fit(&["-m", "dank", "--dank-step", "paper"]),
            &["`dank-step`", "newton"],
        ),
        (fit(&["--gram-mb", "-1"]), &["`gram-mb`"]),
        (fit(&["--gram-mb", "NaN"]), &["`gram-mb`"]),
        (fit(&["-m", "dkmo", "--folds", "3"]), &["`folds`"]),
        (
            fit(&["-m", "ckl", "--validation-fraction", "0"]),
            &["`validation-fraction`", "--epochs"],
        ),
        (
            vec!["figure", "--kernels", "garbage!!", "-o", "{d}/f.png"],
            &["`kernels`", "--gates"],
        ),
    ];
    for (args, expect) in &cases {
        refused_within(&dir, args, expect, 30);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_failed_fit_writes_nothing() {
    let dir = workspace("partial");
    std::fs::write(dir.join("existing.json"), "keep me").unwrap();
    // A trace asked of a method that records none: refused before the model is saved.
    refused_within(
        &dir,
        &[
            "fit",
            "-d",
            "{d}/heart.csv",
            "-m",
            "svm",
            "--trace",
            "{d}/t.csv",
            "-o",
            "{d}/existing.json",
            "--force",
        ],
        &["`trace`", "nothing was written"],
        60,
    );
    // A trace folder that does not exist: refused before the fit.
    refused_within(
        &dir,
        &[
            "fit",
            "-d",
            "{d}/heart.csv",
            "-m",
            "knpl",
            "--trace",
            "{d}/no/such/t.csv",
            "-o",
            "{d}/existing.json",
            "--force",
        ],
        &["does not exist"],
        20,
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("existing.json")).unwrap(),
        "keep me"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn gram_sets_are_not_split_by_rows() {
    let dir = gram_workspace("gram-split");
    for args in [
        &[
            "evaluate",
            "-d",
            "{d}/set.json",
            "-m",
            "dkmo",
            "--kernel",
            "precomputed",
        ][..],
        &[
            "experiment",
            "-d",
            "{d}/set.json",
            "-m",
            "dkmo",
            "--kernel",
            "precomputed",
            "--select",
            "none",
            "--repeats",
            "1",
        ],
    ] {
        refused_within(&dir, args, &["Gram set", "--test"], 20);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn evaluate_test_files_are_matched_by_column_name() {
    let dir = workspace("names");
    let text = std::fs::read_to_string(dir.join("heart.csv")).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let renamed: Vec<String> = header
        .split(',')
        .enumerate()
        .map(|(i, c)| {
            if i == 0 {
                "other".to_string()
            } else {
                c.to_string()
            }
        })
        .collect();
    let body: Vec<&str> = lines.collect();
    std::fs::write(
        dir.join("test.csv"),
        format!("{}\n{}\n", renamed.join(","), body.join("\n")),
    )
    .unwrap();
    refused_within(
        &dir,
        &[
            "evaluate",
            "-d",
            "{d}/heart.csv",
            "--test",
            "{d}/test.csv",
            "-m",
            "svm",
        ],
        &["test.csv", "missing"],
        60,
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn one_split_gives_no_standard_error_and_no_verdict() {
    let dir = workspace("one-split");
    let (code, out, err) = run_within(
        &dir,
        &[
            "experiment",
            "-d",
            "{d}/heart.csv",
            "-m",
            "uniform",
            "--select",
            "none",
            "--repeats",
            "1",
            "--baseline",
            "svm",
        ],
        120,
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("one split"), "{out}");
    assert!(!out.contains("**yes**"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn spg_gmkl_refuses_a_million_kernels_at_once() {
    let dir = workspace("spg");
    let d = 100_000;
    let mut text = (1..=d)
        .map(|j| format!("f{j}"))
        .collect::<Vec<_>>()
        .join(",")
        + ",y\n";
    for i in 0..20 {
        let row: Vec<String> = (0..d).map(|j| ((i * 7 + j) % 10).to_string()).collect();
        text += &format!("{},{}\n", row.join(","), i % 2);
    }
    std::fs::write(dir.join("wide.csv"), text).unwrap();
    refused_within(
        &dir,
        &[
            "fit",
            "-d",
            "{d}/wide.csv",
            "-m",
            "spg-gmkl",
            "-o",
            "{d}/m.json",
        ],
        &["`kernels`", "SPG-GMKL"],
        60,
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A small DKMO fit, then its predictions and its model file edited.
#[test]
fn dkmo_models_predict_consistent_tables_and_damaged_files_are_refused() {
    let dir = workspace("dkmo");
    let fit = [
        "fit",
        "-d",
        "{d}/heart.csv",
        "-m",
        "dkmo",
        "--dkmo-hidden",
        "8",
        "--epochs",
        "3",
        "-o",
        "{d}/dkmo.json",
        "--no-train-score",
    ];
    let (code, _, err) = run_within(&dir, &fit, 300);
    assert_eq!(code, Some(0), "{err}");
    let (code, out, err) = run_within(
        &dir,
        &[
            "predict",
            "--model",
            "{d}/dkmo.json",
            "-d",
            "{d}/heart.csv",
            "--decision-values",
            "-o",
            "-",
        ],
        120,
    );
    assert_eq!(code, Some(0), "{err}");
    let mut lines = out.lines();
    let width = lines.next().unwrap().split(',').count();
    assert_eq!(width, 3, "prediction and one column per class: {out:.200}");
    assert!(lines.all(|l| l.split(',').count() == width), "{out:.400}");
    // Damaged files: no hidden layer, a weight of 1e308, an embedding value of 1e308.
    let text = std::fs::read_to_string(dir.join("dkmo.json")).unwrap();
    let mut model: serde_json::Value = serde_json::from_str(&text).unwrap();
    let edits = [serde_json::json!([]), serde_json::json!([100000, 100000])];
    let inner = if model.get("model").is_some() {
        "model"
    } else {
        ""
    };
    assert_eq!(inner, "model", "model files keep the model under `model`");
    for (i, hidden) in edits.iter().enumerate() {
        let mut m = model.clone();
        m["model"]["fitted"]["architecture"]["hidden"] = hidden.clone();
        let name = format!("bad{i}.json");
        std::fs::write(dir.join(&name), m.to_string()).unwrap();
        let path = format!("{{d}}/{name}");
        refused_within(
            &dir,
            &["predict", "--model", &path, "-d", "{d}/heart.csv"],
            &["malformed model file"],
            60,
        );
    }
    // Every number of the embeddings set to 1e308 in turn (first few): refused or
    // finite, never a NaN written.
    let emb = model["model"]["fitted"]["embeddings"].clone();
    let mut path = Vec::new();
    fn first_number(v: &serde_json::Value, path: &mut Vec<String>) -> bool {
        match v {
            serde_json::Value::Number(_) => true,
            serde_json::Value::Array(a) => a.iter().enumerate().any(|(i, x)| {
                path.push(i.to_string());
                first_number(x, path) || {
                    path.pop();
                    false
                }
            }),
            serde_json::Value::Object(o) => o.iter().any(|(k, x)| {
                path.push(k.clone());
                first_number(x, path) || {
                    path.pop();
                    false
                }
            }),
            _ => false,
        }
    }
    if first_number(&emb, &mut path) {
        let mut target = &mut model["model"]["fitted"]["embeddings"];
        for p in &path {
            target = match p.parse::<usize>() {
                Ok(i) if target.is_array() => &mut target[i],
                _ => &mut target[p.as_str()],
            };
        }
        *target = serde_json::json!(1e308);
        std::fs::write(dir.join("huge.json"), model.to_string()).unwrap();
        let (code, out, err) = run_within(
            &dir,
            &[
                "predict",
                "--model",
                "{d}/huge.json",
                "-d",
                "{d}/heart.csv",
                "-o",
                "-",
            ],
            60,
        );
        assert!(code == Some(1) || code == Some(0), "{err}");
        assert!(
            !out.to_lowercase().contains("nan") && !out.contains("inf"),
            "{out:.300}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
