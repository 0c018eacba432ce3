//! [`DankProblem::solve`]: maximises `h` over the feasible set by the chosen scheme
//! (the first-order schemes of `ascent`, the Newton scheme of `newton`), with the run
//! state they share, and recovers the bias by LIBSVM's rule on the fixed kernel `F⊙K`.

use super::ascent::lambda_max;
use super::objective::{adaptive_matrix, AdaptiveMatrix, DankProblem, Dual, Point};
use super::settings::{DankSettings, EigenRoute, Scheme, StepRule};
use crate::trace::Trace;
use crate::{Error, Result};

/// The result of [`DankProblem::solve`].
pub(crate) struct DankSolution {
    /// Final dual variables `z` (`α`, or `[α̂; α̌]`): the start of the next η of a path.
    pub z: Vec<f64>,
    /// Coefficients of the decision function: `α_i y_i` or `α̂_i − α̌_i`.
    pub coef: Vec<f64>,
    /// Bias `b` (LIBSVM's rule on `F⊙K`).
    pub bias: f64,
    /// The learned `F` at the final `z`.
    pub f: AdaptiveMatrix,
    /// `h(z) = H(z, F(z))` at the final `z`.
    pub objective: f64,
    /// Iterations made.
    pub iterations: usize,
    /// True when a stopping rule (not the cap) ended the run.
    pub converged: bool,
    /// Final `L` of the first-order schemes (under [`Scheme::Newton`], its unused start).
    pub lipschitz: f64,
    /// Per iteration: `iter`, `objective` (`h(α_t)`), `diff` (`‖α_t − α_{t−1}‖`), `lipschitz`
    /// (`step`, the line-search step, under [`Scheme::Newton`]), `rank` (of `F(α_t)`) and
    /// `violation` (KKT, of the step's end point).
    pub trace: Trace,
}

impl DankProblem<'_> {
    /// Maximises `h` over the feasible set from `z0` (projected first) with `settings`'
    /// scheme, step rule and stopping rule. τ and η are the problem's.
    pub(crate) fn solve(&self, z0: &[f64], settings: &DankSettings) -> Result<DankSolution> {
        self.validate()?;
        settings.validate()?;
        if z0.len() != self.dim() {
            return Err(Error::data(format!(
                "DANK: start point has {} values, expected {}",
                z0.len(),
                self.dim()
            )));
        }
        let start = self.project(z0)?;
        let lip0 = match settings.step {
            StepRule::Backtracking => {
                let scale = if matches!(self.dual, Dual::Svr { .. }) {
                    2.0
                } else {
                    1.0
                };
                (0.5 * scale * lambda_max(self.k)).max(1e-12)
            }
            StepRule::PaperLipschitz => self.paper_lipschitz(settings.scheme),
            StepRule::Fixed(l) => l,
        };
        let mut run = Run {
            problem: self,
            settings,
            lip: lip0,
            step: f64::NAN,
            trace: Trace::new(&[
                "iter",
                "objective",
                "diff",
                if settings.scheme == Scheme::Newton {
                    "step"
                } else {
                    "lipschitz"
                },
                "rank",
                "violation",
            ]),
        };
        let (last, iterations, converged) = match settings.scheme {
            Scheme::ProjectedGradient => run.projected_gradient(start)?,
            Scheme::Nesterov => run.nesterov(start, false)?,
            Scheme::NesterovMonotone => run.nesterov(start, true)?,
            Scheme::Newton => run.newton(start)?,
        };
        let bias = match self.dual {
            Dual::SvmNoBias { .. } => 0.0,
            _ => libsvm_bias(&last.z, self.c, &self.signs(), &last.grad),
        };
        let coef = self.coef(&last.z);
        let f = match last.f {
            Some(f) => f,
            // The τ = 0 path never factored F; one (|S|+1)-square eigenproblem does it.
            None => adaptive_matrix(self.k, &coef, self.eta, self.tau, EigenRoute::Reduced)?,
        };
        Ok(DankSolution {
            coef,
            z: last.z,
            bias,
            f,
            objective: last.value,
            iterations,
            converged,
            lipschitz: run.lip,
            trace: run.trace,
        })
    }
}

/// State of one solver run.
pub(super) struct Run<'p, 'a> {
    pub(super) problem: &'p DankProblem<'a>,
    pub(super) settings: &'p DankSettings,
    pub(super) lip: f64,
    /// Newton's last line-search step (recorded in place of `L`).
    pub(super) step: f64,
    pub(super) trace: Trace,
}

