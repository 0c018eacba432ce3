//! MWUMKL spread over workers ([`crate::learner::scale_out`]): each worker holds a slice
//! of the kernel family ([`MwumklShard`]) on all the rows; the coordinator runs the
//! forward step ([`most_violating`]) on the sum of the shards' round parts, then asks
//! for the objectives, computes the weights ([`kernel_weights`]), asks for the weighted
//! sums and finishes ([`finish`]): the arithmetic of the single-process fit, up to the
//! order of the sums over kernels. It plays one dense game (`prune = false`): the
//! single-process fit with sparse MWUMKL turned off.
//!
//! Settings: `kernels` (a `--kernels` spec or file; default the options' `kernels`, else
//! `family12@each`) and `params` ([`MwumklParams`] JSON; default ε from `mwu-epsilon`,
//! C from `c`, hard margin when neither `params` nor `c` is given).

use super::mwumkl::{finish, kernel_weights, most_violating, MwumklParams, MwumklShard};
use crate::bank::{KernelFamily, KERNELS};
use crate::data::Features;
use crate::learner::options::C;
use crate::learner::scale_out::{all_replies, field, Worker};
use crate::learner::{Coordinator, Finished, Packet, ScaleOut, ScaleOutInput, Started, Step};
use crate::{Error, Result};
use serde_json::json;

/// MWUMKL's entry in the catalogue's distributed fits.
pub(crate) static SCALE_OUT: ScaleOut = ScaleOut {
    method: "mwumkl",
    partitioned: false,
    start,
    worker,
    group: no_groups,
};

fn settings_of(input: &ScaleOutInput) -> Result<(String, MwumklParams)> {
    let s = &input.settings;
    let kernels = match s.get("kernels").and_then(|v| v.as_str()) {
        Some(k) => k.to_string(),
        None => input
            .options
            .text(&KERNELS)
            .unwrap_or(super::learner::DEFAULT_FAMILY)
            .to_string(),
    };
    let params = match s.get("params") {
        Some(p) => serde_json::from_value(p.clone())
            .map_err(|e| Error::param("params", format!("MWUMKL parameters: {e}")))?,
        None => {
            let defaults = MwumklParams::default();
            MwumklParams {
                epsilon: input
                    .options
                    .number(&super::catalogue::MWU_EPSILON)?
                    .unwrap_or(defaults.epsilon),
                c: input.options.number(&C)?,
                prune: false,
                ..defaults
            }
        }
    };
    params.validate()?;
    if params.prune {
        return Err(Error::param(
            "prune",
            "the distributed MWUMKL plays one dense game; sparse MWUMKL's repeated games run in one process (MKLClassifier)",
        ));
    }
    Ok((kernels, params))
}

/// Cuts the family's `m` kernels into at most `workers` slices, as `numpy.linspace`.
fn cuts(m: usize, workers: usize) -> Vec<usize> {
    let k = workers.min(m).max(1);
    (0..=k).map(|i| i * m / k).collect()
}

fn start(input: &ScaleOutInput) -> Result<Started> {
    let (kernels, params) = settings_of(input)?;
    let family = KernelFamily::from_spec_or_file(&kernels)?;
    family.validate(input.n_features)?;
    let (n, m) = (input.n_rows(), family.len(input.n_features));
    let y = &input.labels;
    if y.iter().any(|&l| l != 1.0 && l != -1.0) {
        return Err(Error::data("MWUMKL's distributed fit takes labels ±1"));
    }
    let cuts = cuts(m, input.parts.len());
    let setups = cuts
        .windows(2)
        .map(|w| {
            let head = json!({"kernels": kernels, "params": params, "lo": w[0], "hi": w[1]});
            Packet::new(head, Vec::new())
        })
        .collect();
    let coordinator = MwumklCoordinator {
        y: y.clone(),
        params,
        rounds: params.rounds(n),
        cuts,
        t: 0,
        l_ref: 0.0,
        counts: vec![0; n],
        phase: Phase::Rounds,
        weights: Vec::new(),
        q: Vec::new(),
    };
    Ok(Started {
        coordinator: Box::new(coordinator),
        setups,
        labels: y.clone(),
    })
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    Rounds,
    Objectives,
    Sums,
}

struct MwumklCoordinator {
    y: Vec<f64>,
    params: MwumklParams,
    rounds: usize,
    cuts: Vec<usize>,
    /// Rounds asked so far.
    t: usize,
    l_ref: f64,
    counts: Vec<u32>,
    phase: Phase,
    weights: Vec<f64>,
    q: Vec<f64>,
}

impl MwumklCoordinator {
    fn shards(&self) -> usize {
        self.cuts.len() - 1
    }

    /// The same request to every shard.
    fn to_all(&self, head: serde_json::Value) -> Step {
        Step::Ask(vec![Packet::new(head, Vec::new()); self.shards()])
    }

