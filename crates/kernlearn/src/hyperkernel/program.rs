//! The optimisation problems of section 6 (Examples 7–12) as conic programs solved by
//! Clarabel.
//!
//! The learned kernel matrix is `K(β) = Σ_a β_a K_a` over the expansion pairs `a`
//! (`K_a[p, q] = k̲(x̲_a, (x_p, x_q))`, each PSD, β ≥ 0: Proposition 8). The paper's LMI
//! `[G(β) z; zᵀ t₁] ⪰ 0` (Schur complement, `t₁ ≥ zᵀ G(β)† z`) is written here as its
//! exact second-order-cone form, which has the same optimum: in an orthonormal basis
//! `Q` (`m × R`) of the range of `Σ_a K_a`, `K_a = Q M_a Qᵀ` with `M_a = C_a C_aᵀ`, and
//!
//! `wᵀ (Σ_a β_a M_a)† w = min { Σ_a ‖u_a‖² / β_a : Σ_a C_a u_a = w }`,
//!
//! each `‖u_a‖² ≤ β_a s_a` a rotated second-order cone. The machine's output on the
//! training points is `f = Q w (+ b)` and `½ Σ_a s_a` is `½‖f‖²` in the RKHS of `K(β)`
//! (the paper's `½ t₁`); the hyperkernel regulariser `‖K̲^{½} β‖ ≤ t₂` is one more
//! second-order cone with the exact Cholesky factor of `K̲` on the expansion pairs. The
//! dual variables of the margin constraints are the SVM's `α` (the paper's `G(β)† z`),
//! from which the hypothesis `f(x) = Σ_i c_i k(x_i, x) + b` is recovered.

