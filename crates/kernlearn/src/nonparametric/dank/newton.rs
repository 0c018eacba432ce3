//! The Newton scheme ([`Scheme::Newton`](super::Scheme::Newton), the default): at each
//! `α_t`, SMO maximises the concave quadratic model of `h` with the curvature of
//! [`NewtonKernel`], and a line search on `h` along the segment to that maximiser gives
//! `α_{t+1}`. Not in the DANK paper (whose Algorithm 1 is first order); see the `dank`
//! module docs.

use super::objective::{AdaptiveMatrix, Dual, Point};
use super::solve::{distance, Run};
use crate::kernel::KernelSource;
use crate::svm::{solve_signed_qp, DualShape};
use crate::Result;
use faer::MatRef;
use rayon::prelude::*;

impl Run<'_, '_> {
    /// Newton steps by SMO with a line search on `h` ([`Scheme::Newton`](super::Scheme::Newton)): at `α_t` the
    /// model is the concave quadratic with `h`'s value, its gradient and the curvature
    /// `−SᵀQ_tS` of [`NewtonKernel`]; its maximiser `α̂` over the feasible set (SMO,
    /// warm-started at `α_t`) gives the direction `d = α̂ − α_t`, an ascent direction since
    /// `⟨∇h(α_t), d⟩ ≥ ½ dᵀSᵀQ_tSd ≥ 0`, with equality only where `α_t` maximises the model
    /// and so `h` (same gradient).
    pub(super) fn newton(&mut self, start: Vec<f64>) -> Result<(Point, usize, bool)> {
        let mut x = self.eval(start)?;
        for t in 0..self.settings.max_iter {
            let target = self.model_maximiser(&x)?;
            let d: Vec<f64> = target.iter().zip(&x.z).map(|(a, b)| a - b).collect();
            let slope: f64 = d.iter().zip(&x.grad).map(|(a, g)| a * g).sum();
            let Some((next, step)) = self.line_search(&x, &d, slope)? else {
                // No measurable ascent along d: α_t maximises the model to the SMO's
                // tolerance and h to rounding, the best this precision allows.
                let violation = self.violation(&x);
                self.step = 0.0;
                self.record(t, &x, 0.0, violation);
                return Ok((x, t + 1, true));
            };
            self.step = step;
            let diff = distance(&next.z, &x.z);
            let violation = self.violation(&next);
            self.record(t, &x, diff, violation);
            x = next;
            if self.stops(diff, violation) {
                return Ok((x, t + 1, true));
            }
        }
        Ok((x, self.settings.max_iter, false))
    }

    /// The maximiser of the Newton model at `x`: SMO on `Q_x` ([`NewtonKernel`]) with the
    /// linear term `∇h(x) + SᵀQ_x c(x)` (so that the model's gradient at `x` is `∇h(x)`),
    /// warm-started at `x`, to half the KKT stopping tolerance.
    fn model_maximiser(&self, x: &Point) -> Result<Vec<f64>> {
        let p = self.problem;
        let coef = p.coef(&x.z);
        let model = NewtonKernel::new(p.k, x.f.as_ref(), &coef, p.eta);
        // LIBSVM's minimisation form: the linear term is −(∇h + SᵀQc).
        let linear: Vec<f64> = x
            .grad
            .iter()
            .zip(p.spread(&model.apply(&coef)))
            .map(|(g, b)| -(g + b))
            .collect();
        let mut solver = self.settings.svm_solver;
        // Half the KKT tolerance; without one (stop on ‖Δα‖ only), as tight as f32 rows allow.
        solver.tol = solver.tol.min((0.5 * self.settings.kkt_tol).max(1e-9));
        let shape = match p.dual {
            Dual::Svm { y } => DualShape::Classification { y },
            Dual::SvmNoBias { y } => DualShape::ClassificationNoBias { y },
            Dual::Svr { .. } => DualShape::Regression,
        };
        solve_signed_qp(&model, shape, &linear, p.c, &x.z, &solver)
    }

