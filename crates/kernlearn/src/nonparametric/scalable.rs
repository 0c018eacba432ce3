//! Scalable DANK (DANK paper, section 5, problems (21)–(22)): k-means splits the
//! training data into `v` clusters `V_c`, and each cluster solves problem (22),
//!
//! `max_{0 ≤ α ≤ C} min_{F ⪰ 0} 1ᵀα − ½ αᵀY(F⊙K)Yα + η‖F − 11ᵀ‖²_F`
//!
//! on its own `|V_c| × |V_c|` Gram matrix: the nuclear-norm term is dropped (τ = 0) and
//! there is no bias, hence no equality constraint (the projection is a clip). The
//! approximate `F̄` is block-diagonal. Prediction routes a point to its nearest centre and
//! applies that cluster's [`LearnedKernelMachine`] (bias 0, nearest-neighbour extension
//! within the cluster).
//!
//! - **Solver**: [`DankProblem`] with [`Dual::SvmNoBias`] and τ = 0, where
//!   `F = 11ᵀ + Γ(α)` is PSD as it stands and no eigendecomposition is needed until the
//!   final `F` is stored.
//! - **η**: `None` = per cluster `‖α_SVM‖²` of the C-SVC (with bias, LIBSVM's SMO) on the
//!   cluster with the same C, which also gives the start point (the paper's rule for
//!   DANK, applied per subproblem).
//! - **Single-class clusters**: k-means ignores labels, so a cluster may hold one class.
//!   Its subproblem is still (22): `c = Yα` has one sign, every entry of `F⊙K` is
//!   positive for a positive kernel, so the decision value has that class's sign. The
//!   SVM of the η rule does not exist there (`yᵀα = 0` forces `α = 0`): the start is
//!   `α = 0` and `η = C²|V_c|` (the largest `‖α‖²` in the box) unless η is given; η
//!   only scales such a cluster's decision values. A decision value that underflows to
//!   0 far from the cluster is reported as the smallest positive value with the sign of
//!   the cluster's majority class.
//! - **Memory**: the largest object is one cluster's Gram matrix and `F`
//!   (`|V_c|²` each, as many at once as rayon threads); never an `n × n` matrix.
//! - **Classes**: binary only; more classes are a clear error.

use super::dank::{learned_machine, DankFitInfo, DankProblem, DankSettings, Dual};
use super::machine::LearnedKernelMachine;
use crate::check::positive_finite;
use crate::cluster::{Centres, KMeans};
use crate::data::Features;
use crate::kernel::{Kernel, PrecomputedKernel};
use crate::multiclass::class_groups;
use crate::predictor::{FitSummary, Predictor, Task};
use crate::svm::solve_c_svc;
use crate::validate::count_sum;
use crate::{Error, Result};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Hyper-parameters of scalable DANK.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ScalableDankParams {
    /// Base kernel (the paper: Gaussian with σ from SVM-CV).
    pub kernel: Kernel,
    /// Box bound C.
    pub c: f64,
    /// η (> 0); `None` = `‖α_SVM‖²` of each cluster's SVM (see the module docs).
    pub eta: Option<f64>,
    /// Number of k-means clusters `v` (1 ≤ v ≤ n).
    pub clusters: usize,
    /// Seed of k-means.
    pub seed: u64,
    /// Solver settings of each subproblem; their `tau` and `eta` are not used (problem
    /// (22) has τ = 0, η is [`ScalableDankParams::eta`]).
    pub settings: DankSettings,
}

impl ScalableDankParams {
    /// Scalable DANK on `kernel` with box bound `c` and `clusters` k-means clusters
    /// (see `ScalableDankParams::default_clusters`); η from each cluster's SVM, k-means
    /// seed 0 and the default solver settings. Set the public fields to change them.
    pub fn new(kernel: Kernel, c: f64, clusters: usize) -> Self {
        Self {
            kernel,
            c,
            eta: None,
            clusters,
            seed: 0,
            settings: DankSettings::default(),
        }
    }

    /// Training points per cluster aimed at by `ScalableDankParams::default_clusters`.
    pub const POINTS_PER_CLUSTER: usize = 1000;

