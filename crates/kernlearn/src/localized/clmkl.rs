//! C-LMKL, convex localized MKL (Lei et al. 2016; Moeller 2017, section 4.3.2.2).
//!
//! 1. **Soft clustering.** Kernel k-means with the uniform kernel `K_u = (1/m) Σ_i K̄_i`
//!    and 3 clusters by default; on large data only a sample (1,000 points by default) is
//!    clustered and every point is then assigned by its kernel distance to the sample's
//!    cluster means (the streaming scheme of Chitta et al. the thesis used). The
//!    likelihood of cluster `r` is `c_r(x) = softmax_r(−d_r(x)²/τ)`, `d_r` the
//!    feature-space distance to the mean of cluster `r`, `τ` the mean squared distance of
//!    the clustered points to their own mean (the thesis does not give the soft
//!    assignment; this one sums to one and is scale-free).
//! 2. **Gated kernel.** `κ(x, x') = Σ_r c_r(x) c_r(x') Σ_i β_ir K̄_i(x, x')`: every kernel
//!    replicated once per cluster with separable gate `√β_ir c_r(x)`.
//! 3. **Alternation** (Lei et al.): the SVM for fixed `β`, then `β` for fixed `w` in
//!    closed form, the ℓp-MKL step per cluster under `‖β_·r‖_p ≤ 1`:
//!    `β_ir = ‖w_ir‖^{2/(p+1)} / (Σ_k ‖w_kr‖^{2p/(p+1)})^{1/p}`, with
//!    `‖w_ir‖² = β_ir² Σ_jk y_jα_j y_kα_k c_r(x_j) c_r(x_k) K̄_i(x_j, x_k)`;
//!    until `β` moves by less than `tol` or after `iterations` SVM solves.
//!
//! The thesis does not state `p`; the default is `p = 2` (non-sparse weights).

use super::gate::{products_on, softmax_rows, GateKind, GateMatrix, GatedKernel, GatedMachine};
use super::per_kernel::localized_bank;
use super::LocalizedParams;
use crate::bank::{KernelBank, KernelFamily};
use crate::check::non_negative_finite;
use crate::data::Features;
use crate::kernel::KernelSource;
use crate::svm::{DualSolution, SubsetSource};
use crate::{Error, Result};
use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Settings of C-LMKL.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClmklSettings {
    /// Number of clusters `ℓ` (the thesis, after Lei et al.: 3).
    pub clusters: usize,
    /// Norm `p ≥ 1` of the per-cluster kernel-weight constraint.
    pub p: f64,
    /// Largest number of SVM solves.
    pub iterations: usize,
    /// Largest change of a `β_ir` below which the alternation stops.
    pub tol: f64,
    /// At most this many points are clustered (the thesis: 1,000).
    pub sample: usize,
    /// Seed of the sample and of the k-means++ start.
    pub seed: u64,
}

impl Default for ClmklSettings {
    fn default() -> Self {
        Self {
            clusters: 3,
            p: 2.0,
            iterations: 20,
            tol: 1e-3,
            sample: 1000,
            seed: 0,
        }
    }
}

impl ClmklSettings {
    /// Checks `ℓ ≥ 1`, `p ≥ 1`, `iterations ≥ 1`, `tol ≥ 0`, `sample ≥ ℓ`.
    pub(crate) fn validate(&self) -> Result<()> {
        if self.clusters == 0 {
            return Err(Error::param("clusters", "must be >= 1"));
        }
        if !(self.p >= 1.0 && self.p.is_finite()) {
            return Err(Error::param("p", format!("must be >= 1, got {}", self.p)));
        }
        if self.iterations == 0 {
            return Err(Error::param(
                "iterations",
                "C-LMKL needs at least one SVM solve",
            ));
        }
        non_negative_finite("tol", self.tol)?;
        if self.sample < self.clusters {
            return Err(Error::param(
                "sample",
                format!(
                    "{} points cannot form {} clusters",
                    self.sample, self.clusters
                ),
            ));
        }
        Ok(())
    }
}

