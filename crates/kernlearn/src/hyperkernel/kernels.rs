//! Hyperkernels `k̲((x_i, x_j), (x_p, x_q))`: kernels on pairs of points whose sections
//! `k̲((x_i, x_j), ·)` are themselves kernels (Ong, Smola and Williamson 2005, section 4).
//!
//! Every hyperkernel here factors through a short vector of *pair values* computed once
//! per pair (the base kernel value `k(x_i, x_j)`; per-dimension scaled squared
//! differences for ARD; one value per term of an explicit expansion) and a combination
//! of two such vectors. The low-rank factorisation over all training pairs and the
//! learned kernel both evaluate through `Hyperkernel::pair_values` and
//! `Hyperkernel::combine`.

use crate::kernel::Kernel;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A power series `g(ξ) = Σ_i c_i ξ^i` with `c_i ≥ 0` of the paper's Table 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Series {
    /// `exp ξ` (radius ∞).
    Exp,
    /// `sinh ξ` (radius ∞).
    Sinh,
    /// `cosh ξ` (radius ∞).
    Cosh,
    /// `arctanh ξ` (radius 1).
    Arctanh,
    /// `−ln(1 − ξ)` (radius 1).
    NegLog,
}

impl Series {
    /// Radius of convergence `R` of the series (Table 2).
    pub(crate) fn radius(self) -> f64 {
        match self {
            Series::Exp | Series::Sinh | Series::Cosh => f64::INFINITY,
            Series::Arctanh | Series::NegLog => 1.0,
        }
    }

    /// `g(ξ)` in closed form.
    pub(crate) fn eval(self, xi: f64) -> f64 {
        match self {
            Series::Exp => xi.exp(),
            Series::Sinh => xi.sinh(),
            Series::Cosh => xi.cosh(),
            Series::Arctanh => xi.atanh(),
            Series::NegLog => -(-xi).ln_1p(),
        }
    }

    /// Coefficient `c_i` of `ξ^i` (for the tests against the truncated series).
    #[cfg(test)]
    pub(crate) fn coefficient(self, i: u32) -> f64 {
        let fact = |n: u32| (1..=n).map(f64::from).product::<f64>();
        match self {
            Series::Exp => 1.0 / fact(i),
            Series::Sinh if i % 2 == 1 => 1.0 / fact(i),
            Series::Cosh if i.is_multiple_of(2) => 1.0 / fact(i),
            Series::Arctanh if i % 2 == 1 => 1.0 / f64::from(i),
            Series::NegLog if i >= 1 => 1.0 / f64::from(i),
            _ => 0.0,
        }
    }

    /// Name as in specs (`exp`, `sinh`, `cosh`, `arctanh`, `neglog`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Series::Exp => "exp",
            Series::Sinh => "sinh",
            Series::Cosh => "cosh",
            Series::Arctanh => "arctanh",
            Series::NegLog => "neglog",
        }
    }
}

/// One term `c_t k_t(x̲) k_t(x̲')` of an explicit expansion (15).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExplicitTerm {
    /// Weight `c_t ≥ 0`.
    pub weight: f64,
    /// Kernel `k_t`; must be pointwise non-negative (Gaussian, Laplacian, polynomial of
    /// even degree) so that every section of the hyperkernel is a kernel (Proposition 8).
    pub kernel: Kernel,
}

