//! Platt-scaled probabilities (LIBSVM's `-b 1`): a sigmoid fitted to cross-validated
//! decision values (Platt 1999, with the Newton method of Lin, Lin and Weng 2007), and
//! pairwise coupling for more than two classes (Wu, Lin and Weng 2004, method 2).

/// Fits `P(y = 1 | f) = 1 / (1 + exp(A f + B))` to decision values `dec` and labels `y`
/// (positive when `> 0`) by regularised maximum likelihood. Returns `(A, B)`.
pub(super) fn sigmoid_train(dec: &[f64], y: &[f64]) -> (f64, f64) {
    let prior1 = y.iter().filter(|&&v| v > 0.0).count() as f64;
    let prior0 = y.len() as f64 - prior1;
    let (max_iter, min_step, sigma, eps) = (100, 1e-10, 1e-12, 1e-5);
    let hi = (prior1 + 1.0) / (prior1 + 2.0);
    let lo = 1.0 / (prior0 + 2.0);
    let t: Vec<f64> = y.iter().map(|&v| if v > 0.0 { hi } else { lo }).collect();
    let objective = |a: f64, b: f64| -> f64 {
        dec.iter()
            .zip(&t)
            .map(|(&f, &ti)| {
                let x = f * a + b;
                if x >= 0.0 {
                    ti * x + (-x).exp().ln_1p()
                } else {
                    (ti - 1.0) * x + x.exp().ln_1p()
                }
            })
            .sum()
    };
    let (mut a, mut b) = (0.0, ((prior0 + 1.0) / (prior1 + 1.0)).ln());
    let mut fval = objective(a, b);
    for _ in 0..max_iter {
        let (mut h11, mut h22, mut h21, mut g1, mut g2) = (sigma, sigma, 0.0, 0.0, 0.0);
        for (&f, &ti) in dec.iter().zip(&t) {
            let x = f * a + b;
            let (p, q) = if x >= 0.0 {
                let e = (-x).exp();
                (e / (1.0 + e), 1.0 / (1.0 + e))
            } else {
                let e = x.exp();
                (1.0 / (1.0 + e), e / (1.0 + e))
            };
            let d2 = p * q;
            h11 += f * f * d2;
            h22 += d2;
            h21 += f * d2;
            let d1 = ti - p;
            g1 += f * d1;
            g2 += d1;
        }
        if g1.abs() < eps && g2.abs() < eps {
            break;
        }
        let det = h11 * h22 - h21 * h21;
        let da = -(h22 * g1 - h21 * g2) / det;
        let db = -(-h21 * g1 + h11 * g2) / det;
        let gd = g1 * da + g2 * db;
        let mut step = 1.0;
        while step >= min_step {
            let (na, nb) = (a + step * da, b + step * db);
            let nf = objective(na, nb);
            if nf < fval + 1e-4 * step * gd {
                a = na;
                b = nb;
                fval = nf;
                break;
            }
            step /= 2.0;
        }
        if step < min_step {
            break;
        }
    }
    (a, b)
}

/// `P(y = 1 | f)` for the fitted sigmoid, computed without cancellation.
pub(super) fn sigmoid_predict(f: f64, a: f64, b: f64) -> f64 {
    let x = f * a + b;
    if x >= 0.0 {
        let e = (-x).exp();
        e / (1.0 + e)
    } else {
        1.0 / (1.0 + x.exp())
    }
}

/// Class probabilities from pairwise probabilities `r[i][j] ≈ P(i | i or j)`
/// (Wu, Lin and Weng 2004, method 2), as LIBSVM's `multiclass_probability`.
pub(super) fn couple_pairwise(r: &[Vec<f64>]) -> Vec<f64> {
    let k = r.len();
    let mut q = vec![vec![0.0; k]; k];
    for t in 0..k {
        for j in 0..k {
            if j != t {
                q[t][t] += r[j][t] * r[j][t];
                q[t][j] = -r[j][t] * r[t][j];
            }
        }
    }
    let mut p = vec![1.0 / k as f64; k];
    let mut qp = vec![0.0; k];
    let eps = 0.005 / k as f64;
    for _ in 0..100.max(k) {
        let mut pqp = 0.0;
        for t in 0..k {
            qp[t] = (0..k).map(|j| q[t][j] * p[j]).sum();
            pqp += p[t] * qp[t];
        }
        let max_err = qp.iter().map(|v| (v - pqp).abs()).fold(0.0, f64::max);
        if max_err < eps {
            break;
        }
        for t in 0..k {
            let diff = (-qp[t] + pqp) / q[t][t];
            p[t] += diff;
            pqp = (pqp + diff * (diff * q[t][t] + 2.0 * qp[t])) / (1.0 + diff) / (1.0 + diff);
            for j in 0..k {
                qp[j] = (qp[j] + diff * q[t][j]) / (1.0 + diff);
                p[j] /= 1.0 + diff;
            }
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sigmoid_separates_and_is_monotone() {
        let dec: Vec<f64> = (-10..=10).map(|v| v as f64 / 5.0).collect();
        let y: Vec<f64> = dec
            .iter()
            .map(|&f| if f > 0.0 { 1.0 } else { -1.0 })
            .collect();
        let (a, b) = sigmoid_train(&dec, &y);
        assert!(
            a < 0.0,
            "A = {a} must be negative for positive-means-class-1"
        );
        let p_lo = sigmoid_predict(-2.0, a, b);
        let p_hi = sigmoid_predict(2.0, a, b);
        assert!(p_lo < 0.2 && p_hi > 0.8, "{p_lo} {p_hi}");
    }

    #[test]
    fn coupling_recovers_consistent_probabilities() {
        // Pairwise probabilities generated from p = (0.5, 0.3, 0.2).
        let p = [0.5, 0.3, 0.2];
        let r: Vec<Vec<f64>> = (0..3)
            .map(|i| {
                (0..3)
                    .map(|j| if i == j { 0.0 } else { p[i] / (p[i] + p[j]) })
                    .collect()
            })
            .collect();
        let est = couple_pairwise(&r);
        for (e, t) in est.iter().zip(p) {
            assert!((e - t).abs() < 1e-2, "{est:?}");
        }
        assert!((est.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    }
}
