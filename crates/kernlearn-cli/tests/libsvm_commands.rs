//! `kernlearn svm-train`, `svm-predict` and `svm-scale` against LIBSVM's own programs.
//!
//! With LIBSVM's `svm-train`, `svm-predict` and `svm-scale` on the PATH (Debian:
//! `apt-get install libsvm-tools`), the command lines of LIBSVM's README ("Examples"), and
//! nu-SVC, one-class, nu-SVR, polynomial, sigmoid and precomputed kernels, run under both
//! programs on the small fixture sets (`tests/fixtures/*.libsvm`), each in its own
//! directory, and are compared:
//!
//! - model files: the same header keys, class labels and support-vector counts, and every
//!   number (rho, coefficients, feature values, parameters) equal to 1e-10 relative
//!   (most are byte-identical; linear and polynomial kernels sum their dot products in
//!   another order, which moves the last digits);
//! - `svm-predict`'s output files: classification identical, regression values to 1e-10
//!   relative; its printed lines identical;
//! - `svm-predict` of kernlearn on LIBSVM's model file and of LIBSVM on it: identical
//!   output files and lines (kernlearn predicts with LIBSVM's arithmetic);
//! - `svm-scale`: identical output, range file and warnings;
//! - `-v n` cross-validation: identical lines. LIBSVM draws its folds with the C
//!   library's `rand()`, never seeded; kernlearn replays glibc's generator, so on glibc
//!   systems the folds, hence the lines, are the same (elsewhere the accuracy is only
//!   required to be within 5 points);
//! - `-b 1`: for SVR, the same `probA` (its folds come from `rand()` too). For
//!   classification, Platt's fit runs on a 5-fold split that kernlearn draws from its own
//!   seeded generator, so `probA`/`probB` differ (everything else in the model file is
//!   compared as above), the probabilities are compared to 0.1 and the labels must agree
//!   on 90% of the rows.
//!
//! Debian's `svm-train` 3.24 parses real-valued options as `float` (`-g 0.1` trains with
//! 0.10000000149011612, see tests/fixtures/README.md); when the reference does, kernlearn
//! is given the same float-rounded values so that the models are comparable.
//!
//! Without LIBSVM the comparisons print why they are skipped and pass, unless
//! `KERNLEARN_REQUIRE_LIBSVM=1`, which makes them fail. The tests against the committed
//! fixtures (model files written by LIBSVM) always run.

mod common;

use common::{fixture, repo, scratch_dir};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// True when LIBSVM's programs are on the PATH; otherwise says why the test is skipped
/// (or fails, with `KERNLEARN_REQUIRE_LIBSVM=1`).
fn have_libsvm(test: &str) -> bool {
    let found = Command::new("svm-train").output().is_ok();
    if !found {
        let required = std::env::var("KERNLEARN_REQUIRE_LIBSVM").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "{test}: LIBSVM's svm-train is not on the PATH but KERNLEARN_REQUIRE_LIBSVM=1 \
             (install it: apt-get install libsvm-tools)"
        );
        eprintln!(
            "{test}: skipped, LIBSVM's svm-train is not on the PATH (apt-get install \
             libsvm-tools; KERNLEARN_REQUIRE_LIBSVM=1 makes this a failure)"
        );
    }
    found
}

/// Runs `program args` in `dir` (`kernlearn` is this package's binary, given the
/// LIBSVM command name as its first argument).
fn run_in(dir: &Path, program: &str, args: &[String], kernlearn: bool) -> Output {
    let mut cmd = if kernlearn {
        let mut c = Command::new(env!("CARGO_BIN_EXE_kernlearn"));
        c.arg(program);
        c
    } else {
        Command::new(program)
    };
    cmd.args(args).current_dir(dir).output().expect("runs")
}

