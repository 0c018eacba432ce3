//! The DANK objective. For fixed dual variables the inner minimiser is
//! `F(α) = J_{τ/2}(11ᵀ + Γ(α))` (DANK paper, section 3.1, eqs. 8–9; [`adaptive_matrix`]),
//! and [`DankProblem`] evaluates `h(α) = H(α, F(α))` and its gradient (Danskin; eq. 11
//! for SVM, eq. 18 for SVR with the sign of the `α̌` part corrected), the KKT violation
//! of the dual on `F⊙K`, and the projection onto the feasible set.

use super::settings::EigenRoute;
use crate::check::{non_negative_finite, positive_finite};
use crate::linalg::symmetric_eigen;
use crate::nonparametric::projection::project_box_equality;
use crate::{Error, Result};
use faer::{Mat, MatRef};

/// `F = J_{τ/2}(11ᵀ + Γ)` as `F = WWᵀ`, with every eigenvalue of `11ᵀ + Γ` that can be
/// non-zero (for the objective).
#[derive(Clone, Debug)]
pub(crate) struct AdaptiveMatrix {
    /// `n × r` factor over the `r` eigenvalues above `τ/2`: `W = V_r diag(√(λ_r − τ/2))`.
    pub factor: Mat<f64>,
    /// Eigenvalues of `11ᵀ + Γ` (the rest are zero).
    pub eigenvalues: Vec<f64>,
}

impl AdaptiveMatrix {
    /// `F` itself (`n × n`).
    pub(crate) fn matrix(&self) -> Mat<f64> {
        &self.factor * self.factor.transpose()
    }

    /// Rank of `F`.
    pub(crate) fn rank(&self) -> usize {
        self.factor.ncols()
    }
}

/// `F(c) = J_{τ/2}(11ᵀ + diag(c)Kdiag(c)/(4η))` (eqs. 8–9), by the given route.
pub(super) fn adaptive_matrix(
    k: MatRef<'_, f64>,
    coef: &[f64],
    eta: f64,
    tau: f64,
    route: EigenRoute,
) -> Result<AdaptiveMatrix> {
    let n = k.nrows();
    let gamma = |i: usize, j: usize| coef[i] * coef[j] * k[(i, j)] / (4.0 * eta);
    // Basis of the subspace carrying 11ᵀ + Γ: one unit vector per index in `rows`, plus
    // (when `rest > 0`) the normalised indicator of the other `rest` indices.
    let (rows, rest): (Vec<usize>, usize) = match route {
        EigenRoute::Full => ((0..n).collect(), 0),
        EigenRoute::Reduced => {
            let s: Vec<usize> = (0..n).filter(|&i| coef[i] != 0.0).collect();
            let rest = n - s.len();
            (s, rest)
        }
    };
    let s = rows.len();
    let dim = s + usize::from(rest > 0);
    let root = (rest as f64).sqrt();
    let b = Mat::from_fn(dim, dim, |i, j| match (i < s, j < s) {
        (true, true) => 1.0 + gamma(rows[i], rows[j]),
        (false, false) => rest as f64,
        _ => root,
    });
    let eig = symmetric_eigen(b.as_ref())?;
    let kept: Vec<(usize, f64)> = (0..dim)
        .map(|q| (q, eig.values[q] - tau / 2.0))
        .filter(|&(_, f)| f > 0.0)
        .collect();
    let mut factor = Mat::<f64>::zeros(n, kept.len());
    let in_rows = {
        let mut mark = vec![false; n];
        rows.iter().for_each(|&i| mark[i] = true);
        mark
    };
    for (r, &(q, f)) in kept.iter().enumerate() {
        let scale = f.sqrt();
        for (i, &row) in rows.iter().enumerate() {
            factor[(row, r)] = eig.vectors[(i, q)] * scale;
        }
        if rest > 0 {
            let v = eig.vectors[(s, q)] * scale / root;
            for j in (0..n).filter(|&j| !in_rows[j]) {
                factor[(j, r)] = v;
            }
        }
    }
    Ok(AdaptiveMatrix {
        factor,
        eigenvalues: eig.values,
    })
}

/// Which dual DANK is embedded in.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Dual<'a> {
    /// C-SVC, labels ±1: `z = α`, `c = Yα`, constraint `yᵀα = 0`.
    Svm {
        /// Labels (`> 0` is +1).
        y: &'a [f64],
    },
    /// C-SVC without bias (section 5, problems 21–22): `z = α`, `c = Yα`, only the box
    /// `0 ≤ α ≤ C` (the projection is a clip) and `b = 0`.
    SvmNoBias {
        /// Labels (`> 0` is +1).
        y: &'a [f64],
    },
    /// ε-SVR: `z = [α̂; α̌]`, `c = α̂ − α̌`, constraint `1ᵀ(α̂ − α̌) = 0`.
    Svr {
        /// Targets.
        y: &'a [f64],
        /// Tube width ε.
        epsilon: f64,
    },
}

