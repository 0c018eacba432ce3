//! Kernel machines on features or a precomputed kernel: C-SVC and ν-SVC (one-vs-one
//! multiclass with voting, optional Platt probabilities), one-class SVM, ε-SVR and ν-SVR.
//! Training, decision values and prediction follow LIBSVM (`svm_train`,
//! `svm_predict_values`), so models agree with it on identical inputs.

use super::probability::{couple_pairwise, sigmoid_predict, sigmoid_train};
use super::problem::{
    seed_alpha, solve_c_svc_weighted, solve_epsilon_svr_weighted, solve_nu_svc_weighted,
    solve_nu_svr_weighted, solve_one_class_weighted, CSvcPath, DualSolution, SolverSettings,
};
use super::subset::SubsetSource;
use super::vector::{weighted_sum, weighted_sums4};
use super::warm::WarmStart;
use super::weights::positive_weight_points;
use crate::check::{non_negative_finite, positive_finite};
use crate::data::{Features, SparseFeatures};
use crate::kernel::{FeatureKernel, Kernel, KernelSource, PrecomputedKernel};
use crate::multiclass::{ordered_class_groups, vote, ClassOrder};
use crate::{Error, Result};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// The five formulations of LIBSVM (`-s 0..4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SvmType {
    /// C-support vector classification.
    CSvc,
    /// ν-support vector classification.
    NuSvc,
    /// One-class SVM (novelty detection); predicts +1 (inlier) / −1 (outlier).
    OneClass,
    /// ε-support vector regression.
    EpsilonSvr,
    /// ν-support vector regression.
    NuSvr,
}

impl SvmType {
    /// True for C-SVC and ν-SVC.
    pub(crate) fn is_classifier(self) -> bool {
        matches!(self, SvmType::CSvc | SvmType::NuSvc)
    }

    /// True for ε-SVR and ν-SVR.
    pub fn is_regressor(self) -> bool {
        matches!(self, SvmType::EpsilonSvr | SvmType::NuSvr)
    }
}

impl std::str::FromStr for SvmType {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Ok(match s {
            "c-svc" | "svc" | "svm" | "csvc" => SvmType::CSvc,
            "nu-svc" | "nusvc" => SvmType::NuSvc,
            "one-class" | "oneclass" => SvmType::OneClass,
            "epsilon-svr" | "svr" | "eps-svr" => SvmType::EpsilonSvr,
            "nu-svr" | "nusvr" => SvmType::NuSvr,
            _ => {
                return Err(Error::param(
                    "svm_type",
                    format!(
                        "unknown `{s}` (expected c-svc, nu-svc, one-class, epsilon-svr or nu-svr)"
                    ),
                ))
            }
        })
    }
}

impl std::fmt::Display for SvmType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SvmType::CSvc => "c-svc",
            SvmType::NuSvc => "nu-svc",
            SvmType::OneClass => "one-class",
            SvmType::EpsilonSvr => "epsilon-svr",
            SvmType::NuSvr => "nu-svr",
        })
    }
}

/// Hyper-parameters of a kernel machine (LIBSVM's `svm_parameter`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SvmParams {
    /// Formulation.
    pub svm_type: SvmType,
    /// Kernel function.
    pub kernel: Kernel,
    /// Trade-off C (C-SVC, ε-SVR, ν-SVR). Default 1.
    pub c: f64,
    /// ν (ν-SVC, one-class, ν-SVR). Default 0.5.
    pub nu: f64,
    /// Width ε of the insensitive tube (ε-SVR, LIBSVM `-p`). Default 0.1.
    pub epsilon: f64,
    /// Per-class weights `(label, w)`: class `label` gets `C·w` (C-SVC).
    pub class_weights: Vec<(f64, f64)>,
    /// Fit Platt probabilities (classification; costs a 5-fold CV per class pair).
    pub probability: bool,
    /// Seed of the cross-validation shuffle used for probabilities.
    pub seed: u64,
    /// Solver tolerance, shrinking, cache and iteration cap.
    #[serde(default)]
    pub solver: SolverSettings,
    /// Order of the classes, hence of the one-vs-one pairs and their signs (LIBSVM's
    /// order of first appearance by default; scikit-learn's sorted order for the Python
    /// package, so that its attributes match `sklearn.svm.SVC` exactly).
    #[serde(default)]
    pub class_order: ClassOrder,
}

