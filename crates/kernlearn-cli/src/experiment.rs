//! `kernlearn experiment`: the papers' repeated-split protocol on one or more datasets
//! (SVM-CV / SVR-CV with `--select grid`).

use crate::args::ModelArgs;
use crate::out::{out, outln};
use crate::progress;
use crate::select::SelectArgs;
use clap::{Args, ValueEnum};
use kernlearn::data::{read_dataset, Format};
use kernlearn::experiment::{csv_rows, markdown_table, paired_table, Experiment, ExperimentReport};
use kernlearn::learner::Progress;
use kernlearn::output::{write_atomic, Outputs};
use kernlearn::{Error, Result};
use kernlearn::{Method, MethodKind};
use serde_json::json;
use std::path::PathBuf;

/// A baseline run on the same splits for the paired comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Baseline {
    /// The SVM on the Gaussian kernel: SVM-CV / SVR-CV with `--select grid`, LIBSVM's
    /// defaults with `--select none`.
    Svm,
}

/// How parameters are chosen on each training part.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SelectMode {
    /// Grid search with k-fold cross-validation (σ, C, and ε for SVR).
    Grid,
    /// Use the model options as given.
    None,
}

/// Options of `kernlearn experiment`.
#[derive(Args, Debug, Clone)]
pub struct ExperimentArgs {
    /// Data files (repeatable), one table row each.
    #[arg(long = "data", short = 'd', required = true)]
    pub data: Vec<PathBuf>,
    /// Input format; by default chosen from each file's extension.
    #[arg(long)]
    pub format: Option<Format>,
    /// Label/target column (default: the last column).
    #[arg(long)]
    pub target: Option<String>,
    /// Parameter selection on each training part.
    #[arg(long, value_enum, default_value_t = SelectMode::Grid)]
    pub select: SelectMode,
    /// Number of random splits (repeat r uses seed --seed + r).
    #[arg(long, default_value_t = 10)]
    pub repeats: usize,
    /// Fraction of each dataset in the test part (stratified for classification).
    #[arg(long, default_value_t = 0.5)]
    pub test_fraction: f64,
    /// Also run this baseline on the same splits and report, per dataset, the mean paired
    /// difference of the test metric (positive: the method is better), its standard
    /// error, win/tie/loss over the splits and the Wilcoxon signed-rank p-value.
    #[arg(long, value_enum)]
    pub baseline: Option<Baseline>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Also write one CSV row per repeat here.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// Also write the markdown table here.
    #[arg(long)]
    pub markdown: Option<PathBuf>,
    /// Replace existing --csv / --markdown files.
    #[arg(long)]
    pub force: bool,
}

/// `kernlearn experiment`.
pub fn run(a: &ExperimentArgs, model: &ModelArgs, grid: &SelectArgs, quiet: bool) -> Result<()> {
    // Check the protocol before reading anything.
    if a.repeats < 1 {
        return Err(Error::param("repeats", "need at least 1 repeat, got 0"));
    }
    if !(a.test_fraction > 0.0 && a.test_fraction < 1.0) {
        return Err(Error::param(
            "test-fraction",
            format!("must be strictly between 0 and 1, got {}", a.test_fraction),
        ));
    }
    let inputs: Vec<&std::path::Path> = a.data.iter().map(PathBuf::as_path).collect();
    let mut outputs = Outputs::new(&inputs, a.force);
    for k in model.options.input_files() {
        outputs.add_input(k);
    }
    for p in a.csv.iter().chain(&a.markdown) {
        outputs.plan(p)?;
    }
    let mut reports: Vec<ExperimentReport> = Vec::new();
    let mut baselines: Vec<ExperimentReport> = Vec::new();
    for path in &a.data {
        crate::refuse_gram_split(path, a.format, "experiment")?;
    }
    for path in &a.data {
        let data = read_dataset(path, a.format, a.target.as_deref())?;
        let search = match a.select {
            SelectMode::None => grid.when(false).map(|_| None)?,
            SelectMode::Grid => Some(grid.settings()?),
        };
        let method = model.method(&data, search.clone())?;
        if search.is_some() {
            grid.refuse_unread(&method)?;
        }
        let exp = Experiment {
            method,
            repeats: a.repeats,
            test_fraction: a.test_fraction,
            scale: model.scale,
            seed: model.seed,
        };
        let name = path.file_stem().map_or_else(
            || path.display().to_string(),
            |s| s.to_string_lossy().into(),
        );
        let baseline = match a.baseline {
            None => None,
            Some(Baseline::Svm) => Some(Method::defaults(
                MethodKind::base(),
                &data,
                search.clone(),
                model.seed,
            )?),
        };
        let base_steps = baseline.as_ref().map_or(0, |b| b.steps() + 1);
        let steps = a.repeats as u64 * (exp.method.steps() + 1 + base_steps);
        let label = format!("{name}: {}", exp.method.name());
        let pb = progress::bar(quiet, steps, &label);
        let tick = |p: Progress| progress::show(&pb, &label, p);
        match &baseline {
            Some(b) => {
                let (base, report) = exp
                    .run_paired(&name, &data, b, &tick)
                    .map_err(|e| with_file(e, path))?;
                baselines.push(base);
                reports.push(report);
            }
            None => {
                let report = exp
                    .run(&name, &data, &tick)
                    .map_err(|e| with_file(e, path))?;
                reports.push(report);
            }
        }
        pb.finish_and_clear();
    }
    // Baseline rows first, then the method's, dataset by dataset.
    let all: Vec<ExperimentReport> = baselines.iter().chain(&reports).cloned().collect();
    let mut table = markdown_table(&all);
    let paired = paired_table(&reports);
    if !paired.is_empty() {
        table += &format!(
            "\nPaired against {} on the same {} splits (Δ = method − baseline in points of \
             accuracy %, or baseline − method in RSE: positive means the method is better; \
             SE = std(Δ)/√splits; W/T/L = splits the method won, tied, lost; two-sided \
             Wilcoxon signed-rank p):\n\n{paired}",
            baselines
                .first()
                .map_or("the baseline", |b| b.method.as_str()),
            a.repeats
        );
    }
    if let Some(p) = &a.csv {
        write_atomic(p, csv_rows(&all).as_bytes())?;
    }
    if let Some(p) = &a.markdown {
        write_atomic(p, table.as_bytes())?;
    }
    if a.json {
        if baselines.is_empty() {
            outln!("{}", json!({ "datasets": reports }));
        } else {
            outln!("{}", json!({ "datasets": reports, "baselines": baselines }));
        }
    } else {
        out!("{table}");
    }
    Ok(())
}

/// Data errors name the file they come from.
fn with_file(e: Error, path: &std::path::Path) -> Error {
    match e {
        Error::InvalidData(m) => Error::data(format!("{}: {m}", path.display())),
        other => other,
    }
}