impl Run<'_, '_> {
    pub(super) fn eval(&self, z: Vec<f64>) -> Result<Point> {
        self.problem.evaluate(z, self.settings.eigen)
    }

    pub(super) fn record(&mut self, t: usize, x: &Point, diff: f64, violation: f64) {
        let rank = x.f.as_ref().map_or(f64::NAN, |f| f.rank() as f64);
        let scale = if self.settings.scheme == Scheme::Newton {
            self.step
        } else {
            self.lip
        };
        self.trace
            .push(vec![t as f64, x.value, diff, scale, rank, violation]);
    }

    /// KKT violation of an evaluated point (NaN when its gradient was not computed,
    /// as for a fixed step without the monotone variant).
    pub(super) fn violation(&self, p: &Point) -> f64 {
        if p.grad.is_empty() {
            f64::NAN
        } else {
            self.problem.kkt_violation(&p.z, &p.grad)
        }
    }

    /// Either stopping rule: the paper's step length, or the KKT violation.
    pub(super) fn stops(&self, diff: f64, violation: f64) -> bool {
        diff <= self.settings.tol || violation <= self.settings.kkt_tol
    }
}

/// Euclidean distance between two points.
pub(super) fn distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

/// `b = −ρ` by LIBSVM's `calculate_rho` on the fixed kernel: `s` are the variables'
/// signs, `grad` is `∇h` (LIBSVM's gradient is `−∇h`).
fn libsvm_bias(z: &[f64], c: f64, s: &[f64], grad: &[f64]) -> f64 {
    let (mut ub, mut lb) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut sum, mut free) = (0.0, 0usize);
    for i in 0..z.len() {
        let yg = -s[i] * grad[i];
        let at_upper = z[i] >= c;
        let at_lower = z[i] <= 0.0;
        if (at_upper && s[i] < 0.0) || (at_lower && s[i] > 0.0) {
            ub = ub.min(yg);
        } else if at_upper || at_lower {
            lb = lb.max(yg);
        } else {
            free += 1;
            sum += yg;
        }
    }
    let rho = if free > 0 {
        sum / free as f64
    } else {
        (ub + lb) / 2.0
    };
    -rho
}

#[cfg(test)]
mod tests {
    use super::super::testing::{blobs, gram, tight};
    use super::*;

    #[test]
    fn every_scheme_reaches_the_same_optimum() {
        let (x, y) = blobs(24, 2, 7);
        let k = gram(&x, 1.5);
        let problem = DankProblem {
            k: k.as_ref(),
            dual: Dual::Svm { y: &y },
            c: 1.0,
            eta: 0.5,
            tau: 0.01,
        };
        let l = 2.0 * lambda_max(k.as_ref()) + 2.0;
        let runs: Vec<DankSolution> = [
            tight(Scheme::Nesterov, StepRule::Backtracking),
            tight(Scheme::Nesterov, StepRule::Fixed(l)),
            tight(Scheme::NesterovMonotone, StepRule::Backtracking),
            tight(Scheme::ProjectedGradient, StepRule::Backtracking),
            tight(Scheme::Newton, StepRule::Backtracking),
        ]
        .iter()
        .map(|s| problem.solve(&[0.0; 24], s).unwrap())
        .collect();
        let best = runs.iter().map(|r| r.objective).fold(f64::MIN, f64::max);
        for r in &runs {
            assert!(r.converged);
            assert!(
                (r.objective - best).abs() < 1e-6 * best.abs(),
                "{} vs {best}",
                r.objective
            );
            assert!(distance(&r.z, &runs[0].z) < 1e-3);
            assert!((r.bias - runs[0].bias).abs() < 1e-3);
        }
        // The monotone variant's recorded objective never decreases by more than rounding
        // along θ; plain Nesterov's objective ends where the others end.
        let obj = runs[2].trace.column("objective").unwrap();
        assert!(obj.len() > 2);
        // Newton steps: a handful of iterations, each a line-search ascent, against
        // hundreds for the first-order schemes.
        let newton = &runs[4];
        assert!(newton.iterations <= 20, "{} iterations", newton.iterations);
        assert!(newton.iterations * 10 < runs[0].iterations);
        let obj = newton.trace.column("objective").unwrap();
        assert!(obj.windows(2).all(|w| w[1] > w[0]), "{obj:?}");
        let violation = newton.trace.column("violation").unwrap();
        assert!(*violation.last().unwrap() <= 1e-6);
    }
}