use crate::{Error, Result};
use clarabel::algebra::CscMatrix;
use clarabel::solver::{
    DefaultSettings, DefaultSolver, IPSolver, NonnegativeConeT, SecondOrderConeT, SolverStatus,
    SupportedConeT, ZeroConeT,
};
use faer::{Mat, MatRef};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The quality functional optimised over the hyperkernel expansion (section 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Problem {
    /// C-SVM, Example 7, SDP (27).
    CSvm,
    /// ν-SVM, Example 8, SDP (28).
    NuSvm,
    /// Lagrangian (ℓ₂-loss) SVM with regularised offset, Example 9, SDP (29).
    Lsvm,
    /// Single-class SVM (novelty detection), Example 10, SDP (30).
    OneClass,
    /// ν-regression, Example 11, SDP (31).
    NuSvr,
    /// Kernel-target alignment, Example 12, SDP (32); the hypothesis is a C-SVM on the
    /// learned kernel, as the paper prescribes.
    Kta,
}

/// Command-line names of [`Problem`].
pub(crate) const PROBLEM_NAMES: [&str; 6] =
    ["c-svm", "nu-svm", "lsvm", "one-class", "nu-svr", "kta"];

impl Problem {
    const ALL: [Problem; 6] = [
        Problem::CSvm,
        Problem::NuSvm,
        Problem::Lsvm,
        Problem::OneClass,
        Problem::NuSvr,
        Problem::Kta,
    ];

    /// Name as on the command line.
    pub fn name(self) -> &'static str {
        PROBLEM_NAMES[Self::ALL.iter().position(|p| *p == self).expect("listed")]
    }

    /// What it fits.
    pub(crate) fn task(self) -> crate::Task {
        match self {
            Problem::OneClass => crate::Task::Novelty,
            Problem::NuSvr => crate::Task::Regression,
            _ => crate::Task::Classification,
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Problem {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        PROBLEM_NAMES
            .iter()
            .position(|n| *n == s)
            .map(|i| Self::ALL[i])
            .ok_or_else(|| {
                Error::param(
                    "problem",
                    format!("`{s}` is not one of {}", PROBLEM_NAMES.join(", ")),
                )
            })
    }
}

/// A conic program `min ½xᵀPx + qᵀx` s.t. `b − Ax ∈ K`, built row block by row block
/// as affine expressions `Σ coef·x + const` that must lie in a cone.
#[derive(Default)]
pub(crate) struct Conic {
    pub n: usize,
    pub q: Vec<f64>,
    p: (Vec<usize>, Vec<usize>, Vec<f64>),
    a: (Vec<usize>, Vec<usize>, Vec<f64>),
    b: Vec<f64>,
    cones: Vec<SupportedConeT<f64>>,
}

/// An affine expression: terms `(variable, coefficient)` and a constant.
pub(crate) type Expr = (Vec<(usize, f64)>, f64);

/// What a cone block is.
#[derive(Clone, Copy)]
pub(crate) enum Cone {
    Zero,
    NonNeg,
    Soc,
}

impl Conic {
    /// `k` new variables; the index of the first.
    pub(crate) fn vars(&mut self, k: usize) -> usize {
        let start = self.n;
        self.n += k;
        self.q.resize(self.n, 0.0);
        start
    }

    /// `½ weight · x_j²` added to the objective.
    pub(crate) fn square(&mut self, j: usize, weight: f64) {
        self.p.0.push(j);
        self.p.1.push(j);
        self.p.2.push(weight);
    }

    /// The expressions, in order, must lie in one cone of kind `cone`; returns the index of
    /// the block's first row.
    pub(crate) fn push(&mut self, cone: Cone, exprs: Vec<Expr>) -> usize {
        let start = self.b.len();
        if exprs.is_empty() {
            return start;
        }
        for (r, (terms, constant)) in exprs.iter().enumerate() {
            for &(j, c) in terms {
                self.a.0.push(start + r);
                self.a.1.push(j);
                self.a.2.push(-c);
            }
            self.b.push(*constant);
        }
        let k = exprs.len();
        self.cones.push(match cone {
            Cone::Zero => ZeroConeT(k),
            Cone::NonNeg => NonnegativeConeT(k),
            Cone::Soc => SecondOrderConeT(k),
        });
        start
    }

    /// Solves the program; an infeasible, unbounded or unconverged program is an error
    /// naming the cause.
    pub(crate) fn solve(self, max_iter: u32) -> Result<ConicSolution> {
        let m = self.b.len();
        let p = CscMatrix::new_from_triplets(self.n, self.n, self.p.0, self.p.1, self.p.2);
        let a = CscMatrix::new_from_triplets(m, self.n, self.a.0, self.a.1, self.a.2);
        let settings = DefaultSettings {
            verbose: false,
            max_iter,
            ..DefaultSettings::default()
        };
        let mut solver = DefaultSolver::new(&p, &self.q, &a, &self.b, &self.cones, settings)
            .map_err(|e| {
                Error::numerical(format!(
                    "conic solver (Clarabel) refused the program: {e:?}"
                ))
            })?;
        solver.solve();
        let s = &solver.solution;
        match s.status {
            SolverStatus::Solved | SolverStatus::AlmostSolved => {}
            SolverStatus::PrimalInfeasible | SolverStatus::AlmostPrimalInfeasible => {
                return Err(Error::numerical(
                    "the hyperkernel conic program is infeasible (Clarabel found a certificate of \
                     primal infeasibility)",
                ))
            }
            SolverStatus::DualInfeasible | SolverStatus::AlmostDualInfeasible => {
                return Err(Error::numerical(
                    "the hyperkernel conic program is unbounded (Clarabel found a certificate of \
                     dual infeasibility)",
                ))
            }
            other => {
                return Err(Error::numerical(format!(
                    "the conic solver (Clarabel) stopped without converging: {other:?} after {} \
                     iterations (primal residual {:.2e}, dual residual {:.2e})",
                    s.iterations, s.r_prim, s.r_dual
                )))
            }
        }
        if s.x.iter().chain(&s.z).any(|v| !v.is_finite()) {
            return Err(Error::numerical(
                "the conic solver returned a non-finite point",
            ));
        }
        Ok(ConicSolution {
            x: s.x.clone(),
            z: s.z.clone(),
            objective: s.obj_val,
            iterations: s.iterations as usize,
            status: format!("{:?}", s.status),
        })
    }
}

/// What Clarabel returned.
#[derive(Debug)]
pub(crate) struct ConicSolution {
    pub x: Vec<f64>,
    pub z: Vec<f64>,
    pub objective: f64,
    pub iterations: usize,
    pub status: String,
}

/// Inputs of one hyperkernel program.
pub(crate) struct ProgramInput<'a> {
    pub problem: Problem,
    /// Labels `±1` (classification), targets (regression), unused for one-class.
    pub y: &'a [f64],
    /// Orthonormal basis `Q`, `m × R`.
    pub q: MatRef<'a, f64>,
    /// `C_a` (`R × r_a`) per expansion pair: `Qᵀ K_a Q = C_a C_aᵀ`.
    pub factors: &'a [Mat<f64>],
    /// Cholesky factor of `K̲` on the expansion pairs, `p × p` row-major.
    pub hyper_chol: &'a [f64],
    pub c: f64,
    pub nu: f64,
    pub lambda_q: f64,
    /// Right-hand side of the scale-breaking constraint `1ᵀβ = scale`.
    pub scale: f64,
    pub max_iter: u32,
}

/// The solved program, in the terms of the paper.
#[derive(Clone, Debug)]
pub(crate) struct ProgramSolution {
    /// Hyperkernel coefficients β (clamped at 0).
    pub beta: Vec<f64>,
    /// Coefficients `c_i` of `f(x) = Σ_i c_i k(x_i, x) + bias`, from the dual variables.
    pub coef: Vec<f64>,
    pub bias: f64,
    /// `f` on the training points as the program sees it (`Q w + b`).
    pub f_train: Vec<f64>,
    /// Optimal value.
    pub objective: f64,
    /// The hyperkernel regulariser's share of it (`λ_Q/2 · t₂`, scaled per problem).
    pub regulariser: f64,
    pub iterations: usize,
    pub status: String,
    /// One entry per restricted program solved (a single one for the whole program).
    pub rounds: Vec<WorkingSetRound>,
}

/// One solve of the working-set loop: what the restricted conic program carried and cost.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkingSetRound {
    /// Expansion pairs in the restricted program.
    pub pairs: usize,
    /// Their factor columns `Σ_a r_a` (second-order-cone coordinates of the `u_a`).
    pub factor_columns: usize,
    /// Clarabel's interior-point iterations.
    pub iterations: usize,
    /// Wall seconds of the solve (building the program included).
    pub seconds: f64,
}