/// Kernel k-means clusters of a sample under the uniform kernel, and the soft
/// assignment `c_r(x)` of any point (see the module docs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SoftClusters {
    /// The base kernels.
    pub family: KernelFamily,
    /// Their trace factors on the training data.
    pub trace_factors: Vec<f64>,
    /// The clustered points.
    pub sample: Features,
    /// Cluster of each sample point.
    pub labels: Vec<usize>,
    /// `‖mean_r‖² = Σ_{t,t' ∈ r} K_u(t, t') / |r|²` per cluster.
    pub mean_norms: Vec<f64>,
    /// Temperature `τ` of the soft assignment.
    pub temperature: f64,
}

/// Dense uniform-kernel Gram matrix of `bank`'s points `rows` (row-major).
fn uniform_gram(bank: &KernelBank, rows: &[usize]) -> Result<Vec<f64>> {
    let m = bank.n_kernels();
    let uniform = bank.combined(&vec![1.0 / m as f64; m])?;
    let sub = SubsetSource::new(&uniform, rows.to_vec());
    let s = rows.len();
    let all: Vec<usize> = (0..s).collect();
    let mut out = vec![0f32; s];
    let mut g = vec![0.0; s * s];
    for a in 0..s {
        sub.fill_row(a, &all, &mut out);
        g[a * s..(a + 1) * s]
            .iter_mut()
            .zip(&out)
            .for_each(|(v, o)| *v = *o as f64);
    }
    Ok(g)
}

/// Kernel k-means on a Gram matrix: k-means++ start, then Lloyd steps until no point
/// moves (at most 100). Returns the labels.
fn kernel_kmeans(g: &[f64], s: usize, k: usize, seed: u64) -> Vec<usize> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let dist = |a: usize, b: usize| (g[a * s + a] + g[b * s + b] - 2.0 * g[a * s + b]).max(0.0);
    let mut seeds = vec![rng.random_range(0..s)];
    let mut nearest: Vec<f64> = (0..s).map(|t| dist(t, seeds[0])).collect();
    while seeds.len() < k {
        let total: f64 = nearest.iter().sum();
        let next = if total > 0.0 {
            let mut u = rng.random::<f64>() * total;
            (0..s)
                .find(|&t| {
                    u -= nearest[t];
                    u <= 0.0
                })
                .unwrap_or(s - 1)
        } else {
            seeds.len() // identical points: any distinct index
        };
        seeds.push(next);
        (0..s).for_each(|t| nearest[t] = nearest[t].min(dist(t, next)));
    }
    let mut labels: Vec<usize> = (0..s)
        .map(|t| {
            (0..k)
                .min_by(|&a, &b| dist(t, seeds[a]).total_cmp(&dist(t, seeds[b])))
                .unwrap()
        })
        .collect();
    for _ in 0..100 {
        let d = distances_to_means(g, s, k, &labels);
        let mut next: Vec<usize> = (0..s)
            .map(|t| {
                (0..k)
                    .min_by(|&a, &b| d[t * k + a].total_cmp(&d[t * k + b]))
                    .unwrap()
            })
            .collect();
        refill_empty(&mut next, &d, k);
        if next == labels {
            break;
        }
        labels = next;
    }
    labels
}

/// Gives every empty cluster the point farthest from its own mean.
fn refill_empty(labels: &mut [usize], d: &[f64], k: usize) {
    for r in 0..k {
        if !labels.contains(&r) {
            let far = (0..labels.len())
                .max_by(|&a, &b| d[a * k + labels[a]].total_cmp(&d[b * k + labels[b]]))
                .unwrap();
            labels[far] = r;
        }
    }
}

