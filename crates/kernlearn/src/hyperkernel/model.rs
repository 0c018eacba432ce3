//! Fitting a hyperkernel machine (sections 5–7) and the fitted model.

use super::kernels::{ExplicitTerm, Hyperkernel, HyperkernelKind};
use super::learned::LearnedKernel;
use super::lowrank::{factor_pairs, Pairs};
use super::program::{Problem, ProgramInput, ProgramSolution, WorkingSetRound};
use crate::data::Features;
use crate::kernel::Kernel;
use crate::predictor::{FitSummary, Predictor, Task};
use crate::svm::{solve_c_svc, solve_nu_svc, solve_nu_svr, solve_one_class, SolverSettings};
use crate::{Error, Result};
use faer::{Accum, Mat, Par};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// Parameters of a hyperkernel fit. Defaults are the untuned settings of section 7.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct HyperkernelParams {
    /// The quality functional (default C-SVM, Example 7).
    pub problem: Problem,
    /// The hyperkernel (default ARD (14), the paper's choice).
    pub hyperkernel: HyperkernelKind,
    /// `λ_h` of the harmonic / ARD hyperkernels (default 0.6).
    pub lambda_h: f64,
    /// Hyperkernel regularisation `λ_Q` (default 1).
    pub lambda_q: f64,
    /// Vapnik-style `C` on the summed slacks, `1/(λm)` in the paper (default 100).
    pub c: f64,
    /// `ν`; default 0.3, or 0.1 for novelty detection.
    pub nu: Option<f64>,
    /// Base-kernel widths are this factor times the 90 % quantile of the pairwise
    /// distances (per dimension for ARD) on a 20 % sample of the training data (default 50).
    pub width_factor: f64,
    /// Tolerance `δ` of the incomplete Cholesky of the hyperkernel matrix on the residual
    /// trace (default 1e-6, section 7.1).
    pub delta: f64,
    /// Largest number of expansion pairs (rank of the factorisation; default 100).
    pub max_rank: usize,
    /// Iteration cap of the conic solver (default 200).
    pub max_iter: u32,
    /// Seed of the 20 % sample of the width rule.
    pub seed: u64,
}

impl Default for HyperkernelParams {
    fn default() -> Self {
        Self {
            problem: Problem::CSvm,
            hyperkernel: HyperkernelKind::Ard,
            lambda_h: 0.6,
            lambda_q: 1.0,
            c: 100.0,
            nu: None,
            width_factor: 50.0,
            delta: 1e-6,
            max_rank: 100,
            max_iter: 200,
            seed: 0,
        }
    }
}

impl HyperkernelParams {
    /// `ν` in use.
    pub fn nu(&self) -> f64 {
        self.nu.unwrap_or(if self.problem == Problem::OneClass {
            0.1
        } else {
            0.3
        })
    }

    /// Checks every parameter's domain.
    pub(crate) fn validate(&self) -> Result<()> {
        if !(self.lambda_h > 0.0 && self.lambda_h < 1.0) {
            return Err(Error::param(
                "lambda-h",
                format!(
                    "λ_h must lie in (0, 1) (harmonic series (12)), got {}",
                    self.lambda_h
                ),
            ));
        }
        crate::check::positive_finite("lambda-q", self.lambda_q)?;
        crate::check::positive_finite("c", self.c)?;
        let nu = self.nu();
        if !(nu > 0.0 && nu <= 1.0) {
            return Err(Error::param(
                "nu",
                format!("ν must lie in (0, 1], got {nu}"),
            ));
        }
        crate::check::positive_finite("hk-width-factor", self.width_factor)?;
        crate::check::non_negative_finite("hk-delta", self.delta)?;
        if self.max_rank == 0 {
            return Err(Error::param("hk-rank", "the rank cap must be at least 1"));
        }
        if self.max_iter == 0 {
            return Err(Error::param(
                "max-iter",
                "the conic solver needs at least one iteration",
            ));
        }
        Ok(())
    }
}

