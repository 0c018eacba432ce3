//! DANK: data-adaptive nonparametric kernels (Liu et al., "Learning Data-adaptive
//! Nonparametric Kernels", sections 2–4).
//!
//! DANK-SVM solves problem (5),
//! `max_{α∈A} min_{F⪰0} 1ᵀα − ½ αᵀY(F⊙K)Yα + η‖F − 11ᵀ‖²_F + τη‖F‖_*`,
//! `A = {0 ≤ α ≤ C, yᵀα = 0}`. For fixed α the inner minimiser is
//! `F(α) = J_{τ/2}(11ᵀ + Γ(α))`, `Γ(α) = diag(Yα) K diag(Yα)/(4η)` (eqs. 8–9), so
//! `h(α) = H(α, F(α))` is concave with gradient `∇h = 1 − Y(F⊙K)Yα` (eq. 11), maximised
//! by projected gradient with Nesterov's acceleration (Algorithm 1). DANK-SVR (problem 15,
//! Algorithm 2) is the same with `z = [α̂; α̌]`, coefficients `c = α̂ − α̌`, linear term
//! `cᵀy − ε1ᵀ(α̂ + α̌)` and the constraint `1ᵀ(α̂ − α̌) = 0` (section 4 prints
//! `(α̂ − α̌)ᵀy = 0` in problem (15); `1ᵀ(α̂ − α̌) = 0` is the bias constraint of ε-SVR).
//!
//! Both duals are one problem here: variables `z` in a box cut by one hyperplane,
//! coefficients `c = Sz` (`S = Y` or `[I, −I]`), `h(z) = pᵀz − ½cᵀ(F⊙K)c + …`,
//! `∇h = p − Sᵀ(F⊙K)c` (Danskin; the paper's eq. 18 has the sign of the `α̌` part wrong).
//!
//! Choices where the paper is loose (documented in `docs/DESIGN.md`):
//! - **Solver**: Algorithm 1 is first order and crawls on nearly constant kernels. The
//!   default ([`Scheme::Newton`]) maximises, at each `α_t`, the concave quadratic model
//!   with `h`'s gradient and curvature `F⊙K + (ccᵀ⊙K⊙K + diag((K⊙K)(c⊙c)))/(4η)` (exact at
//!   τ = 0) by SMO, then line-searches `h` towards that maximiser: a few iterations
//!   where Algorithm 1 needs thousands. Algorithm 1 and its variants stay available.
//! - **Stopping**: the paper's `‖α_t − α_{t−1}‖ ≤ ε`, or the KKT violation of the dual on
//!   the fixed kernel `F⊙K` below LIBSVM's 1e-3 (`DankProblem::kkt_violation`).
//! - **Step**: the paper's `L = n + 3nC²‖K‖²_F/(4η)` is a loose bound (steps are tiny and
//!   the stopping rule `‖α_t − α_{t−1}‖ ≤ ε` fires at once). The default is backtracking:
//!   `L` starts at `½λ_max(SᵀKS)` and doubles until the ascent condition
//!   `h(θ) ≥ h(α) + ⟨∇h(α), θ − α⟩ − L/2‖θ − α‖²` holds. `L` never decreases, so the
//!   estimate-sequence argument of Nesterov (2005) holds with the final `L ≤ 2L_true`
//!   in place of the bound: the same `O(L/t²)` rate with a far smaller constant.
//! - **Objective**: `h` is evaluated without the `‖F − 11ᵀ‖²` cancellation (`n²`-sized
//!   terms) from the eigenvalues `λ_i` of `11ᵀ + Γ`:
//!   `h = pᵀz − ½cᵀKc − ‖diag(c)Kdiag(c)‖²_F/(16η) + η Σ min(λ_i, τ/2)² + τη Σ (λ_i − τ/2)₊`.
//! - **Eigendecomposition**: `11ᵀ + Γ` vanishes on the zero-sum vectors supported off the
//!   support `S = {c_i ≠ 0}`, so its eigenpairs are those of an `(|S|+1)`-square matrix
//!   on `R^S ⊕ span(1_N)` ([`EigenRoute::Reduced`], exact); [`EigenRoute::Full`] is the
//!   plain `n × n` decomposition, kept as the reference.
//! - **Bias**: from the final α as for an SVM on the fixed kernel `F⊙K`, LIBSVM's rule
//!   (average of `y_i − (F⊙K c)_i` over free variables, else the midpoint of the
//!   feasible interval).
//! - **Output**: the last projected point `θ_t` (Nesterov's convergent sequence), whose
//!   bounds are exact, not the averaged `α_t`.
//!
//! Layout:
//! - `settings`: [`Scheme`], [`StepRule`], [`EigenRoute`], [`DankSettings`].
//! - `objective`: `F(α)` (`adaptive_matrix`, `AdaptiveMatrix`) and the dual
//!   (`Dual`, `DankProblem`): `h`, `∇h`, the KKT violation, the projection.
//! - `solve`: `DankProblem::solve` and `DankSolution`, the run state shared by the
//!   schemes, the bias.
//! - `ascent`: the first-order schemes (Algorithm 1, its monotone variant, plain
//!   projected gradient) and their step size.
//! - `newton`: the Newton scheme and the curvature of its model.
//! - `model`: [`DankParams`], [`DankModel`] (fit, [`Predictor`](crate::predictor::Predictor)).
//! - `select`: `dank_search_base`, the SVM-CV / SVR-CV stage.

mod ascent;
mod model;
mod newton;
mod objective;
mod select;
mod settings;
mod solve;

pub(crate) use model::learned_machine;
pub use model::{DankFitInfo, DankMachines, DankModel, DankParams};
pub(crate) use objective::{DankProblem, Dual};
pub(crate) use select::dank_search_base;
pub use settings::{DankSettings, EigenRoute, Scheme, StepRule};

/// Data and settings shared by the tests of the DANK files.
#[cfg(test)]
mod testing {
    use super::{DankSettings, Scheme, StepRule};
    use crate::data::Features;
    use crate::kernel::Kernel;
    use faer::Mat;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Two overlapping Gaussian blobs in 2-D, labels ±1 (or 3 classes).
    pub(super) fn blobs(n: usize, classes: usize, seed: u64) -> (Features, Vec<f64>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut data = Vec::new();
        let mut y = Vec::new();
        for i in 0..n {
            let c = i % classes;
            let centre = [c as f64, (c % 2) as f64 * 0.8];
            for m in centre {
                data.push(m + rng.random_range(-0.7..0.7));
            }
            y.push(if classes == 2 {
                1.0 - 2.0 * c as f64
            } else {
                c as f64
            });
        }
        (Features::new(n, 2, data).unwrap(), y)
    }

    pub(super) fn gram(x: &Features, gamma: f64) -> Mat<f64> {
        Kernel::rbf_gamma(gamma).unwrap().gram(x).unwrap()
    }

    /// Runs to `‖α_t − α_{t−1}‖ ≤ 1e-8` (first-order schemes) or KKT violation ≤ 1e-6
    /// (Newton, whose SMO keeps the kernel in f32).
    pub(super) fn tight(scheme: Scheme, step: StepRule) -> DankSettings {
        DankSettings {
            scheme,
            step,
            tol: 1e-8,
            kkt_tol: if scheme == Scheme::Newton { 1e-6 } else { 0.0 },
            max_iter: 20000,
            init_from_svm: false,
            ..DankSettings::default()
        }
    }
}