impl Default for SvmParams {
    fn default() -> Self {
        Self {
            svm_type: SvmType::CSvc,
            kernel: Kernel::Rbf { gamma: 1.0 },
            c: 1.0,
            nu: 0.5,
            epsilon: 0.1,
            class_weights: Vec::new(),
            probability: false,
            seed: 1,
            solver: SolverSettings::default(),
            class_order: ClassOrder::FirstSeen,
        }
    }
}

impl SvmParams {
    /// Checks every parameter the chosen formulation uses.
    pub(crate) fn validate(&self, n_features: usize) -> Result<()> {
        if !matches!(self.kernel, Kernel::Precomputed) {
            self.kernel.validate(n_features)?;
        }
        let uses_c = matches!(
            self.svm_type,
            SvmType::CSvc | SvmType::EpsilonSvr | SvmType::NuSvr
        );
        if uses_c {
            positive_finite("C", self.c)?;
        }
        let uses_nu = matches!(
            self.svm_type,
            SvmType::NuSvc | SvmType::OneClass | SvmType::NuSvr
        );
        if uses_nu && !(self.nu > 0.0 && self.nu <= 1.0) {
            return Err(Error::param(
                "nu",
                format!("must be in (0, 1], got {}", self.nu),
            ));
        }
        if self.svm_type == SvmType::EpsilonSvr {
            non_negative_finite("epsilon", self.epsilon)?;
        }
        for &(label, w) in &self.class_weights {
            positive_finite(&format!("weight of class {label}"), w)?;
        }
        if self.probability && !self.svm_type.is_classifier() {
            return Err(Error::param(
                "probability",
                format!(
                    "probability estimates are available for classification only, not {}",
                    self.svm_type
                ),
            ));
        }
        self.solver.validate()
    }
}

/// What the solver reported while fitting.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SvmFitInfo {
    /// Dual objective of each binary subproblem (one per class pair; one for SVR/one-class).
    pub objectives: Vec<f64>,
    /// SMO iterations summed over subproblems.
    pub iterations: usize,
    /// SMO iterations of each subproblem (class pairs in the model's order; one entry
    /// for SVR / one-class), as scikit-learn's `n_iter_`.
    #[serde(default)]
    pub subproblem_iterations: Vec<usize>,
    /// Bounded support vectors summed over subproblems.
    pub n_bounded: usize,
    /// ν-SVC: C of each pair; ν-SVR: the ε found.
    pub derived: Vec<f64>,
    /// True if any subproblem stopped at the iteration cap.
    pub hit_max_iter: bool,
}

/// A fitted kernel machine in LIBSVM's layout.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SvmModel {
    /// Parameters it was trained with.
    pub params: SvmParams,
    /// Number of input features (for a precomputed kernel: training points).
    pub n_features: usize,
    /// Classes in LIBSVM order (first appearance; `+1` first for ±1 labels). Empty for
    /// regression and one-class.
    pub classes: Vec<f64>,
    /// Support vectors per class (classification).
    pub n_sv_per_class: Vec<usize>,
    /// Support vectors, grouped by class (no columns for a precomputed kernel; no rows
    /// when the model was fitted on sparse features, see `sparse_support_vectors`).
    pub support_vectors: Features,
    /// The support vectors of a model fitted on sparse features, in CSR form (the file
    /// then grows with their non-zeros, not with `n_sv × n_features`); absent otherwise,
    /// and absent from files written before sparse fitting existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sparse_support_vectors: Option<SparseFeatures>,
    /// Training-set row of each support vector (0-based).
    pub sv_indices: Vec<usize>,
    /// `sv_coef[k][s]`: coefficient of support vector `s` in the pairs of its class
    /// (LIBSVM layout; one row for binary, regression and one-class).
    pub sv_coef: Vec<Vec<f64>>,
    /// Offsets, one per class pair (`f = Σ coef·k − rho`).
    pub rho: Vec<f64>,
    /// Platt sigmoid parameters per class pair (empty without probabilities). A
    /// regression model read from a LIBSVM model file may hold one value: LIBSVM's
    /// `probA`, the scale σ of its Laplace noise model.
    pub prob_a: Vec<f64>,
    /// See `prob_a`.
    pub prob_b: Vec<f64>,
    /// Solver report.
    pub info: SvmFitInfo,
    /// Coefficients of each subproblem in its own point order (class pair, or the whole
    /// problem): what a warm start for a larger C needs. Not saved.
    #[serde(skip)]
    pub subproblem_coef: Vec<Vec<f64>>,
}