/// Where the hypothesis came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Hypothesis {
    /// From the conic program's variables (the dual variables of the margin constraints
    /// and the offset), as the paper does.
    Conic,
    /// Our SMO refitted on the learned kernel (the paper's remedy when the recovery is
    /// numerically poor; always for kernel-target alignment).
    SmoRefit,
}

/// What the fit reported.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HyperkernelInfo {
    /// Rank reached by the incomplete Cholesky (expansion pairs offered to the program).
    pub rank: usize,
    /// Residual trace of the factorisation when it stopped.
    pub residual_trace: f64,
    /// Dimension of the kernel basis `Q` of the conic program.
    pub basis_rank: usize,
    /// Expansion pairs with `β > 0` kept in the learned kernel.
    pub terms: usize,
    /// Optimal value of the conic program.
    pub objective: f64,
    /// The hyperkernel regulariser's share of the objective.
    pub regulariser: f64,
    /// Interior-point iterations.
    pub iterations: usize,
    /// Clarabel's status.
    pub status: String,
    /// Largest difference between the recovered hypothesis (exact learned kernel) and the
    /// program's own outputs on the training points, relative to the largest output.
    pub recovery_error: f64,
    /// Which hypothesis the model uses.
    pub hypothesis: Option<Hypothesis>,
    /// Seconds: factorisation (pairs, incomplete Cholesky, basis), conic solve, total.
    pub seconds_factor: f64,
    pub seconds_solve: f64,
    pub seconds_total: f64,
    /// The working-set rounds of the conic solve, in order (empty in models saved before
    /// they were recorded).
    #[serde(default)]
    pub rounds: Vec<WorkingSetRound>,
}

/// A fitted hyperkernel machine `f(x) = Σ_s coef_s k(sv_s, x) + bias` on the learned
/// kernel `k` ([`LearnedKernel`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HyperkernelModel {
    /// The parameters.
    pub params: HyperkernelParams,
    /// The learned kernel (saved with the model; usable by any estimator).
    pub kernel: LearnedKernel,
    /// Support points (training points with non-zero coefficient).
    pub support: Features,
    /// Coefficients per support point.
    pub coef: Vec<f64>,
    /// Offset.
    pub bias: f64,
    /// Classes (classification): `classes[0]` is the `+1` side.
    pub classes: Vec<f64>,
    /// What the fit reported.
    pub info: HyperkernelInfo,
}

/// The 90 % quantile of `values` (sorted in place).
fn quantile90(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    values[((values.len() - 1) as f64 * 0.9).round() as usize]
}

/// The hyperkernel of `params` on the training data `x`: widths from the 90 % quantile
/// of pairwise distances on a 20 % sample (section 7), times the width factor.
pub fn hyperkernel_for(params: &HyperkernelParams, x: &Features) -> Result<Hyperkernel> {
    let (m, d) = (x.n_rows(), x.n_cols());
    let mut idx: Vec<usize> = (0..m).collect();
    idx.shuffle(&mut ChaCha8Rng::seed_from_u64(params.seed));
    idx.truncate(((m as f64 * 0.2).ceil() as usize).max(m.min(10)));
    let pairs: Vec<(usize, usize)> = (0..idx.len())
        .flat_map(|a| (a + 1..idx.len()).map(move |b| (a, b)))
        .collect();
    let mut all: Vec<f64> = pairs
        .iter()
        .map(|&(a, b)| crate::kernel::sq_dist(x.row(idx[a]), x.row(idx[b])).sqrt())
        .collect();
    let overall = quantile90(&mut all);
    let fallback = if overall > 0.0 { overall } else { 1.0 };
    let sigma = params.width_factor * fallback;
    let lh = params.lambda_h;
    let h = match params.hyperkernel {
        HyperkernelKind::Harmonic => Hyperkernel::Harmonic {
            lambda_h: lh,
            base: Kernel::rbf_sigma(sigma)?,
        },
        HyperkernelKind::Ard => {
            let widths = (0..d)
                .map(|j| {
                    let mut v: Vec<f64> = pairs
                        .iter()
                        .map(|&(a, b)| (x.row(idx[a])[j] - x.row(idx[b])[j]).abs())
                        .collect();
                    let q = quantile90(&mut v);
                    params.width_factor * if q > 0.0 { q } else { fallback }
                })
                .collect();
            Hyperkernel::Ard {
                lambda_h: lh,
                widths,
            }
        }
        HyperkernelKind::Series(series) => Hyperkernel::PowerSeries {
            series,
            base: Kernel::rbf_sigma(sigma)?,
            scale: if series.radius().is_finite() {
                0.9
            } else {
                1.0
            },
        },
        HyperkernelKind::Explicit => Hyperkernel::Explicit {
            terms: vec![
                ExplicitTerm {
                    weight: 0.5,
                    kernel: Kernel::polynomial(2, 1.0 / (sigma * sigma), 1.0)?,
                },
                ExplicitTerm {
                    weight: 0.5,
                    kernel: Kernel::rbf_sigma(sigma)?,
                },
            ],
        },
    };
    h.validate(d)?;
    Ok(h)
}