/// A hyperkernel (section 4). Base Gaussian kernels use the library's convention
/// `exp(−‖x − x'‖²/σ²)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Hyperkernel {
    /// Harmonic hyperkernel (12): `(1 − λ_h) / (1 − λ_h k(x̲) k(x̲'))` over a base kernel
    /// with values in `[0, 1]`; with a Gaussian base this is (13).
    Harmonic {
        /// `λ_h ∈ (0, 1)`.
        lambda_h: f64,
        /// Base kernel `k` (values must lie in `[0, 1]`).
        base: Kernel,
    },
    /// ARD hyperkernel (14): `Π_j (1 − λ_h) / (1 − λ_h exp(−σ_j((x_j − x'_j)² + (x''_j −
    /// x'''_j)²)))` with one precision `σ_j = 1/w_j²` per dimension (`w_j` the width).
    Ard {
        /// `λ_h ∈ (0, 1)`.
        lambda_h: f64,
        /// Widths `w_j > 0`, one per input dimension.
        widths: Vec<f64>,
    },
    /// Power-series hyperkernel (11) with a series of Table 2 over `scale · k`:
    /// `g(scale² k(x̲) k(x̲'))`, defined while `scale² k k' < R`.
    PowerSeries {
        /// The series `g`.
        series: Series,
        /// Base kernel `k` (pointwise non-negative).
        base: Kernel,
        /// Factor `s ∈ (0, 1]` on the base kernel (radius-1 series need `s < 1` on a
        /// kernel that reaches 1).
        scale: f64,
    },
    /// Explicit expansion (15): `Σ_t c_t k_t(x̲) k_t(x̲')`; (16) is a polynomial of
    /// even degree plus a Gaussian.
    Explicit {
        /// The terms.
        terms: Vec<ExplicitTerm>,
    },
}

/// Whether a kernel is pointwise non-negative on any data (needed by (11) and (15)).
fn pointwise_non_negative(k: &Kernel) -> bool {
    match k {
        Kernel::Rbf { .. }
        | Kernel::Laplacian { .. }
        | Kernel::ArdRbf { .. }
        | Kernel::ChiSquared { .. } => true,
        Kernel::Polynomial { degree, .. } => degree % 2 == 0,
        _ => false,
    }
}

fn check_lambda_h(lambda_h: f64) -> Result<()> {
    if lambda_h > 0.0 && lambda_h < 1.0 {
        Ok(())
    } else {
        Err(Error::param(
            "lambda-h",
            format!("λ_h must lie in (0, 1) (harmonic series (12)), got {lambda_h}"),
        ))
    }
}

impl Hyperkernel {
    /// Harmonic hyperkernel (13) over a Gaussian of width `sigma`.
    #[cfg(test)]
    pub(crate) fn harmonic(lambda_h: f64, sigma: f64) -> Result<Self> {
        let h = Hyperkernel::Harmonic {
            lambda_h,
            base: Kernel::rbf_sigma(sigma)?,
        };
        h.check_params()?;
        Ok(h)
    }

    /// ARD hyperkernel (14) with per-dimension widths.
    #[cfg(test)]
    pub(crate) fn ard(lambda_h: f64, widths: Vec<f64>) -> Result<Self> {
        let h = Hyperkernel::Ard { lambda_h, widths };
        h.check_params()?;
        Ok(h)
    }

