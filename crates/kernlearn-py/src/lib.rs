//! `kernlearn._core`: the Rust side of the Python package (see `python/kernlearn`).
//!
//! Thin on purpose: every function takes numpy arrays and JSON/strings, calls the library
//! (the same `Pipeline::fit`, `GridSearch` and catalogue as the CLI) with the GIL released,
//! and hands back numpy arrays or JSON. The scikit-learn conventions (parameter names,
//! attribute layout, validation) live in the pure-Python layer.

use kernlearn::data::{Dataset, Features, ScaleMode, Scaler};
use kernlearn::estimator::Estimator;
use kernlearn::localized::LocalizedModel;
use kernlearn::method::{GridSettings, MethodOptions};
use kernlearn::select::{Grid, GridSearch};
use kernlearn::svm::{SvmModel, SvmParams};
use kernlearn::{AnyModel, Error, Method, MethodKind, Pipeline};
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

    /// Per-kernel gates of a localized MKL model at each row, `n × m` (rows sum to one),
    /// for class pair `pair` (0 for a binary problem).
    fn gates<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        pair: usize,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let AnyModel::Localized(model) = &self.pipeline.model else {
            return Err(PyValueError::new_err(format!(
                "gates exist only for localized MKL models, not {}",
                self.pipeline.model.method()
            )));
        };
        let x = self.pipeline.transform(&features(&x)?).map_err(py_err)?;
        let gates = localized_gates(model, &x, pair).map_err(py_err)?;
        let n = x.n_rows();
        let m = gates.len().checked_div(n).unwrap_or(0);
        let rows = gates.chunks(m.max(1)).map(<[f64]>::to_vec).collect();
        Ok(matrix(py, rows, m))
    }

    /// What the model is, as JSON: `method`, `task`, `n_features`, `classes` (model
    /// order), `summary`, `params`, `warnings`.
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

fn localized_gates(
    model: &LocalizedModel,
    x: &Features,
    pair: usize,
) -> kernlearn::Result<Vec<f64>> {
    let machines = &model.machines.machines;
    let machine = machines.get(pair).ok_or_else(|| {
        Error::param(
            "pair",
            format!("the model has {} class pairs, got {pair}", machines.len()),
        )
    })?;
    machine.kernel_gates(x)
}

/// The method catalogue and option table as JSON (see `MethodKind::catalogue_json`).
#[pyfunction]
fn catalogue() -> String {
    MethodKind::catalogue_json().to_string()
}

/// Fits one kernel machine (C-SVC, ν-SVC, one-class, ε-SVR, ν-SVR) with the parameters
/// of `params_json` (`SvmParams` as serialised in model files), on unscaled features.
#[pyfunction]
fn fit_svm(
    py: Python<'_>,
    params_json: &str,
    x: PyReadonlyArray2<'_, f64>,
    y: PyReadonlyArray1<'_, f64>,
) -> PyResult<PyModel> {
    let params: SvmParams =
        serde_json::from_str(params_json).map_err(|e| json_err("SVM parameters", e))?;
    let data = dataset(features(&x)?, labels(&y)?, params.svm_type.is_regressor());
    let model = py
        .detach(|| SvmModel::fit(&params, &data.x, &data.y))
        .map_err(py_err)?;
    let scaler = Scaler::identity(data.n_features());
    let pipeline = Pipeline::new(scaler, AnyModel::Svm(model), data.feature_names);
    Ok(PyModel { pipeline })
}

/// Fits catalogue method `method` with `options` (command-line names and text values,
/// as `kernlearn fit --NAME VALUE`), scaling `scale`, selection by `grid_json`
/// (`GridSettings`) when given, and seed `seed`. Returns the model and the chosen
/// hyper-parameters as JSON.
#[pyfunction]
#[pyo3(signature = (method, options, scale, grid_json, seed, x, y, regression=false))]
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
) -> PyResult<(PyModel, String)> {
    let kind: MethodKind = method.parse().map_err(py_err)?;
    let mut opts = MethodOptions::default();
    for (name, value) in &options {
        opts.set(name, value).map_err(py_err)?;
    }
    opts.seed = seed;
    let scale: ScaleMode = scale.parse().map_err(py_err)?;
    let grid: Option<GridSettings> = grid_json
        .map(serde_json::from_str)
        .transpose()
        .map_err(|e| json_err("grid settings", e))?;
    let data = dataset(features(&x)?, labels(&y)?, regression);
    let fitted = py
        .detach(|| {
            let method = Method::build(kind, &opts, &data, grid)?;
            Pipeline::fit(scale, &method, &data, seed, &|_| {})
        })
        .map_err(py_err)?;
    let chosen = serde_json::json!({
        "chosen": fitted.chosen,
        "selection": fitted.selection,
        "select_seconds": fitted.select_seconds,
        "fit_seconds": fitted.fit_seconds,
    });
    Ok((
        PyModel {
            pipeline: fitted.pipeline,
        },
        chosen.to_string(),
    ))
}

/// Grid search with k-fold cross-validation over σ, C (and ε for regression) for an RBF
/// kernel machine (`select::GridSearch`: one Gram matrix per σ shared by folds and C,
/// warm starts along C). Returns the `Selection` as JSON.
#[pyfunction]
fn grid_search(
    py: Python<'_>,
    params_json: &str,
    grid_json: &str,
    folds: usize,
    seed: u64,
    x: PyReadonlyArray2<'_, f64>,
    y: PyReadonlyArray1<'_, f64>,
) -> PyResult<String> {
    let base: SvmParams =
        serde_json::from_str(params_json).map_err(|e| json_err("SVM parameters", e))?;
    let grid: Grid = serde_json::from_str(grid_json).map_err(|e| json_err("grid", e))?;
    let (x, y) = (features(&x)?, labels(&y)?);
    let mut search = GridSearch::new(base);
    search.grid = grid;
    search.folds = folds;
    search.seed = seed;
    let selection = py.detach(|| search.run(&x, &y, &|| {})).map_err(py_err)?;
    serde_json::to_string(&selection).map_err(|e| json_err("selection", e))
}

/// The two-sided Wilcoxon signed-rank test of paired differences `d`
/// (`experiment::wilcoxon_signed_rank`, SciPy's conventions), as JSON.
#[pyfunction]
fn wilcoxon(d: Vec<f64>) -> PyResult<String> {
    let w = kernlearn::experiment::wilcoxon_signed_rank(&d).map_err(py_err)?;
    serde_json::to_string(&w).map_err(|e| json_err("wilcoxon", e))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyModel>()?;
    m.add_function(wrap_pyfunction!(catalogue, m)?)?;
    m.add_function(wrap_pyfunction!(fit_svm, m)?)?;
    m.add_function(wrap_pyfunction!(fit_method, m)?)?;
    m.add_function(wrap_pyfunction!(grid_search, m)?)?;
    m.add_function(wrap_pyfunction!(wilcoxon, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