/// Labels `±1` (`classes[0]` → +1) of a binary problem.
fn binary_labels(y: &[f64]) -> Result<(Vec<f64>, Vec<f64>)> {
    let (classes, _) = crate::multiclass::class_groups(y);
    if classes.len() != 2 {
        return Err(Error::data(format!(
            "hyperkernel classification is binary (the paper's problems (27)–(29), (32)); the \
             data have {} classes",
            classes.len()
        )));
    }
    let s = y
        .iter()
        .map(|&v| if v == classes[0] { 1.0 } else { -1.0 })
        .collect();
    Ok((s, classes))
}

/// `out[p, q] = column[b]` for the pair `b = (p, q)` (and its mirror).
fn reshape(pairs: &Pairs, column: &[f64], m: usize) -> Mat<f64> {
    let mut k = Mat::<f64>::zeros(m, m);
    for (b, &(p, q)) in pairs.pairs.iter().enumerate() {
        k[(p as usize, q as usize)] = column[b];
        k[(q as usize, p as usize)] = column[b];
    }
    k
}

/// Largest basis dimension of the conic program.
const BASIS_CAP: usize = 200;
/// Relative eigenvalue below which a basis direction or factor column is dropped.
const EIG_TOL: f64 = 1e-10;
/// Recovery error above which the hypothesis is refitted by SMO.
const RECOVERY_TOL: f64 = 1e-3;

/// `(c, b)` of `f(x) = Σ_i c_i k(x_i, x) + b` from an SMO solution.
fn dual(d: crate::svm::DualSolution) -> (Vec<f64>, f64) {
    (d.coef, -d.rho)
}

