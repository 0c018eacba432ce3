//! The kernel machine's options, which every method that runs our SMO on one kernel
//! reads ([`KERNEL_MACHINE`], [`C`], [`NU`], …), the options of the selections the
//! learners share ([`NO_FALLBACK`]), and how they become the kernel machine's settings
//! and a selection's [`GridSettings`].

use super::GridSettings;
use crate::kernel::Kernel;
use crate::options::{MethodOptions, OptionSpec, OptionValue};
use crate::svm::{SolverSettings, SvmParams, SvmType};
use crate::{Error, Result};

use OptionValue::{Count, Flag, Number, Repeated, Text};

/// `--kernel`.
pub static KERNEL: OptionSpec = OptionSpec::new("kernel", Text, "Kernel: linear, poly, rbf, laplacian, sigmoid, chi2, precomputed, or a full spec such as `rbf:sigma=2` or `poly:degree=2,gamma=1,coef0=1` (default rbf)").short('k');
/// `--gamma`.
pub static GAMMA: OptionSpec = OptionSpec::new(
    "gamma",
    Number,
    "Kernel width γ (rbf: exp(−γ‖x−x'‖²)); default 1/d as in LIBSVM",
)
.short('g');
/// `--sigma`.
pub static SIGMA: OptionSpec = OptionSpec::new(
    "sigma",
    Number,
    "Gaussian width σ as in the papers: exp(−‖x−x'‖²/σ²), i.e. γ = 1/σ²",
);
/// `--degree`.
pub static DEGREE: OptionSpec = OptionSpec::new("degree", Count, "Polynomial degree (default 3)");
/// `--coef0`.
pub static COEF0: OptionSpec = OptionSpec::new(
    "coef0",
    Number,
    "coef0 of polynomial and sigmoid kernels (default 0)",
);
/// `-c`.
pub static C: OptionSpec = OptionSpec::new(
    "c",
    Number,
    "Trade-off C (default 1; hyperkernel: 100, the paper's 1/(λm))",
)
.short('c')
.python("C");
/// `--nu`.
pub static NU: OptionSpec = OptionSpec::new("nu", Number, "ν of nu-svc, one-class and nu-svr (default 0.5; hyperkernel: 0.3, or 0.1 for --problem one-class)");
/// `--epsilon`.
pub static EPSILON: OptionSpec = OptionSpec::new(
    "epsilon",
    Number,
    "ε of the SVR insensitive tube (LIBSVM -p; default 0.1)",
);
/// `--tol`.
pub static TOL: OptionSpec = OptionSpec::new(
    "tol",
    Number,
    "SMO stopping tolerance (LIBSVM -e; default 1e-3)",
);
/// `--cache-mb`.
pub static CACHE_MB: OptionSpec =
    OptionSpec::new("cache-mb", Number, "Kernel cache in MiB (default 200)").python("cache_size");
/// `--no-shrinking`.
pub static NO_SHRINKING: OptionSpec =
    OptionSpec::new("no-shrinking", Flag, "Turn the shrinking heuristic off")
        .negated_python("shrinking");
/// `--probability`.
pub static PROBABILITY: OptionSpec = OptionSpec::new(
    "probability",
    Flag,
    "Fit Platt probabilities (classification)",
);
/// `--class-weight`.
pub static CLASS_WEIGHT: OptionSpec = OptionSpec::new(
    "class-weight",
    Repeated,
    "Class weight LABEL=W (C of that class becomes C·W); repeatable",
)
.checked(|s| class_weight(s).map(drop));
/// `--no-fallback`.
pub static NO_FALLBACK: OptionSpec = OptionSpec::new("no-fallback", Flag, "KNPL, DANK, MKL and localized methods with --select grid: the papers' protocols, keeping the learned kernel even when it does not beat SVM-CV (MKL and localized methods then choose C, EasyMKL λ, over the grid by CV). Default: SVM-CV first, the method's candidates at its C, and the fit falls back to the SVM-CV model and says so (`fell_back_to_base_svm` = 1) unless the learned kernel beats it by one standard error on the selection folds and again on fresh folds").negated_python("fallback");
/// `--clusters`.
pub static CLUSTERS: OptionSpec = OptionSpec::new("clusters", Count, "dank-scalable: number of k-means clusters (default max(1, round(n/1000)) for n training rows; the paper used 50 and 200 on 50,000 and 580,000 rows). clmkl: number of soft clusters (default 3)");

/// The kernel and the SMO settings: what every method that runs our SMO on one kernel
/// reads.
pub static KERNEL_MACHINE: &[&OptionSpec] = &[
    &KERNEL,
    &GAMMA,
    &SIGMA,
    &DEGREE,
    &COEF0,
    &TOL,
    &CACHE_MB,
    &NO_SHRINKING,
];

/// The SMO settings alone (methods on a kernel family).
pub static SMO: &[&OptionSpec] = &[&TOL, &CACHE_MB, &NO_SHRINKING];

