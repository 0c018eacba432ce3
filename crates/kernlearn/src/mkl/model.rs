//! The fitted MKL classifier: one [`MklMachine`] per class pair (one-vs-one, LIBSVM's
//! class order and vote, [`crate::multiclass::OneVsOne`]), whatever the method. Weights
//! are learned per pair (they depend on the labels); each pair's kernels are normalised
//! on that pair's points.

use super::easymkl::{self, EasyMklParams};
use super::mwumkl::{self, MwumklParams};
use super::spggmkl::{self, SpgGmklParams};
use super::uniform::{self, UniformParams};
use crate::bank::KernelFamily;
use crate::bank::MklMachine;
use crate::bank::{GramTable, KernelBank};
use crate::data::Features;
use crate::learner::weights::one_vs_one_weighted;
use crate::multiclass::OneVsOne;
use crate::predictor::one_vs_one_predictor_methods;
use crate::predictor::{Artefact, ArtefactValue, FitSummary, Predictor, FEATURE_RELEVANCE};
use crate::select::Grid;
use crate::trace::Trace;
use crate::validate::count_sum;
use crate::Result;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Which method learns the combination, with its parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "snake_case")]
pub enum MklMethod {
    /// The SVM on the average kernel (UNIFORM).
    Uniform(UniformParams),
    /// Matrix multiplicative weights (MWUMKL).
    Mwumkl(MwumklParams),
    /// EasyMKL.
    #[serde(rename = "easymkl")]
    EasyMkl(EasyMklParams),
    /// SPG-GMKL (Jain, Vishwanathan and Varma 2012).
    #[serde(rename = "spg_gmkl")]
    SpgGmkl(SpgGmklParams),
}

impl MklMethod {
    /// Name as on a command line: `uniform`, `mwumkl`, `easymkl`, `spg-gmkl`.
    pub fn name(&self) -> &'static str {
        match self {
            MklMethod::Uniform(_) => "uniform",
            MklMethod::Mwumkl(_) => "mwumkl",
            MklMethod::EasyMkl(_) => "easymkl",
            MklMethod::SpgGmkl(_) => "spg-gmkl",
        }
    }

    /// Checks the method's parameters.
    pub(crate) fn validate(&self) -> Result<()> {
        match self {
            MklMethod::Uniform(p) => p.validate(),
            MklMethod::Mwumkl(p) => p.validate(),
            MklMethod::EasyMkl(p) => p.validate(),
            MklMethod::SpgGmkl(p) => p.validate(),
        }
    }

    /// Why the method cannot honour per-sample weights, or `None` when it can (UNIFORM
    /// and SPG-GMKL, whose objectives are the C-SVM dual, with the per-point box
    /// `C·w_t` of the weighted C-SVC).
    pub(crate) fn weights_refusal(&self) -> Option<&'static str> {
        match self {
            MklMethod::Uniform(_) | MklMethod::SpgGmkl(_) => None,
            MklMethod::Mwumkl(_) => Some(
                "its game is played on the two classes' convex hulls (each class's α sums \
                 to one) with a 2-norm soft margin, where no bound C·w_t exists, and its \
                 approximate rounds depend on the number of rows, so a weight could not \
                 act as copies of a row",
            ),
            MklMethod::EasyMkl(_) => Some(
                "its objective is the distance of the classes' convex hulls with the \
                 regulariser λ‖γ‖², which has no per-point loss or bound for a weight to \
                 scale",
            ),
        }
    }

    /// The binary machine of class pair `pair` (kernel values from `table` when it has
    /// them), with the pair's per-sample weights `w` when given (positive; the caller
    /// has refused them for a method with a [`MklMethod::weights_refusal`]); SPG-GMKL adds its iterations
    /// to `trace`.
    fn fit_binary(
        &self,
        family: &KernelFamily,
        (x, y, w): (&Features, &[f64], Option<&[f64]>),
        table: Option<&Arc<GramTable>>,
        pair: usize,
        trace: &mut Trace,
    ) -> Result<MklMachine> {
        let bank = &KernelBank::new_weighted(family, x, table, w)?;
        match self {
            MklMethod::Uniform(p) => uniform::fit_binary(family, bank, (y, w), p),
            MklMethod::Mwumkl(p) => mwumkl::fit_binary(family, bank, y, p),
            MklMethod::EasyMkl(p) => easymkl::fit_binary(family, bank, y, p),
            MklMethod::SpgGmkl(p) => spggmkl::fit_binary(family, bank, (y, w), p, pair, trace),
        }
    }
}