    /// The default number of clusters for `n` training points: `max(1, round(n / 1000))`,
    /// i.e. clusters of about 1,000 points. That keeps each subproblem's Gram matrix and
    /// `F` at about 8 MB each (so memory stays bounded however large `n` is) and each
    /// solve at a few seconds, while a cluster still holds enough points of both classes
    /// for its local machine; the paper's 50 clusters on ijcnn1 (49,990 rows) are the
    /// same scale.
    pub(crate) fn default_clusters(n: usize) -> usize {
        let per = Self::POINTS_PER_CLUSTER;
        ((n + per / 2) / per).max(1)
    }

    fn validate(&self, n: usize, d: usize) -> Result<()> {
        if self.clusters == 0 || self.clusters > n {
            return Err(Error::param(
                "clusters",
                format!(
                    "must be between 1 and the {n} training points, got {}",
                    self.clusters
                ),
            ));
        }
        positive_finite("C", self.c)?;
        if let Some(eta) = self.eta {
            positive_finite("eta", eta)?;
        }
        self.kernel.validate(d)?;
        self.subproblem_settings().validate()
    }

    /// The k-means of the partition into clusters (section 5): `clusters` centres, seeded
    /// by `seed`, otherwise [`KMeans::new`]'s defaults.
    pub fn kmeans(&self) -> KMeans {
        KMeans::new(self.clusters).seed(self.seed)
    }

    /// Checks the parameters for `n` training points of `d` features.
    pub fn check(&self, n: usize, d: usize) -> Result<()> {
        self.validate(n, d)
    }

    /// The settings each subproblem runs with: τ = 0.
    fn subproblem_settings(&self) -> DankSettings {
        DankSettings {
            tau: 0.0,
            eta: None,
            ..self.settings.clone()
        }
    }
}

/// Bytes one cluster's DANK fit holds at its peak: five `n_c × n_c` matrices (the Gram
/// matrix, the learned one, the gradient and the eigensolver's work; measured: 2.55 GB
/// peak for one cluster of 8,000 points, 4.98 × n_c² doubles).
pub(crate) fn cluster_bytes(n_c: usize) -> f64 {
    5.0 * 8.0 * (n_c as f64).powi(2)
}

/// Bytes the fitted model may hold: each cluster's machine keeps a row of the learned
/// matrix per support vector over the support's columns and one column shared by the
/// other points (`n_sv × (n_sv + 1)` doubles, the out-of-sample extension of section 5),
/// at most `Σ n_c²` when every point is a support vector (the plan's worst case).
pub(crate) fn model_bytes(sizes: &[usize]) -> f64 {
    8.0 * sizes.iter().map(|&n| (n as f64).powi(2)).sum::<f64>()
}

/// A cluster count whose model and largest fit would fit in `available`: both shrink as
/// 1/clusters, so the current count scaled by `needed / available`, at most one
/// cluster per point.
fn suggested_clusters(needed: f64, available: f64, sizes: &[usize]) -> usize {
    let total: usize = sizes.iter().sum();
    let scaled = needed / available.max(1.0) * sizes.len() as f64;
    (scaled.ceil().min(total as f64) as usize)
        .saturating_add(1)
        .min(total.max(1))
}

/// The clusters (by index, largest first) grouped into waves that run in parallel: at
/// most `threads` per wave and, beyond the wave's first, only while the wave's
/// [`cluster_bytes`] stay within what `available` leaves beside the model
/// ([`model_bytes`]), so peak memory is the model plus the largest clusters in flight,
/// not every cluster at once. An error naming `clusters` when the model and the largest
/// cluster do not fit together.
pub(crate) fn cluster_waves(
    sizes: &[usize],
    available: f64,
    threads: usize,
) -> Result<Vec<Vec<usize>>> {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&c| std::cmp::Reverse(sizes[c]));
    let model = model_bytes(sizes);
    let budget = available - model;
    if let Some(&largest) = order.first() {
        let need = cluster_bytes(sizes[largest]);
        if need > budget {
            return Err(Error::param(
                "clusters",
                format!(
                    "the model's learned-matrix rows (up to {:.1} GB: Σ n_c² over the \
                     clusters) and the fit of the largest k-means cluster ({} points, about \
                     {:.1} GB) need more than the {:.1} GB available; use more clusters \
                     (about {}: both shrink as 1/clusters)",
                    model / 1e9,
                    sizes[largest],
                    need / 1e9,
                    available / 1e9,
                    suggested_clusters(model + need, available, sizes),
                ),
            ));
        }
    }
    let mut waves: Vec<Vec<usize>> = Vec::new();
    let mut in_flight = f64::INFINITY;
    for c in order {
        let need = cluster_bytes(sizes[c]);
        match waves.last_mut() {
            Some(wave) if wave.len() < threads.max(1) && in_flight + need <= budget => {
                wave.push(c);
                in_flight += need;
            }
            _ => {
                waves.push(vec![c]);
                in_flight = need;
            }
        }
    }
    Ok(waves)
}

