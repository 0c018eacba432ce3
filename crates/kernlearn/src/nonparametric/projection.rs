//! Exact Euclidean projection onto a box cut by one hyperplane,
//! `P(v) = argmin ½‖z − v‖²  s.t.  0 ≤ z ≤ u,  aᵀz = b`
//! (a continuous quadratic knapsack problem).
//!
//! DANK projects onto `A = {0 ≤ α ≤ C, yᵀα = 0}` (Algorithm 1, lines 6–7; `a = y`) and,
//! for SVR, onto `{0 ≤ α̂, α̌ ≤ C, 1ᵀ(α̂ − α̌) = 0}` (Algorithm 2, with the bias
//! constraint of ε-SVR where problem (15) prints `(α̂ − α̌)ᵀy = 0`; `z = [α̂; α̌]`,
//! `a = [1; −1]`).
//!
//! By the KKT conditions the solution is `z(λ) = clamp(v − λa, 0, u)` for the multiplier
//! `λ` that solves `g(λ) = aᵀz(λ) = b`. `g` is non-increasing and piecewise linear with
//! breakpoints `v_i/a_i` and `(v_i − u_i)/a_i`, so after sorting the breakpoints a
//! bisection over them finds the linear piece holding the root, which is then solved in
//! closed form: `O(n log n)` and exact up to rounding (no iterative tolerance).

use crate::{Error, Result};

/// The projection of `v` onto `{0 ≤ z ≤ upper, aᵀz = b}` (see the module docs).
///
/// Errors when the lengths differ, an entry is not finite, an upper bound is negative,
/// or the set is empty (`b` outside the range of `aᵀz` over the box).
pub(super) fn project_box_equality(
    v: &[f64],
    upper: &[f64],
    a: &[f64],
    b: f64,
) -> Result<Vec<f64>> {
    check_inputs(v, upper, a, b)?;
    let g = |lambda: f64| -> f64 {
        v.iter()
            .zip(upper)
            .zip(a)
            .map(|((&vi, &ui), &ai)| ai * (vi - lambda * ai).clamp(0.0, ui))
            .sum()
    };
    let (lo, hi) = value_range(upper, a);
    let slack = 1e-12 * (lo.abs() + hi.abs() + b.abs() + 1.0);
    if b > hi + slack || b < lo - slack {
        return Err(Error::data(format!(
            "projection: no point of the box satisfies aᵀz = {b} (aᵀz ranges over [{lo}, {hi}])"
        )));
    }
    let mut breaks: Vec<f64> = v
        .iter()
        .zip(upper)
        .zip(a)
        .filter(|(_, &ai)| ai != 0.0)
        .flat_map(|((&vi, &ui), &ai)| [vi / ai, (vi - ui) / ai])
        .collect();
    let lambda = if breaks.is_empty() {
        0.0
    } else {
        breaks.sort_by(f64::total_cmp);
        root_between_breakpoints(&breaks, b, g)
    };
    Ok(v.iter()
        .zip(upper)
        .zip(a)
        .map(|((&vi, &ui), &ai)| (vi - lambda * ai).clamp(0.0, ui))
        .collect())
}

/// `λ` with `g(λ) = b` for a non-increasing `g` linear between consecutive sorted
/// breakpoints and constant outside them.
fn root_between_breakpoints(breaks: &[f64], b: f64, g: impl Fn(f64) -> f64) -> f64 {
    let last = breaks.len() - 1;
    if g(breaks[0]) <= b {
        return breaks[0];
    }
    if g(breaks[last]) >= b {
        return breaks[last];
    }
    // Invariant: g(breaks[lo]) > b > g(breaks[hi]).
    let (mut lo, mut hi) = (0, last);
    let (mut g_lo, mut g_hi) = (g(breaks[lo]), g(breaks[hi]));
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        let g_mid = g(breaks[mid]);
        if g_mid == b {
            return breaks[mid];
        }
        if g_mid > b {
            (lo, g_lo) = (mid, g_mid);
        } else {
            (hi, g_hi) = (mid, g_mid);
        }
    }
    let (l0, l1) = (breaks[lo], breaks[hi]);
    (l0 + (g_lo - b) * (l1 - l0) / (g_lo - g_hi)).clamp(l0, l1)
}

/// Smallest and largest `aᵀz` over the box.
fn value_range(upper: &[f64], a: &[f64]) -> (f64, f64) {
    upper.iter().zip(a).fold((0.0, 0.0), |(lo, hi), (&u, &ai)| {
        if ai > 0.0 {
            (lo, hi + ai * u)
        } else {
            (lo + ai * u, hi)
        }
    })
}