/// Equal when they predict the same: every saved field (the warm-start state is not).
impl PartialEq for SvmModel {
    fn eq(&self, o: &Self) -> bool {
        self.params == o.params
            && self.n_features == o.n_features
            && self.classes == o.classes
            && self.n_sv_per_class == o.n_sv_per_class
            && self.support_vectors == o.support_vectors
            && self.sparse_support_vectors == o.sparse_support_vectors
            && self.sv_indices == o.sv_indices
            && self.sv_coef == o.sv_coef
            && self.rho == o.rho
            && self.prob_a == o.prob_a
            && self.prob_b == o.prob_b
            && self.info == o.info
    }
}

/// One [`CSvcPath`] per class pair, carried between calls of
/// [`SvmModel::fit_source_path`] on the same points.
#[derive(Default)]
pub struct SvmPaths<'a> {
    pairs: Vec<CSvcPath<'a>>,
}

/// How `fit_classifier` solves each class pair.
enum PairSolver<'p, 'a> {
    /// Afresh, warm-started from `WarmStart` when given.
    Fresh(Option<WarmStart<'p>>),
    /// Continuing each pair's path.
    Path(&'p mut SvmPaths<'a>),
}

impl SvmModel {
    /// Trains on features `x` with labels (classification) or targets (regression) `y`;
    /// `y` is ignored for one-class. With [`Kernel::Precomputed`], `x` is the `n × n`
    /// training Gram matrix.
    pub fn fit(params: &SvmParams, x: &Features, y: &[f64]) -> Result<Self> {
        Self::fit_weighted(params, x, y, None)
    }

    /// [`SvmModel::fit`] with per-sample weights `weights` (one per row of `x`), as
    /// LIBSVM's weighted variant and scikit-learn's `sample_weight`: point `t` of class
    /// `y_t` gets the bound `C_t = C · w_t · class_weight(y_t)` (ν-SVC and one-class: the
    /// box `[0, w_t]` of their scaled duals). Points of zero or negative weight are left
    /// out of the fit (as LIBSVM's `remove_zero_weight`); `sv_indices` still index the
    /// rows of `x`.
    pub fn fit_weighted(
        params: &SvmParams,
        x: &Features,
        y: &[f64],
        weights: Option<&[f64]>,
    ) -> Result<Self> {
        Self::fit_features(params, x, y, weights, None)
    }

    /// Fits on feature rows (or a precomputed Gram matrix) from `warm` when given.
    pub(super) fn fit_features(
        params: &SvmParams,
        x: &Features,
        y: &[f64],
        weights: Option<&[f64]>,
        warm: Option<WarmStart<'_>>,
    ) -> Result<Self> {
        params.validate(x.n_cols())?;
        x.check_training(y, params.svm_type != SvmType::OneClass)?;
        let mut model = match &params.kernel {
            Kernel::Precomputed => {
                let source = PrecomputedKernel::from_features(x)?;
                Self::fit_source_warm(params, &source, y, weights, warm)?
            }
            k => {
                let source = FeatureKernel::new(k, x)?;
                Self::fit_source_warm(params, &source, y, weights, warm)?
            }
        };
        model.n_features = x.n_cols();
        if !matches!(params.kernel, Kernel::Precomputed) {
            model.support_vectors = x.select_rows(&model.sv_indices);
        }
        Ok(model)
    }

    /// Trains on any kernel (learned kernels plug in here). The returned model has
    /// `sv_indices` but no support-vector features: predict with
    /// [`SvmModel::decision_from_kernel`].
    pub fn fit_source(params: &SvmParams, source: &dyn KernelSource, y: &[f64]) -> Result<Self> {
        Self::fit_source_warm(params, source, y, None, None)
    }

