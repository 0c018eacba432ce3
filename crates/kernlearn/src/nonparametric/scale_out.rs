//! Scalable DANK spread over workers ([`crate::learner::scale_out`]): each worker holds
//! a run of whole k-means blocks of rows and answers the k-means driver's requests
//! (`cluster::distributed::answer`, its labels kept in its [`PartitionState`]); the
//! rows are then regrouped by cluster and each non-empty cluster's machine is fitted
//! by a stateless task ([`fit_cluster`]); the coordinator assembles the model
//! ([`ScalableDankModel::from_clusters`]). The model equals the single-machine fit's.
//!
//! The coordinator runs the library's k-means driver (`KMeans::fit_partitioned`, a
//! loop that asks and waits) on a thread of its own, handing each of its requests out
//! as a step and each step's replies back to it, so the driver is the single-machine
//! fit's own code.

use super::learner::scalable_dank_params;
use super::scalable::{binary_labels, fit_cluster, ClusterMachine, ScalableDankModel};
use super::ScalableDankParams;
use crate::cluster::distributed::{answer, PartitionState, PartitionedFit, Reply, Request};
use crate::cluster::BLOCK_ROWS;
use crate::data::Features;
use crate::learner::scale_out::{all_replies, field, Worker};
use crate::learner::{
    ChosenParams, Coordinator, Finished, FittedMethod, Packet, ScaleOut, ScaleOutInput, Started,
    Step,
};
use crate::{Error, Result};
use serde_json::json;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::Instant;

/// Scalable DANK's entry in the catalogue's distributed fits.
pub(crate) static SCALE_OUT: ScaleOut = ScaleOut {
    method: super::SCALABLE_DANK,
    partitioned: true,
    start,
    worker,
    group,
};

fn start(input: &ScaleOutInput) -> Result<Started> {
    let (n, d) = (input.n_rows(), input.n_features);
    if input.parts.iter().sum::<usize>() != n {
        return Err(Error::data(format!(
            "the partitions hold {} rows for {n} labels",
            input.parts.iter().sum::<usize>()
        )));
    }
    let params = scalable_dank_params(&input.options, n, d)?;
    params.check(n, d)?;
    let (classes, signed) = binary_labels(&input.labels)?;
    let mut offset = 0;
    let setups = input
        .parts
        .iter()
        .map(|&rows| {
            let setup = Packet::new(json!({ "offset": offset }), Vec::new());
            offset += rows;
            setup
        })
        .collect();
    let coordinator = DankCoordinator {
        params,
        classes,
        n,
        d,
        workers: input.parts.len(),
        started: Instant::now(),
        phase: Phase::KMeans(None),
    };
    Ok(Started {
        coordinator: Box::new(coordinator),
        setups,
        labels: signed,
    })
}

/// What the k-means thread sends the coordinator.
enum FromDriver {
    Ask(Request),
    Done(Result<PartitionedFit>),
}

/// The k-means driver's thread and its two channels.
struct Driver {
    requests: Receiver<FromDriver>,
    replies: Sender<Vec<Reply>>,
    thread: Option<JoinHandle<()>>,
}

impl Driver {
    fn spawn(params: &ScalableDankParams, n: usize, d: usize) -> Self {
        let (to_coordinator, requests) = channel();
        let (replies, from_coordinator) = channel::<Vec<Reply>>();
        let kmeans = params.kmeans();
        let thread = std::thread::spawn(move || {
            let sender = to_coordinator.clone();
            let mut ask = |request: &Request| -> Result<Vec<Reply>> {
                sender
                    .send(FromDriver::Ask(request.clone()))
                    .map_err(|_| Error::data("scalable DANK: the coordinator is gone"))?;
                from_coordinator
                    .recv()
                    .map_err(|_| Error::data("scalable DANK: the fit was abandoned"))
            };
            let fit = kmeans.fit_partitioned(n, d, &mut ask);
            let _ = to_coordinator.send(FromDriver::Done(fit));
        });
        Self {
            requests,
            replies,
            thread: Some(thread),
        }
    }

    /// The driver's next message.
    fn next(&mut self) -> Result<FromDriver> {
        let message = self
            .requests
            .recv()
            .map_err(|_| Error::numerical("scalable DANK: the k-means driver stopped"))?;
        if matches!(message, FromDriver::Done(_)) {
            if let Some(thread) = self.thread.take() {
                let _ = thread.join();
            }
        }
        Ok(message)
    }
}

enum Phase {
    /// k-means (its driver once started).
    KMeans(Option<Driver>),
    /// Cluster machines asked, from these k-means centres and cluster sizes.
    Clusters(PartitionedFit),
    Finished,
}

struct DankCoordinator {
    params: ScalableDankParams,
    classes: Vec<f64>,
    n: usize,
    d: usize,
    workers: usize,
    started: Instant,
    phase: Phase,
}

