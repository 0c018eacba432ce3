use super::seed_alpha;

/// Seeds stay feasible for the larger box whatever the old solution looked like.
#[test]
fn seeded_alpha_is_feasible() {
    let mut state: u64 = 7;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    for case in 0..200 {
        let n = 5 + case % 40;
        let y: Vec<f64> = (0..n)
            .map(|_| if next() < 0.6 { 1.0 } else { -1.0 })
            .collect();
        let old = (0.5, 0.25 + next());
        let new = (old.0 * 2.0, old.1 * 2.0);
        // A balanced old point: positives at zero, free or at the bound; their sum
        // is spread over the negatives greedily (so most end at the bound).
        let mut alpha = vec![0.0; n];
        let mut sum = 0.0;
        for (a, &v) in alpha.iter_mut().zip(&y) {
            if v > 0.0 {
                *a = match (next() * 3.0) as u32 {
                    0 => 0.0,
                    1 => old.0,
                    _ => old.0 * next(),
                };
                sum += *a;
            }
        }
        for (a, &v) in alpha.iter_mut().zip(&y) {
            if v < 0.0 {
                *a = sum.min(old.1);
                sum -= *a;
            }
        }
        if sum > 0.0 {
            continue; // the negatives cannot balance this draw
        }
        let coef: Vec<f64> = alpha.iter().zip(&y).map(|(a, v)| a * v).collect();
        let seed = seed_alpha(&coef, &y, None, old, new);
        let balance: f64 = seed.iter().zip(&y).map(|(a, v)| a * v).sum();
        assert!(balance.abs() < 1e-9, "case {case}: yᵀα = {balance}");
        for (a, &v) in seed.iter().zip(&y) {
            let c = if v > 0.0 { new.0 } else { new.1 };
            assert!(
                (0.0..=c).contains(a),
                "case {case}: α = {a} outside [0, {c}]"
            );
        }
    }
}

/// With LIBSVM's own linear terms, the general solve is C-SVC and ε-SVR.
#[test]
fn signed_qp_with_libsvm_linear_terms_is_c_svc_and_svr() {
    use super::{solve_c_svc, solve_epsilon_svr, solve_signed_qp, DualShape, SolverSettings};
    use crate::kernel::PrecomputedKernel;
    let n = 30;
    let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
    let y: Vec<f64> = x
        .iter()
        .map(|v| if *v > 0.1 { 1.0 } else { -1.0 })
        .collect();
    let t: Vec<f64> = x.iter().map(|v| 2.0 * v + 0.3).collect();
    let k: Vec<f64> = (0..n * n)
        .map(|ij| (-(x[ij / n] - x[ij % n]).powi(2)).exp())
        .collect();
    let source = PrecomputedKernel::from_row_major(n, n, k).unwrap();
    let settings = SolverSettings::default();
    let svc = solve_c_svc(&source, &y, 2.0, 2.0, &settings, None).unwrap();
    let shape = DualShape::Classification { y: &y };
    let z = solve_signed_qp(
        &source,
        shape,
        &vec![-1.0; n],
        2.0,
        &vec![0.0; n],
        &settings,
    )
    .unwrap();
    for ((a, c), yi) in z.iter().zip(&svc.coef).zip(&y) {
        assert!((a * yi - c).abs() < 1e-12);
    }
    let svr = solve_epsilon_svr(&source, &t, 2.0, 0.1, &settings, None).unwrap();
    let p: Vec<f64> = t
        .iter()
        .map(|v| 0.1 - v)
        .chain(t.iter().map(|v| 0.1 + v))
        .collect();
    let z = solve_signed_qp(
        &source,
        DualShape::Regression,
        &p,
        2.0,
        &vec![0.0; 2 * n],
        &settings,
    )
    .unwrap();
    for i in 0..n {
        assert!((z[i] - z[n + i] - svr.coef[i]).abs() < 1e-12);
    }
    let err = solve_signed_qp(&source, shape, &[-1.0; 3], 2.0, &vec![0.0; n], &settings)
        .unwrap_err()
        .to_string();
    assert!(err.contains("30 finite values, got 3"), "{err}");
}

/// Uniform weights are a rescaled C (C-SVC, ε-SVR: the same boxes, the same
/// iterates) or change nothing (ν-SVC, one-class: the scaled duals' solution scales
/// with the weight and the decision function does not).
#[test]
fn uniform_weights_rescale_c_or_change_nothing() {
    use super::{
        solve_c_svc, solve_c_svc_weighted, solve_epsilon_svr, solve_epsilon_svr_weighted,
        solve_nu_svc, solve_nu_svc_weighted, solve_one_class, solve_one_class_weighted,
        SolverSettings,
    };
    use crate::kernel::PrecomputedKernel;
    let n = 24;
    let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.61).sin() * 2.0).collect();
    let y: Vec<f64> = x
        .iter()
        .map(|v| if (v * 3.0).sin() > 0.0 { 1.0 } else { -1.0 })
        .collect();
    let k: Vec<f64> = (0..n * n)
        .map(|ij| (-(x[ij / n] - x[ij % n]).powi(2)).exp())
        .collect();
    let source = PrecomputedKernel::from_row_major(n, n, k).unwrap();
    let s = SolverSettings {
        tol: 1e-10,
        ..SolverSettings::default()
    };
    let two = vec![2.0; n];
    let a = solve_c_svc(&source, &y, 3.0, 3.0, &s, None).unwrap();
    let b = solve_c_svc_weighted(&source, &y, Some(&two), 1.5, 1.5, &s, None).unwrap();
    assert_eq!((a.coef, a.rho, a.iterations), (b.coef, b.rho, b.iterations));
    let a = solve_epsilon_svr(&source, &x, 3.0, 0.1, &s, None).unwrap();
    let b = solve_epsilon_svr_weighted(&source, &x, Some(&two), 1.5, 0.1, &s, None).unwrap();
    assert_eq!((a.coef, a.rho), (b.coef, b.rho));
    let close = |u: &[f64], v: &[f64]| u.iter().zip(v).all(|(p, q)| (p - q).abs() < 1e-6);
    let a = solve_nu_svc(&source, &y, 0.4, &s).unwrap();
    let b = solve_nu_svc_weighted(&source, &y, Some(&two), 0.4, &s).unwrap();
    assert!(close(&a.coef, &b.coef) && (a.rho - b.rho).abs() < 1e-6);
    let a = solve_one_class(&source, 0.3, &s).unwrap();
    let b = solve_one_class_weighted(&source, Some(&two), 0.3, &s).unwrap();
    let halved: Vec<f64> = b.coef.iter().map(|c| c / 2.0).collect();
    assert!(close(&a.coef, &halved) && (a.rho - b.rho / 2.0).abs() < 1e-6);
    let err = solve_c_svc_weighted(&source, &y, Some(&[1.0; 3]), 1.0, 1.0, &s, None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("3 weights for 24 points"), "{err}");
}