    /// The sum of the shards' parts of `g` (in shard order) and the next `l_ref`.
    fn sum_parts(&mut self, replies: &[Packet]) -> Result<Vec<f64>> {
        let mut g = vec![0.0; self.y.len()];
        let mut l_ref = f64::NEG_INFINITY;
        for part in replies {
            if part.values.len() != g.len() {
                return Err(Error::data(
                    "MWUMKL: a shard's part of g has the wrong length",
                ));
            }
            g.iter_mut().zip(&part.values).for_each(|(a, b)| *a += b);
            l_ref = l_ref.max(field::<f64>(&part.head, "l_max")?);
        }
        self.l_ref = l_ref;
        Ok(g)
    }

    /// The next round's request after the parts `g`.
    fn next_round(&mut self, g: &[f64]) -> Step {
        let (p, r) = most_violating(g, &self.y);
        self.counts[p] += 1;
        self.counts[r] += 1;
        self.t += 1;
        self.to_all(json!({"round": [p, r], "l_ref": self.l_ref}))
    }

    fn rounds_step(&mut self, replies: Vec<Option<Packet>>) -> Result<Step> {
        let g = if self.t == 0 {
            vec![0.0; self.y.len()]
        } else {
            let replies = all_replies(replies, self.shards())?;
            self.sum_parts(&replies)?
        };
        if self.t < self.rounds {
            return Ok(self.next_round(&g));
        }
        self.phase = Phase::Objectives;
        Ok(self.to_all(json!("objectives")))
    }

    fn objectives_step(&mut self, replies: Vec<Option<Packet>>) -> Result<Step> {
        let replies = all_replies(replies, self.shards())?;
        self.q = replies.into_iter().flat_map(|p| p.values).collect();
        if self.q.len() != *self.cuts.last().unwrap_or(&0) {
            return Err(Error::data(
                "MWUMKL: the shards' objectives do not cover the family",
            ));
        }
        self.weights = kernel_weights(&self.q, self.y.len(), &self.params);
        self.phase = Phase::Sums;
        let requests = self
            .cuts
            .windows(2)
            .map(|w| Packet::new(json!("weighted_sum"), self.weights[w[0]..w[1]].to_vec()))
            .collect();
        Ok(Step::Ask(requests))
    }

    fn finish_step(&mut self, replies: Vec<Option<Packet>>) -> Result<Step> {
        let replies = all_replies(replies, self.shards())?;
        let mut h_mu = vec![0.0; self.y.len()];
        for part in &replies {
            h_mu.iter_mut().zip(&part.values).for_each(|(a, b)| *a += b);
        }
        let weights = std::mem::take(&mut self.weights);
        let sol = finish(&self.y, weights, &self.q, &h_mu, &self.counts, self.rounds);
        let record = json!({
            "weights": sol.weights,
            "objective": sol.objective,
            "coef": sol.coef,
            "rho": sol.rho,
            "rounds": sol.rounds,
        });
        Ok(Step::Done(Finished {
            model: None,
            record,
        }))
    }
}

impl Coordinator for MwumklCoordinator {
    fn step(&mut self, replies: Vec<Option<Packet>>) -> Result<Step> {
        match self.phase {
            Phase::Rounds => self.rounds_step(replies),
            Phase::Objectives => self.objectives_step(replies),
            Phase::Sums => self.finish_step(replies),
        }
    }
}

/// A worker: the shard of kernels `lo..hi`.
struct ShardWorker(MwumklShard);

fn worker(setup: &Packet, x: Features, y: Vec<f64>) -> Result<Box<dyn Worker>> {
    let kernels: String = field(&setup.head, "kernels")?;
    let params: MwumklParams = field(&setup.head, "params")?;
    let (lo, hi): (usize, usize) = (field(&setup.head, "lo")?, field(&setup.head, "hi")?);
    let family = KernelFamily::from_spec_or_file(&kernels)?;
    let shard = MwumklShard::new(&family, &x, &y, &params, lo..hi)?;
    Ok(Box::new(ShardWorker(shard)))
}

impl Worker for ShardWorker {
    fn work(&mut self, request: &Packet) -> Result<Packet> {
        let head = &request.head;
        if head.get("round").is_some() {
            let (p, r): (usize, usize) = field(head, "round")?;
            let part = self.0.round(p, r, field(head, "l_ref")?)?;
            return Ok(Packet::new(json!({"l_max": part.l_max}), part.g));
        }
        match head.as_str() {
            Some("objectives") => Ok(Packet::new(json!(null), self.0.objectives().to_vec())),
            Some("weighted_sum") => Ok(Packet::new(
                json!(null),
                self.0.weighted_sum(&request.values)?,
            )),
            _ => Err(Error::data(format!("MWUMKL shard: unknown request {head}"))),
        }
    }
}

fn no_groups(_: &Packet, _: &Features, _: &[f64]) -> Result<Packet> {
    Err(Error::data(
        "MWUMKL's distributed fit does not regroup rows",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_match_numpy_linspace() {
        assert_eq!(cuts(10, 3), vec![0, 3, 6, 10]);
        assert_eq!(cuts(2, 5), vec![0, 1, 2]);
    }
}
