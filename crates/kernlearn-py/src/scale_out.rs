//! The distributed-fit protocol (`kernlearn::learner::scale_out`) for every method that
//! offers it, by method name: start a coordinator, step it with the workers' replies,
//! run workers and regrouped tasks. A message crosses as `(head JSON, values array)`.

use crate::convert::{features, from_json, labels, py_err, to_json};
use crate::fit::method_options;
use crate::model::PyModel;
use kernlearn::bank::KernelFamily;
use kernlearn::data::Scaler;
use kernlearn::learner::{Coordinator, Packet, ScaleOut, ScaleOutInput, ScaleOutWorker, Step};
use kernlearn::{MethodKind, Pipeline};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::sync::Mutex;

/// A message as Python passes it.
type PyPacket<'py> = (String, PyReadonlyArray1<'py, f64>);
/// A message as Python gets it.
type PacketOut<'py> = (String, Bound<'py, PyArray1<f64>>);

fn packet_in(p: &PyPacket<'_>) -> PyResult<Packet> {
    Ok(Packet::new(
        from_json(&p.0, "scale-out message")?,
        p.1.as_array().iter().copied().collect(),
    ))
}

fn packet_out(py: Python<'_>, p: Packet) -> PyResult<PacketOut<'_>> {
    Ok((
        to_json(&p.head, "scale-out message")?,
        p.values.into_pyarray(py),
    ))
}

/// The distributed fit of catalogue method `method` (a `ValueError` when it has none).
fn scale_out_of(method: &str) -> PyResult<&'static ScaleOut> {
    let kind: MethodKind = method.parse().map_err(py_err)?;
    kind.scale_out().ok_or_else(|| {
        let offering: Vec<&str> = MethodKind::all()
            .filter_map(|k| k.scale_out().map(|_| k.name()))
            .collect();
        PyValueError::new_err(format!(
            "method {method} has no distributed fit (those that have one: {})",
            offering.join(", ")
        ))
    })
}

fn lock<T: ?Sized>(m: &Mutex<T>) -> PyResult<std::sync::MutexGuard<'_, T>> {
    m.lock()
        .map_err(|_| PyRuntimeError::new_err("a previous call panicked"))
}

/// Whether the workers of `method`'s distributed fit hold row partitions (whole blocks
/// of `BLOCK_ROWS` rows but the last) rather than all rows each.
#[pyfunction]
pub(crate) fn scale_out_partitioned(method: &str) -> PyResult<bool> {
    Ok(scale_out_of(method)?.partitioned)
}

/// A distributed fit's coordinator ([`Coordinator`]).
#[pyclass(module = "kernlearn._core", name = "Coordinator")]
pub(crate) struct PyCoordinator {
    inner: Mutex<Box<dyn Coordinator>>,
    n_features: usize,
}

/// Starts the distributed fit of `method` with `options` (command-line names and
/// values), `settings` (JSON of method settings that are no option), `seed`, labels `y`,
/// `n_features` and the rows each offered worker holds: the coordinator, one setup
/// message per worker it wants, and the labels the workers train on (row order).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[allow(clippy::type_complexity)]
pub(crate) fn scale_out_start<'py>(
    py: Python<'py>,
    method: &str,
    options: Vec<(String, String)>,
    settings: &str,
    seed: u64,
    y: PyReadonlyArray1<'py, f64>,
    n_features: usize,
    parts: Vec<usize>,
) -> PyResult<(
    PyCoordinator,
    Vec<PacketOut<'py>>,
    Bound<'py, PyArray1<f64>>,
)> {
    let input = ScaleOutInput {
        options: method_options(&options, seed)?,
        settings: from_json(settings, "scale-out settings")?,
        labels: labels(&y)?,
        n_features,
        parts,
    };
    let started = scale_out_of(method)?.start(&input).map_err(py_err)?;
    let setups = started
        .setups
        .into_iter()
        .map(|p| packet_out(py, p))
        .collect::<PyResult<_>>()?;
    let coordinator = PyCoordinator {
        inner: Mutex::new(started.coordinator),
        n_features,
    };
    Ok((coordinator, setups, started.labels.into_pyarray(py)))
}

