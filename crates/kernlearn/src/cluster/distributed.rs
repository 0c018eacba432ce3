//! k-means over partitions of the rows: the seam that runs [`KMeans::fit`] with the data
//! split across processes or machines (`kernlearn.ray.scalable_dank`), and the way the
//! single-machine fit runs too (one partition), so that the two cannot drift apart.
//!
//! Every global quantity of k-means is a reduction over blocks of [`BLOCK_ROWS`] rows
//! taken in block order: the column sums and spread behind `tol`'s scale, the k-means++
//! potentials and `D²` totals, the cluster sums and sizes, the inertia. A partition is a
//! run of whole blocks (it starts at a multiple of [`BLOCK_ROWS`]); it answers a
//! [`Request`] with its per-block partials ([`answer`]), and the driver
//! ([`KMeans::fit_partitioned`]) concatenates the partitions' blocks in order and adds
//! them. The result is therefore bit-identical for every partitioning.
//!
//! - **Seeding** (k-means++): the driver draws the random numbers (ChaCha8 stream `r`
//!   for initialisation `r`). A `D²` draw `u · total` picks the block by the running
//!   sum of the block totals, then the point inside the block by its local running sum
//!   ([`Request::Locate`]); the partition holding it returns the row. The candidates'
//!   capped distances stay in the partitions ([`Request::Capped`]); the chosen one
//!   becomes `closest` at the next `Locate` (its `commit`).
//! - **Lloyd step** ([`Request::Assign`]): a partition assigns its rows to the centres
//!   and returns per-block cluster sums, sizes and inertia, whether a label changed, and
//!   its `2k` points farthest from their centres: empty-cluster relocation visits at
//!   most `e + k ≤ 2k − 1` points of the global order (distance descending, index
//!   ascending), so the union of the partitions' candidates holds every point the
//!   single-process relocation would visit. The driver relocates and sends the moves
//!   with the next centres.
//! - **State**: a partition's labels and distances live in its [`PartitionState`],
//!   passed from one request to the next (an array in Ray's object store); a request is
//!   a pure function of (rows, state, request), so a lost task re-runs with the same
//!   result.

use super::{assign_all, Centres, KMeans, BLOCK_ROWS};
use crate::data::Features;
use crate::kernel::{dot, sq_dist};
use crate::{Error, Result};
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, MatRef, Par};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// A k-means++ draw: a point by its global index (the first centre, or any point when
/// every point sits on a centre), or by `D²` weight inside global block `block`, where
/// `r` is the remaining mass (`f64::MAX`: the block's last point of positive weight).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Draw {
    /// The point of this global row index.
    Index(usize),
    /// The first point of `block` whose running `D²` sum exceeds `r`.
    Weighted {
        /// Global block index.
        block: usize,
        /// Mass left after the blocks before it.
        r: f64,
    },
}

/// What the driver asks every partition (the same request to all of them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Request {
    /// Per-block column sums (the mean behind `tol`'s scale); checks the rows are finite.
    ColumnSums,
    /// Per-block `Σ_i ‖x_i − mean‖²`.
    Spread {
        /// The data mean.
        mean: Vec<f64>,
    },
    /// Rows of the drawn points. `commit`: the candidate of the last [`Request::Capped`]
    /// that became a centre (its capped distances become each point's `D²`).
    Locate {
        /// Candidate column of the last `Capped` to keep, if any.
        commit: Option<usize>,
        /// The draws, answered by the partition that holds each point.
        draws: Vec<Draw>,
    },
    /// `min(D²_i, ‖x_i − cand_c‖²)` for each candidate row (no cap when `first`); kept
    /// in the state, answered with per-block sums per candidate.
    Capped {
        /// Candidate rows.
        candidates: Vec<Vec<f64>>,
        /// The first centre: no `D²` yet.
        first: bool,
    },
    /// Assignment to `centres` after applying the relocation `moves` (global index,
    /// new cluster) to the previous labels (`fresh`: there are none).
    Assign {
        /// Centre rows.
        centres: Vec<Vec<f64>>,
        /// Points moved into empty clusters by the last update.
        moves: Vec<(usize, usize)>,
        /// No previous labels (the first assignment of a run).
        fresh: bool,
    },
}

