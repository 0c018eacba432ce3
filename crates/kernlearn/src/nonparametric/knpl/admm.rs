//! The G-step of KNPL (KNPL paper, section "Optimization for G via ADMM"): with α
//! fixed, `H(α, ·)` is `γ‖G − Γ(α)‖²_F` up to a constant ([`gamma_target`], eqs. 12–13),
//! so the new `G` is the Frobenius projection of `Γ(α)` onto `S₊ ∩ {G1 = n1}`, computed
//! by the ADMM of Algorithm 1 ([`admm_projection`]). Also the objective `H(α, G)` of
//! problem (4) ([`knpl_objective`]).

use super::params::KnplParams;
use crate::linalg::project_psd;
use crate::simd::with_simd;
use crate::Result;
use faer::{Mat, MatRef};
use rayon::prelude::*;

/// `Γ(α) = (1/4γ) diag(c) K diag(c)` with `c = α∘y` (Lemma 1, eq. 12): the unconstrained
/// minimiser of `H(α, ·)`.
pub(super) fn gamma_target(k: MatRef<'_, f64>, coef: &[f64], gamma: f64) -> Mat<f64> {
    let s = 0.25 / gamma;
    Mat::from_fn(k.nrows(), k.ncols(), |i, j| {
        s * coef[i] * coef[j] * k[(i, j)]
    })
}

