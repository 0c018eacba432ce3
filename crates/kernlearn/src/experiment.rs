//! The repeated-split experiment protocol of the papers' tables (KNPL and DANK papers,
//! section "Experiments"; Moeller 2017, §3.5 and §4.5):
//! for each repeat `r` a seeded random split (seed `base_seed + r`; stratified for
//! classification), a scaler fitted on the training part only, model selection and
//! fitting on the training part, and train / test scores; then mean ± sample std over
//! the repeats.
//!
//! The method is any [`Method`] (a kernel machine with fixed parameters or SVM-CV, or a
//! kernel-learning method with its own selection), fitted on each training part by
//! [`Pipeline::fit`], the same path as `kernlearn fit`.
//!
//! [`paired`]: a method against a baseline (SVM-CV) on the same splits: mean paired
//! difference, standard error, win / tie / loss and the Wilcoxon signed-rank test
//! ([`Experiment::run_paired`], [`paired_table`]).

pub mod paired;

pub use paired::{compare, wilcoxon_signed_rank, PairedComparison, Wilcoxon, WilcoxonMethod};

use crate::data::{stratified_split, train_test_split, Dataset, ScaleMode};
use crate::learner::{ChosenParams, Method, Progress, ProgressFn, FELL_BACK};
use crate::metrics::{accuracy, mse, relative_squared_error};
use crate::pipeline::Pipeline;
use crate::predictor::Task;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Instant;

/// The protocol: how many repeats, how the data are split and scaled.
#[derive(Clone, Debug)]
pub struct Experiment {
    /// The method fitted on each training part.
    pub method: Method,
    /// Number of random splits (the papers: 10).
    pub repeats: usize,
    /// Fraction of the data in the test part (the papers: 0.5).
    pub test_fraction: f64,
    /// Scaling fitted on each training part (the papers: `[0, 1]`).
    pub scale: ScaleMode,
    /// Repeat `r` uses seed `seed + r` (split, CV folds).
    pub seed: u64,
}

/// One repeat's results.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RepeatResult {
    /// 0-based repeat number.
    pub repeat: usize,
    /// Seed of the split and of the method.
    pub seed: u64,
    /// Size of the training part.
    pub n_train: usize,
    /// Size of the test part.
    pub n_test: usize,
    /// Indices (into the dataset) of the training part.
    #[serde(skip)]
    pub train_indices: Vec<usize>,
    /// Indices (into the dataset) of the test part.
    #[serde(skip)]
    pub test_indices: Vec<usize>,
    /// Scores on the training part: `accuracy`, or `mse` and `rse`.
    pub train: BTreeMap<String, f64>,
    /// Scores on the test part.
    pub test: BTreeMap<String, f64>,
    /// After a fallback to SVM-CV, the declined learned kernel's scores on the test part
    /// (what keeping it would have scored: the evidence for choosing a fallback rule).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declined_test: Option<BTreeMap<String, f64>>,
    /// Parameters used.
    pub chosen: ChosenParams,
    /// Support vectors of the final model.
    pub n_support: usize,
    /// Each feature's relevance to the learned kernel, for models that learn one
    /// (`feature_relevance` of [`crate::Predictor`]); after a fallback to SVM-CV, the declined
    /// learned kernel's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relevance: Option<Vec<f64>>,
    /// Seconds selecting parameters.
    pub select_seconds: f64,
    /// Seconds fitting the final model.
    pub fit_seconds: f64,
    /// Seconds predicting the test part.
    pub predict_seconds: f64,
}

/// Mean and sample standard deviation (n − 1; 0 for a single value).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeanStd {
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation (divides by n − 1).
    pub std: f64,
}

impl MeanStd {
    /// Of `values` (empty: both NaN).
    pub(crate) fn of(values: &[f64]) -> MeanStd {
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let std = if values.len() < 2 {
            0.0
        } else {
            (values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1.0)).sqrt()
        };
        MeanStd { mean, std }
    }
}