/// A point far from its centre, offered for empty-cluster relocation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// Global row index.
    pub index: usize,
    /// Squared distance to its centre.
    pub dist: f64,
    /// Its cluster.
    pub label: usize,
    /// Its row.
    pub row: Vec<f64>,
}

/// A partition's answer to [`Request::Assign`]: per-block partials of one Lloyd step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepPartials {
    /// Whether a label differs from the previous (moved) labels.
    pub changed: bool,
    /// Per block: cluster coordinate sums, `k × d` row-major.
    pub sums: Vec<Vec<f64>>,
    /// Per block: cluster sizes.
    pub counts: Vec<Vec<usize>>,
    /// Per block: `Σ_i ‖x_i − c_{a(i)}‖²`.
    pub inertia: Vec<f64>,
    /// The partition's `2k` points farthest from their centres.
    pub farthest: Vec<Candidate>,
}

/// A partition's answer, one variant per [`Request`] variant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Reply {
    /// Per block: column sums.
    ColumnSums(Vec<Vec<f64>>),
    /// Per block: spread around the mean.
    Spread(Vec<f64>),
    /// `(draw position, global index, row)` of the draws this partition holds.
    Located(Vec<(usize, usize, Vec<f64>)>),
    /// Per block: one potential per candidate.
    Potentials(Vec<Vec<f64>>),
    /// Per-block partials of a Lloyd step.
    Assigned(StepPartials),
}

/// What a partition keeps between requests: its labels, each point's `D²` during
/// seeding, and the last candidates' capped distances (`n × t`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PartitionState {
    labels: Vec<usize>,
    closest: Vec<f64>,
    capped: Vec<f64>,
    trials: usize,
}

impl PartitionState {
    /// The labels of the partition's rows after the last [`Request::Assign`].
    pub fn labels(&self) -> &[usize] {
        &self.labels
    }

    /// The state as one array (`[#labels, #closest, #capped, t, labels…, closest…,
    /// capped…]`), for an object store; labels are exact in f64 (< 2⁵³).
    pub fn to_array(&self) -> Vec<f64> {
        let header = [
            self.labels.len(),
            self.closest.len(),
            self.capped.len(),
            self.trials,
        ];
        let mut out: Vec<f64> = header.iter().map(|&v| v as f64).collect();
        out.extend(self.labels.iter().map(|&l| l as f64));
        out.extend_from_slice(&self.closest);
        out.extend_from_slice(&self.capped);
        out
    }

    /// Reads [`PartitionState::to_array`] back; an empty array is the empty state.
    pub fn from_array(a: &[f64]) -> Result<Self> {
        if a.is_empty() {
            return Ok(Self::default());
        }
        let bad = || Error::data("k-means partition state: malformed array");
        let count = |v: f64| -> Result<usize> {
            (v >= 0.0 && v.fract() == 0.0 && v < 9.0e15)
                .then_some(v as usize)
                .ok_or_else(bad)
        };
        let header = a.get(..4).ok_or_else(bad)?;
        let (nl, nc, ncap, trials) = (
            count(header[0])?,
            count(header[1])?,
            count(header[2])?,
            count(header[3])?,
        );
        if a.len() != 4 + nl + nc + ncap {
            return Err(bad());
        }
        let labels = a[4..4 + nl]
            .iter()
            .map(|&v| count(v))
            .collect::<Result<_>>()?;
        Ok(Self {
            labels,
            closest: a[4 + nl..4 + nl + nc].to_vec(),
            capped: a[4 + nl + nc..].to_vec(),
            trials,
        })
    }
}

