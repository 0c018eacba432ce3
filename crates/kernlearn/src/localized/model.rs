//! The fitted localized classifier: one binary machine per class pair (one-vs-one,
//! [`crate::multiclass::OneVsOne`]), each localized on that pair's points.

use super::clmkl::ClmklMachine;
use super::ldmkl::LdmklMachine;
use super::lmkl::LmklMachine;
use super::swmkl::SwmklMachine;
use super::{LocalizedMethod, LocalizedParams};
use crate::data::Features;
use crate::learner::weights::one_vs_one_weighted;
use crate::multiclass::{BinaryMachine, OneVsOne};
use crate::predictor::one_vs_one_predictor_methods;
use crate::predictor::{Artefact, ArtefactValue, FitSummary, Predictor, Representation};
use crate::validate::count_sum;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// A fitted binary machine of one of the localized methods.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "snake_case")]
pub enum LocalizedMachine {
    /// LD-MKL.
    Ldmkl(LdmklMachine),
    /// SWMKL.
    Swmkl(SwmklMachine),
    /// LMKL.
    Lmkl(LmklMachine),
    /// C-LMKL.
    Clmkl(ClmklMachine),
}

impl LocalizedMachine {
    /// The binary machine of one class pair, with its per-sample weights when given
    /// (only LMKL takes them; [`LocalizedModel::fit_weighted`] refuses the others first).
    fn fit(
        params: &LocalizedParams,
        x: &Features,
        (y, w): (&[f64], Option<&[f64]>),
    ) -> Result<Self> {
        match (&params.method, w) {
            (LocalizedMethod::Lmkl(s), _) => {
                Ok(Self::Lmkl(LmklMachine::fit(params, s, x, (y, w))?))
            }
            (method, Some(_)) => Err(refusal(method)),
            (LocalizedMethod::Ldmkl(g), None) => {
                Ok(Self::Ldmkl(LdmklMachine::fit(params, g, x, y)?))
            }
            (LocalizedMethod::Swmkl(g), None) => {
                Ok(Self::Swmkl(SwmklMachine::fit(params, g, x, y)?))
            }
            (LocalizedMethod::Clmkl(s), None) => {
                Ok(Self::Clmkl(ClmklMachine::fit(params, s, x, y)?))
            }
        }
    }