/// The two classes of binary labels `y` (`[+1 class, −1 class]`, LIBSVM order) and the
/// labels as ±1. Fails when `y` does not have exactly two classes.
pub(crate) fn binary_labels(y: &[f64]) -> Result<(Vec<f64>, Vec<f64>)> {
    let (classes, _) = class_groups(y);
    if classes.len() != 2 {
        return Err(Error::data(format!(
            "scalable DANK is a binary classifier; the training labels have {} classes",
            classes.len()
        )));
    }
    let signed = y
        .iter()
        .map(|&v| if v == classes[0] { 1.0 } else { -1.0 })
        .collect();
    Ok((classes, signed))
}

/// One cluster's predictor and report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClusterMachine {
    /// The DANK machine on the cluster's points (bias 0).
    pub machine: LearnedKernelMachine,
    /// `+1` or `−1`: the cluster's majority class (breaks a zero decision value).
    pub majority: f64,
    /// What the subproblem's solver reported.
    pub info: DankFitInfo,
}

impl ClusterMachine {
    /// Checks the machine ([`LearnedKernelMachine::validate`]) on `n_features`
    /// features and a majority class of `+1` or `−1`.
    pub(crate) fn validate(&self, n_features: usize) -> Result<()> {
        crate::validate::within(
            "machine",
            super::machine::learned_machine_on(&self.machine, n_features),
        )?;
        crate::validate::ensure(self.majority == 1.0 || self.majority == -1.0, || {
            format!("majority is {}, it must be 1 or -1", self.majority)
        })
    }
}

/// A fitted scalable DANK classifier (binary).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScalableDankModel {
    /// Parameters used.
    pub params: ScalableDankParams,
    /// Input columns.
    pub n_features: usize,
    /// The two class labels, `[+1 class, −1 class]` in LIBSVM order.
    pub classes: Vec<f64>,
    /// Centres of the non-empty clusters (routing).
    pub centres: Centres,
    /// One machine per centre.
    pub clusters: Vec<ClusterMachine>,
}

impl ScalableDankModel {
    /// Fits scalable DANK on `(x, y)` (see the module docs).
    #[cfg(test)]
    pub(crate) fn fit(params: &ScalableDankParams, x: &Features, y: &[f64]) -> Result<Self> {
        Self::fit_with_progress(params, x, y, &|| {})
    }

    /// As `ScalableDankModel::fit`; `progress` is called once per finished cluster
    /// (subproblems run in parallel over clusters), `params.clusters` times in all
    /// (an empty cluster counts as finished at once).
    pub fn fit_with_progress(
        params: &ScalableDankParams,
        x: &Features,
        y: &[f64],
        progress: &(dyn Fn() + Sync),
    ) -> Result<Self> {
        if x.n_rows() != y.len() {
            return Err(Error::data(format!(
                "{} labels for {} rows",
                y.len(),
                x.n_rows()
            )));
        }
        params.validate(x.n_rows(), x.n_cols())?;
        let (classes, signed) = binary_labels(y)?;
        let kmeans = params.kmeans().fit(x)?;
        // The final assignments are the routing of the final centres (Lloyd's last step
        // assigns to them), so prediction sends every training point to the cluster it
        // was trained in.
        let members = kmeans.members();
        let sizes: Vec<usize> = members.iter().map(Vec::len).collect();
        let available = crate::check::available_memory() as f64;
        let waves = cluster_waves(&sizes, available, rayon::current_num_threads())?;
        let mut machines: Vec<Option<ClusterMachine>> = vec![None; members.len()];
        for wave in waves {
            let fitted = wave
                .par_iter()
                .map(|&c| {
                    let idx = &members[c];
                    let fit = (!idx.is_empty()).then(|| {
                        let yc: Vec<f64> = idx.iter().map(|&i| signed[i]).collect();
                        fit_cluster(params, &x.select_rows(idx), &yc)
                    });
                    progress();
                    fit.transpose().map(|m| (c, m))
                })
                .collect::<Result<Vec<_>>>()?;
            for (c, machine) in fitted {
                machines[c] = machine;
            }
        }
        Self::from_clusters(params, x.n_cols(), classes, &kmeans.centres, machines)
    }

