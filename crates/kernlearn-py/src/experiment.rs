//! Experiment bindings: one repeat of `kernlearn experiment`, the report from the
//! repeats, and the Wilcoxon signed-rank test.

use crate::convert::{dataset, features, json_err, labels, py_err};
use crate::fit::MethodSpec;
use kernlearn::data::Dataset;
use kernlearn::experiment::{Experiment, RepeatResult};
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The protocol of `kernlearn experiment` (method as in [`fit_method`], `repeats`
/// random splits holding out `test_fraction`, repeat `r` seeded `seed + r`).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct ExperimentArgs {
    method: String,
    options: Vec<(String, String)>,
    scale: String,
    grid_json: Option<String>,
    seed: u64,
    repeats: usize,
    test_fraction: f64,
    regression: bool,
}

impl ExperimentArgs {
    fn build(&self, name: &str, data: &Dataset) -> PyResult<Experiment> {
        let spec = MethodSpec::parse(
            &self.method,
            &self.options,
            &self.scale,
            self.grid_json.as_deref(),
            self.seed,
        )?;
        let exp = spec
            .experiment(data, self.repeats, self.test_fraction)
            .map_err(py_err)?;
        exp.check_data(name, data).map_err(py_err)?;
        Ok(exp)
    }
}

/// Repeat `r` of an experiment (`Experiment::run_repeat`) on `(x, y)`: the
/// `RepeatResult` as JSON.
#[pyfunction]
pub(crate) fn experiment_repeat(
    py: Python<'_>,
    args: ExperimentArgs,
    name: &str,
    r: usize,
    x: PyReadonlyArray2<'_, f64>,
    y: PyReadonlyArray1<'_, f64>,
) -> PyResult<String> {
    let data = dataset(features(&x)?, labels(&y)?, args.regression);
    let exp = args.build(name, &data)?;
    if r >= exp.repeats {
        return Err(PyValueError::new_err(format!(
            "repeat {r} out of 0..{}",
            exp.repeats
        )));
    }
    let run = py
        .detach(|| exp.run_repeat(&data, r, &|_| {}))
        .map_err(py_err)?;
    serde_json::to_string(&run).map_err(|e| json_err("repeat", e))
}

/// The `ExperimentReport` (JSON, one entry of the CLI's `--json` `datasets`) of data set
/// `name`: from the repeats' JSON `runs_json` (`Experiment::report`), or, when `None`,
/// by running every repeat here (`Experiment::run`).
#[pyfunction]
#[pyo3(signature = (args, name, x, y, runs_json=None, total_seconds=0.0))]
pub(crate) fn experiment_report(
    py: Python<'_>,
    args: ExperimentArgs,
    name: &str,
    x: PyReadonlyArray2<'_, f64>,
    y: PyReadonlyArray1<'_, f64>,
    runs_json: Option<&str>,
    total_seconds: f64,
) -> PyResult<String> {
    let data = dataset(features(&x)?, labels(&y)?, args.regression);
    let exp = args.build(name, &data)?;
    let report = match runs_json {
        Some(text) => {
            let runs: Vec<RepeatResult> =
                serde_json::from_str(text).map_err(|e| json_err("repeats", e))?;
            exp.report(name, &data, runs, total_seconds)
        }
        None => py.detach(|| exp.run(name, &data, &|_| {})),
    }
    .map_err(py_err)?;
    serde_json::to_string(&report).map_err(|e| json_err("report", e))
}

/// The two-sided Wilcoxon signed-rank test of paired differences `d`
/// (`experiment::wilcoxon_signed_rank`, SciPy's conventions), as JSON.
#[pyfunction]
pub(crate) fn wilcoxon(d: Vec<f64>) -> PyResult<String> {
    let w = kernlearn::experiment::wilcoxon_signed_rank(&d).map_err(py_err)?;
    serde_json::to_string(&w).map_err(|e| json_err("wilcoxon", e))
}