/// ν-SVC refitted by SMO on the learned Gram matrix `k` of the training points: the
/// coefficients and bias of `f(x) = Σ_i c_i k(x_i, x) + b` on the *uncentred* kernel.
///
/// At the paper's defaults the learned kernel is nearly constant (wide base Gaussians):
/// `K = c 11ᵀ + εK'` with ε down to 1e-6 of c. SMO's stopping rule is absolute (the
/// largest violating gradient gap below 1e-3), so on such a matrix it stops at its first
/// feasible point. ν-SVC's classifier is invariant to `K → s(K + const)` (the offset is
/// absorbed by b since `Σ_i α_i y_i = 0`, the scale by α and ρ), so SMO solves the
/// feature-space-centred `K̃ = s·HKH` (`H = I − 11ᵀ/m`, `s` = 1 / mean diagonal of HKH)
/// and the result is mapped back exactly:
/// `Σ_i c_i k̃(x_i, x) = s Σ_i c_i k(x_i, x) − s Σ_i c_i mean_j k(x_i, x_j)`.
fn nu_svc_refit(
    k: &Mat<f64>,
    labels: &[f64],
    nu: f64,
    settings: &SolverSettings,
) -> Result<(Vec<f64>, f64)> {
    let m = k.nrows();
    let row_mean: Vec<f64> = (0..m)
        .map(|i| (0..m).map(|j| k[(i, j)]).sum::<f64>() / m as f64)
        .collect();
    let total = row_mean.iter().sum::<f64>() / m as f64;
    let mut centred = Mat::from_fn(m, m, |i, j| k[(i, j)] - row_mean[i] - row_mean[j] + total);
    let trace = (0..m).map(|i| centred[(i, i)]).sum::<f64>() / m as f64;
    let s = if trace > 0.0 && trace.is_finite() {
        1.0 / trace
    } else {
        1.0
    };
    centred *= faer::Scale(s);
    let src = crate::kernel::PrecomputedKernel::new(centred.as_ref())?;
    let mut d = solve_nu_svc(&src, labels, nu, settings)?;
    // LIBSVM's ν-SVC divides α and ρ by the margin r; were r ≤ 0 the division would flip
    // the machine. The unscaled α y, b (r > 0: same signs) is the ν-SVM primal's solution.
    if d.derived.is_some_and(|inv_r| inv_r < 0.0) {
        d.coef.iter_mut().for_each(|c| *c = -*c);
        d.rho = -d.rho;
    }
    let shift: f64 = d.coef.iter().zip(&row_mean).map(|(c, r)| c * r).sum();
    let coef = d.coef.iter().map(|c| s * c).collect();
    Ok((coef, -d.rho - s * shift))
}

/// The conic program of a fit before it is solved (exactly what Clarabel receives):
/// the labels, the kernel basis `Q` (`m × R`), the factors `C_a` (`Qᵀ K_a Q = C_a C_aᵀ`)
/// per expansion pair and the Cholesky factor of `K̲` on the expansion pairs. Public so
/// that the same program can be handed to another solver (scripts/bench_hyperkernel.py).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ConicInputs {
    /// The problem.
    pub problem: Problem,
    /// `±1` labels (`classes[0]` → +1), targets, or zeros (novelty).
    pub labels: Vec<f64>,
    /// Classes of a classifier.
    pub classes: Vec<f64>,
    /// Right-hand side of `1ᵀβ = scale`.
    pub scale: f64,
    /// The hyperkernel with its widths.
    pub hyperkernel: Hyperkernel,
    /// Basis `Q`, `m × R`, orthonormal columns.
    pub q: Mat<f64>,
    /// `C_a`, `R × r_a`, per expansion pair.
    pub factors: Vec<Mat<f64>>,
    /// Cholesky factor `L` of `K̲` on the expansion pairs (`p × p`, row-major, lower).
    pub hyper_chol: Vec<f64>,
    /// The expansion pairs `(i, j)` (training-row indices).
    pub pairs: Vec<(usize, usize)>,
    /// Residual trace of the incomplete Cholesky.
    pub residual_trace: f64,
    /// Seconds spent building it.
    pub seconds: f64,
}