    /// [`SvmModel::fit_source`] warm-started from `warm`: a model fitted on the same
    /// points and labels with a smaller (or equal) C and otherwise equal parameters, so
    /// that its dual solution is feasible (used along increasing C in grid search), or
    /// per-row duals of a binary C-SVC. C-SVC and ε-SVR (from a model) start from it; the
    /// other formulations ignore it. `weights` are per-sample weights as in
    /// [`SvmModel::fit_weighted`].
    pub(crate) fn fit_source_warm(
        params: &SvmParams,
        source: &dyn KernelSource,
        y: &[f64],
        weights: Option<&[f64]>,
        warm: Option<WarmStart<'_>>,
    ) -> Result<Self> {
        if let Some(w) = weights {
            let kept = positive_weight_points(params.svm_type, y, w, source.len())?;
            if kept.len() < w.len() {
                // Solve on the points that carry weight, then index the training rows.
                let sub = SubsetSource::new(source, kept.clone());
                let sub_y: Vec<f64> = kept.iter().filter_map(|&i| y.get(i).copied()).collect();
                let sub_w: Vec<f64> = kept.iter().map(|&i| w[i]).collect();
                // Per-row starts come without weights (`fit_from_alpha`): a model start
                // is the only one that reaches here.
                debug_assert!(!matches!(warm, Some(WarmStart::RowAlpha(_))));
                let mut model = Self::fit_source_warm(params, &sub, &sub_y, Some(&sub_w), warm)?;
                for i in &mut model.sv_indices {
                    *i = kept[*i];
                }
                return Ok(model);
            }
        }
        let previous = match warm {
            Some(WarmStart::Model(m)) => Some(m),
            _ => None,
        };
        let warm_coef = |k: usize| {
            previous
                .and_then(|m| m.subproblem_coef.get(k))
                .map(Vec::as_slice)
        };
        let settings = params.solver;
        settings.validate()?;
        let mut model = Self::empty(params)?;
        if params.svm_type.is_classifier() {
            model.fit_classifier(source, y, weights, &settings, PairSolver::Fresh(warm))?;
        } else {
            let (c, w) = (params.c, weights);
            let sol = match params.svm_type {
                SvmType::OneClass => solve_one_class_weighted(source, w, params.nu, &settings)?,
                SvmType::EpsilonSvr => {
                    let eps = params.epsilon;
                    solve_epsilon_svr_weighted(source, y, w, c, eps, &settings, warm_coef(0))?
                }
                _ => solve_nu_svr_weighted(source, y, w, c, params.nu, &settings)?,
            };
            model.record(&sol);
            model.sv_indices = (0..sol.coef.len())
                .filter(|&i| sol.coef[i] != 0.0)
                .collect();
            model.sv_coef = vec![model.sv_indices.iter().map(|&i| sol.coef[i]).collect()];
            model.rho = vec![sol.rho];
            model.subproblem_coef = vec![sol.coef];
        }
        Ok(model)
    }

    /// C-SVC like [`SvmModel::fit_source`], continuing the solver state of the previous
    /// call with the same `paths` (same source, labels and parameters except a C at least
    /// as large): each class pair is one [`CSvcPath`], so along growing C no kernel row
    /// is recomputed (when the pair's `Q` fits the cache budget) and each solve starts
    /// from the last. Grid search walks C this way. The first call equals `fit_source`.
    pub fn fit_source_path<'a>(
        params: &SvmParams,
        source: &'a dyn KernelSource,
        y: &[f64],
        paths: &mut SvmPaths<'a>,
    ) -> Result<Self> {
        Self::fit_source_path_weighted(params, source, y, None, paths)
    }

