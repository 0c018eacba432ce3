//! The hyper-parameters of KNPL: the base kernel, C and γ of problem (4) (KNPL paper,
//! section "KNPL Model"), the outer rounds of Algorithm 2 and the ADMM settings of
//! Algorithm 1, with the paper's defaults.

use crate::check::positive_finite;
use crate::kernel::Kernel;
use crate::svm::SolverSettings;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// How the saddle problem (4) is solved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KnplScheme {
    /// Monotone ascent on `φ(α) = min_G H(α, G) = H(α, G*(α))` (default; not in the
    /// paper): at `α_t`, with `G_t = G*(α_t)` (the ADMM projection), SMO gives
    /// `α̂ = argmax_α H(α, G_t)`; since `H(·, G_t) ≥ φ` with equality at `α_t` and
    /// `∇φ(α_t) = ∇_α H(α_t, G_t)` (Danskin), `α̂ − α_t` is an ascent direction of the
    /// concave `φ`, and a backtracking line search (first trial `s = min(1, 2·s_{t−1})`, then halving,
    /// at most 5 times) accepts the first
    /// `α_t + s(α̂ − α_t)` (feasible: a convex combination) whose `φ` is larger. The
    /// sequence `φ(α_t)` increases strictly; it stops when a round gains at most
    /// `ascent_tol · max(1, |φ|)`, when no step gains, or after `outer_iters` rounds.
    Ascent,
    /// Algorithm 2 as published: T alternations of the α-step and the G-step (a
    /// best-response iteration, which can fall into a 2-cycle for small γ).
    Alternate,
}

fn alternate() -> KnplScheme {
    KnplScheme::Alternate
}

/// The relative change below which [`crate::trace::alternation`] calls a run converged.
fn default_ascent_tol() -> f64 {
    crate::trace::ALTERNATION_TOL
}

/// Hyper-parameters of KNPL (problem (4), Algorithms 1 and 2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct KnplParams {
    /// Base kernel `K` (the papers: Gaussian `exp(−‖x−x'‖²/σ²)`, σ from SVM-CV).
    pub kernel: Kernel,
    /// SVM trade-off C (from SVM-CV).
    pub c: f64,
    /// Regulariser γ > 0 of `γ‖G‖²_F` in (4). Large γ pins `G` to `11ᵀ` (the plain SVM).
    pub gamma: f64,
    /// Outer rounds T of Algorithm 2 (paper: 10), or the cap on the rounds of the ascent.
    /// 0 = the plain SVM on `K`.
    pub outer_iters: usize,
    /// The solver of (4). Model files written before it existed used Algorithm 2.
    #[serde(default = "alternate")]
    pub scheme: KnplScheme,
    /// Ascent: stop when a round increases `φ` by at most this times `max(1, |φ|)`
    /// (default 1e-3, the tolerance at which the model's warnings call a run converged;
    /// SMO's own tolerance moves `φ` by about that much).
    #[serde(default = "default_ascent_tol")]
    pub ascent_tol: f64,
    /// ADMM iteration cap `k_max` of Algorithm 1 (paper: 15).
    pub admm_max_iter: usize,
    /// ADMM stopping tolerance ε on `Diff` (paper: 1e-4).
    pub admm_tol: f64,
    /// Initial ADMM penalty β₀ (the paper gives none; 1 weighs the two terms of (15)
    /// equally at the start).
    pub beta0: f64,
    /// Growth factor ρ of β, eq. (22) (paper: 1.1).
    pub beta_growth: f64,
    /// Cap of β, eq. (22) (paper: 1e8).
    pub beta_max: f64,
    /// Relaxation ω ∈ (0, 1] of the G update across outer rounds:
    /// `G_t = (1 − ω) G_{t−1} + ω G*(α_{t−1})`. ω = 1 is Algorithm 2 as published. The
    /// plain alternation is a best-response iteration that can fall into a 2-cycle
    /// for small γ (a large G shrinks α, whose small Γ(α) gives back G ≈ 11ᵀ); ω < 1 damps
    /// it. Every G_t stays feasible (`S₊ ∩ B` is convex). Not in the paper.
    #[serde(default = "one")]
    pub g_relaxation: f64,
    /// SMO tolerance, shrinking, cache.
    #[serde(default)]
    pub solver: SolverSettings,
}

fn one() -> f64 {
    1.0
}

impl Default for KnplParams {
    /// The paper's settings with σ = 1, C = 1, γ = 1 (σ, C and γ are normally selected).
    fn default() -> Self {
        Self {
            kernel: Kernel::Rbf { gamma: 1.0 },
            c: 1.0,
            gamma: 1.0,
            outer_iters: 10,
            scheme: KnplScheme::Ascent,
            ascent_tol: default_ascent_tol(),
            admm_max_iter: 15,
            admm_tol: 1e-4,
            beta0: 1.0,
            beta_growth: 1.1,
            beta_max: 1e8,
            g_relaxation: 1.0,
            solver: SolverSettings::default(),
        }
    }
}

impl KnplParams {
    /// Checks every parameter (γ > 0, C > 0, a feature kernel, sane ADMM settings).
    pub(crate) fn validate(&self) -> Result<()> {
        positive_finite("C", self.c)?;
        positive_finite("gamma", self.gamma)?;
        // The learned matrix moves by up to C²/(4γ) per entry (the target of
        // `admm::gamma_target`); past 1e150 its squared norms overflow f64.
        let shift = 0.25 * self.c * self.c / self.gamma;
        if shift.is_nan() || shift > 1e150 {
            return Err(Error::param(
                "knpl-gamma",
                format!(
                    "γ = {:e} with C = {} lets the learned kernel matrix move by C²/(4γ) = {shift:.3e} \
                     per entry, past what f64 arithmetic holds; use γ ≥ {:.3e}",
                    self.gamma,
                    self.c,
                    0.25 * self.c * self.c / 1e150
                ),
            ));
        }
        positive_finite("admm_tol", self.admm_tol)?;
        positive_finite("ascent_tol", self.ascent_tol)?;
        positive_finite("beta0", self.beta0)?;
        if self.kernel.is_precomputed() {
            return Err(Error::param(
                "kernel",
                "KNPL needs features for its nearest-neighbour extension; a precomputed kernel is not supported",
            ));
        }
        self.kernel.check_params()?;
        if self.admm_max_iter == 0 {
            return Err(Error::param("admm_max_iter", "need at least 1 iteration"));
        }
        if !(self.beta_growth >= 1.0 && self.beta_growth.is_finite()) {
            return Err(Error::param(
                "beta_growth",
                format!("must be >= 1, got {}", self.beta_growth),
            ));
        }
        if !(self.beta_max >= self.beta0 && self.beta_max.is_finite()) {
            return Err(Error::param(
                "beta_max",
                format!("must be >= beta0 = {}, got {}", self.beta0, self.beta_max),
            ));
        }
        let w = self.g_relaxation;
        if !(w > 0.0 && w <= 1.0) {
            return Err(Error::param(
                "g_relaxation",
                format!("must be in (0, 1], got {w}"),
            ));
        }
        self.solver.validate()
    }
}