    /// Backtracking (Armijo) on `h` along `x + s·d`, `s ∈ (0, 1]`, halving from `s = 1`
    /// or jumping to the maximiser of the quadratic through `h(x)`, `slope` and the
    /// rejected value. `None` when `d` is not an ascent direction or no step gains.
    fn line_search(&self, x: &Point, d: &[f64], slope: f64) -> Result<Option<(Point, f64)>> {
        if slope.is_nan() || slope <= 0.0 {
            return Ok(None);
        }
        let mut s = 1.0;
        while s >= 1e-10 {
            let z: Vec<f64> = x.z.iter().zip(d).map(|(a, b)| a + s * b).collect();
            let p = self.eval(z)?;
            let gain = p.value - x.value;
            if gain >= 1e-4 * s * slope {
                return Ok(Some((p, s)));
            }
            // φ(σ) ≈ h(x) + slope·σ + (gain − slope·s)σ²/s² peaks at this σ.
            let peak = 0.5 * slope * s * s / (slope * s - gain);
            s = peak.clamp(0.1 * s, 0.5 * s);
        }
        Ok(None)
    }
}

/// The curvature of the Newton model of `−h` in `c` ([`Scheme::Newton`](super::Scheme::Newton)):
/// `Q = F⊙K + (ccᵀ⊙K⊙K + diag((K⊙K)(c⊙c)))/(4η)`.
///
/// At τ = 0, `−h = −pᵀz + ½cᵀKc + (c⊙c)ᵀ(K⊙K)(c⊙c)/(16η)` is a quartic whose Hessian is
/// exactly `Q` (with `F⊙K = K + ccᵀ⊙K⊙K/(4η)`), so the steps are Newton's. For τ > 0,
/// `F = J_{τ/2}(11ᵀ + Γ)` replaces `11ᵀ + Γ` in the first term, and the change of the
/// soft-thresholded eigenpairs with `c` (divided differences over the whole spectrum) is
/// approximated by the τ = 0 term; the line search makes up for the difference. `F` is
/// formed once per Newton step from its factor (`F_ij = w_i·w_j`, the dot products the
/// entries used to repeat on every read: SMO reads the support's rows several times per
/// step), up to [`DENSE_F_ENTRIES`]; beyond, entries are computed on demand.
struct NewtonKernel<'a> {
    k: MatRef<'a, f64>,
    /// `W` of `F = WWᵀ`, row by row (`n × rank`); `None` at τ = 0 (`F = 11ᵀ + Γ`).
    factor: Option<(Vec<f64>, usize)>,
    /// `F` itself, row-major, when `n² ≤ DENSE_F_ENTRIES` (τ > 0 only).
    dense: Option<Vec<f64>>,
    coef: &'a [f64],
    /// `(K⊙K)(c⊙c)`.
    quartic_diag: Vec<f64>,
    /// `1/(4η)`.
    scale: f64,
}

impl<'a> NewtonKernel<'a> {
    fn new(k: MatRef<'a, f64>, f: Option<&AdaptiveMatrix>, coef: &'a [f64], eta: f64) -> Self {
        let factor = f.map(|f| {
            let w = &f.factor;
            let rows = (0..w.nrows())
                .flat_map(|i| (0..w.ncols()).map(move |r| w[(i, r)]))
                .collect::<Vec<f64>>();
            (rows, w.ncols())
        });
        let n = k.nrows();
        let dense = factor
            .as_ref()
            .filter(|_| n * n <= DENSE_F_ENTRIES)
            .map(|(rows, rank)| {
                // The lower triangle, then its mirror: w_i·w_j and w_j·w_i are the same bits.
                let mut f = vec![0.0; n * n];
                f.par_chunks_mut(n.max(1)).enumerate().for_each(|(i, out)| {
                    let wi = &rows[i * rank..(i + 1) * rank];
                    for (j, o) in out[..=i].iter_mut().enumerate() {
                        *o = dot(wi, &rows[j * rank..(j + 1) * rank]);
                    }
                });
                for i in 0..n {
                    for j in 0..i {
                        f[j * n + i] = f[i * n + j];
                    }
                }
                f
            });
        let support: Vec<usize> = (0..n).filter(|&j| coef[j] != 0.0).collect();
        // K is symmetric and column-major: (j, i) walks row i contiguously.
        let quartic_diag = (0..n)
            .into_par_iter()
            .map(|i| support.iter().map(|&j| (k[(j, i)] * coef[j]).powi(2)).sum())
            .collect();
        Self {
            k,
            factor,
            dense,
            coef,
            quartic_diag,
            scale: 1.0 / (4.0 * eta),
        }
    }

