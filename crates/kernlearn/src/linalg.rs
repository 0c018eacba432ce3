//! Dense symmetric linear algebra: the eigendecomposition of a symmetric matrix
//! ([`symmetric_eigen`]) and spectral maps built on it (`spectral_map`,
//! [`project_psd`], `shrink_psd`).
//!
//! Users: the Nyström features of LIBLINEAR+ (`W = UΛUᵀ` of the landmark kernel) and
//! the inner step of KNPL and DANK, which update a learned matrix by a function of its
//! eigenvalues:
//! - KNPL's G-step (KNPL paper, Algorithm 1) projects onto the PSD cone:
//!   `Π₊(A) = V max(Λ, 0) Vᵀ`;
//! - DANK's `F(α) = J_{τ/2}(11ᵀ + Γ(α))` (DANK paper, section 3.1, eq. 8) soft-thresholds
//!   the eigenvalues and clips them at zero, `J_τ(A) = V max(Λ − τ, 0) Vᵀ` (the proximal
//!   map of `τ‖·‖_*` restricted to PSD matrices).
//!
//! Results are assembled as `W Wᵀ` with `W = V_r diag(√f(λ_r))` over the kept eigenpairs,
//! so they are exactly symmetric and PSD up to rounding, and cost `O(n² r)` for rank `r`.

use crate::kernel::par_for;
use crate::{Error, Result};
use faer::linalg::matmul::triangular::{self, BlockStructure};
use faer::{Accum, Mat, MatRef, Side};

/// Eigendecomposition `A = V diag(values) Vᵀ` of a symmetric matrix, eigenvalues ascending.
pub struct SymmetricEigen {
    /// Eigenvalues, ascending.
    pub values: Vec<f64>,
    /// Orthonormal eigenvectors, one per column.
    pub vectors: Mat<f64>,
}

/// Eigendecomposition of the symmetric matrix `a` (its lower triangle is read).
pub fn symmetric_eigen(a: MatRef<'_, f64>) -> Result<SymmetricEigen> {
    check_square(a)?;
    let evd = a
        .self_adjoint_eigen(Side::Lower)
        .map_err(|e| Error::numerical(format!("symmetric eigendecomposition failed: {e:?}")))?;
    let values = (0..a.nrows()).map(|i| evd.S()[i]).collect();
    Ok(SymmetricEigen {
        values,
        vectors: evd.U().to_owned(),
    })
}

/// `V f(Λ) Vᵀ` for a map `f` with `f(λ) ≥ 0`; eigenpairs with `f(λ) = 0` are dropped.
pub(crate) fn spectral_map(eig: &SymmetricEigen, f: impl Fn(f64) -> f64) -> Mat<f64> {
    let n = eig.vectors.nrows();
    let kept: Vec<(usize, f64)> = eig
        .values
        .iter()
        .enumerate()
        .map(|(k, &l)| (k, f(l)))
        .filter(|&(_, v)| v > 0.0)
        .collect();
    let w = Mat::from_fn(n, kept.len(), |i, c| {
        let (k, v) = kept[c];
        eig.vectors[(i, k)] * v.sqrt()
    });
    let mut out = Mat::<f64>::zeros(n, n);
    triangular::matmul(
        out.as_mut(),
        BlockStructure::TriangularLower,
        Accum::Replace,
        w.as_ref(),
        BlockStructure::Rectangular,
        w.transpose(),
        BlockStructure::Rectangular,
        1.0,
        par_for(n * n * kept.len() / 2),
    );
    for j in 0..n {
        for i in 0..j {
            out[(i, j)] = out[(j, i)];
        }
    }
    out
}

/// Projection onto the PSD cone in Frobenius norm: `Π₊(A) = V max(Λ, 0) Vᵀ`
/// (KNPL paper, Algorithm 1, G-step).
pub fn project_psd(a: MatRef<'_, f64>) -> Result<Mat<f64>> {
    Ok(spectral_map(&symmetric_eigen(a)?, |l| l.max(0.0)))
}

/// Eigenvalue soft-thresholding onto the PSD cone: `J_τ(A) = V max(Λ − τ, 0) Vᵀ`, the
/// minimiser of `½‖F − A‖²_F + τ‖F‖_*` over `F ⪰ 0` (DANK eq. 8 uses `J_{τ/2}`).
#[cfg(test)]
pub(crate) fn shrink_psd(a: MatRef<'_, f64>, tau: f64) -> Result<Mat<f64>> {
    crate::check::non_negative_finite("tau", tau)?;
    Ok(spectral_map(&symmetric_eigen(a)?, |l| (l - tau).max(0.0)))
}

fn check_square(a: MatRef<'_, f64>) -> Result<()> {
    if a.nrows() != a.ncols() {
        return Err(Error::data(format!(
            "expected a square matrix, got {} × {}",
            a.nrows(),
            a.ncols()
        )));
    }
    if let Some(v) = (0..a.ncols())
        .flat_map(|j| (0..a.nrows()).map(move |i| (i, j)))
        .map(|(i, j)| a[(i, j)])
        .find(|v| !v.is_finite())
    {
        return Err(Error::data(format!("matrix has a non-finite entry {v}")));
    }
    Ok(())
}