    /// The model from the k-means centres and one machine per cluster ([`fit_cluster`];
    /// `None` for an empty cluster, which is dropped): the last step of
    /// `ScalableDankModel::fit`, shared with the distributed fit
    /// (`kernlearn.ray.scalable_dank`).
    pub(crate) fn from_clusters(
        params: &ScalableDankParams,
        n_features: usize,
        classes: Vec<f64>,
        centres: &Centres,
        machines: Vec<Option<ClusterMachine>>,
    ) -> Result<Self> {
        if machines.len() != centres.k() {
            return Err(Error::data(format!(
                "{} cluster machines for {} centres",
                machines.len(),
                centres.k()
            )));
        }
        let kept: Vec<usize> = (0..machines.len())
            .filter(|&c| machines[c].is_some())
            .collect();
        Ok(Self {
            params: params.clone(),
            n_features,
            classes,
            centres: Centres::new(centres.as_features().select_rows(&kept))?,
            clusters: machines.into_iter().flatten().collect(),
        })
    }

    /// Index of the cluster each row of `x` is routed to (its nearest centre).
    pub fn route(&self, x: &Features) -> Result<Vec<usize>> {
        self.check_input(x)?;
        self.centres.assign(x)
    }

    /// Decision value of every row of `x`: its cluster's `f(x)` (positive = `classes[0]`).
    pub(crate) fn decision(&self, x: &Features) -> Result<Vec<f64>> {
        let route = self.route(x)?;
        let mut rows = vec![Vec::new(); self.clusters.len()];
        for (r, &c) in route.iter().enumerate() {
            rows[c].push(r);
        }
        let mut out = vec![0.0; x.n_rows()];
        for (cluster, idx) in self.clusters.iter().zip(&rows) {
            if idx.is_empty() {
                continue;
            }
            let d = cluster.machine.decision(&x.select_rows(idx))?;
            for (&r, v) in idx.iter().zip(d) {
                out[r] = if v == 0.0 {
                    cluster.majority * f64::MIN_POSITIVE
                } else {
                    v
                };
            }
        }
        Ok(out)
    }

    /// Number of training points per cluster.
    pub fn cluster_sizes(&self) -> Vec<usize> {
        self.clusters.iter().map(|c| c.machine.n_train()).collect()
    }

    /// Smallest and largest learned `F` entry over all clusters.
    pub fn f_range(&self) -> (f64, f64) {
        self.clusters
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), c| {
                (lo.min(c.info.f_min), hi.max(c.info.f_max))
            })
    }

    fn check_input(&self, x: &Features) -> Result<()> {
        if x.n_cols() != self.n_features {
            return Err(Error::data(format!(
                "model expects {} features, got {}",
                self.n_features,
                x.n_cols()
            )));
        }
        Ok(())
    }
}

/// Problem (22) on one cluster (labels ±1): η and the start from the cluster's SVM when
/// it has both classes (see the module docs otherwise), then the box-only DANK solve.
/// Used by `ScalableDankModel::fit` and by the distributed fit's cluster tasks.
///
/// Runs on one thread of its own: faer's eigensolver and the Gram product split their
/// work by the thread count, which changes the rounding, so a cluster's machine is the
/// same on any machine only on a fixed number of threads (the distributed fit relies on
/// it). The clusters run in parallel instead.
pub(crate) fn fit_cluster(
    params: &ScalableDankParams,
    x: &Features,
    y: &[f64],
) -> Result<ClusterMachine> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| Error::numerical(format!("scalable DANK: no thread for a cluster: {e}")))?;
    pool.install(|| fit_cluster_here(params, x, y))
}

