//! Edited model files: every model file of release 0.1.0 (tests/fixtures/models-v1)
//! with one length, count, index, class list or parameter changed is refused when it is
//! loaded, with a `malformed model file` error naming the field, and no edit of a
//! number or list makes loading and predicting panic.

use kernlearn::data::{read_dataset, Dataset, Features, ScaleMode};
use kernlearn::kernel::Kernel;
use kernlearn::predictor::ArtefactKind;
use kernlearn::svm::{SvmModel, SvmParams};
use kernlearn::{AnyModel, Method, MethodKind, MethodOptions, Pipeline, Task};
use serde_json::{json, Value};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every fixture and the data it predicts on (tests/fixtures/models-v1/README.md).
const FIXTURES: [(&str, &str); 8] = [
    ("svc", "data/heart.csv"),
    ("svr", "data/housing.csv"),
    ("knpl", "data/wine.csv"),
    ("dank", "data/heart.csv"),
    ("dank-scalable", "data/heart.csv"),
    ("mwumkl", "data/heart.csv"),
    ("nystrom-linear", "data/heart.csv"),
    ("ldmkl", "data/wine.csv"),
];

fn fixture(name: &str) -> Value {
    let path = repo().join(format!("tests/fixtures/models-v1/{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The first `n` rows of a data file (raw, unscaled features).
fn rows(data: &str, n: usize) -> Features {
    let d = read_dataset(&repo().join(data), None, None).unwrap();
    let idx: Vec<usize> = (0..n.min(d.len())).collect();
    d.x.select_rows(&idx)
}

fn load(v: &Value) -> kernlearn::Result<Pipeline> {
    Pipeline::from_json(&v.to_string(), "m.json")
}

/// `name` with `edit` applied to its JSON (`fitted` is the model's `fitted` object).
fn edited(name: &str, edit: impl FnOnce(&mut Value)) -> Value {
    let mut v = fixture(name);
    edit(&mut v);
    v
}

/// The message of the error loading `v` gives; it must be a malformed-model error
/// that mentions every one of `words`.
#[track_caller]
fn refused(v: &Value, words: &[&str]) -> String {
    let e = match load(v) {
        Ok(_) => panic!("an edited model was accepted (expected an error about {words:?})"),
        Err(e) => e.to_string(),
    };
    assert!(
        e.starts_with("model file m.json: malformed model file: "),
        "{e}"
    );
    for w in words {
        assert!(e.contains(w), "`{w}` missing from: {e}");
    }
    e
}

fn fitted(v: &mut Value) -> &mut Value {
    &mut v["model"]["fitted"]
}

/// The machines of a one-vs-one model (`fitted.machines.machines`).
fn machines(v: &mut Value) -> &mut Value {
    &mut fitted(v)["machines"]["machines"]
}

/// The first machine of a one-vs-one model.
fn machine(v: &mut Value) -> &mut Value {
    &mut machines(v)[0]
}

/// The first machine of a DANK classifier.
fn dank_machine(v: &mut Value) -> &mut Value {
    &mut fitted(v)["machines"]["classifier"]["machines"][0]
}

fn pop(v: &mut Value) {
    v.as_array_mut().unwrap().pop().unwrap();
}

#[test]
fn release_fixtures_pass_validation() {
    for (name, _) in FIXTURES {
        let p = load(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        p.model.validate().unwrap();
    }
}

#[test]
fn edited_svm_files_are_refused() {
    let e = refused(
        &edited("svc", |v| pop(&mut fitted(v)["sv_coef"][0])),
        &["sv_coef[0]"],
    );
    assert!(
        e.contains("sv_coef[0] has 117 coefficients, the model has 118 support vectors"),
        "{e}"
    );
    // The support vector matrix itself: its row count, its values.
    refused(
        &edited("svc", |v| {
            fitted(v)["support_vectors"]["n_rows"] = json!(117)
        }),
        &["support_vectors: matrix of n_rows = 117", "values"],
    );
    refused(
        &edited("svc", |v| pop(&mut fitted(v)["support_vectors"]["values"])),
        &["values", "1533"],
    );
    refused(
        &edited("svc", |v| {
            fitted(v)["support_vectors"]["n_cols"] = json!(u64::MAX)
        }),
        &["n_cols"],
    );
    // Shorter SV list: every SV field shortened consistently but the counts.
    refused(
        &edited("svc", |v| {
            let f = fitted(v);
            pop(&mut f["sv_indices"]);
        }),
        &["sv_indices", "117", "118"],
    );
    refused(
        &edited("svc", |v| fitted(v)["n_sv_per_class"] = json!([60, 57])),
        &["n_sv_per_class", "117", "118"],
    );
    refused(
        &edited("svc", |v| fitted(v)["classes"] = json!([1.0])),
        &["classes", "two"],
    );
    refused(
        &edited("svc", |v| fitted(v)["classes"] = json!([1.0, 1.0])),
        &["classes[1]", "classes[0]"],
    );
    refused(
        &edited("svc", |v| fitted(v)["rho"] = json!([])),
        &["rho", "0"],
    );
    refused(
        &edited("svc", |v| fitted(v)["prob_a"] = json!([1.0, 2.0])),
        &["prob_a", "2"],
    );
    refused(
        &edited("svc", |v| pop(&mut fitted(v)["prob_b"])),
        &["prob_b"],
    );
    refused(
        &edited("svc", |v| fitted(v)["n_features"] = json!(12)),
        &["n_features", "12", "13"],
    );
    for gamma in [json!(-1.0), json!(0.0)] {
        refused(
            &edited("svc", |v| fitted(v)["params"]["kernel"]["gamma"] = gamma),
            &["params", "gamma"],
        );
    }
    refused(
        &edited("svc", |v| fitted(v)["params"]["c"] = json!(0.0)),
        &["params", "C"],
    );
    // The pipeline around the model: scaler and feature names.
    refused(
        &edited("svc", |v| pop(&mut v["scaler"]["offset"])),
        &["scaler.offset", "12", "13"],
    );
    refused(
        &edited("svc", |v| pop(&mut v["scaler"]["scale"])),
        &["scaler.scale", "12", "13"],
    );
    refused(
        &edited("svc", |v| pop(&mut v["feature_names"])),
        &["feature_names", "12", "13"],
    );
    // A regressor has one decision function and no classes.
    refused(
        &edited("svr", |v| fitted(v)["classes"] = json!([1.0, 2.0])),
        &["classes"],
    );
    refused(
        &edited("svr", |v| fitted(v)["sv_coef"] = json!([])),
        &["sv_coef", "0"],
    );
    refused(
        &edited("svr", |v| fitted(v)["params"]["epsilon"] = json!(-1.0)),
        &["epsilon"],
    );
}

/// The Display of the whole error reads as the issue asks.
#[test]
fn the_message_names_the_file_the_field_and_the_numbers() {
    let e = load(&edited("svc", |v| pop(&mut fitted(v)["sv_coef"][0])))
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "model file m.json: malformed model file: sv_coef[0] has 117 coefficients, \
         the model has 118 support vectors"
    );
}

#[test]
fn precomputed_kernel_indices_are_checked_against_the_training_size() {
    let n = 12;
    let pts: Vec<f64> = (0..n).map(|i| (i as f64 * 0.7).sin()).collect();
    let y: Vec<f64> = (0..n)
        .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
        .collect();
    let gram: Vec<f64> = (0..n * n)
        .map(|k| (-(pts[k / n] - pts[k % n]).powi(2)).exp())
        .collect();
    let x = Features::new(n, n, gram).unwrap();
    let mut params = SvmParams::default();
    params.kernel = Kernel::Precomputed;
    let model = SvmModel::fit(&params, &x, &y).unwrap();
    let p = Pipeline::new(
        kernlearn::data::Scaler::identity(n),
        AnyModel::new(model),
        Vec::new(),
    );
    let mut v = serde_json::to_value(&p).unwrap();
    load(&v).unwrap();
    fitted(&mut v)["sv_indices"][0] = json!(n);
    refused(&v, &["sv_indices[0]", "12"]);
}

#[test]
fn edited_knpl_files_are_refused() {
    refused(
        &edited("knpl", |v| pop(machines(v))),
        &["machines.machines", "2", "3"],
    );
    refused(
        &edited("knpl", |v| machines(v)[0]["support"][0] = json!(100000)),
        &["machines.machines[0].support[0]", "100000", "130"],
    );
    refused(
        &edited("knpl", |v| pop(&mut machines(v)[0]["weights"])),
        &["machines.machines[0].weights"],
    );
    refused(
        &edited("knpl", |v| pop(&mut machines(v)[1]["coef"])),
        &["machines.machines[1]", "coef"],
    );
    refused(
        &edited("knpl", |v| pop(&mut machines(v)[0]["train"]["sq_norms"])),
        &["sq_norms", "129", "130"],
    );
    refused(
        &edited("knpl", |v| machines(v)[2]["kernel"]["gamma"] = json!(-1.0)),
        &["machines.machines[2]", "gamma"],
    );
    refused(
        &edited("knpl", |v| {
            fitted(v)["machines"]["classes"] = json!([1.0, 2.0, 1.0])
        }),
        &["machines.classes[2] = 1 repeats classes[0]"],
    );
    refused(
        &edited("knpl", |v| fitted(v)["n_features"] = json!(14)),
        &["n_features", "14", "13"],
    );
    refused(
        &edited("knpl", |v| pop(&mut fitted(v)["pairs"])),
        &["pairs"],
    );
}

#[test]
fn edited_dank_files_are_refused() {
    refused(
        &edited("dank", |v| pop(&mut dank_machine(v)["coef"])),
        &["machines.classifier.machines[0]", "coef", "72", "73"],
    );
    refused(
        &edited("dank", |v| {
            dank_machine(v)["train"]["points"]["n_rows"] = json!(119)
        }),
        &["machines.classifier.machines[0].train.points: matrix of n_rows = 119"],
    );
    refused(
        &edited("dank", |v| {
            fitted(v)["machines"]["classifier"]["classes"] = json!([1.0])
        }),
        &["machines.classifier.classes", "two"],
    );
    refused(
        &edited("dank", |v| {
            fitted(v)["params"]["kernel"]["gamma"] = json!(0.0)
        }),
        &["params", "gamma"],
    );
    refused(&edited("dank", |v| pop(&mut fitted(v)["info"])), &["info"]);
    refused(
        &edited("dank", |v| {
            fitted(v)["params"]["task"] = json!("regression")
        }),
        &["task"],
    );
    // Scalable DANK: routing centres, classes, the clusters' machines.
    refused(
        &edited("dank-scalable", |v| pop(&mut fitted(v)["centres"])),
        &["centres", "1", "2"],
    );
    refused(
        &edited("dank-scalable", |v| fitted(v)["classes"] = json!([1.0])),
        &["classes"],
    );
    refused(
        &edited("dank-scalable", |v| {
            fitted(v)["clusters"][0]["majority"] = json!(0.5)
        }),
        &["clusters[0].majority"],
    );
    refused(
        &edited("dank-scalable", |v| {
            fitted(v)["clusters"][1]["machine"]["support"][0] = json!(1000)
        }),
        &["clusters[1].machine.support[0]", "1000"],
    );
}

#[test]
fn edited_mkl_files_are_refused() {
    refused(
        &edited("mwumkl", |v| pop(&mut machine(v)["weights"])),
        &["machines.machines[0].weights", "155", "156"],
    );
    refused(
        &edited("mwumkl", |v| pop(&mut machine(v)["trace_factors"])),
        &["machines.machines[0].trace_factors", "155", "156"],
    );
    refused(
        &edited("mwumkl", |v| pop(&mut machine(v)["sv_indices"])),
        &["machines.machines[0]", "sv_indices", "216", "217"],
    );
    refused(
        &edited("mwumkl", |v| pop(&mut machine(v)["coef"])),
        &["machines.machines[0]", "coef", "216", "217"],
    );
    refused(
        &edited("mwumkl", |v| {
            fitted(v)["machines"]["classes"] = json!([2.0])
        }),
        &["machines.classes"],
    );
    refused(
        &edited("mwumkl", |v| fitted(v)["n_features"] = json!(12)),
        &["n_features"],
    );
    // LIBLINEAR+: the Nyström maps and the linear weights.
    refused(
        &edited("nystrom-linear", |v| {
            pop(&mut machine(v)["features"]["maps"][3]["values"])
        }),
        &["maps[3].values"],
    );
    refused(
        &edited("nystrom-linear", |v| {
            let r = machine(v)["features"]["maps"][0]["rank"].as_u64().unwrap();
            machine(v)["features"]["maps"][0]["rank"] = json!(r + 1);
        }),
        &["maps[0]"],
    );
    refused(
        &edited("nystrom-linear", |v| pop(&mut machine(v)["w"])),
        &["machines.machines[0].w", "456", "457"],
    );
    refused(
        &edited("nystrom-linear", |v| {
            pop(&mut machine(v)["features"]["maps"])
        }),
        &["maps", "155", "156"],
    );
}

#[test]
fn edited_localized_files_are_refused() {
    refused(
        &edited("ldmkl", |v| pop(&mut machine(v)["classifiers"])),
        &["machines.machines[0].classifiers", "2", "3"],
    );
    refused(
        &edited("ldmkl", |v| machine(v)["sv_rows"][0][0] = json!(5000)),
        &["sv_rows[0][0]", "5000", "178"],
    );
    refused(
        &edited("ldmkl", |v| pop(&mut machine(v)["sv_rows"][1])),
        &["sv_rows[1]"],
    );
    refused(
        &edited("ldmkl", |v| {
            machine(v)["gate"]["regressors"][0]["sv_coef"] = json!([])
        }),
        &["gate.regressors[0].sv_coef"],
    );
    refused(
        &edited("ldmkl", |v| {
            machine(v)["gate"]["regressors"][1]["params"]["kernel"]["gamma"] = json!(-2.0)
        }),
        &["gate.regressors[1].params", "gamma"],
    );
    refused(
        &edited("ldmkl", |v| {
            pop(&mut machine(v)["classifiers"][1]["weights"])
        }),
        &["classifiers[1].weights"],
    );
    refused(
        &edited("ldmkl", |v| {
            fitted(v)["machines"]["classes"] = json!([1.0, 2.0, 2.0])
        }),
        &["machines.classes[2]"],
    );
    refused(
        &edited("ldmkl", |v| {
            fitted(v)["params"]["method"] = json!({"method": "swmkl", "c": 1.0, "epsilon": 0.1})
        }),
        &["machines.machines[0]", "ldmkl", "swmkl"],
    );
}

/// One place in a fixture's JSON that a mutation changes.
enum Target {
    /// A number, by JSON pointer.
    Number(String),
    /// A list, by JSON pointer (its last element is removed).
    List(String),
}

/// The numbers and lists of `v`, in document order; of each list only the first and
/// last elements are entered (the middle ones are alike).
fn targets(v: &Value, pointer: String, out: &mut Vec<Target>) {
    match v {
        Value::Number(_) => out.push(Target::Number(pointer)),
        Value::Object(map) => {
            for (k, child) in map {
                targets(child, format!("{pointer}/{k}"), out);
            }
        }
        Value::Array(items) => {
            if !items.is_empty() {
                out.push(Target::List(pointer.clone()));
            }
            let mut idx = vec![0, items.len().saturating_sub(1)];
            idx.dedup();
            for i in idx.into_iter().filter(|&i| i < items.len()) {
                targets(&items[i], format!("{pointer}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// A described edit of a model's JSON.
type Mutation = (String, Box<dyn Fn(&mut Value)>);

/// Each mutation of one target: a description and the edit.
fn mutations(t: &Target) -> Vec<Mutation> {
    match t {
        Target::Number(p) => [json!(-1), json!(0), json!(1e308), json!(u64::MAX)]
            .into_iter()
            .map(|n| {
                let p2 = p.clone();
                let d = format!("{p} := {n}");
                let f: Box<dyn Fn(&mut Value)> =
                    Box::new(move |v: &mut Value| *v.pointer_mut(&p2).unwrap() = n.clone());
                (d, f)
            })
            .collect(),
        Target::List(p) => {
            let (p2, p3) = (p.clone(), p.clone());
            vec![
                (
                    format!("{p}: last element removed"),
                    Box::new(move |v: &mut Value| {
                        v.pointer_mut(&p2).unwrap().as_array_mut().unwrap().pop();
                    }),
                ),
                (
                    format!("{p}: emptied"),
                    Box::new(move |v: &mut Value| {
                        v.pointer_mut(&p3).unwrap().as_array_mut().unwrap().clear();
                    }),
                ),
            ]
        }
    }
}

/// Loads `v` and, when it loads, predicts on `x` as `kernlearn predict` does (decision
/// values, the prediction from them, probabilities) and through `predict`.
/// Returns what was not finite, when an output that came back `Ok` was not.
fn load_and_predict(v: &Value, x: &Features) -> Option<String> {
    let Ok(p) = load(v) else { return None };
    if let Ok(pred) = p.predict(x) {
        if pred.iter().any(|v| !v.is_finite()) {
            return Some(format!("predict returned {pred:?}"));
        }
    }
    let Ok(dec) = p.decision_function(x) else {
        return None;
    };
    if dec.iter().flatten().any(|v| !v.is_finite()) {
        return Some(format!("decision_function returned {dec:?}"));
    }
    let m = &p.model;
    for d in &dec {
        let _ = m.predict_from_decision(d);
        if let Ok(proba) = m.probabilities_from_decision(d) {
            if proba.iter().any(|v| !v.is_finite()) {
                return Some(format!("probabilities {proba:?}"));
            }
        }
    }
    let _ = (m.classes(), m.summary(), m.warnings(), m.params_json());
    None
}

/// Mutations per fixture at most (evenly spread when a fixture has more; every
/// release fixture has fewer, so all of them run).
const MAX_MUTATIONS: usize = 700;

/// Applies at most `max` mutations of `base` (evenly spread), loading and predicting on
/// `x` after each; returns how many ran and adds a line to `panics` for each panic or
/// non-finite output.
fn mutate(name: &str, base: &Value, x: &Features, max: usize, panics: &mut Vec<String>) -> usize {
    let mut found = Vec::new();
    targets(base, String::new(), &mut found);
    let all: Vec<_> = found.iter().flat_map(mutations).collect();
    let step = all.len().div_ceil(max).max(1);
    let mut total = 0;
    for (what, edit) in all.iter().step_by(step) {
        let mut v = base.clone();
        edit(&mut v);
        total += 1;
        let outcome = catch_unwind(AssertUnwindSafe(|| load_and_predict(&v, x)));
        if let Ok(Some(non_finite)) = &outcome {
            panics.push(format!("{name}: {what}: non-finite output: {non_finite}"));
        }
        if let Err(payload) = outcome {
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panics.push(format!("{name}: {what}: panicked: {msg}"));
        }
    }
    total
}

#[test]
fn no_mutation_of_a_number_or_list_panics() {
    let mut panics = Vec::new();
    let mut total = 0;
    for (name, data) in FIXTURES {
        total += mutate(
            name,
            &fixture(name),
            &rows(data, 4),
            MAX_MUTATIONS,
            &mut panics,
        );
    }
    assert!(total > 500, "only {total} mutations");
    assert!(
        panics.is_empty(),
        "{} of {total} mutations panicked:\n{}",
        panics.len(),
        panics.join("\n")
    );
}

/// Every `step`-th row of a data file.
fn every(data: &str, step: usize) -> Dataset {
    let d = read_dataset(&repo().join(data), None, None).unwrap();
    let idx: Vec<usize> = (0..d.len()).step_by(step).collect();
    d.subset(&idx)
}

/// Every method of the catalogue, fitted with its defaults on a small data set (three
/// classes where it can), passes validation, reloads and predicts the same, and no
/// mutation of its file panics; its per-row artefacts are the ones its catalogue entry
/// declares (this covers the methods without a release fixture:
/// LMKL, C-LMKL, SWMKL, EasyMKL, UNIFORM, ν-SVC, one-class, DANK-SVR, …).
#[test]
fn fresh_models_of_every_method_validate_and_survive_mutations() {
    let wine = every("data/wine.csv", 3);
    let heart = every("data/heart.csv", 3);
    let housing = every("data/housing.csv", 8);
    let mut panics = Vec::new();
    for kind in MethodKind::all() {
        let name = kind.name();
        // Scalable DANK and the hyperkernel machines are binary.
        let train = if kind == "dank-scalable".parse::<MethodKind>().unwrap()
            || kind == "hyperkernel".parse::<MethodKind>().unwrap()
        {
            &heart
        } else if kind.supports(Task::Classification) {
            &wine
        } else if kind.supports(Task::Regression) {
            &housing
        } else {
            &heart
        };
        let method = if kind == "m-dkmo".parse::<MethodKind>().unwrap() {
            // M-DKMO on features has no default kernels: it fuses the ones it is given.
            let mut options = MethodOptions::default();
            options.seed = 1;
            options
                .set("kernels", "rbf(gamma=1)@all;linear@all")
                .unwrap();
            Method::build(kind, &options, train, None)
        } else {
            Method::defaults(kind, train, None, 1)
        }
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let fitted = Pipeline::fit(ScaleMode::ZeroOne, &method, train, 1, &|_| {})
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let p = fitted.pipeline;
        p.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
        // The catalogue's declared per-row artefacts are what the fitted model lists.
        assert_eq!(
            p.model.artefact_names(ArtefactKind::PerRow),
            kind.info().representations,
            "{name}"
        );
        let text = serde_json::to_string(&p).unwrap();
        let back = Pipeline::from_json(&text, "m.json").unwrap_or_else(|e| panic!("{name}: {e}"));
        let x = train.x.select_rows(&[0, 1, 2]);
        assert_eq!(
            back.decision_function(&x).unwrap(),
            p.decision_function(&x).unwrap(),
            "{name}"
        );
        let v: Value = serde_json::from_str(&text).unwrap();
        mutate(name, &v, &x, 150, &mut panics);
    }
    assert!(panics.is_empty(), "{}", panics.join("\n"));
}
