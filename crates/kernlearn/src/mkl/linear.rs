//! Linear SVM by dual coordinate descent (Hsieh, Chang, Lin, Keerthi and Sundararajan,
//! "A dual coordinate descent method for large-scale linear SVM", ICML 2008,
//! Algorithm 1; LIBLINEAR's `-s 1` / `-s 3`), the classifier of the LIBLINEAR+
//! baseline ([`super::nystrom`]).
//!
//! `min_w ½‖w‖² + C Σ_i ξ(w; x_i, y_i)` with the hinge (L1) or squared hinge (L2) loss;
//! the bias is LIBLINEAR's `-B`: a constant feature `B` appended to every point (so it is
//! regularised too). Dual: `min_α ½ αᵀQ̄α − 1ᵀα`, `0 ≤ α_i ≤ U`, `Q̄ = Q + D`, with
//! `U = C, D = 0` (L1) or `U = ∞, D = I/(2C)` (L2). Each outer iteration visits the
//! points in a seeded random order and makes the one-variable Newton step
//! `α_i ← min(max(α_i − G_i/Q̄_ii, 0), U)`, `G_i = y_i wᵀx_i − 1 + D_ii α_i`, keeping
//! `w = Σ α_i y_i x_i`, setting aside variables stuck at a bound (shrinking, the paper's
//! Section 3.2); it stops when the projected gradients of all variables span at most
//! `tol` (LIBLINEAR's criterion, default 0.1).

use crate::check::{non_negative_finite, positive_finite};
use crate::{Error, Result};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// The loss of the linear SVM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinearLoss {
    /// Hinge `max(0, 1 − y wᵀx)` (LIBLINEAR `-s 3`).
    Hinge,
    /// Squared hinge `max(0, 1 − y wᵀx)²` (LIBLINEAR `-s 1`, its default).
    SquaredHinge,
}

/// Parameters of the linear SVM.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LinearSvmParams {
    /// Trade-off `C > 0`.
    pub c: f64,
    /// Loss.
    pub loss: LinearLoss,
    /// Stopping tolerance on the projected-gradient span (LIBLINEAR `-e`, 0.1).
    pub tol: f64,
    /// Outer iterations at most (LIBLINEAR: 1000).
    pub max_iter: usize,
    /// Bias feature `B ≥ 0` (LIBLINEAR `-B`; 0 = no bias).
    pub bias: f64,
    /// Seed of the visiting order.
    pub seed: u64,
}

impl Default for LinearSvmParams {
    fn default() -> Self {
        Self {
            c: 1.0,
            loss: LinearLoss::SquaredHinge,
            tol: 0.1,
            max_iter: 1000,
            bias: 1.0,
            seed: 1,
        }
    }
}

impl LinearSvmParams {
    /// Checks `C > 0`, `tol > 0`, `B ≥ 0`, `max_iter ≥ 1`.
    pub(crate) fn validate(&self) -> Result<()> {
        positive_finite("C", self.c)?;
        positive_finite("tol", self.tol)?;
        non_negative_finite("bias", self.bias)?;
        if self.max_iter == 0 {
            return Err(Error::param("max_iter", "must be >= 1"));
        }
        Ok(())
    }
}

/// A fitted linear SVM: `f(z) = wᵀz + b`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct LinearSolution {
    /// Weights.
    pub w: Vec<f64>,
    /// Bias `b = w_B · B`.
    pub b: f64,
    /// Dual variables.
    #[serde(skip)]
    pub alpha: Vec<f64>,
    /// Outer iterations made.
    pub iterations: usize,
    /// True when `max_iter` ended the solve.
    pub hit_max_iter: bool,
}