/// `d[t·k + r]` = squared feature-space distance of sample point `t` to mean `r`.
fn distances_to_means(g: &[f64], s: usize, k: usize, labels: &[usize]) -> Vec<f64> {
    let size: Vec<f64> = (0..k)
        .map(|r| labels.iter().filter(|&&l| l == r).count().max(1) as f64)
        .collect();
    let mut norm = vec![0.0; k];
    let mut cross = vec![0.0; s * k]; // Σ_{u ∈ r} K(t, u)
    for t in 0..s {
        for u in 0..s {
            cross[t * k + labels[u]] += g[t * s + u];
        }
    }
    for t in 0..s {
        norm[labels[t]] += cross[t * k + labels[t]];
    }
    (0..s * k)
        .map(|i| {
            let (t, r) = (i / k, i % k);
            g[t * s + t] - 2.0 * cross[i] / size[r] + norm[r] / (size[r] * size[r])
        })
        .collect()
}

impl SoftClusters {
    /// Clusters (a sample of) `bank`'s training points (see the module docs).
    pub(crate) fn fit(
        bank: &KernelBank,
        family: &KernelFamily,
        settings: &ClmklSettings,
    ) -> Result<Self> {
        let n = bank.n_points();
        let k = settings.clusters;
        if n < k {
            return Err(Error::data(format!(
                "{n} training points cannot form {k} clusters"
            )));
        }
        let mut rng = ChaCha8Rng::seed_from_u64(settings.seed);
        let mut rows: Vec<usize> = if n > settings.sample {
            sample(&mut rng, n, settings.sample).into_vec()
        } else {
            (0..n).collect()
        };
        rows.sort_unstable();
        let s = rows.len();
        let g = uniform_gram(bank, &rows)?;
        let labels = kernel_kmeans(&g, s, k, settings.seed);
        let d = distances_to_means(&g, s, k, &labels);
        let own: f64 = (0..s).map(|t| d[t * k + labels[t]]).sum::<f64>() / s as f64;
        let mut mean_norms = vec![0.0; k];
        for t in 0..s {
            for u in 0..s {
                if labels[t] == labels[u] {
                    mean_norms[labels[t]] += g[t * s + u];
                }
            }
        }
        for (r, v) in mean_norms.iter_mut().enumerate() {
            let size = labels.iter().filter(|&&l| l == r).count().max(1) as f64;
            *v /= size * size;
        }
        Ok(Self {
            family: family.clone(),
            trace_factors: bank.factors().to_vec(),
            sample: bank.points().select_rows(&rows),
            labels,
            mean_norms,
            temperature: if own > 0.0 { own } else { 1.0 },
        })
    }

    /// Number of clusters.
    pub(crate) fn n_clusters(&self) -> usize {
        self.mean_norms.len()
    }

    /// Checks clusters read back for `n_features` features: a sample with
    /// `n_features` columns, a valid family ([`KernelFamily::validate`]) with one finite
    /// trace factor per base kernel, at least one cluster with a finite mean norm, one
    /// cluster label (below the number of clusters) per sample point, a finite positive
    /// temperature.
    pub(crate) fn validate(&self, n_features: usize) -> Result<()> {
        use crate::validate::{ensure, finite, indices_below};
        crate::bank::family_machine(
            "sample",
            &self.sample,
            &self.family,
            &self.trace_factors,
            n_features,
        )?;
        let k = self.n_clusters();
        ensure(k >= 1, || {
            "mean_norms is empty: there must be at least one cluster".to_string()
        })?;
        finite("mean_norms", &self.mean_norms)?;
        ensure(self.labels.len() == self.sample.n_rows(), || {
            format!(
                "labels has {} entries, sample has {} rows",
                self.labels.len(),
                self.sample.n_rows()
            )
        })?;
        indices_below(
            "labels",
            &self.labels,
            k,
            format_args!("there are {k} clusters (mean_norms)"),
        )?;
        ensure(
            self.temperature.is_finite() && self.temperature > 0.0,
            || {
                format!(
                    "temperature is {}, it must be finite and > 0",
                    self.temperature
                )
            },
        )
    }

