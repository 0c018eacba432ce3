//! Radius–margin refinement of the ARD widths (Chapelle, Vapnik, Bousquet and Mukherjee,
//! "Choosing multiple parameters for support vector machines", Machine Learning 46,
//! 2002, §3–4): from the alignment's widths, gradient descent in `θ = log γ` on
//!
//! `T(θ) = R²(θ) ‖w(θ)‖²`,
//!
//! the radius–margin bound on the leave-one-out errors of the L2-SVM, i.e. the
//! hard-margin SVM on `K̃ = K + I/C`. The alignment measures how well the kernel matches
//! the labels; `T` measures the machine the kernel is for. With `a = y ∘ α` the SVM's
//! dual solution and `β` the weights of the smallest ball enclosing the points in
//! feature space (`min βᵀK̃β` on the simplex: LIBSVM's one-class problem with `ν = 1/n`),
//!
//! `‖w‖² = Σ α`, `R² = K̃_ii − βᵀK̃β` (the Gaussian's diagonal is constant), and, since
//! both are optima of their QPs, their derivatives need no derivative of `α` or `β`:
//! `∂‖w‖²/∂θ_k = −aᵀ ∂K a`, `∂R²/∂θ_k = −βᵀ ∂K β`, with
//! `∂K_ij/∂θ_k = −γ_k (x_ik − x_jk)² K_ij`.

use super::alignment::{ard_gram, Widths};
use crate::kernel::PrecomputedKernel;
use crate::svm::{solve_c_svc, solve_one_class, SolverSettings};
use crate::Result;
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, Par};

/// "Hard" margin for the L2-SVM: a box the dual never reaches on `K + I/C`.
const HARD: f64 = 1e12;

/// Most descent steps; each takes two QP solves per trial point.
const STEPS: usize = 20;

/// Relative decrease of `T` below which the descent stops.
const TOLERANCE: f64 = 1e-4;

/// The bound at some widths, with what its gradient needs.
struct Bound {
    value: f64,
    /// `K` (without the ridge).
    k: Mat<f64>,
    /// `a = y ∘ α` of the L2-SVM and `‖w‖² = Σ α`.
    a: Vec<f64>,
    w2: f64,
    /// The enclosing ball's weights `β` and `R²`.
    beta: Vec<f64>,
    r2: f64,
}

/// `Σ_ij u_i u_j K_ij (x_ik − x_jk)²` for every feature `k`:
/// `2 Σ_i (u_i (Ku)_i x_ik² − u_i x_ik (K (u ∘ X))_ik)`, one `n × n × d` product.
fn weighted_spreads(x: &Mat<f64>, k: &Mat<f64>, u: &[f64]) -> Vec<f64> {
    let (n, d) = (x.nrows(), x.ncols());
    let ux = Mat::from_fn(n, d, |i, f| u[i] * x[(i, f)]);
    let mut m = Mat::<f64>::zeros(n, d);
    matmul(m.as_mut(), Accum::Replace, k, &ux, 1.0, Par::rayon(0));
    let ku: Vec<f64> = (0..n)
        .map(|i| (0..n).map(|j| k[(i, j)] * u[j]).sum())
        .collect();
    (0..d)
        .map(|f| {
            2.0 * (0..n)
                .map(|i| {
                    let v = x[(i, f)];
                    u[i] * ku[i] * v * v - ux[(i, f)] * m[(i, f)]
                })
                .sum::<f64>()
        })
        .collect()
}

/// `T` at `gammas` on rows `x` with labels `y ∈ {±1}` and trade-off `c`: one L2-SVM
/// and one enclosing-ball solve on `K + I/C`.
fn bound(x: &Mat<f64>, y: &[f64], gammas: &[f64], c: f64) -> Result<Bound> {
    let n = x.nrows();
    let k = ard_gram(x, gammas);
    // K̃ = K + I/C, symmetric by construction (the upper triangle mirrored).
    let values: Vec<f64> = (0..n * n)
        .map(|t| {
            let (i, j) = (t / n, t % n);
            k[(i.min(j), i.max(j))] + if i == j { 1.0 / c } else { 0.0 }
        })
        .collect();
    let source = PrecomputedKernel::from_symmetric_row_major(n, values)?;
    let settings = SolverSettings {
        tol: 1e-5,
        ..SolverSettings::default()
    };
    let a = solve_c_svc(&source, y, HARD, HARD, &settings, None)?.coef;
    let beta = solve_one_class(&source, 1.0 / n as f64, &settings)?.coef;
    let w2: f64 = a.iter().map(|v| v.abs()).sum();
    let quad: f64 = (0..n)
        .map(|i| beta[i] * (0..n).map(|j| k[(i, j)] * beta[j]).sum::<f64>())
        .sum::<f64>()
        + beta.iter().map(|b| b * b).sum::<f64>() / c;
    let r2 = (1.0 + 1.0 / c - quad).max(0.0);
    Ok(Bound {
        value: r2 * w2,
        k,
        a,
        w2,
        beta,
        r2,
    })
}