impl DankCoordinator {
    fn kmeans_step(&mut self, replies: Vec<Option<Packet>>) -> Result<Step> {
        let Phase::KMeans(driver) = &mut self.phase else {
            unreachable!("called in the k-means phase")
        };
        let driver = match driver {
            Some(driver) => {
                let replies = all_replies(replies, self.workers)?
                    .iter()
                    .map(|p| field::<Reply>(&p.head, "kmeans"))
                    .collect::<Result<Vec<_>>>()?;
                driver
                    .replies
                    .send(replies)
                    .map_err(|_| Error::numerical("scalable DANK: the k-means driver stopped"))?;
                driver
            }
            None => driver.insert(Driver::spawn(&self.params, self.n, self.d)),
        };
        match driver.next()? {
            FromDriver::Ask(request) => {
                let packet = Packet::new(json!({ "kmeans": request }), Vec::new());
                Ok(Step::Ask(vec![packet; self.workers]))
            }
            FromDriver::Done(fit) => {
                let fit = fit?;
                let params = serde_json::to_value(&self.params)
                    .map_err(|e| Error::data(format!("scalable DANK parameters: {e}")))?;
                let requests = fit
                    .cluster_sizes
                    .iter()
                    .map(|&size| {
                        (size > 0)
                            .then(|| Packet::new(json!({ "fit_cluster": params }), Vec::new()))
                    })
                    .collect();
                self.phase = Phase::Clusters(fit);
                Ok(Step::Regroup(requests))
            }
        }
    }

    fn model_step(&mut self, fit: PartitionedFit, replies: Vec<Option<Packet>>) -> Result<Step> {
        if replies.len() != fit.cluster_sizes.len() {
            return Err(Error::data(
                "scalable DANK: one reply per cluster is needed",
            ));
        }
        let machines = replies
            .iter()
            .map(|r| {
                r.as_ref()
                    .map(|p| field::<ClusterMachine>(&p.head, "machine"))
                    .transpose()
            })
            .collect::<Result<Vec<_>>>()?;
        let classes = std::mem::take(&mut self.classes);
        let model = ScalableDankModel::from_clusters(
            &self.params,
            self.d,
            classes,
            &fit.centres,
            machines,
        )?;
        let mut chosen = ChosenParams::of(&self.params.kernel, self.params.c, None);
        chosen
            .other
            .insert("clusters".into(), model.clusters.len() as f64);
        let seconds = self.started.elapsed().as_secs_f64();
        let fitted = FittedMethod::new(model.into(), chosen, seconds);
        Ok(Step::Done(Finished {
            record: fitted.record(),
            model: Some(fitted.model),
        }))
    }
}

impl Coordinator for DankCoordinator {
    fn step(&mut self, replies: Vec<Option<Packet>>) -> Result<Step> {
        match std::mem::replace(&mut self.phase, Phase::Finished) {
            phase @ Phase::KMeans(_) => {
                self.phase = phase;
                self.kmeans_step(replies)
            }
            Phase::Clusters(fit) => self.model_step(fit, replies),
            Phase::Finished => Err(Error::data("scalable DANK: the fit is finished")),
        }
    }
}

/// A worker: a row partition and its k-means state.
struct PartitionWorker {
    x: Features,
    offset: usize,
    state: PartitionState,
}

fn worker(setup: &Packet, x: Features, _y: Vec<f64>) -> Result<Box<dyn Worker>> {
    let offset: usize = field(&setup.head, "offset")?;
    if !offset.is_multiple_of(BLOCK_ROWS) {
        return Err(Error::param(
            "partitions",
            format!("every partition but the last must hold a multiple of {BLOCK_ROWS} rows"),
        ));
    }
    Ok(Box::new(PartitionWorker {
        x,
        offset,
        state: PartitionState::default(),
    }))
}

impl Worker for PartitionWorker {
    fn work(&mut self, request: &Packet) -> Result<Packet> {
        let request: Request = field(&request.head, "kmeans")?;
        let reply = answer(&self.x, self.offset, &mut self.state, &request)?;
        Ok(Packet::new(json!({ "kmeans": reply }), Vec::new()))
    }

    fn groups(&self) -> Result<Vec<usize>> {
        let labels = self.state.labels();
        if labels.len() != self.x.n_rows() {
            return Err(Error::data(
                "scalable DANK: the partition has no k-means labels yet",
            ));
        }
        Ok(labels.to_vec())
    }
}

/// One cluster's machine on its rows (in partition order) and ±1 labels.
fn group(request: &Packet, x: &Features, y: &[f64]) -> Result<Packet> {
    let params: ScalableDankParams = field(&request.head, "fit_cluster")?;
    let machine = fit_cluster(&params, x, y)?;
    let machine =
        serde_json::to_value(&machine).map_err(|e| Error::data(format!("cluster machine: {e}")))?;
    Ok(Packet::new(json!({ "machine": machine }), Vec::new()))
}