/// The first `k` principal components of the rows of `x`: the centred rows projected on
/// the top `k` eigenvectors of the sample covariance `XᶜᵀXᶜ/(n−1)` (each sign fixed so that
/// its largest-magnitude loading is positive), with the share of the total variance each
/// explains.
pub fn principal_components(x: &crate::data::Features, k: usize) -> Result<(Mat<f64>, Vec<f64>)> {
    let (n, d) = (x.n_rows(), x.n_cols());
    if n < 2 || k == 0 || k > d {
        return Err(Error::data(format!(
            "principal components: {k} of {n} rows × {d} columns (need two rows and 1 ≤ k ≤ columns)"
        )));
    }
    x.check_finite("principal components input")?;
    let mean: Vec<f64> = (0..d)
        .map(|j| x.rows().map(|r| r[j]).sum::<f64>() / n as f64)
        .collect();
    let centred = Mat::from_fn(n, d, |i, j| x.row(i)[j] - mean[j]);
    let cov = centred.transpose() * &centred / (n as f64 - 1.0);
    let eig = symmetric_eigen(cov.as_ref())?;
    let total: f64 = eig.values.iter().map(|v| v.max(0.0)).sum();
    let top: Vec<usize> = (0..d).rev().take(k).collect();
    let mut axes = Mat::from_fn(d, k, |j, c| eig.vectors[(j, top[c])]);
    for c in 0..k {
        let lead = (0..d).fold(0.0f64, |a, j| {
            if axes[(j, c)].abs() > a.abs() {
                axes[(j, c)]
            } else {
                a
            }
        });
        if lead < 0.0 {
            (0..d).for_each(|j| axes[(j, c)] = -axes[(j, c)]);
        }
    }
    let explained = top
        .iter()
        .map(|&t| {
            if total > 0.0 {
                eig.values[t].max(0.0) / total
            } else {
                0.0
            }
        })
        .collect();
    Ok((&centred * &axes, explained))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn random_symmetric(n: usize, seed: u64) -> Mat<f64> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let b = Mat::from_fn(n, n, |_, _| rng.random_range(-1.0..1.0));
        Mat::from_fn(n, n, |i, j| b[(i, j)] + b[(j, i)])
    }

    fn frob_dist(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> f64 {
        (a - b).norm_l2()
    }

    #[test]
    fn eigen_reconstructs_the_matrix() {
        let a = random_symmetric(30, 1);
        let e = symmetric_eigen(a.as_ref()).unwrap();
        assert!(e.values.windows(2).all(|w| w[0] <= w[1]));
        let back = Mat::from_fn(30, 30, |i, j| {
            (0..30)
                .map(|k| e.vectors[(i, k)] * e.values[k] * e.vectors[(j, k)])
                .sum::<f64>()
        });
        assert!(frob_dist(a.as_ref(), back.as_ref()) < 1e-10);
    }

    #[test]
    fn psd_projection_is_psd_and_closest() {
        let a = random_symmetric(25, 2);
        let p = project_psd(a.as_ref()).unwrap();
        let e = symmetric_eigen(p.as_ref()).unwrap();
        assert!(e.values[0] > -1e-10, "min eigenvalue {}", e.values[0]);
        // Closed form of the distance: the norm of the negative eigenvalues.
        let ea = symmetric_eigen(a.as_ref()).unwrap();
        let neg: f64 = ea.values.iter().filter(|&&l| l < 0.0).map(|l| l * l).sum();
        assert!((frob_dist(a.as_ref(), p.as_ref()) - neg.sqrt()).abs() < 1e-9);
        // Any other PSD matrix (random Gram) is at least as far.
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..20 {
            let b = Mat::from_fn(25, 4, |_, _| rng.random_range(-1.0..1.0));
            let other = &b * b.transpose();
            assert!(frob_dist(a.as_ref(), other.as_ref()) >= neg.sqrt() - 1e-12);
        }
    }

    #[test]
    fn shrinkage_subtracts_tau_and_clips() {
        let a = random_symmetric(20, 4);
        let ea = symmetric_eigen(a.as_ref()).unwrap();
        let s = shrink_psd(a.as_ref(), 0.5).unwrap();
        let es = symmetric_eigen(s.as_ref()).unwrap();
        let mut expect: Vec<f64> = ea.values.iter().map(|l| (l - 0.5).max(0.0)).collect();
        expect.sort_by(f64::total_cmp);
        for (got, want) in es.values.iter().zip(&expect) {
            assert!((got - want).abs() < 1e-9, "{got} vs {want}");
        }
        assert!(shrink_psd(a.as_ref(), -1.0).is_err());
    }

    #[test]
    fn rejects_bad_matrices() {
        assert!(symmetric_eigen(Mat::<f64>::zeros(2, 3).as_ref()).is_err());
        let mut a = Mat::<f64>::identity(3, 3);
        a[(1, 2)] = f64::NAN;
        assert!(project_psd(a.as_ref()).is_err());
    }
}

#[cfg(test)]
mod pca_tests {
    use super::*;
    use crate::data::Features;

    #[test]
    fn principal_components_match_the_known_axes_of_a_stretched_cloud() {
        // Points on a line along (3, 4)/5 plus a small orthogonal wobble: the first axis
        // is the line and explains almost all the variance; the projections are the
        // signed distances along it.
        let rows: Vec<Vec<f64>> = (0..21)
            .map(|i| {
                let t = i as f64 - 10.0;
                let w = if i % 2 == 0 { 0.01 } else { -0.01 };
                vec![1.0 + 0.6 * t - 0.8 * w, 2.0 + 0.8 * t + 0.6 * w]
            })
            .collect();
        let x = Features::from_rows(&rows).unwrap();
        let (z, explained) = principal_components(&x, 2).unwrap();
        for i in 0..21 {
            assert!(
                (z[(i, 0)] - (i as f64 - 10.0)).abs() < 1e-3,
                "row {i}: {}",
                z[(i, 0)]
            );
        }
        assert!(explained[0] > 0.9999 && explained[1] < 1e-4);
        assert!((explained.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(principal_components(&x, 3).is_err());
    }
}