/// Method and base kernels of an MKL fit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct MklParams {
    /// The method.
    pub method: MklMethod,
    /// The base kernels.
    pub family: KernelFamily,
}

/// EasyMKL's λ values tried by cross-validation (MKLpy's examples use the same range).
pub(super) const EASYMKL_LAMBDAS: [f64; 10] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];

impl MklParams {
    /// `method` on the base kernels `family`.
    pub fn new(method: MklMethod, family: KernelFamily) -> Self {
        Self { method, family }
    }

    /// The values of the method's trade-off that cross-validation tries, simplest first:
    /// C ∈ `grid.cs` for UNIFORM, MWUMKL and SPG-GMKL (the thesis: "C and ε by CV"; ε stays as
    /// given because the cost grows as 1/ε), λ ∈ [`EASYMKL_LAMBDAS`] for EasyMKL.
    pub(crate) fn trade_off_candidates(&self, grid: &Grid) -> Vec<f64> {
        match self.method {
            MklMethod::Uniform(_) | MklMethod::Mwumkl(_) | MklMethod::SpgGmkl(_) => grid.cs.clone(),
            MklMethod::EasyMkl(_) => EASYMKL_LAMBDAS.to_vec(),
        }
    }

    /// These parameters with the trade-off set to `value` (C, or EasyMKL's λ).
    pub(crate) fn with_trade_off(&self, value: f64) -> Self {
        let mut p = self.clone();
        match &mut p.method {
            MklMethod::Uniform(u) => u.c = value,
            MklMethod::Mwumkl(m) => m.c = Some(value),
            MklMethod::EasyMkl(e) => e.lambda = value,
            MklMethod::SpgGmkl(g) => g.c = value,
        }
        p
    }
}

/// A fitted multiple-kernel classifier.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MklModel {
    /// What was fitted.
    pub params: MklParams,
    /// Number of input features.
    pub n_features: usize,
    /// One machine per class pair.
    pub machines: OneVsOne<MklMachine>,
}

/// Weights at most this (relative to the largest) count as unselected in reports.
const SELECTED: f64 = 1e-6;

impl MklModel {
    /// Fits `params` on features `x` (scaled as the method expects; the thesis scales to
    /// `[0, 1]`) and class labels `y` (any number of classes, one-vs-one).
    pub fn fit(params: &MklParams, x: &Features, y: &[f64]) -> Result<Self> {
        Self::fit_traced(params, x, y).map(|(model, _)| model)
    }

    /// [`MklModel::fit`] with per-sample weights `weights` (one finite weight per row of
    /// `x`), for UNIFORM and SPG-GMKL: in each class pair's C-SVM point `t`'s box is
    /// `0 ≤ α_t ≤ C·w_t` (LIBSVM's weighted C-SVC), and each base kernel is
    /// trace-normalised to weighted mean diagonal 1, so that a point of integer weight
    /// `k` counts as `k` copies of it. Rows of zero or negative weight are left out, as
    /// absent rows (LIBSVM's `remove_zero_weight`). MWUMKL and EasyMKL refuse weights.
    pub fn fit_weighted(
        params: &MklParams,
        x: &Features,
        y: &[f64],
        weights: Option<&[f64]>,
    ) -> Result<Self> {
        Self::fit_with_table(params, x, y, weights, None).map(|(model, _)| model)
    }

    /// [`MklModel::fit`], with SPG-GMKL's per-iteration trace (columns
    /// `pair, iter, objective, step, pg_norm, svm_solves`; `None` for the other methods).
    pub(crate) fn fit_traced(
        params: &MklParams,
        x: &Features,
        y: &[f64],
    ) -> Result<(Self, Option<Trace>)> {
        Self::fit_with_table(params, x, y, None, None)
    }

    /// [`MklModel::fit_traced`] reading kernel values from `table` (a selection's
    /// [`GramTable`] on a superset of `x`'s rows): the same model, computed faster; with
    /// per-sample weights as [`MklModel::fit_weighted`].
    pub(crate) fn fit_with_table(
        params: &MklParams,
        x: &Features,
        y: &[f64],
        weights: Option<&[f64]>,
        table: Option<&Arc<GramTable>>,
    ) -> Result<(Self, Option<Trace>)> {
        params.method.validate()?;
        params.family.validate(x.n_cols())?;
        x.check_training(y, true)?;
        if let (Some(_), Some(why)) = (weights, params.method.weights_refusal()) {
            return Err(crate::learner::weights_refused(params.method.name(), why));
        }
        // Rows of weight ≤ 0 are absent rows: fitted as if the data never had them.
        let mut trace = Trace::new(&spggmkl::TRACE_COLUMNS);
        let mut pair = 0;
        let (machines, _) = one_vs_one_weighted(x, y, weights, |xp, yp, wp| {
            pair += 1;
            (params.method).fit_binary(&params.family, (xp, yp, wp), table, pair - 1, &mut trace)
        })?;
        let model = Self {
            params: params.clone(),
            n_features: x.n_cols(),
            machines,
        };
        let traced = matches!(params.method, MklMethod::SpgGmkl(_));
        Ok((model, traced.then_some(trace)))
    }