    /// Short name (`harmonic`, `ard`, `exp`, …, `explicit`).
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Hyperkernel::Harmonic { .. } => "harmonic",
            Hyperkernel::Ard { .. } => "ard",
            Hyperkernel::PowerSeries { series, .. } => series.name(),
            Hyperkernel::Explicit { .. } => "explicit",
        }
    }

    /// Checks the parameters that do not depend on the data: `λ_h ∈ (0, 1)`, widths
    /// positive, base kernels pointwise non-negative, a radius-1 series not on a kernel
    /// that reaches 1, explicit weights non-negative.
    pub(crate) fn check_params(&self) -> Result<()> {
        match self {
            Hyperkernel::Harmonic { lambda_h, base } => {
                check_lambda_h(*lambda_h)?;
                base.check_params()?;
                if !pointwise_non_negative(base) {
                    return Err(Error::param(
                        "hyperkernel",
                        format!(
                            "the harmonic hyperkernel (12) needs a base kernel with values in \
                             [0, 1]; `{}` is not bounded there",
                            base.name()
                        ),
                    ));
                }
                Ok(())
            }
            Hyperkernel::Ard { lambda_h, widths } => {
                check_lambda_h(*lambda_h)?;
                if widths.is_empty() {
                    return Err(Error::param(
                        "hyperkernel",
                        "ARD needs one width per feature",
                    ));
                }
                for (j, &w) in widths.iter().enumerate() {
                    crate::check::positive_finite(&format!("ARD width {j}"), w)?;
                }
                Ok(())
            }
            Hyperkernel::PowerSeries {
                series,
                base,
                scale,
            } => {
                base.check_params()?;
                if !pointwise_non_negative(base) {
                    return Err(Error::param(
                        "hyperkernel",
                        format!(
                            "power-series hyperkernels (11) need a pointwise non-negative base \
                             kernel; `{}` can be negative",
                            base.name()
                        ),
                    ));
                }
                if !(*scale > 0.0 && *scale <= 1.0) {
                    return Err(Error::param(
                        "hyperkernel",
                        format!("base-kernel scale must lie in (0, 1], got {scale}"),
                    ));
                }
                let bounded_by_one = matches!(
                    base,
                    Kernel::Rbf { .. } | Kernel::Laplacian { .. } | Kernel::ArdRbf { .. }
                );
                if series.radius().is_finite() && bounded_by_one && scale * scale >= series.radius()
                {
                    return Err(Error::param(
                        "hyperkernel",
                        format!(
                            "{} has radius of convergence {}, but the base kernel reaches \
                             {scale}² · 1 = {} on a pair (x, x): outside the domain; use a \
                             scale < 1",
                            series.name(),
                            series.radius(),
                            scale * scale
                        ),
                    ));
                }
                Ok(())
            }
            Hyperkernel::Explicit { terms } => {
                if terms.is_empty() {
                    return Err(Error::param(
                        "hyperkernel",
                        "an explicit expansion needs a term",
                    ));
                }
                for (t, term) in terms.iter().enumerate() {
                    crate::check::non_negative_finite(
                        &format!("explicit term {t} weight"),
                        term.weight,
                    )?;
                    term.kernel.check_params()?;
                    if !pointwise_non_negative(&term.kernel) {
                        return Err(Error::param(
                            "hyperkernel",
                            format!(
                                "explicit term {t}: `{}` can be negative, so k̲(x̲, ·) would not \
                                 be a kernel (Proposition 8); use rbf, laplacian or an even-degree \
                                 polynomial",
                                term.kernel.name()
                            ),
                        ));
                    }
                }
                Ok(())
            }
        }
    }

    /// [`Hyperkernel::check_params`] and agreement with `n_features` input columns.
    pub(crate) fn validate(&self, n_features: usize) -> Result<()> {
        self.check_params()?;
        match self {
            Hyperkernel::Harmonic { base, .. } | Hyperkernel::PowerSeries { base, .. } => {
                base.validate(n_features)
            }
            Hyperkernel::Ard { widths, .. } if widths.len() != n_features => Err(Error::param(
                "hyperkernel",
                format!(
                    "ARD hyperkernel has {} widths, the data has {n_features} features",
                    widths.len()
                ),
            )),
            Hyperkernel::Explicit { terms } => {
                terms.iter().try_for_each(|t| t.kernel.validate(n_features))
            }
            _ => Ok(()),
        }
    }

    /// Length of the pair-value vector of [`Hyperkernel::pair_values`].
    pub(crate) fn pair_len(&self, n_features: usize) -> usize {
        match self {
            Hyperkernel::Harmonic { .. } | Hyperkernel::PowerSeries { .. } => 1,
            Hyperkernel::Ard { .. } => n_features,
            Hyperkernel::Explicit { terms } => terms.len(),
        }
    }

    /// Writes the pair values of `(a, b)` into `out` and checks them against the domain:
    /// the base value `k(a, b)` (times the scale) for (12) and (11), `exp(−(a_j − b_j)²/w_j²)`
    /// per dimension for (14), `k_t(a, b)` per term for (15).
    pub(crate) fn pair_values(&self, a: &[f64], b: &[f64], out: &mut [f64]) -> Result<()> {
        match self {
            Hyperkernel::Harmonic { base, .. } => {
                let v = base.eval(a, b);
                if !(0.0..=1.0).contains(&v) {
                    return Err(Error::param(
                        "hyperkernel",
                        format!(
                            "harmonic hyperkernel: base kernel value {v} is outside [0, 1], the \
                             domain of (12)"
                        ),
                    ));
                }
                out[0] = v;
            }
            Hyperkernel::PowerSeries { base, scale, .. } => {
                let v = base.eval(a, b) * scale;
                if !(v >= 0.0 && v.is_finite()) {
                    return Err(Error::param(
                        "hyperkernel",
                        format!("power-series hyperkernel: base kernel value {v} is not ≥ 0"),
                    ));
                }
                out[0] = v;
            }
            Hyperkernel::Ard { widths, .. } => {
                for j in 0..widths.len() {
                    let d = (a[j] - b[j]) / widths[j];
                    out[j] = (-d * d).exp();
                }
            }
            Hyperkernel::Explicit { terms } => {
                for (t, term) in terms.iter().enumerate() {
                    let v = term.kernel.eval(a, b);
                    if !(v >= 0.0 && v.is_finite()) {
                        return Err(Error::param(
                            "hyperkernel",
                            format!("explicit term {t}: kernel value {v} is not ≥ 0"),
                        ));
                    }
                    out[t] = v;
                }
            }
        }
        Ok(())
    }

    /// `k̲(x̲, x̲')` from the pair values of `x̲` and `x̲'`. Fails when the series is
    /// evaluated outside its radius of convergence.
    pub(crate) fn combine(&self, p: &[f64], q: &[f64]) -> Result<f64> {
        let v = match self {
            Hyperkernel::Harmonic { lambda_h, .. } => {
                (1.0 - lambda_h) / (1.0 - lambda_h * p[0] * q[0])
            }
            // exp(−σ_j(d² + d'²)) = exp(−σ_j d²) · exp(−σ_j d'²): no exp per entry.
            Hyperkernel::Ard { lambda_h, .. } => {
                let denominator: f64 = p
                    .iter()
                    .zip(q)
                    .map(|(a, b)| 1.0 - lambda_h * a * b)
                    .product();
                (1.0 - lambda_h).powi(p.len() as i32) / denominator
            }
            Hyperkernel::PowerSeries { series, .. } => {
                let xi = p[0] * q[0];
                if xi >= series.radius() {
                    return Err(Error::param(
                        "hyperkernel",
                        format!(
                            "{}: argument k(x̲)k(x̲') = {xi} is outside the radius of \
                             convergence {}",
                            series.name(),
                            series.radius()
                        ),
                    ));
                }
                series.eval(xi)
            }
            Hyperkernel::Explicit { terms } => terms
                .iter()
                .zip(p.iter().zip(q))
                .map(|(t, (a, b))| t.weight * a * b)
                .sum(),
        };
        if v.is_finite() {
            Ok(v)
        } else {
            Err(Error::numerical(format!(
                "hyperkernel {} is not finite on a pair",
                self.name()
            )))
        }
    }

    /// `k̲((a, b), (c, d))` (checked; for tests and single evaluations).
    #[cfg(test)]
    pub(crate) fn eval(&self, a: &[f64], b: &[f64], c: &[f64], d: &[f64]) -> Result<f64> {
        let n = self.pair_len(a.len());
        let (mut p, mut q) = (vec![0.0; n], vec![0.0; n]);
        self.pair_values(a, b, &mut p)?;
        self.pair_values(c, d, &mut q)?;
        self.combine(&p, &q)
    }
}

