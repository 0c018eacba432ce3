//! `kernlearn._core`: the Rust side of the Python package (see `python/kernlearn`).
//!
//! Thin on purpose: every function takes numpy arrays and JSON/strings, calls the library
//! (the same `Pipeline::fit`, `GridSearch` and catalogue as the CLI) with the GIL released,
//! and hands back numpy arrays or JSON. The scikit-learn conventions (parameter names,
//! attribute layout, validation) live in the pure-Python layer.

use kernlearn::bank::KernelFamily;
use kernlearn::cluster::distributed::{answer, PartitionState, Reply, Request};
use kernlearn::cluster::Centres;
use kernlearn::data::{Dataset, Features, ScaleMode, Scaler, SparseFeatures};
use kernlearn::experiment::{Experiment, RepeatResult};
use kernlearn::method::{ChosenParams, FELL_BACK};
use kernlearn::method::{GridSettings, MethodOptions};
use kernlearn::mkl::{MwumklParams, MwumklShard};
use kernlearn::nonparametric::{self, ClusterMachine, ScalableDankModel, ScalableDankParams};
use kernlearn::select::{FoldScores, Grid, GridPlan, GridSearch};
use kernlearn::svm::{SvmModel, SvmParams};
use kernlearn::{Error, Method, MethodKind, Pipeline};
use numpy::ndarray::Array2;
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyFileExistsError, PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;

/// The library's error as the Python exception scikit-learn would raise for it: bad
/// parameters and data are `ValueError`, file errors `OSError`.
fn py_err(e: Error) -> PyErr {
    match e {
        Error::Io { .. } => PyOSError::new_err(e.to_string()),
        Error::WouldOverwrite { .. } => PyFileExistsError::new_err(e.to_string()),
        Error::InvalidParameter { .. }
        | Error::InvalidData(_)
        | Error::Parse { .. }
        | Error::Model { .. }
        | Error::Numerical(_) => PyValueError::new_err(e.to_string()),
        _ => PyRuntimeError::new_err(e.to_string()),
    }
}

fn json_err(what: &str, e: serde_json::Error) -> PyErr {
    PyValueError::new_err(format!("{what}: {e}"))
}

/// A C-contiguous float64 matrix as [`Features`]. The numpy buffer is read in place (no
/// conversion); [`Features`] owns its values, so they are copied once into it.
fn features(x: &PyReadonlyArray2<'_, f64>) -> PyResult<Features> {
    let shape = x.shape();
    let values = x.as_slice().map_err(|_| {
        PyTypeError::new_err("X must be a C-contiguous float64 array (np.ascontiguousarray)")
    })?;
    Features::new(shape[0], shape[1], values.to_vec()).map_err(py_err)
}

/// CSR arrays (`indptr`, `indices` as int64, `data` as float64, from
/// `scipy.sparse.csr_matrix` with sorted, summed indices) as [`SparseFeatures`]; the
/// layout is checked by the library (a bad one is a `ValueError`).
fn sparse_features(
    shape: (usize, usize),
    indptr: &PyReadonlyArray1<'_, i64>,
    indices: &PyReadonlyArray1<'_, i64>,
    data: &PyReadonlyArray1<'_, f64>,
) -> PyResult<SparseFeatures> {
    let to_usize = |v: i64, what: &str| {
        usize::try_from(v)
            .map_err(|_| PyValueError::new_err(format!("sparse X: negative {what} {v}")))
    };
    let indptr = indptr
        .as_array()
        .iter()
        .map(|&v| to_usize(v, "indptr offset"))
        .collect::<PyResult<Vec<usize>>>()?;
    let indices = indices
        .as_array()
        .iter()
        .map(|&v| {
            u32::try_from(v).map_err(|_| {
                PyValueError::new_err(format!("sparse X: column index {v} out of range"))
            })
        })
        .collect::<PyResult<Vec<u32>>>()?;
    let values = data.as_array().iter().copied().collect();
    SparseFeatures::new(shape.0, shape.1, indptr, indices, values).map_err(py_err)
}

fn labels(y: &PyReadonlyArray1<'_, f64>) -> PyResult<Vec<f64>> {
    Ok(y.as_array().iter().copied().collect())
}