    /// `ldmkl`, `swmkl`, `lmkl` or `clmkl`.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Self::Ldmkl(_) => "ldmkl",
            Self::Swmkl(_) => "swmkl",
            Self::Lmkl(_) => "lmkl",
            Self::Clmkl(_) => "clmkl",
        }
    }

    /// Checks a machine read back: fitted by `method`, for `n_features` features,
    /// `n_train` training points and `m` base kernels (each method's `validate`).
    fn validate(
        &self,
        method: &LocalizedMethod,
        n_features: usize,
        n_train: usize,
        m: usize,
    ) -> Result<()> {
        crate::validate::ensure(self.name() == method.name(), || {
            format!(
                "method is {}, params.method.method is {}",
                self.name(),
                method.name()
            )
        })?;
        match self {
            Self::Ldmkl(l) => l.validate(n_features, n_train, m),
            Self::Swmkl(s) => s.validate(n_features, n_train, m),
            Self::Lmkl(l) => l.validate(n_features, n_train, m),
            Self::Clmkl(c) => c.validate(n_features, n_train, m),
        }
    }

    /// Support points (distinct training points the classifier keeps as support vectors).
    pub(crate) fn n_support(&self) -> usize {
        match self {
            Self::Ldmkl(m) => m.n_support(),
            Self::Swmkl(m) => m.n_support(),
            Self::Lmkl(m) => m.n_support(),
            Self::Clmkl(m) => m.n_support(),
        }
    }

    /// Training rows (within the class pair) of the support points.
    pub(crate) fn support_rows(&self) -> Vec<usize> {
        match self {
            Self::Ldmkl(m) => {
                let mut rows = m.sv_rows.concat();
                rows.sort_unstable();
                rows.dedup();
                rows
            }
            Self::Swmkl(m) => m.machine.sv_indices.clone(),
            Self::Lmkl(m) => m.machine.sv_indices.clone(),
            Self::Clmkl(m) => m.machine.sv_indices.clone(),
        }
    }

    /// How much each base kernel is used at every row of `x`, `n × m`, rows summing to
    /// one (Fig. 4.1's per-kernel gate): LD-MKL's softmax gate `g_i(x)`, LMKL's `η_i(x)`,
    /// SWMKL's `g_i(x) / Σ_j g_j(x)`, C-LMKL's `Σ_r β_ir c_r(x)²` normalised.
    pub(crate) fn kernel_gates(&self, x: &Features) -> Result<Vec<f64>> {
        let (mut g, m) = match self {
            Self::Ldmkl(l) => return l.gates(x),
            Self::Lmkl(l) => return Ok(l.gate.gates(x)?.values),
            Self::Swmkl(s) => (s.gates(x)?.values, s.gate.n_kernels()),
            Self::Clmkl(c) => {
                let gates = c.clusters.n_clusters();
                let m = c.beta.len() / gates;
                let memberships = c.clusters.memberships(x)?;
                let g = (0..x.n_rows() * m)
                    .map(|k| {
                        let (t, i) = (k / m, k % m);
                        (0..gates)
                            .map(|r| c.beta[i * gates + r] * memberships[t * gates + r].powi(2))
                            .sum()
                    })
                    .collect();
                (g, m)
            }
        };
        for row in g.chunks_mut(m) {
            let s: f64 = row.iter().sum();
            row.iter_mut().for_each(|v| *v /= s);
        }
        Ok(g)
    }

    /// Solver iterations of the fit.
    pub(crate) fn iterations(&self) -> usize {
        match self {
            Self::Ldmkl(m) => m.iterations,
            Self::Swmkl(m) => m.iterations,
            Self::Lmkl(m) => m.iterations,
            Self::Clmkl(m) => m.iterations,
        }
    }
}

impl BinaryMachine for LocalizedMachine {
    fn decision_values(&self, x: &Features) -> Result<Vec<f64>> {
        match self {
            Self::Ldmkl(m) => m.decision(x),
            Self::Swmkl(m) => m.decision(x),
            Self::Lmkl(m) => m.decision(x),
            Self::Clmkl(m) => m.decision(x),
        }
    }
}

/// The error of a method that cannot honour per-sample weights, naming it and why.
fn refusal(method: &LocalizedMethod) -> Error {
    let why = method.weights_refusal();
    crate::learner::weights_refused(
        method.display_name(),
        why.unwrap_or("not with these settings"),
    )
}

/// A fitted localized multiple-kernel classifier.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LocalizedModel {
    /// What was fitted.
    pub params: LocalizedParams,
    /// Number of input features.
    pub n_features: usize,
    /// Number of training points.
    pub n_train: usize,
    /// One machine per class pair.
    pub machines: OneVsOne<LocalizedMachine>,
}

impl LocalizedModel {
    /// Fits `params` on features `x` (scaled; the thesis scales to `[0, 1]`) and class
    /// labels `y` (any number of classes, one-vs-one).
    #[cfg(test)]
    pub(crate) fn fit(params: &LocalizedParams, x: &Features, y: &[f64]) -> Result<Self> {
        Self::fit_weighted(params, x, y, None)
    }

    /// Fits `params` on features `x` (scaled; the thesis scales to `[0, 1]`) and class
    /// labels `y` (any number of classes, one-vs-one), with per-sample weights `weights`
    /// when given (one finite weight per row of `x`; LMKL with the SMO solver only): point `t`'s box in every SVM solve is
    /// `C·w_t` and the base kernels are normalised on the weighted rows, so that a point
    /// of integer weight `k` counts as `k` copies of it ([`LmklMachine::fit`]). Rows of
    /// zero or negative weight are left out, as absent rows. The other methods refuse
    /// weights ([`LocalizedMethod::weights_refusal`]).
    pub(crate) fn fit_weighted(
        params: &LocalizedParams,
        x: &Features,
        y: &[f64],
        weights: Option<&[f64]>,
    ) -> Result<Self> {
        params.validate()?;
        params.family.validate(x.n_cols())?;
        x.check_training(y, true)?;
        if weights.is_some() && params.method.weights_refusal().is_some() {
            return Err(refusal(&params.method));
        }
        let (machines, n_train) = one_vs_one_weighted(x, y, weights, |xp, yp, wp| {
            LocalizedMachine::fit(params, xp, (yp, wp))
        })?;
        Ok(Self {
            params: params.clone(),
            n_features: x.n_cols(),
            n_train,
            machines,
        })
    }