/// `∇_θ T` at `gammas` from the bound's solutions there (module docs).
fn gradient(x: &Mat<f64>, gammas: &[f64], at: &Bound) -> Vec<f64> {
    let dw = weighted_spreads(x, &at.k, &at.a);
    let dr = weighted_spreads(x, &at.k, &at.beta);
    (gammas.iter().zip(dw.iter().zip(&dr)))
        .map(|(g, (w, r))| g * (r * at.w2 + at.r2 * w))
        .collect()
}

/// The widths after descent on the radius–margin bound from `gammas`, on rows `x`
/// (a sample, `O(n²)` memory) with binary labels `y ∈ {±1}` and the SVM's `c`; the
/// widths of `groups` (`groups[k]`: feature `k`'s width, empty: one per feature) move
/// together. Backtracking from a step that changes some `log γ` by 1: a trial point
/// is taken when it lowers `T`; the gradient is computed at taken points only.
pub(crate) fn refine(
    x: &Mat<f64>,
    y: &[f64],
    gammas: &[f64],
    c: f64,
    groups: &[usize],
) -> Result<Vec<f64>> {
    let widths = Widths::new(groups, gammas.len())?;
    let log: Vec<f64> = gammas.iter().map(|g| g.ln()).collect();
    let mut theta = widths.of_features(&log);
    let gammas_at =
        |t: &[f64]| -> Vec<f64> { widths.per_feature(t).iter().map(|v| v.exp()).collect() };
    let mut at = bound(x, y, gammas, c)?;
    for _ in 0..STEPS {
        let per_feature = gradient(x, &gammas_at(&theta), &at);
        let g: Vec<f64> = widths
            .per_width(&per_feature)
            .iter()
            .map(|v| v / at.value)
            .collect();
        let largest = g.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        if !(largest.is_finite() && largest > 0.0) {
            break;
        }
        let mut step = 1.0 / largest;
        let mut taken = None;
        for _ in 0..8 {
            let trial: Vec<f64> = theta.iter().zip(&g).map(|(t, d)| t - step * d).collect();
            let b = bound(x, y, &gammas_at(&trial), c)?;
            if b.value < at.value {
                taken = Some((trial, b));
                break;
            }
            step /= 2.0;
        }
        let Some((trial, b)) = taken else { break };
        let gain = (at.value - b.value) / at.value;
        (theta, at) = (trial, b);
        if gain < TOLERANCE {
            break;
        }
    }
    Ok(gammas_at(&theta))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` seeded U(0, 1) rows of `d` features, labelled +1 where `positive(row)`.
    fn sample(n: usize, d: usize, seed: u64, positive: fn(&[f64]) -> bool) -> (Mat<f64>, Vec<f64>) {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let rows: Vec<Vec<f64>> = (0..n)
            .map(|_| (0..d).map(|_| rng.random()).collect())
            .collect();
        let x = Mat::from_fn(n, d, |i, k| rows[i][k]);
        let y = rows
            .iter()
            .map(|r| if positive(r) { 1.0 } else { -1.0 })
            .collect();
        (x, y)
    }

    /// The analytic gradient of `T` matches central differences in `log γ`.
    #[test]
    fn the_bound_gradient_matches_finite_differences() {
        let (n, d) = (40, 3);
        let (x, y) = sample(n, d, 3, |r| r[0] + 0.3 * r[1] > 0.6);
        let gammas = [2.0, 0.7, 0.3];
        let at = bound(&x, &y, &gammas, 2.0).unwrap();
        let analytic = gradient(&x, &gammas, &at);
        for k in 0..d {
            let h = 1e-2;
            let moved = |s: f64| {
                let mut g = gammas;
                g[k] *= (s * h).exp();
                bound(&x, &y, &g, 2.0).unwrap().value
            };
            let fd = (moved(1.0) - moved(-1.0)) / (2.0 * h);
            let rel = (fd - analytic[k]).abs() / fd.abs().max(1e-3);
            assert!(rel < 2e-2, "feature {k}: analytic {} vs {fd}", analytic[k]);
        }
    }

    /// On labels set by feature 0 alone, descent from equal widths lowers the bound and
    /// moves the width of feature 0 above the others'.
    #[test]
    fn descent_lowers_the_bound_and_favours_the_informative_feature() {
        let (x, y) = sample(80, 4, 5, |r| (r[0] - 0.5).abs() < 0.25);
        let start = [1.0; 4];
        let refined = refine(&x, &y, &start, 4.0, &[]).unwrap();
        let before = bound(&x, &y, &start, 4.0).unwrap().value;
        let after = bound(&x, &y, &refined, 4.0).unwrap().value;
        assert!(after < before, "{after} vs {before}");
        assert!(refined[1..].iter().all(|&g| g < refined[0]), "{refined:?}");
    }
}
