//! Paired comparison of a method with a baseline on the same splits: the
//! per-split difference of the primary test metric, its mean and standard error, the
//! win / tie / loss count and the Wilcoxon signed-rank test of the differences.
//!
//! Both experiments must have run on the same splits (same seeds, same test indices):
//! [`Experiment::run`](super::Experiment::run) with the same `seed`, `repeats`,
//! `test_fraction` and task gives that. The difference of split `r` is
//! `d_r = score_method(r) − score_baseline(r)` for accuracy (higher is better) and
//! `d_r = score_baseline(r) − score_method(r)` for the relative squared error (lower is
//! better), so **a positive difference always means the method did better**.
//!
//! The Wilcoxon signed-rank test (Wilcoxon 1945) follows SciPy's
//! `scipy.stats.wilcoxon` defaults: `zero_method = "wilcox"` (zero differences are
//! dropped before ranking), `alternative = "two-sided"`, `correction = False`, and
//! `method = "auto"`: the exact null distribution of `R⁺` when at most 50 nonzero
//! differences remain and neither zeros nor tied `|d|` occurred; otherwise the normal
//! approximation `z = (R⁺ − n(n+1)/4) / σ` with the tie-corrected variance
//! `σ² = n(n+1)(2n+1)/24 − Σ(t³ − t)/48` (t: sizes of the groups of tied `|d|`).

use super::ExperimentReport;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// Differences smaller than this (in the metric's units) count as a tie in the
/// win / tie / loss count and as a zero in the Wilcoxon test (accuracy differences are
/// multiples of 1/n_test, far above it).
pub const TIE_TOLERANCE: f64 = 1e-12;

/// Most differences (zeros included) for which the exact null distribution is used when
/// there are neither zeros nor ties (SciPy's).
pub const EXACT_UP_TO: usize = 50;

/// Most differences (zeros included) for which, with zeros or ties, the p-value is the
/// exact permutation distribution over all sign patterns (SciPy ≥ 1.13's
/// `PermutationMethod` for n ≤ 13, where its 9,999 resamples enumerate every pattern).
pub const PERMUTATION_UP_TO: usize = 13;

/// How the Wilcoxon p-value was computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WilcoxonMethod {
    /// The exact null distribution of `R⁺` (at most [`EXACT_UP_TO`] differences, no ties
    /// or zeros).
    Exact,
    /// With zeros or ties among at most [`PERMUTATION_UP_TO`] differences: the exact
    /// distribution of `R⁺` (averaged ranks) over every sign pattern of the nonzero ones.
    Permutation,
    /// The normal approximation with the tie-corrected variance, no continuity correction.
    Normal,
    /// Every difference was zero: no test (p = 1 by convention; SciPy returns NaN).
    AllZero,
}

/// The two-sided Wilcoxon signed-rank test of paired differences.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Wilcoxon {
    /// `min(R⁺, R⁻)`, SciPy's two-sided statistic (ranks of `|d|` averaged over ties).
    pub statistic: f64,
    /// Sum of the ranks of the positive differences.
    pub r_plus: f64,
    /// Nonzero differences ranked.
    pub n: usize,
    /// Two-sided p-value.
    pub p_value: f64,
    /// How `p_value` was computed.
    pub method: WilcoxonMethod,
}

