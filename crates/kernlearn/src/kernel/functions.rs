//! The kernel functions: the [`Kernel`] enum, its parameters, validation, evaluation on
//! a pair of samples, and its textual spec (`Display` / `FromStr`).

use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A kernel function `k(x, x')` and its hyper-parameters.
///
/// Formulas (LIBSVM conventions; the Gaussian width `σ` of the papers is `γ = 1/σ²`):
///
/// | variant | `k(x, x')` |
/// |---|---|
/// | `Linear` | `xᵀx'` |
/// | `Polynomial` | `(γ xᵀx' + coef0)^degree` (integer power, as LIBSVM) |
/// | `Rbf` | `exp(-γ ‖x − x'‖²)` |
/// | `Laplacian` | `exp(-γ ‖x − x'‖₁)` |
/// | `Sigmoid` | `tanh(γ xᵀx' + coef0)` |
/// | `ChiSquared` | `exp(-γ Σ_k (x_k − x'_k)² / (x_k + x'_k))`, terms with `x_k + x'_k = 0` give 0; non-negative data only |
/// | `ArdRbf` | `exp(-Σ_k γ_k (x_k − x'_k)²)` (one width per feature; `γ_k = 0` switches feature `k` off) |
/// | `Precomputed` | the Gram matrix is given (LIBSVM `-t 4`): a sample's "features" are its kernel values against the training points |
///
/// Serialised with an internal tag: `{"type": "rbf", "gamma": 0.5}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Kernel {
    /// `k(x, x') = xᵀx'`.
    Linear,
    /// `k(x, x') = (γ xᵀx' + coef0)^degree`.
    Polynomial { gamma: f64, coef0: f64, degree: u32 },
    /// Gaussian: `k(x, x') = exp(-γ ‖x − x'‖²)`, `γ = 1/σ²`.
    Rbf { gamma: f64 },
    /// `k(x, x') = exp(-γ ‖x − x'‖₁)`.
    Laplacian { gamma: f64 },
    /// `k(x, x') = tanh(γ xᵀx' + coef0)` (not positive semi-definite in general).
    Sigmoid { gamma: f64, coef0: f64 },
    /// `k(x, x') = exp(-γ Σ_k (x_k − x'_k)² / (x_k + x'_k))`; needs non-negative features.
    ChiSquared { gamma: f64 },
    /// Automatic-relevance-determination Gaussian: `k(x, x') = exp(-Σ_k γ_k (x_k − x'_k)²)`.
    ArdRbf { gammas: Vec<f64> },
    /// A user-supplied Gram matrix.
    Precomputed,
}

fn check_gamma(name: &str, gamma: f64) -> Result<()> {
    if gamma.is_finite() && gamma > 0.0 {
        Ok(())
    } else {
        Err(Error::param(
            name,
            format!("`{name}` must be finite and > 0, got {gamma}"),
        ))
    }
}

fn check_sigma(name: &str, sigma: f64) -> Result<()> {
    if sigma.is_finite() && sigma > 0.0 {
        Ok(())
    } else {
        Err(Error::param(
            name,
            format!("`{name}` must be finite and > 0, got {sigma}"),
        ))
    }
}

fn check_finite(name: &str, v: f64) -> Result<()> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(Error::param(
            name,
            format!("`{name}` must be finite, got {v}"),
        ))
    }
}

impl Kernel {
    /// Gaussian kernel from its width: `exp(-‖x − x'‖²/σ²)`, i.e. `γ = 1/σ²`.
    pub fn rbf_sigma(sigma: f64) -> Result<Kernel> {
        check_sigma("sigma", sigma)?;
        let k = Kernel::Rbf {
            gamma: 1.0 / (sigma * sigma),
        };
        k.check_params()?;
        Ok(k)
    }

    /// Gaussian kernel `exp(-γ ‖x − x'‖²)` (LIBSVM's `-g`).
    pub fn rbf_gamma(gamma: f64) -> Result<Kernel> {
        check_gamma("gamma", gamma)?;
        Ok(Kernel::Rbf { gamma })
    }

    /// Polynomial kernel `(γ xᵀx' + coef0)^degree`.
    pub fn polynomial(degree: u32, gamma: f64, coef0: f64) -> Result<Kernel> {
        let k = Kernel::Polynomial {
            gamma,
            coef0,
            degree,
        };
        k.check_params()?;
        Ok(k)
    }

