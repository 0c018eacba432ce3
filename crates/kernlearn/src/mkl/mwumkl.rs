//! MWUMKL: multiple kernel learning by matrix multiplicative weight updates (Moeller
//! 2017, section 3.2, Algorithms 4–6).
//!
//! The MKL problem (2.9) is the QCQP (3.1): find `α ≥ 0`, `yᵀα = 0`, `1ᵀα = 1` that
//! minimises `max_i αᵀĜ_iα` with `Ĝ_i = Y K_i Y / tr K_i` — the largest (over kernel
//! combinations) shortest distance between the two classes' convex hulls. Algorithm 6
//! plays it as a game for `T = ⌈4ρ ln(n)/ε⌉` rounds:
//!
//! - **forward step** (Algorithm 5): with `g = Σ_i p_i Ĝ_iα`, add `½` to `α` at the most
//!   violating point of each class (`argmin_j g_j`, i.e. the smallest `y_j f(x_j)`);
//! - **backward step** (Algorithm 4, Lemma 1): the event matrices are almost diagonal,
//!   so `exp(ε' Σ_t M_i^(t))` has the closed form of Lemma 1 and its off-diagonal block
//!   weight is `sinh(x_i)` with `x_i = (ln 2 / 2ρ) ‖A_iα‖`, `‖A_iα‖ = (αᵀĜ_iα)^½`
//!   (`ε' = ln ½`); dividing by `‖A_iα‖` (the unit vector `û_i`) gives
//!   `g ∝ Σ_i sinhc(x_i) Ĝ_iα` with `sinhc(x) = sinh(x)/x`.
//!
//! The kernel weights of section 3.2.6, `μ_i ∝ p_i^12 / ‖A_iα‖ ∝ sinhc(x_i)`, are exactly
//! the combination the forward step follows; they are normalised to `Σ μ_i = 1` (the
//! common factors of Algorithm 4 — `e^a`, the trace `S` — cancel, so they are never
//! computed; `sinhc` is evaluated in log space, which is Algorithm 4's "quashing").
//!
//! Memory is `O(mn)`: `Ĝ_iα` is kept for every kernel and, since a round changes two
//! coordinates of `α`, updated with two kernel columns per kernel computed on demand
//! (in parallel over kernels, fused with the weighted sum that gives the next `g`).
//!
//! **Soft margin.** (3.1) is the hard-margin problem; the thesis's footnote 1 allows the
//! 2-norm soft margin by adding a multiple of `I` to each `G_i`. With `c = Some(C)` every
//! normalised kernel `K̄_i` (mean diagonal 1) gets `I/C`, the L2-SVM of trade-off `C`.
//!
//! **Bias** (the thesis leaves it open). The final `ᾱ = α/T` has half its mass on each
//! class, so `p₊ = Σ_{y_j=+1} 2ᾱ_j φ(x_j)` and `p₋` are points of the two hulls and
//! `w = Σ_j ᾱ_j y_j φ(x_j) = (p₊ − p₋)/2`. The hyperplane through the midpoint of `p₊`
//! and `p₋` perpendicular to `w` — which at the optimum *is* the hard-margin SVM's — is
//! `⟨w, φ(x)⟩ − Σ_j ᾱ_j y_j (Ḡ_μ ᾱ)_j`. Dividing by `s = ᾱᵀḠ_μᾱ = ‖w‖²` puts it on
//! the SVM's scale (`w_SVM = w/‖w‖²`, margin points at `±1`):
//! `coef_j = ᾱ_j y_j / s`, `rho = Σ_j ᾱ_j y_j (Ḡ_μᾱ)_j / s`.

use super::base::KernelBank;
use super::family::KernelFamily;
use super::machine::{check_binary, MachineInfo, MklMachine};
use crate::check::positive_finite;
use crate::{Error, Result};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Parameters of MWUMKL.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct MwumklParams {
    /// Approximation error `ε > 0` (the thesis chooses it by cross-validation; 0.2 on
    /// most data sets, 0.05–0.07 on the large ones).
    pub epsilon: f64,
    /// Width `ρ` of the SDP (Lemma 2 bounds it by 3/2).
    pub width: f64,
    /// 2-norm soft margin `C` (`I/C` added to every normalised kernel); `None` solves
    /// the hard-margin problem (3.1).
    pub c: Option<f64>,
    /// Number of rounds; `None` = `T = ⌈4ρ ln(n)/ε⌉` (section 3.2.7.1).
    pub iterations: Option<usize>,
}

impl Default for MwumklParams {
    /// `ε = 0.2`, `ρ = 3/2`, hard margin.
    fn default() -> Self {
        Self {
            epsilon: 0.2,
            width: 1.5,
            c: None,
            iterations: None,
        }
    }
}

impl MwumklParams {
    /// Checks `ε > 0`, `ρ > 0`, `C > 0`, `T ≥ 1`.
    pub fn validate(&self) -> Result<()> {
        positive_finite("epsilon", self.epsilon)?;
        positive_finite("width", self.width)?;
        if let Some(c) = self.c {
            positive_finite("C", c)?;
        }
        if self.iterations == Some(0) {
            return Err(Error::param("iterations", "must be >= 1"));
        }
        Ok(())
    }