    /// Kernel weights of each class pair (each sums to one).
    pub fn weights(&self) -> Vec<&[f64]> {
        self.machines
            .machines
            .iter()
            .map(|m| m.weights.as_slice())
            .collect()
    }

    /// Support vectors summed over class pairs (for a binary problem: the machine's).
    pub fn n_support(&self) -> usize {
        self.machines.machines.iter().map(|m| m.n_support()).sum()
    }

    /// Predicted class per row of `x`.
    #[cfg(test)]
    pub(crate) fn predict(&self, x: &Features) -> Result<Vec<f64>> {
        self.machines.predict(x)
    }

    /// [`MklModel::predict`] on rows of a selection's [`GramTable`] (a held-out fold),
    /// reading their kernel values from it: the same predictions.
    pub(crate) fn predict_with_table(
        &self,
        x: &Features,
        table: Option<&Arc<GramTable>>,
    ) -> Result<Vec<f64>> {
        self.machines
            .predict_by(x.n_rows(), |m| m.decision_with(x, table))
    }

    /// Decision values per row of `x`, one per class pair.
    #[cfg(test)]
    pub(crate) fn decision_function(&self, x: &Features) -> Result<Vec<Vec<f64>>> {
        self.machines.decision_function(x)
    }
}

/// Number of weights above 10⁻⁶ × the largest, and the effective number of
/// kernels `1 / Σ μ_i²` (m for uniform weights, 1 for a single kernel).
pub fn weight_sparsity(weights: &[f64]) -> (usize, f64) {
    let max = weights.iter().cloned().fold(0.0, f64::max);
    let selected = weights.iter().filter(|&&w| w > SELECTED * max).count();
    let sq: f64 = weights.iter().map(|w| w * w).sum();
    (selected, if sq > 0.0 { 1.0 / sq } else { 0.0 })
}

/// Total-variation distance from uniform below which learned kernel weights count as
/// uniform: moving at most a tenth of the weight would make them equal, so the method
/// did not tell the kernels apart and per-feature shares of them would only echo the
/// family's layout (every feature the same number of kernels).
pub const NEAR_UNIFORM: f64 = 0.1;

/// `½ Σ_i |μ_i − 1/m|`, the total-variation distance of weights summing to one from the
/// uniform weights (0 for uniform, `1 − 1/m` for a single kernel).
pub fn uniform_distance(weights: &[f64]) -> f64 {
    let even = 1.0 / weights.len().max(1) as f64;
    0.5 * weights.iter().map(|w| (w - even).abs()).sum::<f64>()
}

/// Each feature's share of the kernel weights `per_pair` of `kernels` on `d` features:
/// a kernel on features `S` gives its weight `μ_m` equally to the features of `S` (all of
/// them for `@all`), summed over the class pairs and normalised to sum 1; `None` when
/// every weight is zero.
pub(super) fn relevance_of<'a>(
    kernels: &[crate::kernel::KernelOnFeatures],
    d: usize,
    per_pair: impl Iterator<Item = &'a [f64]>,
) -> Option<Vec<f64>> {
    let mut relevance = vec![0.0; d];
    for weights in per_pair {
        for (k, &w) in kernels.iter().zip(weights) {
            match &k.features {
                Some(cols) if !cols.is_empty() => cols
                    .iter()
                    .for_each(|&c| relevance[c] += w / cols.len() as f64),
                _ => relevance.iter_mut().for_each(|r| *r += w / d as f64),
            }
        }
    }
    let total: f64 = relevance.iter().sum();
    (total > 0.0).then(|| relevance.iter().map(|r| r / total).collect())
}

impl MklModel {
    /// Whether every class pair's weights are within `NEAR_UNIFORM` of uniform
    /// (always for UNIFORM, which learns none).
    pub fn near_uniform(&self) -> bool {
        (self.machines.machines.iter()).all(|m| uniform_distance(&m.weights) < NEAR_UNIFORM)
    }

