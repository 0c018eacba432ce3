//! How far a running solve has come, for whoever watches it (the command line's
//! progress bar) without a callback through every layer.
//!
//! The SMO solver reports at its shrinking checkpoints (every `min(n, 1000)`
//! iterations) the share of the way its KKT gap `m(α) − M(α)` has travelled from the
//! first checkpoint's gap `g₀` to the tolerance `ε` on a log scale,
//! `ln(g₀/g) / ln(g₀/ε)`: SMO's gap falls roughly geometrically once the working set
//! settles (Chen, Fan and Lin 2006, linear convergence), so the share grows about
//! linearly in time and a watcher can extrapolate the time left. The value is the
//! latest report of any solve of the process (a watcher of one fit sees that fit's).

use std::sync::atomic::{AtomicU64, Ordering};

/// `f64` bits of the latest share; NaN before any report.
static SHARE: AtomicU64 = AtomicU64::new(0x7ff8_0000_0000_0000);

/// Forgets the last report (a watcher calls it before the fit it watches).
pub fn reset() {
    SHARE.store(f64::NAN.to_bits(), Ordering::Relaxed);
}

/// The latest share in `[0, 1]` of the way to the tolerance, if a solve reported one.
pub fn solver_share() -> Option<f64> {
    let v = f64::from_bits(SHARE.load(Ordering::Relaxed));
    (!v.is_nan()).then_some(v)
}

/// A solve's progress from its first checkpoint's gap `first` to its tolerance `eps`,
/// now at gap `gap`; kept monotone by the caller's `best` (the share it last reported).
pub(crate) fn report_gap(first: f64, gap: f64, eps: f64, best: &mut f64) {
    let span = (first / eps).ln();
    if span.is_nan() || span <= 0.0 || !gap.is_finite() {
        return;
    }
    let share = ((first / gap.max(eps)).ln() / span).clamp(0.0, 1.0);
    if share > *best {
        *best = share;
        SHARE.store(share.to_bits(), Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_share_runs_on_a_log_scale_and_never_goes_back() {
        let mut best = 0.0;
        report_gap(1.0, 0.1, 1e-3, &mut best);
        assert!((best - 1.0 / 3.0).abs() < 1e-12);
        report_gap(1.0, 0.5, 1e-3, &mut best);
        assert!(
            (best - 1.0 / 3.0).abs() < 1e-12,
            "a larger gap does not move it back"
        );
        report_gap(1.0, 1e-9, 1e-3, &mut best);
        assert_eq!(best, 1.0);
        let mut none = 0.0;
        report_gap(1e-4, 1e-5, 1e-3, &mut none);
        assert_eq!(none, 0.0, "a first gap below the tolerance reports nothing");
    }
}