    /// Laplacian kernel `exp(-γ ‖x − x'‖₁)`.
    pub fn laplacian(gamma: f64) -> Result<Kernel> {
        check_gamma("gamma", gamma)?;
        Ok(Kernel::Laplacian { gamma })
    }

    /// Sigmoid kernel `tanh(γ xᵀx' + coef0)`.
    pub fn sigmoid(gamma: f64, coef0: f64) -> Result<Kernel> {
        let k = Kernel::Sigmoid { gamma, coef0 };
        k.check_params()?;
        Ok(k)
    }

    /// χ² kernel `exp(-γ Σ (x_k − x'_k)²/(x_k + x'_k))`.
    pub fn chi_squared(gamma: f64) -> Result<Kernel> {
        check_gamma("gamma", gamma)?;
        Ok(Kernel::ChiSquared { gamma })
    }

    /// ARD Gaussian from per-feature weights `γ_k ≥ 0`.
    pub fn ard_gammas(gammas: Vec<f64>) -> Result<Kernel> {
        let k = Kernel::ArdRbf { gammas };
        k.check_params()?;
        Ok(k)
    }

    /// ARD Gaussian from per-feature widths: `exp(-Σ_k (x_k − x'_k)²/σ_k²)`, `γ_k = 1/σ_k²`.
    pub(crate) fn ard_sigmas(sigmas: &[f64]) -> Result<Kernel> {
        for (k, &s) in sigmas.iter().enumerate() {
            check_sigma(&format!("sigmas[{k}]"), s)?;
        }
        Kernel::ard_gammas(sigmas.iter().map(|s| 1.0 / (s * s)).collect())
    }