/// Answers `request` for the partition `x` whose first row is global row `offset` (a
/// multiple of [`BLOCK_ROWS`]), updating its `state`. Rows, state and request fully
/// determine the answer.
pub fn answer(
    x: &Features,
    offset: usize,
    state: &mut PartitionState,
    request: &Request,
) -> Result<Reply> {
    if !offset.is_multiple_of(BLOCK_ROWS) {
        return Err(Error::param(
            "offset",
            format!("a partition must start at a multiple of {BLOCK_ROWS} rows, got {offset}"),
        ));
    }
    Ok(match request {
        Request::ColumnSums => {
            if let Some((i, j)) = x.find_non_finite() {
                return Err(Error::data(format!(
                    "feature {} of training row {} is not finite",
                    j + 1,
                    offset + i + 1
                )));
            }
            Reply::ColumnSums(blocks(x).map(|b| column_sums(b, x.n_cols())).collect())
        }
        Request::Spread { mean } => Reply::Spread(
            blocks(x)
                .map(|b| b.chunks_exact(x.n_cols()).map(|r| sq_dist(r, mean)).sum())
                .collect(),
        ),
        Request::Locate { commit, draws } => {
            if let Some(c) = *commit {
                state.commit(c)?;
            }
            Reply::Located(locate(x, offset, state, draws))
        }
        Request::Capped { candidates, first } => {
            let cand = rows_of(candidates, x.n_cols(), "candidate")?;
            let cap = (!first).then_some(state.closest.as_slice());
            if cap.is_some_and(|c| c.len() != x.n_rows()) {
                return Err(Error::data("k-means partition state has no D² to cap by"));
            }
            let (capped, potentials) = capped_distances(x, &cand, cap);
            state.capped = capped;
            state.trials = cand.n_rows();
            Reply::Potentials(potentials)
        }
        Request::Assign {
            centres,
            moves,
            fresh,
        } => Reply::Assigned(assign_step(x, offset, state, centres, moves, *fresh)?),
    })
}

impl PartitionState {
    /// `D²` ← the capped distances of candidate `c`.
    fn commit(&mut self, c: usize) -> Result<()> {
        if c >= self.trials {
            return Err(Error::data(format!(
                "k-means partition state has {} candidates, asked to keep candidate {c}",
                self.trials
            )));
        }
        self.closest = self
            .capped
            .chunks_exact(self.trials)
            .map(|w| w[c])
            .collect();
        Ok(())
    }
}

/// The partition's rows in blocks of [`BLOCK_ROWS`].
fn blocks(x: &Features) -> std::slice::Chunks<'_, f64> {
    x.as_slice().chunks(BLOCK_ROWS * x.n_cols().max(1))
}

/// Column sums of a block of `d`-feature rows, row after row.
fn column_sums(block: &[f64], d: usize) -> Vec<f64> {
    block.chunks_exact(d).fold(vec![0.0; d], |mut acc, row| {
        acc.iter_mut().zip(row).for_each(|(a, v)| *a += v);
        acc
    })
}

/// `rows` as a matrix of `d` columns (an error names `what` otherwise).
fn rows_of(rows: &[Vec<f64>], d: usize, what: &str) -> Result<Features> {
    if rows.is_empty() || rows.iter().any(|r| r.len() != d) {
        return Err(Error::data(format!(
            "k-means request: every {what} row must have the partition's {d} features"
        )));
    }
    Features::from_rows(rows)
}

/// Answers the draws whose points lie in this partition.
fn locate(
    x: &Features,
    offset: usize,
    state: &PartitionState,
    draws: &[Draw],
) -> Vec<(usize, usize, Vec<f64>)> {
    let (n, first_block) = (x.n_rows(), offset / BLOCK_ROWS);
    let mut found = Vec::new();
    for (pos, draw) in draws.iter().enumerate() {
        let local = match *draw {
            Draw::Index(i) => (offset..offset + n).contains(&i).then(|| i - offset),
            Draw::Weighted { block, r } => block
                .checked_sub(first_block)
                .filter(|b| b * BLOCK_ROWS < n)
                .and_then(|b| {
                    let end = ((b + 1) * BLOCK_ROWS).min(n);
                    pick_in_block(state.closest.get(b * BLOCK_ROWS..end)?, r)
                        .map(|i| b * BLOCK_ROWS + i)
                }),
        };
        if let Some(i) = local {
            found.push((pos, offset + i, x.row(i).to_vec()));
        }
    }
    found
}

/// The first point whose running `D²` sum exceeds `r`; when rounding leaves none, the
/// last point of positive weight.
fn pick_in_block(weights: &[f64], r: f64) -> Option<usize> {
    let mut running = 0.0;
    for (i, w) in weights.iter().enumerate() {
        running += w;
        if running > r {
            return Some(i);
        }
    }
    weights.iter().rposition(|&w| w > 0.0)
}