fn words(line: &str) -> Vec<String> {
    line.split_whitespace().map(String::from).collect()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Whether the reference `svm-train` rounds real-valued options to `float` (Debian's
/// 3.24 does): `-g 0.1` then shows as 0.10000000149011612 in the model file.
fn reference_rounds_to_f32() -> bool {
    let dir = scratch_dir("kernlearn-libsvm", "probe");
    let args = words(&format!(
        "-q -g 0.1 {} probe.model",
        fixture("tiny.train.libsvm")
    ));
    run_in(&dir, "svm-train", &args, false);
    let model = std::fs::read_to_string(dir.join("probe.model")).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    model.contains("gamma 0.10000000149011612")
}

/// `args` with the values of the real-valued options (`-c -g -r -n -p -e -wi`) rounded
/// to `float` when `f32` is set, as the reference parses them.
fn as_reference_parses(args: &[String], f32: bool) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut round_next = false;
    for a in args {
        if round_next && f32 {
            let v: f64 = a.parse().unwrap();
            out.push(format!("{:?}", v as f32 as f64));
        } else {
            out.push(a.clone());
        }
        round_next = matches!(a.as_str(), "-c" | "-g" | "-r" | "-n" | "-p" | "-e")
            || (a.starts_with("-w") && a.len() > 2);
    }
    out
}

/// A model file as numbers: header lines (key, values) and support-vector lines (the
/// coefficients, then `(index, value)` pairs).
#[derive(Debug)]
struct ModelFile {
    header: Vec<(String, Vec<String>)>,
    sv: Vec<Vec<(Option<u64>, f64)>>,
}

fn parse_model(path: &Path) -> ModelFile {
    let body = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = body.lines();
    let mut header = Vec::new();
    for line in lines.by_ref() {
        let mut t = line.split_whitespace().map(String::from);
        let key = t.next().unwrap();
        if key == "SV" {
            break;
        }
        header.push((key, t.collect()));
    }
    let sv = lines
        .map(|l| {
            l.split_whitespace()
                .map(|t| match t.split_once(':') {
                    Some((i, v)) => (Some(i.parse().unwrap()), v.parse().unwrap()),
                    None => (None, t.parse().unwrap()),
                })
                .collect()
        })
        .collect();
    ModelFile { header, sv }
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()).max(1.0)
}

/// Two model files are equal up to print precision (`rel`), the header keys in `skip`
/// (e.g. probA/probB) left out.
fn assert_models_match(what: &str, ours: &Path, theirs: &Path, rel: f64, skip: &[&str]) {
    let (a, b) = (parse_model(ours), parse_model(theirs));
    let keys = |m: &ModelFile| m.header.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
    assert_eq!(keys(&a), keys(&b), "{what}: model header keys");
    for ((key, va), (_, vb)) in a.header.iter().zip(&b.header) {
        if skip.contains(&key.as_str()) {
            continue;
        }
        assert_eq!(va.len(), vb.len(), "{what}: `{key}` values");
        for (x, y) in va.iter().zip(vb) {
            match (x.parse::<f64>(), y.parse::<f64>()) {
                (Ok(x), Ok(y))
                    if matches!(key.as_str(), "rho" | "gamma" | "coef0" | "probA" | "probB") =>
                {
                    assert!(
                        close(x, y, rel),
                        "{what}: {key} kernlearn {x} vs LIBSVM {y}"
                    )
                }
                _ => assert_eq!(x, y, "{what}: `{key}`"),
            }
        }
    }
    assert_eq!(a.sv.len(), b.sv.len(), "{what}: number of support vectors");
    for (s, (ra, rb)) in a.sv.iter().zip(&b.sv).enumerate() {
        assert_eq!(
            ra.len(),
            rb.len(),
            "{what}: support vector {s}: {ra:?} vs {rb:?}"
        );
        for ((ia, xa), (ib, xb)) in ra.iter().zip(rb) {
            assert_eq!(ia, ib, "{what}: support vector {s}: indices");
            assert!(
                close(*xa, *xb, rel),
                "{what}: support vector {s}: kernlearn {xa} vs LIBSVM {xb}"
            );
        }
    }
}

/// Two prediction files agree: identical for classification, values to `rel` for
/// regression.
fn assert_predictions_match(what: &str, ours: &Path, theirs: &Path, regression: bool) {
    let (a, b) = (
        std::fs::read_to_string(ours).unwrap(),
        std::fs::read_to_string(theirs).unwrap(),
    );
    if !regression {
        assert_eq!(a, b, "{what}: prediction files");
        return;
    }
    assert_eq!(
        a.lines().count(),
        b.lines().count(),
        "{what}: prediction lines"
    );
    for (x, y) in a.lines().zip(b.lines()) {
        let (x, y): (f64, f64) = (x.parse().unwrap(), y.parse().unwrap());
        assert!(
            close(x, y, 1e-10),
            "{what}: prediction kernlearn {x} vs LIBSVM {y}"
        );
    }
}