    /// `c_r(x)` for every row of `x`, row-major `n × ℓ` (rows sum to one).
    pub(crate) fn memberships(&self, x: &Features) -> Result<Vec<f64>> {
        x.check_input(self.sample.n_cols())?;
        let bank =
            KernelBank::with_factors(&self.family, &self.sample, self.trace_factors.clone())?;
        let (m, k, s) = (bank.n_kernels(), self.n_clusters(), self.sample.n_rows());
        let size: Vec<f64> = (0..k)
            .map(|r| self.labels.iter().filter(|&&l| l == r).count().max(1) as f64)
            .collect();
        let mut out = vec![0.0; x.n_rows() * k];
        let mut col = vec![0.0; s];
        for (t, row) in x.rows().enumerate() {
            let mut cross = vec![0.0; k];
            let mut self_value = 0.0;
            for i in 0..m {
                bank.column(i, row, &mut col);
                for u in 0..s {
                    cross[self.labels[u]] += col[u] / m as f64;
                }
                self_value += self.trace_factors[i] * bank.base().self_value(i, row) / m as f64;
            }
            for r in 0..k {
                let d2 = self_value - 2.0 * cross[r] / size[r] + self.mean_norms[r];
                out[t * k + r] = -d2 / self.temperature;
            }
        }
        softmax_rows(&mut out, k)?;
        Ok(out)
    }
}

/// The closed-form `β` step (see the module docs) from `‖w_ir‖²` (index `i·ℓ + r`).
pub(super) fn beta_step(norm_sq: &[f64], m: usize, clusters: usize, p: f64) -> Vec<f64> {
    let mut beta = vec![0.0; m * clusters];
    for r in 0..clusters {
        let a: Vec<f64> = (0..m)
            .map(|i| norm_sq[i * clusters + r].max(0.0).sqrt())
            .collect();
        let denom = a
            .iter()
            .map(|v| v.powf(2.0 * p / (p + 1.0)))
            .sum::<f64>()
            .powf(1.0 / p);
        for i in 0..m {
            beta[i * clusters + r] = if denom > 0.0 {
                a[i].powf(2.0 / (p + 1.0)) / denom
            } else {
                (m as f64).powf(-1.0 / p) // no support vector in this cluster: stay uniform
            };
        }
    }
    beta
}

/// Gates `√β_ir c_r(x)` of the replicated kernels (gate `i·ℓ + r` on kernel `i`).
fn replicated_gates(c: &[f64], beta: &[f64], m: usize, clusters: usize) -> Result<GateMatrix> {
    let n = c.len() / clusters;
    let kernel_of = (0..m * clusters).map(|j| j / clusters).collect();
    let values = (0..n)
        .flat_map(|t| {
            (0..m * clusters).map(move |j| beta[j].sqrt() * c[t * clusters + j % clusters])
        })
        .collect();
    GateMatrix::new(kernel_of, values)
}

/// `‖w_ir‖²` at the SVM solution `coef` (index `i·ℓ + r`).
fn weight_norms(
    bank: &KernelBank,
    c: &[f64],
    beta: &[f64],
    coef: &[f64],
    clusters: usize,
) -> Vec<f64> {
    let m = bank.n_kernels();
    let sv: Vec<usize> = (0..coef.len()).filter(|&t| coef[t] != 0.0).collect();
    let weighted = |t: usize, j: usize| coef[t] * c[t * clusters + j % clusters];
    let w = GateMatrix {
        kernel_of: (0..m * clusters).map(|j| j / clusters).collect(),
        values: sv
            .iter()
            .flat_map(|&t| (0..m * clusters).map(move |j| weighted(t, j)))
            .collect(),
    };
    let v = products_on(bank, &sv, &w);
    (0..m * clusters)
        .map(|j| {
            let q: f64 = sv
                .iter()
                .enumerate()
                .map(|(s, &t)| weighted(t, j) * v[s * m * clusters + j])
                .sum();
            beta[j] * beta[j] * q
        })
        .collect()
}

/// A fitted binary C-LMKL machine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClmklMachine {
    /// The soft clustering.
    pub clusters: SoftClusters,
    /// `β_ir` (index `i·ℓ + r`).
    pub beta: Vec<f64>,
    /// The SVM on the gated kernel.
    pub machine: GatedMachine,
    /// SVM solves made.
    pub solves: usize,
    /// SVM solver iterations summed over all solves.
    pub iterations: usize,
}