/// Results of an experiment on one dataset.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ExperimentReport {
    /// Dataset name (file stem).
    pub dataset: String,
    /// Samples.
    pub n: usize,
    /// Features.
    pub d: usize,
    /// Method name (`SVM-CV`, `SVR-CV`, `c-svc`, …).
    pub method: String,
    /// `classification` or `regression`.
    pub task: String,
    /// The metric of the summary tables: `accuracy` or `rse`.
    pub primary_metric: String,
    /// The protocol.
    pub repeats: usize,
    /// Fraction held out.
    pub test_fraction: f64,
    /// Scaling mode name.
    pub scale: String,
    /// Base seed.
    pub seed: u64,
    /// Mean ± std over repeats of `train_<metric>`, `test_<metric>`, `n_support`,
    /// `select_seconds`, `fit_seconds`, `predict_seconds`.
    pub summary: BTreeMap<String, MeanStd>,
    /// Seconds for the whole experiment on this dataset.
    pub total_seconds: f64,
    /// One entry per repeat.
    pub runs: Vec<RepeatResult>,
    /// This method against a baseline on the same splits, when one ran
    /// ([`Experiment::run_paired`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paired: Option<PairedComparison>,
}

impl Experiment {
    /// The papers' protocol (10 repeats, 50/50, `[0, 1]` scaling, seed 0) for `method`.
    pub fn new(method: Method) -> Self {
        Self {
            method,
            repeats: 10,
            test_fraction: 0.5,
            scale: ScaleMode::ZeroOne,
            seed: 0,
        }
    }

    /// Checks the protocol's own parameters.
    pub(crate) fn validate(&self) -> Result<()> {
        if self.repeats < 1 {
            return Err(Error::param("repeats", "need at least 1 repeat, got 0"));
        }
        let f = self.test_fraction;
        if !(f > 0.0 && f < 1.0) {
            return Err(Error::param(
                "test_fraction",
                format!("must be strictly between 0 and 1, got {f}"),
            ));
        }
        Ok(())
    }

    /// Train and test indices of repeat `r`.
    pub(crate) fn split(&self, data: &Dataset, r: usize) -> Result<(Vec<usize>, Vec<usize>)> {
        let seed = self.seed.wrapping_add(r as u64);
        if self.method.task() == Task::Regression {
            train_test_split(data.len(), self.test_fraction, seed)
        } else {
            stratified_split(&data.y, self.test_fraction, seed)
        }
    }

    /// Runs every repeat on `data` (named `name` in the report).
    pub fn run(
        &self,
        name: &str,
        data: &Dataset,
        progress: ProgressFn,
    ) -> Result<ExperimentReport> {
        self.check_data(name, data)?;
        let start = Instant::now();
        // The repeats' MKL selection tables have the same size: one buffer serves them.
        let _reuse = crate::bank::TableBufferReuse::begin();
        let mut runs = Vec::with_capacity(self.repeats);
        for r in 0..self.repeats {
            runs.push(self.run_repeat(data, r, progress)?);
            progress(Progress::RepeatDone(r));
        }
        self.report(name, data, runs, start.elapsed().as_secs_f64())
    }

    /// Checks the protocol and that `data` (named `name`) suits the method's task.
    pub fn check_data(&self, name: &str, data: &Dataset) -> Result<()> {
        self.validate()?;
        if data.y.len() != data.len() || data.is_empty() {
            return Err(Error::data(format!(
                "{name}: the experiment needs one label per sample"
            )));
        }
        if self.method.task() == Task::Regression {
            data.validate_regression()
        } else {
            data.validate_classification().map(|_| ())
        }
    }

    /// Repeat `r` alone (its split, fit and scores): the repeats of an experiment are
    /// independent, so they may run anywhere (e.g. as Ray tasks) and be put together by
    /// [`Experiment::report`]. Call [`Experiment::check_data`] first.
    pub fn run_repeat(
        &self,
        data: &Dataset,
        r: usize,
        progress: ProgressFn,
    ) -> Result<RepeatResult> {
        let regression = self.method.task() == Task::Regression;
        let seed = self.seed.wrapping_add(r as u64);
        let (train_idx, test_idx) = self.split(data, r)?;
        let (train, test) = (data.subset(&train_idx), data.subset(&test_idx));
        let fitted = Pipeline::fit(self.scale, &self.method, &train, seed, progress)?;
        let pipeline = &fitted.pipeline;
        // What the learned kernel chose, kept or declined for SVM-CV.
        let relevance_of_learned = fitted.learned().0.model.feature_relevance();
        let train_pred = pipeline.predict(&train.x)?;
        let start = Instant::now();
        let test_pred = pipeline.predict(&test.x)?;
        let predict_seconds = start.elapsed().as_secs_f64();
        let declined_test = match fitted.learned() {
            (declined, true) => Some(scores(regression, &declined.predict(&test.x)?, &test.y)?),
            _ => None,
        };
        Ok(RepeatResult {
            repeat: r,
            seed,
            n_train: train.len(),
            n_test: test.len(),
            train: scores(regression, &train_pred, &train.y)?,
            test: scores(regression, &test_pred, &test.y)?,
            declined_test,
            train_indices: train_idx,
            test_indices: test_idx,
            n_support: pipeline.model.summary().n_support.unwrap_or(0),
            relevance: relevance_of_learned,
            chosen: fitted.chosen,
            select_seconds: fitted.select_seconds,
            fit_seconds: fitted.fit_seconds,
            predict_seconds,
        })
    }

