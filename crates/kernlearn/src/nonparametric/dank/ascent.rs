//! The first-order schemes of the DANK paper (section 3; Fig. 4 compares them): plain
//! projected gradient (eq. 14), Algorithm 1 (projected gradient with Nesterov's
//! acceleration) and its monotone variant (section 3.2), with the step `1/L` by
//! backtracking, the paper's Lipschitz constants (Theorem 1, Lemma 2, Theorem 2) or a
//! fixed `L`.

use super::objective::{DankProblem, Dual, Point};
use super::settings::{Scheme, StepRule};
use super::solve::{distance, Run};
use crate::{Error, Result};
use faer::{Mat, MatRef};

impl DankProblem<'_> {
    /// The paper's Lipschitz constant for this scheme (see [`StepRule::PaperLipschitz`]).
    pub(crate) fn paper_lipschitz(&self, scheme: Scheme) -> f64 {
        let n = self.n() as f64;
        let c2 = self.c * self.c;
        let k_fro2 = self.k.norm_l2().powi(2);
        match (self.dual, scheme) {
            (Dual::Svr { .. }, _) => 4.0 * (n + 9.0 * n * c2 * k_fro2 / (4.0 * self.eta)),
            (Dual::Svm { .. } | Dual::SvmNoBias { .. }, Scheme::ProjectedGradient) => {
                n - self.tau / 2.0 + n * c2 * lambda_max(self.k) / (4.0 * self.eta)
            }
            (Dual::Svm { .. } | Dual::SvmNoBias { .. }, _) => {
                n + 3.0 * n * c2 * k_fro2 / (4.0 * self.eta)
            }
        }
    }
}

impl Run<'_, '_> {
    /// `θ = P(x + ∇h(x)/L)`; with backtracking `L` doubles until the ascent condition
    /// holds, and `h(θ)` is returned. With a fixed `L`, `θ` is evaluated only if `need`.
    fn ascent_step(&mut self, x: &Point, need: bool) -> Result<Point> {
        let backtrack = self.settings.step == StepRule::Backtracking;
        for _ in 0..200 {
            let v: Vec<f64> =
                x.z.iter()
                    .zip(&x.grad)
                    .map(|(a, g)| a + g / self.lip)
                    .collect();
            let theta = self.problem.project(&v)?;
            if !backtrack && !need {
                return Ok(Point {
                    z: theta,
                    value: f64::NAN,
                    grad: Vec::new(),
                    f: None,
                });
            }
            let p = self.eval(theta)?;
            if !backtrack {
                return Ok(p);
            }
            let (mut lin, mut sq) = (0.0, 0.0);
            for ((t, a), g) in p.z.iter().zip(&x.z).zip(&x.grad) {
                lin += g * (t - a);
                sq += (t - a) * (t - a);
            }
            let model = x.value + lin - 0.5 * self.lip * sq;
            if p.value >= model - 1e-12 * (1.0 + x.value.abs()) {
                return Ok(p);
            }
            self.lip *= 2.0;
        }
        Err(Error::numerical(format!(
            "DANK: backtracking found no step (L = {:e}); non-finite objective?",
            self.lip
        )))
    }

    /// Eq. (14): `α ← P(α + ∇h/L)`.
    pub(super) fn projected_gradient(&mut self, start: Vec<f64>) -> Result<(Point, usize, bool)> {
        let mut x = self.eval(start)?;
        for t in 0..self.settings.max_iter {
            let theta = self.ascent_step(&x, true)?;
            let diff = distance(&theta.z, &x.z);
            let violation = self.violation(&theta);
            self.record(t, &x, diff, violation);
            x = theta;
            if self.stops(diff, violation) {
                return Ok((x, t + 1, true));
            }
        }
        Ok((x, self.settings.max_iter, false))
    }

    /// Algorithm 1 (and its monotone variant); returns the last `θ`.
    pub(super) fn nesterov(
        &mut self,
        start: Vec<f64>,
        monotone: bool,
    ) -> Result<(Point, usize, bool)> {
        let z0 = start.clone();
        let mut weighted = vec![0.0; z0.len()];
        let mut x = self.eval(start)?;
        let mut best: Option<Point> = None;
        for t in 0..self.settings.max_iter {
            for (w, g) in weighted.iter_mut().zip(&x.grad) {
                *w += (t + 1) as f64 * g;
            }
            let mut theta = self.ascent_step(&x, monotone)?;
            if monotone {
                // θ_t = argmax h over {θ_{t−1}, θ̃_t, α_t}.
                if let Some(prev) = best.take() {
                    if prev.value > theta.value {
                        theta = prev;
                    }
                }
                if x.value > theta.value {
                    theta = x.clone();
                }
            }
            let v: Vec<f64> = z0
                .iter()
                .zip(&weighted)
                .map(|(a, w)| a + w / (2.0 * self.lip))
                .collect();
            let beta = self.problem.project(&v)?;
            let a = (t + 1) as f64 / (t + 3) as f64;
            let next: Vec<f64> = theta
                .z
                .iter()
                .zip(&beta)
                .map(|(th, be)| a * th + (1.0 - a) * be)
                .collect();
            let diff = distance(&next, &x.z);
            let violation = self.violation(&theta);
            self.record(t, &x, diff, violation);
            let done = self.stops(diff, violation);
            if done {
                return Ok((self.finish(Some(theta))?, t + 1, true));
            }
            x = self.eval(next)?;
            best = Some(theta);
            if done {
                return Ok((self.finish(best)?, t + 1, true));
            }
        }
        Ok((self.finish(best)?, self.settings.max_iter, false))
    }

    /// The final `θ`, evaluated.
    fn finish(&self, theta: Option<Point>) -> Result<Point> {
        let theta = theta.ok_or_else(|| Error::data("DANK: no iteration was made"))?;
        if theta.grad.is_empty() {
            self.eval(theta.z)
        } else {
            Ok(theta)
        }
    }
}

/// Largest eigenvalue of the PSD matrix `k` by power iteration (a step-size scale).
pub(super) fn lambda_max(k: MatRef<'_, f64>) -> f64 {
    let n = k.nrows();
    let mut v = Mat::<f64>::from_fn(n, 1, |i, _| 1.0 + (i % 7) as f64 * 0.1);
    let mut lambda = 0.0;
    for _ in 0..50 {
        let w = k * &v;
        let norm = w.norm_l2();
        if norm == 0.0 {
            return 0.0;
        }
        let vnorm = v.norm_l2();
        let next = norm / vnorm;
        v = w * faer::Scale(1.0 / norm);
        if (next - lambda).abs() <= 1e-6 * next {
            return next;
        }
        lambda = next;
    }
    lambda
}