    /// Short name of the kernel family, as used in specs (`rbf`, `poly`, ...).
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Kernel::Linear => "linear",
            Kernel::Polynomial { .. } => "poly",
            Kernel::Rbf { .. } => "rbf",
            Kernel::Laplacian { .. } => "laplacian",
            Kernel::Sigmoid { .. } => "sigmoid",
            Kernel::ChiSquared { .. } => "chi2",
            Kernel::ArdRbf { .. } => "ard_rbf",
            Kernel::Precomputed => "precomputed",
        }
    }

    /// True for [`Kernel::Precomputed`].
    pub fn is_precomputed(&self) -> bool {
        matches!(self, Kernel::Precomputed)
    }

    /// True when every Gram matrix of the kernel is positive semi-definite in exact
    /// arithmetic: linear; polynomial with `γ > 0`, `coef0 ≥ 0` (a sum of products of
    /// PSD kernels with non-negative weights); Gaussian, Laplacian and ARD Gaussian
    /// (Bochner); exponential χ² (Schoenberg: the χ² distance is conditionally negative
    /// definite). Not the sigmoid kernel, nor a user's Gram matrix, which nothing checks.
    pub(crate) fn is_positive_semidefinite(&self) -> bool {
        match self {
            Kernel::Polynomial { coef0, .. } => *coef0 >= 0.0,
            Kernel::Sigmoid { .. } | Kernel::Precomputed => false,
            Kernel::Linear
            | Kernel::Rbf { .. }
            | Kernel::Laplacian { .. }
            | Kernel::ChiSquared { .. }
            | Kernel::ArdRbf { .. } => true,
        }
    }

    /// Checks the parameters that do not depend on the data: `γ` finite and `> 0`
    /// (`γ_k ≥ 0` for ARD), `degree ≥ 1`, `coef0` finite.
    pub fn check_params(&self) -> Result<()> {
        match self {
            Kernel::Linear | Kernel::Precomputed => Ok(()),
            Kernel::Polynomial {
                gamma,
                coef0,
                degree,
            } => {
                check_gamma("gamma", *gamma)?;
                check_finite("coef0", *coef0)?;
                if *degree == 0 {
                    return Err(Error::param("degree", "`degree` must be >= 1, got 0"));
                }
                Ok(())
            }
            Kernel::Rbf { gamma } | Kernel::Laplacian { gamma } | Kernel::ChiSquared { gamma } => {
                check_gamma("gamma", *gamma)
            }
            Kernel::Sigmoid { gamma, coef0 } => {
                check_gamma("gamma", *gamma)?;
                check_finite("coef0", *coef0)
            }
            Kernel::ArdRbf { gammas } => {
                for (k, &g) in gammas.iter().enumerate() {
                    if !(g.is_finite() && g >= 0.0) {
                        return Err(Error::param(
                            "gammas",
                            format!("`gammas[{k}]` must be finite and >= 0, got {g}"),
                        ));
                    }
                }
                Ok(())
            }
        }
    }

    /// Checks the parameters ([`Kernel::check_params`]) and that they fit data with
    /// `n_features` features (ARD needs one `γ_k` per feature).
    pub fn validate(&self, n_features: usize) -> Result<()> {
        self.check_params()?;
        if let Kernel::ArdRbf { gammas } = self {
            if gammas.len() != n_features {
                return Err(Error::param(
                    "gammas",
                    format!(
                        "`gammas` has {} values, the data has {} features",
                        gammas.len(),
                        n_features
                    ),
                ));
            }
        }
        Ok(())
    }

    /// `k(a, b)` for feature kernels. `a` and `b` must have the same length (and, for
    /// ARD, the length of `gammas`); this is only checked in debug builds.
    ///
    /// [`Kernel::Precomputed`] has no formula: it returns `NaN` (never panics). Use
    /// [`Kernel::try_eval`] for a checked version that reports an error instead.
    /// Parameters are not validated here (see [`Kernel::validate`]).
    #[inline]
    pub(crate) fn eval(&self, a: &[f64], b: &[f64]) -> f64 {
        debug_assert_eq!(a.len(), b.len());
        match self {
            Kernel::Linear => dot(a, b),
            Kernel::Polynomial {
                gamma,
                coef0,
                degree,
            } => powi(gamma * dot(a, b) + coef0, *degree),
            Kernel::Rbf { gamma } => (-gamma * sq_dist(a, b)).exp(),
            Kernel::Laplacian { gamma } => (-gamma * l1_dist(a, b)).exp(),
            Kernel::Sigmoid { gamma, coef0 } => (gamma * dot(a, b) + coef0).tanh(),
            Kernel::ChiSquared { gamma } => (-gamma * chi2_dist(a, b)).exp(),
            Kernel::ArdRbf { gammas } => {
                debug_assert_eq!(gammas.len(), a.len());
                (-weighted_sq_dist(gammas, a, b)).exp()
            }
            Kernel::Precomputed => f64::NAN,
        }
    }

    /// Checked `Kernel::eval`: fails for `Precomputed`, for vectors of different
    /// lengths, and for invalid parameters.
    pub fn try_eval(&self, a: &[f64], b: &[f64]) -> Result<f64> {
        if self.is_precomputed() {
            return Err(Error::param(
                "kernel",
                "a precomputed kernel cannot be evaluated on feature vectors",
            ));
        }
        if a.len() != b.len() {
            return Err(Error::data(format!(
                "kernel arguments have {} and {} features",
                a.len(),
                b.len()
            )));
        }
        self.validate(a.len())?;
        Ok(self.eval(a, b))
    }
}

/// `base^times` by repeated squaring, exactly as LIBSVM's `powi`.
#[inline]
pub(crate) fn powi(base: f64, times: u32) -> f64 {
    let mut tmp = base;
    let mut ret = 1.0;
    let mut t = times;
    while t > 0 {
        if t % 2 == 1 {
            ret *= tmp;
        }
        tmp *= tmp;
        t /= 2;
    }
    ret
}

/// `Σ_k term(a_k, b_k)` with four independent accumulators, so that the loop vectorises
/// (the summation order is fixed, hence results are reproducible).
#[inline(always)]
fn sum4(a: &[f64], b: &[f64], term: impl Fn(f64, f64) -> f64) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f64; 4];
    let ca = a.chunks_exact(4);
    let cb = b.chunks_exact(4);
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..4 {
            acc[l] += term(x[l], y[l]);
        }
    }
    let mut s = (acc[0] + acc[2]) + (acc[1] + acc[3]);
    for (&x, &y) in ra.iter().zip(rb) {
        s += term(x, y);
    }
    s
}

/// `aᵀb`.
#[inline]
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    sum4(a, b, |x, y| x * y)
}

/// `‖a − b‖²`, computed from the differences.
#[inline]
pub(crate) fn sq_dist(a: &[f64], b: &[f64]) -> f64 {
    sum4(a, b, |x, y| (x - y) * (x - y))
}

/// `‖a − b‖₁`.
#[inline]
pub(crate) fn l1_dist(a: &[f64], b: &[f64]) -> f64 {
    sum4(a, b, |x, y| (x - y).abs())
}