/// A training set from the arrays, with the CLI's default names (`f1…fd`, `label` or
/// `target`: `svm` fits an SVR when the target is named `target`).
fn dataset(x: Features, y: Vec<f64>, regression: bool) -> Dataset {
    let mut data = Dataset {
        x,
        y,
        feature_names: Vec::new(),
        target_name: if regression { "target" } else { "label" }.to_string(),
    };
    data.feature_names = data.feature_names_or_default();
    data
}

/// Row-major `rows × cols` values as a 2-D numpy array.
fn matrix<'py>(py: Python<'py>, rows: Vec<Vec<f64>>, cols: usize) -> Bound<'py, PyArray2<f64>> {
    let n = rows.len();
    let flat: Vec<f64> = rows.into_iter().flatten().collect();
    Array2::from_shape_vec((n, cols), flat)
        .expect("every row has `cols` values")
        .into_pyarray(py)
}

/// A fitted estimator: the library's [`Pipeline`] (scaler + model), as saved in model files.
#[pyclass(module = "kernlearn._core", name = "Model", frozen)]
struct PyModel {
    pipeline: Pipeline,
}

impl PyModel {
    /// Representation `name` ([`Predictor::representation`]) of the rows `x` (raw
    /// features, scaled as at fit time) for class pair `pair`, `n × width`.
    fn representation<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        name: &str,
        pair: usize,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let model = &self.pipeline.model;
        if !model.representations().contains(&name) {
            return Err(PyValueError::new_err(format!(
                "a {} model has no `{name}` representation (the models of {} have one)",
                model.method(),
                MethodKind::offering(name)
            )));
        }
        let x = self.pipeline.transform(&features(&x)?).map_err(py_err)?;
        let rep = py
            .detach(|| self.pipeline.model.representation(name, &x, pair))
            .map_err(py_err)?;
        let width = rep.values.n_cols();
        let rows = rep.values.rows().map(<[f64]>::to_vec).collect();
        Ok(matrix(py, rows, width))
    }
}

#[pymethods]
impl PyModel {
    /// Reads a model from the JSON text of a model file (validated as on load).
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Self> {
        let pipeline = Pipeline::from_json(text, "model").map_err(py_err)?;
        Ok(Self { pipeline })
    }

    /// Writes the model file through the library's one writer: refused when `path`
    /// exists unless `force`, written to a temporary file and renamed into place.
    #[pyo3(signature = (path, force=false))]
    fn save(&self, path: std::path::PathBuf, force: bool) -> PyResult<()> {
        let mut outputs = kernlearn::output::Outputs::new(&[], force);
        outputs.plan(&path).map_err(py_err)?;
        self.pipeline.save(&path).map_err(py_err)
    }

