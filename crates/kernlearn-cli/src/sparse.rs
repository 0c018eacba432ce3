//! Fits on sparse (CSR) rows: `fit --sparse`, and a wide LIBSVM file kept sparse
//! unasked by `fit`, `select` and `evaluate` (the svm methods, `--select grid` and `--weight-file`
//! included).

use crate::args::{DataArgs, ModelArgs};
use crate::{progress, report, select, FitOutputs};
use kernlearn::data::{read_libsvm_sparse, Dataset, SparseDataset, SparseFeatures};
use kernlearn::{Error, FittedPipeline, Method, Pipeline, Result, Task};
use serde_json::{json, Map, Value};
use std::path::Path;

/// The first option given that a sparse fit cannot honour, if any.
pub fn dense_only_option(data: &DataArgs, o: &FitOutputs) -> Option<&'static str> {
    [
        (data.target.is_some(), "target"),
        (o.trace.is_some(), "trace"),
        (o.relevance_plot.is_some(), "relevance-plot"),
        (o.weights.weight_column.is_some(), "weight-column"),
    ]
    .into_iter()
    .find_map(|(given, option)| given.then_some(option))
}

/// A pipeline fitted on sparse rows (tuned by `--select grid` when `grid` is given,
/// weighted when `weights` are), under a progress bar.
pub fn fit_pipeline(
    train: &SparseDataset,
    args: &ModelArgs,
    grid: Option<&select::SelectArgs>,
    weights: Option<&[f64]>,
    quiet: bool,
) -> Result<FittedPipeline> {
    let method = method(args, grid, train.x.n_cols())?;
    let msg = format!("fitting {} on {} sparse rows", method.name(), train.y.len());
    let (x, y) = (&train.x, &train.y);
    progress::fitting(quiet, method.steps(), &msg, |tick| {
        Pipeline::fit_sparse(args.scale, &method, x, y, weights, args.seed, tick)
    })
}

/// The method of a sparse fit (tuned by `--select grid` when `grid` is given), its
/// options resolved against the data's width and the LIBSVM target name only.
pub fn method(
    args: &ModelArgs,
    grid: Option<&select::SelectArgs>,
    n_cols: usize,
) -> Result<Method> {
    let shape = Dataset {
        x: kernlearn::data::Features::new(0, n_cols, Vec::new())?,
        y: Vec::new(),
        feature_names: Vec::new(),
        target_name: "label".to_string(),
    };
    select::tuned_method(args, &shape, grid)
}

/// `fit --sparse`, or a wide LIBSVM file kept sparse unasked: the rows as CSR, fitted by
/// the method's sparse path.
pub fn fit(
    data: &DataArgs,
    train: SparseDataset,
    args: &ModelArgs,
    o: &FitOutputs,
    quiet: bool,
) -> Result<()> {
    if let Some(option) = dense_only_option(data, o) {
        return Err(Error::param(
            option,
            "not available with --sparse (sparse fits read the label of each LIBSVM line, \
             take weights from --weight-file, and record no trace or relevance)",
        ));
    }
    let weights = o.weights.file_weights(train.y.len(), &data.data)?;
    let fitted = fit_pipeline(&train, args, o.grid, weights.as_deref(), quiet)?;
    let mut out = Map::new();
    report::model_fields(&*fitted.pipeline.model, &mut out);
    out.insert("n_train".into(), json!(train.y.len()));
    out.insert("n_features".into(), json!(train.x.n_cols()));
    out.insert("nnz".into(), json!(train.x.nnz()));
    if let Some(sel) = &fitted.selection {
        select::selection_fields(sel, &mut out, false);
        out.insert("select_seconds".into(), json!(fitted.select_seconds));
        out.insert("chosen".into(), json!(fitted.chosen));
    }
    out.insert("fit_seconds".into(), json!(fitted.fit_seconds));
    if o.train_score {
        let pred = fitted.pipeline.predict_sparse(&train.x)?;
        let task = fitted.pipeline.model.task();
        report::add_scores(&mut out, "train", task, &pred, &train.y)?;
    }
    fitted.pipeline.save(o.model_out)?;
    out.insert(
        "model_file".into(),
        json!(o.model_out.display().to_string()),
    );
    report::print(&out, o.json);
    Ok(())
}

/// `evaluate` on a wide LIBSVM file kept sparse unasked: a seeded split (stratified for
/// classification, as the dense split) or a separate LIBSVM test file read sparse, the
/// fit on the training rows, and the scores of both parts. Returns `evaluate --json`'s
/// fields and the fitted pipeline.
pub fn evaluate(
    all: SparseDataset,
    holdout: (Option<&Path>, f64),
    args: &ModelArgs,
    grid: Option<&select::SelectArgs>,
    quiet: bool,
) -> Result<(Map<String, Value>, Pipeline)> {
    let (train, test) = match holdout {
        (Some(path), _) => {
            let test = read_libsvm_sparse(path, Some(all.x.n_cols()))?;
            if test.x.n_cols() != all.x.n_cols() {
                return Err(Error::data(format!(
                    "{} has features up to index {}, the training data {}",
                    path.display(),
                    test.x.n_cols(),
                    all.x.n_cols()
                )));
            }
            (all, test)
        }
        (None, fraction) => {
            let classify = method(args, grid, all.x.n_cols())?.task() != Task::Regression;
            let (train, test) = crate::split_rows(&all.y, classify, fraction, args.seed)?;
            (rows(&all, &train), rows(&all, &test))
        }
    };
    let fitted = fit_pipeline(&train, args, grid, None, quiet)?;
    let mut out = Map::new();
    if let Some(sel) = &fitted.selection {
        select::selection_fields(sel, &mut out, false);
        out.insert("select_seconds".into(), json!(fitted.select_seconds));
    }
    out.insert("fit_seconds".into(), json!(fitted.fit_seconds));
    out.insert("n_features".into(), json!(train.x.n_cols()));
    let pipeline = &fitted.pipeline;
    let (train_part, test_part) = ((&train.x, &train.y[..]), (&test.x, &test.y[..]));
    let predict = |x: &SparseFeatures| pipeline.predict_sparse(x);
    crate::score_parts(pipeline, train_part, test_part, predict, &mut out)?;
    Ok((out, fitted.pipeline))
}

/// The rows `idx` of `data`.
fn rows(data: &SparseDataset, idx: &[usize]) -> SparseDataset {
    SparseDataset {
        x: data.x.select_rows(idx),
        y: idx.iter().map(|&i| data.y[i]).collect(),
    }
}