/// Expansion pairs in the first working set (and the fewest added per round). Small,
/// because the cost of a solve grows with the set (its `Σ r_a` cone coordinates are
/// coupled through `Σ_a C_a u_a = w`, so each pair adds about `R²` to the LDL fill) and
/// at the paper's defaults β puts all its mass (to 1e-7) on one pair (ionosphere, sonar,
/// factors 10 and 50): 2 pairs solve those in one round, 3.5–6× faster than 8 at the same
/// objective (docs/RESULTS.md, "Hyperkernels").
const WORKING_SET_START: usize = 2;
/// Relative tolerance of the optimality check on the pairs outside the working set: the
/// full program's optimum is at most `scale · max_a (μ − d_a)` below the restricted one
/// (the Lagrangian bound of column generation), so pairs are added until that bound is
/// below this fraction of the objective (Clarabel's own relative gap tolerance).
const PRICING_TOL: f64 = 1e-8;

impl ProgramInput<'_> {
    /// Weight of `t₂ = ‖K̲^{½} β‖` in the objective.
    fn reg_weight(&self) -> f64 {
        match self.problem {
            Problem::OneClass => self.lambda_q / (2.0 * self.nu),
            _ => self.lambda_q / 2.0,
        }
    }

    /// Solves the program of `self.problem` over all expansion pairs, by a working set of
    /// pairs (column generation): the program restricted to `β_a = 0` outside the set is
    /// solved, and every pair outside is priced with the restricted optimum's
    /// multipliers. With `ν` the multiplier of `Σ_a C_a u_a = w`, the derivative of the
    /// Lagrangian in `β_a` is
    ///
    /// `d_a = −½ ‖C_aᵀ ν‖² + w_Q (K̲ β)_a / ‖K̲^{½} β‖`
    ///
    /// (`−½ αᵀ Y K_a Y α` of the paper's SDP plus the regulariser's gradient, `w_Q` its
    /// weight); on the simplex `1ᵀβ = scale` the restricted optimum is optimal for the
    /// whole program iff no pair outside has `d_a < μ` (`μ = Σ β_a d_a / Σ β_a`, the
    /// multiplier of `1ᵀβ = scale`, as every pair in the support has `d_a = μ`).
    /// Violating pairs are added and the program solved again, so the result is the
    /// optimum of the full program (to the pricing tolerance) while each solve carries
    /// only the pairs that matter: β is sparse at the optimum (the loss is linear in β
    /// and the regulariser a norm), and the cost of a solve grows with the number of
    /// factor columns `Σ_a r_a` in the program.
    pub(crate) fn solve(&self) -> Result<ProgramSolution> {
        let p = self.factors.len();
        let rdim = self.q.ncols();
        if p == 0 || rdim == 0 {
            return Err(Error::numerical(
                "the hyperkernel expansion is empty (rank 0): the incomplete Cholesky kept no \
                 pair, because the data give a zero kernel or «hk-delta» (its tolerance) is at \
                 least the hyperkernel matrix's trace",
            ));
        }
        if p <= 2 * WORKING_SET_START {
            return self.solve_full();
        }
        let mut set = self.first_working_set();
        let mut iterations = 0;
        let mut rounds = Vec::new();
        loop {
            let (mut sol, nu) = self.solve_on(&set)?;
            iterations += sol.iterations;
            sol.iterations = iterations;
            rounds.append(&mut sol.rounds);
            sol.rounds = rounds.clone();
            let d = self.pricing(&sol.beta, &nu);
            let mass: f64 = sol.beta.iter().sum();
            let mu = sol.beta.iter().zip(&d).map(|(b, d)| b * d).sum::<f64>() / mass.max(1e-300);
            let tol = PRICING_TOL * sol.objective.abs().max(1e-12) / self.scale;
            let mut inside = vec![false; p];
            set.iter().for_each(|&a| inside[a] = true);
            let mut violators: Vec<(usize, f64)> = (0..p)
                .filter(|&a| !inside[a] && d[a] < mu - tol)
                .map(|a| (a, d[a]))
                .collect();
            if violators.is_empty() || set.len() == p {
                return Ok(sol);
            }
            violators.sort_by(|x, y| x.1.total_cmp(&y.1));
            // Grow geometrically: the number of rounds stays logarithmic in p.
            let add = set.len().max(WORKING_SET_START);
            set.extend(violators.iter().take(add).map(|v| v.0));
            set.sort_unstable();
        }
    }

    /// The program over every expansion pair in one solve.
    pub(crate) fn solve_full(&self) -> Result<ProgramSolution> {
        let all: Vec<usize> = (0..self.factors.len()).collect();
        self.solve_on(&all).map(|(s, _)| s)
    }

    /// The first working set: the pairs whose `K_a` aligns best with the labels
    /// (`d_a` of the pricing with `ν = Qᵀy`, the multiplier of a machine whose dual
    /// coefficients are all equal; centred targets for regression, ones for novelty).
    fn first_working_set(&self) -> Vec<usize> {
        let (m, rdim) = (self.q.nrows(), self.q.ncols());
        let target: Vec<f64> = match self.problem.task() {
            crate::Task::Regression => {
                let mean = self.y.iter().sum::<f64>() / m as f64;
                self.y.iter().map(|v| v - mean).collect()
            }
            crate::Task::Novelty => vec![1.0; m],
            crate::Task::Classification => self.y.to_vec(),
        };
        let nu: Vec<f64> = (0..rdim)
            .map(|k| (0..m).map(|i| self.q[(i, k)] * target[i]).sum())
            .collect();
        let align = self.alignment(&nu);
        let mut order: Vec<usize> = (0..align.len()).collect();
        order.sort_by(|&a, &b| align[b].total_cmp(&align[a]));
        order.truncate(WORKING_SET_START);
        order.sort_unstable();
        order
    }

    /// `‖C_aᵀ ν‖²` per expansion pair.
    fn alignment(&self, nu: &[f64]) -> Vec<f64> {
        self.factors
            .iter()
            .map(|c| {
                (0..c.ncols())
                    .map(|l| {
                        let v: f64 = (0..c.nrows()).map(|k| c[(k, l)] * nu[k]).sum();
                        v * v
                    })
                    .sum()
            })
            .collect()
    }

    /// `d_a` of every expansion pair at `β` with the multiplier `ν` (see [`Self::solve`]).
    fn pricing(&self, beta: &[f64], nu: &[f64]) -> Vec<f64> {
        let p = beta.len();
        let l = self.hyper_chol;
        let ltb: Vec<f64> = (0..p)
            .map(|k| (k..p).map(|i| l[i * p + k] * beta[i]).sum())
            .collect();
        let norm = ltb.iter().map(|v| v * v).sum::<f64>().sqrt();
        let w_q = self.reg_weight();
        self.alignment(nu)
            .iter()
            .enumerate()
            .map(|(a, g)| {
                let kb: f64 = (0..=a).map(|k| l[a * p + k] * ltb[k]).sum();
                -0.5 * g + if norm > 0.0 { w_q * kb / norm } else { 0.0 }
            })
            .collect()
    }

    /// The program restricted to the expansion pairs `set` (`β_a = 0` elsewhere): its
    /// solution (β over all pairs) and the multiplier `ν` of `Σ_a C_a u_a = w`.
    fn solve_on(&self, set: &[usize]) -> Result<(ProgramSolution, Vec<f64>)> {
        let start = std::time::Instant::now();
        let factors: Vec<&Mat<f64>> = set.iter().map(|&a| &self.factors[a]).collect();
        let mut cp = Conic::default();
        let kernel = self.push_kernel_part(&mut cp, set, &factors);
        let loss = self.push_loss(&mut cp, kernel.w);
        let sol = cp.solve(self.max_iter)?;
        Ok(self.read_solution(set, &factors, &kernel, &loss, &sol, start))
    }

    /// The part shared by every problem: the variables β, `s`, `t₂`, `w` and `u_a`, the
    /// rotated cones `‖u_a‖² ≤ β_a s_a`, `Σ_a C_a u_a = w`, `β ≥ 0`, `1ᵀβ = scale` and the
    /// hyperkernel regulariser `‖K̲^{½} β‖ ≤ t₂` (the module doc's SOC form of the
    /// paper's LMI), with the objective `½ Σ_a s_a + w_Q t₂`.
    fn push_kernel_part(&self, cp: &mut Conic, set: &[usize], factors: &[&Mat<f64>]) -> KernelPart {
        let rdim = self.q.ncols();
        let p_all = self.factors.len();
        let p = set.len();
        let beta = cp.vars(p);
        let s = cp.vars(p);
        let t2 = cp.vars(1);
        let w = cp.vars(rdim);
        let u: Vec<usize> = factors.iter().map(|c| cp.vars(c.ncols())).collect();
        for a in 0..p {
            cp.q[s + a] = 0.5;
        }
        // ‖u_a‖² ≤ β_a s_a  ⇔  ‖(2u_a, β_a − s_a)‖ ≤ β_a + s_a.
        for a in 0..p {
            let mut rows: Vec<Expr> = vec![(vec![(beta + a, 1.0), (s + a, 1.0)], 0.0)];
            rows.extend((0..factors[a].ncols()).map(|k| (vec![(u[a] + k, 2.0)], 0.0)));
            rows.push((vec![(beta + a, 1.0), (s + a, -1.0)], 0.0));
            cp.push(Cone::Soc, rows);
        }
        // Σ_a C_a u_a = w.
        let eq: Vec<Expr> = (0..rdim)
            .map(|k| {
                let mut t: Vec<(usize, f64)> = vec![(w + k, -1.0)];
                for (a, c) in factors.iter().enumerate() {
                    t.extend((0..c.ncols()).map(|l| (u[a] + l, c[(k, l)])));
                }
                (t, 0.0)
            })
            .collect();
        let eq_row = cp.push(Cone::Zero, eq);
        cp.push(
            Cone::NonNeg,
            (0..p).map(|a| (vec![(beta + a, 1.0)], 0.0)).collect(),
        );
        cp.push(
            Cone::Zero,
            vec![((0..p).map(|a| (beta + a, 1.0)).collect(), -self.scale)],
        );
        // ‖K̲^{½} β‖ = ‖Lᵀβ‖ ≤ t₂ (rows of Lᵀ without a term in the set are 0 and left out).
        let mut reg: Vec<Expr> = vec![(vec![(t2, 1.0)], 0.0)];
        reg.extend((0..p_all).filter_map(|k| {
            let terms: Vec<(usize, f64)> = set
                .iter()
                .enumerate()
                .filter(|&(_, &i)| self.hyper_chol[i * p_all + k] != 0.0)
                .map(|(j, &i)| (beta + j, self.hyper_chol[i * p_all + k]))
                .collect();
            (!terms.is_empty()).then_some((terms, 0.0))
        }));
        cp.push(Cone::Soc, reg);
        let reg_weight = self.reg_weight();
        cp.q[t2] = reg_weight;
        KernelPart {
            beta,
            t2,
            w,
            eq_row,
            reg_weight,
        }
    }

    /// `f_i = Q_i w`: the terms of row `i` of the output on the training points.
    fn f_terms(&self, w: usize, i: usize) -> Vec<(usize, f64)> {
        (0..self.q.ncols())
            .map(|k| (w + k, self.q[(i, k)]))
            .collect()
    }

    /// The loss of `self.problem` on the output `f = Q w`: its variables, constraints and
    /// objective terms (SDPs (27)–(32) of Examples 7–12).
    fn push_loss(&self, cp: &mut Conic, w: usize) -> LossPart {
        match self.problem {
            Problem::CSvm | Problem::NuSvm | Problem::Lsvm => self.push_svm_loss(cp, w),
            Problem::OneClass => self.push_one_class_loss(cp, w),
            Problem::NuSvr => self.push_svr_loss(cp, w),
            Problem::Kta => {
                // ½ yᵀK(β)†y: w is the projection Qᵀy of the labels.
                let (m, rdim, y) = (self.q.nrows(), self.q.ncols(), self.y);
                let rows = (0..rdim)
                    .map(|k| {
                        let qy: f64 = (0..m).map(|i| self.q[(i, k)] * y[i]).sum();
                        (vec![(w + k, 1.0)], -qy)
                    })
                    .collect();
                cp.push(Cone::Zero, rows);
                LossPart {
                    margin: usize::MAX,
                    margin2: None,
                    b: None,
                    rho: None,
                }
            }
        }
    }

    /// The classifiers' margins `y_i (f_i + b) ≥ 1 − ζ_i` (`≥ ρ − ζ_i` for the ν-SVM) and
    /// their slack penalties: C-SVM (Example 7), ν-SVM (Example 8), ℓ₂-loss SVM (Example 9).
    fn push_svm_loss(&self, cp: &mut Conic, w: usize) -> LossPart {
        let (m, y) = (self.q.nrows(), self.y);
        let mf = m as f64;
        let b = cp.vars(1);
        let zeta = cp.vars(m);
        let rho = (self.problem == Problem::NuSvm).then(|| cp.vars(1));
        let rows = (0..m)
            .map(|i| {
                let mut t: Vec<(usize, f64)> = (self.f_terms(w, i).into_iter())
                    .map(|(j, v)| (j, y[i] * v))
                    .collect();
                t.push((b, y[i]));
                t.push((zeta + i, 1.0));
                match rho {
                    Some(r) => {
                        t.push((r, -1.0));
                        (t, 0.0)
                    }
                    None => (t, -1.0),
                }
            })
            .collect();
        let margin = cp.push(Cone::NonNeg, rows);
        match self.problem {
            Problem::CSvm => {
                (0..m).for_each(|i| cp.q[zeta + i] = self.c);
                cp.push(
                    Cone::NonNeg,
                    (0..m).map(|i| (vec![(zeta + i, 1.0)], 0.0)).collect(),
                );
            }
            Problem::NuSvm => {
                (0..m).for_each(|i| cp.q[zeta + i] = 1.0 / mf);
                let r = rho.expect("ν-SVM has ρ");
                cp.q[r] = -self.nu;
                let mut rows: Vec<Expr> = (0..m).map(|i| (vec![(zeta + i, 1.0)], 0.0)).collect();
                rows.push((vec![(r, 1.0)], 0.0));
                cp.push(Cone::NonNeg, rows);
            }
            _ => {
                // ℓ₂ loss C/2 Σ ζ² and ½ b² (Mangasarian and Musicant 2001).
                (0..m).for_each(|i| cp.square(zeta + i, self.c));
                cp.square(b, 1.0);
            }
        }
        LossPart {
            margin,
            margin2: None,
            b: Some(b),
            rho,
        }
    }

    /// Novelty detection (Example 10): `f_i ≥ ρ − ζ_i`, objective
    /// `1/(νm) Σ ζ_i − ρ`.
    fn push_one_class_loss(&self, cp: &mut Conic, w: usize) -> LossPart {
        let m = self.q.nrows();
        let mf = m as f64;
        let zeta = cp.vars(m);
        let r = cp.vars(1);
        let rows = (0..m)
            .map(|i| {
                let mut t = self.f_terms(w, i);
                t.push((zeta + i, 1.0));
                t.push((r, -1.0));
                (t, 0.0)
            })
            .collect();
        let margin = cp.push(Cone::NonNeg, rows);
        (0..m).for_each(|i| cp.q[zeta + i] = 1.0 / (self.nu * mf));
        cp.q[r] = -1.0;
        let mut rows: Vec<Expr> = (0..m).map(|i| (vec![(zeta + i, 1.0)], 0.0)).collect();
        rows.push((vec![(r, 1.0)], 0.0));
        cp.push(Cone::NonNeg, rows);
        LossPart {
            margin,
            margin2: None,
            b: None,
            rho: Some(r),
        }
    }

    /// ν-regression (Example 11): the ε-tube `|f_i + b − y_i| ≤ ε + ζ_i` (ζ* below) with
    /// the tube's width ε a variable weighted by ν.
    fn push_svr_loss(&self, cp: &mut Conic, w: usize) -> LossPart {
        let (m, y) = (self.q.nrows(), self.y);
        let mf = m as f64;
        let bv = cp.vars(1);
        let eps = cp.vars(1);
        let zeta = cp.vars(m);
        let zeta_s = cp.vars(m);
        // f_i + b − y_i ≤ ε + ζ_i  and  y_i − f_i − b ≤ ε + ζ*_i.
        let upper = (0..m)
            .map(|i| {
                let mut t: Vec<(usize, f64)> = self
                    .f_terms(w, i)
                    .into_iter()
                    .map(|(j, v)| (j, -v))
                    .collect();
                t.extend([(bv, -1.0), (eps, 1.0), (zeta + i, 1.0)]);
                (t, y[i])
            })
            .collect();
        let margin = cp.push(Cone::NonNeg, upper);
        let lower = (0..m)
            .map(|i| {
                let mut t = self.f_terms(w, i);
                t.extend([(bv, 1.0), (eps, 1.0), (zeta_s + i, 1.0)]);
                (t, -y[i])
            })
            .collect();
        let margin2 = Some(cp.push(Cone::NonNeg, lower));
        // C per sample, as the classifiers' Vapnik-style C (1/(λm) = C): in LIBSVM's
        // ν-SVR form C'(νε + (1/m) Σ(ζ + ζ*)) this is C' = C·m.
        cp.q[eps] = self.c * mf * self.nu;
        (0..m).for_each(|i| {
            cp.q[zeta + i] = self.c;
            cp.q[zeta_s + i] = self.c;
        });
        let mut rows: Vec<Expr> = (0..2 * m).map(|i| (vec![(zeta + i, 1.0)], 0.0)).collect();
        rows.push((vec![(eps, 1.0)], 0.0));
        cp.push(Cone::NonNeg, rows);
        LossPart {
            margin,
            margin2,
            b: Some(bv),
            rho: None,
        }
    }

    /// The solved restricted program in the paper's terms: β over all pairs (clamped at
    /// 0), the hypothesis' coefficients from the margins' duals (`G(β)† z`), its output on
    /// the training points, and the multiplier `ν` of `Σ_a C_a u_a = w` for the pricing.
    fn read_solution(
        &self,
        set: &[usize],
        factors: &[&Mat<f64>],
        kernel: &KernelPart,
        loss: &LossPart,
        sol: &ConicSolution,
        start: std::time::Instant,
    ) -> (ProgramSolution, Vec<f64>) {
        let (m, rdim, y) = (self.q.nrows(), self.q.ncols(), self.y);
        let (w, margin) = (kernel.w, loss.margin);
        let x = &sol.x;
        let f_w: Vec<f64> = (0..m)
            .map(|i| (0..rdim).map(|k| self.q[(i, k)] * x[w + k]).sum())
            .collect();
        let (coef, bias) = match self.problem {
            Problem::CSvm | Problem::NuSvm | Problem::Lsvm => (
                (0..m).map(|i| y[i] * sol.z[margin + i]).collect(),
                x[loss.b.expect("set")],
            ),
            Problem::OneClass => (
                (0..m).map(|i| sol.z[margin + i]).collect(),
                -x[loss.rho.expect("set")],
            ),
            Problem::NuSvr => {
                let m2 = loss.margin2.expect("set");
                (
                    (0..m).map(|i| sol.z[m2 + i] - sol.z[margin + i]).collect(),
                    x[loss.b.expect("set")],
                )
            }
            Problem::Kta => (vec![0.0; m], 0.0),
        };
        let f_train = f_w.iter().map(|f| f + bias).collect();
        let mut beta_all = vec![0.0; self.factors.len()];
        for (j, &a) in set.iter().enumerate() {
            beta_all[a] = x[kernel.beta + j].max(0.0);
        }
        let nu = sol.z[kernel.eq_row..kernel.eq_row + rdim].to_vec();
        (
            ProgramSolution {
                beta: beta_all,
                coef,
                bias,
                f_train,
                objective: sol.objective,
                regulariser: kernel.reg_weight * x[kernel.t2],
                iterations: sol.iterations,
                status: sol.status.clone(),
                rounds: vec![WorkingSetRound {
                    pairs: set.len(),
                    factor_columns: factors.iter().map(|c| c.ncols()).sum(),
                    iterations: sol.iterations,
                    seconds: start.elapsed().as_secs_f64(),
                }],
            },
            nu,
        )
    }
}