/// The two-sided Wilcoxon signed-rank test of `d` (see the module docs for the
/// conventions, SciPy's defaults). Errors on an empty or non-finite input.
pub fn wilcoxon_signed_rank(d: &[f64]) -> Result<Wilcoxon> {
    if d.is_empty() {
        return Err(Error::param("differences", "need at least one"));
    }
    if let Some(v) = d.iter().find(|v| !v.is_finite()) {
        return Err(Error::param("differences", format!("{v} is not finite")));
    }
    let nonzero: Vec<f64> = d
        .iter()
        .copied()
        .filter(|v| v.abs() > TIE_TOLERANCE)
        .collect();
    let n = nonzero.len();
    if n == 0 {
        return Ok(Wilcoxon {
            statistic: 0.0,
            r_plus: 0.0,
            n: 0,
            p_value: 1.0,
            method: WilcoxonMethod::AllZero,
        });
    }
    let (ranks, tie_sizes) = average_ranks(&nonzero.iter().map(|v| v.abs()).collect::<Vec<_>>());
    let r_plus: f64 = nonzero
        .iter()
        .zip(&ranks)
        .filter(|(v, _)| **v > 0.0)
        .map(|(_, r)| r)
        .sum();
    let total = (n * (n + 1)) as f64 / 2.0;
    let r_minus = total - r_plus;
    let ties = tie_sizes.iter().any(|&t| t > 1);
    let zeros = n < d.len();
    let (p_value, method) = if d.len() <= EXACT_UP_TO && !ties && !zeros {
        // R⁺ is a whole number here (no averaged ranks).
        let doubled: Vec<usize> = (1..=n).map(|r| 2 * r).collect();
        let p = exact_two_sided(&doubled, (2.0 * r_plus).round() as usize);
        (p, WilcoxonMethod::Exact)
    } else if d.len() <= PERMUTATION_UP_TO {
        // Every sign pattern of the nonzero differences, ranks averaged over ties (twice
        // an average rank is a whole number).
        let doubled: Vec<usize> = ranks.iter().map(|r| (2.0 * r).round() as usize).collect();
        let p = exact_two_sided(&doubled, (2.0 * r_plus).round() as usize);
        (p, WilcoxonMethod::Permutation)
    } else {
        let nf = n as f64;
        let mean = nf * (nf + 1.0) / 4.0;
        let correction: f64 = tie_sizes
            .iter()
            .map(|&t| (t * t * t - t) as f64)
            .sum::<f64>();
        let var = (nf * (nf + 1.0) * (2.0 * nf + 1.0) - correction / 2.0) / 24.0;
        // var ≥ (n³ − n)/48·… > 0 for n ≥ 1 (all tied: n(n+1)(2n+1)/24 − (n³ − n)/48 > 0).
        let z = (r_plus - mean) / var.sqrt();
        ((2.0 * normal_sf(z.abs())).min(1.0), WilcoxonMethod::Normal)
    };
    Ok(Wilcoxon {
        statistic: r_plus.min(r_minus),
        r_plus,
        n,
        p_value,
        method,
    })
}

/// Ranks 1…n of `v` (ties get the average of their ranks) and the size of every group of
/// equal values.
fn average_ranks(v: &[f64]) -> (Vec<f64>, Vec<usize>) {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut ranks = vec![0.0; v.len()];
    let mut sizes = Vec::new();
    let mut i = 0;
    while i < order.len() {
        let mut j = i + 1;
        while j < order.len() && (v[order[j]] - v[order[i]]).abs() <= TIE_TOLERANCE {
            j += 1;
        }
        // positions i..j (0-based) have ranks i+1..=j; their average is (i + 1 + j) / 2
        let avg = (i + 1 + j) as f64 / 2.0;
        for &o in &order[i..j] {
            ranks[o] = avg;
        }
        sizes.push(j - i);
        i = j;
    }
    (ranks, sizes)
}

/// The two-sided p-value `min(1, 2·min(P(T ≤ t), P(T ≥ t)))` of the statistic
/// `T = Σ w_i s_i` over all 2ⁿ sign patterns `s ∈ {0, 1}ⁿ` (equally likely under the
/// null), for whole weights `w` (twice the ranks) and observed `t`: the exact null
/// distribution of `2R⁺`, by dynamic programming over the weights. The counts are exact
/// in f64 up to n = 52 (2⁵² < 2⁵³).
fn exact_two_sided(weights: &[usize], t: usize) -> f64 {
    let max: usize = weights.iter().sum();
    let mut counts = vec![0.0; max + 1];
    counts[0] = 1.0;
    let mut reach = 0;
    for &w in weights {
        reach += w;
        for s in (w..=reach).rev() {
            counts[s] += counts[s - w];
        }
    }
    let all: f64 = counts.iter().sum();
    let t = t.min(max);
    let cdf: f64 = counts[..=t].iter().sum::<f64>() / all;
    let sf: f64 = counts[t..].iter().sum::<f64>() / all;
    (2.0 * cdf.min(sf)).min(1.0)
}

/// `P(Z > z)` for a standard normal Z: `erfc(z/√2)/2`.
pub(crate) fn normal_sf(z: f64) -> f64 {
    0.5 * erfc(z / std::f64::consts::SQRT_2)
}