/// `Σ_k (a_k − b_k)² / (a_k + b_k)`, skipping terms with `a_k + b_k = 0`.
#[inline]
pub(crate) fn chi2_dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            let s = x + y;
            if s == 0.0 {
                0.0
            } else {
                let d = x - y;
                d * d / s
            }
        })
        .sum()
}

/// `Σ_k w_k (a_k − b_k)²`.
#[inline]
pub(crate) fn weighted_sq_dist(w: &[f64], a: &[f64], b: &[f64]) -> f64 {
    w.iter()
        .zip(a.iter().zip(b))
        .map(|(w, (x, y))| {
            let d = x - y;
            w * d * d
        })
        .sum()
}

/// Formats a number compactly and losslessly (`0.5`, `3`, `1e-7`).
pub(crate) struct Num(pub f64);

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        let a = v.abs();
        if v == 0.0 || !v.is_finite() || (1e-4..1e15).contains(&a) {
            write!(f, "{v}")
        } else {
            write!(f, "{v:e}")
        }
    }
}

/// Compact spec that [`FromStr`] reads back: `linear`, `poly(degree=3,gamma=1,coef0=0)`,
/// `rbf(gamma=0.5)`, `laplacian(gamma=1)`, `sigmoid(gamma=1,coef0=0)`, `chi2(gamma=1)`,
/// `ard_rbf(gammas=[1,0.5])`, `precomputed`.
impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kernel::Linear | Kernel::Precomputed => f.write_str(self.name()),
            Kernel::Polynomial {
                gamma,
                coef0,
                degree,
            } => write!(
                f,
                "poly(degree={degree},gamma={},coef0={})",
                Num(*gamma),
                Num(*coef0)
            ),
            Kernel::Rbf { gamma } | Kernel::Laplacian { gamma } | Kernel::ChiSquared { gamma } => {
                write!(f, "{}(gamma={})", self.name(), Num(*gamma))
            }
            Kernel::Sigmoid { gamma, coef0 } => {
                write!(f, "sigmoid(gamma={},coef0={})", Num(*gamma), Num(*coef0))
            }
            Kernel::ArdRbf { gammas } => {
                f.write_str("ard_rbf(gammas=[")?;
                for (k, g) in gammas.iter().enumerate() {
                    if k > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{}", Num(*g))?;
                }
                f.write_str("])")
            }
        }
    }
}

/// One `key=value` of a spec, with the 1-based column where the key starts.
struct Arg<'s> {
    key: &'s str,
    value: &'s str,
    value_col: usize,
    key_col: usize,
}

struct SpecParser<'s> {
    spec: &'s str,
    name: String,
    args: Vec<Arg<'s>>,
}

impl<'s> SpecParser<'s> {
    fn err(&self, col: usize, msg: impl fmt::Display) -> Error {
        if col == 0 {
            Error::param("kernel", format!("in kernel spec `{}`: {msg}", self.spec))
        } else {
            Error::param(
                "kernel",
                format!("in kernel spec `{}`, column {col}: {msg}", self.spec),
            )
        }
    }

