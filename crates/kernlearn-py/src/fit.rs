//! Fits: the method catalogue, one kernel machine on dense or sparse rows, and any
//! catalogue method with its selection (the CLI's `kernlearn fit`).

use crate::convert::{dataset, features, from_json, interruptible, labels, py_err, Input, Rows};
use crate::model::PyModel;
use kernlearn::data::{Dataset, ScaleMode, Scaler};
use kernlearn::experiment::Experiment;
use kernlearn::learner::GridSettings;
use kernlearn::svm::{SvmModel, SvmParams};
use kernlearn::MethodOptions;
use kernlearn::{Method, MethodKind, Pipeline};
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;

/// The method catalogue and option table as JSON (see `MethodKind::catalogue_json`).
#[pyfunction]
pub(crate) fn catalogue() -> String {
    MethodKind::catalogue_json().to_string()
}

/// Fits one kernel machine (C-SVC, ν-SVC, one-class, ε-SVR, ν-SVR) with the parameters
/// of `params_json` (`SvmParams` as serialised in model files), on unscaled rows `x`
/// (a dense float64 matrix, or CSR arrays `(shape, indptr, indices, data)`: kernel rows
/// from the sparse kernels, support vectors kept sparse in the model), with per-sample
/// weights `sample_weight` when given (`SvmModel::fit_weighted`), or for a binary C-SVC
/// on dense rows started from one dual variable per row, `warm_alpha`
/// (`SvmModel::fit_from_alpha`, the divide-and-conquer SVM's last step).
#[pyfunction]
#[pyo3(signature = (params_json, x, y, sample_weight=None, warm_alpha=None))]
pub(crate) fn fit_svm(
    py: Python<'_>,
    params_json: &str,
    x: Rows<'_>,
    y: PyReadonlyArray1<'_, f64>,
    sample_weight: Option<PyReadonlyArray1<'_, f64>>,
    warm_alpha: Option<PyReadonlyArray1<'_, f64>>,
) -> PyResult<PyModel> {
    let params: SvmParams = from_json(params_json, "SVM parameters")?;
    let y = labels(&y)?;
    let weights = sample_weight.as_ref().map(labels).transpose()?;
    let w = weights.as_deref();
    let warm = warm_alpha.as_ref().map(labels).transpose()?;
    if warm.is_some() && w.is_some() {
        return Err(py_err(kernlearn::Error::param(
            "warm_alpha",
            "a start from per-row duals takes no sample weights",
        )));
    }
    let pipeline = match x.read()? {
        Input::Dense(x) => {
            let data = dataset(x, y, params.svm_type.is_regressor());
            let model = interruptible(py, || match &warm {
                Some(a) => SvmModel::fit_from_alpha(&params, &data.x, &data.y, a),
                None => SvmModel::fit_weighted(&params, &data.x, &data.y, w),
            })?;
            let scaler = Scaler::identity(data.n_features());
            Pipeline::new(scaler, model.into(), data.feature_names)
        }
        Input::Sparse(_) if warm.is_some() => {
            return Err(py_err(kernlearn::Error::param(
                "warm_alpha",
                "a start from per-row duals takes dense rows",
            )))
        }
        Input::Sparse(x) => {
            let model = interruptible(py, || SvmModel::fit_sparse_weighted(&params, &x, &y, w))?;
            let scaler = Scaler::fit_sparse(ScaleMode::None, &x).map_err(py_err)?;
            Pipeline::new(scaler, model.into(), Vec::new())
        }
    };
    Ok(PyModel::new(pipeline))
}

/// A catalogue method as the Python layer names it: method name, command-line options
/// (names and text values, as `kernlearn fit --NAME VALUE`), scaling, grid settings
/// (`GridSettings` JSON) when selecting, and seed.
pub(crate) struct MethodSpec {
    kind: MethodKind,
    pub(crate) options: MethodOptions,
    scale: ScaleMode,
    grid: Option<GridSettings>,
}

impl MethodSpec {
    pub(crate) fn parse(
        method: &str,
        options: &[(String, String)],
        scale: &str,
        grid_json: Option<&str>,
        seed: u64,
    ) -> PyResult<Self> {
        let kind: MethodKind = method.parse().map_err(py_err)?;
        Ok(Self {
            kind,
            options: method_options(options, seed)?,
            scale: scale.parse().map_err(py_err)?,
            grid: grid_json
                .map(|g| from_json(g, "grid settings"))
                .transpose()?,
        })
    }

    fn build(&self, data: &Dataset) -> kernlearn::Result<Method> {
        Method::build(self.kind, &self.options, data, self.grid.clone())
    }

    /// The experiment protocol of `kernlearn experiment` with this method.
    pub(crate) fn experiment(
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

/// Method options from command-line names and text values, and the seed.
pub(crate) fn method_options(options: &[(String, String)], seed: u64) -> PyResult<MethodOptions> {
    let mut opts = MethodOptions::default();
    for (name, value) in options {
        opts.set(name, value).map_err(py_err)?;
    }
    opts.seed = seed;
    Ok(opts)
}

/// Fits catalogue method `method` with `options` (command-line names and text values,
/// as `kernlearn fit --NAME VALUE`), scaling `scale`, selection by `grid_json`
/// (`GridSettings`) when given, and seed `seed`. Returns the model, the chosen
/// hyper-parameters as JSON, and, when the selection fell back to the SVM on the base
/// kernel, the declined learned kernel's model (`FittedPipeline::declined`; else `None`).
/// `sample_weight` weights the training rows (`Pipeline::fit_weighted`; methods that
/// cannot honour weights refuse); `feature_names` (a DataFrame's columns) name the
/// features for the methods that read names (ARD's one-hot blocks).
#[pyfunction]
#[pyo3(signature = (method, options, scale, grid_json, seed, x, y, regression=false, sample_weight=None, feature_names=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn fit_method(
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
    feature_names: Option<Vec<String>>,
) -> PyResult<(PyModel, String, Option<PyModel>)> {
    let spec = MethodSpec::parse(method, &options, scale, grid_json, seed)?;
    let mut data = dataset(features(&x)?, labels(&y)?, regression);
    if let Some(names) = feature_names.filter(|n| n.len() == data.x.n_cols()) {
        data.feature_names = names;
    }
    let weights = sample_weight.as_ref().map(labels).transpose()?;
    let fitted = interruptible(py, || {
        let method = spec.build(&data)?;
        let w = weights.as_deref();
        Pipeline::fit_weighted(spec.scale, &method, &data, w, seed, &|_| {})
    })?;
    let chosen = fitted.record();
    let declined = fitted.declined.map(PyModel::new);
    Ok((PyModel::new(fitted.pipeline), chosen.to_string(), declined))
}
