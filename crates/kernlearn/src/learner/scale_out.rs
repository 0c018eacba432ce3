//! Fits spread over workers by a coordinator (`kernlearn.ray` drives them on a Ray
//! cluster): one protocol for every method that offers it, found by method name in the
//! catalogue (`crate::method::MethodKind::scale_out`), so that a front end binds a few
//! generic calls and names no family.
//!
//! - **Start** ([`ScaleOut::start`]): from the method options, method settings that are
//!   not command-line options, the labels and the rows each offered worker would hold,
//!   the method returns its [`Coordinator`], one setup [`Packet`] per worker it wants
//!   and the labels the workers get (a worker of a [`ScaleOut::partitioned`] method
//!   holds a run of rows, every other one holds all of them).
//! - **Steps** ([`Coordinator::step`]): given the replies to the previous step (none at
//!   first), the coordinator returns [`Step::Ask`] (request `w` to worker `w`, which
//!   keeps state between requests: [`ScaleOutWorker`]), [`Step::Regroup`] (the rows are
//!   regrouped by the group each worker gives its rows, [`ScaleOutWorker::groups`], and
//!   request `g` is answered on group `g`'s rows by a stateless task,
//!   [`ScaleOut::work_group`]; the workers are released before), or [`Step::Done`].
//! - **Lost workers**: a worker counts the requests it served; one asked out of turn
//!   (its process was restarted, its state is new) answers `None`, and the driver
//!   replays the requests it sent it before ([`ScaleOutWorker::replay`]): requests are
//!   deterministic, so the rebuilt state is the lost one, bit for bit.
//!
//! Offered by MWUMKL (workers hold slices of the kernel family) and scalable DANK
//! (workers hold row partitions for k-means; clusters are regrouped and fitted).

use super::model::AnyModel;
use crate::data::Features;
use crate::options::MethodOptions;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A message between the coordinator and a worker: a JSON head and plain numbers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Packet {
    /// What the message is (request kind and its small arguments).
    pub head: serde_json::Value,
    /// Its bulk numbers (vectors over points or kernels).
    pub values: Vec<f64>,
}

impl Packet {
    /// A packet of `head` and `values`.
    pub fn new(head: serde_json::Value, values: Vec<f64>) -> Self {
        Self { head, values }
    }
}

/// What a coordinator wants next.
#[derive(Debug)]
pub enum Step {
    /// Request `w` to worker `w` (every worker).
    Ask(Vec<Packet>),
    /// Regroup the rows by the workers' groups and answer request `g` on group `g`
    /// (`None`: nothing to do for it); the workers are not asked again.
    Regroup(Vec<Option<Packet>>),
    /// The fit is finished.
    Done(Finished),
}

/// A finished distributed fit.
#[derive(Debug)]
pub struct Finished {
    /// The fitted model (no scaling), when the method makes one.
    pub model: Option<AnyModel>,
    /// What the front end reports: the parameters chosen (as `fit_method`'s record) or
    /// the method's solution.
    pub record: serde_json::Value,
}

/// The state machine of one distributed fit.
pub trait Coordinator: Send {
    /// The next step from the replies to the previous one, in worker (or group) order;
    /// empty at the first call.
    fn step(&mut self, replies: Vec<Option<Packet>>) -> Result<Step>;
}

/// A worker's side of a method: its rows' state.
pub(crate) trait Worker: Send {
    /// Answers `request`, updating the state.
    fn work(&mut self, request: &Packet) -> Result<Packet>;
    /// The group of each of the worker's rows, for [`Step::Regroup`].
    fn groups(&self) -> Result<Vec<usize>> {
        Err(Error::data("this method's workers do not group their rows"))
    }
}

/// What a distributed fit starts from.
#[derive(Clone, Debug, Default)]
pub struct ScaleOutInput {
    /// Method options, as on the command line.
    pub options: MethodOptions,
    /// Method settings that are no command-line option (JSON object; may be null).
    pub settings: serde_json::Value,
    /// The training labels, in row order.
    pub labels: Vec<f64>,
    /// Number of features.
    pub n_features: usize,
    /// Rows each offered worker holds: a partition each (partitioned methods, whole
    /// blocks of `cluster::distributed::BLOCK_ROWS` but the last), else all rows each.
    pub parts: Vec<usize>,
}

impl ScaleOutInput {
    /// Number of training rows.
    pub fn n_rows(&self) -> usize {
        self.labels.len()
    }
}

