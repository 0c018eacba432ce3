//! The single-kernel form of MWUMKL (Moeller 2017, section 3.3): with one kernel the
//! exponentiation is void and Algorithm 5 alone is Gilbert's algorithm for the distance
//! between the two classes' convex hulls (Gärtner and Jaggi 2009), kernelised — a fast
//! approximate hard-margin (or 2-norm soft-margin) SVM solver.
//!
//! Over `Δ = {α ≥ 0, Σ_{y=+1} α = Σ_{y=−1} α = ½}` it minimises `f(α) = αᵀGα`,
//! `G = Y(K + rI)Y`, by Frank–Wolfe steps: the vertex `s = ½(e_p + e_q)` at the most
//! violating point of each class, then the exact line search on the segment `[α, s]`
//! (Gilbert's rule). It keeps `Gα` (`O(n)` memory) and reads two kernel rows per step.
//! The Frank–Wolfe gap `2(αᵀGα − sᵀGα) ≥ f(α) − f*` certifies the result: it stops when
//! the gap is at most `ε·f(α)`, so `f* ≥ (1 − ε) f(α)` (the margin is within a factor
//! `√(1 − ε)`). The solution is returned on the SVM's scale with the midpoint bias (see
//! `crate::mkl`'s MWUMKL).

use crate::check::{non_negative_finite, positive_finite};
use crate::kernel::KernelSource;
use crate::svm::cache::RowCache;
use crate::svm::{DualSolution, SolverSettings};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// Settings of [`solve_gilbert`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct GilbertSettings {
    /// Relative duality gap at which to stop (`f* ≥ (1 − ε) f(α)`), `> 0`.
    pub epsilon: f64,
    /// Ridge `r ≥ 0` added to the kernel's diagonal: `1/C` of the 2-norm soft margin;
    /// 0 is the hard margin (the hulls must then be disjoint).
    pub ridge: f64,
    /// Iteration cap.
    pub max_iter: usize,
    /// Memory for the LRU cache of kernel rows (bytes). Frank–Wolfe keeps returning to
    /// the same few vertices, so a cached row saves a whole kernel row per step.
    #[serde(default = "default_cache_bytes")]
    pub cache_bytes: usize,
}

fn default_cache_bytes() -> usize {
    SolverSettings::default().cache_bytes
}

impl Default for GilbertSettings {
    /// `ε = 1e-3`, hard margin, 100 000 iterations, the SMO solver's cache budget.
    fn default() -> Self {
        Self {
            epsilon: 1e-3,
            ridge: 0.0,
            max_iter: 100_000,
            cache_bytes: default_cache_bytes(),
        }
    }
}

/// Kernelised Gilbert on `source` with labels `y ∈ {±1}` (see the module docs). The
/// returned [`DualSolution`] has `coef = y α` on the SVM scale, the midpoint `rho`, the
/// hard-margin dual objective `−1/(2 f(α))`, and `upper_bound = (∞, ∞)`.
pub(crate) fn solve_gilbert(
    source: &dyn KernelSource,
    y: &[f64],
    settings: &GilbertSettings,
) -> Result<DualSolution> {
    positive_finite("epsilon", settings.epsilon)?;
    non_negative_finite("ridge", settings.ridge)?;
    let n = source.len();
    super::check_binary(y, n)?;
    let ridge = settings.ridge;
    let all: Vec<usize> = (0..n).collect();
    let mut cache = RowCache::new(n, settings.cache_bytes);
    let mut alpha = vec![0.0f64; n];
    let mut h = vec![0.0f64; n]; // Gα
                                 // Start at the vertex of the first point of each class.
    let mut p = y.iter().position(|&v| v > 0.0).unwrap_or(0);
    let mut q = y.iter().position(|&v| v < 0.0).unwrap_or(0);
    let mut f = 0.0;
    let mut iterations = 0;
    let mut converged = false;
    for it in 0..=settings.max_iter {
        // Gs for s = ½(e_p + e_q): (Gs)_k = ½ y_k (K_kp − K_kq) (+ ridge on p, q)
        cache.fill_from(source, p, &all);
        cache.fill_from(source, q, &all);
        let (row_p, row_q) = cache.two_rows(p, q);
        let gs = |k: usize| {
            let mut v = 0.5 * y[k] * (row_p[k] as f64 - row_q[k] as f64);
            if k == p || k == q {
                v += 0.5 * ridge;
            }
            v
        };
        let sgs = 0.25 * (source.diag(p) + source.diag(q) + 2.0 * ridge - 2.0 * row_p[q] as f64);
        let lambda = if it == 0 {
            1.0
        } else {
            let sga = 0.5 * (h[p] + h[q]);
            let gap = 2.0 * (f - sga);
            if gap <= settings.epsilon * f {
                converged = true;
                break;
            }
            // f(α + λ(s − α)) = f + 2λ(sᵀGα − f) + λ²(sᵀGs − 2sᵀGα + f)
            let curv = sgs - 2.0 * sga + f;
            if curv <= 0.0 {
                1.0
            } else {
                ((f - sga) / curv).clamp(0.0, 1.0)
            }
        };
        let sga = if it == 0 { 0.0 } else { 0.5 * (h[p] + h[q]) };
        f = (1.0 - lambda).powi(2) * f
            + 2.0 * lambda * (1.0 - lambda) * sga
            + lambda * lambda * sgs;
        for k in 0..n {
            h[k] = (1.0 - lambda) * h[k] + lambda * gs(k);
            alpha[k] *= 1.0 - lambda;
        }
        alpha[p] += 0.5 * lambda;
        alpha[q] += 0.5 * lambda;
        iterations = it + 1;
        // Next vertex: smallest (Gα)_k in each class.
        let (mut bp, mut bq) = (usize::MAX, usize::MAX);
        for k in 0..n {
            let best = if y[k] > 0.0 { &mut bp } else { &mut bq };
            if *best == usize::MAX || h[k] < h[*best] {
                *best = k;
            }
        }
        p = bp;
        q = bq;
    }
    if f <= 0.0 || f.is_nan() {
        return Err(Error::data(
            "the classes' convex hulls intersect under this kernel (zero margin): use a ridge (soft margin)",
        ));
    }
    let coef: Vec<f64> = alpha.iter().zip(y).map(|(a, l)| a * l / f).collect();
    // Midpoint bias: Σ_j α_j y_j (Gα)_j / f (see super::mwumkl).
    let rho = (0..n).map(|j| alpha[j] * y[j] * h[j]).sum::<f64>() / f;
    let n_support = alpha.iter().filter(|&&a| a > 0.0).count();
    Ok(DualSolution {
        coef,
        rho,
        objective: -0.5 / f,
        iterations,
        n_support,
        n_bounded: 0,
        upper_bound: (f64::INFINITY, f64::INFINITY),
        derived: None,
        hit_max_iter: !converged,
    })
}
