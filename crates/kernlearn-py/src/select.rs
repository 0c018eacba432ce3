//! Grid search bindings: the whole search, and the split search (plan, one σ block,
//! selection) that `kernlearn.ray.grid_search` spreads over tasks.

use crate::convert::{features, interruptible, json_err, labels, py_err, Input, Rows};
use kernlearn::select::{FoldScores, Grid, GridPlan, GridSearch, Scoring};
use kernlearn::svm::SvmParams;
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;

/// The library's grid search with base parameters `params_json` (`SvmParams`), grid
/// `grid_json` (`Grid`), `folds` folds and fold seed `seed`.
fn search(params_json: &str, grid_json: &str, folds: usize, seed: u64) -> PyResult<GridSearch> {
    let base: SvmParams =
        serde_json::from_str(params_json).map_err(|e| json_err("SVM parameters", e))?;
    let grid: Grid = serde_json::from_str(grid_json).map_err(|e| json_err("grid", e))?;
    let mut search = GridSearch::new(base);
    search.grid = grid;
    search.folds = folds;
    search.seed = seed;
    Ok(search)
}

/// The library's `Scoring` named `name` (`accuracy`, `balanced_accuracy`, `mse`, `mae`).
fn scoring_of(name: Option<String>) -> PyResult<Option<Scoring>> {
    name.map(|s| serde_json::from_value(serde_json::Value::String(s)))
        .transpose()
        .map_err(|e| json_err("scoring", e))
}

fn plan_of(plan_json: &str) -> PyResult<GridPlan> {
    serde_json::from_str(plan_json).map_err(|e| json_err("grid plan", e))
}

/// Grid search with k-fold cross-validation over σ, C (and ε for regression) for an RBF
/// kernel machine (`select::GridSearch`: one Gram matrix per σ shared by folds and C,
/// warm starts along C), each fold trained with its rows' `sample_weight` when given;
/// `test_folds` (the test rows of each fold, e.g. from a scikit-learn splitter) replaces
/// the seeded `folds`-fold split; `scoring` (`accuracy`, `balanced_accuracy`, `mse`,
/// `mae`: `select::Scoring`) replaces the task's default score. `x` is a dense float64
/// matrix or CSR arrays (`GridSearch::run_sparse`). Returns the `Selection` as JSON.
#[pyfunction]
#[pyo3(signature = (params_json, grid_json, folds, seed, x, y, sample_weight=None, test_folds=None, scoring=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn grid_search(
    py: Python<'_>,
    params_json: &str,
    grid_json: &str,
    folds: usize,
    seed: u64,
    x: Rows<'_>,
    y: PyReadonlyArray1<'_, f64>,
    sample_weight: Option<PyReadonlyArray1<'_, f64>>,
    test_folds: Option<Vec<Vec<usize>>>,
    scoring: Option<String>,
) -> PyResult<String> {
    let mut search = search(params_json, grid_json, folds, seed)?;
    search.sample_weights = sample_weight.as_ref().map(labels).transpose()?;
    search.test_folds = test_folds;
    search.scoring = scoring_of(scoring)?;
    let y = labels(&y)?;
    let selection = match x.read()? {
        Input::Dense(x) => interruptible(py, || search.run(&x, &y, &|| {}))?,
        Input::Sparse(x) => interruptible(py, || search.run_sparse(&x, &y, &|| {}))?,
    };
    serde_json::to_string(&selection).map_err(|e| json_err("selection", e))
}

/// The shared part of a grid search split into σ blocks (`GridSearch::plan`: folds,
/// ε values), as JSON, for `y`.
#[pyfunction]
pub(crate) fn grid_search_plan(
    params_json: &str,
    grid_json: &str,
    folds: usize,
    seed: u64,
    y: PyReadonlyArray1<'_, f64>,
) -> PyResult<String> {
    let y = labels(&y)?;
    let plan = search(params_json, grid_json, folds, seed)?
        .plan(y.len(), &y)
        .map_err(py_err)?;
    serde_json::to_string(&plan).map_err(|e| json_err("grid plan", e))
}

/// Fold scores `[σ][fold][ε][C]` of the widths `sigmas` (one block of a split search,
/// `GridSearch::score_sigmas`), as JSON.
#[pyfunction]
pub(crate) fn grid_search_block(
    py: Python<'_>,
    params_json: &str,
    grid_json: &str,
    plan_json: &str,
    sigmas: Vec<f64>,
    x: PyReadonlyArray2<'_, f64>,
    y: PyReadonlyArray1<'_, f64>,
) -> PyResult<String> {
    let search = search(params_json, grid_json, 2, 0)?;
    let plan = plan_of(plan_json)?;
    let (x, y) = (features(&x)?, labels(&y)?);
    let scores = py
        .detach(|| search.score_sigmas(&plan, &sigmas, &x, &y, &|| {}))
        .map_err(py_err)?;
    serde_json::to_string(&scores).map_err(|e| json_err("fold scores", e))
}

/// The `Selection` (JSON) from the fold scores of every σ of the grid, in grid order
/// (`GridSearch::select`), picked by `scoring` (as `grid_search`'s).
#[pyfunction]
#[pyo3(signature = (params_json, grid_json, plan_json, scores_json, scoring=None))]
pub(crate) fn grid_search_select(
    params_json: &str,
    grid_json: &str,
    plan_json: &str,
    scores_json: &str,
    scoring: Option<String>,
) -> PyResult<String> {
    let mut search = search(params_json, grid_json, 2, 0)?;
    search.scoring = scoring_of(scoring)?;
    let plan = plan_of(plan_json)?;
    let scores: Vec<Vec<FoldScores>> =
        serde_json::from_str(scores_json).map_err(|e| json_err("fold scores", e))?;
    let selection = search.select(&plan, &scores).map_err(py_err)?;
    serde_json::to_string(&selection).map_err(|e| json_err("selection", e))
}