impl ConicInputs {
    /// Section 7.1 and the basis of the conic program for `params` on `(x, y)`.
    pub fn prepare(params: &HyperkernelParams, x: &Features, y: &[f64]) -> Result<Self> {
        params.validate()?;
        let start = Instant::now();
        x.check_finite("training features")?;
        let m = x.n_rows();
        if m < 2 {
            return Err(Error::data(
                "a hyperkernel fit needs at least two training points",
            ));
        }
        if y.len() != m {
            return Err(Error::data(format!(
                "{m} training points but {} labels",
                y.len()
            )));
        }
        let problem = params.problem;
        let (labels, classes, scale) = match problem.task() {
            Task::Classification => {
                let (s, c) = binary_labels(y)?;
                (s, c, 1.0)
            }
            Task::Regression => {
                let mean = y.iter().sum::<f64>() / m as f64;
                let sd =
                    (y.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (m as f64 - 1.0)).sqrt();
                if !sd.is_finite() {
                    return Err(Error::data(format!(
                        "the targets' standard deviation overflows f64 ({sd}): the \
                         scale-breaking constraint 1ᵀβ = stddev(y) needs it finite; give the \
                         targets in smaller units"
                    )));
                }
                if sd <= 0.0 {
                    return Err(Error::data(
                        "the targets are constant: the scale-breaking constraint 1ᵀβ = stddev(y) \
                         needs a positive standard deviation",
                    ));
                }
                (y.to_vec(), Vec::new(), sd)
            }
            Task::Novelty => (vec![0.0; m], Vec::new(), 1.0),
        };
        let h = hyperkernel_for(params, x)?;
        // Section 7.1: low-rank hyperkernel matrix over the training pairs.
        let pairs = Pairs::new(&h, x)?;
        let factor = factor_pairs(&h, &pairs, params.delta, params.max_rank, |_, _| {})?;
        let columns = |a: usize| -> Result<Mat<f64>> {
            let mut col = vec![0.0; pairs.len()];
            pairs.column(&h, a, &mut col)?;
            Ok(reshape(&pairs, &col, m))
        };
        let mut sum = Mat::<f64>::zeros(m, m);
        for &a in &factor.pivots {
            sum += columns(a)?;
        }
        let eig = crate::linalg::symmetric_eigen(sum.as_ref())?;
        let top = eig.values.last().copied().unwrap_or(0.0);
        let kept: Vec<usize> = (0..m)
            .rev()
            .filter(|&i| eig.values[i] > EIG_TOL * top)
            .take(BASIS_CAP)
            .collect();
        let q = Mat::<f64>::from_fn(m, kept.len(), |i, k| eig.vectors[(i, kept[k])]);
        let factors: Vec<Mat<f64>> = factor
            .pivots
            .par_iter()
            .map(|&a| -> Result<Mat<f64>> {
                let k = columns(a)?;
                let mut kq = Mat::<f64>::zeros(m, q.ncols());
                faer::linalg::matmul::matmul(
                    kq.as_mut(),
                    Accum::Replace,
                    k.as_ref(),
                    q.as_ref(),
                    1.0,
                    Par::Seq,
                );
                let mut ma = Mat::<f64>::zeros(q.ncols(), q.ncols());
                faer::linalg::matmul::matmul(
                    ma.as_mut(),
                    Accum::Replace,
                    q.transpose(),
                    kq.as_ref(),
                    1.0,
                    Par::Seq,
                );
                let e = crate::linalg::symmetric_eigen(ma.as_ref())?;
                let top = e.values.last().copied().unwrap_or(0.0);
                let cols: Vec<usize> = (0..e.values.len())
                    .filter(|&i| e.values[i] > EIG_TOL * top)
                    .collect();
                Ok(Mat::from_fn(q.ncols(), cols.len(), |r, c| {
                    e.vectors[(r, cols[c])] * e.values[cols[c]].sqrt()
                }))
            })
            .collect::<Result<_>>()?;
        Ok(Self {
            problem,
            labels,
            classes,
            scale,
            hyperkernel: h,
            q,
            factors,
            hyper_chol: factor.pivot_block(),
            pairs: factor
                .pivots
                .iter()
                .map(|&a| (pairs.pairs[a].0 as usize, pairs.pairs[a].1 as usize))
                .collect(),
            residual_trace: factor.residual_trace,
            seconds: start.elapsed().as_secs_f64(),
        })
    }

    /// Rank reached by the incomplete Cholesky (number of expansion pairs).
    pub fn rank(&self) -> usize {
        self.pairs.len()
    }