/// The complementary error function, to about 1e-14 relative accuracy: the
/// non-alternating series `erf(x) = (2/√π) e^{−x²} Σ 2ⁿx^{2n+1}/(1·3···(2n+1))` for
/// `|x| < 3`, the continued fraction `erfc(x) = e^{−x²}/√π · 1/(x + ½/(x + 1/(x + 3/2/(x + …))))`
/// (modified Lentz) above, and `erfc(−x) = 2 − erfc(x)`.
fn erfc(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x < 0.0 {
        return 2.0 - erfc(-x);
    }
    let frac_2_sqrt_pi = std::f64::consts::FRAC_2_SQRT_PI;
    if x < 3.0 {
        let x2 = x * x;
        let (mut term, mut sum) = (x, x);
        let mut k = 0.0;
        while term > 1e-17 * sum {
            k += 1.0;
            term *= 2.0 * x2 / (2.0 * k + 1.0);
            sum += term;
        }
        return 1.0 - frac_2_sqrt_pi * (-x2).exp() * sum;
    }
    if x > 27.0 {
        return 0.0;
    }
    // Continued fraction K = 1/(x + a1/(x + a2/(x + …))), a_k = k/2, by modified Lentz.
    let tiny = 1e-300;
    let mut f = x;
    let (mut c, mut d) = (x, 0.0);
    for k in 1..500 {
        let a = k as f64 / 2.0;
        d = x + a * d;
        d = if d.abs() < tiny { 1.0 / tiny } else { 1.0 / d };
        c = x + a / c;
        if c.abs() < tiny {
            c = tiny;
        }
        let delta = c * d;
        f *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    0.5 * frac_2_sqrt_pi * (-x * x).exp() / f
}

/// A method against a baseline on the same splits (see the module docs for the sign).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairedComparison {
    /// The baseline's name (`SVM-CV`, …).
    pub baseline: String,
    /// The compared metric (the primary one: `accuracy` or `rse`), on the test parts.
    pub metric: String,
    /// Splits compared.
    pub splits: usize,
    /// The baseline's mean test score.
    pub baseline_mean: f64,
    /// Mean paired difference `d̄` (positive: the method is better; accuracy as a
    /// fraction, not %).
    pub mean_difference: f64,
    /// Standard error of `d̄`: the sample standard deviation of the `d_r` (n − 1) over
    /// `√n` (0 for one split).
    pub standard_error: f64,
    /// Splits where the method is better by more than [`TIE_TOLERANCE`].
    pub wins: usize,
    /// Splits with equal scores.
    pub ties: usize,
    /// Splits where the baseline is better.
    pub losses: usize,
    /// Two-sided Wilcoxon signed-rank test of the differences.
    pub wilcoxon: Wilcoxon,
    /// `d_r` of each split, in repeat order.
    pub differences: Vec<f64>,
}

impl PairedComparison {
    /// Whether the method is worse than the baseline by more than `k` standard errors
    /// (the acceptance test uses k = 1). Exactly `k` SE is not more: one split
    /// lost out of `n` (all others tied) gives `mean = −d/n` and `SE = |d|/n` identically,
    /// so the comparison allows a relative 1e-9 for rounding rather than let the last
    /// bit of two equal numbers decide.
    /// One split has no spread, so no standard error and no verdict: `false`.
    pub(crate) fn worse_by_more_than(&self, k: f64) -> bool {
        if self.splits < 2 {
            return false;
        }
        let bound = k * self.standard_error;
        -self.mean_difference - bound > 1e-9 * (self.mean_difference.abs() + bound)
    }

    /// `W/T/L` as text.
    pub fn win_tie_loss(&self) -> String {
        format!("{}/{}/{}", self.wins, self.ties, self.losses)
    }
}

/// The paired comparison of `method` with `baseline`: both must be on the same dataset,
/// metric and splits (equal seeds and test indices, repeat by repeat).
pub fn compare(method: &ExperimentReport, baseline: &ExperimentReport) -> Result<PairedComparison> {
    let mismatch = |what: String| {
        Error::param(
            "baseline",
            format!(
                "{} and {} on {} did not run on the same splits: {what}",
                method.method, baseline.method, method.dataset
            ),
        )
    };
    if method.primary_metric != baseline.primary_metric {
        return Err(mismatch(format!(
            "metrics {} and {}",
            method.primary_metric, baseline.primary_metric
        )));
    }
    if method.runs.len() != baseline.runs.len() || method.runs.is_empty() {
        return Err(mismatch(format!(
            "{} and {} repeats",
            method.runs.len(),
            baseline.runs.len()
        )));
    }
    let metric = &method.primary_metric;
    let higher_is_better = metric == "accuracy";
    let mut differences = Vec::with_capacity(method.runs.len());
    let mut base_scores = Vec::with_capacity(method.runs.len());
    for (a, b) in method.runs.iter().zip(&baseline.runs) {
        if a.seed != b.seed || a.test_indices != b.test_indices {
            return Err(mismatch(format!("repeat {} differs", a.repeat)));
        }
        let score = |r: &super::RepeatResult| {
            r.test
                .get(metric)
                .copied()
                .ok_or_else(|| mismatch(format!("repeat {} has no test {metric}", r.repeat)))
        };
        let (sa, sb) = (score(a)?, score(b)?);
        base_scores.push(sb);
        differences.push(if higher_is_better { sa - sb } else { sb - sa });
    }
    paired_summary(&baseline.method, metric, &base_scores, differences)
}