fn check_inputs(v: &[f64], upper: &[f64], a: &[f64], b: f64) -> Result<()> {
    if v.len() != upper.len() || v.len() != a.len() {
        return Err(Error::data(format!(
            "projection: {} values, {} bounds and {} constraint coefficients",
            v.len(),
            upper.len(),
            a.len()
        )));
    }
    let finite = |s: &[f64]| s.iter().all(|x| x.is_finite());
    if !(finite(v) && finite(a) && b.is_finite()) {
        return Err(Error::data("projection: non-finite input"));
    }
    if let Some(u) = upper.iter().find(|&&u| !(u >= 0.0 && u.is_finite())) {
        return Err(Error::param(
            "C",
            format!("upper bounds must be finite and >= 0, got {u}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clarabel::algebra::CscMatrix;
    use clarabel::solver::{
        DefaultSettingsBuilder, DefaultSolver, IPSolver, NonnegativeConeT, SolverStatus, ZeroConeT,
    };
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The same projection by a generic interior-point QP solver.
    fn clarabel_projection(v: &[f64], upper: &[f64], a: &[f64], b: f64) -> Vec<f64> {
        let n = v.len();
        let p = CscMatrix::<f64>::identity(n);
        let q: Vec<f64> = v.iter().map(|x| -x).collect();
        // Rows: aᵀz = b, then z ≤ u, then −z ≤ 0.
        let mut rows: Vec<Vec<f64>> = vec![a.to_vec()];
        for i in 0..n {
            let mut r = vec![0.0; n];
            r[i] = 1.0;
            rows.push(r);
        }
        for i in 0..n {
            let mut r = vec![0.0; n];
            r[i] = -1.0;
            rows.push(r);
        }
        let amat = CscMatrix::from(&rows);
        let mut rhs = vec![b];
        rhs.extend_from_slice(upper);
        rhs.extend(std::iter::repeat_n(0.0, n));
        let cones = [ZeroConeT(1), NonnegativeConeT(2 * n)];
        let settings = DefaultSettingsBuilder::default()
            .verbose(false)
            .tol_gap_abs(1e-12)
            .tol_gap_rel(1e-12)
            .tol_feas(1e-12)
            .build()
            .unwrap();
        let mut solver = DefaultSolver::new(&p, &q, &amat, &rhs, &cones, settings).unwrap();
        solver.solve();
        assert!(matches!(
            solver.solution.status,
            SolverStatus::Solved | SolverStatus::AlmostSolved
        ));
        solver.solution.x.clone()
    }

    #[test]
    fn matches_a_generic_qp_solver() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for case in 0..40 {
            let n = rng.random_range(2..25);
            let c = rng.random_range(0.1..5.0);
            let svr = case % 2 == 1;
            let a: Vec<f64> = (0..n)
                .map(|i| {
                    if svr {
                        if i < n / 2 {
                            1.0
                        } else {
                            -1.0
                        }
                    } else if rng.random_bool(0.5) {
                        1.0
                    } else {
                        -1.0
                    }
                })
                .collect();
            let upper = vec![c; n];
            let v: Vec<f64> = (0..n)
                .map(|_| rng.random_range(-2.0 * c..2.0 * c))
                .collect();
            let z = project_box_equality(&v, &upper, &a, 0.0).unwrap();
            let want = clarabel_projection(&v, &upper, &a, 0.0);
            let dist: f64 = z.iter().zip(&want).map(|(x, y)| (x - y).powi(2)).sum();
            assert!(dist.sqrt() < 1e-6, "case {case}: {z:?} vs {want:?}");
            // Feasible to machine precision.
            let dot: f64 = z.iter().zip(&a).map(|(x, y)| x * y).sum();
            assert!(dot.abs() < 1e-12 * n as f64 * c, "aᵀz = {dot}");
            assert!(z.iter().all(|&x| (0.0..=c).contains(&x)));
        }
    }

    #[test]
    fn general_coefficients_and_right_hand_side() {
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        for _ in 0..20 {
            let n = rng.random_range(1..15);
            let a: Vec<f64> = (0..n).map(|_| rng.random_range(-2.0..2.0)).collect();
            let upper: Vec<f64> = (0..n).map(|_| rng.random_range(0.0..3.0)).collect();
            let v: Vec<f64> = (0..n).map(|_| rng.random_range(-4.0..4.0)).collect();
            let (lo, hi) = value_range(&upper, &a);
            let b = lo + rng.random_range(0.0..1.0) * (hi - lo);
            let z = project_box_equality(&v, &upper, &a, b).unwrap();
            let want = clarabel_projection(&v, &upper, &a, b);
            let dist: f64 = z.iter().zip(&want).map(|(x, y)| (x - y).powi(2)).sum();
            assert!(dist.sqrt() < 1e-6, "{z:?} vs {want:?}");
        }
    }

    #[test]
    fn feasible_points_are_fixed_and_bad_input_is_an_error() {
        let v = [0.5, 0.5, 1.0, 0.0];
        let y = [1.0, -1.0, 1.0, -1.0];
        // yᵀv = 1 ≠ 0, so v moves; a feasible point does not.
        let f = [0.5, 0.5, 0.25, 0.25];
        assert_eq!(project_box_equality(&f, &[1.0; 4], &y, 0.0).unwrap(), f);
        assert_ne!(project_box_equality(&v, &[1.0; 4], &y, 0.0).unwrap(), v);
        assert!(project_box_equality(&v, &[1.0; 3], &y, 0.0).is_err());
        assert!(project_box_equality(&[f64::NAN, 0.0], &[1.0; 2], &[1.0, -1.0], 0.0).is_err());
        assert!(project_box_equality(&[0.0, 0.0], &[-1.0; 2], &[1.0, -1.0], 0.0).is_err());
        // Both points in one class: aᵀz = 5 is out of reach.
        assert!(project_box_equality(&[0.0, 0.0], &[1.0; 2], &[1.0, 1.0], 5.0).is_err());
    }
}