/// Two directories holding the same input files, one per program.
struct Pair {
    lib: PathBuf,
    ours: PathBuf,
    f32: bool,
}

impl Pair {
    /// Fresh directories for `name`, each with `files` (name in the directory, fixture).
    fn new(name: &str, files: &[(&str, &str)], f32: bool) -> Pair {
        let lib = scratch_dir("kernlearn-libsvm-ref", name);
        let ours = scratch_dir("kernlearn-libsvm-ours", name);
        for (to, from) in files {
            for d in [&lib, &ours] {
                std::fs::copy(fixture(from), d.join(to)).unwrap();
            }
        }
        Pair { lib, ours, f32 }
    }

    /// Runs a LIBSVM command line (`svm-train -c 5 data_file`) in both directories:
    /// LIBSVM's program, then `kernlearn` with the same arguments (real-valued options
    /// as the reference parses them). Both must succeed with the same exit status.
    fn run(&self, line: &str) -> (Output, Output) {
        let w = words(line);
        let (program, args) = (w[0].as_str(), &w[1..]);
        let theirs = run_in(&self.lib, program, args, false);
        let ours_args = if program == "svm-train" {
            as_reference_parses(args, self.f32)
        } else {
            args.to_vec()
        };
        let ours = run_in(&self.ours, program, &ours_args, true);
        assert_eq!(
            ours.status.code(),
            theirs.status.code(),
            "`{line}`: exit status; kernlearn said {} / LIBSVM said {}",
            text(&ours.stderr),
            text(&theirs.stderr)
        );
        (ours, theirs)
    }

    /// [`Pair::run`], requiring the same standard output.
    fn same_stdout(&self, line: &str) {
        let (ours, theirs) = self.run(line);
        assert_eq!(
            text(&ours.stdout),
            text(&theirs.stdout),
            "`{line}`: printed lines"
        );
    }

    fn files(&self, name: &str) -> (PathBuf, PathBuf) {
        (self.ours.join(name), self.lib.join(name))
    }

    /// Trains with `train` (quiet), then predicts `test` with each model under both
    /// programs and with kernlearn on LIBSVM's model; compares everything.
    fn train_and_predict(&self, train: &str, test: &str, regression: bool) {
        self.run(train);
        let model = train.split_whitespace().last().unwrap();
        let (ours, theirs) = self.files(model);
        assert_models_match(train, &ours, &theirs, 1e-10, &[]);
        let predict = format!("svm-predict {test} {model} {model}.out");
        let (po, pt) = self.run(&predict);
        assert_eq!(
            text(&po.stdout),
            text(&pt.stdout),
            "`{predict}`: printed lines"
        );
        let (ours, theirs) = self.files(&format!("{model}.out"));
        assert_predictions_match(train, &ours, &theirs, regression);
        // kernlearn's svm-predict on LIBSVM's model file.
        let args = words(&format!("{test} {model} {model}.ours"));
        let on_theirs = run_in(&self.lib, "svm-predict", &args, true);
        assert_eq!(
            text(&on_theirs.stdout),
            text(&pt.stdout),
            "{train}: kernlearn on LIBSVM's model"
        );
        let a = std::fs::read(self.lib.join(format!("{model}.ours"))).unwrap();
        let b = std::fs::read(self.lib.join(format!("{model}.out"))).unwrap();
        assert!(
            a == b,
            "{train}: kernlearn's predictions with LIBSVM's model differ from LIBSVM's"
        );
    }
}

/// The scratch directories go once the test passed (kept to look at when it failed).
impl Drop for Pair {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.lib);
            let _ = std::fs::remove_dir_all(&self.ours);
        }
    }
}

