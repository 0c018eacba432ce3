//! The main job: kernel machines on the bundled datasets, one row per dataset and method,
//! with the papers' protocol (scale to [0, 1] on the training half, random stratified
//! half/half splits) on a few paired splits: the SVM with LIBSVM's defaults and with
//! SVM-CV, then the learned kernels, each with its paired difference against SVM-CV.

use crate::out::{out, outln};
use crate::progress;
use crate::report::{format_num, table};
use kernlearn::data::synthetic::with_noise_columns;
use kernlearn::data::{parse_csv, Dataset};
use kernlearn::experiment::{compare, Experiment, ExperimentReport};
use kernlearn::learner::{GridSettings, Progress, FELL_BACK};
use kernlearn::{Method, MethodKind, Result, Task};
use serde_json::{json, Value};

/// Datasets compiled into the binary, so the demo runs anywhere without setup, and how
/// many columns of seeded U(0, 1) noise per feature each gets (the irrelevant features a
/// learned kernel should find: 400 rows of banana, 2 features, with 6 noise columns).
const BUNDLED: [(&str, &str, usize); 6] = [
    ("heart", include_str!("../../../data/heart.csv"), 0),
    ("sonar", include_str!("../../../data/sonar.csv"), 0),
    (
        "ionosphere",
        include_str!("../../../data/ionosphere.csv"),
        0,
    ),
    ("wine", include_str!("../../../data/wine.csv"), 0),
    ("housing", include_str!("../../../data/housing.csv"), 0),
    ("banana", include_str!("../../../data/banana.csv"), 3),
];

/// Bundled set `name` with `noise` noise columns per feature (named `NAME+noise`).
fn bundled(name: &str, text: &str, noise: usize) -> Result<(String, Dataset)> {
    let data: Dataset = parse_csv(text, name, None)?;
    if noise == 0 {
        return Ok((name.to_string(), data));
    }
    Ok((
        format!("{name}+noise"),
        with_noise_columns(&data, noise, SEED)?,
    ))
}

/// The seed of the demo's split and of every method's own randomness.
const SEED: u64 = 0;

/// The learned-kernel methods of the table: the catalogue's demo methods that fit `task`.
fn learned_methods(task: Task) -> Vec<MethodKind> {
    MethodKind::all()
        .filter(|k| k.info().in_demo && k.supports(task))
        .collect()
}

/// Paired splits per dataset: the repeats of the papers' protocol, enough for a standard
/// error of the paired differences and well within a minute on a 2-core machine (three
/// splits, banana+noise and the ARD-SVM included: 15 CPU-seconds, 10 s wall).
/// `kernlearn experiment --baseline svm` runs as many as asked.
const SPLITS: usize = 3;

/// The papers' protocol with [`SPLITS`] repeats (seeds `SEED`, `SEED + 1`, …).
fn protocol(method: Method) -> Experiment {
    Experiment {
        repeats: SPLITS,
        seed: SEED,
        ..Experiment::new(method)
    }
}

/// Runs the demonstration and prints a table (or one JSON object).
pub fn run(as_json: bool, quiet: bool) -> Result<()> {
    let most_learned = learned_methods(Task::Classification).len();
    let runs_per_dataset = (2 + most_learned as u64) * SPLITS as u64;
    let fits = BUNDLED.len() as u64 * runs_per_dataset;
    if !quiet && !as_json {
        // Before any work: what runs and for how long, also when no bar can be drawn.
        eprintln!(
            "kernlearn demo: SVM, SVM-CV and {most_learned} learned kernels on {} bundled \
             datasets, {SPLITS} paired splits each ({fits} fits, about 15 s on 2 cores; \
             `kernlearn --help` lists the commands)",
            BUNDLED.len()
        );
    }
    let pb = progress::bar(quiet, fits, "fits");
    let mut rows = Vec::new();
    let mut records = Vec::new();
    for (name, text, noise) in BUNDLED {
        let (name, data) = bundled(name, text, noise)?;
        let real = (noise > 0).then(|| data.n_features() / (1 + noise));
        let name = name.as_str();
        let tick = |p: Progress| {
            if matches!(p, Progress::RepeatDone(_)) {
                pb.inc(1)
            }
        };
        let fixed = Method::defaults(MethodKind::base(), &data, None, SEED)?;
        let task = fixed.task();
        pb.set_message(format!("{name}: SVM"));
        let mut default = protocol(fixed).run(name, &data, &tick)?;
        default.method = format!("{} default", default.method);
        let cv = Method::defaults(
            MethodKind::base(),
            &data,
            Some(GridSettings::default()),
            SEED,
        )?;
        pb.set_message(format!("{name}: {}", cv.name()));
        let baseline = protocol(cv).run(name, &data, &tick)?;
        let mut reports = vec![default];
        let learned = learned_methods(task);
        for kind in learned.iter().copied() {
            let method = Method::defaults(kind, &data, Some(GridSettings::default()), SEED)?;
            pb.set_message(format!("{name}: {}", method.name()));
            let mut report = protocol(method).run(name, &data, &tick)?;
            report.paired = Some(compare(&report, &baseline)?);
            reports.push(report);
        }
        pb.inc(((most_learned - learned.len()) * SPLITS) as u64);
        reports.insert(1, baseline);
        for r in reports {
            rows.push(row(&r, real));
            records.push(record(&r, real));
        }
    }
    pb.finish_and_clear();
    if as_json {
        outln!("{}", json!({ "splits": SPLITS, "results": records }));
    } else {
        outln!(
            "kernlearn demo: kernel machines and learned kernels on each bundled dataset,\n\
             features scaled to [0, 1] on each training half, {SPLITS} random stratified 50/50\n\
             splits (seeds 0–{}), every method on the same splits; train/test: means over them.\n\
             `default`: LIBSVM's defaults (γ = 1/d, C = 1, ε = 0.1). SVM-CV / SVR-CV: σ and C\n\
             (and ε) by 5-fold grid search on the training half (the papers' protocol).\n\
             KNPL, DANK, DANK-SVR: learned G ⊙ K / F ⊙ K on the SVM-CV kernel (KNPL's γ by CV;\n\
             DANK τ = 0.01, η ∈ {{1, 0.1, 0.01}}·‖α_SVM‖² by CV). UNIFORM, MWUMKL: the thesis's\n\
             12 kernels on every single feature (trace-normalised), C from SVM-CV; sparse\n\
             MWUMKL, ε = 0.005 (thesis §5.4.1.2). LD-MKL (thesis Algorithm 7): linear,\n\
             quadratic and Gaussian (γ = 1/d) kernels on all features, SVR gates, C from\n\
             SVM-CV. ARD-SVM: one Gaussian width per feature, learned by kernel-target\n\
             alignment on each training part, scale and C by CV. banana+noise: 400 rows of\n\
             banana (2 features) with 6 columns of U(0, 1) noise; `relevance on real`: the\n\
             learned kernel's share of relevance on the 2 real columns (ARD-SVM; MKL: its\n\
             kernel weights per feature), kept or declined.\n\
             Each learned kernel falls back to SVM-CV on a split unless it beats it by more\n\
             than one standard error in the selection's 5-fold CV and again on fresh folds\n\
             (`fell back`: on how many splits).\n\
             Δ vs SVM-CV: mean paired difference of the test score ± its standard error over\n\
             the splits (points of accuracy %, or SVR-CV's RSE minus the method's: positive =\n\
             better than SVM-CV); W/T/L: splits won, tied, lost against SVM-CV.\n\
             Classification: accuracy in %; regression: relative squared error.\n",
            SPLITS - 1
        );
        let header = [
            "dataset",
            "n",
            "d",
            "method",
            "train",
            "test",
            "Δ vs SVM-CV ± SE",
            "W/T/L",
            "fell back",
            "relevance on real",
            "#SV",
            "select s",
            "fit s",
        ];
        out!("{}", table(&header, &rows));
    }
    Ok(())
}