/// [`fit_cluster`] on the current thread pool.
fn fit_cluster_here(
    params: &ScalableDankParams,
    x: &Features,
    y: &[f64],
) -> Result<ClusterMachine> {
    let settings = params.subproblem_settings();
    let k = params.kernel.gram(x)?;
    let n = y.len();
    let positives = y.iter().filter(|&&v| v > 0.0).count();
    let both = positives > 0 && positives < n;
    let svm_alpha = if both {
        let source = PrecomputedKernel::new(k.as_ref())?;
        let sol = solve_c_svc(&source, y, params.c, params.c, &settings.svm_solver, None)?;
        Some(sol.coef.iter().map(|v| v.abs()).collect::<Vec<f64>>())
    } else {
        None
    };
    let eta = match (params.eta, &svm_alpha) {
        (Some(e), _) => e,
        (None, Some(a)) => a.iter().map(|v| v * v).sum::<f64>(),
        (None, None) => params.c * params.c * n as f64,
    };
    if !(eta > 0.0 && eta.is_finite()) {
        return Err(Error::data(
            "scalable DANK: a cluster's SVM solution is zero, so η = ‖α_SVM‖² = 0; set eta",
        ));
    }
    let problem = DankProblem {
        k: k.as_ref(),
        dual: Dual::SvmNoBias { y },
        c: params.c,
        eta,
        tau: 0.0,
    };
    let z0 = match svm_alpha {
        Some(a) if settings.init_from_svm => a,
        _ => vec![0.0; n],
    };
    let sol = problem.solve(&z0, &settings)?;
    let (machine, info) = learned_machine(&params.kernel, x, eta, &sol)?;
    Ok(ClusterMachine {
        machine,
        majority: if 2 * positives >= n { 1.0 } else { -1.0 },
        info,
    })
}

impl Predictor for ScalableDankModel {
    fn method(&self) -> String {
        "dank-scalable".into()
    }

    fn task(&self) -> Task {
        Task::Classification
    }

    fn n_features(&self) -> usize {
        self.n_features
    }

    fn predict(&self, x: &Features) -> Result<Vec<f64>> {
        Ok(self
            .decision(x)?
            .into_iter()
            .map(|d| self.classes[usize::from(d <= 0.0)])
            .collect())
    }

    fn decision_function(&self, x: &Features) -> Result<Vec<Vec<f64>>> {
        Ok(self.decision(x)?.into_iter().map(|v| vec![v]).collect())
    }

    fn params_json(&self) -> serde_json::Value {
        serde_json::to_value(&self.params).unwrap_or(serde_json::Value::Null)
    }

    fn classes(&self) -> Vec<f64> {
        self.classes.clone()
    }

    /// Valid parameters for the stored training points and `n_features` features, two
    /// finite distinct classes, one routing centre of `n_features` coordinates per
    /// cluster machine (at most `params.clusters` of them), each machine valid
    /// (`ClusterMachine::validate`).
    fn validate(&self) -> Result<()> {
        use crate::validate::{classes, ensure, within};
        let d = self.n_features;
        let n_train = self
            .clusters
            .iter()
            .fold(0usize, |a, c| a.saturating_add(c.machine.n_train()));
        within("params", self.params.validate(n_train, d))?;
        classes("classes", &self.classes)?;
        ensure(self.classes.len() == 2, || {
            format!(
                "classes has {} labels; scalable DANK is a binary classifier",
                self.classes.len()
            )
        })?;
        ensure(self.centres.dim() == d, || {
            format!(
                "centres have {} coordinates, n_features is {d}",
                self.centres.dim()
            )
        })?;
        ensure(self.centres.k() == self.clusters.len(), || {
            format!(
                "centres has {} centres, the model has {} clusters",
                self.centres.k(),
                self.clusters.len()
            )
        })?;
        ensure(self.clusters.len() <= self.params.clusters, || {
            format!(
                "clusters has {} machines, more than params.clusters = {}",
                self.clusters.len(),
                self.params.clusters
            )
        })?;
        for (i, c) in self.clusters.iter().enumerate() {
            within(format!("clusters[{i}]"), c.validate(d))?;
        }
        Ok(())
    }