/// Which hyperkernel `--hyperkernel` names (parameters come from the data and options).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HyperkernelKind {
    /// Harmonic (13) over one Gaussian.
    Harmonic,
    /// ARD (14), the paper's choice for its experiments.
    Ard,
    /// A power series of Table 2 over one Gaussian.
    Series(Series),
    /// Explicit expansion (16): `(⟨x, x'⟩/d + 1)²` and a Gaussian, weights ½ each.
    Explicit,
}

/// Command-line names of [`HyperkernelKind`].
pub(crate) const KIND_NAMES: [&str; 8] = [
    "harmonic", "ard", "exp", "sinh", "cosh", "arctanh", "neglog", "explicit",
];

impl FromStr for HyperkernelKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Ok(match s {
            "harmonic" => HyperkernelKind::Harmonic,
            "ard" => HyperkernelKind::Ard,
            "exp" => HyperkernelKind::Series(Series::Exp),
            "sinh" => HyperkernelKind::Series(Series::Sinh),
            "cosh" => HyperkernelKind::Series(Series::Cosh),
            "arctanh" => HyperkernelKind::Series(Series::Arctanh),
            "neglog" => HyperkernelKind::Series(Series::NegLog),
            "explicit" => HyperkernelKind::Explicit,
            other => {
                return Err(Error::param(
                    "hyperkernel",
                    format!("`{other}` is not one of {}", KIND_NAMES.join(", ")),
                ))
            }
        })
    }
}