impl ClmklMachine {
    /// C-LMKL on training points `x` with labels `y ∈ {±1}`.
    pub(crate) fn fit(
        params: &LocalizedParams,
        settings: &ClmklSettings,
        x: &Features,
        y: &[f64],
    ) -> Result<Self> {
        let bank = localized_bank(params, x, "C-LMKL")?.with_own_table(&params.family)?;
        let (m, l) = (bank.n_kernels(), settings.clusters);
        let clusters = SoftClusters::fit(&bank, &params.family, settings)?;
        let c = clusters.memberships(x)?;
        let mut beta = vec![(m as f64).powf(-1.0 / settings.p); m * l];
        let solve = |beta: &[f64], warm: Option<&[f64]>| -> Result<(DualSolution, GateMatrix)> {
            let gates = replicated_gates(&c, beta, m, l)?;
            let source = GatedKernel::new(&bank, &gates, GateKind::Separable)?;
            Ok((
                params
                    .solver
                    .solve(&source, y, params.c, &params.smo, warm)?,
                gates,
            ))
        };
        let (mut sol, mut gates) = solve(&beta, None)?;
        let (mut solves, mut iterations) = (1, sol.iterations);
        while solves < settings.iterations {
            let next = beta_step(
                &weight_norms(&bank, &c, &beta, &sol.coef, l),
                m,
                l,
                settings.p,
            );
            let change = next
                .iter()
                .zip(&beta)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            beta = next;
            (sol, gates) = solve(&beta, Some(&sol.coef))?;
            solves += 1;
            iterations += sol.iterations;
            if change < settings.tol {
                break;
            }
        }
        let machine = GatedMachine::new(
            &params.family,
            &bank,
            &gates,
            GateKind::Separable,
            &sol.coef,
            sol.rho,
        );
        Ok(Self {
            clusters,
            beta,
            machine,
            solves,
            iterations,
        })
    }

    /// Checks a machine read back for `n_features` features, `n_train` training points
    /// and `m` base kernels: valid clusters ([`SoftClusters::validate`]), one finite,
    /// non-negative `β` per base kernel and cluster, and an SVM on separable gates, one
    /// per base kernel and cluster ([`GatedMachine::validate`]).
    pub(crate) fn validate(&self, n_features: usize, n_train: usize, m: usize) -> Result<()> {
        use crate::validate::{ensure, finite, within};
        within("clusters", self.clusters.validate(n_features))?;
        let l = self.clusters.n_clusters();
        let want = m.checked_mul(l);
        ensure(want == Some(self.beta.len()), || {
            format!(
                "beta has {} weights, {m} base kernels × {l} clusters need {}",
                self.beta.len(),
                want.map_or("more".to_string(), |w| w.to_string())
            )
        })?;
        finite("beta", &self.beta)?;
        if let Some(j) = self.beta.iter().position(|&b| b < 0.0) {
            return Err(Error::data(format!(
                "beta[{j}] is negative ({})",
                self.beta[j]
            )));
        }
        let kernel_of: Vec<usize> = (0..m * l).map(|j| j / l).collect();
        within(
            "machine",
            self.machine
                .validate(n_features, n_train, GateKind::Separable, &kernel_of),
        )
    }

    /// Support vectors of the final SVM.
    pub(crate) fn n_support(&self) -> usize {
        self.machine.n_support()
    }