/// LIBSVM's README examples: svm-scale, then C-SVC, ε-SVR and weighted multiclass
/// training, with predictions of each model.
#[test]
fn readme_examples_match_libsvm() {
    if !have_libsvm("readme_examples_match_libsvm") {
        return;
    }
    let f32 = reference_rounds_to_f32();
    let files = [
        ("train", "heart.train.libsvm"),
        ("test", "heart.test.libsvm"),
        ("housing", "housing.train.libsvm"),
        ("housing.t", "housing.test.libsvm"),
        ("glass", "glass.train.libsvm"),
        ("glass.t", "glass.test.libsvm"),
    ];
    let p = Pair::new("readme", &files, f32);
    // > svm-scale -l -1 -u 1 -s range train > train.scale
    // > svm-scale -r range test > test.scale
    for (line, out) in [
        ("svm-scale -l -1 -u 1 -s range train", "train.scale"),
        ("svm-scale -r range test", "test.scale"),
    ] {
        let (ours, theirs) = p.run(line);
        assert_eq!(
            text(&ours.stdout),
            text(&theirs.stdout),
            "`{line}`: scaled rows"
        );
        assert_eq!(
            text(&ours.stderr),
            text(&theirs.stderr),
            "`{line}`: warnings"
        );
        for d in [&p.ours, &p.lib] {
            let o = if d == &p.ours { &ours } else { &theirs };
            std::fs::write(d.join(out), &o.stdout).unwrap();
        }
    }
    let (ours, theirs) = p.files("range");
    assert_eq!(
        std::fs::read(ours).unwrap(),
        std::fs::read(theirs).unwrap(),
        "range files"
    );
    // > svm-train -s 0 -c 5 -t 2 -g 0.5 -e 0.1 data_file
    p.train_and_predict(
        "svm-train -q -s 0 -c 5 -t 2 -g 0.5 -e 0.1 train.scale m0",
        "test.scale",
        false,
    );
    // The same without -q and an explicit model file: the default name, and the solver's
    // lines (all but LIBSVM's progress marks and its "-h 0 may be faster" hint).
    let (ours, theirs) = p.run("svm-train -s 0 -c 5 -t 2 -g 0.5 -e 0.1 train.scale");
    assert_eq!(
        solver_lines(&ours),
        solver_lines(&theirs),
        "svm-train's lines"
    );
    assert!(text(&ours.stdout).contains("Total nSV = "));
    let (ours, theirs) = p.files("train.scale.model");
    assert_models_match("default model file", &ours, &theirs, 1e-10, &[]);
    // > svm-train -s 3 -p 0.1 -t 0 data_file
    p.train_and_predict(
        "svm-train -q -s 3 -p 0.1 -t 0 housing m3",
        "housing.t",
        true,
    );
    // > svm-train -c 10 -w1 1 -w-2 5 -w4 2 data_file (glass has no class -2 or 4: LIBSVM warns)
    let line = "svm-train -q -c 10 -w1 1 -w-2 5 -w4 2 glass mw";
    let (ours, theirs) = p.run(line);
    assert_eq!(
        text(&ours.stderr),
        text(&theirs.stderr),
        "`{line}`: warnings"
    );
    p.train_and_predict(line, "glass.t", false);
    // > svm-train -s 0 -c 100 -g 0.1 -v 5 data_file
    cv_lines_match(&p, "svm-train -s 0 -c 100 -g 0.1 -v 5 train.scale");
}

/// The printed lines of a training, without LIBSVM's progress marks (lines of `.` and
/// `*`) and its hint to turn shrinking off, which kernlearn does not print.
fn solver_lines(out: &Output) -> Vec<String> {
    text(&out.stdout)
        .lines()
        .filter(|l| !l.chars().all(|c| c == '.' || c == '*'))
        .filter(|l| !l.contains("using -h 0 may be faster"))
        .map(String::from)
        .collect()
}

/// `-v` lines (the folds' solver lines and the result): identical on glibc (the same
/// `rand()` folds), otherwise a result within 5 points.
fn cv_lines_match(p: &Pair, line: &str) {
    let (ours, theirs) = p.run(line);
    if cfg!(all(target_os = "linux", target_env = "gnu")) {
        assert_eq!(
            solver_lines(&ours),
            solver_lines(&theirs),
            "`{line}`: printed lines"
        );
        return;
    }
    let number = |o: &Output| -> f64 {
        let lines = solver_lines(o);
        let cv = lines
            .iter()
            .find(|l| l.starts_with("Cross Validation"))
            .unwrap();
        cv.rsplit(' ')
            .next()
            .unwrap()
            .trim_end_matches('%')
            .parse()
            .unwrap()
    };
    assert!((number(&ours) - number(&theirs)).abs() < 5.0, "`{line}`");
}