    /// The model-file JSON text.
    fn to_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.pipeline).map_err(|e| json_err("model", e))
    }

    /// One prediction per row.
    fn predict<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let x = features(&x)?;
        let pred = py.detach(|| self.pipeline.predict(&x)).map_err(py_err)?;
        Ok(pred.into_pyarray(py))
    }

    /// Decision values, `n × n_values` (one column per class pair for one-vs-one
    /// classifiers, in the model's class order).
    fn decision_function<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let x = features(&x)?;
        let dec = py
            .detach(|| self.pipeline.decision_function(&x))
            .map_err(py_err)?;
        let cols = dec.first().map_or(0, Vec::len);
        Ok(matrix(py, dec, cols))
    }

    /// Class probabilities, `n × n_classes` in the model's class order (Platt scaling and
    /// pairwise coupling, as LIBSVM; the model must have been fitted with probabilities).
    fn predict_proba<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let x = features(&x)?;
        let model = &self.pipeline.model;
        let proba = py
            .detach(|| {
                self.pipeline
                    .decision_function(&x)?
                    .iter()
                    .map(|d| model.probabilities_from_decision(d))
                    .collect::<kernlearn::Result<Vec<_>>>()
            })
            .map_err(py_err)?;
        Ok(matrix(py, proba, model.classes().len()))
    }

    /// Decision values of sparse rows (CSR arrays), as `decision_function` (svm models
    /// only; other methods refuse sparse input with a `ValueError` naming them).
    fn decision_function_sparse<'py>(
        &self,
        py: Python<'py>,
        shape: (usize, usize),
        indptr: PyReadonlyArray1<'py, i64>,
        indices: PyReadonlyArray1<'py, i64>,
        data: PyReadonlyArray1<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let x = sparse_features(shape, &indptr, &indices, &data)?;
        let dec = py
            .detach(|| self.pipeline.decision_function_sparse(&x))
            .map_err(py_err)?;
        let cols = dec.first().map_or(0, Vec::len);
        Ok(matrix(py, dec, cols))
    }

    /// Predictions for sparse rows (CSR arrays), as `predict`.
    fn predict_sparse<'py>(
        &self,
        py: Python<'py>,
        shape: (usize, usize),
        indptr: PyReadonlyArray1<'py, i64>,
        indices: PyReadonlyArray1<'py, i64>,
        data: PyReadonlyArray1<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let x = sparse_features(shape, &indptr, &indices, &data)?;
        let pred = py
            .detach(|| self.pipeline.predict_sparse(&x))
            .map_err(py_err)?;
        Ok(pred.into_pyarray(py))
    }

    /// Class probabilities for sparse rows (CSR arrays), as `predict_proba`.
    fn predict_proba_sparse<'py>(
        &self,
        py: Python<'py>,
        shape: (usize, usize),
        indptr: PyReadonlyArray1<'py, i64>,
        indices: PyReadonlyArray1<'py, i64>,
        data: PyReadonlyArray1<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let x = sparse_features(shape, &indptr, &indices, &data)?;
        let model = &self.pipeline.model;
        let proba = py
            .detach(|| {
                self.pipeline
                    .decision_function_sparse(&x)?
                    .iter()
                    .map(|d| model.probabilities_from_decision(d))
                    .collect::<kernlearn::Result<Vec<_>>>()
            })
            .map_err(py_err)?;
        Ok(matrix(py, proba, model.classes().len()))
    }

    /// Per-kernel gates of a localized MKL model at each row, `n × m` (rows sum to one),
    /// for class pair `pair` (0 for a binary problem).
    fn gates<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        pair: usize,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        self.representation(py, x, "gates", pair)
    }

    /// The fused representation of a DKMO / M-DKMO model (the layer its softmax reads)
    /// at each row, `n × width`.
    fn fused<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        self.representation(py, x, "fused", 0)
    }

    /// What the model is, as JSON: `method`, `task`, `n_features`, `classes` (model
    /// order), `summary`, `params`, `warnings`, `feature_relevance` (or null).
    fn info(&self) -> String {
        let m = &self.pipeline.model;
        serde_json::json!({
            "method": m.method(),
            "task": m.task().name(),
            "n_features": m.n_features(),
            "classes": m.classes(),
            "summary": m.summary(),
            "params": m.params_json(),
            "warnings": m.warnings(),
            "feature_relevance": m.feature_relevance(),
            "decision_names": m.decision_names(match m.task() {
                kernlearn::Task::Classification => {
                    let k = m.classes().len();
                    k * k.saturating_sub(1) / 2
                }
                _ => 1,
            }),
        })
        .to_string()
    }

    fn __getnewargs__(&self) -> PyResult<(String,)> {
        Ok((self.to_json()?,))
    }

    #[new]
    fn py_new(text: &str) -> PyResult<Self> {
        Self::from_json(text)
    }
}

/// The method catalogue and option table as JSON (see `MethodKind::catalogue_json`).
#[pyfunction]
fn catalogue() -> String {
    MethodKind::catalogue_json().to_string()
}

/// Fits one kernel machine (C-SVC, ν-SVC, one-class, ε-SVR, ν-SVR) with the parameters
/// of `params_json` (`SvmParams` as serialised in model files), on unscaled features,
/// with per-sample weights `sample_weight` when given (`SvmModel::fit_weighted`).
#[pyfunction]
#[pyo3(signature = (params_json, x, y, sample_weight=None))]
fn fit_svm(
    py: Python<'_>,
    params_json: &str,
    x: PyReadonlyArray2<'_, f64>,
    y: PyReadonlyArray1<'_, f64>,
    sample_weight: Option<PyReadonlyArray1<'_, f64>>,
) -> PyResult<PyModel> {
    let params: SvmParams =
        serde_json::from_str(params_json).map_err(|e| json_err("SVM parameters", e))?;
    let data = dataset(features(&x)?, labels(&y)?, params.svm_type.is_regressor());
    let weights = sample_weight.as_ref().map(labels).transpose()?;
    let model = py
        .detach(|| SvmModel::fit_weighted(&params, &data.x, &data.y, weights.as_deref()))
        .map_err(py_err)?;
    let scaler = Scaler::identity(data.n_features());
    let pipeline = Pipeline::new(scaler, model.into(), data.feature_names);
    Ok(PyModel { pipeline })
}

