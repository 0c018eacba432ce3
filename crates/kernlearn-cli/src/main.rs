//! `kernlearn`: fit, predict and evaluate kernel machines from the command line.
//! Run without arguments for the demonstration on the bundled datasets.

mod args;
mod demo;
mod experiment;
mod figure;
mod generate;
mod libsvm_commands;
mod out;
mod progress;
mod report;
mod select;
mod sparse;
mod split;

use args::{read_for_prediction, DataArgs, ModelArgs, Rows};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use kernlearn::data::{stratified_split, train_test_split, Dataset, Format, ScaleMode};
use kernlearn::figure::{figure_path, trace_plot_paths, write_trace_plots};
use kernlearn::method::{spell, Spelling};
use kernlearn::output::{write_atomic, Outputs};
use kernlearn::predictor::ArtefactKind;
use kernlearn::{AnyModel, Error, FittedPipeline, Method, Pipeline, Result, Task};
use out::out;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser, Debug)]
#[command(
    name = "kernlearn",
    version,
    about = "Kernel machines and kernel learning",
    after_help = libsvm_commands::HELP
)]
struct Cli {
    /// No progress output.
    #[arg(long, short = 'q', global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Fit a model on a data file and save it.
    #[command(allow_negative_numbers = true)]
    Fit {
        #[command(flatten)]
        data: DataArgs,
        #[command(flatten)]
        model: ModelArgs,
        /// Where to save the model (JSON).
        #[arg(long = "model-out", short = 'o', alias = "model")]
        model_out: PathBuf,
        /// Skip scoring the model on its own training data (saves a prediction pass).
        #[arg(long)]
        no_train_score: bool,
        /// Overwrite an existing model file.
        #[arg(long)]
        force: bool,
        /// Write the per-iteration trace of KNPL / DANK / SPG-GMKL here (CSV), with two plots beside
        /// it: FILE's stem + `.png` (residual) and + `-objective.png`.
        #[arg(long)]
        trace: Option<PathBuf>,
        /// Draw each feature's relevance to the learned kernel here, as a bar chart (PNG
        /// or SVG): for models that learn one (ARD-SVM; MKL: its kernel weights per feature).
        #[arg(long, value_name = "IMAGE")]
        relevance_plot: Option<PathBuf>,
        /// `grid`: choose the method's hyper-parameters by cross-validation first (as
        /// `evaluate --select grid`), then fit and save the tuned model.
        #[arg(long, value_enum, default_value_t = experiment::SelectMode::None)]
        select: experiment::SelectMode,
        #[command(flatten)]
        grid: select::SelectArgs,
        #[command(flatten)]
        weights: args::WeightArgs,
        /// Keep a LIBSVM/SVMlight file sparse (CSR, memory and model size proportional to
        /// the non-zeros): for svm (`--select grid` and `--weight-file` too), scaling
        /// `none`, `maxabs` (or `01` on non-negative data); other methods refuse it. Unasked, a file whose dense
        /// form would take over 64 MiB and 8× its CSR form is kept sparse when the fit
        /// allows.
        #[arg(long)]
        sparse: bool,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Predict with a saved model; scores the predictions when the file has labels.
    Predict {
        /// Model file written by `kernlearn fit`.
        #[arg(long)]
        model: PathBuf,
        #[command(flatten)]
        data: DataArgs,
        /// Treat every column as a feature (no label column).
        #[arg(long)]
        no_labels: bool,
        /// Write the predictions here as CSV (header `prediction`, then the asked-for
        /// columns); `-` or no --output (without --json): standard output, with the
        /// scores on standard error.
        #[arg(long, short = 'o')]
        output: Option<PathBuf>,
        /// Add decision values to the output file.
        #[arg(long)]
        decision_values: bool,
        /// Add class probabilities to the output file (model fitted with --probability).
        #[arg(long)]
        probabilities: bool,
        /// DKMO / M-DKMO models: also draw the fused representation of these rows (the
        /// layer the softmax reads) projected on its first two principal components,
        /// coloured by label (the DKMO paper's Fig. 7 idea), as PNG or SVG.
        #[arg(long, value_name = "IMAGE")]
        fused_plot: Option<PathBuf>,
        /// Read a LIBSVM/SVMlight file sparse (CSR) and predict with the svm's sparse
        /// kernels (any svm model; other methods refuse it). Unasked, an svm model's
        /// file whose dense form would take over 64 MiB and 8× its CSR form is read so.
        #[arg(long)]
        sparse: bool,
        /// Overwrite an existing output file.
        #[arg(long)]
        force: bool,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Split, fit and score in one go.
    #[command(allow_negative_numbers = true)]
    Evaluate {
        #[command(flatten)]
        data: DataArgs,
        #[command(flatten)]
        model: ModelArgs,
        /// Separate test file (otherwise a seeded split of --data).
        #[arg(long)]
        test: Option<PathBuf>,
        /// Fraction of --data held out for testing (stratified for classification).
        #[arg(long, default_value_t = 0.2)]
        test_fraction: f64,
        /// `grid`: choose σ, C (and ε) by cross-validation on the training part first.
        #[arg(long, value_enum, default_value_t = experiment::SelectMode::None)]
        select: experiment::SelectMode,
        #[command(flatten)]
        grid: select::SelectArgs,
        #[command(flatten)]
        save: SaveArgs,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// The papers' protocol: repeated random splits, selection and scores per dataset.
    #[command(allow_negative_numbers = true)]
    Experiment {
        #[command(flatten)]
        exp: experiment::ExperimentArgs,
        #[command(flatten)]
        model: ModelArgs,
        #[command(flatten)]
        grid: select::SelectArgs,
    },
    /// Choose σ and C (and ε for SVR) by k-fold cross-validation over a grid.
    Select {
        #[command(flatten)]
        data: DataArgs,
        #[command(flatten)]
        model: ModelArgs,
        #[command(flatten)]
        select: select::SelectArgs,
        #[command(flatten)]
        save: SaveArgs,
        #[command(flatten)]
        weights: args::WeightArgs,
        /// Print one JSON object (with every grid point's score and the folds).
        #[arg(long)]
        json: bool,
    },
    /// Decision boundaries of SVM-CV, KNPL and DANK on a 2-D synthetic set, or with
    /// --gates where a localized method uses each kernel (PNG/SVG).
    Figure {
        #[command(flatten)]
        args: figure::FigureArgs,
    },
    /// Write a seeded stand-in of one of the papers' large sets (covtype, ijcnn1, year,
    /// cod-rna shapes) for time and memory benchmarks.
    Generate {
        #[command(flatten)]
        args: generate::GenerateArgs,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Split a data file into a training and a test file (seeded; stratified by class).
    Split {
        #[command(flatten)]
        args: split::SplitArgs,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// List the methods (name, family, tasks, what each is), or one method's options.
    Methods {
        /// A method: print what it is and every option it reads, with its help.
        #[arg(value_name = "METHOD", value_parser = args::method_parser())]
        method: Option<kernlearn::MethodKind>,
        /// Print the markdown table of the docs.
        #[arg(long, conflicts_with = "json")]
        markdown: bool,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// The demonstration run on the bundled datasets (also what no arguments do).
    Demo {
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
}

/// The command line, with `-h` showing one line per option.
fn parse_command_line() -> Cli {
    libsvm_commands::intercept(); // exits when argv[1] is svm-train, svm-predict or svm-scale
    let matches = args::one_line_help(Cli::command()).get_matches();
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

fn main() -> ExitCode {
    let cli = parse_command_line();
    let quiet = cli.quiet;
    let result = match cli.command {
        None => demo::run(false, quiet),
        Some(Command::Demo { json }) => demo::run(json, quiet),
        Some(Command::Split { args, json }) => split::run(&args, json),
        Some(Command::Generate { args, json }) => generate::run(&args, json, quiet),
        Some(Command::Methods {
            method,
            markdown,
            json,
        }) => {
            report::methods(method, markdown, json);
            Ok(())
        }
        Some(Command::Figure { args }) => figure::run(&args, quiet),
        Some(Command::Fit {
            data,
            model,
            model_out,
            no_train_score,
            force,
            trace,
            relevance_plot,
            select,
            grid,
            weights,
            sparse,
            json,
        }) => fit(
            &data,
            &model,
            &FitOutputs {
                weights: &weights,
                model_out: &model_out,
                trace: trace.as_deref(),
                relevance_plot: relevance_plot.as_deref(),
                train_score: !no_train_score,
                force,
                json,
                grid: match grid.when(select == experiment::SelectMode::Grid) {
                    Ok(g) => g,
                    Err(e) => {
                        eprintln!("error: {}", spell(&e.to_string(), Spelling::CommandLine));
                        return ExitCode::FAILURE;
                    }
                },
                sparse,
            },
            quiet,
        ),
        Some(Command::Predict {
            model,
            data,
            no_labels,
            output,
            decision_values,
            probabilities,
            fused_plot,
            sparse,
            force,
            json,
        }) => predict(&PredictArgs {
            model: &model,
            data: &data,
            no_labels,
            output: output.as_deref(),
            decision_values,
            probabilities,
            fused_plot: fused_plot.as_deref(),
            sparse,
            force,
            json,
            quiet,
        }),
        Some(Command::Select {
            data,
            model,
            select,
            save,
            weights,
            json,
        }) => select::run(&data, &model, &select, (&save, &weights), json, quiet),
        Some(Command::Evaluate {
            data,
            model,
            test,
            test_fraction,
            select,
            grid,
            save,
            json,
        }) => {
            let grid = match grid.when(select == experiment::SelectMode::Grid) {
                Ok(g) => g,
                Err(e) => {
                    eprintln!("error: {}", spell(&e.to_string(), Spelling::CommandLine));
                    return ExitCode::FAILURE;
                }
            };
            let split = Holdout {
                test: test.as_deref(),
                test_fraction,
            };
            evaluate(&data, &model, &split, grid, &save, json, quiet)
        }
        Some(Command::Experiment { exp, model, grid }) => {
            experiment::run(&exp, &model, &grid, quiet)
        }
    };
    out::flush();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", spell(&e.to_string(), Spelling::CommandLine));
            ExitCode::FAILURE
        }
    }
}

/// Fits `method` (with its selection) on `train` through the library's one fitting
/// path, with a progress bar: the unit of work of `fit`, `select`, `evaluate`, the demo.
pub fn fit_method(
    train: &Dataset,
    method: &Method,
    scale: ScaleMode,
    seed: u64,
    quiet: bool,
) -> Result<FittedPipeline> {
    fit_method_weighted(train, method, scale, None, seed, quiet)
}

/// [`fit_method`] with per-sample weights of the training rows (methods that cannot
/// honour them refuse).
fn fit_method_weighted(
    train: &Dataset,
    method: &Method,
    scale: ScaleMode,
    weights: Option<&[f64]>,
    seed: u64,
    quiet: bool,
) -> Result<FittedPipeline> {
    if !quiet {
        warn_long_fit(train, method, scale, seed)?;
    }
    let msg = format!("fitting {} on {} rows", method.name(), train.len());
    progress::fitting(quiet, method.steps(), &msg, |tick| {
        Pipeline::fit_weighted(scale, method, train, weights, seed, tick)
    })
}

/// Fits estimated to take longer than this get a note before they start.
const LONG_FIT_SECONDS: f64 = 60.0;

/// Prints, before a fit estimated to take longer than [`LONG_FIT_SECONDS`], the
/// estimate and the learner's advice ([`Pipeline::fit_time_estimate`]: a fit on a
/// sample of the rows, extrapolated).
fn warn_long_fit(train: &Dataset, method: &Method, scale: ScaleMode, seed: u64) -> Result<()> {
    if let Some((seconds, advice)) = Pipeline::fit_time_estimate(scale, method, train, seed)? {
        if seconds > LONG_FIT_SECONDS {
            let time = if seconds < 7200.0 {
                format!("{:.0} minutes", (seconds / 60.0).ceil())
            } else {
                format!("{:.1} hours", seconds / 3600.0)
            };
            eprintln!(
                "note: {} on {} rows will take roughly {time} (timed on a sample of \
                 {} rows and extrapolated); {advice}",
                method.name(),
                train.len(),
                kernlearn::pipeline::ESTIMATE_PILOT_ROWS,
            );
        }
    }
    Ok(())
}

/// The method of the command-line options (with its selection when `grid` is given),
/// fitted on `train`.
pub fn fit_pipeline(
    train: &Dataset,
    args: &ModelArgs,
    grid: Option<&select::SelectArgs>,
    quiet: bool,
) -> Result<FittedPipeline> {
    fit_pipeline_weighted(train, args, grid, None, quiet)
}

/// [`fit_pipeline`] with per-sample weights of the training rows.
fn fit_pipeline_weighted(
    train: &Dataset,
    args: &ModelArgs,
    grid: Option<&select::SelectArgs>,
    weights: Option<&[f64]>,
    quiet: bool,
) -> Result<FittedPipeline> {
    let method = select::tuned_method(args, train, grid)?;
    fit_method_weighted(train, &method, args.scale, weights, args.seed, quiet)
}

/// Where `fit` writes, what it prints, and the grid search when tuning.
struct FitOutputs<'a> {
    model_out: &'a Path,
    trace: Option<&'a Path>,
    relevance_plot: Option<&'a Path>,
    train_score: bool,
    force: bool,
    json: bool,
    grid: Option<&'a select::SelectArgs>,
    weights: &'a args::WeightArgs,
    sparse: bool,
}

/// `--model-out` / `--force` of the commands that may save the model they fit.
#[derive(clap::Args, Debug, Clone)]
pub struct SaveArgs {
    /// Also save the fitted (tuned) model here (JSON), as `kernlearn fit` does.
    #[arg(long = "model-out")]
    pub model_out: Option<PathBuf>,
    /// Replace an existing --model-out file.
    #[arg(long)]
    pub force: bool,
}

impl SaveArgs {
    /// Checks the model path against the command's inputs before any work.
    pub fn plan(&self, inputs: &[&Path], model: &ModelArgs) -> Result<()> {
        let Some(out) = &self.model_out else {
            return Ok(());
        };
        let mut outputs = Outputs::new(inputs, self.force);
        for k in model.options.input_files() {
            outputs.add_input(k);
        }
        outputs.plan(out)
    }

    /// Saves `pipeline` when --model-out was given, and records where.
    pub fn save(&self, pipeline: &Pipeline, out: &mut Map<String, Value>) -> Result<()> {
        if let Some(path) = &self.model_out {
            pipeline.save(path)?;
            out.insert("model_file".into(), json!(path.display().to_string()));
        }
        Ok(())
    }
}

/// The test part of `evaluate`: a separate file, or a fraction of the data.
struct Holdout<'a> {
    test: Option<&'a Path>,
    test_fraction: f64,
}

fn fit(data: &DataArgs, args: &ModelArgs, o: &FitOutputs, quiet: bool) -> Result<()> {
    // Every file the command reads is an input before any output is planned, so no
    // output may replace one (the weight file included).
    let mut outputs = Outputs::new(&[&data.data], o.force);
    for k in args.options.input_files() {
        outputs.add_input(k);
    }
    if let Some(w) = &o.weights.weight_file {
        outputs.add_input(w);
    }
    outputs.plan(o.model_out)?;
    if let Some(t) = o.trace {
        outputs.plan(t)?;
        for png in trace_plot_paths(t) {
            outputs.plan(&png)?;
        }
    }
    if let Some(p) = o.relevance_plot {
        outputs.plan_figure(p)?;
    }
    let can_take_sparse = |n_cols| -> Result<bool> {
        Ok(sparse::dense_only_option(data, o).is_none()
            && sparse::method(args, o.grid, n_cols)?.takes_sparse())
    };
    let train = match o.sparse {
        true => Rows::Sparse(data.read_sparse(None)?),
        false => data.read_training(quiet, can_take_sparse)?,
    };
    let train = match train {
        Rows::Sparse(train) => return sparse::fit(data, train, args, o, quiet),
        Rows::Dense(train) => train,
    };
    let (train, weights) = o.weights.apply(train, &data.data)?;
    let fitted = fit_pipeline_weighted(&train, args, o.grid, weights.as_deref(), quiet)?;
    // The model's own figures (a learned spectrum) go beside the trace: checked before
    // anything is written.
    if let Some(t) = o.trace {
        for name in fitted.pipeline.model.artefact_names(ArtefactKind::Figure) {
            outputs.plan(&figure_path(t, name))?;
        }
    }
    let mut out = Map::new();
    report::model_fields(&*fitted.pipeline.model, &mut out);
    report::per_feature_fields(&fitted, &mut out);
    out.insert("n_train".into(), json!(train.len()));
    if let Some(sel) = &fitted.selection {
        select::selection_fields(sel, &mut out, false);
    }
    if o.grid.is_some() {
        out.insert("select_seconds".into(), json!(fitted.select_seconds));
    }
    out.insert("fit_seconds".into(), json!(fitted.fit_seconds));
    if !fitted.chosen.other.is_empty() || o.grid.is_some() {
        out.insert("chosen".into(), json!(fitted.chosen));
    }
    if o.train_score && !train.y.is_empty() {
        let pred = fitted.pipeline.predict(&train.x)?;
        report::add_scores(
            &mut out,
            "train",
            fitted.pipeline.model.task(),
            &pred,
            &train.y,
        )?;
    }
    // Every check before the first write: a trace asked of a method that records none
    // fails here, with nothing written.
    let trace = match o.trace {
        Some(path) => Some((path, fitted.trace.as_ref().ok_or_else(|| {
            Error::param(
                "trace",
                "this method records no per-iteration trace (`kernlearn methods` says which do: their fits are traced); nothing was written",
            )
        })?)),
        None => None,
    };
    if o.relevance_plot.is_some() {
        kernlearn::figure::relevance_of(fitted.learned().0)?;
    }
    fitted.pipeline.save(o.model_out)?;
    if let Some(path) = o.relevance_plot {
        kernlearn::figure::relevance_plot(fitted.learned().0, path)?;
        out.insert("relevance_plot".into(), json!(path.display().to_string()));
    }
    out.insert(
        "model_file".into(),
        json!(o.model_out.display().to_string()),
    );
    if let Some((path, trace)) = trace {
        write_atomic(path, trace.to_csv().as_bytes())?;
        out.insert("trace_file".into(), json!(path.display().to_string()));
        write_trace_plots(trace, path, &fitted.pipeline.model.method().to_uppercase())?;
        let mut plots: Vec<String> = trace_plot_paths(path)
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        for name in fitted.pipeline.model.artefact_names(ArtefactKind::Figure) {
            let file = figure_path(path, name);
            fitted.pipeline.model.figure(name, &file)?;
            plots.push(file.display().to_string());
        }
        out.insert("trace_plots".into(), json!(plots));
    }
    report::print(&out, o.json);
    Ok(())
}

struct PredictArgs<'a> {
    model: &'a Path,
    data: &'a DataArgs,
    no_labels: bool,
    output: Option<&'a Path>,
    decision_values: bool,
    probabilities: bool,
    fused_plot: Option<&'a Path>,
    sparse: bool,
    force: bool,
    json: bool,
    quiet: bool,
}

/// The rows `predict` reads: sparse with `--sparse`; a LIBSVM file of an SVM model kept
/// sparse unasked by the rule of `fit` (neither `--target`, `--no-labels` nor a fused
/// plot given); else dense, matched to the model's columns.
fn read_test(a: &PredictArgs, pipeline: &Pipeline) -> Result<Rows> {
    let n = pipeline.model.n_features();
    if a.sparse {
        return Ok(Rows::Sparse(a.data.read_sparse(Some(n))?));
    }
    let plain = a.data.target.is_none() && !a.no_labels && a.fused_plot.is_none();
    if a.data.format()? == Format::Libsvm && plain && pipeline.takes_sparse() {
        return a.data.read_libsvm_rows(Some(n), a.quiet, |_| Ok(true));
    }
    let test = read_for_prediction(
        &a.data.data,
        a.data.format,
        a.data.target.as_deref(),
        pipeline,
        a.no_labels,
    )?;
    Ok(Rows::Dense(test))
}

fn predict(a: &PredictArgs) -> Result<()> {
    // `-o -` (or no `-o` without `--json`) writes the predictions to standard output.
    let to_file = a.output.filter(|p| *p != Path::new("-"));
    let to_stdout = a.output == Some(Path::new("-")) || (a.output.is_none() && !a.json);
    let mut outputs = Outputs::new(&[&a.data.data, a.model], a.force);
    if let Some(out) = to_file {
        outputs.plan(out)?;
    }
    if let Some(out) = a.fused_plot {
        outputs.plan_figure(out)?;
    }
    let pipeline = Pipeline::load(a.model)?;
    if a.sparse && a.fused_plot.is_some() {
        return Err(Error::param(
            "fused-plot",
            "not available with --sparse (the fused representation reads dense rows)",
        ));
    }
    for (given, option) in [
        (a.data.target.is_some(), "target"),
        (a.no_labels, "no-labels"),
    ] {
        if a.sparse && given {
            return Err(Error::param(
                option,
                "not available with --sparse (a LIBSVM line's first field is its label)",
            ));
        }
    }
    let (test, decision, start) = match read_test(a, &pipeline)? {
        Rows::Sparse(sparse) => {
            let start = Instant::now();
            let decision = pipeline.decision_function_sparse(&sparse.x)?;
            let test = Dataset {
                x: kernlearn::data::Features::new(0, 0, Vec::new())?,
                y: sparse.y,
                feature_names: Vec::new(),
                target_name: String::new(),
            };
            (test, decision, start)
        }
        Rows::Dense(test) => {
            let start = Instant::now();
            // Checked finite before anything is written.
            let decision = pipeline.decision_function(&test.x)?;
            (test, decision, start)
        }
    };
    let model = &pipeline.model;
    let pred: Vec<f64> = decision
        .iter()
        .map(|d| model.predict_from_decision(d))
        .collect();
    let proba = if a.probabilities {
        Some(
            decision
                .iter()
                .map(|d| model.probabilities_from_decision(d))
                .collect::<Result<Vec<_>>>()?,
        )
    } else {
        None
    };
    let predict_seconds = start.elapsed().as_secs_f64();
    let mut out = Map::new();
    out.insert("method".into(), json!(pipeline.model.method()));
    out.insert("n_test".into(), json!(pred.len()));
    out.insert("predict_seconds".into(), json!(predict_seconds));
    if !test.y.is_empty() {
        report::add_scores(&mut out, "test", pipeline.model.task(), &pred, &test.y)?;
    }
    if let Some(path) = a.fused_plot {
        if !model
            .artefact_names(ArtefactKind::PerRow)
            .contains(&"fused")
        {
            return Err(Error::param(
                "fused-plot",
                format!(
                    "the model is {}; only {} models have a fused representation",
                    model.method(),
                    kernlearn::MethodKind::offering("fused")
                ),
            ));
        }
        let x = pipeline.transform(&test.x)?;
        let explained = figure::write_fused_plot(model, &x, &test.y, path)?;
        out.insert("fused_plot".into(), json!(path.display().to_string()));
        out.insert("fused_explained_variance".into(), json!(explained));
    }
    let dec = a.decision_values.then_some(decision.as_slice());
    let table = predictions_csv(model, &pred, dec, proba.as_deref());
    if let Some(path) = to_file {
        write_atomic(path, table.as_bytes())?;
        out.insert("output".into(), json!(path.display().to_string()));
    }
    if to_stdout {
        out!("{table}");
        // The summary goes to standard error, so standard output stays one CSV table.
        if !a.quiet {
            let text = report::render(&out);
            eprint!("{text}");
        }
    } else {
        report::print(&out, a.json);
    }
    Ok(())
}

/// The predictions as CSV with a header: `prediction`, then the decision values and
/// class probabilities when asked for.
fn predictions_csv(
    model: &AnyModel,
    pred: &[f64],
    dec: Option<&[Vec<f64>]>,
    proba: Option<&[Vec<f64>]>,
) -> String {
    let mut head = vec!["prediction".to_string()];
    if let Some(d) = dec {
        head.extend(model.decision_names(d.first().map_or(0, Vec::len)));
    }
    if proba.is_some() {
        head.extend(model.classes().iter().map(|c| format!("p_{c}")));
    }
    let mut s = head.join(",") + "\n";
    for (t, p) in pred.iter().enumerate() {
        let mut cells = vec![p.to_string()];
        if let Some(d) = dec {
            cells.extend(d[t].iter().map(|v| v.to_string()));
        }
        if let Some(pr) = proba {
            cells.extend(pr[t].iter().map(|v| v.to_string()));
        }
        s += &(cells.join(",") + "\n");
    }
    s
}

/// Train/test split of `data`: stratified for classification.
pub fn split(
    data: &Dataset,
    task_is_classification: bool,
    test_fraction: f64,
    seed: u64,
) -> Result<(Dataset, Dataset)> {
    let (train, test) = split_rows(&data.y, task_is_classification, test_fraction, seed)?;
    Ok((data.subset(&train), data.subset(&test)))
}

/// The rows of a seeded split of labels `y`: stratified by class for classification.
pub fn split_rows(
    y: &[f64],
    task_is_classification: bool,
    test_fraction: f64,
    seed: u64,
) -> Result<(Vec<usize>, Vec<usize>)> {
    match task_is_classification {
        true => stratified_split(y, test_fraction, seed),
        false => train_test_split(y.len(), test_fraction, seed),
    }
}

/// Fits `method` on `train` (with its selection), scores on both parts: the fields of
/// `evaluate --json`.
pub fn evaluate_split(
    train: &Dataset,
    test: &Dataset,
    method: &Method,
    scale: ScaleMode,
    seed: u64,
    quiet: bool,
) -> Result<(Map<String, Value>, Pipeline)> {
    let fitted = fit_method(train, method, scale, seed, quiet)?;
    let mut out = Map::new();
    if let Some(sel) = &fitted.selection {
        select::selection_fields(sel, &mut out, false);
    }
    if !fitted.chosen.other.is_empty() {
        out.insert("chosen".into(), json!(fitted.chosen));
    }
    if method.steps() > 0 || fitted.select_seconds > 0.0 {
        out.insert("select_seconds".into(), json!(fitted.select_seconds));
    }
    out.insert("fit_seconds".into(), json!(fitted.fit_seconds));
    report::per_feature_fields(&fitted, &mut out);
    let pipeline = &fitted.pipeline;
    let (train_part, test_part) = ((&train.x, &train.y[..]), (&test.x, &test.y[..]));
    score_parts(
        pipeline,
        train_part,
        test_part,
        |x| pipeline.predict(x),
        &mut out,
    )?;
    Ok((out, fitted.pipeline))
}

/// Model fields, sizes, train and test scores and the prediction time of a fitted
/// pipeline, on rows of any kind that `predict` reads (dense or sparse).
pub fn score_parts<X>(
    pipeline: &Pipeline,
    (train_x, train_y): (&X, &[f64]),
    (test_x, test_y): (&X, &[f64]),
    predict: impl Fn(&X) -> Result<Vec<f64>>,
    out: &mut Map<String, Value>,
) -> Result<()> {
    let model = &*pipeline.model;
    report::model_fields(model, out);
    out.insert("n_train".into(), json!(train_y.len()));
    out.insert("n_test".into(), json!(test_y.len()));
    report::add_scores(out, "train", model.task(), &predict(train_x)?, train_y)?;
    let start = Instant::now();
    let test_pred = predict(test_x)?;
    out.insert(
        "predict_seconds".into(),
        json!(start.elapsed().as_secs_f64()),
    );
    report::add_scores(out, "test", model.task(), &test_pred, test_y)
}

fn evaluate(
    data: &DataArgs,
    args: &ModelArgs,
    holdout: &Holdout,
    grid: Option<&select::SelectArgs>,
    save: &SaveArgs,
    json: bool,
    quiet: bool,
) -> Result<()> {
    let (test_path, test_fraction) = (holdout.test, holdout.test_fraction);
    let inputs: Vec<&Path> = std::iter::once(data.data.as_path())
        .chain(test_path)
        .collect();
    save.plan(&inputs, args)?;
    if test_path.is_none() {
        refuse_gram_split(&data.data, data.format, "evaluate without --test")?;
    }
    // A wide LIBSVM file is evaluated sparse, as `fit` fits it.
    let can_take = |n_cols| Ok(sparse::method(args, grid, n_cols)?.takes_sparse());
    let all = match data.read_training(quiet, can_take)? {
        Rows::Sparse(all) => {
            let holdout = (test_path, test_fraction);
            let (mut out, pipeline) = sparse::evaluate(all, holdout, args, grid, quiet)?;
            save.save(&pipeline, &mut out)?;
            report::print(&out, json);
            return Ok(());
        }
        Rows::Dense(all) => all,
    };
    let method = select::tuned_method(args, &all, grid)?;
    let (train, test) = match test_path {
        Some(p) => {
            let test = read_test_like(p, data, &all)?;
            (all, test)
        }
        None => {
            let classify = method.task() != Task::Regression;
            split(&all, classify, test_fraction, args.seed)?
        }
    };
    if test.y.is_empty() {
        return Err(Error::data("the test data has no labels to score against"));
    }
    let (mut out, pipeline) = evaluate_split(&train, &test, &method, args.scale, args.seed, quiet)?;
    save.save(&pipeline, &mut out)?;
    report::print(&out, json);
    Ok(())
}

/// Reads a separate test file in the training file's format and width.
fn read_test_like(path: &Path, data: &DataArgs, train: &Dataset) -> Result<Dataset> {
    let format = match data.format {
        Some(f) => f,
        None => Format::from_path(path)?,
    };
    let test = match format {
        Format::Libsvm => kernlearn::data::read_libsvm(path, Some(train.x.n_cols()))?,
        f => kernlearn::data::read_dataset(path, Some(f), data.target.as_deref())?,
    };
    // Columns by name, as `predict` matches them, when both files name their columns:
    // a test file with other columns is refused, reordered ones are put in order.
    let named = |d: &Dataset| !args::is_default_names(&d.feature_names);
    if format == Format::Csv && named(train) && test.feature_names != train.feature_names {
        return args::reorder_columns(test, &train.feature_names, path);
    }
    if test.x.n_cols() != train.x.n_cols() {
        return Err(Error::data(format!(
            "{} has {} features, the training data has {}",
            path.display(),
            test.x.n_cols(),
            train.x.n_cols()
        )));
    }
    Ok(test)
}

/// A Gram set cannot be split by rows: a test row needs its kernel values against the
/// training rows only, and the training part must stay square. The error says what to
/// pass instead.
pub fn refuse_gram_split(path: &Path, format: Option<Format>, command: &str) -> Result<()> {
    let gram = match format {
        Some(f) => f == Format::Gram,
        None => Format::from_path(path).is_ok_and(|f| f == Format::Gram),
    };
    if gram {
        return Err(Error::param(
            "data",
            format!(
                "{}: {command} splits rows, but a Gram set's rows are kernel values against \
                 all samples (splitting rows would leave a non-square training matrix); \
                 write a training and a test manifest (test rows against the training \
                 samples) and use `evaluate --test TEST.json`, or `fit` and `predict`",
                path.display()
            ),
        ));
    }
    Ok(())
}
