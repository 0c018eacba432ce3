//! KNPL: kernel learning with a nonlinear pairwise layer (Liu et al., "Nonlinear Pairwise
//! Layer and Its Training for Kernel Learning", AAAI 2018). The learned kernel is
//! `K̃ = G ⊙ K` for a base kernel `K` and a learned pairwise matrix `G`, from problem (4)
//! (section "KNPL Model"):
//!
//! `max_{α∈A} min_{G ⪰ 0, G1 = n1}  H(α, G) = 1ᵀα − ½ αᵀY(G⊙K)Yα + γ‖G‖²_F`,
//! `A = {0 ≤ α ≤ C1, αᵀy = 0}`.
//!
//! Algorithm 2 alternates two steps (`T` outer rounds, paper: `T = 10`):
//! - **α-step**: with `G` fixed, the inner problem in α is the SVM dual (3) on `G ⊙ K`,
//!   solved by the SMO solver ([`solve_c_svc`](crate::svm::solve_c_svc)) through the
//!   [`KernelSource`](crate::kernel::KernelSource) trait, warm-started from the previous
//!   round's α;
//! - **G-step**: with α fixed, `H` in `G` equals `γ‖G − Γ(α)‖²_F` up to a constant, with
//!   `Γ(α) = (1/4γ) diag(α∘y) K diag(α∘y)` (eqs. 12–13), because
//!   `αᵀY(G⊙K)Yα = Tr(G · diag(α∘y) K diag(α∘y))`. So `G*` is the Frobenius projection of
//!   `Γ(α)` onto `S₊ ∩ B`, `B = {G1 = n1}`, computed by the ADMM of Algorithm 1
//!   (`admm_projection`).
//!
//! Algorithm 2 is a best-response iteration and can fall into a 2-cycle for small γ
//! (docs/RESULTS.md). The default solver ([`KnplScheme::Ascent`], `fit::fit_ascent`)
//! instead maximises the concave `φ(α) = min_G H(α, G)` monotonically: the α-step gives
//! an ascent direction and a backtracking line search on `φ` (one G-step per trial)
//! chooses the step; Algorithm 2 stays available as [`KnplScheme::Alternate`]. The
//! ascent's G-step is the projection in closed form, `G* = 11ᵀ + Π₊(P·Γ·P)` with
//! `P = I − 11ᵀ/n` (`admm::exact_projection`): exact, one eigendecomposition, where the
//! ADMM of Algorithm 1 (kept by Algorithm 2) needs one per iteration and stops at
//! `k_max = 15` with a residual. It makes KNPL's selection 16× cheaper than the eigendecomposition. For a
//! PSD base kernel (all but the sigmoid and a polynomial with `coef0 < 0`) `Γ(α)` is PSD, so `Π₊` is the identity
//! and the G-step is `11ᵀ + P·Γ·P`, `O(n²)` with no eigendecomposition at all
//! (`admm::psd_kernel_projection`; another 5×).
//!
//! Before the first round α is the plain SVM's (`G = 11ᵀ`, the feasible point of
//! least norm, see `admm_projection`). The bias is the SVM's `b = −ρ` of the last SMO
//! solve. New points use the nearest-neighbour extension (23) through
//! [`LearnedKernelMachine`](crate::nonparametric::LearnedKernelMachine); more than two
//! classes are handled one-vs-one, each class pair learning its own `G` on its own points.
//!
//! Model selection ([`KnplSearch`]): σ and C by the papers' SVM-CV grid search, then γ by
//! 5-fold CV over a grid scaled to the problem (see [`KnplSearch::gamma_scales`]).
//!
//! Layout:
//! - `params`: [`KnplParams`].
//! - `admm`: the G-step: `gamma_target`, `admm_projection` (Algorithm 1), the
//!   objective `knpl_objective`.
//! - `fit`: Algorithm 2 on one class pair (`fit_binary`, `solve_alpha`).
//! - `model`: [`KnplModel`] (one-vs-one, [`Predictor`](crate::predictor::Predictor)).
//! - `search`: [`KnplSearch`], `gamma_reference`, [`KnplSelection`].

mod admm;
mod fit;
mod model;
mod params;
mod search;

pub use model::{KnplModel, KnplPairInfo};
pub use params::{KnplParams, KnplScheme};
pub(crate) use search::gamma_reference;
pub use search::{GammaPoint, KnplSearch, KnplSelection};

/// Data and parameters shared by the tests of the KNPL files.
#[cfg(test)]
mod testing {
    use super::KnplParams;
    use crate::data::Features;
    use crate::kernel::Kernel;
    use faer::{Mat, MatRef};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Two noisy classes separated by a sine curve in the unit square.
    pub(super) fn sine_data(n: usize, seed: u64) -> (Features, Vec<f64>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut v = Vec::with_capacity(2 * n);
        let mut y = Vec::with_capacity(n);
        for _ in 0..n {
            let (a, b): (f64, f64) = (rng.random(), rng.random());
            let mut label = if (6.0 * a).sin() > 3.0 * (b - 0.5) {
                1.0
            } else {
                -1.0
            };
            if rng.random::<f64>() < 0.1 {
                label = -label;
            }
            v.extend([a, b]);
            y.push(label);
        }
        (Features::new(n, 2, v).unwrap(), y)
    }

    /// Three classes: the angle of the point around the centre, in thirds.
    pub(super) fn three_classes(n: usize, seed: u64) -> (Features, Vec<f64>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut v = Vec::with_capacity(2 * n);
        let mut y = Vec::with_capacity(n);
        for _ in 0..n {
            let (a, b): (f64, f64) = (rng.random(), rng.random());
            let angle = (b - 0.5).atan2(a - 0.5) + std::f64::consts::PI;
            v.extend([a, b]);
            y.push(((angle / (2.0 * std::f64::consts::PI) * 3.0).floor()).min(2.0) + 1.0);
        }
        (Features::new(n, 2, v).unwrap(), y)
    }

    pub(super) fn params(gamma: f64) -> KnplParams {
        KnplParams {
            kernel: Kernel::rbf_sigma(0.5).unwrap(),
            c: 4.0,
            gamma,
            ..KnplParams::default()
        }
    }

    pub(super) fn random_symmetric(n: usize, scale: f64, seed: u64) -> Mat<f64> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let b = Mat::from_fn(n, n, |_, _| rng.random_range(-1.0..1.0));
        Mat::from_fn(n, n, |i, j| scale * (b[(i, j)] + b[(j, i)]))
    }

    pub(super) fn row_sum_error(g: MatRef<'_, f64>) -> f64 {
        let n = g.nrows();
        (0..n)
            .map(|i| ((0..n).map(|j| g[(i, j)]).sum::<f64>() - n as f64).abs())
            .fold(0.0, f64::max)
    }
}