    fn program<'a>(&'a self, params: &HyperkernelParams) -> ProgramInput<'a> {
        ProgramInput {
            problem: self.problem,
            y: &self.labels,
            q: self.q.as_ref(),
            factors: &self.factors,
            hyper_chol: &self.hyper_chol,
            c: params.c,
            nu: params.nu(),
            lambda_q: params.lambda_q,
            scale: self.scale,
            max_iter: params.max_iter,
        }
    }

    /// Solves the program with Clarabel: optimal value, β (per expansion pair),
    /// interior-point iterations and seconds.
    pub fn solve(&self, params: &HyperkernelParams) -> Result<(f64, Vec<f64>, usize, f64)> {
        let t = Instant::now();
        let s = self.program(params).solve()?;
        Ok((s.objective, s.beta, s.iterations, t.elapsed().as_secs_f64()))
    }

    /// The same program solved in one piece over every expansion pair, without the
    /// working set of [`Self::solve`] (for benchmarks and to check that both reach the
    /// same optimum): optimal value, β, interior-point iterations and seconds.
    pub fn solve_full(&self, params: &HyperkernelParams) -> Result<(f64, Vec<f64>, usize, f64)> {
        let t = Instant::now();
        let s = self.program(params).solve_full()?;
        Ok((s.objective, s.beta, s.iterations, t.elapsed().as_secs_f64()))
    }
}

/// The learned kernel `k(x, x') = Σ_a β_a k̲(x̲_a, (x, x'))` (Proposition 8): the
/// expansion pairs with β > 0 (relative 1e-9 dropped).
fn learned_kernel(
    prep: &ConicInputs,
    sol: &ProgramSolution,
    x: &Features,
) -> Result<LearnedKernel> {
    let bmax = sol.beta.iter().cloned().fold(0.0, f64::max);
    let keep: Vec<usize> = (0..sol.beta.len())
        .filter(|&a| sol.beta[a] > 1e-9 * bmax)
        .collect();
    if keep.is_empty() {
        return Err(Error::numerical(
            "the conic program returned β = 0: no learned kernel",
        ));
    }
    let pair_rows = |side: usize| -> Vec<usize> {
        keep.iter()
            .map(|&t| {
                let (i, j) = prep.pairs[t];
                if side == 0 {
                    i
                } else {
                    j
                }
            })
            .collect()
    };
    LearnedKernel::new(
        prep.hyperkernel.clone(),
        x.select_rows(&pair_rows(0)),
        x.select_rows(&pair_rows(1)),
        keep.iter().map(|&t| sol.beta[t]).collect(),
    )
}

/// Largest gap, relative to the largest `|f|`, between the program's output on the
/// training points and the hypothesis `Σ_j c_j k(x_i, x_j) + b` read from its duals on
/// the learned Gram matrix `gram`.
fn relative_recovery_error(gram: &Mat<f64>, sol: &ProgramSolution) -> f64 {
    let m = gram.nrows();
    let f_rec: Vec<f64> = (0..m)
        .map(|i| (0..m).map(|j| gram[(i, j)] * sol.coef[j]).sum::<f64>() + sol.bias)
        .collect();
    let fmax = sol.f_train.iter().fold(0.0f64, |a, f| a.max(f.abs()));
    f_rec
        .iter()
        .zip(&sol.f_train)
        .fold(0.0f64, |a, (r, f)| a.max((r - f).abs()))
        / fmax.max(1e-300)
}

/// The hypothesis' `(c, b)`: the program's duals when they reproduce its output (within
/// [`RECOVERY_TOL`]), else SMO refitted on the learned Gram matrix (always for KTA,
/// whose hypothesis is a C-SVM on the learned kernel, Example 12).
fn choose_hypothesis(
    params: &HyperkernelParams,
    gram: &Mat<f64>,
    labels: &[f64],
    sol: &ProgramSolution,
    recovery_error: f64,
) -> Result<(Vec<f64>, f64, Hypothesis)> {
    let problem = params.problem;
    let m = gram.nrows();
    if !(problem == Problem::Kta || recovery_error.is_nan() || recovery_error > RECOVERY_TOL) {
        return Ok((sol.coef.clone(), sol.bias, Hypothesis::Conic));
    }
    // ν-SVM solves a centred copy; the others read the learned Gram matrix as is.
    let raw = || crate::kernel::PrecomputedKernel::new(gram.as_ref());
    let settings = SolverSettings::default();
    let (coef, bias) = match problem {
        Problem::NuSvm => nu_svc_refit(gram, labels, params.nu(), &settings)?,
        Problem::OneClass => dual(solve_one_class(&raw()?, params.nu(), &settings)?),
        Problem::NuSvr => dual(solve_nu_svr(
            &raw()?,
            labels,
            params.c * m as f64,
            params.nu(),
            &settings,
        )?),
        _ => dual(solve_c_svc(
            &raw()?,
            labels,
            params.c,
            params.c,
            &settings,
            None,
        )?),
    };
    Ok((coef, bias, Hypothesis::SmoRefit))
}