impl MethodOptions {
    /// The kernel, with defaults filled in for `n_features` columns.
    pub(crate) fn kernel(&self, n_features: usize) -> Result<Kernel> {
        let name = self.text(&KERNEL).unwrap_or("rbf");
        if name.contains(':') || name.contains('(') {
            return name.parse();
        }
        let gamma = match (self.number(&GAMMA)?, self.number(&SIGMA)?) {
            (Some(_), Some(_)) => {
                return Err(Error::param(
                    "sigma",
                    "give either «sigma» or «gamma», not both (γ = 1/σ²)",
                ))
            }
            (Some(g), None) => g,
            (None, Some(s)) => {
                crate::check::positive_finite("sigma", s)?;
                let g = 1.0 / (s * s);
                if !(g > 0.0 && g.is_finite()) {
                    return Err(Error::param(
                        "sigma",
                        format!("{s} gives γ = 1/σ² = {g}, outside (0, ∞)"),
                    ));
                }
                g
            }
            (None, None) => 1.0 / n_features.max(1) as f64,
        };
        let degree = match self.count(&DEGREE)? {
            Some(d) => {
                u32::try_from(d).map_err(|_| Error::param("degree", format!("{d} is too large")))?
            }
            None => 3,
        };
        let coef0 = self.number(&COEF0)?.unwrap_or(0.0);
        match name {
            "linear" | "precomputed" => name.parse(),
            "rbf" | "gaussian" => Kernel::rbf_gamma(gamma),
            "poly" | "polynomial" => Kernel::polynomial(degree, gamma, coef0),
            "laplacian" => Kernel::laplacian(gamma),
            "sigmoid" => Kernel::sigmoid(gamma, coef0),
            "chi2" => Kernel::chi_squared(gamma),
            other => other.parse(),
        }
    }

    /// SMO settings: tolerance, cache, shrinking.
    pub(crate) fn solver_settings(&self) -> Result<SolverSettings> {
        let cache_mb = self.number(&CACHE_MB)?.unwrap_or(200.0);
        crate::check::non_negative_finite("cache-mb", cache_mb)?;
        Ok(SolverSettings {
            tol: self.number(&TOL)?.unwrap_or(1e-3),
            cache_bytes: (cache_mb * (1u64 << 20) as f64) as usize,
            shrinking: !self.flag(&NO_SHRINKING),
            ..SolverSettings::default()
        })
    }

    /// All SVM parameters of formulation `svm_type` on `n_features` columns, checked.
    pub(crate) fn svm_params(&self, svm_type: SvmType, n_features: usize) -> Result<SvmParams> {
        let class_weights = self
            .all(&CLASS_WEIGHT)
            .iter()
            .map(|s| class_weight(s))
            .collect::<Result<Vec<_>>>()?;
        let mut classes = class_weights.iter().map(|w| w.0).collect::<Vec<_>>();
        classes.sort_by(f64::total_cmp);
        if let Some(w) = classes.windows(2).find(|w| w[0] == w[1]) {
            return Err(Error::param(
                "class-weight",
                format!("class {} is given a weight twice", w[0]),
            ));
        }
        let p = SvmParams {
            svm_type,
            kernel: self.kernel(n_features)?,
            c: self.number(&C)?.unwrap_or(1.0),
            nu: self.number(&NU)?.unwrap_or(0.5),
            epsilon: self.number(&EPSILON)?.unwrap_or(0.1),
            class_weights,
            probability: self.flag(&PROBABILITY),
            seed: self.seed,
            solver: self.solver_settings()?,
            ..SvmParams::default()
        };
        p.validate(n_features)?;
        Ok(p)
    }

    /// With a grid search, the kernel must be the Gaussian whose σ the grid tunes.
    pub(crate) fn check_searchable_kernel(&self, search: Option<&GridSettings>) -> Result<()> {
        match (self.text(&KERNEL), search) {
            (Some(k), Some(_)) if !matches!(k, "rbf" | "gaussian") => Err(Error::param(
                "kernel",
                format!("grid search tunes the Gaussian kernel (rbf), not `{k}`"),
            )),
            _ => Ok(()),
        }
    }
}

/// `LABEL=WEIGHT` of `--class-weight`.
fn class_weight(s: &str) -> Result<(f64, f64)> {
    let bad = || {
        Error::param(
            "class-weight",
            format!("`{s}` is not LABEL=WEIGHT (e.g. `1=2.5`)"),
        )
    };
    let (l, w) = s.split_once('=').ok_or_else(bad)?;
    let label: f64 = l.trim().parse().map_err(|_| bad())?;
    let weight: f64 = w.trim().parse().map_err(|_| bad())?;
    if !label.is_finite() {
        return Err(bad());
    }
    crate::check::non_negative_finite("class-weight", weight)?;
    Ok((label, weight))
}