    /// Decision values for every row of `x`.
    pub(crate) fn decision(&self, x: &Features) -> Result<Vec<f64>> {
        let c = self.clusters.memberships(x)?;
        let l = self.clusters.n_clusters();
        let gates = replicated_gates(&c, &self.beta, self.beta.len() / l, l)?;
        self.machine.decision(x, &gates)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::localized::ldmkl::tests::{fit_two_regions, two_regions, TWO_KERNELS};
    use crate::localized::{LocalizedMachine, LocalizedMethod, LocalizedModel};

    /// The closed form minimises `Σ_i ‖w_i‖²/β_i` over `‖β‖_p ≤ 1`: compare with a fine
    /// grid over the boundary `β = (t, (1 − t^p)^{1/p})` (two kernels, one cluster).
    #[test]
    fn beta_step_is_the_constrained_minimiser() {
        for p in [1.0, 1.5, 2.0, 3.0] {
            for norms in [[1.0, 4.0], [0.3, 0.2], [2.0, 2.0]] {
                let beta = beta_step(&norms, 2, 1, p);
                let obj = |b: &[f64]| norms[0] / b[0] + norms[1] / b[1];
                assert!((beta[0].powf(p) + beta[1].powf(p) - 1.0).abs() < 1e-12);
                let best = (1..100_000)
                    .map(|k| k as f64 / 100_000.0)
                    .map(|t| obj(&[t, (1.0 - t.powf(p)).powf(1.0 / p)]))
                    .fold(f64::INFINITY, f64::min);
                assert!(
                    obj(&beta) <= best + 1e-9 * best,
                    "p = {p}: {} vs {best}",
                    obj(&beta)
                );
                assert!(obj(&beta) >= best - 1e-6 * best);
            }
        }
        // A cluster without support vectors keeps uniform weights.
        assert_eq!(beta_step(&[0.0, 0.0], 2, 1, 2.0), vec![0.5f64.sqrt(); 2]);
    }

    /// Three far-apart blobs are the three clusters, whether all points or a sample are
    /// clustered, and memberships are probabilities.
    #[test]
    fn kernel_kmeans_finds_blobs() {
        let centres = [[0.1, 0.1], [0.9, 0.1], [0.5, 0.9]];
        let mut v = Vec::new();
        for t in 0..300 {
            let c = centres[t % 3];
            v.extend([
                c[0] + 0.02 * ((t as f64) * 0.7).sin(),
                c[1] + 0.02 * ((t as f64) * 1.3).cos(),
            ]);
        }
        let x = Features::new(300, 2, v).unwrap();
        let family: KernelFamily = "rbf(sigma=0.3)@all;linear@all".parse().unwrap();
        let bank = KernelBank::new(&family, &x).unwrap();
        for sample in [1000, 60] {
            let settings = ClmklSettings {
                sample,
                ..ClmklSettings::default()
            };
            let sc = SoftClusters::fit(&bank, &family, &settings).unwrap();
            let c = sc.memberships(&x).unwrap();
            let arg = |t: usize| {
                (0..3)
                    .max_by(|&a, &b| c[t * 3 + a].total_cmp(&c[t * 3 + b]))
                    .unwrap()
            };
            for t in 0..300 {
                assert!((c[t * 3..t * 3 + 3].iter().sum::<f64>() - 1.0).abs() < 1e-12);
                assert_eq!(arg(t), arg(t % 3), "point {t}, sample {sample}");
            }
            assert!(arg(0) != arg(1) && arg(1) != arg(2) && arg(0) != arg(2));
        }
    }

    #[test]
    fn clmkl_learns_two_regions() {
        let (model, acc) = fit_two_regions(LocalizedMethod::Clmkl(ClmklSettings::default()), 400);
        let LocalizedMachine::Clmkl(machine) = &model.machines.machines[0] else {
            panic!("not C-LMKL")
        };
        eprintln!(
            "C-LMKL {acc}, #SV {}, beta {:?}, solves {}",
            model.n_support(),
            machine.beta,
            machine.solves
        );
        assert!(acc > 0.65, "{acc}");
        for r in 0..3 {
            let norm: f64 = (0..2).map(|i| machine.beta[i * 3 + r].powi(2)).sum();
            assert!((norm - 1.0).abs() < 1e-9, "{norm}");
        }
        let bad = ClmklSettings {
            clusters: 0,
            ..ClmklSettings::default()
        };
        let (x, y) = two_regions(400, 1);
        let e = LocalizedModel::fit(
            &LocalizedParams::new(LocalizedMethod::Clmkl(bad), TWO_KERNELS.parse().unwrap()),
            &x,
            &y,
        );
        assert!(e.is_err());
    }
}