/// Where [`ProgramInput::push_kernel_part`] put β, `t₂`, `w` and `Σ_a C_a u_a = w`.
struct KernelPart {
    beta: usize,
    t2: usize,
    w: usize,
    /// First row of `Σ_a C_a u_a = w` (its duals are `ν`).
    eq_row: usize,
    /// Weight of `t₂` in the objective.
    reg_weight: f64,
}

/// Where [`ProgramInput::push_loss`] put the rows and variables the solution is read from.
struct LossPart {
    /// First row of the margin constraints (their duals are `α`); unused for KTA.
    margin: usize,
    /// First row of ν-SVR's lower tube constraints.
    margin2: Option<usize>,
    /// The offset `b`, for problems that have one.
    b: Option<usize>,
    /// The margin `ρ` (ν-SVM, one-class).
    rho: Option<usize>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn infeasible_unbounded_and_unconverged_programs_are_named() {
        // x ≥ 0 and x = −1: infeasible.
        let mut c = Conic::default();
        let x = c.vars(1);
        c.push(Cone::NonNeg, vec![(vec![(x, 1.0)], 0.0)]);
        c.push(Cone::Zero, vec![(vec![(x, 1.0)], 1.0)]);
        let e = c.solve(100).unwrap_err().to_string();
        assert!(e.contains("infeasible"), "{e}");
        // min −x, x ≥ 0: unbounded.
        let mut c = Conic::default();
        let x = c.vars(1);
        c.q[x] = -1.0;
        c.push(Cone::NonNeg, vec![(vec![(x, 1.0)], 0.0)]);
        let e = c.solve(100).unwrap_err().to_string();
        assert!(e.contains("unbounded"), "{e}");
        // A solver stopped after one iteration.
        let mut c = Conic::default();
        let x = c.vars(2);
        c.q[x] = 1.0;
        c.q[x + 1] = 1.0;
        c.push(
            Cone::Soc,
            vec![(vec![(x, 1.0)], 0.0), (vec![(x + 1, 1.0)], -3.0)],
        );
        let e = c.solve(1).unwrap_err().to_string();
        assert!(
            e.contains("without converging") && e.contains("MaxIterations"),
            "{e}"
        );
        assert!("bogus"
            .parse::<Problem>()
            .unwrap_err()
            .to_string()
            .contains("c-svm"));
        for n in PROBLEM_NAMES {
            assert_eq!(n.parse::<Problem>().unwrap().name(), n);
        }
    }
}