/// Squared distances of every point to each candidate row, capped by `closest`:
/// `out[i·t + c] = min(closest_i, ‖x_i − cand_c‖²)` from block products (clamped at 0),
/// and per block each candidate's potential `Σ_i out[i·t + c]`.
pub(super) fn capped_distances(
    x: &Features,
    cand: &Features,
    closest: Option<&[f64]>,
) -> (Vec<f64>, Vec<Vec<f64>>) {
    let (d, t) = (x.n_cols(), cand.n_rows());
    let cm = MatRef::from_row_major_slice(cand.as_slice(), t, d);
    let cand_norms: Vec<f64> = cand.rows().map(|c| dot(c, c)).collect();
    let mut out = vec![0.0; x.n_rows() * t];
    let potentials = out
        .par_chunks_mut(BLOCK_ROWS * t)
        .enumerate()
        .map(|(b, block_out)| {
            let start = b * BLOCK_ROWS;
            let rows = block_out.len() / t;
            let block = &x.as_slice()[start * d..(start + rows) * d];
            let xb = MatRef::from_row_major_slice(block, rows, d);
            let mut products = Mat::<f64>::zeros(t, rows);
            matmul(
                products.as_mut(),
                Accum::Replace,
                cm,
                xb.transpose(),
                1.0,
                Par::Seq,
            );
            let mut sums = vec![0.0; t];
            for (r, row_out) in block_out.chunks_exact_mut(t).enumerate() {
                let xi = &block[r * d..(r + 1) * d];
                let norm = dot(xi, xi);
                let cap = closest.map_or(f64::INFINITY, |c| c[start + r]);
                for c in 0..t {
                    let dist = (norm + cand_norms[c] - 2.0 * products[(c, r)]).max(0.0);
                    row_out[c] = dist.min(cap);
                    sums[c] += row_out[c];
                }
            }
            sums
        })
        .collect();
    (out, potentials)
}

/// One Lloyd step of a partition: moves applied, rows assigned, per-block partials.
fn assign_step(
    x: &Features,
    offset: usize,
    state: &mut PartitionState,
    centres: &[Vec<f64>],
    moves: &[(usize, usize)],
    fresh: bool,
) -> Result<StepPartials> {
    let centres = rows_of(centres, x.n_cols(), "centre")?;
    let k = centres.n_rows();
    if fresh {
        state.labels.clear();
    } else if state.labels.len() != x.n_rows() {
        return Err(Error::data(
            "k-means partition state has no labels to update",
        ));
    }
    for &(i, target) in moves {
        if let Some(label) = i.checked_sub(offset).and_then(|l| state.labels.get_mut(l)) {
            *label = target;
        }
    }
    let (labels, dists) = assign_all(x, &centres);
    let (sums, counts) = block_cluster_sums(x, &labels, k);
    let partials = StepPartials {
        changed: labels != state.labels,
        sums,
        counts,
        inertia: dists.chunks(BLOCK_ROWS).map(|b| b.iter().sum()).collect(),
        farthest: farthest(x, offset, &labels, &dists, 2 * k),
    };
    state.labels = labels;
    state.capped = Vec::new();
    state.closest = Vec::new();
    state.trials = 0;
    Ok(partials)
}

/// Per-block cluster coordinate sums (`k × d`, row-major) and sizes.
pub(super) fn block_cluster_sums(
    x: &Features,
    labels: &[usize],
    k: usize,
) -> (Vec<Vec<f64>>, Vec<Vec<usize>>) {
    let d = x.n_cols();
    x.as_slice()
        .par_chunks(BLOCK_ROWS * d)
        .zip(labels.par_chunks(BLOCK_ROWS))
        .map(|(rows, labs)| {
            let mut sums = vec![0.0; k * d];
            let mut counts = vec![0usize; k];
            for (row, &c) in rows.chunks_exact(d).zip(labs) {
                counts[c] += 1;
                sums[c * d..(c + 1) * d]
                    .iter_mut()
                    .zip(row)
                    .for_each(|(s, v)| *s += v);
            }
            (sums, counts)
        })
        .unzip()
}

/// The `m` points farthest from their centres, in relocation order (distance
/// descending, then index ascending).
pub(super) fn farthest(
    x: &Features,
    offset: usize,
    labels: &[usize],
    dists: &[f64],
    m: usize,
) -> Vec<Candidate> {
    let order = |a: &usize, b: &usize| dists[*b].total_cmp(&dists[*a]).then(a.cmp(b));
    let mut idx: Vec<usize> = (0..labels.len()).collect();
    if m < idx.len() {
        idx.select_nth_unstable_by(m, order);
        idx.truncate(m);
    }
    idx.sort_by(order);
    idx.into_iter()
        .map(|i| Candidate {
            index: offset + i,
            dist: dists[i],
            label: labels[i],
            row: x.row(i).to_vec(),
        })
        .collect()
}