    fn parse(spec: &'s str) -> Result<SpecParser<'s>> {
        let mut p = SpecParser {
            spec,
            name: String::new(),
            args: Vec::new(),
        };
        let lead = spec.len() - spec.trim_start().len();
        let s = spec.trim();
        let (name, body, body_start) = match s.find([':', '(']) {
            None => (s, "", s.len()),
            Some(pos) => {
                let rest = &s[pos + 1..];
                if s.as_bytes()[pos] == b'(' {
                    match rest.strip_suffix(')') {
                        Some(body) => (&s[..pos], body, pos + 1),
                        None => return Err(p.err(0, "missing closing `)`")),
                    }
                } else {
                    (&s[..pos], rest, pos + 1)
                }
            }
        };
        p.name = name.trim().to_ascii_lowercase();
        if p.name.is_empty() {
            return Err(p.err(lead + 1, "missing kernel name"));
        }
        // Split the body on commas outside brackets.
        let mut depth = 0i32;
        let mut start = 0usize;
        let bytes = body.as_bytes();
        let mut pieces = Vec::new();
        for (k, &c) in bytes.iter().enumerate() {
            match c {
                b'[' => depth += 1,
                b']' => depth -= 1,
                b',' if depth == 0 => {
                    pieces.push((start, &body[start..k]));
                    start = k + 1;
                }
                _ => {}
            }
        }
        if !body.trim().is_empty() || start > 0 {
            pieces.push((start, &body[start..]));
        }
        for (off, piece) in pieces {
            let col = lead + body_start + off + 1 + (piece.len() - piece.trim_start().len());
            let piece_t = piece.trim();
            if piece_t.is_empty() {
                return Err(p.err(col, "empty parameter (stray `,`?)"));
            }
            let Some(eq) = piece_t.find('=') else {
                return Err(p.err(col, format!("expected `key=value`, got `{piece_t}`")));
            };
            let key = piece_t[..eq].trim();
            let value = piece_t[eq + 1..].trim();
            let value_col =
                col + eq + 1 + (piece_t[eq + 1..].len() - piece_t[eq + 1..].trim_start().len());
            if p.args.iter().any(|a| a.key.eq_ignore_ascii_case(key)) {
                return Err(p.err(col, format!("`{key}` given twice")));
            }
            p.args.push(Arg {
                key,
                value,
                value_col,
                key_col: col,
            });
        }
        Ok(p)
    }

    fn allow(&self, keys: &[&str]) -> Result<()> {
        for a in &self.args {
            if !keys.iter().any(|k| a.key.eq_ignore_ascii_case(k)) {
                let expected = if keys.is_empty() {
                    format!("`{}` takes no parameters", self.name)
                } else {
                    format!("`{}` takes {}", self.name, keys.join(", "))
                };
                return Err(self.err(a.key_col, format!("unknown key `{}` ({expected})", a.key)));
            }
        }
        Ok(())
    }

    fn arg(&self, key: &str) -> Option<&Arg<'s>> {
        self.args.iter().find(|a| a.key.eq_ignore_ascii_case(key))
    }

    fn num(&self, key: &str) -> Result<Option<f64>> {
        let Some(a) = self.arg(key) else {
            return Ok(None);
        };
        match a.value.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(Some(v)),
            _ => Err(self.err(
                a.value_col,
                format!("`{}` is not a finite number (key `{key}`)", a.value),
            )),
        }
    }

    fn required(&self, key: &str) -> Result<f64> {
        self.num(key)?
            .ok_or_else(|| self.err(0, format!("missing `{key}` for `{}`", self.name)))
    }

    fn uint(&self, key: &str) -> Result<Option<u32>> {
        let Some(a) = self.arg(key) else {
            return Ok(None);
        };
        a.value.parse::<u32>().map(Some).map_err(|_| {
            self.err(
                a.value_col,
                format!("`{}` is not a non-negative integer (key `{key}`)", a.value),
            )
        })
    }

    fn list(&self, key: &str) -> Result<Option<Vec<f64>>> {
        let Some(a) = self.arg(key) else {
            return Ok(None);
        };
        let inner = match a.value.strip_prefix('[') {
            Some(r) => r
                .strip_suffix(']')
                .ok_or_else(|| self.err(a.value_col, "missing closing `]`"))?,
            None => a.value,
        };
        let mut out = Vec::new();
        for item in inner.split(',') {
            let t = item.trim();
            match t.parse::<f64>() {
                Ok(v) if v.is_finite() => out.push(v),
                _ => {
                    return Err(self.err(
                        a.value_col,
                        format!("`{t}` is not a finite number (in `{key}`)"),
                    ))
                }
            }
        }
        Ok(Some(out))
    }

    fn build(&self) -> Result<Kernel> {
        let k = match self.name.as_str() {
            "linear" => {
                self.allow(&[])?;
                Kernel::Linear
            }
            "precomputed" => {
                self.allow(&[])?;
                Kernel::Precomputed
            }
            "poly" | "polynomial" => {
                self.allow(&["degree", "gamma", "coef0"])?;
                Kernel::polynomial(
                    self.uint("degree")?.unwrap_or(3),
                    self.required("gamma")?,
                    self.num("coef0")?.unwrap_or(0.0),
                )?
            }
            "rbf" | "gaussian" => {
                self.allow(&["gamma", "sigma"])?;
                match (self.num("gamma")?, self.num("sigma")?) {
                    (Some(g), None) => Kernel::rbf_gamma(g)?,
                    (None, Some(s)) => Kernel::rbf_sigma(s)?,
                    (Some(_), Some(_)) => {
                        return Err(self.err(0, "give `gamma` or `sigma`, not both"))
                    }
                    (None, None) => return Err(self.err(0, "missing `gamma` (or `sigma`) for `rbf`")),
                }
            }
            "laplacian" | "laplace" => {
                self.allow(&["gamma"])?;
                Kernel::laplacian(self.required("gamma")?)?
            }
            "sigmoid" | "tanh" => {
                self.allow(&["gamma", "coef0"])?;
                Kernel::sigmoid(self.required("gamma")?, self.num("coef0")?.unwrap_or(0.0))?
            }
            "chi2" | "chi_squared" | "chi-squared" => {
                self.allow(&["gamma"])?;
                Kernel::chi_squared(self.required("gamma")?)?
            }
            "ard" | "ard_rbf" => {
                self.allow(&["gammas", "sigmas"])?;
                match (self.list("gammas")?, self.list("sigmas")?) {
                    (Some(g), None) => Kernel::ard_gammas(g)?,
                    (None, Some(s)) => Kernel::ard_sigmas(&s)?,
                    (Some(_), Some(_)) => {
                        return Err(self.err(0, "give `gammas` or `sigmas`, not both"))
                    }
                    (None, None) => return Err(self.err(0, "missing `gammas` (or `sigmas`) for `ard_rbf`")),
                }
            }
            other => {
                return Err(self.err(
                    1 + self.spec.len() - self.spec.trim_start().len(),
                    format!(
                        "unknown kernel `{other}` (expected linear, poly, rbf, laplacian, sigmoid, chi2, ard_rbf or precomputed)"
                    ),
                ))
            }
        };
        Ok(k)
    }
}

