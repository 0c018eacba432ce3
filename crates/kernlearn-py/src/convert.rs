//! numpy arrays, CSR triples, labels and JSON to the library's types and back, and the
//! library's errors as Python exceptions.

use kernlearn::data::{Dataset, Features, SparseFeatures};
use kernlearn::method::{spell, Spelling};
use kernlearn::Error;
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyFileExistsError, PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;

/// The library's error as the Python exception scikit-learn would raise for it: bad
/// parameters and data are `ValueError`, file errors `OSError`.
pub(crate) fn py_err(e: Error) -> PyErr {
    let text = spell(&e.to_string(), Spelling::Python);
    match e {
        Error::Io { .. } => PyOSError::new_err(text),
        Error::WouldOverwrite { .. } => PyFileExistsError::new_err(text),
        Error::InvalidParameter { .. }
        | Error::InvalidData(_)
        | Error::Parse { .. }
        | Error::Model { .. }
        | Error::Numerical(_) => PyValueError::new_err(text),
        _ => PyRuntimeError::new_err(text),
    }
}

pub(crate) fn json_err(what: &str, e: serde_json::Error) -> PyErr {
    PyValueError::new_err(format!("{what}: {e}"))
}

/// `text` as JSON of type `T` (a `ValueError` naming `what` otherwise).
pub(crate) fn from_json<T: serde::de::DeserializeOwned>(text: &str, what: &str) -> PyResult<T> {
    serde_json::from_str(text).map_err(|e| json_err(what, e))
}

/// `value` as JSON text.
pub(crate) fn to_json<T: serde::Serialize>(value: &T, what: &str) -> PyResult<String> {
    serde_json::to_string(value).map_err(|e| json_err(what, e))
}

/// A C-contiguous float64 matrix as [`Features`]. The numpy buffer is read in place (no
/// conversion); [`Features`] owns its values, so they are copied once into it.
pub(crate) fn features(x: &PyReadonlyArray2<'_, f64>) -> PyResult<Features> {
    let shape = x.shape();
    let values = x.as_slice().map_err(|_| {
        PyTypeError::new_err("X must be a C-contiguous float64 array (np.ascontiguousarray)")
    })?;
    Features::new(shape[0], shape[1], values.to_vec()).map_err(py_err)
}

/// Rows as Python passes them: a dense float64 matrix, or a CSR matrix as
/// `(shape, indptr, indices, data)` (`indptr`, `indices` int64, `data` float64, from
/// `scipy.sparse.csr_matrix` with sorted, summed indices).
#[derive(FromPyObject)]
pub(crate) enum Rows<'py> {
    Dense(PyReadonlyArray2<'py, f64>),
    Sparse(
        (usize, usize),
        PyReadonlyArray1<'py, i64>,
        PyReadonlyArray1<'py, i64>,
        PyReadonlyArray1<'py, f64>,
    ),
}

/// [`Rows`] read into the library's types.
pub(crate) enum Input {
    Dense(Features),
    Sparse(SparseFeatures),
}

impl Rows<'_> {
    /// The rows as the library's features (the CSR layout is checked by the library: a
    /// bad one is a `ValueError`).
    pub(crate) fn read(&self) -> PyResult<Input> {
        match self {
            Rows::Dense(x) => Ok(Input::Dense(features(x)?)),
            Rows::Sparse(shape, indptr, indices, data) => Ok(Input::Sparse(sparse_features(
                *shape, indptr, indices, data,
            )?)),
        }
    }
}

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

pub(crate) fn labels(y: &PyReadonlyArray1<'_, f64>) -> PyResult<Vec<f64>> {
    Ok(y.as_array().iter().copied().collect())
}

/// A training set from the arrays, with the CLI's default names (`f1…fd`, `label` or
/// `target`: `svm` fits an SVR when the target is named `target`).
pub(crate) fn dataset(x: Features, y: Vec<f64>, regression: bool) -> Dataset {
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
pub(crate) fn matrix<'py>(
    py: Python<'py>,
    rows: Vec<Vec<f64>>,
    cols: usize,
) -> Bound<'py, PyArray2<f64>> {
    let n = rows.len();
    let flat: Vec<f64> = rows.into_iter().flatten().collect();
    Array2::from_shape_vec((n, cols), flat)
        .expect("every row has `cols` values")
        .into_pyarray(py)
}

/// Runs `work` (a fit) without the GIL on a thread of its own while this thread, Python's
/// main one, waits for it and checks for signals every 50 ms: on Ctrl-C the library is
/// asked to stop ([`kernlearn::cancel`]), the interrupted fit is waited for (moments: its
/// solver loops poll the request) and discarded, and Python gets its
/// `KeyboardInterrupt`. A fit that ends sooner returns at once.
pub(crate) fn interruptible<T: Send>(
    py: Python<'_>,
    work: impl FnOnce() -> kernlearn::Result<T> + Send,
) -> PyResult<T> {
    use std::sync::mpsc::{channel, RecvTimeoutError};
    let outcome = py.detach(|| {
        std::thread::scope(|scope| {
            let (done, finished) = channel();
            let fit = scope.spawn(move || {
                let result = work();
                let _ = done.send(());
                result
            });
            loop {
                match finished.recv_timeout(std::time::Duration::from_millis(50)) {
                    Ok(()) | Err(RecvTimeoutError::Disconnected) => return Ok(fit.join()),
                    Err(RecvTimeoutError::Timeout) => {}
                }
                if let Err(interrupt) = Python::attach(|py| py.check_signals()) {
                    kernlearn::cancel::request();
                    let _ = fit.join();
                    kernlearn::cancel::reset();
                    return Err(interrupt);
                }
            }
        })
    })?;
    match outcome {
        Ok(result) => result.map_err(py_err),
        Err(panic) => std::panic::resume_unwind(panic),
    }
}