    /// The report of `data` (named `name`) from its repeats in order, which took
    /// `total_seconds` in all.
    pub fn report(
        &self,
        name: &str,
        data: &Dataset,
        runs: Vec<RepeatResult>,
        total_seconds: f64,
    ) -> Result<ExperimentReport> {
        if runs.len() != self.repeats || runs.iter().enumerate().any(|(r, run)| run.repeat != r) {
            return Err(Error::param(
                "runs",
                format!("need repeats 0..{} in order", self.repeats),
            ));
        }
        let regression = self.method.task() == Task::Regression;
        Ok(ExperimentReport {
            dataset: name.to_string(),
            n: data.len(),
            d: data.x.n_cols(),
            method: self.method.name(),
            task: if regression {
                "regression"
            } else {
                "classification"
            }
            .into(),
            primary_metric: if regression { "rse" } else { "accuracy" }.into(),
            repeats: self.repeats,
            test_fraction: self.test_fraction,
            scale: self.scale.name().into(),
            seed: self.seed,
            summary: summarize(&runs),
            total_seconds,
            runs,
            paired: None,
        })
    }

    /// Runs `baseline` (e.g. SVM-CV) and then this experiment's method on the same splits
    /// of `data` (same protocol and seeds), and attaches to the method's report the
    /// paired comparison ([`compare`]). Returns the baseline's report and the method's.
    pub fn run_paired(
        &self,
        name: &str,
        data: &Dataset,
        baseline: &Method,
        progress: ProgressFn,
    ) -> Result<(ExperimentReport, ExperimentReport)> {
        if baseline.task() != self.method.task() {
            return Err(Error::param(
                "baseline",
                format!(
                    "{} does {} but {} does {}",
                    baseline.name(),
                    baseline.task().name(),
                    self.method.name(),
                    self.method.task().name()
                ),
            ));
        }
        let base = Experiment {
            method: baseline.clone(),
            ..self.clone()
        }
        .run(name, data, progress)?;
        let mut report = self.run(name, data, progress)?;
        report.paired = Some(compare(&report, &base)?);
        Ok((base, report))
    }
}

/// `accuracy`, or `mse` and `rse` (RSE left out when the truth is constant).
fn scores(regression: bool, pred: &[f64], truth: &[f64]) -> Result<BTreeMap<String, f64>> {
    let mut m = BTreeMap::new();
    if regression {
        m.insert("mse".into(), mse(pred, truth)?);
        if let Ok(rse) = relative_squared_error(pred, truth) {
            m.insert("rse".into(), rse);
        }
    } else {
        m.insert("accuracy".into(), accuracy(pred, truth)?);
    }
    Ok(m)
}

/// Mean ± sample std of every per-repeat number (metrics present in every repeat only).
pub(crate) fn summarize(runs: &[RepeatResult]) -> BTreeMap<String, MeanStd> {
    let mut columns: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for r in runs {
        for (part, m) in [("train", &r.train), ("test", &r.test)] {
            for (k, v) in m {
                columns.entry(format!("{part}_{k}")).or_default().push(*v);
            }
        }
        for (k, v) in [
            ("n_support", r.n_support as f64),
            ("select_seconds", r.select_seconds),
            ("fit_seconds", r.fit_seconds),
            ("predict_seconds", r.predict_seconds),
        ] {
            columns.entry(k.into()).or_default().push(v);
        }
    }
    columns
        .into_iter()
        .filter(|(_, v)| v.len() == runs.len())
        .map(|(k, v)| (k, MeanStd::of(&v)))
        .collect()
}