/// The other formulations and kernels, cross-validation of each task, and probability
/// models.
#[test]
fn formulations_and_kernels_match_libsvm() {
    if !have_libsvm("formulations_and_kernels_match_libsvm") {
        return;
    }
    let f32 = reference_rounds_to_f32();
    let files = [
        ("heart", "heart.train.libsvm"),
        ("heart.t", "heart.test.libsvm"),
        ("wine", "wine.train.libsvm"),
        ("wine.t", "wine.test.libsvm"),
        ("housing", "housing.train.libsvm"),
        ("housing.t", "housing.test.libsvm"),
        ("sonar", "sonar.train.libsvm"),
        ("sonar.t", "sonar.test.libsvm"),
    ];
    let p = Pair::new("kinds", &files, f32);
    let cases = [
        ("svm-train -q -s 1 -n 0.3 -g 0.2 wine nu", "wine.t", false),
        (
            "svm-train -q -s 2 -n 0.1 -g 0.5 heart one",
            "heart.t",
            false,
        ),
        (
            "svm-train -q -s 4 -n 0.4 -c 10 -g 0.2 housing nusvr",
            "housing.t",
            true,
        ),
        (
            "svm-train -q -s 3 -c 10 -g 0.25 -p 0.5 housing epsrbf",
            "housing.t",
            true,
        ),
        (
            "svm-train -q -t 1 -d 2 -g 0.1 -r 1 heart poly",
            "heart.t",
            false,
        ),
        (
            "svm-train -q -t 3 -g 0.01 -r -0.5 sonar sigmoid",
            "sonar.t",
            false,
        ),
        (
            "svm-train -q -t 0 -c 0.5 -h 0 -m 1 heart linear",
            "heart.t",
            false,
        ),
        ("svm-train -q -s 1 -n 0.25 heart nuheart", "heart.t", false),
    ];
    for (train, test, regression) in cases {
        p.train_and_predict(train, test, regression);
        let loud = train.replace(" -q", "");
        let (ours, theirs) = p.run(&loud);
        assert_eq!(
            solver_lines(&ours),
            solver_lines(&theirs),
            "`{loud}`: printed lines"
        );
    }
    for line in [
        "svm-train -s 1 -n 0.2 -v 4 wine",
        "svm-train -s 2 -n 0.1 -v 5 heart",
        "svm-train -s 3 -t 0 -v 5 housing",
        "svm-train -s 4 -g 0.25 -v 3 housing",
        "svm-train -v 200 heart",
    ] {
        cv_lines_match(&p, line);
    }
    probability_models_match(&p);
}