/// A started fit: the coordinator, one setup per worker it wants and the workers'
/// labels (in row order; each worker gets those of its rows).
pub struct Started {
    /// The state machine.
    pub coordinator: Box<dyn Coordinator>,
    /// One per worker.
    pub setups: Vec<Packet>,
    /// The labels the workers train on.
    pub labels: Vec<f64>,
}

impl fmt::Debug for Started {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Started")
            .field("workers", &self.setups.len())
            .finish_non_exhaustive()
    }
}

/// Builds a worker from its setup, rows and labels.
pub(crate) type WorkerBuilder = fn(&Packet, Features, Vec<f64>) -> Result<Box<dyn Worker>>;

/// A method's distributed fit, declared by its family ([`super::Family::scale_out`]).
pub struct ScaleOut {
    /// The catalogue method it fits.
    pub method: &'static str,
    /// Whether workers hold row partitions (else all rows each).
    pub partitioned: bool,
    pub(crate) start: fn(&ScaleOutInput) -> Result<Started>,
    pub(crate) worker: WorkerBuilder,
    pub(crate) group: fn(&Packet, &Features, &[f64]) -> Result<Packet>,
}

impl fmt::Debug for ScaleOut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScaleOut")
            .field("method", &self.method)
            .finish_non_exhaustive()
    }
}

impl ScaleOut {
    /// Starts a fit (see the module docs).
    pub fn start(&self, input: &ScaleOutInput) -> Result<Started> {
        if input.parts.is_empty() {
            return Err(Error::param("workers", "at least one worker is needed"));
        }
        (self.start)(input)
    }

    /// A worker on rows `x` with labels `y`, set up by `setup`.
    pub fn worker(&self, setup: &Packet, x: Features, y: Vec<f64>) -> Result<ScaleOutWorker> {
        if x.n_rows() != y.len() {
            return Err(Error::data(format!(
                "{} labels for {} rows",
                y.len(),
                x.n_rows()
            )));
        }
        Ok(ScaleOutWorker {
            inner: (self.worker)(setup, x, y)?,
            served: 0,
        })
    }

    /// Answers a [`Step::Regroup`] request on one group's rows `x`, labels `y`.
    pub fn work_group(&self, request: &Packet, x: &Features, y: &[f64]) -> Result<Packet> {
        (self.group)(request, x, y)
    }
}

/// A worker and the number of requests it served.
pub struct ScaleOutWorker {
    inner: Box<dyn Worker>,
    served: usize,
}

impl fmt::Debug for ScaleOutWorker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScaleOutWorker")
            .field("served", &self.served)
            .finish_non_exhaustive()
    }
}

impl ScaleOutWorker {
    /// Requests served so far.
    pub fn served(&self) -> usize {
        self.served
    }

    /// Answers request number `t` (from 0); `None` when it served another number of
    /// requests (a new state: replay the first `t` requests first).
    pub fn work(&mut self, t: usize, request: &Packet) -> Result<Option<Packet>> {
        if t != self.served {
            return Ok(None);
        }
        let reply = self.inner.work(request)?;
        self.served += 1;
        Ok(Some(reply))
    }

    /// Serves `requests` again from the state it holds (a new one after a restart),
    /// their replies dropped.
    pub fn replay(&mut self, requests: &[Packet]) -> Result<()> {
        for request in &requests[self.served.min(requests.len())..] {
            self.inner.work(request)?;
            self.served += 1;
        }
        Ok(())
    }

    /// The group of each of its rows.
    pub fn groups(&self) -> Result<Vec<usize>> {
        self.inner.groups()
    }
}

/// The field `name` of a packet head, as `T`.
pub(crate) fn field<T: serde::de::DeserializeOwned>(
    head: &serde_json::Value,
    name: &str,
) -> Result<T> {
    let value = head
        .get(name)
        .ok_or_else(|| Error::data(format!("scale-out message: no field `{name}`")))?;
    serde_json::from_value(value.clone())
        .map_err(|e| Error::data(format!("scale-out message: field `{name}`: {e}")))
}

/// The replies of a step, every one present.
pub(crate) fn all_replies(replies: Vec<Option<Packet>>, expected: usize) -> Result<Vec<Packet>> {
    if replies.len() != expected {
        return Err(Error::data(format!(
            "scale-out: {} replies for {expected} requests",
            replies.len()
        )));
    }
    replies
        .into_iter()
        .map(|r| r.ok_or_else(|| Error::data("scale-out: a worker's reply is missing")))
        .collect()
}