/// What the driver of a partitioned fit knows at the end: everything of
/// [`super::KMeansFit`] but the per-point assignments, which stay in the partitions'
/// states ([`PartitionState::labels`]).
#[derive(Clone, Debug, PartialEq)]
pub struct PartitionedFit {
    /// The `k` centres.
    pub centres: Centres,
    /// Points per cluster.
    pub cluster_sizes: Vec<usize>,
    /// `Σ_i ‖x_i − c_{a(i)}‖²` (summed per block, blocks in order).
    pub inertia: f64,
    /// Lloyd iterations of the best initialisation.
    pub iterations: usize,
    /// Whether the best initialisation stopped by `tol` or stable assignments.
    pub converged: bool,
    /// Inertia after seeding and after each iteration of the best initialisation.
    pub inertia_history: Vec<f64>,
}

/// Sends one request to every partition; the replies in partition order.
pub type Ask<'a> = dyn FnMut(&Request) -> Result<Vec<Reply>> + 'a;

impl KMeans {
    /// [`KMeans::fit`] on `n_rows × n_cols` data held in partitions that `ask` reaches
    /// (see the module docs): the same centres, sizes, inertia and history as
    /// `fit` on the concatenated rows, and each partition's state ends with its rows'
    /// assignments. `ask` sends a request to every partition (all of them, in order,
    /// each a run of whole [`BLOCK_ROWS`]-row blocks, the last one possibly shorter) and
    /// returns their replies.
    pub fn fit_partitioned(
        &self,
        n_rows: usize,
        n_cols: usize,
        ask: &mut Ask<'_>,
    ) -> Result<PartitionedFit> {
        self.check_shape(n_rows, n_cols)?;
        let abs_tol = self.tol * mean_variance(ask, n_rows, n_cols)?;
        let mut best: Option<PartitionedFit> = None;
        for run in 0..self.n_init {
            let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
            rng.set_stream(run as u64);
            let seeds = self.seed_centres(n_rows, ask, &mut rng)?;
            let fit = self.lloyd(ask, seeds, abs_tol)?;
            if best.as_ref().is_none_or(|b| fit.inertia < b.inertia) {
                best = Some(fit);
            }
        }
        let best = best.expect("n_init ≥ 1");
        if self.n_init > 1 {
            // The partitions hold the last run's labels: the best run's are those of
            // its final centres.
            ask(&Request::Assign {
                centres: rows_vec(best.centres.as_features()),
                moves: Vec::new(),
                fresh: true,
            })?;
        }
        Ok(best)
    }

    /// k-means++ seeding: the first centre uniformly at random, each next one drawn with
    /// probability proportional to `D(x)²` (greedy over `local_trials` candidates).
    pub(super) fn seed_centres(
        &self,
        n: usize,
        ask: &mut Ask<'_>,
        rng: &mut ChaCha8Rng,
    ) -> Result<Features> {
        let trials = self
            .local_trials
            .unwrap_or(2 + (self.k as f64).ln().floor() as usize);
        let first = located(ask, None, vec![Draw::Index(rng.random_range(0..n))])?;
        let per_block = potentials(ask(&Request::Capped {
            candidates: first.clone(),
            first: true,
        })?)?;
        let mut block_totals: Vec<f64> = per_block.iter().map(|p| p[0]).collect();
        let (mut chosen, mut commit) = (first, 0);
        while chosen.len() < self.k {
            let total: f64 = block_totals.iter().sum();
            let draws = (0..trials)
                .map(|_| {
                    if total > 0.0 {
                        weighted_draw(&block_totals, rng.random::<f64>() * total)
                    } else {
                        // Every point sits on a chosen centre: any point will do.
                        Draw::Index(rng.random_range(0..n))
                    }
                })
                .collect();
            let candidates = located(ask, Some(commit), draws)?;
            let per_block = potentials(ask(&Request::Capped {
                candidates: candidates.clone(),
                first: false,
            })?)?;
            let sums = per_block.iter().fold(vec![0.0; trials], |mut acc, p| {
                acc.iter_mut().zip(p).for_each(|(a, b)| *a += b);
                acc
            });
            let best = (1..trials).fold(0, |b, t| if sums[t] < sums[b] { t } else { b });
            chosen.push(candidates[best].clone());
            block_totals = per_block.iter().map(|p| p[best]).collect();
            commit = best;
        }
        Features::from_rows(&chosen)
    }