    /// Rounds for `n` training points: the given `iterations` or `⌈4ρ ln(n)/ε⌉`.
    pub(crate) fn rounds(&self, n: usize) -> usize {
        self.iterations.unwrap_or_else(|| {
            (4.0 * self.width * (n.max(2) as f64).ln() / self.epsilon).ceil() as usize
        })
    }
}

/// `ln(sinh(x)/x)` for `x ≥ 0`, without overflow.
fn ln_sinhc(x: f64) -> f64 {
    if x < 1e-4 {
        x * x / 6.0
    } else if x < 20.0 {
        (x.sinh() / x).ln()
    } else {
        x - (2.0 * x).ln() + (-(-2.0 * x).exp()).ln_1p()
    }
}

/// Most violating point of each class: `argmin_{y_j = +1} g_j`, `argmin_{y_j = −1} g_j`
/// (Algorithm 5; ties go to the lower index).
fn most_violating(g: &[f64], y: &[f64]) -> (usize, usize) {
    let (mut p, mut q) = (usize::MAX, usize::MAX);
    for (j, (&v, &l)) in g.iter().zip(y).enumerate() {
        let best = if l > 0.0 { &mut p } else { &mut q };
        if *best == usize::MAX || v < g[*best] {
            *best = j;
        }
    }
    (p, q)
}

/// What [`fit`] found, before it is packed into a machine.
#[derive(Clone, Debug)]
pub(super) struct MwumklSolution {
    /// Kernel weights (section 3.2.6), summing to one.
    pub weights: Vec<f64>,
    /// `s = ᾱᵀḠ_μᾱ`: the squared half-distance of the hulls under the learned kernel.
    pub objective: f64,
    /// Decision coefficients `ᾱ_j y_j / s` (SVM scale).
    pub coef: Vec<f64>,
    /// Offset (midpoint bias, SVM scale).
    pub rho: f64,
    /// Rounds run.
    pub rounds: usize,
}

/// Algorithm 6 on the normalised kernels of `bank` with labels `y ∈ {±1}`.
pub(super) fn solve(bank: &KernelBank, y: &[f64], params: &MwumklParams) -> Result<MwumklSolution> {
    params.validate()?;
    let (n, m) = (bank.n_points(), bank.n_kernels());
    check_binary(y, n)?;
    bank.base().require_psd("MWUMKL")?;
    let ridge = params.c.map_or(0.0, |c| 1.0 / c);
    let rounds = params.rounds(n);
    let rate = std::f64::consts::LN_2 / (2.0 * params.width);
    let x = bank.points();

    let mut h = vec![0.0f64; m * n]; // Ḡ_i α for the accumulated α (row i = kernel i)
    let mut q = vec![0.0f64; m]; // αᵀḠ_i α
    let mut counts = vec![0u32; n]; // α_j = counts_j / 2
    let mut g = vec![0.0f64; n];
    let mut l_ref = 0.0f64;
    let not_psd = AtomicUsize::new(usize::MAX);
    // Enough kernels per task that the per-task buffers are amortised.
    let min_len = (4096 / n).max(1);
    for t in 1..=rounds {
        let (p, r) = most_violating(&g, y);
        counts[p] += 1;
        counts[r] += 1;
        let tol = 1e-9 * (t * t) as f64;
        let (acc, l_max) = h
            .par_chunks_mut(n)
            .zip(q.par_iter_mut())
            .enumerate()
            .with_min_len(min_len)
            .fold(
                || (vec![0.0; n], vec![0.0; n], vec![0.0; n], f64::NEG_INFINITY),
                |(mut acc, mut cp, mut cr, mut l_max), (i, (h_i, q_i))| {
                    bank.column(i, x.row(p), &mut cp);
                    bank.column(i, x.row(r), &mut cr);
                    // α' = α + ½(e_p + e_r): q' = q + (Ḡα)_p + (Ḡα)_r + ¼ (e_p + e_r)ᵀḠ(e_p + e_r)
                    let pair = cp[p] + cr[r] + 2.0 * ridge - 2.0 * cp[r];
                    *q_i += h_i[p] + h_i[r] + 0.25 * pair;
                    for k in 0..n {
                        h_i[k] += 0.5 * y[k] * (cp[k] - cr[k]);
                    }
                    h_i[p] += 0.5 * ridge;
                    h_i[r] += 0.5 * ridge;
                    if *q_i < -tol {
                        not_psd.fetch_min(i, Ordering::Relaxed);
                    }
                    let l = ln_sinhc(rate * (q_i.max(0.0) / n as f64).sqrt());
                    l_max = l_max.max(l);
                    let w = (l - l_ref).exp();
                    if w > 0.0 {
                        acc.iter_mut()
                            .zip(h_i.iter())
                            .for_each(|(a, v)| *a += w * v);
                    }
                    (acc, cp, cr, l_max)
                },
            )
            .map(|(acc, _, _, l)| (acc, l))
            .reduce(
                || (vec![0.0; n], f64::NEG_INFINITY),
                |(mut a, la), (b, lb)| {
                    a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                    (a, la.max(lb))
                },
            );
        let bad = not_psd.load(Ordering::Relaxed);
        if bad != usize::MAX {
            return Err(Error::param(
                "kernels",
                format!(
                    "base kernel {} ({}) gave αᵀGα < 0: it is not positive semi-definite on this data; MWUMKL needs PSD kernels",
                    bad + 1,
                    bank.base().kernel(bad)
                ),
            ));
        }
        g = acc;
        l_ref = l_max;
    }
    Ok(finish(bank, y, &h, &q, &counts, rounds, rate))
}