/// The report's JSON record: method, dataset, means, the paired comparison and, on a
/// set with noise columns, the mean relevance on its `real` columns.
fn record(r: &ExperimentReport, real: Option<usize>) -> Value {
    json!({
        "dataset": r.dataset,
        "method": r.method,
        "summary": r.summary,
        "paired": r.paired,
        "fell_back": fell_back(r),
        "relevance_on_real": real.and_then(|k| relevance_on_real(r, k)),
    })
}

/// Mean over the splits whose model learned a relevance of its share on the first
/// `real` columns (the data's own; the rest are noise).
fn relevance_on_real(r: &ExperimentReport, real: usize) -> Option<f64> {
    let shares: Vec<f64> = (r.runs.iter())
        .filter_map(|run| run.relevance.as_ref())
        .map(|v| v[..real.min(v.len())].iter().sum())
        .collect();
    (!shares.is_empty()).then(|| shares.iter().sum::<f64>() / shares.len() as f64)
}

/// On how many splits the method fell back to SVM-CV, when it has the fallback.
fn fell_back(r: &ExperimentReport) -> Option<(usize, usize)> {
    let flags: Vec<f64> = (r.runs.iter())
        .filter_map(|run| run.chosen.other.get(FELL_BACK).copied())
        .collect();
    (!flags.is_empty()).then(|| (flags.iter().filter(|&&f| f == 1.0).count(), flags.len()))
}

fn row(r: &ExperimentReport, real: Option<usize>) -> Vec<String> {
    let mean = |k: &str| r.summary.get(k).map(|m| m.mean);
    // Accuracy in percent, as `experiment` prints it; RSE as a ratio.
    let percent = r.primary_metric == "accuracy";
    let metric = &r.primary_metric;
    let (train, test) = (
        mean(&format!("train_{metric}")),
        mean(&format!("test_{metric}")),
    );
    let score = |v: Option<f64>| match v {
        Some(a) if percent => format!("{:.2}", 100.0 * a),
        other => other.map_or("-".into(), format_num),
    };
    let fmt = |v: Option<f64>| v.map_or("-".into(), format_num);
    let (delta, wtl) = match &r.paired {
        Some(p) if percent => (
            format!(
                "{:+.2} ± {:.2}",
                100.0 * p.mean_difference,
                100.0 * p.standard_error
            ),
            p.win_tie_loss(),
        ),
        Some(p) => (
            format!("{:+.4} ± {:.4}", p.mean_difference, p.standard_error),
            p.win_tie_loss(),
        ),
        None => ("-".into(), "-".into()),
    };
    vec![
        r.dataset.clone(),
        r.n.to_string(),
        r.d.to_string(),
        r.method.clone(),
        score(train),
        score(test),
        delta,
        wtl,
        fell_back(r).map_or("-".into(), |(k, n)| format!("{k}/{n}")),
        (real.and_then(|k| relevance_on_real(r, k)))
            .map_or("-".into(), |s| format!("{:.0} %", 100.0 * s)),
        mean("n_support").map_or("-".into(), |v| format!("{v:.0}")),
        fmt(mean("select_seconds")),
        fmt(mean("fit_seconds")),
    ]
}
