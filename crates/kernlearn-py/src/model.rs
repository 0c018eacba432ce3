//! The `Model` pyclass: a fitted [`Pipeline`] (scaler + model) with its predictions on
//! dense or sparse rows, representations, model-file I/O and description.

use crate::convert::{features, json_err, matrix, py_err, Input, Rows};
use kernlearn::method::{spell, Spelling};
use kernlearn::predictor::{Artefact, ArtefactKind};
use kernlearn::{MethodKind, Pipeline};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// A fitted estimator: the library's [`Pipeline`] (scaler + model), as saved in model files.
#[pyclass(module = "kernlearn._core", name = "Model", frozen)]
pub(crate) struct PyModel {
    pub(crate) pipeline: Pipeline,
}

impl PyModel {
    pub(crate) fn new(pipeline: Pipeline) -> Self {
        Self { pipeline }
    }

    /// Decision values of `x`, dense or sparse, with the GIL released.
    fn decisions(&self, py: Python<'_>, x: &Rows<'_>) -> PyResult<Vec<Vec<f64>>> {
        let x = x.read()?;
        py.detach(|| match &x {
            Input::Dense(x) => self.pipeline.decision_function(x),
            Input::Sparse(x) => self.pipeline.decision_function_sparse(x),
        })
        .map_err(py_err)
    }

    /// The number of decision values per row of the model.
    fn decision_count(&self) -> usize {
        let m = &self.pipeline.model;
        match m.task() {
            kernlearn::Task::Classification => {
                let k = m.classes().len();
                k * k.saturating_sub(1) / 2
            }
            _ => 1,
        }
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

    /// One prediction per row of `x`: a dense float64 matrix, or CSR arrays
    /// `(shape, indptr, indices, data)` (svm models only; other methods refuse sparse
    /// input with a `ValueError` naming them).
    fn predict<'py>(&self, py: Python<'py>, x: Rows<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let x = x.read()?;
        let pred = py
            .detach(|| match &x {
                Input::Dense(x) => self.pipeline.predict(x),
                Input::Sparse(x) => self.pipeline.predict_sparse(x),
            })
            .map_err(py_err)?;
        Ok(pred.into_pyarray(py))
    }

    /// Decision values of `x` (dense or CSR, as `predict`), `n × n_values` (one column
    /// per class pair for one-vs-one classifiers, in the model's class order).
    fn decision_function<'py>(
        &self,
        py: Python<'py>,
        x: Rows<'py>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let dec = self.decisions(py, &x)?;
        let cols = dec.first().map_or(0, Vec::len);
        Ok(matrix(py, dec, cols))
    }

    /// Class probabilities of `x` (dense or CSR, as `predict`), `n × n_classes` in the
    /// model's class order (Platt scaling and pairwise coupling, as LIBSVM; the model
    /// must have been fitted with probabilities).
    fn predict_proba<'py>(
        &self,
        py: Python<'py>,
        x: Rows<'py>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let model = &self.pipeline.model;
        let dec = self.decisions(py, &x)?;
        let proba = py
            .detach(|| {
                dec.iter()
                    .map(|d| model.probabilities_from_decision(d))
                    .collect::<kernlearn::Result<Vec<_>>>()
            })
            .map_err(py_err)?;
        Ok(matrix(py, proba, model.classes().len()))
    }

    /// The per-row artefact `name` (`gates`, `fused`) of the rows `x` (raw
    /// features, scaled as at fit time) for class pair `pair`, `n × width`.
    fn representation<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        name: &str,
        pair: usize,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let model = &self.pipeline.model;
        if !(model.artefact_names(ArtefactKind::PerRow)).contains(&name) {
            return Err(PyValueError::new_err(format!(
                "a {} model has no per-row artefact `{name}` (the models of {} have one)",
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

    /// What the model is, as JSON: `method`, `task`, `n_features`, `classes` (model
    /// order), `summary`, `params`, `warnings`, `artefacts` (each [`Artefact::to_json`]), `feature_relevance` (or null).
    fn info(&self) -> String {
        let m = &self.pipeline.model;
        serde_json::json!({
            "method": m.method(),
            "task": m.task().name(),
            "n_features": m.n_features(),
            "classes": m.classes(),
            "summary": m.summary(),
            "params": m.params_json(),
            "warnings": (m.warnings().iter()).map(|w| spell(w, Spelling::Python)).collect::<Vec<_>>(),
            "artefacts": (m.artefacts().iter()).map(Artefact::to_json).collect::<Vec<_>>(),
            "feature_relevance": m.feature_relevance(),
            "decision_names": m.decision_names(self.decision_count()),
        })
        .to_string()
    }

    /// The unsigned dual variable of each of the `n_rows` training rows of a binary
    /// C-SVC (`Pipeline::row_alpha`): the start `fit_svm(…, warm_alpha=…)` takes.
    fn row_alpha<'py>(
        &self,
        py: Python<'py>,
        n_rows: usize,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let alpha = self.pipeline.row_alpha(n_rows).map_err(py_err)?;
        Ok(alpha.into_pyarray(py))
    }

    fn __getnewargs__(&self) -> PyResult<(String,)> {
        Ok((self.to_json()?,))
    }

    #[new]
    fn py_new(text: &str) -> PyResult<Self> {
        Self::from_json(text)
    }
}