/// [`fit_svm`] on sparse features given as CSR arrays (`scipy.sparse.csr_matrix`):
/// kernel rows from the sparse kernels, support vectors kept sparse in the model, with
/// per-sample weights `sample_weight` when given.
#[pyfunction]
#[allow(clippy::too_many_arguments)] // the CSR triple and shape, as Python passes them
#[pyo3(signature = (params_json, shape, indptr, indices, data, y, sample_weight=None))]
fn fit_svm_sparse(
    py: Python<'_>,
    params_json: &str,
    shape: (usize, usize),
    indptr: PyReadonlyArray1<'_, i64>,
    indices: PyReadonlyArray1<'_, i64>,
    data: PyReadonlyArray1<'_, f64>,
    y: PyReadonlyArray1<'_, f64>,
    sample_weight: Option<PyReadonlyArray1<'_, f64>>,
) -> PyResult<PyModel> {
    let params: SvmParams =
        serde_json::from_str(params_json).map_err(|e| json_err("SVM parameters", e))?;
    let x = sparse_features(shape, &indptr, &indices, &data)?;
    let y = labels(&y)?;
    let weights = sample_weight.as_ref().map(labels).transpose()?;
    let model = py
        .detach(|| SvmModel::fit_sparse_weighted(&params, &x, &y, weights.as_deref()))
        .map_err(py_err)?;
    let scaler = Scaler::fit_sparse(ScaleMode::None, &x).map_err(py_err)?;
    let pipeline = Pipeline::new(scaler, model.into(), Vec::new());
    Ok(PyModel { pipeline })
}

/// A catalogue method as the Python layer names it: method name, command-line options
/// (names and text values, as `kernlearn fit --NAME VALUE`), scaling, grid settings
/// (`GridSettings` JSON) when selecting, and seed.
struct MethodSpec {
    kind: MethodKind,
    options: MethodOptions,
    scale: ScaleMode,
    grid: Option<GridSettings>,
}

impl MethodSpec {
    fn parse(
        method: &str,
        options: &[(String, String)],
        scale: &str,
        grid_json: Option<&str>,
        seed: u64,
    ) -> PyResult<Self> {
        let kind: MethodKind = method.parse().map_err(py_err)?;
        let mut opts = MethodOptions::default();
        for (name, value) in options {
            opts.set(name, value).map_err(py_err)?;
        }
        opts.seed = seed;
        let grid: Option<GridSettings> = grid_json
            .map(serde_json::from_str)
            .transpose()
            .map_err(|e| json_err("grid settings", e))?;
        Ok(Self {
            kind,
            options: opts,
            scale: scale.parse().map_err(py_err)?,
            grid,
        })
    }

    fn build(&self, data: &Dataset) -> kernlearn::Result<Method> {
        Method::build(self.kind, &self.options, data, self.grid.clone())
    }

    /// The experiment protocol of `kernlearn experiment` with this method.
    fn experiment(
        &self,
        data: &Dataset,
        repeats: usize,
        test_fraction: f64,
    ) -> kernlearn::Result<Experiment> {
        Ok(Experiment {
            method: self.build(data)?,
            repeats,
            test_fraction,
            scale: self.scale,
            seed: self.options.seed,
        })
    }
}