/// Mean, standard error, W/T/L and the Wilcoxon test of `differences`.
pub(crate) fn paired_summary(
    baseline: &str,
    metric: &str,
    baseline_scores: &[f64],
    differences: Vec<f64>,
) -> Result<PairedComparison> {
    let wilcoxon = wilcoxon_signed_rank(&differences)?;
    let stats = super::MeanStd::of(&differences);
    let n = differences.len();
    let count = |f: fn(f64) -> bool| differences.iter().filter(|&&d| f(d)).count();
    Ok(PairedComparison {
        baseline: baseline.to_string(),
        metric: metric.to_string(),
        splits: n,
        baseline_mean: super::MeanStd::of(baseline_scores).mean,
        mean_difference: stats.mean,
        standard_error: stats.std / (n as f64).sqrt(),
        wins: count(|d| d > TIE_TOLERANCE),
        ties: count(|d| d.abs() <= TIE_TOLERANCE),
        losses: count(|d| d < -TIE_TOLERANCE),
        wilcoxon,
        differences,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(1e-300)
    }

    #[test]
    fn erfc_matches_known_values() {
        // Reference values of erfc (Abramowitz & Stegun Table 7.1 / any CAS).
        for (x, want) in [
            (0.0, 1.0),
            (0.5, 0.479_500_122_186_953_5),
            (1.0, 0.157_299_207_050_285_13),
            (2.0, 0.004_677_734_981_047_266),
            (3.0, 2.209_049_699_858_544e-5),
            (5.0, 1.537_459_794_428_034_8e-12),
            (-1.0, 1.842_700_792_949_715),
        ] {
            assert!(
                close(erfc(x), want, 1e-12),
                "erfc({x}) = {} vs {want}",
                erfc(x)
            );
        }
    }

    #[test]
    fn exact_distribution_of_small_cases() {
        // n = 3, ranks 1, 2, 3: R⁺ ∈ {0, 1, 2, 3, 3, 4, 5, 6}; P(R⁺ ≤ 0) = 1/8 → p = 1/4.
        assert!(close(exact_two_sided(&[2, 4, 6], 0), 0.25, 1e-15));
        // the middle value is never below 1
        assert_eq!(exact_two_sided(&[2, 4, 6], 6), 1.0);
    }

    /// Reference values printed by SciPy 1.17.1, `scipy.stats.wilcoxon(d)` with its
    /// defaults (zero_method="wilcox", correction=False, method="auto",
    /// alternative="two-sided"), run once in a throwaway virtual environment; only the
    /// printed statistic and p-value are copied here. The inputs cover each branch: exact
    /// (no zeros or ties, n ≤ 50), exact permutation (zeros or ties, n ≤ 13) and the
    /// normal approximation (ties, n > 13; n > 50).
    #[test]
    fn p_values_match_scipy() {
        let exact_20: Vec<f64> = (1..=20)
            .map(|i| {
                let i = i as f64;
                let sign = if (i as usize * 5).is_multiple_of(3) {
                    -1.0
                } else {
                    1.0
                };
                sign * (i * 1.37 + 0.011 * i * i)
            })
            .collect();
        let normal_60: Vec<f64> = (1..=60)
            .map(|i| ((((i as f64) * 1.7).sin() * 10.0 + 1.3) * 1e6).round() / 1e6)
            .collect();
        let cases: Vec<(Vec<f64>, f64, f64, WilcoxonMethod)> = vec![
            (
                vec![0.5, -1.25, 2.0, 3.5, -0.75, 4.25, 1.5, 6.0, -2.75, 5.5],
                11.0,
                0.10546875,
                WilcoxonMethod::Exact,
            ),
            (
                vec![1.0, 2.0, 3.0, -4.0, 5.0],
                4.0,
                0.4375,
                WilcoxonMethod::Exact,
            ),
            (exact_20, 63.0, 0.1230926513671875, WilcoxonMethod::Exact),
            (
                vec![
                    0.02, 0.0, -0.01, 0.02, 0.03, 0.0, -0.02, 0.01, 0.02, 0.04, -0.01, 0.02,
                ],
                10.0,
                0.087890625,
                WilcoxonMethod::Permutation,
            ),
            (
                vec![1.0, 1.0, 2.0, -2.0, 3.0, 3.0, 3.0, -1.0, 4.0, 5.0],
                6.5,
                0.03125,
                WilcoxonMethod::Permutation,
            ),
            (
                vec![0.0148, 0.0, 0.0074],
                0.0,
                0.5,
                WilcoxonMethod::Permutation,
            ),
            (vec![0.01; 4], 0.0, 0.125, WilcoxonMethod::Permutation),
            (
                [
                    2, 0, -1, 2, 3, 0, -2, 1, 2, 4, -1, 2, 1, 1, 0, 3, -3, 2, 5, 1,
                ]
                .iter()
                .map(|&v| v as f64)
                .collect(),
                30.5,
                0.02777296959686304,
                WilcoxonMethod::Normal,
            ),
            (
                normal_60,
                676.0,
                0.07850566825864076,
                WilcoxonMethod::Normal,
            ),
        ];
        for (d, statistic, p, method) in cases {
            let w = wilcoxon_signed_rank(&d).unwrap();
            assert_eq!(w.method, method, "{d:?}");
            assert!(close(w.statistic, statistic, 1e-12), "{d:?}: {w:?}");
            assert!(close(w.p_value, p, 1e-9), "{d:?}: {} vs {p}", w.p_value);
        }
    }

    #[test]
    fn paired_summary_counts_and_standard_error() {
        let s = paired_summary(
            "SVM-CV",
            "accuracy",
            &[0.8, 0.8, 0.8, 0.8],
            vec![0.02, 0.0, -0.01, 0.03],
        )
        .unwrap();
        assert_eq!((s.wins, s.ties, s.losses), (2, 1, 1));
        assert_eq!(s.win_tie_loss(), "2/1/1");
        assert!(close(s.mean_difference, 0.01, 1e-12));
        // sample std of (0.02, 0, −0.01, 0.03) = √(0.0005/3·…) computed by hand:
        // deviations 0.01, −0.01, −0.02, 0.02 → Σ = 0.001 → var = 0.001/3
        let se = (0.001f64 / 3.0).sqrt() / 2.0;
        assert!(close(s.standard_error, se, 1e-12));
        assert!(!s.worse_by_more_than(1.0));
        assert_eq!(s.baseline_mean, 0.8);
    }

    /// One split lost by d out of n (the rest tied) is exactly one SE below (mean −d/n,
    /// SE |d|/n), which is not *more* than one SE whatever the rounding; two such
    /// losses are 2/√(2·18/19) ≈ 1.45 SE below.
    #[test]
    fn one_lost_split_is_exactly_one_standard_error() {
        let baseline = [0.8; 20];
        for d in [0.0096153846, 0.01, 0.037037037, 1.0 / 104.0, 3.0 / 135.0] {
            let mut diffs = vec![0.0; 20];
            diffs[7] = -d;
            let one = paired_summary("SVM-CV", "accuracy", &baseline, diffs.clone()).unwrap();
            assert!(
                close(one.mean_difference, -one.standard_error, 1e-12),
                "{d}"
            );
            assert!(!one.worse_by_more_than(1.0), "{d}");
            diffs[11] = -d;
            let two = paired_summary("SVM-CV", "accuracy", &baseline, diffs).unwrap();
            assert!(two.worse_by_more_than(1.0), "{d}");
            assert!(!two.worse_by_more_than(1.5), "{d}");
        }
    }

    #[test]
    fn bad_input_is_an_error() {
        assert!(wilcoxon_signed_rank(&[]).is_err());
        assert!(wilcoxon_signed_rank(&[1.0, f64::NAN]).is_err());
        let all_zero = wilcoxon_signed_rank(&[0.0, 0.0]).unwrap();
        assert_eq!(all_zero.method, WilcoxonMethod::AllZero);
        assert_eq!(all_zero.p_value, 1.0);
    }
}