/// `H(α, G) = 1ᵀα − ½ cᵀ(G⊙K)c + γ‖G‖²_F` with `c = α∘y` (the objective of (4), plotted
/// in Fig. 3(b)).
pub(super) fn knpl_objective(
    k: MatRef<'_, f64>,
    g: MatRef<'_, f64>,
    coef: &[f64],
    gamma: f64,
) -> f64 {
    let n = k.nrows();
    // Column by column (faer's layout); split across threads only for large n, the
    // selection already running its fits in parallel.
    let (quad, norm2) = (0..n)
        .into_par_iter()
        .with_min_len((1 << 16) / n.max(1))
        .map(|j| {
            (0..n).fold((0.0, 0.0), |(q, f), i| {
                let gij = g[(i, j)];
                (q + coef[i] * coef[j] * gij * k[(i, j)], f + gij * gij)
            })
        })
        .reduce(|| (0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
    let sum_alpha: f64 = coef.iter().map(|c| c.abs()).sum();
    sum_alpha - 0.5 * quad + gamma * norm2
}

/// Result of Algorithm 1.
#[derive(Clone, Debug)]
pub(super) struct AdmmOutcome {
    /// The final `G_{k}`: exactly symmetric PSD (a PSD projection); `G1 = n1` holds up
    /// to the ADMM residual.
    pub g: Mat<f64>,
    /// `Diff_k = max(‖Q_{k+1} − Q_k‖_F, ‖Z_{k+1} − Z_k‖_F)` per iteration (Fig. 3(a)).
    pub diffs: Vec<f64>,
    /// β used in each iteration.
    pub betas: Vec<f64>,
    /// Whether `Diff ≤ ε` ended the loop (else `k_max` did).
    #[cfg_attr(not(test), allow(dead_code))] // read by the tests
    pub converged: bool,
}

/// Algorithm 1: the projection of `target` (= `Γ(α)`) onto `S₊ ∩ B`, `B = {G1 = n1}`,
/// problem (13), by ADMM on the split form (14)
/// `min ½‖G − Γ‖²_F + ½‖Q − Γ‖²_F  s.t. G − Q = 0, G ⪰ 0, Q1 = n1`
/// with augmented Lagrangian (15)
/// `L = ½‖G−Γ‖² + ½‖Q−Γ‖² − ⟨Z, G−Q⟩ + (β/2)‖G−Q‖²`.
///
/// Each step minimises `L` in one block exactly:
/// - **G-step (16)**: `∇_G L = (G − Γ) − Z + β(G − Q) = 0` gives
///   `V = (βQ + Z + Γ)/(1+β)`, and `L` is `(1+β)/2 ‖G − V‖²` plus a constant, so the
///   constrained minimiser is the PSD projection `G = Π₊(V)`. `Q` and `Z` need not be
///   symmetric (the Q-step below is row-wise), and the Frobenius projection of a square
///   matrix onto `S₊` is `Π₊((V + Vᵀ)/2)`: we symmetrise, then project by a symmetric
///   eigendecomposition ([`project_psd`], faer, parallel).
/// - **Q-step (17)–(18)**: `∇_Q L = (Q − Γ) + Z − β(G − Q) = 0` gives
///   `Ξ = (βG − Z + Γ)/(1+β)`, then `Q = P_B(Ξ)`. `Q1 = n1` constrains each *row* sum,
///   so the projection separates by rows: row `ξ` maps to `q = ξ + ((n − 1ᵀξ)/n) 1`
///   (the KKT conditions of (18): `q = ξ − (τ/2)1` with τ set by `1ᵀq = n`). This is the
///   exact form of the paper's garbled Sherman–Morrison expression (20).
/// - **multipliers (21)–(22)**: `Z ← Z − β(G − Q)`, `β ← min(ρβ, β_max)`.
///
/// `G`, `Q`, `Z` start as all-ones matrices (Algorithm 1); the loop stops after
/// `k_max` iterations or when `Diff ≤ ε`.
///
/// When `target = 0` the solution is `11ᵀ`: any symmetric `G` with `G1 = n1` has the
/// eigenvalue `n` on `1/√n`, hence `‖G‖²_F ≥ n² = ‖11ᵀ‖²_F` (and the all-ones start is
/// then a fixed point of the iteration).
pub(super) fn admm_projection(target: MatRef<'_, f64>, params: &KnplParams) -> Result<AdmmOutcome> {
    let n = target.nrows();
    let nf = n as f64;
    let mut q = Mat::<f64>::from_fn(n, n, |_, _| 1.0);
    let mut z = q.clone();
    let mut g = q.clone();
    let mut beta = params.beta0;
    let (mut diffs, mut betas) = (Vec::new(), Vec::new());
    let mut converged = false;
    for _ in 0..params.admm_max_iter {
        let w = 1.0 / (1.0 + beta);
        // G-step (16) on the symmetric part.
        let v = Mat::from_fn(n, n, |i, j| {
            let a = beta * q[(i, j)] + z[(i, j)] + target[(i, j)];
            let b = beta * q[(j, i)] + z[(j, i)] + target[(j, i)];
            0.5 * w * (a + b)
        });
        g = project_psd(v.as_ref())?;
        // Q-step (17)-(20): Ξ, then the exact row-wise projection onto {Q1 = n1}.
        let mut q_new = Mat::from_fn(n, n, |i, j| {
            w * (beta * g[(i, j)] - z[(i, j)] + target[(i, j)])
        });
        for i in 0..n {
            let shift = (nf - (0..n).map(|j| q_new[(i, j)]).sum::<f64>()) / nf;
            for j in 0..n {
                q_new[(i, j)] += shift;
            }
        }
        // Multiplier step (21).
        let z_new = Mat::from_fn(n, n, |i, j| z[(i, j)] - beta * (g[(i, j)] - q_new[(i, j)]));
        let diff = (&q_new - &q).norm_l2().max((&z_new - &z).norm_l2());
        q = q_new;
        z = z_new;
        diffs.push(diff);
        betas.push(beta);
        beta = (params.beta_growth * beta).min(params.beta_max); // (22)
        if diff <= params.admm_tol {
            converged = true;
            break;
        }
    }
    Ok(AdmmOutcome {
        g,
        diffs,
        betas,
        converged,
    })
}

/// The projection (13) in closed form. A symmetric `G` with `G1 = n1` has `1` as an
/// eigenvector (eigenvalue `n`) and maps `1⊥` to itself, so `G = 11ᵀ + PMP` with
/// `P = I − 11ᵀ/n`, and `G ⪰ 0` exactly when `PMP ⪰ 0`. These pieces are orthogonal in
/// the Frobenius inner product, so the nearest such `G` to `Γ` is
/// `11ᵀ + Π₊(P·sym(Γ)·P)`: one symmetric eigendecomposition, where the ADMM of
/// Algorithm 1 needs one per iteration and stops at `k_max` with a residual.
/// For a PSD base kernel, [`psd_kernel_projection`] needs no eigendecomposition at all.
pub(super) fn exact_projection(target: MatRef<'_, f64>) -> Result<Mat<f64>> {
    let entry = |i: usize, j: usize| 0.5 * (target[(i, j)] + target[(j, i)]);
    anchored_centring(target.nrows(), entry, |centred| {
        project_psd(centred.as_ref())
    })
}

/// [`exact_projection`] of `Γ(α)` for a PSD base kernel `K`, in `O(n²)`:
/// `Γ(α) = (1/4γ)·D K D` (`D = diag(c)`, `c = α∘y`) is congruent to `K`, so `P Γ P ⪰ 0`
/// and `Π₊` is the identity: `G*(α) = 11ᵀ + P Γ(α) P`, with Γ's entries formed on the
/// fly (no n × n target). Rounding can leave eigenvalues of order `ε‖Γ‖` below zero, as
/// the eigendecomposition's own rounding does.
pub(super) fn psd_kernel_projection(
    k: MatRef<'_, f64>,
    coef: &[f64],
    gamma: f64,
) -> Result<Mat<f64>> {
    let s = 0.25 / gamma;
    // Grouped so that (i, j) and (j, i) round alike (K is exactly symmetric).
    let entry = |i: usize, j: usize| s * (coef[i] * coef[j]) * k[(i, j)];
    let n = k.nrows();
    // `anchored_centring` with Π₊ = I, its entries' arithmetic column by column over
    // contiguous slices (it vectorises; a strided K is copied first).
    let (mean, grand) = centring_means(n, entry);
    let contiguous;
    let k = match (0..n).all(|j| k.col(j).try_as_col_major().is_some()) {
        true => k,
        false => {
            contiguous = k.to_owned();
            contiguous.as_ref()
        }
    };
    let mut g = Mat::<f64>::zeros(n, n);
    for j in 0..n {
        let col = g.col_mut(j).try_as_col_major_mut().unwrap().as_slice_mut();
        let kj = k.col(j).try_as_col_major().unwrap().as_slice();
        anchored_column(col, kj, coef, &mean, (s, coef[j], mean[j], grand));
    }
    Ok(g)
}

with_simd! {
    /// Column `j` of [`psd_kernel_projection`]'s `G`: `out_i = s·(c_i·c_j)·k_i − (m_i +
    /// m_j) + m̄ + 1` for the column `k` of `K`, `(s, c_j, m_j, m̄) = consts`.
    fn anchored_column(out: &mut [f64], k: &[f64], coef: &[f64], mean: &[f64], consts: (f64, f64, f64, f64)) -> () = anchored_column_body
}

#[inline(always)]
fn anchored_column_body(
    out: &mut [f64],
    k: &[f64],
    coef: &[f64],
    mean: &[f64],
    (s, cj, mj, grand): (f64, f64, f64, f64),
) {
    for (((o, &kij), &ci), &mi) in out.iter_mut().zip(k).zip(coef).zip(mean) {
        *o = (s * (ci * cj) * kij - (mi + mj) + grand) + 1.0;
    }
}

/// `11ᵀ + project(P·S·P)` for the symmetric `S` with entries `entry(i, j)` and
/// `P = I − 11ᵀ/n`: `P·S·P` subtracts `S`'s row and column means (equal, `S` being
/// symmetric) and adds their mean.
fn anchored_centring(
    n: usize,
    entry: impl Fn(usize, usize) -> f64,
    project: impl FnOnce(Mat<f64>) -> Result<Mat<f64>>,
) -> Result<Mat<f64>> {
    let (mean, grand) = centring_means(n, &entry);
    let centred = Mat::from_fn(n, n, |i, j| entry(i, j) - (mean[i] + mean[j]) + grand);
    let mut g = project(centred)?;
    for j in 0..n {
        for i in 0..n {
            g[(i, j)] += 1.0;
        }
    }
    Ok(g)
}

/// The row (= column) means of the symmetric `S` with entries `entry(i, j)`, and their
/// mean.
fn centring_means(n: usize, entry: impl Fn(usize, usize) -> f64) -> (Vec<f64>, f64) {
    let nf = n as f64;
    // Column i of S is row i, and contiguous in faer's layout.
    let mean: Vec<f64> = (0..n)
        .map(|i| (0..n).map(|j| entry(j, i)).sum::<f64>() / nf)
        .collect();
    let grand = mean.iter().sum::<f64>() / nf;
    (mean, grand)
}

#[cfg(test)]
mod tests {
    use super::super::fit::solve_alpha;
    use super::super::testing::{params, random_symmetric, row_sum_error, sine_data};
    use super::*;
    use crate::kernel::Kernel;
    use crate::linalg::symmetric_eigen;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn row_projection(m: &mut Mat<f64>) {
        let n = m.nrows();
        for i in 0..n {
            let shift = (n as f64 - (0..n).map(|j| m[(i, j)]).sum::<f64>()) / n as f64;
            for j in 0..n {
                m[(i, j)] += shift;
            }
        }
    }

    /// Dykstra's alternating projections onto S₊ and {G1 = n1}: a second, independent
    /// algorithm for the projection (13).
    fn dykstra(target: MatRef<'_, f64>, iters: usize) -> Mat<f64> {
        let n = target.nrows();
        let mut x = target.to_owned();
        let mut p = Mat::<f64>::zeros(n, n);
        let mut q = Mat::<f64>::zeros(n, n);
        let mut y = x.clone();
        for _ in 0..iters {
            let s = &x + &p;
            let sym = Mat::from_fn(n, n, |i, j| 0.5 * (s[(i, j)] + s[(j, i)]));
            y = project_psd(sym.as_ref()).unwrap();
            p = &s - &y;
            let t = &y + &q;
            x = t.clone();
            row_projection(&mut x);
            q = &t - &x;
        }
        y
    }

    #[test]
    fn admm_converges_to_the_projection_onto_psd_and_row_sums() {
        let n = 24;
        let target = random_symmetric(n, 3.0, 7);
        // Fixed β (plain ADMM) run to convergence.
        let p = KnplParams {
            admm_max_iter: 5000,
            admm_tol: 1e-10,
            beta_growth: 1.0,
            ..KnplParams::default()
        };
        let out = admm_projection(target.as_ref(), &p).unwrap();
        assert!(out.converged, "last diff {:?}", out.diffs.last());
        let g = out.g;
        assert_feasible(&g, 1e-7);
        let reference = dykstra(target.as_ref(), 3000);
        let gap = (&g - &reference).norm_l2();
        assert!(gap < 1e-5, "ADMM vs Dykstra: {gap}");
        // No feasible point is closer to Γ: 11ᵀ + J M J with J the centring matrix and
        // M ⪰ 0 keeps G1 = n1 and stays PSD.
        let best = (&g - &target).norm_l2();
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let j = Mat::from_fn(n, n, |a, b| f64::from(a == b) - 1.0 / n as f64);
        for _ in 0..30 {
            let b = Mat::from_fn(n, 3, |_, _| rng.random_range(-2.0..2.0));
            let m = &j * (&b * b.transpose()) * &j;
            let feasible = Mat::from_fn(n, n, |a, c| 1.0 + m[(a, c)]);
            assert!((&feasible - &target).norm_l2() >= best - 1e-9);
        }
    }

    /// The closed form agrees with two iterative algorithms run to convergence (ADMM with
    /// a fixed β, Dykstra's alternating projections) on a random symmetric target and on
    /// a non-symmetric one, and is exactly feasible: PSD, every row summing to n.
    #[test]
    fn exact_projection_matches_converged_admm_and_dykstra() {
        let n = 24;
        let p = KnplParams {
            admm_max_iter: 5000,
            admm_tol: 1e-10,
            beta_growth: 1.0,
            ..KnplParams::default()
        };
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let skewed = Mat::from_fn(n, n, |_, _| rng.random_range(-3.0..3.0));
        for target in [
            random_symmetric(n, 3.0, 7),
            random_symmetric(n, 0.2, 9),
            skewed,
        ] {
            let g = exact_projection(target.as_ref()).unwrap();
            assert_feasible(&g, 1e-9);
            let admm = admm_projection(target.as_ref(), &p).unwrap();
            assert!(admm.converged);
            let gap = (&g - &admm.g).norm_l2();
            assert!(gap < 1e-6, "closed form vs ADMM: {gap}");
            let gap = (&g - &dykstra(target.as_ref(), 3000)).norm_l2();
            assert!(gap < 1e-5, "closed form vs Dykstra: {gap}");
        }
        // Γ = 0 projects to 11ᵀ (the plain SVM's G).
        let g = exact_projection(Mat::<f64>::zeros(5, 5).as_ref()).unwrap();
        assert!((&g - Mat::from_fn(5, 5, |_, _| 1.0)).norm_l2() < 1e-12);
    }

    /// `g ⪰ 0` to rounding.
    fn assert_psd(g: &Mat<f64>) {
        let min_eig = symmetric_eigen(g.as_ref()).unwrap().values[0];
        assert!(min_eig > -1e-9, "min eigenvalue {min_eig}");
    }

    /// `g` in the feasible set of the G-step: PSD and every row summing to n (within
    /// `row_tol`).
    fn assert_feasible(g: &Mat<f64>, row_tol: f64) {
        assert_psd(g);
        let err = row_sum_error(g.as_ref());
        assert!(err < row_tol, "row-sum error {err}");
    }

    /// `α∘y` of the plain SVM (`G = 11ᵀ`) on the Gram matrix `k`.
    fn svm_coef(k: &Mat<f64>, y: &[f64], p: &KnplParams) -> Vec<f64> {
        let n = k.nrows();
        let ones = Mat::from_fn(n, n, |_, _| 1.0);
        let svm = solve_alpha(ones.as_ref(), k.as_ref(), y, p, None).unwrap();
        svm.coef
    }

    /// With a PSD base kernel, `Γ(α)` is PSD and the projection needs no eigenvalue
    /// clipping: the O(n²) form equals the eigendecomposition's answer, for a Gaussian and
    /// a polynomial kernel; a sigmoid kernel is not declared PSD.
    #[test]
    fn psd_targets_project_without_an_eigendecomposition() {
        let (x, y) = sine_data(40, 5);
        for kernel in [
            Kernel::Rbf { gamma: 2.0 },
            Kernel::Polynomial {
                gamma: 0.5,
                coef0: 1.0,
                degree: 3,
            },
        ] {
            assert!(kernel.is_positive_semidefinite());
            let p = KnplParams {
                kernel,
                ..params(0.05)
            };
            let k = p.kernel.gram(&x).unwrap();
            let coef = svm_coef(&k, &y, &p);
            let target = gamma_target(k.as_ref(), &coef, p.gamma);
            let fast = psd_kernel_projection(k.as_ref(), &coef, p.gamma).unwrap();
            let full = exact_projection(target.as_ref()).unwrap();
            let gap = (&fast - &full).norm_l2() / full.norm_l2();
            assert!(gap < 1e-12, "{gap}");
            assert_eq!(fast, fast.transpose().to_owned());
            assert_feasible(&fast, 1e-9);
        }
        let sigmoid = Kernel::Sigmoid {
            gamma: 1.0,
            coef0: 0.0,
        };
        assert!(!sigmoid.is_positive_semidefinite());
        let negative = Kernel::Polynomial {
            gamma: 1.0,
            coef0: -1.0,
            degree: 2,
        };
        assert!(!negative.is_positive_semidefinite());
    }

    #[test]
    fn admm_with_paper_settings_is_psd_and_nearly_feasible() {
        let (x, y) = sine_data(40, 1);
        let p = params(0.05);
        let k = p.kernel.gram(&x).unwrap();
        let target = gamma_target(k.as_ref(), &svm_coef(&k, &y, &p), p.gamma);
        let out = admm_projection(target.as_ref(), &p).unwrap();
        assert!(out.diffs.len() <= 15);
        assert_psd(&out.g);
        // k_max = 15 leaves a small residual in G1 = n1 (relative to n).
        let rel = row_sum_error(out.g.as_ref()) / 40.0;
        assert!(rel < 0.05, "relative row-sum error {rel}");
        // The answer moved away from 11ᵀ: Γ is not negligible at this γ.
        let ones = Mat::from_fn(40, 40, |_, _| 1.0);
        assert!((&out.g - &ones).norm_l2() > 1e-3);
    }

    #[test]
    fn g_step_objective_is_distance_to_gamma_target() {
        // H(α, G) = γ‖G − Γ‖² + 1ᵀα − γ‖Γ‖² for any G: the reduction (12)–(13).
        let (x, y) = sine_data(30, 2);
        let p = params(0.3);
        let k = p.kernel.gram(&x).unwrap();
        let ones = Mat::from_fn(30, 30, |_, _| 1.0);
        let sol = solve_alpha(ones.as_ref(), k.as_ref(), &y, &p, None).unwrap();
        let target = gamma_target(k.as_ref(), &sol.coef, p.gamma);
        let sum_alpha: f64 = sol.coef.iter().map(|c| c.abs()).sum();
        for seed in 0..3 {
            let g = random_symmetric(30, 1.0, seed);
            let h = knpl_objective(k.as_ref(), g.as_ref(), &sol.coef, p.gamma);
            let d = (&g - &target).norm_l2();
            let want = p.gamma * d * d + sum_alpha - p.gamma * target.norm_l2().powi(2);
            assert!(
                (h - want).abs() < 1e-9 * want.abs().max(1.0),
                "{h} vs {want}"
            );
        }
        // At G = 11ᵀ, H is the SVM dual plus γn².
        let h = knpl_objective(k.as_ref(), ones.as_ref(), &sol.coef, p.gamma);
        assert!((h - (-sol.objective + p.gamma * 900.0)).abs() < 1e-6);
    }
}