/// Weights (3.2.6), `ᾱ`, and the decision function with the midpoint bias.
fn finish(
    bank: &KernelBank,
    y: &[f64],
    h: &[f64],
    q: &[f64],
    counts: &[u32],
    rounds: usize,
    rate: f64,
) -> MwumklSolution {
    let n = bank.n_points();
    let tf = rounds as f64;
    let logs: Vec<f64> = q
        .iter()
        .map(|&qi| ln_sinhc(rate * (qi.max(0.0) / n as f64).sqrt()))
        .collect();
    let l_max = logs.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let mut weights: Vec<f64> = logs.iter().map(|l| (l - l_max).exp()).collect();
    let total: f64 = weights.iter().sum();
    weights.iter_mut().for_each(|w| *w /= total);
    let alpha: Vec<f64> = counts.iter().map(|&c| c as f64 / (2.0 * tf)).collect();
    // Ḡ_μ ᾱ = Σ_i μ_i Ḡ_i α / T
    let h_mu = h
        .par_chunks(n)
        .zip(weights.par_iter())
        .fold(
            || vec![0.0; n],
            |mut acc, (h_i, &w)| {
                acc.iter_mut().zip(h_i).for_each(|(a, v)| *a += w * v / tf);
                acc
            },
        )
        .reduce(
            || vec![0.0; n],
            |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                a
            },
        );
    let kernel_objectives: Vec<f64> = q.iter().map(|v| v / (tf * tf)).collect();
    let s: f64 = weights
        .iter()
        .zip(&kernel_objectives)
        .map(|(w, v)| w * v)
        .sum();
    let coef: Vec<f64> = alpha.iter().zip(y).map(|(a, l)| a * l / s).collect();
    let rho = (0..n).map(|j| alpha[j] * y[j] * h_mu[j]).sum::<f64>() / s;
    MwumklSolution {
        weights,
        objective: s,
        coef,
        rho,
        rounds,
    }
}

/// MWUMKL on one class pair: the trace-normalised `family` on `x`, labels `y ∈ {±1}`.
pub(super) fn fit_binary(
    family: &KernelFamily,
    x: &crate::data::Features,
    y: &[f64],
    params: &MwumklParams,
) -> Result<MklMachine> {
    params.validate()?;
    let bank = KernelBank::new(family, x)?;
    let sol = solve(&bank, y, params)?;
    let info = MachineInfo {
        iterations: sol.rounds,
        objective: sol.objective,
        ..MachineInfo::default()
    };
    Ok(MklMachine::new(
        family,
        &bank,
        sol.weights,
        &sol.coef,
        sol.rho,
        info,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ln_sinhc_is_continuous_and_exact() {
        for &x in &[0.0f64, 1e-6, 1e-4, 0.3, 5.0, 19.999, 20.0, 400.0] {
            let e = if x == 0.0 {
                0.0
            } else if x < 700.0 && x > 1e-3 {
                (x.sinh() / x).ln()
            } else if x <= 1e-3 {
                x * x / 6.0
            } else {
                x - (2.0 * x).ln()
            };
            assert!((ln_sinhc(x) - e).abs() < 1e-12 * e.abs().max(1.0), "{x}");
        }
        assert!(ln_sinhc(1e5).is_finite());
    }

    #[test]
    fn forward_step_picks_the_smallest_margin_per_class() {
        let g = [0.5, -1.0, 0.2, -3.0, 0.2];
        let y = [1.0, 1.0, -1.0, 1.0, -1.0];
        assert_eq!(most_violating(&g, &y), (3, 2));
        assert_eq!(most_violating(&[0.0; 4], &[-1.0, 1.0, 1.0, -1.0]), (1, 0));
    }

    #[test]
    fn rounds_follow_the_thesis() {
        let p = MwumklParams::default();
        // 4 · 1.5 · ln(100) / 0.2 = 138.15…
        assert_eq!(p.rounds(100), 139);
        assert!(MwumklParams { epsilon: 0.0, ..p }.validate().is_err());
        assert!(MwumklParams { epsilon: -1.0, ..p }.validate().is_err());
        assert!(MwumklParams { c: Some(0.0), ..p }.validate().is_err());
    }
}