    /// Each feature's share of the kernel weights ([`relevance_of`], averaged over the
    /// class pairs). `None` when the weights are uninformative ([`MklModel::near_uniform`]),
    /// when the family is too large to list, or every weight is zero.
    fn relevance(&self) -> Option<Vec<f64>> {
        const MOST_KERNELS: usize = 1 << 20;
        let d = self.n_features;
        if self.params.family.len(d) > MOST_KERNELS || self.near_uniform() {
            return None;
        }
        let kernels = self.params.family.expand(d).ok()?;
        relevance_of(
            &kernels,
            d,
            self.machines.machines.iter().map(|m| &m.weights[..]),
        )
    }
}

impl Predictor for MklModel {
    one_vs_one_predictor_methods!();

    fn method(&self) -> String {
        self.params.method.name().to_string()
    }

    fn params_json(&self) -> serde_json::Value {
        serde_json::json!({
            "method": self.params.method,
            "kernels": self.params.family.to_string(),
        })
    }

    /// Valid method parameters and family on `n_features` features, one-vs-one machines
    /// (`OneVsOne::validate`), each valid (`MklMachine::validate`).
    fn validate(&self) -> Result<()> {
        use crate::validate::within;
        within("params.method", self.params.method.validate())?;
        within(
            "params.family",
            self.params.family.validate(self.n_features),
        )?;
        within(
            "machines",
            self.machines.validate(|m| m.validate(self.n_features)),
        )
    }

    /// `extra`: per class pair the kernel weights, the number selected (above 1e-6 of
    /// the largest), the effective number of kernels `1/Σμ²`, #SV and `rho`.
    /// A class pair whose optimiser stopped at its iteration cap (SPG-GMKL) says so.
    fn warnings(&self) -> Vec<String> {
        let ms = &self.machines.machines;
        let method = self.params.method.name();
        let mut out = Vec::new();
        let capped: Vec<usize> = (0..ms.len()).filter(|&p| ms[p].info.hit_max_iter).collect();
        if let Some(&first) = capped.first() {
            out.push(format!(
                "{method}: the weight optimiser stopped at its iteration cap before its tolerance in {} of {} class pairs (first: pair {}, {} iterations); the weights may be far from optimal",
                capped.len(),
                ms.len(),
                first + 1,
                ms[first].info.iterations
            ));
        }
        let learns = !matches!(self.params.method, MklMethod::Uniform(_));
        if learns && self.near_uniform() {
            let distance = ms
                .iter()
                .map(|m| uniform_distance(&m.weights))
                .fold(0.0, f64::max);
            out.push(format!(
                "{method}: the learned kernel weights are within {NEAR_UNIFORM} of uniform (total-variation distance {distance:.3}): the method did not tell the kernels apart, so no feature relevance is reported{}",
                match self.params.method {
                    MklMethod::Mwumkl(_) => "; a smaller `mwu-epsilon` runs more rounds",
                    _ => "",
                }
            ));
        }
        out
    }

    /// The `feature_relevance` artefact (`MklModel::relevance`).
    fn artefacts(&self) -> Vec<Artefact> {
        (self.relevance().into_iter())
            .map(|shares| Artefact {
                name: FEATURE_RELEVANCE,
                about: "each feature's share of the kernel weights",
                value: ArtefactValue::PerFeature(shares),
            })
            .collect()
    }

    fn summary(&self) -> FitSummary {
        let ms = &self.machines.machines;
        let sparsity: Vec<(usize, f64)> = ms.iter().map(|m| weight_sparsity(&m.weights)).collect();
        FitSummary {
            n_support: Some(self.n_support()),
            objective: Some(ms.iter().map(|m| m.info.objective).sum()),
            iterations: Some(count_sum(ms.iter().map(|m| m.info.iterations))),
            extra: serde_json::json!({
                "kernels": self.params.family.to_string(),
                "n_kernels": ms.first().map_or(0, |m| m.weights.len()),
                "classes": self.machines.classes,
                "weights": ms.iter().map(|m| &m.weights).collect::<Vec<_>>(),
                "n_selected": sparsity.iter().map(|s| s.0).collect::<Vec<_>>(),
                "effective_kernels": sparsity.iter().map(|s| s.1).collect::<Vec<_>>(),
                "uniform_distance": ms.iter().map(|m| uniform_distance(&m.weights)).collect::<Vec<_>>(),
                "near_uniform": self.near_uniform(),
                "n_sv": ms.iter().map(|m| m.n_support()).collect::<Vec<_>>(),
                "rho": ms.iter().map(|m| m.rho).collect::<Vec<_>>(),
            }),
        }
    }
}