impl fmt::Display for HyperkernelKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HyperkernelKind::Harmonic => f.write_str("harmonic"),
            HyperkernelKind::Ard => f.write_str("ard"),
            HyperkernelKind::Series(s) => f.write_str(s.name()),
            HyperkernelKind::Explicit => f.write_str("explicit"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harmonic_is_the_closed_form_of_its_series_and_13() {
        let (lh, sigma) = (0.6, 1.5);
        let h = Hyperkernel::harmonic(lh, sigma).unwrap();
        let (a, b, c, d): ([f64; 2], [f64; 2], [f64; 2], [f64; 2]) =
            ([0.1, 0.2], [0.5, -0.3], [1.0, 0.0], [0.2, 0.7]);
        let got = h.eval(&a, &b, &c, &d).unwrap();
        let sq =
            |u: &[f64], v: &[f64]| -> f64 { u.iter().zip(v).map(|(x, y)| (x - y).powi(2)).sum() };
        // (13): (1 − λ)/(1 − λ exp(−σ⁻²(‖a−b‖² + ‖c−d‖²)))
        let closed = (1.0 - lh) / (1.0 - lh * (-(sq(&a, &b) + sq(&c, &d)) / (sigma * sigma)).exp());
        assert!((got - closed).abs() < 1e-14, "{got} vs {closed}");
        // (12) as the series Σ (1−λ) λ^i (k k')^i.
        let kk = (-(sq(&a, &b) + sq(&c, &d)) / (sigma * sigma)).exp();
        let series: f64 = (0..400).map(|i| (1.0 - lh) * (lh * kk).powi(i)).sum();
        assert!((got - series).abs() < 1e-12);
    }

    #[test]
    fn ard_is_the_product_14_and_power_series_match_table_2() {
        let widths = vec![2.0, 0.5];
        let h = Hyperkernel::ard(0.6, widths.clone()).unwrap();
        let (a, b, c, d): ([f64; 2], [f64; 2], [f64; 2], [f64; 2]) =
            ([0.1, 0.2], [0.5, -0.3], [1.0, 0.0], [0.2, 0.7]);
        let mut want = 1.0;
        for j in 0..2 {
            let s = 1.0 / (widths[j] * widths[j]);
            want *=
                0.4 / (1.0 - 0.6 * (-s * ((a[j] - b[j]).powi(2) + (c[j] - d[j]).powi(2))).exp());
        }
        assert!((h.eval(&a, &b, &c, &d).unwrap() - want).abs() < 1e-14);
        for series in [
            Series::Exp,
            Series::Sinh,
            Series::Cosh,
            Series::Arctanh,
            Series::NegLog,
        ] {
            let xi: f64 = 0.37;
            let sum: f64 = (0..200)
                .map(|i| series.coefficient(i) * xi.powi(i as i32))
                .sum();
            assert!((series.eval(xi) - sum).abs() < 1e-12, "{series:?}");
            let h = Hyperkernel::PowerSeries {
                series,
                base: Kernel::rbf_sigma(1.0).unwrap(),
                scale: 0.9,
            };
            h.check_params().unwrap();
            let k1 = 0.9 * (-((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2))).exp();
            let k2 = 0.9 * (-((c[0] - d[0]).powi(2) + (c[1] - d[1]).powi(2))).exp();
            assert!((h.eval(&a, &b, &c, &d).unwrap() - series.eval(k1 * k2)).abs() < 1e-14);
        }
    }

    #[test]
    fn explicit_expansion_16() {
        let poly = Kernel::polynomial(2, 1.0, 1.0).unwrap();
        let rbf = Kernel::rbf_sigma(1.0).unwrap();
        let h = Hyperkernel::Explicit {
            terms: vec![
                ExplicitTerm {
                    weight: 0.3,
                    kernel: poly.clone(),
                },
                ExplicitTerm {
                    weight: 0.7,
                    kernel: rbf.clone(),
                },
            ],
        };
        let (a, b, c, d): ([f64; 2], [f64; 2], [f64; 2], [f64; 2]) =
            ([0.1, 0.2], [0.5, -0.3], [1.0, 0.0], [0.2, 0.7]);
        let want =
            0.3 * poly.eval(&a, &b) * poly.eval(&c, &d) + 0.7 * rbf.eval(&a, &b) * rbf.eval(&c, &d);
        assert!((h.eval(&a, &b, &c, &d).unwrap() - want).abs() < 1e-14);
    }

    #[test]
    fn domain_errors_name_the_cause() {
        for lh in [0.0, 1.0, -0.5, 1.5, f64::NAN] {
            let e = Hyperkernel::harmonic(lh, 1.0).unwrap_err().to_string();
            assert!(e.contains("lambda-h") && e.contains("(0, 1)"), "{e}");
        }
        // A linear base kernel leaves [0, 1]: outside the harmonic hyperkernel's domain.
        let h = Hyperkernel::Harmonic {
            lambda_h: 0.5,
            base: Kernel::Linear,
        };
        assert!(h.check_params().unwrap_err().to_string().contains("[0, 1]"));
        // arctanh has radius 1: an unscaled Gaussian reaches 1 on (x, x).
        let h = Hyperkernel::PowerSeries {
            series: Series::Arctanh,
            base: Kernel::rbf_sigma(1.0).unwrap(),
            scale: 1.0,
        };
        let e = h.check_params().unwrap_err().to_string();
        assert!(e.contains("radius of convergence"), "{e}");
        // An even-degree polynomial base can exceed the radius on the data: caught at use.
        let h = Hyperkernel::PowerSeries {
            series: Series::NegLog,
            base: Kernel::polynomial(2, 1.0, 0.0).unwrap(),
            scale: 1.0,
        };
        h.check_params().unwrap();
        let e = h
            .eval(&[2.0], &[2.0], &[1.0], &[1.0])
            .unwrap_err()
            .to_string();
        assert!(e.contains("radius of convergence"), "{e}");
        let h = Hyperkernel::Explicit {
            terms: vec![ExplicitTerm {
                weight: 1.0,
                kernel: Kernel::polynomial(3, 1.0, 0.0).unwrap(),
            }],
        };
        assert!(h
            .check_params()
            .unwrap_err()
            .to_string()
            .contains("Proposition 8"));
        assert!(Hyperkernel::ard(0.5, vec![1.0, 0.0]).is_err());
        assert!(Hyperkernel::ard(0.5, vec![1.0])
            .unwrap()
            .validate(2)
            .is_err());
        assert!("bogus"
            .parse::<HyperkernelKind>()
            .unwrap_err()
            .to_string()
            .contains("harmonic"));
        for n in KIND_NAMES {
            assert_eq!(n.parse::<HyperkernelKind>().unwrap().to_string(), n);
        }
    }
}