    /// Support points summed over class pairs.
    pub(crate) fn n_support(&self) -> usize {
        self.machines.machines.iter().map(|m| m.n_support()).sum()
    }

    /// Support points as a percentage of the training points (the thesis's Table 4.4).
    pub(crate) fn support_percent(&self) -> f64 {
        100.0 * self.n_support() as f64 / self.n_train.max(1) as f64
    }
}

impl Predictor for LocalizedModel {
    one_vs_one_predictor_methods!();

    fn artefacts(&self) -> Vec<Artefact> {
        vec![Artefact {
            name: "gates",
            about: "how much each base kernel is used at every row (the thesis's Fig. 4.1)",
            value: ArtefactValue::PerRow,
        }]
    }

    /// `gates`: how much each base kernel is used at every row, one column per kernel
    /// (`LocalizedMachine::kernel_gates`, the thesis's Fig. 4.1).
    fn per_row(&self, _name: &str, x: &Features, pair: usize) -> Result<Representation> {
        let machines = &self.machines.machines;
        let machine = machines.get(pair).ok_or_else(|| {
            Error::param(
                "pair",
                format!("the model has {} class pairs, got {pair}", machines.len()),
            )
        })?;
        let gates = machine.kernel_gates(x)?;
        let columns: Vec<String> = self
            .params
            .family
            .expand(self.n_features)?
            .iter()
            .map(|k| k.to_string())
            .collect();
        let values = Features::new(x.n_rows(), columns.len(), gates)?;
        Ok(Representation { columns, values })
    }

    fn support_rows(&self, pair: usize) -> Option<Vec<usize>> {
        self.machines
            .machines
            .get(pair)
            .map(LocalizedMachine::support_rows)
    }

    fn method(&self) -> String {
        self.params.method.name().to_string()
    }

    /// Valid parameters (`LocalizedParams::validate`) and family on `n_features`
    /// features with at least two base kernels, one-vs-one machines
    /// (`OneVsOne::validate`) of the parameters' method, each valid for the model's
    /// features, training points and base kernels.
    fn validate(&self) -> Result<()> {
        use crate::validate::{ensure, within};
        let d = self.n_features;
        within("params", self.params.validate())?;
        within("params.family", self.params.family.validate(d))?;
        let m = self.params.family.len(d);
        ensure(m >= 2, || {
            format!(
                "params.family has {m} base kernel(s) on {d} features; a localized method needs at least two"
            )
        })?;
        within(
            "machines",
            self.machines
                .validate(|mach| mach.validate(&self.params.method, d, self.n_train, m)),
        )
    }

    fn params_json(&self) -> serde_json::Value {
        serde_json::json!({
            "method": self.params.method,
            "kernels": self.params.family.to_string(),
            "c": self.params.c,
            "solver": self.params.solver,
        })
    }

    /// `extra`: support points per class pair and as a percentage of `n` (Table 4.4).
    fn summary(&self) -> FitSummary {
        let ms = &self.machines.machines;
        FitSummary {
            n_support: Some(self.n_support()),
            objective: None,
            iterations: Some(count_sum(ms.iter().map(|m| m.iterations()))),
            extra: serde_json::json!({
                "kernels": self.params.family.to_string(),
                "solver": self.params.solver.name(),
                "classes": self.machines.classes,
                "n_sv": ms.iter().map(|m| m.n_support()).collect::<Vec<_>>(),
                "support_percent": self.support_percent(),
            }),
        }
    }
}