/// `mean ± std` of `key`, ×100 for accuracies (the papers' %), `–` when missing.
fn cell(report: &ExperimentReport, part: &str) -> String {
    let key = format!("{part}_{}", report.primary_metric);
    // One repeat has no spread: its value alone, not "± 0.00".
    let spread = |std: String| match report.repeats {
        1 => String::new(),
        _ => format!(" ± {std}"),
    };
    match report.summary.get(&key) {
        Some(s) if report.primary_metric == "accuracy" => {
            let std = spread(format!("{:.2}", 100.0 * s.std));
            format!("{:.2}{std}", 100.0 * s.mean)
        }
        Some(s) => format!("{:.3}{}", s.mean, spread(format!("{:.3}", s.std))),
        None => "–".into(),
    }
}

/// One markdown row per dataset: dataset, n, d, method, metric, train and test
/// mean ± std (accuracy in %, RSE as a ratio), mean select and fit seconds.
pub fn markdown_table(reports: &[ExperimentReport]) -> String {
    let mut s = String::from(
        "| dataset | n | d | method | metric | train | test | select s | fit s |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for r in reports {
        let mean = |k: &str| r.summary.get(k).map_or(0.0, |m| m.mean);
        let metric = if r.primary_metric == "accuracy" {
            "accuracy %"
        } else {
            "RSE"
        };
        s += &format!(
            "| {} | {} | {} | {} | {} | {} | {} | {:.3} | {:.4} |\n",
            r.dataset,
            r.n,
            r.d,
            r.method,
            metric,
            cell(r, "train"),
            cell(r, "test"),
            mean("select_seconds"),
            mean("fit_seconds"),
        );
    }
    s
}

/// One markdown row per report with a paired comparison: dataset, method, baseline, the
/// test means of both, the mean paired difference ± its standard error (accuracy in
/// points of %, RSE as a ratio; positive = the method is better), W/T/L over the splits,
/// the two-sided Wilcoxon signed-rank p-value, whether the method is worse than the
/// baseline by more than one standard error, and on how many splits its selection fell
/// back to the base SVM ([`FELL_BACK`]; `–` when the method has no fallback). Empty
/// string when no report has one.
pub fn paired_table(reports: &[ExperimentReport]) -> String {
    let rows: Vec<(&ExperimentReport, &PairedComparison)> = reports
        .iter()
        .filter_map(|r| r.paired.as_ref().map(|p| (r, p)))
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut s = String::from(
        "| dataset | method | baseline | splits | baseline test | method test | paired Δ ± SE | W/T/L | Wilcoxon p | worse by > 1 SE | fell back |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for (r, p) in rows {
        let percent = p.metric == "accuracy";
        let num = |v: f64| {
            if percent {
                format!("{:.2}", 100.0 * v)
            } else {
                format!("{v:.3}")
            }
        };
        let signed = |v: f64| {
            if percent {
                format!("{:+.2}", 100.0 * v)
            } else {
                format!("{v:+.4}")
            }
        };
        let method_mean = r
            .summary
            .get(&format!("test_{}", p.metric))
            .map_or("–".into(), |m| num(m.mean));
        let flags: Vec<f64> = (r.runs.iter())
            .filter_map(|run| run.chosen.other.get(FELL_BACK).copied())
            .collect();
        let fell_back = match flags.len() {
            0 => "–".to_string(),
            n => format!("{}/{n}", flags.iter().filter(|&&f| f == 1.0).count()),
        };
        s += &format!(
            "| {} | {} | {} | {} | {} | {} | {} ± {} | {} | {:.3} | {} | {fell_back} |\n",
            r.dataset,
            r.method,
            p.baseline,
            p.splits,
            num(p.baseline_mean),
            method_mean,
            signed(p.mean_difference),
            if p.splits < 2 {
                "– (one split)".to_string()
            } else {
                num(p.standard_error)
            },
            p.win_tie_loss(),
            p.wilcoxon.p_value,
            if p.splits < 2 {
                "– (one split: repeat to compare)"
            } else if p.worse_by_more_than(1.0) {
                "**yes**"
            } else {
                "no"
            },
        );
    }
    s
}

/// Header of [`csv_rows`].
pub const CSV_HEADER: &str = "dataset,method,repeat,seed,n_train,n_test,sigma,c,epsilon,cv_score,n_support,train_accuracy,test_accuracy,train_mse,test_mse,train_rse,test_rse,select_seconds,fit_seconds,predict_seconds,baseline,paired_difference,fell_back";