/// Fits catalogue method `method` with `options` (command-line names and text values,
/// as `kernlearn fit --NAME VALUE`), scaling `scale`, selection by `grid_json`
/// (`GridSettings`) when given, and seed `seed`. Returns the model, the chosen
/// hyper-parameters as JSON, and, when the selection fell back to the SVM on the base
/// kernel, the declined learned kernel's model (`FittedPipeline::declined`; else `None`).
/// `sample_weight` weights the training rows (`Pipeline::fit_weighted`; methods that
/// cannot honour weights refuse).
#[pyfunction]
#[pyo3(signature = (method, options, scale, grid_json, seed, x, y, regression=false, sample_weight=None))]
#[allow(clippy::too_many_arguments)]
fn fit_method(
    py: Python<'_>,
    method: &str,
    options: Vec<(String, String)>,
    scale: &str,
    grid_json: Option<&str>,
    seed: u64,
    x: PyReadonlyArray2<'_, f64>,
    y: PyReadonlyArray1<'_, f64>,
    regression: bool,
    sample_weight: Option<PyReadonlyArray1<'_, f64>>,
) -> PyResult<(PyModel, String, Option<PyModel>)> {
    let spec = MethodSpec::parse(method, &options, scale, grid_json, seed)?;
    let data = dataset(features(&x)?, labels(&y)?, regression);
    let weights = sample_weight.as_ref().map(labels).transpose()?;
    let fitted = py
        .detach(|| {
            let method = spec.build(&data)?;
            let w = weights.as_deref();
            Pipeline::fit_weighted(spec.scale, &method, &data, w, seed, &|_| {})
        })
        .map_err(py_err)?;
    let chosen = serde_json::json!({
        "chosen": fitted.chosen,
        "selection": fitted.selection,
        "select_seconds": fitted.select_seconds,
        "fit_seconds": fitted.fit_seconds,
    });
    let declined = fitted.declined.map(|pipeline| PyModel { pipeline });
    Ok((
        PyModel {
            pipeline: fitted.pipeline,
        },
        chosen.to_string(),
        declined,
    ))
}

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

fn plan_of(plan_json: &str) -> PyResult<GridPlan> {
    serde_json::from_str(plan_json).map_err(|e| json_err("grid plan", e))
}

/// Grid search with k-fold cross-validation over σ, C (and ε for regression) for an RBF
/// kernel machine (`select::GridSearch`: one Gram matrix per σ shared by folds and C,
/// warm starts along C), each fold trained with its rows' `sample_weight` when given.
/// Returns the `Selection` as JSON.
#[pyfunction]
#[pyo3(signature = (params_json, grid_json, folds, seed, x, y, sample_weight=None))]
#[allow(clippy::too_many_arguments)]
fn grid_search(
    py: Python<'_>,
    params_json: &str,
    grid_json: &str,
    folds: usize,
    seed: u64,
    x: PyReadonlyArray2<'_, f64>,
    y: PyReadonlyArray1<'_, f64>,
    sample_weight: Option<PyReadonlyArray1<'_, f64>>,
) -> PyResult<String> {
    let mut search = search(params_json, grid_json, folds, seed)?;
    search.sample_weights = sample_weight.as_ref().map(labels).transpose()?;
    let (x, y) = (features(&x)?, labels(&y)?);
    let selection = py.detach(|| search.run(&x, &y, &|| {})).map_err(py_err)?;
    serde_json::to_string(&selection).map_err(|e| json_err("selection", e))
}

/// The shared part of a grid search split into σ blocks (`GridSearch::plan`: folds,
/// ε values), as JSON, for `y`.
#[pyfunction]
fn grid_search_plan(
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
fn grid_search_block(
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
/// (`GridSearch::select`).
#[pyfunction]
fn grid_search_select(
    params_json: &str,
    grid_json: &str,
    plan_json: &str,
    scores_json: &str,
) -> PyResult<String> {
    let search = search(params_json, grid_json, 2, 0)?;
    let plan = plan_of(plan_json)?;
    let scores: Vec<Vec<FoldScores>> =
        serde_json::from_str(scores_json).map_err(|e| json_err("fold scores", e))?;
    let selection = search.select(&plan, &scores).map_err(py_err)?;
    serde_json::to_string(&selection).map_err(|e| json_err("selection", e))
}

fn mwumkl_params(params_json: &str) -> PyResult<MwumklParams> {
    serde_json::from_str(params_json).map_err(|e| json_err("MWUMKL parameters", e))
}

/// One slice of an MWUMKL fit's kernels (`mkl::MwumklShard`): the kernels `lo..hi` of
/// the family `kernels` (a `--kernels` spec or file) on `x`, labels `y ∈ {±1}`.
#[pyclass(module = "kernlearn._core", name = "MwumklShard")]
struct PyMwumklShard {
    shard: MwumklShard,
}

#[pymethods]
impl PyMwumklShard {
    #[new]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        py: Python<'_>,
        kernels: &str,
        params_json: &str,
        x: PyReadonlyArray2<'_, f64>,
        y: PyReadonlyArray1<'_, f64>,
        lo: usize,
        hi: usize,
    ) -> PyResult<Self> {
        let family = KernelFamily::from_spec_or_file(kernels).map_err(py_err)?;
        let params = mwumkl_params(params_json)?;
        let (x, y) = (features(&x)?, labels(&y)?);
        let shard = py
            .detach(|| MwumklShard::new(&family, &x, &y, &params, lo..hi))
            .map_err(py_err)?;
        Ok(Self { shard })
    }

    /// Rounds applied so far.
    fn rounds_done(&self) -> usize {
        self.shard.rounds_done()
    }

    /// The next round with forward-step points `p`, `r`: `(g part, l_max)`.
    fn round<'py>(
        &mut self,
        py: Python<'py>,
        p: usize,
        r: usize,
        l_ref: f64,
    ) -> PyResult<(Bound<'py, PyArray1<f64>>, f64)> {
        let shard = &mut self.shard;
        let part = py.detach(|| shard.round(p, r, l_ref)).map_err(py_err)?;
        Ok((part.g.into_pyarray(py), part.l_max))
    }

    /// Rebuilds the state from the forward steps `pairs` of every round so far.
    fn replay(&mut self, py: Python<'_>, pairs: Vec<(usize, usize)>) -> PyResult<()> {
        let shard = &mut self.shard;
        py.detach(|| shard.replay(&pairs)).map_err(py_err)
    }

    /// `αᵀḠ_iα` of the shard's kernels.
    fn objectives<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.shard.objectives().to_vec().into_pyarray(py)
    }

    /// `Σ_i μ_i Ḡ_iα / T` over the shard's kernels.
    fn weighted_sum<'py>(
        &self,
        py: Python<'py>,
        weights: Vec<f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let sum = self.shard.weighted_sum(&weights).map_err(py_err)?;
        Ok(sum.into_pyarray(py))
    }
}