    /// Lloyd iterations from the seeded centres.
    fn lloyd(
        &self,
        ask: &mut Ask<'_>,
        mut centres: Features,
        abs_tol: f64,
    ) -> Result<PartitionedFit> {
        let mut step = assigned(ask(&Request::Assign {
            centres: rows_vec(&centres),
            moves: Vec::new(),
            fresh: true,
        })?)?;
        let mut history = vec![step.inertia.iter().sum::<f64>()];
        let (mut iterations, mut converged) = (0, false);
        while iterations < self.max_iter {
            let (updated, moves) = update_centres(&step, &centres);
            let shift: f64 = (0..centres.n_rows())
                .map(|c| sq_dist(updated.row(c), centres.row(c)))
                .sum();
            centres = updated;
            iterations += 1;
            step = assigned(ask(&Request::Assign {
                centres: rows_vec(&centres),
                moves,
                fresh: false,
            })?)?;
            history.push(step.inertia.iter().sum());
            if !step.changed || shift <= abs_tol {
                converged = true;
                break;
            }
        }
        Ok(PartitionedFit {
            cluster_sizes: add_blocks(&step.counts, centres.n_rows()),
            centres: Centres { centres },
            inertia: *history.last().expect("seeding inertia"),
            iterations,
            converged,
            inertia_history: history,
        })
    }
}

/// The draw of mass `r`: the first block whose running total exceeds `r`, and the mass
/// left inside it; when rounding leaves none, the last block of positive total.
fn weighted_draw(block_totals: &[f64], r: f64) -> Draw {
    let mut before = 0.0;
    for (block, &t) in block_totals.iter().enumerate() {
        if before + t > r {
            return Draw::Weighted {
                block,
                r: r - before,
            };
        }
        before += t;
    }
    let block = block_totals.iter().rposition(|&t| t > 0.0).unwrap_or(0);
    Draw::Weighted { block, r: f64::MAX }
}

/// Mean over features of the population variance (the scale of `tol`), from per-block
/// column sums and spreads.
fn mean_variance(ask: &mut Ask<'_>, n: usize, d: usize) -> Result<f64> {
    let mut mean = vec![0.0; d];
    for reply in ask(&Request::ColumnSums)? {
        let Reply::ColumnSums(blocks) = reply else {
            return Err(unexpected("column sums"));
        };
        for b in blocks {
            mean.iter_mut().zip(&b).for_each(|(m, v)| *m += v);
        }
    }
    mean.iter_mut().for_each(|m| *m /= n as f64);
    let mut total = 0.0;
    for reply in ask(&Request::Spread { mean })? {
        let Reply::Spread(blocks) = reply else {
            return Err(unexpected("spreads"));
        };
        total += blocks.iter().sum::<f64>();
    }
    Ok(total / (n * d) as f64)
}

/// The rows of the draws, in draw order, each from the one partition that holds it.
fn located(ask: &mut Ask<'_>, commit: Option<usize>, draws: Vec<Draw>) -> Result<Vec<Vec<f64>>> {
    let count = draws.len();
    let mut rows: Vec<Option<Vec<f64>>> = vec![None; count];
    for reply in ask(&Request::Locate { commit, draws })? {
        let Reply::Located(found) = reply else {
            return Err(unexpected("located rows"));
        };
        for (pos, _, row) in found {
            match rows.get_mut(pos) {
                Some(slot @ None) => *slot = Some(row),
                _ => return Err(unexpected("one row per draw")),
            }
        }
    }
    rows.into_iter()
        .map(|r| r.ok_or_else(|| unexpected("a row for every draw")))
        .collect()
}

/// Concatenated per-block potentials of every partition.
fn potentials(replies: Vec<Reply>) -> Result<Vec<Vec<f64>>> {
    let mut out = Vec::new();
    for reply in replies {
        let Reply::Potentials(p) = reply else {
            return Err(unexpected("potentials"));
        };
        out.extend(p);
    }
    Ok(out)
}