    fn entry(&self, i: usize, j: usize) -> f64 {
        let kij = self.k[(j, i)];
        let cross = self.scale * self.coef[i] * self.coef[j] * kij;
        let f = match (&self.dense, &self.factor) {
            (Some(f), _) => f[i * self.k.nrows() + j],
            (None, Some((rows, rank))) => dot(
                &rows[i * rank..(i + 1) * rank],
                &rows[j * rank..(j + 1) * rank],
            ),
            (None, None) => 1.0 + cross,
        };
        let diag = if i == j {
            self.scale * self.quartic_diag[i]
        } else {
            0.0
        };
        kij * (f + cross) + diag
    }

    /// `Qv`, over the non-zero entries of `v` only (`v` is `c`, zero off the support).
    fn apply(&self, v: &[f64]) -> Vec<f64> {
        let nonzero: Vec<usize> = (0..v.len()).filter(|&j| v[j] != 0.0).collect();
        (0..v.len())
            .into_par_iter()
            .map(|i| nonzero.iter().map(|&j| self.entry(i, j) * v[j]).sum())
            .collect()
    }
}

/// Largest `F` (entries) a Newton step forms densely: 2²⁴ doubles, 128 MiB, at most the
/// size of the `K` the fit already holds up to n = 4096.
const DENSE_F_ENTRIES: usize = 1 << 24;

/// `aᵀb` in index order (the dense and on-demand `F` entries are the same bits).
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

impl KernelSource for NewtonKernel<'_> {
    fn len(&self) -> usize {
        self.k.nrows()
    }

    fn diag(&self, i: usize) -> f64 {
        self.entry(i, i)
    }

    fn fill_row(&self, i: usize, cols: &[usize], out: &mut [f32]) {
        for (o, &j) in out.iter_mut().zip(cols) {
            *o = self.entry(i, j) as f32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{blobs, gram, tight};
    use super::super::{DankProblem, DankSettings, EigenRoute, Scheme, StepRule};
    use super::*;

    #[test]
    fn newton_steps_converge_fast_on_the_quartic_and_stop_on_kkt() {
        // τ = 0: the model is the exact Hessian, so the violation falls quadratically.
        let (x, y) = blobs(60, 2, 11);
        let k = gram(&x, 0.7);
        for tau in [0.0, 0.01] {
            let problem = DankProblem {
                k: k.as_ref(),
                dual: Dual::Svm { y: &y },
                c: 4.0,
                eta: 2.0,
                tau,
            };
            let settings = DankSettings {
                kkt_tol: 1e-3,
                ..DankSettings::default()
            };
            let z0 = vec![0.0; 60];
            let sol = problem.solve(&z0, &settings).unwrap();
            assert!(
                sol.converged && sol.iterations <= 15,
                "τ = {tau}: {}",
                sol.iterations
            );
            let grad = problem
                .evaluate(sol.z.clone(), EigenRoute::Reduced)
                .unwrap()
                .grad;
            assert!(problem.kkt_violation(&sol.z, &grad) <= 1e-3);
            // The reference: Nesterov to a tight tolerance reaches the same h.
            let reference = problem
                .solve(&z0, &tight(Scheme::Nesterov, StepRule::Backtracking))
                .unwrap();
            let gap = (reference.objective - sol.objective) / reference.objective.abs();
            assert!(gap.abs() < 1e-6, "τ = {tau}: relative gap {gap}");
        }
    }
}