    /// [`SvmModel::fit_source_path`] with positive per-sample weights (each point's
    /// bound is its class bound times its weight).
    pub(crate) fn fit_source_path_weighted<'a>(
        params: &SvmParams,
        source: &'a dyn KernelSource,
        y: &[f64],
        weights: Option<&[f64]>,
        paths: &mut SvmPaths<'a>,
    ) -> Result<Self> {
        if params.svm_type != SvmType::CSvc {
            return Err(Error::param(
                "svm_type",
                format!("paths along C are for C-SVC, not {:?}", params.svm_type),
            ));
        }
        let settings = params.solver;
        settings.validate()?;
        let mut model = Self::empty(params)?;
        model.fit_classifier(source, y, weights, &settings, PairSolver::Path(paths))?;
        Ok(model)
    }

    /// A model with `params` and nothing fitted yet.
    pub(super) fn empty(params: &SvmParams) -> Result<Self> {
        Ok(SvmModel {
            params: params.clone(),
            n_features: 0,
            classes: Vec::new(),
            n_sv_per_class: Vec::new(),
            support_vectors: Features::new(0, 0, Vec::new())?,
            sparse_support_vectors: None,
            sv_indices: Vec::new(),
            sv_coef: Vec::new(),
            rho: Vec::new(),
            prob_a: Vec::new(),
            prob_b: Vec::new(),
            info: SvmFitInfo::default(),
            subproblem_coef: Vec::new(),
        })
    }

    fn record(&mut self, sol: &DualSolution) {
        self.info.objectives.push(sol.objective);
        self.info.iterations += sol.iterations;
        self.info.subproblem_iterations.push(sol.iterations);
        self.info.n_bounded += sol.n_bounded;
        self.info.hit_max_iter |= sol.hit_max_iter;
        if let Some(d) = sol.derived {
            self.info.derived.push(d);
        }
    }

    /// One-vs-one training as LIBSVM's `svm_train` for classifiers.
    fn fit_classifier<'a>(
        &mut self,
        source: &'a dyn KernelSource,
        y: &[f64],
        weights: Option<&[f64]>,
        settings: &SolverSettings,
        mut pair_solver: PairSolver<'_, 'a>,
    ) -> Result<()> {
        let (classes, members) = ordered_class_groups(y, self.params.class_order);
        if classes.len() < 2 {
            return Err(Error::data(format!(
                "only one class ({}) in the training data; classification needs at least two",
                classes.first().copied().unwrap_or(f64::NAN)
            )));
        }
        for &(label, _) in &self.params.class_weights {
            if !classes.contains(&label) {
                return Err(Error::param(
                    "class weight",
                    format!("class {label} does not occur in the training labels {classes:?}"),
                ));
            }
        }
        let weighted_c: Vec<f64> = classes
            .iter()
            .map(|&l| {
                let w = self
                    .params
                    .class_weights
                    .iter()
                    .find(|(cl, _)| *cl == l)
                    .map_or(1.0, |&(_, w)| w);
                self.params.c * w
            })
            .collect();
        let k = classes.len();
        let mut nonzero: Vec<Vec<bool>> = members.iter().map(|m| vec![false; m.len()]).collect();
        let mut pair_coef: Vec<Vec<f64>> = Vec::new();
        let mut rng = ChaCha8Rng::seed_from_u64(self.params.seed);
        for i in 0..k {
            for j in i + 1..k {
                let idx: Vec<usize> = members[i].iter().chain(&members[j]).copied().collect();
                let sub_y: Vec<f64> = std::iter::repeat_n(1.0, members[i].len())
                    .chain(std::iter::repeat_n(-1.0, members[j].len()))
                    .collect();
                let sub = SubsetSource::new(source, idx.clone());
                let sub_w: Option<Vec<f64>> = weights.map(|w| idx.iter().map(|&t| w[t]).collect());
                let sub_w = sub_w.as_deref();
                let (cp, cn) = (weighted_c[i], weighted_c[j]);
                if self.params.probability {
                    let (a, b) =
                        self.binary_probability(&sub, &sub_y, sub_w, (cp, cn), settings, &mut rng)?;
                    self.prob_a.push(a);
                    self.prob_b.push(b);
                }
                let pair = pair_coef.len();
                let sol = match &mut pair_solver {
                    PairSolver::Fresh(start) => {
                        let warm = match *start {
                            Some(WarmStart::Model(m)) => m.subproblem_coef.get(pair).map(|coef| {
                                let ratio = self.params.c / m.params.c;
                                let old = (cp / ratio, cn / ratio);
                                seed_alpha(coef, &sub_y, sub_w, old, (cp, cn))
                            }),
                            Some(WarmStart::RowAlpha(a)) => {
                                Some(idx.iter().map(|&t| a[t]).collect())
                            }
                            None => None,
                        };
                        let warm = warm.as_deref();
                        self.solve_binary(&sub, &sub_y, sub_w, (cp, cn), settings, warm)?
                    }
                    PairSolver::Path(paths) => {
                        if paths.pairs.len() == pair {
                            let owned = SubsetSource::new(source, idx);
                            let path = CSvcPath::new_weighted(owned, &sub_y, sub_w, settings)?;
                            paths.pairs.push(path);
                        }
                        paths.pairs[pair].solve(cp, cn)?
                    }
                };
                self.record(&sol);
                self.rho.push(sol.rho);
                let ni = members[i].len();
                for (t, &c) in sol.coef.iter().enumerate() {
                    if c != 0.0 {
                        if t < ni {
                            nonzero[i][t] = true;
                        } else {
                            nonzero[j][t - ni] = true;
                        }
                    }
                }
                pair_coef.push(sol.coef);
            }
        }
        self.layout_support_vectors(&classes, &members, &nonzero, &pair_coef);
        self.classes = classes;
        self.subproblem_coef = pair_coef;
        Ok(())
    }

    fn solve_binary(
        &self,
        source: &dyn KernelSource,
        y: &[f64],
        weights: Option<&[f64]>,
        (cp, cn): (f64, f64),
        settings: &SolverSettings,
        warm_alpha: Option<&[f64]>,
    ) -> Result<DualSolution> {
        match self.params.svm_type {
            SvmType::NuSvc => solve_nu_svc_weighted(source, y, weights, self.params.nu, settings),
            _ => solve_c_svc_weighted(source, y, weights, cp, cn, settings, warm_alpha),
        }
    }

    /// Stores support vectors grouped by class and their coefficients in LIBSVM's
    /// `sv_coef` layout: for pair (i, j), class-i SVs in row j−1, class-j SVs in row i.
    fn layout_support_vectors(
        &mut self,
        classes: &[f64],
        members: &[Vec<usize>],
        nonzero: &[Vec<bool>],
        pair_coef: &[Vec<f64>],
    ) {
        let k = classes.len();
        self.n_sv_per_class = nonzero
            .iter()
            .map(|nz| nz.iter().filter(|&&b| b).count())
            .collect();
        let start = self.sv_starts();
        let total: usize = self.n_sv_per_class.iter().sum();
        self.sv_indices = members
            .iter()
            .zip(nonzero)
            .flat_map(|(m, nz)| m.iter().zip(nz).filter(|(_, &b)| b).map(|(&i, _)| i))
            .collect();
        self.sv_coef = vec![vec![0.0; total]; k - 1];
        let mut p = 0;
        for i in 0..k {
            for j in i + 1..k {
                let ni = members[i].len();
                let coef = &pair_coef[p];
                let mut q = start[i];
                for t in 0..ni {
                    if nonzero[i][t] {
                        self.sv_coef[j - 1][q] = coef[t];
                        q += 1;
                    }
                }
                q = start[j];
                for t in 0..members[j].len() {
                    if nonzero[j][t] {
                        self.sv_coef[i][q] = coef[ni + t];
                        q += 1;
                    }
                }
                p += 1;
            }
        }
    }

    /// Platt's sigmoid on 5-fold cross-validated decision values (LIBSVM's
    /// `svm_binary_svc_probability`), with a seeded shuffle.
    fn binary_probability(
        &self,
        source: &dyn KernelSource,
        y: &[f64],
        weights: Option<&[f64]>,
        bounds: (f64, f64),
        settings: &SolverSettings,
        rng: &mut ChaCha8Rng,
    ) -> Result<(f64, f64)> {
        let l = y.len();
        let mut perm: Vec<usize> = (0..l).collect();
        perm.shuffle(rng);
        let folds = 5;
        let mut dec = vec![0.0; l];
        for f in 0..folds {
            let (begin, end) = (f * l / folds, (f + 1) * l / folds);
            let train: Vec<usize> = perm[..begin].iter().chain(&perm[end..]).copied().collect();
            let train_y: Vec<f64> = train.iter().map(|&t| y[t]).collect();
            let n_pos = train_y.iter().filter(|&&v| v > 0.0).count();
            let constant = match (n_pos, train.len() - n_pos) {
                (0, 0) => Some(0.0),
                (_, 0) => Some(1.0),
                (0, _) => Some(-1.0),
                _ => None,
            };
            if let Some(v) = constant {
                for &t in &perm[begin..end] {
                    dec[t] = v;
                }
                continue;
            }
            let sub = SubsetSource::new(source, train.clone());
            let train_w: Option<Vec<f64>> = weights.map(|w| train.iter().map(|&t| w[t]).collect());
            let sol =
                self.solve_binary(&sub, &train_y, train_w.as_deref(), bounds, settings, None)?;
            let sv: Vec<(usize, f64)> = train
                .iter()
                .zip(&sol.coef)
                .filter(|(_, &c)| c != 0.0)
                .map(|(&t, &c)| (t, c))
                .collect();
            let sv_idx: Vec<usize> = sv.iter().map(|&(t, _)| t).collect();
            let mut row = vec![0f32; sv.len()];
            for &t in &perm[begin..end] {
                source.fill_row(t, &sv_idx, &mut row);
                dec[t] = sv
                    .iter()
                    .zip(&row)
                    .map(|((_, c), &k)| c * k as f64)
                    .sum::<f64>()
                    - sol.rho;
            }
        }
        Ok(sigmoid_train(&dec, y))
    }

    /// Index of each class's first support vector (they are grouped by class).
    pub(super) fn sv_starts(&self) -> Vec<usize> {
        let mut start = Vec::with_capacity(self.n_sv_per_class.len());
        let mut acc = 0;
        for &n in &self.n_sv_per_class {
            start.push(acc);
            acc += n;
        }
        start
    }

    /// Number of support vectors.
    pub fn n_support(&self) -> usize {
        self.sv_indices.len()
    }

    /// Decision values of one point from its kernel values against the support vectors
    /// (`k_sv[s] = k(x, sv_s)`). Class pairs in LIBSVM order (0,1), (0,2), …, (1,2), …;
    /// positive means the first class of the pair.
    pub fn decision_from_kernel(&self, k_sv: &[f64]) -> Vec<f64> {
        if self.classes.is_empty() {
            let s: f64 = self.sv_coef[0].iter().zip(k_sv).map(|(c, k)| c * k).sum();
            return vec![s - self.rho[0]];
        }
        let k = self.classes.len();
        let start = self.sv_starts();
        let mut out = Vec::with_capacity(self.rho.len());
        let mut p = 0;
        for i in 0..k {
            for j in i + 1..k {
                let (si, sj) = (start[i], start[j]);
                let (ci, cj) = (self.n_sv_per_class[i], self.n_sv_per_class[j]);
                // Summed in order: stored models predict the bits their fixtures hold
                // (tests/model_compat.rs).
                let a: f64 = (si..si + ci)
                    .map(|s| self.sv_coef[j - 1][s] * k_sv[s])
                    .sum();
                let b: f64 = (sj..sj + cj).map(|s| self.sv_coef[i][s] * k_sv[s]).sum();
                out.push(a + b - self.rho[p]);
                p += 1;
            }
        }
        out
    }

    /// Decision values of many points at once from their kernel values against every
    /// training point: row `t` of `k` (row-major, `n_train` columns indexed like the
    /// training set, `f32` as Gram matrices are held) holds `k(x_t, x_s)` for all
    /// training points `s`. Each class pair's coefficients are spread over the training
    /// set once, so a point costs one dense dot product per pair (grid search scores
    /// every fold this way).
    pub fn decision_from_train_kernel(&self, k: &[f32], n_train: usize) -> Vec<Vec<f64>> {
        decisions_from_train_kernel(&[self], k, n_train)
            .pop()
            .unwrap_or_default()
    }

    /// Coefficients of each decision function (class pair, or the only one) over all
    /// `n_train` training points, zero off the support vectors.
    fn pair_weights(&self, n_train: usize) -> Vec<Vec<f64>> {
        let spread = |coef: &[f64], range: std::ops::Range<usize>, w: &mut [f64]| {
            for s in range {
                w[self.sv_indices[s]] = coef[s];
            }
        };
        if self.classes.is_empty() {
            let mut w = vec![0.0; n_train];
            spread(&self.sv_coef[0], 0..self.sv_indices.len(), &mut w);
            return vec![w];
        }
        let k = self.classes.len();
        let start = self.sv_starts();
        let mut out = Vec::with_capacity(self.rho.len());
        for i in 0..k {
            for j in i + 1..k {
                let mut w = vec![0.0; n_train];
                spread(
                    &self.sv_coef[j - 1],
                    start[i]..start[i] + self.n_sv_per_class[i],
                    &mut w,
                );
                spread(
                    &self.sv_coef[i],
                    start[j]..start[j] + self.n_sv_per_class[j],
                    &mut w,
                );
                out.push(w);
            }
        }
        out
    }

    /// Prediction from one point's decision values: the vote winner (classification;
    /// ties go to the earlier class, as LIBSVM), the value (regression), ±1 (one-class).
    pub(crate) fn predict_from_decision(&self, dec: &[f64]) -> f64 {
        match self.params.svm_type {
            SvmType::OneClass => {
                if dec[0] > 0.0 {
                    1.0
                } else {
                    -1.0
                }
            }
            SvmType::EpsilonSvr | SvmType::NuSvr => dec[0],
            _ => vote(&self.classes, dec),
        }
    }

    /// Class probabilities (in `classes` order) from decision values; needs a model fitted
    /// with `probability = true`.
    pub(crate) fn probabilities_from_decision(&self, dec: &[f64]) -> Result<Vec<f64>> {
        if self.prob_a.is_empty() || self.classes.is_empty() {
            return Err(Error::param(
                "probability",
                "the model was trained without probability estimates (fit with probability on)",
            ));
        }
        let k = self.classes.len();
        let min_prob = 1e-7;
        let mut r = vec![vec![0.0; k]; k];
        let mut p = 0;
        for i in 0..k {
            for j in i + 1..k {
                let v = sigmoid_predict(dec[p], self.prob_a[p], self.prob_b[p])
                    .clamp(min_prob, 1.0 - min_prob);
                r[i][j] = v;
                r[j][i] = 1.0 - v;
                p += 1;
            }
        }
        Ok(if k == 2 {
            vec![r[0][1], r[1][0]]
        } else {
            couple_pairwise(&r)
        })
    }

    /// Checks a prediction input: column count and finiteness.
    fn check_query(&self, x: &Features) -> Result<()> {
        if x.n_cols() != self.n_features {
            return Err(Error::data(format!(
                "the model was fitted on {} features, the input has {}",
                self.n_features,
                x.n_cols()
            )));
        }
        x.check_finite("input")
    }

    /// Decision values of every row of `x` (see [`SvmModel::decision_from_kernel`]).
    /// With a precomputed kernel, row `i` of `x` holds `k(x_i, train_t)` for every
    /// training point `t`.
    pub fn decision_function(&self, x: &Features) -> Result<Vec<Vec<f64>>> {
        self.check_query(x)?;
        if let Some(sv) = &self.sparse_support_vectors {
            return self.decision_sparse_sv(sv, &SparseFeatures::from_dense(x)?);
        }
        if matches!(self.params.kernel, Kernel::Precomputed) {
            return Ok((0..x.n_rows())
                .into_par_iter()
                .map(|i| {
                    let row = x.row(i);
                    let k: Vec<f64> = self.sv_indices.iter().map(|&t| row[t]).collect();
                    self.decision_from_kernel(&k)
                })
                .collect());
        }
        // Streamed in cache-sized blocks: each test point's kernel values against the
        // support vectors are reduced to its decision values as soon as they exist.
        self.params
            .kernel
            .map_cross(x, &self.support_vectors, |k| self.decision_from_kernel(k))
    }

    /// Predicted class, value or ±1 for every row of `x`.
    pub fn predict(&self, x: &Features) -> Result<Vec<f64>> {
        Ok(self
            .decision_function(x)?
            .iter()
            .map(|d| self.predict_from_decision(d))
            .collect())
    }

    /// Class probabilities for every row of `x` (columns in `classes` order).
    pub fn predict_proba(&self, x: &Features) -> Result<Vec<Vec<f64>>> {
        self.decision_function(x)?
            .iter()
            .map(|d| self.probabilities_from_decision(d))
            .collect()
    }
}