    fn summary(&self) -> FitSummary {
        let (f_min, f_max) = self.f_range();
        FitSummary {
            n_support: Some(self.clusters.iter().map(|c| c.machine.support.len()).sum()),
            objective: Some(self.clusters.iter().map(|c| c.info.objective).sum()),
            iterations: Some(count_sum(self.clusters.iter().map(|c| c.info.iterations))),
            extra: serde_json::json!({
                "cluster_sizes": self.cluster_sizes(),
                "cluster_iterations": self.clusters.iter().map(|c| c.info.iterations).collect::<Vec<_>>(),
                "cluster_eta": self.clusters.iter().map(|c| c.info.eta).collect::<Vec<_>>(),
                "f_min": f_min,
                "f_max": f_max,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learner::AnyModel;
    use crate::nonparametric::dank::{EigenRoute, Scheme, StepRule};
    use crate::nonparametric::testing::largest_gap;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// `n` points: class +1 around `a`, class −1 around `b` (alternating), uniform noise.
    fn blobs(n: usize, a: [f64; 2], b: [f64; 2], noise: f64, seed: u64) -> (Features, Vec<f64>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut data = Vec::new();
        let mut y = Vec::new();
        for i in 0..n {
            let (centre, label) = if i % 2 == 0 { (a, 1.0) } else { (b, -1.0) };
            for m in centre {
                data.push(m + rng.random_range(-noise..noise));
            }
            y.push(label);
        }
        (Features::new(n, 2, data).unwrap(), y)
    }

    fn params(clusters: usize, eta: Option<f64>) -> ScalableDankParams {
        ScalableDankParams {
            kernel: Kernel::rbf_gamma(1.0).unwrap(),
            c: 1.0,
            eta,
            clusters,
            seed: 3,
            settings: DankSettings {
                tol: 1e-9,
                kkt_tol: 0.0,
                max_iter: 20000,
                ..DankSettings::default()
            },
        }
    }

    #[test]
    fn one_cluster_is_exact_dank_without_nuclear_norm_and_bias() {
        let (x, y) = blobs(40, [0.0, 0.0], [1.0, 0.5], 0.8, 1);
        let p = params(1, Some(0.4));
        let model = ScalableDankModel::fit(&p, &x, &y).unwrap();
        // Reference: the same box-only problem by the eigendecomposition route (τ = 0,
        // F = J_0(11ᵀ + Γ) formed explicitly), from α = 0 with plain projected gradient.
        let k = p.kernel.gram(&x).unwrap();
        let problem = DankProblem {
            k: k.as_ref(),
            dual: Dual::SvmNoBias { y: &y },
            c: 1.0,
            eta: 0.4,
            tau: 0.0,
        };
        let settings = DankSettings {
            tol: 1e-10,
            kkt_tol: 0.0,
            max_iter: 50000,
            scheme: Scheme::ProjectedGradient,
            step: StepRule::Backtracking,
            eigen: EigenRoute::Full,
            init_from_svm: false,
            ..DankSettings::default()
        };
        let exact = problem.solve(&vec![0.0; 40], &settings).unwrap();
        assert!(exact.converged, "reference did not converge");
        assert_eq!(exact.bias, 0.0);
        let (reference, _) = learned_machine(&p.kernel, &x, 0.4, &exact).unwrap();
        let (xt, _) = blobs(30, [0.0, 0.0], [1.0, 0.5], 1.0, 2);
        let got = model.decision(&xt).unwrap();
        let want = reference.decision(&xt).unwrap();
        let worst = largest_gap(got, want);
        assert!(worst < 1e-4, "largest decision-value gap {worst}");
        let m = &model.clusters[0];
        assert!(m.info.converged, "scalable subproblem did not converge");
        assert_eq!(m.machine.bias, 0.0);
        assert!((m.info.objective - exact.objective).abs() < 1e-6 * exact.objective.abs());
        // The box is active without the equality: some α sit at C, none outside.
        assert!(exact.z.iter().all(|&a| (0.0..=1.0).contains(&a)));
    }

    #[test]
    fn bad_parameters_and_inputs_are_clear_errors() {
        let (x, y) = blobs(20, [0.0, 0.0], [2.0, 2.0], 0.5, 4);
        for v in [0, 21] {
            let e = ScalableDankModel::fit(&params(v, None), &x, &y)
                .unwrap_err()
                .to_string();
            assert!(e.contains("clusters"), "{e}");
        }
        for eta in [0.0, -1.0, f64::NAN] {
            let e = ScalableDankModel::fit(&params(2, Some(eta)), &x, &y)
                .unwrap_err()
                .to_string();
            assert!(e.contains("eta"), "{e}");
        }
        let three: Vec<f64> = (0..20).map(|i| (i % 3) as f64).collect();
        let e = ScalableDankModel::fit(&params(2, None), &x, &three)
            .unwrap_err()
            .to_string();
        assert!(e.contains("binary"), "{e}");
        let model = ScalableDankModel::fit(&params(2, None), &x, &y).unwrap();
        let nan = Features::new(1, 2, vec![f64::NAN, 0.0]).unwrap();
        let e = model.predict(&nan).unwrap_err().to_string();
        assert!(e.contains("not finite"), "{e}");
        let mut bad = x.as_slice().to_vec();
        bad[7] = f64::INFINITY;
        let bad = Features::new(20, 2, bad).unwrap();
        let e = ScalableDankModel::fit(&params(2, None), &bad, &y)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not finite"), "{e}");
        let e = ScalableDankModel::fit(&params(2, None), &x, &y[..19])
            .unwrap_err()
            .to_string();
        assert!(e.contains("labels"), "{e}");
        let wrong = Features::new(1, 3, vec![0.0; 3]).unwrap();
        assert!(model.predict(&wrong).is_err());
    }

    #[test]
    fn routing_sends_training_points_to_their_own_cluster() {
        let (x, y) = blobs(60, [0.0, 0.0], [2.0, 1.0], 1.0, 5);
        let model = ScalableDankModel::fit(&params(4, None), &x, &y).unwrap();
        let route = model.route(&x).unwrap();
        let sizes = model.cluster_sizes();
        assert_eq!(sizes.iter().sum::<usize>(), 60);
        for (r, &c) in route.iter().enumerate() {
            let pts = model.clusters[c].machine.train.points();
            assert!(
                (0..pts.n_rows()).any(|i| pts.row(i) == x.row(r)),
                "point {r} not in cluster {c}"
            );
        }
        for (c, &size) in sizes.iter().enumerate() {
            assert_eq!(route.iter().filter(|&&a| a == c).count(), size);
        }
    }

    #[test]
    fn two_blobs_classify_well_with_two_to_four_clusters() {
        let (x, y) = blobs(160, [0.0, 0.0], [1.5, 1.5], 0.9, 6);
        let (xt, yt) = blobs(200, [0.0, 0.0], [1.5, 1.5], 0.9, 7);
        for v in 2..=4 {
            let model = ScalableDankModel::fit(&params(v, None), &x, &y).unwrap();
            let pred = model.predict(&xt).unwrap();
            let acc = pred.iter().zip(&yt).filter(|(a, b)| a == b).count() as f64 / 200.0;
            assert!(acc >= 0.95, "{v} clusters: accuracy {acc}");
        }
    }

    #[test]
    fn single_class_cluster_predicts_its_class() {
        // A far group of class 7 only, and a mixed group of classes 7 and 3.
        let (near, mut y) = blobs(30, [0.0, 0.0], [1.0, 1.0], 0.6, 8);
        y.iter_mut()
            .for_each(|v| *v = if *v > 0.0 { 7.0 } else { 3.0 });
        let mut data = near.as_slice().to_vec();
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        for _ in 0..12 {
            data.push(20.0 + rng.random_range(-0.5..0.5));
            data.push(20.0 + rng.random_range(-0.5..0.5));
            y.push(7.0);
        }
        let x = Features::new(42, 2, data).unwrap();
        let model = ScalableDankModel::fit(&params(2, None), &x, &y).unwrap();
        let mut sizes = model.cluster_sizes();
        sizes.sort();
        assert_eq!(sizes, vec![12, 30]);
        // Near the pure group, and so far away that every kernel value underflows.
        let q = Features::new(3, 2, vec![20.0, 20.0, 21.0, 19.5, 1e4, 1e4]).unwrap();
        assert_eq!(model.predict(&q).unwrap(), vec![7.0; 3]);
        assert!(model.decision(&q).unwrap().iter().all(|&d| d > 0.0));
    }

    #[test]
    fn default_cluster_count_aims_at_a_thousand_points() {
        assert_eq!(ScalableDankParams::default_clusters(0), 1);
        assert_eq!(ScalableDankParams::default_clusters(270), 1);
        assert_eq!(ScalableDankParams::default_clusters(1499), 1);
        assert_eq!(ScalableDankParams::default_clusters(1500), 2);
        assert_eq!(ScalableDankParams::default_clusters(46_400), 46);
    }

    #[test]
    fn method_seam_selects_sigma_and_c_then_fits_per_cluster() {
        use crate::learner::{GridSettings, Method, Progress};
        use crate::nonparametric::learner::ScalableDankLearner;
        use crate::select::Grid;
        let (x, y) = blobs(80, [0.0, 0.0], [1.5, 1.5], 0.9, 11);
        let method = Method::new(ScalableDankLearner {
            params: params(3, None),
            search: Some(GridSettings {
                grid: Grid {
                    sigmas: vec![0.5, 1.0, 2.0],
                    cs: vec![0.5, 2.0],
                    epsilons: Vec::new(),
                },
                folds: 3,
                ..GridSettings::default()
            }),
            auto_clusters: false,
        });
        assert_eq!(method.name(), "DANK-scalable");
        assert_eq!(method.task(), crate::predictor::Task::Classification);
        let steps = std::sync::atomic::AtomicU64::new(0);
        let fitted = method
            .fit(&x, &y, 5, &|p| {
                assert_eq!(p, Progress::Step);
                steps.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            })
            .unwrap();
        assert_eq!(steps.into_inner(), method.steps());
        let sigma = fitted.chosen.sigma.unwrap();
        let c = fitted.chosen.c.unwrap();
        assert!([0.5, 1.0, 2.0].contains(&sigma) && [0.5, 2.0].contains(&c));
        assert!(fitted.selection.is_some() && fitted.chosen.cv_score.is_some());
        let model = fitted.model.downcast_ref::<ScalableDankModel>().unwrap();
        assert_eq!(model.params.c, c);
        assert_eq!(model.params.seed, 5);
        assert_eq!(fitted.chosen.other["clusters"], model.clusters.len() as f64);
        let pred = fitted.model.predict(&x).unwrap();
        let acc = pred.iter().zip(&y).filter(|(a, b)| a == b).count() as f64 / 80.0;
        assert!(acc >= 0.9, "training accuracy {acc}");
    }

    #[test]
    fn model_round_trips_and_reports() {
        let (x, y) = blobs(40, [0.0, 0.0], [2.0, 2.0], 0.8, 10);
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let model = ScalableDankModel::fit_with_progress(&params(3, None), &x, &y, &|| {
            calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        })
        .unwrap();
        assert_eq!(calls.into_inner(), model.clusters.len());
        let any = AnyModel::new(model.clone());
        assert_eq!(any.method(), "dank-scalable");
        let json = serde_json::to_string(&any).unwrap();
        let back: AnyModel = serde_json::from_str(&json).unwrap();
        assert_eq!(back.predict(&x).unwrap(), model.predict(&x).unwrap());
        let s = model.summary();
        assert_eq!(
            s.extra["cluster_sizes"].as_array().unwrap().len(),
            model.clusters.len()
        );
        let (lo, hi) = model.f_range();
        assert!(lo <= hi);
    }

    /// Waves hold at most `threads` clusters, largest first, and never more memory than
    /// the budget once they hold two; a cluster too large for the budget is an error
    /// naming the option.
    #[test]
    fn clusters_run_in_waves_within_the_memory_budget() {
        let sizes = [1000, 4000, 3000, 0, 2000];
        let all = cluster_waves(&sizes, f64::INFINITY, 2).unwrap();
        assert_eq!(all, vec![vec![1, 2], vec![4, 0], vec![3]]);
        // Room beside the model for the 4000-point cluster alone, then for 3000 and 2000
        // together.
        let budget = cluster_bytes(4000) + 1.0;
        let waves = cluster_waves(&sizes, model_bytes(&sizes) + budget, 4).unwrap();
        assert_eq!(waves, vec![vec![1], vec![2, 4, 0, 3]]);
        for wave in &waves[1..] {
            let held: f64 = wave.iter().map(|&c| cluster_bytes(sizes[c])).sum();
            assert!(held <= budget);
        }
        let tight = model_bytes(&sizes) + cluster_bytes(3999);
        let e = cluster_waves(&sizes, tight, 2).unwrap_err().to_string();
        assert!(e.contains("`clusters`") && e.contains("4000 points"), "{e}");
        // The model alone counts: eight clusters of 18,750 points hold up to 22.5 GB.
        let e = cluster_waves(&[18_750; 8], 20e9, 2)
            .unwrap_err()
            .to_string();
        assert!(e.contains("22.5 GB"), "{e}");
        // No memory at all is an error with a bounded suggestion, not an overflow.
        let e = cluster_waves(&sizes, 0.0, 2).unwrap_err().to_string();
        assert!(e.contains("about 10000:"), "{e}");
    }
}