/// Number of base kernels of the family `kernels` on `n_features` features.
#[pyfunction]
fn kernel_count(kernels: &str, n_features: usize) -> PyResult<usize> {
    let family = KernelFamily::from_spec_or_file(kernels).map_err(py_err)?;
    family.validate(n_features).map_err(py_err)?;
    Ok(family.len(n_features))
}

/// Rounds `T` of MWUMKL on `n` points.
#[pyfunction]
fn mwumkl_rounds(params_json: &str, n: usize) -> PyResult<usize> {
    let params = mwumkl_params(params_json)?;
    params.validate().map_err(py_err)?;
    Ok(params.rounds(n))
}

/// MWUMKL's forward step: the most violating point of each class.
#[pyfunction]
fn mwumkl_most_violating(g: Vec<f64>, y: Vec<f64>) -> (usize, usize) {
    kernlearn::mkl::mwumkl_most_violating(&g, &y)
}

/// Kernel weights (section 3.2.6) from every kernel's `αᵀḠ_iα` on `n` points.
#[pyfunction]
fn mwumkl_kernel_weights<'py>(
    py: Python<'py>,
    params_json: &str,
    q: Vec<f64>,
    n: usize,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let params = mwumkl_params(params_json)?;
    Ok(kernlearn::mkl::mwumkl_kernel_weights(&q, n, &params).into_pyarray(py))
}

/// The fitted decision function (JSON: `weights`, `objective`, `coef`, `rho`,
/// `rounds`) from the weights, objectives, `Ḡ_μᾱ` and forward-step counts.
#[pyfunction]
fn mwumkl_finish(
    y: Vec<f64>,
    weights: Vec<f64>,
    q: Vec<f64>,
    h_mu: Vec<f64>,
    counts: Vec<u32>,
    rounds: usize,
) -> PyResult<String> {
    if h_mu.len() != y.len() || counts.len() != y.len() || weights.len() != q.len() {
        return Err(PyValueError::new_err(
            "mwumkl_finish: y, h_mu and counts need one value per point, weights and q one per kernel",
        ));
    }
    let sol = kernlearn::mkl::mwumkl_finish(&y, weights, &q, &h_mu, &counts, rounds);
    Ok(serde_json::json!({
        "weights": sol.weights,
        "objective": sol.objective,
        "coef": sol.coef,
        "rho": sol.rho,
        "rounds": sol.rounds,
    })
    .to_string())
}