/// Box only, diagonal Q: the solution is `clip(−p_i/Q_ii, 0, C)` coordinate-wise.
#[test]
fn signed_qp_without_bias_is_the_clipped_box_solution() {
    use super::{solve_signed_qp, DualShape, SolverSettings};
    use crate::kernel::PrecomputedKernel;
    let n = 12;
    let q: Vec<f64> = (0..n).map(|i| 0.5 + i as f64 * 0.25).collect();
    let k: Vec<f64> = (0..n * n)
        .map(|ij| if ij / n == ij % n { q[ij / n] } else { 0.0 })
        .collect();
    let source = PrecomputedKernel::from_row_major(n, n, k).unwrap();
    let y: Vec<f64> = (0..n)
        .map(|i| if i % 3 == 0 { -1.0 } else { 1.0 })
        .collect();
    let p: Vec<f64> = (0..n).map(|i| (i as f64 * 1.3).cos() * 3.0).collect();
    let settings = SolverSettings {
        tol: 1e-10,
        ..SolverSettings::default()
    };
    let shape = DualShape::ClassificationNoBias { y: &y };
    let z0: Vec<f64> = (0..n).map(|i| (i % 2) as f64).collect();
    let z = solve_signed_qp(&source, shape, &p, 2.0, &z0, &settings).unwrap();
    assert_eq!(z.len(), n);
    for i in 0..n {
        let want = (-p[i] / q[i]).clamp(0.0, 2.0);
        assert!((z[i] - want).abs() < 1e-8, "z[{i}] = {} vs {want}", z[i]);
    }
}

/// Seeding by scaling (`Solver::scale`) moves to `r·α` with the gradient and objective a
/// solver started there computes itself (to rounding), and refuses bounds that grew by no one factor.
#[test]
fn scaled_start_has_the_exact_gradient() {
    use crate::kernel::PrecomputedKernel;
    use crate::svm::qmatrix::SignedKernelQ;
    use crate::svm::solver::{Solver, SolverOptions, Variant};
    let n = 40;
    let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin() * 3.0).collect();
    let k: Vec<f64> = (0..n * n)
        .map(|ij| (-(x[ij / n] - x[ij % n]).powi(2)).exp())
        .collect();
    let source = PrecomputedKernel::from_row_major(n, n, k).unwrap();
    let s: Vec<i8> = x
        .iter()
        .map(|v| if (v * 2.0).cos() > 0.0 { 1 } else { -1 })
        .collect();
    let p = vec![-1.0; n];
    let opts = SolverOptions {
        eps: 1e-3,
        shrinking: true,
        max_iter: 100_000,
    };
    let mut q = SignedKernelQ::new(&source, &s, 1 << 20);
    let upper = vec![0.5; n];
    let mut solver = Solver::new(&mut q, &p, &s, vec![0.0; n], upper, Variant::Standard, 1e-3);
    let first = solver.run(&mut q, opts);
    assert!(first.alpha.contains(&0.5), "some variable at its bound");
    assert!(
        first.alpha.iter().any(|&a| a > 0.0 && a < 0.5),
        "some free variable"
    );
    let uneven: Vec<f64> = (0..n).map(|t| if t % 2 == 0 { 1.0 } else { 1.5 }).collect();
    assert!(
        !solver.clone().scale(&uneven),
        "the bounds grew by no one factor"
    );
    let mut scaled = solver.clone();
    assert!(scaled.scale(&[1.0; 40]));
    let doubled: Vec<f64> = first.alpha.iter().map(|a| 2.0 * a).collect();
    // Each solver on a matrix of its own: a run leaves its matrix in its own order.
    let mut q_fresh = SignedKernelQ::new(&source, &s, 1 << 20);
    let fresh = Solver::new(
        &mut q_fresh,
        &p,
        &s,
        doubled,
        vec![1.0; n],
        Variant::Standard,
        1e-3,
    );
    let (a, b) = (scaled.objective(), fresh.objective());
    assert!((a - b).abs() <= 1e-12 * b.abs(), "objective {a} vs {b}");
    // From the same point both reach the optimum (the restarted one shrinks sooner).
    let (a, b) = (
        scaled.run(&mut q, opts),
        fresh.clone().run(&mut q_fresh, opts),
    );
    assert!(
        (a.obj - b.obj).abs() <= 1e-6 * b.obj.abs(),
        "{} vs {}",
        a.obj,
        b.obj
    );
}
