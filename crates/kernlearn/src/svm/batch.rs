//! The rows the solver will likely read next, computed together with a row it misses
//! ([`QMatrix::fill_rows`](super::qmatrix::QMatrix::fill_rows)).
//!
//! Second-order selection picks `i` among the largest `−y_t ∇f_t` over `I_up` and its
//! partner among the largest `y_t ∇f_t` over `I_low` (weighted by curvature); a pair
//! step moves the gradient a little, so the variables ranked just below this
//! iteration's pair are the likeliest members of the next pairs. Which rows are computed
//! in advance changes no value of `Q` and no choice of the solver, only how often a row
//! is found in the cache.

use super::solver::Status;
use super::wss::Vars;

/// The `cap` largest values seen, with their indices (`cap` is small: an insertion).
struct Top<const N: usize> {
    value: [f64; N],
    index: [usize; N],
    len: usize,
    cap: usize,
}

impl<const N: usize> Top<N> {
    fn new(cap: usize) -> Self {
        Self {
            value: [f64::NEG_INFINITY; N],
            index: [0; N],
            len: 0,
            cap: cap.min(N),
        }
    }

    /// The value a new entry must exceed.
    fn bar(&self) -> f64 {
        if self.cap == 0 {
            f64::INFINITY
        } else if self.len < self.cap {
            f64::NEG_INFINITY
        } else {
            self.value[self.len - 1]
        }
    }

    fn insert(&mut self, v: f64, t: usize) {
        let mut k = self.len.min(self.cap - 1);
        self.len = (self.len + 1).min(self.cap);
        while k > 0 && self.value[k - 1] < v {
            self.value[k] = self.value[k - 1];
            self.index[k] = self.index[k - 1];
            k -= 1;
        }
        self.value[k] = v;
        self.index[k] = t;
    }
}

/// Writes into `out` up to `out.len()` variables likely to be in the next working pairs
/// and returns how many: the largest violations `−y_t ∇f_t` over `I_up` (up to `up` of
/// them) and `y_t ∇f_t` over `I_low` (the rest), each variable once, leaving out those
/// `skip` names (the row being computed anyway, rows already cached).
pub(crate) fn likely_rows(
    v: Vars,
    up: usize,
    skip: impl Fn(usize) -> bool,
    out: &mut [usize],
) -> usize {
    const N: usize = 32;
    let mut best_up = Top::<N>::new(up.min(out.len()));
    let mut best_low = Top::<N>::new(out.len() - best_up.cap);
    let (mut bar_up, mut bar_low) = (best_up.bar(), best_low.bar());
    for (t, ((&y, &status), &g)) in v.y.iter().zip(v.status).zip(v.grad).enumerate() {
        // Without branches on the signs and statuses (unpredictable): the violations of
        // a variable outside a set are −∞, and a variable rarely beats a bar.
        let pos = y == 1;
        let yg = if pos { g } else { -g };
        let (not_up, not_low) = if pos {
            (Status::Upper, Status::Lower)
        } else {
            (Status::Lower, Status::Upper)
        };
        let up_v = if status != not_up {
            -yg
        } else {
            f64::NEG_INFINITY
        };
        let low_v = if status != not_low {
            yg
        } else {
            f64::NEG_INFINITY
        };
        if (up_v > bar_up || low_v > bar_low) && !skip(t) {
            if up_v > bar_up {
                best_up.insert(up_v, t);
                bar_up = best_up.bar();
            } else {
                best_low.insert(low_v, t);
                bar_low = best_low.bar();
            }
        }
    }
    let chosen = best_up.index[..best_up.len]
        .iter()
        .chain(&best_low.index[..best_low.len]);
    let mut count = 0;
    for (o, &t) in out.iter_mut().zip(chosen) {
        *o = t;
        count += 1;
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_largest_violations_of_each_set() {
        let y = [1i8, 1, -1, -1, 1, -1, 1, 1];
        let status = [Status::Free; 8];
        let grad = [-3.0, -1.0, 2.0, 0.5, -5.0, 4.0, 0.0, 2.5];
        let v = Vars {
            y: &y,
            status: &status,
            grad: &grad,
        };
        let mut out = [0usize; 4];
        // I_up by −y∇f: 4 (5), 5 (4), 0 (3), 2 (2); the first two kept, 5 skipped.
        let n = likely_rows(v, 2, |t| t == 5, &mut out);
        assert_eq!(n, 4);
        assert_eq!(&out[..2], &[4, 0]);
        // The rest from I_low by y∇f among those not taken: 7 (2.5), 1 (−1) ...
        assert_eq!(out[2], 7);
    }
}