/// [`SvmModel::decision_from_train_kernel`] of several models fitted on the same
/// training points (grid search: every C of a fold), `[model][point][pair]`, with the
/// same values bit for bit. Points are taken four at a time, so each coefficient
/// vector is read once per four rows of `k` instead of once per row.
pub(crate) fn decisions_from_train_kernel(
    models: &[&SvmModel],
    k: &[f32],
    n_train: usize,
) -> Vec<Vec<Vec<f64>>> {
    let n = n_train.max(1);
    let functions: Vec<(usize, Vec<f64>, f64)> = models
        .iter()
        .enumerate()
        .flat_map(|(m, model)| {
            let weights = model.pair_weights(n_train);
            weights
                .into_iter()
                .zip(model.rho.iter().copied())
                .map(move |(w, rho)| (m, w, rho))
        })
        .collect();
    let n_points = k.len() / n;
    let mut out: Vec<Vec<Vec<f64>>> = models
        .iter()
        .map(|m| vec![Vec::with_capacity(m.rho.len()); n_points])
        .collect();
    for (b, block) in k.chunks_exact(n).collect::<Vec<_>>().chunks(4).enumerate() {
        for (m, w, rho) in &functions {
            let mut values = [0.0; 4];
            match block {
                [r0, r1, r2, r3] if n_train > 0 => values = weighted_sums4([r0, r1, r2, r3], w),
                rows => {
                    for (v, row) in values.iter_mut().zip(rows) {
                        *v = weighted_sum(row, w);
                    }
                }
            }
            for (p, v) in values[..block.len()].iter().enumerate() {
                out[*m][4 * b + p].push(v - rho);
            }
        }
    }
    out
}