/// One DANK problem: Gram matrix, dual, C, η, τ.
pub(crate) struct DankProblem<'a> {
    /// Gram matrix `K` of the base kernel.
    pub k: MatRef<'a, f64>,
    /// SVM or SVR.
    pub dual: Dual<'a>,
    /// Box bound C.
    pub c: f64,
    /// η (> 0).
    pub eta: f64,
    /// τ (≥ 0).
    pub tau: f64,
}

/// `h`, `∇h` and `F` at one point (`F` is not formed on the τ = 0 path).
#[derive(Clone)]
pub(super) struct Point {
    pub(super) z: Vec<f64>,
    pub(super) value: f64,
    pub(super) grad: Vec<f64>,
    pub(super) f: Option<AdaptiveMatrix>,
}

impl DankProblem<'_> {
    pub(super) fn n(&self) -> usize {
        self.k.nrows()
    }

    /// Checks the shapes and parameters.
    pub(crate) fn validate(&self) -> Result<()> {
        let n = self.n();
        let y = match self.dual {
            Dual::Svm { y } | Dual::SvmNoBias { y } | Dual::Svr { y, .. } => y,
        };
        if self.k.ncols() != n || y.len() != n || n == 0 {
            return Err(Error::data(format!(
                "DANK: Gram matrix {}×{} and {} labels do not match",
                n,
                self.k.ncols(),
                y.len()
            )));
        }
        positive_finite("C", self.c)?;
        if let Dual::Svr { epsilon, .. } = self.dual {
            non_negative_finite("epsilon", epsilon)?;
        }
        positive_finite("eta", self.eta)?;
        non_negative_finite("tau", self.tau)?;
        if y.iter().any(|v| !v.is_finite()) {
            return Err(Error::data("DANK: non-finite label or target"));
        }
        Ok(())
    }

    /// Length of `z`.
    pub(crate) fn dim(&self) -> usize {
        match self.dual {
            Dual::Svm { .. } | Dual::SvmNoBias { .. } => self.n(),
            Dual::Svr { .. } => 2 * self.n(),
        }
    }

    /// Signs `s` of the variables (`y_i` for SVM, `[+1; −1]` for SVR): `c = Sz` and
    /// the constraint (when there is one) is `sᵀz = 0`.
    pub(super) fn signs(&self) -> Vec<f64> {
        match self.dual {
            Dual::Svm { y } | Dual::SvmNoBias { y } => y
                .iter()
                .map(|&v| if v > 0.0 { 1.0 } else { -1.0 })
                .collect(),
            Dual::Svr { y, .. } => (0..2 * y.len())
                .map(|i| if i < y.len() { 1.0 } else { -1.0 })
                .collect(),
        }
    }

    /// `Sᵀv`: each variable's sign times `v` at its point.
    pub(super) fn spread(&self, v: &[f64]) -> Vec<f64> {
        match self.dual {
            Dual::Svm { y } | Dual::SvmNoBias { y } => v
                .iter()
                .zip(y)
                .map(|(a, &b)| if b > 0.0 { *a } else { -a })
                .collect(),
            Dual::Svr { .. } => v.iter().copied().chain(v.iter().map(|a| -a)).collect(),
        }
    }

    /// `c = Sz`.
    pub(crate) fn coef(&self, z: &[f64]) -> Vec<f64> {
        let n = self.n();
        match self.dual {
            Dual::Svm { .. } | Dual::SvmNoBias { .. } => {
                z.iter().zip(self.signs()).map(|(a, s)| a * s).collect()
            }
            Dual::Svr { .. } => (0..n).map(|i| z[i] - z[n + i]).collect(),
        }
    }

    /// Linear part `pᵀz`: `1ᵀα`, or `cᵀy − ε1ᵀz`.
    fn linear(&self, z: &[f64], c: &[f64]) -> f64 {
        match self.dual {
            Dual::Svm { .. } | Dual::SvmNoBias { .. } => z.iter().sum(),
            Dual::Svr { y, epsilon } => {
                c.iter().zip(y).map(|(a, b)| a * b).sum::<f64>() - epsilon * z.iter().sum::<f64>()
            }
        }
    }

    /// `∇h = p − Sᵀg` with `g = (F⊙K)c`.
    fn gradient(&self, g: &[f64]) -> Vec<f64> {
        match self.dual {
            Dual::Svm { y } | Dual::SvmNoBias { y } => g
                .iter()
                .zip(y)
                .map(|(gi, &yi)| 1.0 - if yi > 0.0 { *gi } else { -*gi })
                .collect(),
            Dual::Svr { y, epsilon } => {
                let up = g.iter().zip(y).map(|(gi, yi)| yi - epsilon - gi);
                let down = g.iter().zip(y).map(|(gi, yi)| -yi - epsilon + gi);
                up.chain(down).collect()
            }
        }
    }

    /// Largest violation of the KKT conditions at `z` for the ascent gradient `grad`.
    /// With the equality `sᵀz = 0` it is LIBSVM's `m(z) − M(z)`,
    /// `m = max_{I_up} s_i∇h_i`, `M = min_{I_low} s_i∇h_i`,
    /// `I_up = {z_i < C, s_i > 0} ∪ {z_i > 0, s_i < 0}` and `I_low` the other way round
    /// (Fan, Chen and Lin 2005, eq. 8). In the box-only dual it is the largest
    /// projected-gradient entry. Zero exactly at the maximiser of `h` over the
    /// feasible set, since `h` is concave and differentiable (F(α) is unique).
    pub(crate) fn kkt_violation(&self, z: &[f64], grad: &[f64]) -> f64 {
        let signs = self.signs();
        let (mut up, mut low) = (f64::NEG_INFINITY, f64::INFINITY);
        for ((&zi, &gi), &si) in z.iter().zip(grad).zip(&signs) {
            let (below_c, above_0) = (zi < self.c, zi > 0.0);
            if let Dual::SvmNoBias { .. } = self.dual {
                // Box only: α_i can rise while below C, fall while above 0.
                if below_c {
                    up = up.max(gi);
                }
                if above_0 {
                    up = up.max(-gi);
                }
                continue;
            }
            let sg = si * gi;
            if (si > 0.0 && below_c) || (si < 0.0 && above_0) {
                up = up.max(sg);
            }
            if (si < 0.0 && below_c) || (si > 0.0 && above_0) {
                low = low.min(sg);
            }
        }
        match self.dual {
            Dual::SvmNoBias { .. } => up.max(0.0),
            _ if up.is_finite() && low.is_finite() => (up - low).max(0.0),
            _ => 0.0,
        }
    }

    /// Euclidean projection onto the feasible set (a clip when there is no equality).
    pub(super) fn project(&self, v: &[f64]) -> Result<Vec<f64>> {
        match self.dual {
            Dual::SvmNoBias { .. } => Ok(v.iter().map(|a| a.clamp(0.0, self.c)).collect()),
            _ => project_box_equality(v, &vec![self.c; v.len()], &self.signs(), 0.0),
        }
    }

    /// `h(z)`, `∇h(z)` and `F(z)` (see the `dank` module docs for the closed form of `h`).
    pub(super) fn evaluate(&self, z: Vec<f64>, route: EigenRoute) -> Result<Point> {
        if self.tau == 0.0 && route == EigenRoute::Reduced {
            return Ok(self.evaluate_unshrunk(z));
        }
        let n = self.n();
        let c = self.coef(&z);
        let f = adaptive_matrix(self.k, &c, self.eta, self.tau, route)?;
        let support: Vec<usize> = (0..n).filter(|&i| c[i] != 0.0).collect();
        // g = (F⊙K)c = Σ_r w_r ⊙ K(w_r ⊙ c), over the support columns only.
        let w = &f.factor;
        let k_cols = Mat::from_fn(n, support.len(), |i, j| self.k[(i, support[j])]);
        let wc = Mat::from_fn(support.len(), w.ncols(), |j, r| {
            w[(support[j], r)] * c[support[j]]
        });
        let prod = &k_cols * &wc;
        let g: Vec<f64> = (0..n)
            .map(|i| (0..w.ncols()).map(|r| w[(i, r)] * prod[(i, r)]).sum())
            .collect();
        let (mut quad, mut quad4) = (0.0, 0.0);
        for &i in &support {
            for &j in &support {
                let m = c[i] * c[j] * self.k[(i, j)];
                quad += m;
                quad4 += m * m;
            }
        }
        let half = self.tau / 2.0;
        let shrink: f64 = f
            .eigenvalues
            .iter()
            .map(|&l| l.min(half).powi(2) + self.tau * (l - half).max(0.0))
            .sum();
        let value =
            self.linear(&z, &c) - 0.5 * quad - quad4 / (16.0 * self.eta) + self.eta * shrink;
        Ok(Point {
            grad: self.gradient(&g),
            z,
            value,
            f: Some(f),
        })
    }

    /// The τ = 0 path: `Γ(α)` is PSD (a Hadamard product of PSD matrices), so
    /// `F = J_0(11ᵀ + Γ) = 11ᵀ + Γ` needs no eigendecomposition, and with
    /// `u = Kc`, `v = (K⊙K)(c⊙c)`: `(F⊙K)c = u + c⊙v/(4η)`,
    /// `h = pᵀz − ½cᵀu − (c⊙c)ᵀv/(16η)` (the eigenvalue terms of the closed form vanish).
    fn evaluate_unshrunk(&self, z: Vec<f64>) -> Point {
        let n = self.n();
        let c = self.coef(&z);
        let (mut u, mut v) = (vec![0.0; n], vec![0.0; n]);
        for j in (0..n).filter(|&j| c[j] != 0.0) {
            let (cj, cj2) = (c[j], c[j] * c[j]);
            for (i, (ui, vi)) in u.iter_mut().zip(v.iter_mut()).enumerate() {
                let kij = self.k[(i, j)];
                *ui += kij * cj;
                *vi += kij * kij * cj2;
            }
        }
        let quad: f64 = c.iter().zip(&u).map(|(a, b)| a * b).sum();
        let quad4: f64 = c.iter().zip(&v).map(|(a, b)| a * a * b).sum();
        let g: Vec<f64> = (0..n)
            .map(|i| u[i] + c[i] * v[i] / (4.0 * self.eta))
            .collect();
        let value = self.linear(&z, &c) - 0.5 * quad - quad4 / (16.0 * self.eta);
        Point {
            grad: self.gradient(&g),
            z,
            value,
            f: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::solve::distance;
    use super::super::testing::{blobs, gram, tight};
    use super::super::{Scheme, StepRule};
    use super::*;
    use crate::linalg::shrink_psd;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn random_coef(n: usize, seed: u64) -> Vec<f64> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..n)
            .map(|_| {
                if rng.random_bool(0.4) {
                    0.0
                } else {
                    rng.random_range(-1.0..1.0)
                }
            })
            .collect()
    }

    #[test]
    fn reduced_and_full_routes_give_the_same_psd_f() {
        let (x, _) = blobs(40, 2, 1);
        let k = gram(&x, 2.0);
        let c = random_coef(40, 2);
        let eta = 0.3;
        let tau = 0.01;
        let reduced = adaptive_matrix(k.as_ref(), &c, eta, tau, EigenRoute::Reduced).unwrap();
        let full = adaptive_matrix(k.as_ref(), &c, eta, tau, EigenRoute::Full).unwrap();
        let (fr, ff) = (reduced.matrix(), full.matrix());
        assert!((&fr - &ff).norm_l2() < 1e-9, "{}", (&fr - &ff).norm_l2());
        assert!(reduced.eigenvalues.len() < full.eigenvalues.len());
        // Independent reference: J_{τ/2} of the explicit matrix by linalg::shrink_psd.
        let a = Mat::from_fn(40, 40, |i, j| 1.0 + c[i] * c[j] * k[(i, j)] / (4.0 * eta));
        let reference = shrink_psd(a.as_ref(), tau / 2.0).unwrap();
        assert!((&fr - &reference).norm_l2() < 1e-9);
        let eig = symmetric_eigen(fr.as_ref()).unwrap();
        assert!(eig.values[0] > -1e-10, "F not PSD: {}", eig.values[0]);
        assert!(reduced.rank() < 40);
    }

    /// `H(α, F)` straight from its definition (problem 5).
    fn objective_by_definition(k: &Mat<f64>, y: &[f64], alpha: &[f64], eta: f64, tau: f64) -> f64 {
        let n = y.len();
        let c: Vec<f64> = alpha.iter().zip(y).map(|(a, b)| a * b).collect();
        let f = adaptive_matrix(k.as_ref(), &c, eta, tau, EigenRoute::Full)
            .unwrap()
            .matrix();
        let mut quad = 0.0;
        let mut dist = 0.0;
        let mut trace = 0.0;
        for i in 0..n {
            trace += f[(i, i)];
            for j in 0..n {
                quad += c[i] * c[j] * f[(i, j)] * k[(i, j)];
                dist += (f[(i, j)] - 1.0).powi(2);
            }
        }
        alpha.iter().sum::<f64>() - 0.5 * quad + eta * dist + tau * eta * trace
    }

    #[test]
    fn objective_and_gradient_match_definition_and_finite_differences() {
        let (x, y) = blobs(30, 2, 3);
        let k = gram(&x, 1.0);
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let alpha: Vec<f64> = (0..30).map(|_| rng.random_range(0.0..1.0)).collect();
        let problem = DankProblem {
            k: k.as_ref(),
            dual: Dual::Svm { y: &y },
            c: 1.0,
            eta: 0.5,
            tau: 0.01,
        };
        for route in [EigenRoute::Reduced, EigenRoute::Full] {
            let p = problem.evaluate(alpha.clone(), route).unwrap();
            let want = objective_by_definition(&k, &y, &alpha, 0.5, 0.01);
            assert!(
                (p.value - want).abs() < 1e-8 * want.abs().max(1.0),
                "{} vs {want}",
                p.value
            );
            // Danskin: ∇h is the partial gradient at F(α); check by central differences.
            for i in [0, 7, 19] {
                let h = 1e-5;
                let mut up = alpha.clone();
                up[i] += h;
                let mut down = alpha.clone();
                down[i] -= h;
                let fd = (objective_by_definition(&k, &y, &up, 0.5, 0.01)
                    - objective_by_definition(&k, &y, &down, 0.5, 0.01))
                    / (2.0 * h);
                assert!(
                    (p.grad[i] - fd).abs() < 1e-5,
                    "coordinate {i}: {} vs {fd}",
                    p.grad[i]
                );
            }
        }
    }

    #[test]
    fn tau_zero_path_matches_the_eigendecomposition_route() {
        // F = 11ᵀ + Γ without an eigendecomposition vs J_0 by the full n × n route,
        // for the SVM duals with and without the equality, and the SVR dual.
        let (x, y) = blobs(30, 2, 11);
        let k = gram(&x, 1.0);
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        let z: Vec<f64> = (0..60)
            .map(|i| {
                if i % 3 == 0 {
                    0.0
                } else {
                    rng.random_range(0.0..1.0)
                }
            })
            .collect();
        for dual in [
            Dual::Svm { y: &y },
            Dual::SvmNoBias { y: &y },
            Dual::Svr {
                y: &y,
                epsilon: 0.1,
            },
        ] {
            let problem = DankProblem {
                k: k.as_ref(),
                dual,
                c: 1.0,
                eta: 0.3,
                tau: 0.0,
            };
            let z = &z[..problem.dim()];
            let fast = problem.evaluate(z.to_vec(), EigenRoute::Reduced).unwrap();
            let full = problem.evaluate(z.to_vec(), EigenRoute::Full).unwrap();
            assert!(fast.f.is_none() && full.f.is_some());
            assert!((fast.value - full.value).abs() < 1e-9 * full.value.abs().max(1.0));
            assert!(distance(&fast.grad, &full.grad) < 1e-9);
        }
        // The box-only dual projects by clipping, and its bias is zero.
        let problem = DankProblem {
            k: k.as_ref(),
            dual: Dual::SvmNoBias { y: &y },
            c: 0.5,
            eta: 0.3,
            tau: 0.0,
        };
        let v: Vec<f64> = (0..30).map(|i| i as f64 / 10.0 - 1.0).collect();
        let clipped = problem.project(&v).unwrap();
        assert!(v.iter().zip(&clipped).all(|(a, b)| *b == a.clamp(0.0, 0.5)));
        let sol = problem.solve(&[0.0; 30], &tight(Scheme::Nesterov, StepRule::Backtracking));
        assert_eq!(sol.unwrap().bias, 0.0);
    }

    #[test]
    fn kkt_violation_has_its_closed_form_at_zero() {
        // At α = 0, ∇h = 1: m = max over y = +1 of y·1 = 1, M = min over y = −1 = −1.
        let (x, y) = blobs(20, 2, 12);
        let k = gram(&x, 1.0);
        let problem = DankProblem {
            k: k.as_ref(),
            dual: Dual::Svm { y: &y },
            c: 1.0,
            eta: 1.0,
            tau: 0.01,
        };
        let grad = problem
            .evaluate(vec![0.0; 20], EigenRoute::Reduced)
            .unwrap()
            .grad;
        assert!((problem.kkt_violation(&[0.0; 20], &grad) - 2.0).abs() < 1e-12);
        // Box only: every coordinate can rise with slope 1.
        let free = DankProblem {
            dual: Dual::SvmNoBias { y: &y },
            ..problem
        };
        assert!((free.kkt_violation(&[0.0; 20], &grad) - 1.0).abs() < 1e-12);
    }
}