/// The partitions' step partials joined: blocks concatenated in order, candidates merged
/// into the global relocation order.
fn assigned(replies: Vec<Reply>) -> Result<StepPartials> {
    let mut all = StepPartials {
        changed: false,
        sums: Vec::new(),
        counts: Vec::new(),
        inertia: Vec::new(),
        farthest: Vec::new(),
    };
    for reply in replies {
        let Reply::Assigned(p) = reply else {
            return Err(unexpected("step partials"));
        };
        all.changed |= p.changed;
        all.sums.extend(p.sums);
        all.counts.extend(p.counts);
        all.inertia.extend(p.inertia);
        all.farthest.extend(p.farthest);
    }
    all.farthest
        .sort_by(|a, b| b.dist.total_cmp(&a.dist).then(a.index.cmp(&b.index)));
    Ok(all)
}

fn unexpected(what: &str) -> Error {
    Error::data(format!("k-means partitions did not answer with {what}"))
}

fn add_blocks(counts: &[Vec<usize>], k: usize) -> Vec<usize> {
    counts.iter().fold(vec![0; k], |mut acc, c| {
        acc.iter_mut().zip(c).for_each(|(a, b)| *a += b);
        acc
    })
}

fn rows_vec(x: &Features) -> Vec<Vec<f64>> {
    x.rows().map(<[f64]>::to_vec).collect()
}