impl HyperkernelModel {
    /// Fits on training data `x` with labels / targets `y` (ignored for one-class);
    /// `progress` is called after the factorisation, the conic solve and the hypothesis.
    pub fn fit(
        params: &HyperkernelParams,
        x: &Features,
        y: &[f64],
        progress: &(dyn Fn(&str) + Sync),
    ) -> Result<Self> {
        let start = Instant::now();
        let prep = ConicInputs::prepare(params, x, y)?;
        let m = x.n_rows();
        let problem = params.problem;
        progress(&format!(
            "incomplete Cholesky of the hyperkernel matrix over {} pairs: rank {}, residual trace {:.2e}",
            m * (m + 1) / 2,
            prep.rank(),
            prep.residual_trace
        ));
        let seconds_factor = prep.seconds;
        let input = prep.program(params);
        let solve_start = Instant::now();
        let sol = input.solve()?;
        let seconds_solve = solve_start.elapsed().as_secs_f64();
        progress(&format!(
            "conic program ({}) solved by Clarabel: {} iterations, objective {:.6}",
            problem, sol.iterations, sol.objective
        ));
        let kernel = learned_kernel(&prep, &sol, x)?;
        let gram = kernel.gram(x)?;
        let recovery_error = relative_recovery_error(&gram, &sol);
        let (coef, bias, hypothesis) =
            choose_hypothesis(params, &gram, &prep.labels, &sol, recovery_error)?;
        progress(&format!(
            "hypothesis: {} (recovery error {recovery_error:.2e})",
            match hypothesis {
                Hypothesis::Conic => "from the conic program",
                Hypothesis::SmoRefit => "SMO refitted on the learned kernel",
            }
        ));
        // Interior-point duals of non-support points are tiny but not 0: drop those below
        // 1e-9 of the largest (their share of any decision value is below that).
        let cmax = coef.iter().fold(0.0f64, |a, c| a.max(c.abs()));
        let sv: Vec<usize> = (0..m).filter(|&i| coef[i].abs() > 1e-9 * cmax).collect();
        let info = HyperkernelInfo {
            rank: prep.rank(),
            residual_trace: prep.residual_trace,
            basis_rank: prep.q.ncols(),
            terms: kernel.n_terms(),
            objective: sol.objective,
            regulariser: sol.regulariser,
            iterations: sol.iterations,
            status: sol.status,
            recovery_error,
            hypothesis: Some(hypothesis),
            seconds_factor,
            seconds_solve,
            seconds_total: start.elapsed().as_secs_f64(),
            rounds: sol.rounds.clone(),
        };
        Ok(Self {
            params: params.clone(),
            kernel,
            support: x.select_rows(&sv),
            coef: sv.iter().map(|&i| coef[i]).collect(),
            bias,
            classes: prep.classes.clone(),
            info,
        })
    }

    /// `f(x)` per row of `x`.
    pub fn decision(&self, x: &Features) -> Result<Vec<f64>> {
        x.check_input(self.kernel.n_features())?;
        if self.coef.is_empty() {
            return Ok(vec![self.bias; x.n_rows()]);
        }
        let k = self.kernel.cross(&self.support, x)?;
        Ok((0..x.n_rows())
            .map(|r| {
                (0..self.coef.len())
                    .map(|s| self.coef[s] * k[(s, r)])
                    .sum::<f64>()
                    + self.bias
            })
            .collect())
    }
}

impl Predictor for HyperkernelModel {
    fn method(&self) -> String {
        "hyperkernel".into()
    }