/// One CSV line per repeat (header [`CSV_HEADER`] first); empty cells where a value
/// does not apply. `paired_difference` is the repeat's paired difference against
/// `baseline` (see [`paired`]); `fell_back` is 1 when the method's selection fell back to
/// the base SVM on that repeat, 0 when it kept the learned kernel.
pub fn csv_rows(reports: &[ExperimentReport]) -> String {
    let opt = |v: Option<f64>| v.map_or(String::new(), |x| x.to_string());
    let mut s = String::from(CSV_HEADER);
    s.push('\n');
    for rep in reports {
        for r in &rep.runs {
            let cells = [
                rep.dataset.replace(',', ";"),
                rep.method.clone(),
                r.repeat.to_string(),
                r.seed.to_string(),
                r.n_train.to_string(),
                r.n_test.to_string(),
                opt(r.chosen.sigma),
                opt(r.chosen.c),
                opt(r.chosen.epsilon),
                opt(r.chosen.cv_score),
                r.n_support.to_string(),
                opt(r.train.get("accuracy").copied()),
                opt(r.test.get("accuracy").copied()),
                opt(r.train.get("mse").copied()),
                opt(r.test.get("mse").copied()),
                opt(r.train.get("rse").copied()),
                opt(r.test.get("rse").copied()),
                r.select_seconds.to_string(),
                r.fit_seconds.to_string(),
                r.predict_seconds.to_string(),
                rep.paired
                    .as_ref()
                    .map_or(String::new(), |p| p.baseline.clone()),
                opt(rep
                    .paired
                    .as_ref()
                    .and_then(|p| p.differences.get(r.repeat).copied())),
                opt(r.chosen.other.get(FELL_BACK).copied()),
            ];
            s += &cells.join(",");
            s.push('\n');
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Features;
    use crate::kernel::Kernel;
    use crate::learner::GridSettings;
    use crate::learner::SvmLearner;
    use crate::select::Grid;
    use crate::svm::SvmParams;
    use crate::svm::SvmType;

    /// Two noisy Gaussian blobs in 2-D, 40 points, labels ±1.
    fn blobs() -> Dataset {
        let mut rows = Vec::new();
        let mut y = Vec::new();
        for i in 0..40 {
            let t = i as f64;
            let (cx, label) = if i % 2 == 0 { (0.0, 1.0) } else { (1.5, -1.0) };
            rows.push(vec![cx + (t * 0.7).sin(), (t * 1.3).cos()]);
            y.push(label);
        }
        Dataset {
            x: Features::from_rows(&rows).unwrap(),
            y,
            feature_names: vec!["a".into(), "b".into()],
            target_name: "label".into(),
        }
    }

    fn svm_cv() -> Experiment {
        let params = SvmParams {
            kernel: Kernel::rbf_sigma(1.0).unwrap(),
            ..SvmParams::default()
        };
        let search = GridSettings {
            grid: Grid {
                sigmas: vec![0.5, 2.0],
                cs: vec![1.0, 4.0],
                epsilons: vec![],
            },
            folds: 3,
            gram_budget_bytes: 1 << 20,
            confirm_always: false,
            confirmation_folds: None,
        };
        let mut e = Experiment::new(Method::new(SvmLearner {
            params,
            search: Some(search),
        }));
        e.repeats = 3;
        e.seed = 7;
        e
    }

    #[test]
    fn deterministic_for_a_seed() {
        let data = blobs();
        let a = svm_cv().run("blobs", &data, &|_| {}).unwrap();
        let b = svm_cv().run("blobs", &data, &|_| {}).unwrap();
        for (x, y) in a.runs.iter().zip(&b.runs) {
            assert_eq!(x.test_indices, y.test_indices);
            assert_eq!(x.chosen, y.chosen);
            assert_eq!(x.train, y.train);
            assert_eq!(x.test, y.test);
        }
        assert_eq!(a.method, "SVM-CV");
        assert_eq!(a.runs.len(), 3);
        assert!(a.summary.contains_key("test_accuracy"));
    }

    #[test]
    fn splits_are_disjoint_and_differ_between_repeats() {
        let data = blobs();
        let exp = svm_cv();
        let mut tests = Vec::new();
        for r in 0..exp.repeats {
            let (train, test) = exp.split(&data, r).unwrap();
            assert_eq!(train.len() + test.len(), data.len());
            assert_eq!(test.len(), 20);
            assert!(train.iter().all(|i| !test.contains(i)));
            // stratified: both classes on each side, half each
            let pos = test.iter().filter(|&&i| data.y[i] > 0.0).count();
            assert_eq!(pos, 10);
            tests.push(test);
        }
        assert_ne!(tests[0], tests[1]);
        assert_ne!(tests[1], tests[2]);
        // the report's indices are those splits, seeded base + r
        let rep = exp.run("blobs", &data, &|_| {}).unwrap();
        for (r, run) in rep.runs.iter().enumerate() {
            assert_eq!(run.test_indices, tests[r]);
            assert_eq!(run.seed, 7 + r as u64);
        }
    }

    #[test]
    fn progress_counts_steps_and_repeats() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let (steps, repeats) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let exp = svm_cv();
        exp.run("blobs", &blobs(), &|p| match p {
            Progress::Step | Progress::Epoch { .. } => {
                steps.fetch_add(1, Ordering::Relaxed);
            }
            Progress::RepeatDone(_) => {
                repeats.fetch_add(1, Ordering::Relaxed);
            }
            Progress::Stage(_) => {}
        })
        .unwrap();
        assert_eq!(repeats.into_inner(), 3);
        assert_eq!(steps.into_inner() as u64, 3 * exp.method.steps());
    }

    #[test]
    fn summary_matches_hand_computation() {
        let exp = svm_cv();
        let rep = exp.run("blobs", &blobs(), &|_| {}).unwrap();
        let acc: Vec<f64> = rep.runs.iter().map(|r| r.test["accuracy"]).collect();
        let mean = (acc[0] + acc[1] + acc[2]) / 3.0;
        let var = acc.iter().map(|a| (a - mean).powi(2)).sum::<f64>() / 2.0;
        let s = rep.summary["test_accuracy"];
        assert!((s.mean - mean).abs() < 1e-12);
        assert!((s.std - var.sqrt()).abs() < 1e-12);
        // and a fixed case
        let m = MeanStd::of(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(m.mean, 2.5);
        assert!((m.std - (5.0f64 / 3.0).sqrt()).abs() < 1e-15);
        assert_eq!(MeanStd::of(&[0.8]).std, 0.0);
    }

    #[test]
    fn regression_reports_mse_and_rse() {
        let mut data = blobs();
        data.y = (0..40)
            .map(|i| (i as f64 * 0.3).sin() + data.x.row(i)[0])
            .collect();
        data.target_name = "target".into();
        let params = SvmParams {
            svm_type: SvmType::EpsilonSvr,
            kernel: Kernel::rbf_sigma(1.0).unwrap(),
            ..SvmParams::default()
        };
        let mut exp = Experiment::new(Method::new(SvmLearner {
            params,
            search: None,
        }));
        exp.repeats = 2;
        let rep = exp.run("reg", &data, &|_| {}).unwrap();
        assert_eq!(rep.primary_metric, "rse");
        assert_eq!(rep.method, "epsilon-svr");
        for k in ["train_mse", "test_mse", "train_rse", "test_rse"] {
            assert!(rep.summary.contains_key(k), "{k}");
        }
        assert_eq!(rep.runs[0].chosen.sigma, Some(1.0));
        let md = markdown_table(std::slice::from_ref(&rep));
        assert!(md.contains("| reg | 40 | 2 | epsilon-svr | RSE |"), "{md}");
        let csv = csv_rows(&[rep]);
        assert_eq!(csv.lines().count(), 3);
        assert_eq!(
            csv.lines().nth(1).unwrap().split(',').count(),
            CSV_HEADER.split(',').count()
        );
    }

    #[test]
    fn bad_protocol_parameters() {
        let data = blobs();
        let mut exp = svm_cv();
        exp.repeats = 0;
        let e = exp.run("blobs", &data, &|_| {}).unwrap_err().to_string();
        assert!(e.contains("repeats"), "{e}");
        for f in [0.0, 1.0, -0.5, f64::NAN] {
            let mut exp = svm_cv();
            exp.test_fraction = f;
            let e = exp.run("blobs", &data, &|_| {}).unwrap_err().to_string();
            assert!(e.contains("test_fraction"), "{e}");
        }
    }
}