/// The protocol of `kernlearn experiment` (method as in [`fit_method`], `repeats`
/// random splits holding out `test_fraction`, repeat `r` seeded `seed + r`).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
struct ExperimentArgs {
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
fn experiment_repeat(
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
fn experiment_report(
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
fn wilcoxon(d: Vec<f64>) -> PyResult<String> {
    let w = kernlearn::experiment::wilcoxon_signed_rank(&d).map_err(py_err)?;
    serde_json::to_string(&w).map_err(|e| json_err("wilcoxon", e))
}

// ------------------------------------------------------------------ distributed scalable DANK

/// Scalable DANK's parameters (`ScalableDankParams` JSON) of method options (as for
/// `fit_method`) and seed, checked for `n` rows of `d` features.
#[pyfunction]
fn scalable_dank_params(
    options: Vec<(String, String)>,
    seed: u64,
    n: usize,
    d: usize,
) -> PyResult<String> {
    let spec = MethodSpec::parse(nonparametric::SCALABLE_DANK, &options, "none", None, seed)?;
    let params = nonparametric::scalable_dank_params(&spec.options, n, d).map_err(py_err)?;
    params.check(n, d).map_err(py_err)?;
    serde_json::to_string(&params).map_err(|e| json_err("scalable DANK parameters", e))
}

fn scalable_params_of(params_json: &str) -> PyResult<ScalableDankParams> {
    serde_json::from_str(params_json).map_err(|e| json_err("scalable DANK parameters", e))
}

/// The two classes of `y` (`[+1 class, −1 class]`) and `y` as ±1.
#[pyfunction]
fn scalable_dank_classes<'py>(
    py: Python<'py>,
    y: PyReadonlyArray1<'_, f64>,
) -> PyResult<(Vec<f64>, Bound<'py, PyArray1<f64>>)> {
    let (classes, signed) = nonparametric::binary_labels(&labels(&y)?).map_err(py_err)?;
    Ok((classes, signed.into_pyarray(py)))
}

/// One partition's answer to a k-means request (`cluster::distributed::answer`): the
/// reply (JSON) and the partition's new state (an array). `state` empty: a new partition.
#[pyfunction]
fn kmeans_answer<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'_, f64>,
    offset: usize,
    state: PyReadonlyArray1<'_, f64>,
    request: &str,
) -> PyResult<(String, Bound<'py, PyArray1<f64>>)> {
    let x = features(&x)?;
    let mut state = PartitionState::from_array(state.as_slice()?).map_err(py_err)?;
    let request: Request =
        serde_json::from_str(request).map_err(|e| json_err("k-means request", e))?;
    let reply = py
        .detach(|| answer(&x, offset, &mut state, &request))
        .map_err(py_err)?;
    let text = serde_json::to_string(&reply).map_err(|e| json_err("k-means reply", e))?;
    Ok((text, state.to_array().into_pyarray(py)))
}

/// The labels of a partition's rows held in its k-means state.
#[pyfunction]
fn kmeans_state_labels<'py>(
    py: Python<'py>,
    state: PyReadonlyArray1<'_, f64>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let state = PartitionState::from_array(state.as_slice()?).map_err(py_err)?;
    let labels: Vec<i64> = state.labels().iter().map(|&l| l as i64).collect();
    Ok(labels.into_pyarray(py))
}

/// Scalable DANK's k-means (`KMeans::fit_partitioned`) on `n × d` data whose partitions
/// `ask` reaches: `ask(request_json)` returns the partitions' reply JSONs in order. An
/// exception raised by `ask` propagates. Returns the centres (`k × d`) and cluster sizes.
#[pyfunction]
fn scalable_dank_kmeans<'py>(
    py: Python<'py>,
    params_json: &str,
    n: usize,
    d: usize,
    ask: Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyArray2<f64>>, Vec<usize>)> {
    let params = scalable_params_of(params_json)?;
    let mut raised: Option<PyErr> = None;
    let mut send = |request: &Request| -> kernlearn::Result<Vec<Reply>> {
        let text = serde_json::to_string(request)
            .map_err(|e| Error::data(format!("k-means request: {e}")))?;
        let texts: Vec<String> = match ask.call1((text,)).and_then(|r| r.extract()) {
            Ok(t) => t,
            Err(e) => {
                raised = Some(e);
                return Err(Error::data("the partitions' answer failed"));
            }
        };
        texts
            .iter()
            .map(|t| {
                serde_json::from_str(t).map_err(|e| Error::data(format!("k-means reply: {e}")))
            })
            .collect()
    };
    let fit = params.kmeans().fit_partitioned(n, d, &mut send);
    if let Some(e) = raised {
        return Err(e);
    }
    let fit = fit.map_err(py_err)?;
    let centres = fit.centres.as_features();
    let rows = centres.rows().map(<[f64]>::to_vec).collect();
    Ok((matrix(py, rows, d), fit.cluster_sizes))
}