    fn task(&self) -> Task {
        self.params.problem.task()
    }

    fn n_features(&self) -> usize {
        self.kernel.n_features()
    }

    fn predict(&self, x: &Features) -> Result<Vec<f64>> {
        Ok(self
            .decision(x)?
            .into_iter()
            .map(|f| self.predict_from_decision(&[f]))
            .collect())
    }

    fn decision_function(&self, x: &Features) -> Result<Vec<Vec<f64>>> {
        Ok(self.decision(x)?.into_iter().map(|f| vec![f]).collect())
    }

    fn params_json(&self) -> serde_json::Value {
        serde_json::json!({
            "params": self.params,
            "hyperkernel": self.kernel.hyperkernel,
        })
    }

    fn summary(&self) -> FitSummary {
        FitSummary {
            n_support: Some(self.coef.len()),
            objective: Some(self.info.objective),
            iterations: Some(self.info.iterations),
            extra: serde_json::json!({
                "problem": self.params.problem,
                "hyperkernel": self.kernel.hyperkernel.name(),
                "rank": self.info.rank,
                "residual_trace": self.info.residual_trace,
                "basis_rank": self.info.basis_rank,
                "terms": self.info.terms,
                "regulariser": self.info.regulariser,
                "status": self.info.status,
                // KTA's program has no hypothesis to recover (its SVM is always refitted).
                "recovery_error": (self.params.problem != Problem::Kta)
                    .then_some(self.info.recovery_error),
                "hypothesis": self.info.hypothesis,
                "seconds_factor": self.info.seconds_factor,
                "seconds_solve": self.info.seconds_solve,
                "seconds_total": self.info.seconds_total,
            }),
        }
    }

    fn classes(&self) -> Vec<f64> {
        self.classes.clone()
    }

    /// The conic solver's reduced-accuracy stop, and a hypothesis that did not survive
    /// recovery (the SVM then refitted on the learned kernel), are reported, not hidden.
    fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.info.status.starts_with("Almost") {
            out.push(format!(
                "the conic solver (Clarabel) stopped at reduced accuracy ({}) after {} \
                 iterations: the learned kernel's coefficients meet its tolerances only \
                 loosely",
                self.info.status, self.info.iterations
            ));
        }
        let recovered = self.info.recovery_error <= RECOVERY_TOL;
        if self.params.problem != Problem::Kta && !recovered {
            out.push(format!(
                "the conic program's hypothesis differs from the recovered learned kernel's \
                 by {:.2e} (relative): the SVM was refitted on the learned kernel by SMO",
                self.info.recovery_error
            ));
        }
        out
    }

    fn validate(&self) -> Result<()> {
        use crate::validate::{ensure, finite, finite_value, within};
        within("params", self.params.validate())?;
        within("kernel", self.kernel.validate())?;
        ensure(self.support.n_rows() == self.coef.len(), || {
            format!(
                "support has {} rows, coef {} values",
                self.support.n_rows(),
                self.coef.len()
            )
        })?;
        ensure(self.support.n_cols() == self.kernel.n_features(), || {
            format!(
                "support has {} columns, the kernel takes {}",
                self.support.n_cols(),
                self.kernel.n_features()
            )
        })?;
        finite("coef", &self.coef)?;
        finite_value("bias", self.bias)?;
        if self.task() == Task::Classification {
            crate::validate::classes("classes", &self.classes)?;
            ensure(self.classes.len() == 2, || {
                format!(
                    "classes has {} values, a binary machine needs 2",
                    self.classes.len()
                )
            })?;
        }
        Ok(())
    }

    fn predict_from_decision(&self, dec: &[f64]) -> f64 {
        match self.task() {
            Task::Classification => {
                if dec[0] > 0.0 {
                    self.classes[0]
                } else {
                    self.classes[1]
                }
            }
            Task::Regression => dec[0],
            Task::Novelty => {
                if dec[0] > 0.0 {
                    1.0
                } else {
                    -1.0
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