#[pymethods]
impl PyCoordinator {
    /// The next step from the replies to the previous one (None for a missing one):
    /// `("ask", [request per worker])`, `("regroup", [request or None per group])` or
    /// `("done", (model or None, record JSON))`.
    fn step<'py>(
        &self,
        py: Python<'py>,
        replies: Vec<Option<PyPacket<'py>>>,
    ) -> PyResult<(&'static str, Bound<'py, PyAny>)> {
        let replies = replies
            .iter()
            .map(|r| r.as_ref().map(packet_in).transpose())
            .collect::<PyResult<Vec<_>>>()?;
        let mut guard = lock(&self.inner)?;
        let inner = &mut **guard;
        let step = py.detach(|| inner.step(replies)).map_err(py_err)?;
        Ok(match step {
            Step::Ask(requests) => {
                let out = requests
                    .into_iter()
                    .map(|p| packet_out(py, p))
                    .collect::<PyResult<Vec<_>>>()?;
                ("ask", out.into_pyobject(py)?.into_any())
            }
            Step::Regroup(requests) => {
                let out = requests
                    .into_iter()
                    .map(|p| p.map(|p| packet_out(py, p)).transpose())
                    .collect::<PyResult<Vec<_>>>()?;
                ("regroup", out.into_pyobject(py)?.into_any())
            }
            Step::Done(finished) => {
                let d = self.n_features;
                let model = finished.model.map(|m| {
                    let names = (1..=d).map(|j| format!("f{j}")).collect();
                    PyModel::new(Pipeline::new(Scaler::identity(d), m, names))
                });
                let record = to_json(&finished.record, "record")?;
                ("done", (model, record).into_pyobject(py)?.into_any())
            }
        })
    }
}

/// A worker of a distributed fit ([`ScaleOutWorker`]) on rows `x` with labels `y`.
#[pyclass(module = "kernlearn._core", name = "ScaleOutWorker")]
pub(crate) struct PyScaleOutWorker {
    inner: Mutex<ScaleOutWorker>,
}

#[pymethods]
impl PyScaleOutWorker {
    #[new]
    fn py_new(
        py: Python<'_>,
        method: &str,
        setup: PyPacket<'_>,
        x: PyReadonlyArray2<'_, f64>,
        y: PyReadonlyArray1<'_, f64>,
    ) -> PyResult<Self> {
        let scale_out = scale_out_of(method)?;
        let setup = packet_in(&setup)?;
        let (x, y) = (features(&x)?, labels(&y)?);
        let worker = py
            .detach(|| scale_out.worker(&setup, x, y))
            .map_err(py_err)?;
        Ok(Self {
            inner: Mutex::new(worker),
        })
    }

    /// Requests served so far.
    fn served(&self) -> PyResult<usize> {
        Ok(lock(&self.inner)?.served())
    }

    /// The reply to request number `t` (from 0), or None when the worker's state is new
    /// (restarted): replay the requests before `t`, then ask again.
    fn work<'py>(
        &self,
        py: Python<'py>,
        t: usize,
        request: PyPacket<'py>,
    ) -> PyResult<Option<PacketOut<'py>>> {
        let request = packet_in(&request)?;
        let mut guard = lock(&self.inner)?;
        let inner = &mut *guard;
        let reply = py.detach(|| inner.work(t, &request)).map_err(py_err)?;
        reply.map(|r| packet_out(py, r)).transpose()
    }

    /// Serves the requests sent before again, from a new state.
    fn replay(&self, py: Python<'_>, requests: Vec<PyPacket<'_>>) -> PyResult<usize> {
        let requests = requests
            .iter()
            .map(packet_in)
            .collect::<PyResult<Vec<_>>>()?;
        let mut guard = lock(&self.inner)?;
        let inner = &mut *guard;
        py.detach(|| inner.replay(&requests)).map_err(py_err)?;
        Ok(inner.served())
    }

    /// The group of each of the worker's rows (for a regroup step).
    fn groups<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let groups = lock(&self.inner)?.groups().map_err(py_err)?;
        let groups: Vec<i64> = groups.iter().map(|&g| g as i64).collect();
        Ok(groups.into_pyarray(py))
    }
}

/// The reply to a regroup request of `method` on one group's rows `x`, labels `y`.
#[pyfunction]
pub(crate) fn scale_out_group<'py>(
    py: Python<'py>,
    method: &str,
    request: PyPacket<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
) -> PyResult<PacketOut<'py>> {
    let scale_out = scale_out_of(method)?;
    let request = packet_in(&request)?;
    let (x, y) = (features(&x)?, labels(&y)?);
    let reply = py
        .detach(|| scale_out.work_group(&request, &x, &y))
        .map_err(py_err)?;
    packet_out(py, reply)
}

/// Number of base kernels of the family `kernels` on `n_features` features.
#[pyfunction]
pub(crate) fn kernel_count(kernels: &str, n_features: usize) -> PyResult<usize> {
    let family = KernelFamily::from_spec_or_file(kernels).map_err(py_err)?;
    family.validate(n_features).map_err(py_err)?;
    Ok(family.len(n_features))
}