/// One cluster's machine (`nonparametric::fit_cluster`, JSON) on its rows and ±1 labels.
#[pyfunction]
fn scalable_dank_fit_cluster(
    py: Python<'_>,
    params_json: &str,
    x: PyReadonlyArray2<'_, f64>,
    y: PyReadonlyArray1<'_, f64>,
) -> PyResult<String> {
    let params = scalable_params_of(params_json)?;
    let (x, y) = (features(&x)?, labels(&y)?);
    let machine = py
        .detach(|| nonparametric::fit_cluster(&params, &x, &y))
        .map_err(py_err)?;
    serde_json::to_string(&machine).map_err(|e| json_err("cluster machine", e))
}

/// The fitted model (no scaling) from the centres and one machine JSON per cluster
/// (None: empty cluster), with the `fit_method`-style record of the chosen parameters.
#[pyfunction]
fn scalable_dank_model(
    params_json: &str,
    classes: Vec<f64>,
    centres: PyReadonlyArray2<'_, f64>,
    machines: Vec<Option<String>>,
    fit_seconds: f64,
) -> PyResult<(PyModel, String)> {
    let params = scalable_params_of(params_json)?;
    let centres = Centres::new(features(&centres)?).map_err(py_err)?;
    let machines = machines
        .iter()
        .map(|m| {
            m.as_deref()
                .map(serde_json::from_str::<ClusterMachine>)
                .transpose()
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| json_err("cluster machine", e))?;
    let d = centres.dim();
    let model = ScalableDankModel::from_clusters(&params, d, classes, &centres, machines)
        .map_err(py_err)?;
    let mut chosen = ChosenParams::of(&params.kernel, params.c, None);
    chosen
        .other
        .insert("clusters".into(), model.clusters.len() as f64);
    let names = (1..=d).map(|j| format!("f{j}")).collect();
    let pipeline = Pipeline::new(Scaler::identity(d), model.into(), names);
    let record = serde_json::json!({
        "chosen": chosen,
        "selection": null,
        "select_seconds": 0.0,
        "fit_seconds": fit_seconds,
    });
    Ok((PyModel { pipeline }, record.to_string()))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyModel>()?;
    m.add_function(wrap_pyfunction!(catalogue, m)?)?;
    m.add_function(wrap_pyfunction!(fit_svm, m)?)?;
    m.add_function(wrap_pyfunction!(fit_svm_sparse, m)?)?;
    m.add_function(wrap_pyfunction!(fit_method, m)?)?;
    m.add_class::<PyMwumklShard>()?;
    m.add_function(wrap_pyfunction!(grid_search, m)?)?;
    m.add_function(wrap_pyfunction!(grid_search_plan, m)?)?;
    m.add_function(wrap_pyfunction!(grid_search_block, m)?)?;
    m.add_function(wrap_pyfunction!(grid_search_select, m)?)?;
    m.add_function(wrap_pyfunction!(experiment_repeat, m)?)?;
    m.add_function(wrap_pyfunction!(experiment_report, m)?)?;
    m.add_function(wrap_pyfunction!(kernel_count, m)?)?;
    m.add_function(wrap_pyfunction!(mwumkl_rounds, m)?)?;
    m.add_function(wrap_pyfunction!(mwumkl_most_violating, m)?)?;
    m.add_function(wrap_pyfunction!(mwumkl_kernel_weights, m)?)?;
    m.add_function(wrap_pyfunction!(mwumkl_finish, m)?)?;
    m.add_function(wrap_pyfunction!(wilcoxon, m)?)?;
    m.add_function(wrap_pyfunction!(scalable_dank_params, m)?)?;
    m.add_function(wrap_pyfunction!(scalable_dank_classes, m)?)?;
    m.add_function(wrap_pyfunction!(scalable_dank_kmeans, m)?)?;
    m.add_function(wrap_pyfunction!(scalable_dank_fit_cluster, m)?)?;
    m.add_function(wrap_pyfunction!(scalable_dank_model, m)?)?;
    m.add_function(wrap_pyfunction!(kmeans_answer, m)?)?;
    m.add_function(wrap_pyfunction!(kmeans_state_labels, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("FELL_BACK", FELL_BACK)?;
    Ok(())
}