/// Dual coordinate descent on the rows of `z` (row-major, `n × dim`), labels `y ∈ {±1}`.
pub(super) fn solve_linear_svm(
    z: &[f64],
    dim: usize,
    y: &[f64],
    params: &LinearSvmParams,
) -> Result<LinearSolution> {
    params.validate()?;
    let n = y.len();
    if z.len() != n * dim {
        return Err(Error::data(format!(
            "{} feature values for {n} points of dimension {dim}",
            z.len()
        )));
    }
    let (upper, diag) = match params.loss {
        LinearLoss::Hinge => (params.c, 0.0),
        LinearLoss::SquaredHinge => (f64::INFINITY, 0.5 / params.c),
    };
    let big_b = params.bias;
    let row = |i: usize| &z[i * dim..(i + 1) * dim];
    let qd: Vec<f64> = (0..n)
        .map(|i| diag + row(i).iter().map(|v| v * v).sum::<f64>() + big_b * big_b)
        .collect();
    let mut w = vec![0.0; dim];
    let mut wb = 0.0;
    let mut alpha = vec![0.0; n];
    let mut index: Vec<usize> = (0..n).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(params.seed);
    // Shrinking (Hsieh et al. 2008, Section 3.2; LIBLINEAR's solve_l2r_l1l2_svc): a
    // variable at a bound whose gradient points out of the box by more than the last
    // pass's extreme projected gradient is set aside; when the active ones have
    // converged, every variable is checked again before stopping.
    let mut active = n;
    let (mut pg_max_old, mut pg_min_old) = (f64::INFINITY, f64::NEG_INFINITY);
    let mut iterations = 0;
    let mut converged = false;
    while iterations < params.max_iter {
        iterations += 1;
        index[..active].shuffle(&mut rng);
        let (mut pg_max, mut pg_min) = (f64::NEG_INFINITY, f64::INFINITY);
        let mut s = 0;
        while s < active {
            let i = index[s];
            let xi = row(i);
            let wx: f64 = w.iter().zip(xi).map(|(a, b)| a * b).sum::<f64>() + wb * big_b;
            let g = y[i] * wx - 1.0 + diag * alpha[i];
            let pg = if alpha[i] == 0.0 {
                if g > pg_max_old {
                    active -= 1;
                    index.swap(s, active);
                    continue;
                }
                g.min(0.0)
            } else if alpha[i] == upper {
                if g < pg_min_old {
                    active -= 1;
                    index.swap(s, active);
                    continue;
                }
                g.max(0.0)
            } else {
                g
            };
            pg_max = pg_max.max(pg);
            pg_min = pg_min.min(pg);
            if pg.abs() > 1e-12 && qd[i] > 0.0 {
                let old = alpha[i];
                alpha[i] = (old - g / qd[i]).clamp(0.0, upper);
                let d = (alpha[i] - old) * y[i];
                w.iter_mut().zip(xi).for_each(|(a, b)| *a += d * b);
                wb += d * big_b;
            }
            s += 1;
        }
        if pg_max - pg_min <= params.tol {
            if active == n {
                converged = true;
                break;
            }
            // Converged on the active set: check every variable once more.
            active = n;
            (pg_max_old, pg_min_old) = (f64::INFINITY, f64::NEG_INFINITY);
            continue;
        }
        pg_max_old = if pg_max <= 0.0 { f64::INFINITY } else { pg_max };
        pg_min_old = if pg_min >= 0.0 {
            f64::NEG_INFINITY
        } else {
            pg_min
        };
    }
    Ok(LinearSolution {
        w,
        b: wb * big_b,
        alpha,
        iterations,
        hit_max_iter: !converged,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Primal objective ½‖(w, w_B)‖² + C Σ loss.
    fn primal(z: &[f64], dim: usize, y: &[f64], s: &LinearSolution, p: &LinearSvmParams) -> f64 {
        let wb = if p.bias > 0.0 { s.b / p.bias } else { 0.0 };
        let reg = 0.5 * (s.w.iter().map(|v| v * v).sum::<f64>() + wb * wb);
        let loss: f64 = (0..y.len())
            .map(|i| {
                let f: f64 =
                    s.w.iter()
                        .zip(&z[i * dim..(i + 1) * dim])
                        .map(|(a, b)| a * b)
                        .sum::<f64>()
                        + s.b;
                let m = (1.0 - y[i] * f).max(0.0);
                match p.loss {
                    LinearLoss::Hinge => m,
                    LinearLoss::SquaredHinge => m * m,
                }
            })
            .sum();
        reg + p.c * loss
    }

    #[test]
    fn dcd_reaches_the_primal_optimum() {
        // Overlapping 2-D classes; the optimum is checked against random perturbations
        // (the primal is strictly convex, so any better point would show a bug).
        let n = 120;
        let mut s = 7u64;
        let mut next = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut z = Vec::new();
        let mut y = Vec::new();
        for i in 0..n {
            let c = if i % 2 == 0 { 1.0 } else { -1.0 };
            z.push(c * 0.6 + next() - 0.5);
            z.push(0.3 * c + 2.0 * (next() - 0.5));
            y.push(c);
        }
        for loss in [LinearLoss::Hinge, LinearLoss::SquaredHinge] {
            let p = LinearSvmParams {
                c: 2.0,
                loss,
                tol: 1e-6,
                max_iter: 100_000,
                ..Default::default()
            };
            let sol = solve_linear_svm(&z, 2, &y, &p).unwrap();
            assert!(!sol.hit_max_iter);
            let best = primal(&z, 2, &y, &sol, &p);
            for k in 0..200 {
                let mut t = sol.clone();
                let e = 1e-3 * (1.0 + (k % 3) as f64);
                t.w[0] += e * (next() - 0.5);
                t.w[1] += e * (next() - 0.5);
                t.b += e * (next() - 0.5);
                assert!(
                    primal(&z, 2, &y, &t, &p) >= best - 1e-9,
                    "{loss:?}: perturbation {k} is better"
                );
            }
            // KKT: w = Σ α_i y_i x_i holds by construction; α within its box.
            assert!(sol
                .alpha
                .iter()
                .all(|&a| a >= 0.0 && (loss == LinearLoss::SquaredHinge || a <= 2.0)));
        }
        assert!(solve_linear_svm(&z, 3, &y, &LinearSvmParams::default()).is_err());
        assert!(LinearSvmParams {
            c: 0.0,
            ..Default::default()
        }
        .validate()
        .is_err());
    }
}