/// Parses `name`, `name:key=value,...` or `name(key=value,...)`.
///
/// Names: `linear`, `poly` (`degree` default 3, `gamma` required, `coef0` default 0),
/// `rbf` (`gamma` or `sigma`), `laplacian` (`gamma`), `sigmoid` (`gamma`, `coef0` default
/// 0), `chi2` (`gamma`), `ard_rbf` (`gammas=[..]` or `sigmas=[..]`), `precomputed`.
/// Errors name the column of the offending key or value.
impl FromStr for Kernel {
    type Err = Error;

    fn from_str(spec: &str) -> Result<Kernel> {
        SpecParser::parse(spec)?.build()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs()))
    }

    #[test]
    fn closed_forms() {
        let a = [1.0, 2.0, 0.0];
        let b = [0.5, -1.0, 3.0];
        // dot = 0.5 - 2 = -1.5 ; diff = (0.5, 3, -3): sq = 0.25+9+9 = 18.25, l1 = 6.5
        assert!(close(Kernel::Linear.eval(&a, &b), -1.5));
        let p = Kernel::polynomial(3, 0.5, 2.0).unwrap();
        assert!(close(p.eval(&a, &b), (0.5f64 * -1.5 + 2.0).powi(3)));
        let r = Kernel::rbf_gamma(0.1).unwrap();
        assert!(close(r.eval(&a, &b), (-0.1f64 * 18.25).exp()));
        let s = Kernel::rbf_sigma(2.0).unwrap();
        assert!(close(s.eval(&a, &b), (-18.25f64 / 4.0).exp()));
        let l = Kernel::laplacian(0.3).unwrap();
        assert!(close(l.eval(&a, &b), (-0.3f64 * 6.5).exp()));
        let t = Kernel::sigmoid(0.2, -0.1).unwrap();
        assert!(close(t.eval(&a, &b), (0.2f64 * -1.5 - 0.1).tanh()));
        let c = Kernel::chi_squared(0.7).unwrap();
        let x = [1.0, 0.0, 2.0, 0.5];
        let y = [3.0, 0.0, 0.0, 0.5];
        // terms: 4/4 = 1, 0 (skipped), 4/2 = 2, 0 → 3
        assert!(close(c.eval(&x, &y), (-0.7f64 * 3.0).exp()));
        let ard = Kernel::ard_gammas(vec![1.0, 0.0, 2.0]).unwrap();
        assert!(close(
            ard.eval(&a, &b),
            (-(0.25 + 0.0 + 2.0 * 9.0f64)).exp()
        ));
        let ard = Kernel::ard_sigmas(&[1.0, 2.0, 0.5]).unwrap();
        assert!(close(
            ard.eval(&a, &b),
            (-(0.25 + 9.0 / 4.0 + 9.0 / 0.25f64)).exp()
        ));
        assert!(Kernel::Precomputed.eval(&a, &b).is_nan());
        assert!(Kernel::Precomputed.try_eval(&a, &b).is_err());
        assert!(Kernel::Linear.try_eval(&a, &b[..2]).is_err());
        // long vectors exercise the chunked loops
        let u: Vec<f64> = (0..11).map(|k| k as f64 * 0.3 - 1.0).collect();
        let v: Vec<f64> = (0..11).map(|k| (k as f64).sin()).collect();
        let d: f64 = u.iter().zip(&v).map(|(x, y)| x * y).sum();
        let sq: f64 = u.iter().zip(&v).map(|(x, y)| (x - y) * (x - y)).sum();
        let l1: f64 = u.iter().zip(&v).map(|(x, y)| (x - y).abs()).sum();
        assert!(close(dot(&u, &v), d));
        assert!(close(sq_dist(&u, &v), sq));
        assert!(close(l1_dist(&u, &v), l1));
        assert_eq!(powi(1.5, 0), 1.0);
        assert!(close(powi(1.5, 7), 1.5f64.powi(7)));
    }

    fn err_text(r: Result<Kernel>) -> String {
        r.unwrap_err().to_string()
    }

    #[test]
    fn validation_errors() {
        let e = err_text(Kernel::rbf_sigma(-1.0));
        assert!(e.contains("`sigma` must be finite and > 0, got -1"), "{e}");
        let e = err_text(Kernel::rbf_gamma(0.0));
        assert!(e.contains("`gamma`") && e.contains("got 0"), "{e}");
        assert!(Kernel::rbf_gamma(f64::NAN).is_err());
        assert!(Kernel::rbf_gamma(f64::INFINITY).is_err());
        let e = err_text(Kernel::polynomial(0, 1.0, 0.0));
        assert!(e.contains("`degree` must be >= 1, got 0"), "{e}");
        assert!(Kernel::laplacian(-2.0).is_err());
        assert!(Kernel::sigmoid(1.0, f64::NAN).is_err());
        assert!(Kernel::chi_squared(0.0).is_err());
        assert!(Kernel::ard_gammas(vec![1.0, -1.0]).is_err());
        assert!(Kernel::ard_sigmas(&[1.0, 0.0]).is_err());
        let bad = Kernel::Rbf { gamma: -0.5 };
        assert!(bad.validate(3).is_err());
        let ard = Kernel::ard_gammas(vec![1.0, 1.0]).unwrap();
        assert!(ard.validate(2).is_ok());
        let e = ard.validate(3).unwrap_err().to_string();
        assert!(
            e.contains("`gammas` has 2 values, the data has 3 features"),
            "{e}"
        );
        assert!(Kernel::Precomputed.validate(7).is_ok());
    }

    #[test]
    fn parse_specs() {
        assert_eq!("linear".parse::<Kernel>().unwrap(), Kernel::Linear);
        assert_eq!(
            " Precomputed ".parse::<Kernel>().unwrap(),
            Kernel::Precomputed
        );
        assert_eq!(
            "poly:degree=3,gamma=1,coef0=0".parse::<Kernel>().unwrap(),
            Kernel::Polynomial {
                gamma: 1.0,
                coef0: 0.0,
                degree: 3
            }
        );
        assert_eq!(
            "poly:gamma=0.5".parse::<Kernel>().unwrap(),
            Kernel::Polynomial {
                gamma: 0.5,
                coef0: 0.0,
                degree: 3
            }
        );
        assert_eq!(
            "rbf:gamma=0.1".parse::<Kernel>().unwrap(),
            Kernel::Rbf { gamma: 0.1 }
        );
        assert_eq!(
            "rbf:sigma=2".parse::<Kernel>().unwrap(),
            Kernel::Rbf { gamma: 0.25 }
        );
        assert_eq!(
            "rbf(gamma=0.5)".parse::<Kernel>().unwrap(),
            Kernel::Rbf { gamma: 0.5 }
        );
        assert_eq!(
            "laplacian:gamma=2".parse::<Kernel>().unwrap(),
            Kernel::Laplacian { gamma: 2.0 }
        );
        assert_eq!(
            "sigmoid: gamma=0.01, coef0=-1".parse::<Kernel>().unwrap(),
            Kernel::Sigmoid {
                gamma: 0.01,
                coef0: -1.0
            }
        );
        assert_eq!(
            "chi2:gamma=1e-3".parse::<Kernel>().unwrap(),
            Kernel::ChiSquared { gamma: 1e-3 }
        );
        assert_eq!(
            "ard:gammas=[1,0.5]".parse::<Kernel>().unwrap(),
            Kernel::ArdRbf {
                gammas: vec![1.0, 0.5]
            }
        );
        assert_eq!(
            "ard_rbf:sigmas=[1,2]".parse::<Kernel>().unwrap(),
            Kernel::ArdRbf {
                gammas: vec![1.0, 0.25]
            }
        );
    }

    #[test]
    fn parse_errors() {
        let e = |s: &str| s.parse::<Kernel>().unwrap_err().to_string();
        let m = e("rbff:gamma=1");
        assert!(
            m.contains("unknown kernel `rbff`") && m.contains("column 1"),
            "{m}"
        );
        let m = e("rbf:gama=1");
        assert!(
            m.contains("unknown key `gama`") && m.contains("column 5"),
            "{m}"
        );
        let m = e("rbf:gamma=abc");
        assert!(
            m.contains("`abc` is not a finite number") && m.contains("column 11"),
            "{m}"
        );
        let m = e("poly:degree=2.5,gamma=1");
        assert!(m.contains("`2.5` is not a non-negative integer"), "{m}");
        let m = e("poly:degree=0,gamma=1");
        assert!(m.contains("`degree` must be >= 1"), "{m}");
        let m = e("rbf:sigma=-1");
        assert!(m.contains("`sigma` must be finite and > 0, got -1"), "{m}");
        let m = e("rbf");
        assert!(m.contains("missing `gamma`"), "{m}");
        let m = e("rbf:gamma=1,gamma=2");
        assert!(m.contains("given twice"), "{m}");
        let m = e("rbf:gamma=1,sigma=2");
        assert!(m.contains("not both"), "{m}");
        let m = e("rbf:gamma");
        assert!(m.contains("expected `key=value`"), "{m}");
        let m = e("linear:gamma=1");
        assert!(m.contains("takes no parameters"), "{m}");
        let m = e("rbf(gamma=1");
        assert!(m.contains("missing closing `)`"), "{m}");
        let m = e("ard:gammas=[1,x]");
        assert!(m.contains("`x` is not a finite number"), "{m}");
        let m = e("");
        assert!(m.contains("missing kernel name"), "{m}");
        let m = e("rbf:gamma=1,");
        assert!(m.contains("empty parameter"), "{m}");
    }

    #[test]
    fn display_roundtrip() {
        let ks = [
            Kernel::Linear,
            Kernel::Precomputed,
            Kernel::polynomial(2, 0.125, -1.5).unwrap(),
            Kernel::rbf_gamma(0.1).unwrap(),
            Kernel::rbf_sigma(3.0).unwrap(),
            Kernel::rbf_gamma(1e-7).unwrap(),
            Kernel::rbf_gamma(3e20).unwrap(),
            Kernel::laplacian(1.0 / 3.0).unwrap(),
            Kernel::sigmoid(0.5, 0.0).unwrap(),
            Kernel::chi_squared(2.0).unwrap(),
            Kernel::ard_gammas(vec![0.5, 0.0, 1e-9]).unwrap(),
        ];
        for k in ks {
            let s = k.to_string();
            assert_eq!(s.parse::<Kernel>().unwrap(), k, "{s}");
        }
        assert_eq!(
            Kernel::rbf_gamma(0.5).unwrap().to_string(),
            "rbf(gamma=0.5)"
        );
        assert_eq!(
            Kernel::polynomial(3, 1.0, 0.0).unwrap().to_string(),
            "poly(degree=3,gamma=1,coef0=0)"
        );
    }

    #[test]
    fn serde_tagged() {
        let k = Kernel::rbf_gamma(0.5).unwrap();
        let j = serde_json::to_string(&k).unwrap();
        assert_eq!(j, r#"{"type":"rbf","gamma":0.5}"#);
        assert_eq!(serde_json::from_str::<Kernel>(&j).unwrap(), k);
        let a = Kernel::ard_gammas(vec![1.0, 2.0]).unwrap();
        let j = serde_json::to_string(&a).unwrap();
        assert!(j.contains(r#""type":"ard_rbf""#), "{j}");
        assert_eq!(serde_json::from_str::<Kernel>(&j).unwrap(), a);
        let j = serde_json::to_string(&Kernel::ChiSquared { gamma: 1.0 }).unwrap();
        assert!(j.contains("chi_squared"), "{j}");
    }
}