/// `-b 1`: SVR's Laplace scale is LIBSVM's; classification probabilities are close.
fn probability_models_match(p: &Pair) {
    // ε-SVR: probA from 5-fold CV with rand(), the same folds on glibc.
    p.train_and_predict(
        "svm-train -q -s 3 -b 1 -g 0.25 housing svrb",
        "housing.t",
        true,
    );
    p.same_stdout("svm-predict -b 1 housing.t svrb svrb.b");
    // > svm-train -s 0 -b 1 data_file
    // > svm-predict -b 1 test_file data_file.model output_file
    for (train, test, model) in [
        ("svm-train -q -s 0 -b 1 heart", "heart.t", "heart.model"),
        ("svm-train -q -b 1 -c 2 -g 0.2 wine", "wine.t", "wine.model"),
    ] {
        p.run(train);
        let (ours, theirs) = p.files(model);
        assert_models_match(train, &ours, &theirs, 1e-10, &["probA", "probB"]);
        let predict = format!("svm-predict -b 1 {test} {model} output_file");
        let (po, pt) = p.run(&predict);
        let accuracy = |o: &Output| -> f64 {
            let s = text(&o.stdout);
            s.split(" = ")
                .nth(1)
                .unwrap()
                .split('%')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        assert!(
            (accuracy(&po) - accuracy(&pt)).abs() <= 3.0,
            "{predict}: accuracy"
        );
        let (ours, theirs) = p.files("output_file");
        probabilities_close(&ours, &theirs);
        // kernlearn on LIBSVM's probability model: identical.
        let args = words(&format!("-b 1 {test} {model} ours_file"));
        let on_theirs = run_in(&p.lib, "svm-predict", &args, true);
        assert_eq!(text(&on_theirs.stdout), text(&pt.stdout));
        let a = std::fs::read(p.lib.join("ours_file")).unwrap();
        assert!(
            a == std::fs::read(&theirs).unwrap(),
            "{train}: -b 1 on LIBSVM's model"
        );
    }
}

/// `-b 1` output files: the same `labels` line, labels agreeing on 90% of the rows,
/// probabilities within 0.1.
fn probabilities_close(ours: &Path, theirs: &Path) {
    let (a, b) = (
        std::fs::read_to_string(ours).unwrap(),
        std::fs::read_to_string(theirs).unwrap(),
    );
    assert_eq!(a.lines().next(), b.lines().next(), "labels line");
    let rows = |s: &str| -> Vec<Vec<f64>> {
        s.lines()
            .skip(1)
            .map(|l| l.split(' ').map(|v| v.parse().unwrap()).collect())
            .collect()
    };
    let (ra, rb) = (rows(&a), rows(&b));
    assert_eq!(ra.len(), rb.len());
    let agree = ra.iter().zip(&rb).filter(|(x, y)| x[0] == y[0]).count();
    assert!(
        agree * 10 >= ra.len() * 9,
        "labels agree on {agree} of {} rows",
        ra.len()
    );
    for (x, y) in ra.iter().zip(&rb) {
        for (p, q) in x[1..].iter().zip(&y[1..]) {
            assert!((p - q).abs() < 0.1, "probabilities {x:?} vs {y:?}");
        }
    }
}

/// A precomputed kernel (`-t 4`): the linear Gram matrix of heart, with serial numbers.
#[test]
fn precomputed_kernel_matches_libsvm() {
    if !have_libsvm("precomputed_kernel_matches_libsvm") {
        return;
    }
    let p = Pair::new("precomputed", &[], reference_rounds_to_f32());
    let read =
        |name: &str| kernlearn::data::read_libsvm(Path::new(&fixture(name)), Some(13)).unwrap();
    let (train, test) = (read("heart.train.libsvm"), read("heart.test.libsvm"));
    for (name, data) in [("k.train", &train), ("k.test", &test)] {
        let mut s = String::new();
        for i in 0..data.len() {
            // A test row's serial number can be any value (LIBSVM's README): 0 here.
            let serial = if name == "k.test" { 0 } else { i + 1 };
            s.push_str(&format!("{} 0:{serial}", data.y[i]));
            for j in 0..train.len() {
                let k: f64 = data
                    .x
                    .row(i)
                    .iter()
                    .zip(train.x.row(j))
                    .map(|(a, b)| a * b)
                    .sum();
                s.push_str(&format!(" {}:{k:?}", j + 1));
            }
            s.push('\n');
        }
        for d in [&p.lib, &p.ours] {
            std::fs::write(d.join(name), &s).unwrap();
        }
    }
    p.train_and_predict("svm-train -q -t 4 -c 0.5 k.train kp", "k.test", false);
    cv_lines_match(&p, "svm-train -t 4 -v 5 k.train");
}

/// Without arguments each command prints LIBSVM's usage and exits with status 1.
#[test]
fn usage_and_errors() {
    for cmd in ["svm-train", "svm-predict", "svm-scale"] {
        let out = run_in(&repo(), cmd, &[], true);
        assert_eq!(out.status.code(), Some(1));
        assert!(
            text(&out.stdout).starts_with(&format!("Usage: {cmd} ")),
            "{cmd}"
        );
    }
    let out = run_in(&repo(), "svm-train", &words("-c"), true);
    assert!(text(&out.stderr).contains("option -c needs a value"));
    let out = run_in(
        &repo(),
        "svm-train",
        &words("-s 7 tests/fixtures/heart.train.libsvm x"),
        true,
    );
    assert_eq!(text(&out.stderr).trim(), "ERROR: unknown svm type");
    let out = run_in(
        &repo(),
        "svm-predict",
        &words("nowhere.t nowhere.model out"),
        true,
    );
    assert!(
        text(&out.stderr).contains("nowhere.model"),
        "{}",
        text(&out.stderr)
    );
    // kernlearn's --help (anywhere: the README test appends it) and --quiet.
    let out = run_in(
        &repo(),
        "svm-train",
        &words("-c 10 heart.train --help"),
        true,
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).starts_with("Usage: svm-train "));
    let dir = scratch_dir("kernlearn-libsvm", "quiet");
    let args = words(&format!("{} m --quiet", fixture("tiny.train.libsvm")));
    let out = run_in(&dir, "svm-train", &args, true);
    assert!(
        out.status.success() && out.stdout.is_empty(),
        "{}",
        text(&out.stderr)
    );
    assert!(dir.join("m").exists());
    // An output file that is an input is refused, the input left as it was.
    let test = fixture("tiny.train.libsvm");
    let before = std::fs::read(&test).unwrap();
    let out = run_in(
        &dir,
        "svm-predict",
        &words(&format!("{test} m {test}")),
        true,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("refusing to overwrite"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read(&test).unwrap(), before);
    let _ = std::fs::remove_dir_all(&dir);
    let help = Command::new(env!("CARGO_BIN_EXE_kernlearn"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(text(&help.stdout).contains("LIBSVM-compatible commands"));
}

/// Without LIBSVM: `kernlearn svm-predict` on the committed model files (written by
/// LIBSVM 3.24, tests/fixtures/README.md) predicts exactly what LIBSVM's svm-predict did,
/// and `kernlearn svm-train` with the options LIBSVM used rewrites those model files.
#[test]
fn committed_libsvm_models_predict_and_retrain_identically() {
    let dir = scratch_dir("kernlearn-libsvm", "fixtures");
    let cases = [
        "heart_csvc_rbf",
        "sonar_csvc_rbf",
        "tiny_csvc_rbf",
        "heart_csvc_linear",
        "heart_csvc_poly",
        "heart_csvc_rbf_weighted",
        "wine_csvc_rbf",
        "glass_csvc_rbf",
        "heart_nusvc_rbf",
        "wine_nusvc_rbf",
        "housing_epssvr_rbf",
        "housing_nusvr_rbf",
        "heart_oneclass_rbf",
    ];
    for case in cases {
        let fx: Value = serde_json::from_str(
            &std::fs::read_to_string(fixture(&format!("{case}.json"))).unwrap(),
        )
        .unwrap();
        let model = fixture(&format!("{case}.model"));
        let test = repo().join(fx["test_file"].as_str().unwrap());
        let args = vec![test.display().to_string(), model.clone(), "out".to_string()];
        let out = run_in(&dir, "svm-predict", &args, true);
        assert!(out.status.success(), "{case}: {}", text(&out.stderr));
        let got: Vec<f64> = std::fs::read_to_string(dir.join("out"))
            .unwrap()
            .lines()
            .map(|l| l.parse().unwrap())
            .collect();
        let want: Vec<f64> = fx["test_predictions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert_eq!(got, want, "{case}: svm-predict on LIBSVM's model file");
        // The training command with the values LIBSVM used (float-rounded).
        let mut line = fx["command"].as_str().unwrap().to_string();
        for (key, opt) in [
            ("C", "-c"),
            ("nu", "-n"),
            ("epsilon_svr", "-p"),
            ("eps", "-e"),
        ] {
            if let Some(v) = fx["params"][key].as_f64() {
                line = replace_option(&line, opt, v);
            }
        }
        for (key, opt) in [("gamma", "-g"), ("coef0", "-r")] {
            if let Some(v) = fx["kernel"][key].as_f64() {
                line = replace_option(&line, opt, v);
            }
        }
        let mut w: Vec<String> = words(&line)[1..].to_vec();
        let n = w.len();
        w[n - 2] = repo().join(&w[n - 2]).display().to_string();
        w[n - 1] = "retrained.model".to_string();
        w.insert(0, "-q".to_string());
        let out = run_in(&dir, "svm-train", &as_reference_parses(&w, true), true);
        assert!(out.status.success(), "{case}: {}", text(&out.stderr));
        let ours = dir.join("retrained.model");
        assert_models_match(case, &ours, Path::new(&model), 1e-10, &[]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `line` with option `opt`'s value replaced by `v` (when present).
fn replace_option(line: &str, opt: &str, v: f64) -> String {
    let mut w = words(line);
    if let Some(i) = w.iter().position(|a| a == opt) {
        w[i + 1] = format!("{v:?}");
    }
    w.join(" ")
}