/// New centres = means of the assigned points, after giving every empty cluster the
/// point farthest from its centre (among clusters of more than one point); also the
/// moves `(global index, cluster)` the partitions apply to their labels.
pub(super) fn update_centres(
    step: &StepPartials,
    old: &Features,
) -> (Features, Vec<(usize, usize)>) {
    let (k, d) = (old.n_rows(), old.n_cols());
    let mut sums = step.sums.iter().fold(vec![0.0; k * d], |mut acc, s| {
        acc.iter_mut().zip(s).for_each(|(a, b)| *a += b);
        acc
    });
    let mut counts = add_blocks(&step.counts, k);
    let mut moves = Vec::new();
    let empty: Vec<usize> = (0..k).filter(|&c| counts[c] == 0).collect();
    let mut candidates = step.farthest.iter();
    for target in empty {
        let Some(p) = candidates.by_ref().find(|p| counts[p.label] > 1) else {
            break;
        };
        counts[p.label] -= 1;
        sums[p.label * d..(p.label + 1) * d]
            .iter_mut()
            .zip(&p.row)
            .for_each(|(s, v)| *s -= v);
        counts[target] = 1;
        sums[target * d..(target + 1) * d].copy_from_slice(&p.row);
        moves.push((p.index, target));
    }
    for c in 0..k {
        let row = &mut sums[c * d..(c + 1) * d];
        if counts[c] == 0 {
            // Fewer distinct movable points than clusters: keep the old centre.
            row.copy_from_slice(old.row(c));
        } else {
            let inv = 1.0 / counts[c] as f64;
            row.iter_mut().for_each(|v| *v *= inv);
        }
    }
    (Features::new(k, d, sums).expect("k × d centres"), moves)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn uniform(n: usize, d: usize, seed: u64) -> Features {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        Features::new(n, d, (0..n * d).map(|_| rng.random::<f64>()).collect()).unwrap()
    }

    /// `fit_partitioned` with the rows cut after the given numbers of blocks (the rest
    /// in a last partition), each partition answering from its own copy of its rows and
    /// its own state: the fit and the concatenated labels.
    fn fit_in_partitions(
        km: &KMeans,
        x: &Features,
        blocks: &[usize],
    ) -> (PartitionedFit, Vec<usize>) {
        let mut cuts = vec![0];
        for b in blocks {
            cuts.push(cuts.last().unwrap() + b * BLOCK_ROWS);
        }
        cuts.push(x.n_rows());
        let parts: Vec<(usize, Features)> = cuts
            .windows(2)
            .map(|w| (w[0], x.select_rows(&(w[0]..w[1]).collect::<Vec<_>>())))
            .collect();
        let mut states = vec![PartitionState::default(); parts.len()];
        let fit = km
            .fit_partitioned(x.n_rows(), x.n_cols(), &mut |request| {
                // Through JSON and the state array, as between Ray tasks.
                let text = serde_json::to_string(request).unwrap();
                let request: Request = serde_json::from_str(&text).unwrap();
                parts
                    .iter()
                    .zip(states.iter_mut())
                    .map(|((offset, rows), state)| {
                        let mut s = PartitionState::from_array(&state.to_array())?;
                        let reply = answer(rows, *offset, &mut s, &request)?;
                        *state = s;
                        let text = serde_json::to_string(&reply).unwrap();
                        Ok(serde_json::from_str(&text).unwrap())
                    })
                    .collect()
            })
            .unwrap();
        let labels = states.iter().flat_map(|s| s.labels().to_vec()).collect();
        (fit, labels)
    }

    #[test]
    fn every_partitioning_gives_the_single_process_fit() {
        // 5 blocks and a short one; clusters that need relocation (duplicated points,
        // more clusters than distinct rows in places) are covered by the second case.
        let x = uniform(5 * BLOCK_ROWS + 37, 3, 7);
        let mut dup = vec![vec![0.5, 0.5]; 3 * BLOCK_ROWS];
        dup.extend((0..BLOCK_ROWS + 9).map(|i| vec![(i % 3) as f64, 1.0]));
        let dup = Features::from_rows(&dup).unwrap();
        for (x, km) in [
            (&x, KMeans::new(9).seed(3).n_init(2)),
            (&dup, KMeans::new(6).seed(1)),
        ] {
            let whole = km.fit(x).unwrap();
            let partitionings: &[&[usize]] =
                &[&[], &[1, 1, 1, 1, 1], &[1, 1, 1, 1], &[2, 1], &[1, 3]];
            for &blocks in partitionings {
                if blocks.iter().sum::<usize>() * BLOCK_ROWS >= x.n_rows() {
                    continue;
                }
                let (fit, labels) = fit_in_partitions(&km, x, blocks);
                assert_eq!(fit.centres, whole.centres, "{blocks:?}");
                assert_eq!(labels, whole.assignments, "{blocks:?}");
                assert_eq!(fit.cluster_sizes, whole.cluster_sizes());
                assert_eq!(fit.inertia_history, whole.inertia_history);
                assert_eq!(fit.inertia.to_bits(), whole.inertia.to_bits());
                assert_eq!(
                    (fit.iterations, fit.converged),
                    (whole.iterations, whole.converged)
                );
            }
        }
    }

    #[test]
    fn weighted_draws_land_where_the_running_sums_say() {
        let totals = [1.0, 0.0, 2.0];
        assert_eq!(
            weighted_draw(&totals, 0.5),
            Draw::Weighted { block: 0, r: 0.5 }
        );
        assert_eq!(
            weighted_draw(&totals, 1.5),
            Draw::Weighted { block: 2, r: 0.5 }
        );
        // Rounding past the total: the last block with weight.
        assert_eq!(
            weighted_draw(&totals, 3.0),
            Draw::Weighted {
                block: 2,
                r: f64::MAX
            }
        );
        assert_eq!(pick_in_block(&[0.0, 1.0, 0.0, 1.0], 0.0), Some(1));
        assert_eq!(pick_in_block(&[0.0, 1.0, 0.0, 1.0], 1.0), Some(3));
        assert_eq!(pick_in_block(&[0.0, 1.0, 0.0, 1.0], f64::MAX), Some(3));
    }

    #[test]
    fn malformed_requests_and_states_are_errors() {
        let x = uniform(10, 2, 1);
        let mut state = PartitionState::default();
        let err = answer(&x, 3, &mut state, &Request::ColumnSums).unwrap_err();
        assert!(err.to_string().contains("multiple of 512"), "{err}");
        let mut bad = x.clone();
        bad.row_mut(4)[1] = f64::NAN;
        let err = answer(&bad, 512, &mut state, &Request::ColumnSums).unwrap_err();
        assert!(
            err.to_string().contains("feature 2 of training row 517"),
            "{err}"
        );
        let assign = Request::Assign {
            centres: vec![vec![0.0, 0.0, 0.0]],
            moves: vec![],
            fresh: true,
        };
        assert!(answer(&x, 0, &mut state, &assign).is_err());
        let step = Request::Assign {
            centres: vec![vec![0.0, 0.0]],
            moves: vec![],
            fresh: false,
        };
        assert!(answer(&x, 0, &mut state, &step).is_err());
        assert!(PartitionState::from_array(&[1.0, 0.0, 0.0, 0.0]).is_err());
        assert!(PartitionState::from_array(&[1.0, 0.0, 0.0, 0.0, 0.5]).is_err());
    }
}
