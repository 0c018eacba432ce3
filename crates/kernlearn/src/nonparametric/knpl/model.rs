//! The fitted KNPL classifier: one learned-kernel machine on `G ⊙ K` per class pair
//! (one-vs-one), with the nearest-neighbour extension to new points (KNPL paper,
//! section "Predict for the Test Data", eq. 23), and its [`Predictor`] implementation.

use super::fit::{fit_binary, TRACE_COLUMNS};
use super::params::KnplParams;
use crate::data::Features;
use crate::multiclass::OneVsOne;
use crate::nonparametric::machine::{learned_machine_on, LearnedKernelMachine};
use crate::predictor::{FitSummary, Predictor, Task};
use crate::trace::{alternation, Alternation, Trace};
use crate::validate::count_sum;
use crate::Result;
use faer::MatRef;
use serde::{Deserialize, Serialize};

/// What one class pair's fit reported.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KnplPairInfo {
    /// Final `H(α, G)` of (4).
    pub objective: f64,
    /// `H(α_t, G_t)` after round t = 0 (the plain SVM), 1, …, T (empty in models saved
    /// before it was recorded).
    #[serde(default)]
    pub objectives: Vec<f64>,
    /// The SVM dual `1ᵀα − ½ αᵀY(G⊙K)Yα` of the α-step after each round, as
    /// `objectives` (empty in older models).
    #[serde(default)]
    pub dual_objectives: Vec<f64>,
    /// Final SVM dual objective on `G ⊙ K` (maximisation form).
    pub dual_objective: f64,
    /// Outer rounds run (T).
    pub outer_iterations: usize,
    /// ADMM iterations of each round (Algorithm 2; 0 for every G-step of the ascent,
    /// which projects in closed form).
    pub admm_iterations: Vec<usize>,
    /// SMO iterations over all rounds.
    pub smo_iterations: usize,
    /// Smallest and largest entry of the learned `G` (the paper's Fig. 2 reports this
    /// range).
    pub g_min: f64,
    /// Largest entry of `G`.
    pub g_max: f64,
    /// Support vectors of the final solve.
    pub n_support: usize,
    /// Seconds in the G-steps (ADMM, mostly eigendecompositions; or the ascent's
    /// closed-form projection, one eigendecomposition or, for a PSD base kernel, none).
    pub admm_seconds: f64,
    /// Seconds in SMO.
    pub smo_seconds: f64,
}

/// A fitted KNPL classifier: one [`LearnedKernelMachine`] per class pair (a single one
/// for two classes), LIBSVM's class order and vote.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KnplModel {
    /// Parameters used.
    pub params: KnplParams,
    /// Number of input features.
    pub n_features: usize,
    /// The machines on `G ⊙ K`, one per class pair.
    pub machines: OneVsOne<LearnedKernelMachine>,
    /// Per-pair fit reports, in pair order.
    pub pairs: Vec<KnplPairInfo>,
}

impl KnplModel {
    /// Fits KNPL on features `x` with class labels `y` (two or more classes). Returns
    /// the model and the per-iteration [`Trace`] (columns `pair`, `outer`, `admm_iter`, `diff`,
    /// `beta`, `objective`, `dual_objective`).
    pub fn fit(params: &KnplParams, x: &Features, y: &[f64]) -> Result<(Self, Trace)> {
        params.validate()?;
        params.kernel.validate(x.n_cols())?;
        x.check_training(y, true)?;
        let mut trace = Trace::new(&TRACE_COLUMNS);
        let mut pairs = Vec::new();
        let machines = OneVsOne::fit(x, y, |xp, yp| {
            let k = params.kernel.gram(xp)?;
            let fit = fit_binary(k.as_ref(), yp, params, pairs.len(), &mut trace)?;
            let (g_min, g_max) = matrix_range(fit.g.as_ref());
            pairs.push(KnplPairInfo {
                objective: *fit.objectives.last().unwrap_or(&f64::NAN),
                objectives: fit.objectives.clone(),
                dual_objectives: fit.dual_objectives.clone(),
                dual_objective: -fit.solution.objective,
                outer_iterations: fit.objectives.len().saturating_sub(1),
                admm_iterations: fit.admm_iterations,
                smo_iterations: fit.smo_iterations,
                g_min,
                g_max,
                n_support: fit.solution.n_support,
                admm_seconds: fit.admm_seconds,
                smo_seconds: fit.smo_seconds,
            });
            LearnedKernelMachine::new(
                params.kernel.clone(),
                xp,
                fit.g.as_ref(),
                &fit.solution.coef,
                -fit.solution.rho,
            )
        })?;
        let model = Self {
            params: params.clone(),
            n_features: x.n_cols(),
            machines,
            pairs,
        };
        Ok((model, trace))
    }

    /// Decision values per row of `x`, one per class pair (`> 0` votes for the pair's
    /// first class).
    pub(crate) fn decision_function(&self, x: &Features) -> Result<Vec<Vec<f64>>> {
        self.check_query(x)?;
        self.machines.decision_function(x)
    }

    /// Predicted class per row of `x`.
    pub fn predict(&self, x: &Features) -> Result<Vec<f64>> {
        self.check_query(x)?;
        self.machines.predict(x)
    }

    fn check_query(&self, x: &Features) -> Result<()> {
        x.check_input(self.n_features)
    }

    /// Smallest and largest learned `G` entry over all class pairs.
    pub fn g_range(&self) -> (f64, f64) {
        self.pairs
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(p.g_min), hi.max(p.g_max))
            })
    }
}

/// Four significant digits.
fn short(v: f64) -> String {
    let s = format!("{v:.4e}");
    match s.parse::<f64>() {
        Ok(r) if r.abs() >= 1e-3 && r.abs() < 1e6 => format!("{r}"),
        _ => s,
    }
}

fn matrix_range(m: MatRef<'_, f64>) -> (f64, f64) {
    let mut range = (f64::INFINITY, f64::NEG_INFINITY);
    for j in 0..m.ncols() {
        for i in 0..m.nrows() {
            range = (range.0.min(m[(i, j)]), range.1.max(m[(i, j)]));
        }
    }
    range
}

impl Predictor for KnplModel {
    fn method(&self) -> String {
        "knpl".into()
    }

    fn task(&self) -> Task {
        Task::Classification
    }

    fn n_features(&self) -> usize {
        self.n_features
    }

    fn predict(&self, x: &Features) -> Result<Vec<f64>> {
        KnplModel::predict(self, x)
    }

    fn decision_function(&self, x: &Features) -> Result<Vec<Vec<f64>>> {
        KnplModel::decision_function(self, x)
    }

    fn params_json(&self) -> serde_json::Value {
        serde_json::to_value(&self.params).unwrap_or(serde_json::Value::Null)
    }

    fn classes(&self) -> Vec<f64> {
        self.machines.classes.clone()
    }

    /// Valid parameters (`KnplParams::validate`, the kernel on `n_features`
    /// features), the one-vs-one machines (`OneVsOne::validate`), each valid
    /// (`LearnedKernelMachine::validate`) on `n_features` features, one report per
    /// class pair.
    fn validate(&self) -> Result<()> {
        use crate::validate::{ensure, within};
        within("params", self.params.validate())?;
        within(
            "params.kernel",
            self.params.kernel.validate(self.n_features),
        )?;
        let d = self.n_features;
        within(
            "machines",
            self.machines.validate(|m| learned_machine_on(m, d)),
        )?;
        ensure(self.pairs.len() == self.machines.machines.len(), || {
            format!(
                "pairs has {} reports, the model has {} class pairs",
                self.pairs.len(),
                self.machines.machines.len()
            )
        })
    }

    /// One sentence when the outer alternation of some class pair did not settle: the
    /// SVM dual objective of the α-step still changing in the last round, or alternating
    /// between two levels ([`alternation`]).
    fn warnings(&self) -> Vec<String> {
        let classes = &self.machines.classes;
        let mut pair_names = vec![];
        for a in 0..classes.len() {
            for b in a + 1..classes.len() {
                pair_names.push(format!("classes {} vs {}", classes[a], classes[b]));
            }
        }
        let unsettled: Vec<(usize, String)> = self
            .pairs
            .iter()
            .enumerate()
            .filter_map(|(k, p)| {
                let ascent = self.params.scheme == super::KnplScheme::Ascent;
                let values = if p.dual_objectives.is_empty() || ascent {
                    &p.objectives
                } else {
                    &p.dual_objectives
                };
                match alternation(values) {
                    Alternation::TwoCycle { levels, .. } => Some((
                        k,
                        format!(
                            "a 2-cycle between {} and {}",
                            short(levels.0),
                            short(levels.1)
                        ),
                    )),
                    Alternation::NotConverged { change } => Some((
                        k,
                        format!("a change of {:.2} % in the last round", 100.0 * change),
                    )),
                    Alternation::Converged => None,
                }
            })
            .collect();
        if unsettled.is_empty() {
            return vec![];
        }
        let rounds = self.params.outer_iters;
        let what = if self.pairs.len() == 1 {
            format!(
                "the SVM dual objective of the α-step shows {}",
                unsettled[0].1
            )
        } else {
            let each: Vec<String> = unsettled
                .iter()
                .map(|(k, d)| {
                    let name = pair_names.get(*k).cloned().unwrap_or_default();
                    format!("{name}: {d}")
                })
                .collect();
            format!(
                "in {} of {} class pairs the SVM dual objective of the α-step does not \
                 settle ({})",
                unsettled.len(),
                self.pairs.len(),
                each.join("; ")
            )
        };
        vec![format!(
            "KNPL's alternation did not converge in {rounds} outer rounds: {what}; the \
             model depends on the round at which it stopped, and a larger γ («knpl-gamma») \
             keeps G nearer 11ᵀ and lets it settle"
        )]
    }

    /// `n_support` sums the pairs' support vectors; `objective` sums the pairs' final
    /// `H(α, G)`; `iterations` counts outer rounds (per pair).
    fn summary(&self) -> FitSummary {
        let (g_min, g_max) = self.g_range();
        FitSummary {
            n_support: Some(count_sum(self.pairs.iter().map(|p| p.n_support))),
            objective: Some(self.pairs.iter().map(|p| p.objective).sum()),
            iterations: Some(self.params.outer_iters),
            extra: serde_json::json!({
                "classes": self.machines.classes,
                "g_min": g_min,
                "g_max": g_max,
                "learned_matrix": {"symbol": "G", "min": g_min, "max": g_max},
                "objectives": self.pairs.iter().map(|p| p.objective).collect::<Vec<_>>(),
                "dual_objectives": self.pairs.iter().map(|p| p.dual_objective).collect::<Vec<_>>(),
                "outer_iterations": self.params.outer_iters,
                "admm_iterations": self.pairs.iter().map(|p| p.admm_iterations.clone()).collect::<Vec<_>>(),
                "smo_iterations": count_sum(self.pairs.iter().map(|p| p.smo_iterations)),
                "gamma": self.params.gamma,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{params, sine_data, three_classes};
    use super::super::{gamma_reference, KnplParams};
    use super::*;
    use crate::kernel::Kernel;
    use crate::learner::AnyModel;
    use crate::nonparametric::testing::largest_gap;
    use crate::svm::{SvmModel, SvmParams};
    use crate::Error;

    #[test]
    fn large_gamma_approaches_the_svm() {
        let (x, y) = sine_data(50, 6);
        let (xt, _) = sine_data(40, 7);
        let p = params(1.0);
        let svm_params = SvmParams {
            kernel: p.kernel.clone(),
            c: p.c,
            ..SvmParams::default()
        };
        let svm = SvmModel::fit(&svm_params, &x, &y).unwrap();
        let reference: Vec<f64> = svm
            .decision_function(&xt)
            .unwrap()
            .iter()
            .map(|d| d[0])
            .collect();
        let gamma0 = gamma_reference(&p, &x, &y).unwrap();
        let mut gaps = Vec::new();
        for scale in [1e-2, 1.0, 1e2, 1e4, 1e6] {
            let (model, _) = KnplModel::fit(&params(scale * gamma0), &x, &y).unwrap();
            let dec = model.decision_function(&xt).unwrap();
            let gap = largest_gap(dec.iter().map(|d| d[0]), reference.iter().copied());
            gaps.push(gap);
        }
        assert!(
            gaps[0] > 1e-2,
            "small γ should change the machine: {gaps:?}"
        );
        // G* − 11ᵀ shrinks like 1/γ: within SMO's tolerance at 10⁶·γ₀, and falling about
        // a hundredfold per hundredfold γ.
        assert!(gaps[4] < 1e-3, "{gaps:?}");
        assert!(
            gaps[2] > 10.0 * gaps[3] && gaps[3] > 10.0 * gaps[4],
            "{gaps:?}"
        );
    }

    #[test]
    fn trace_records_admm_residuals_and_objectives() {
        let (x, y) = sine_data(40, 9);
        let p = KnplParams {
            outer_iters: 3,
            scheme: super::super::KnplScheme::Alternate,
            ..params(0.05)
        };
        let (model, trace) = KnplModel::fit(&p, &x, &y).unwrap();
        assert_eq!(trace.columns, TRACE_COLUMNS);
        let admm = trace.column("admm_iter").unwrap();
        let outer_rows = admm.iter().filter(|&&k| k == 0.0).count();
        assert_eq!(outer_rows, 4, "round 0 (SVM) and 3 rounds");
        let info = &model.pairs[0];
        assert_eq!(
            admm.len() - outer_rows,
            info.admm_iterations.iter().sum::<usize>()
        );
        let diffs: Vec<f64> = trace
            .column("diff")
            .unwrap()
            .into_iter()
            .filter(|d| !d.is_nan())
            .collect();
        assert!(diffs.iter().all(|d| *d >= 0.0));
        let objectives: Vec<f64> = trace
            .column("objective")
            .unwrap()
            .into_iter()
            .filter(|d| !d.is_nan())
            .collect();
        assert_eq!(objectives.last().copied(), Some(info.objective));
        assert!(info.g_min < 1.0 && info.g_max > 1.0, "{info:?}");
    }

    #[test]
    fn model_round_trips_and_reports() {
        let (x, y) = three_classes(36, 10);
        let p = KnplParams {
            outer_iters: 2,
            ..params(0.1)
        };
        let (model, _) = KnplModel::fit(&p, &x, &y).unwrap();
        assert_eq!(model.machines.machines.len(), 3);
        let any = AnyModel::new(model.clone());
        let text = serde_json::to_string(&any).unwrap();
        assert!(text.contains("\"kind\":\"knpl\""));
        let back: AnyModel = serde_json::from_str(&text).unwrap();
        assert_eq!(back.predict(&x).unwrap(), model.predict(&x).unwrap());
        assert_eq!(back.method(), "knpl");
        let s = back.summary();
        assert_eq!(s.extra["objectives"].as_array().unwrap().len(), 3);
        assert_eq!(s.iterations, Some(2));
        let (lo, hi) = model.g_range();
        assert_eq!(s.extra["g_min"].as_f64(), Some(lo));
        assert_eq!(s.extra["g_max"].as_f64(), Some(hi));
    }

    #[test]
    fn alternation_tells_convergence_from_cycles() {
        assert_eq!(alternation(&[]), Alternation::Converged);
        assert_eq!(alternation(&[5.0]), Alternation::Converged);
        // Settled: the last round moves the value by less than 0.1 %.
        assert_eq!(
            alternation(&[118.0, 104.7, 106.6, 106.61, 106.6101]),
            Alternation::Converged
        );
        // KNPL on heart at γ₀: the SVM dual of the α-step swings between two levels.
        let cycle = [117.9, 13.4, 116.6, 13.39, 116.58, 13.388, 116.58];
        match alternation(&cycle) {
            Alternation::TwoCycle { levels, change } => {
                assert_eq!(levels, (13.388, 116.58));
                assert!((change - (116.58 - 13.388) / 116.58).abs() < 1e-12);
            }
            other => panic!("{other:?}"),
        }
        // A slow monotone drift is not a cycle but has not converged either.
        match alternation(&[10.0, 9.0, 8.0, 7.0, 6.0]) {
            Alternation::NotConverged { change } => assert!((change - 1.0 / 6.0).abs() < 1e-12),
            other => panic!("{other:?}"),
        }
        // Three values: a 2-cycle needs only v_T ≈ v_{T−2}.
        assert!(matches!(
            alternation(&[1.0, 50.0, 1.0]),
            Alternation::TwoCycle { .. }
        ));
        assert_eq!(alternation(&[1.0, 1.0 + 1e-9]), Alternation::Converged);
    }

    /// Algorithm 2 at a small γ falls into the 2-cycle and the model says so (the CLI
    /// prints every warning on stderr and lists it in `--json`); at a large γ the
    /// alternation settles next to the SVM and there is no warning; a model saved
    /// before the per-round objectives were recorded has nothing to judge.
    #[test]
    fn an_unsettled_alternation_is_a_warning() {
        let (x, y) = sine_data(60, 21);
        let gamma0 = gamma_reference(&params(1.0), &x, &y).unwrap();
        let published = KnplParams {
            scheme: super::super::KnplScheme::Alternate,
            ..params(gamma0)
        };
        let (model, _) = KnplModel::fit(&published, &x, &y).unwrap();
        let info = &model.pairs[0];
        assert_eq!(info.objectives.len(), 11);
        assert_eq!(info.dual_objectives.len(), 11);
        assert_eq!(info.objectives.last(), Some(&info.objective));
        assert_eq!(info.dual_objectives.last(), Some(&info.dual_objective));
        assert!(
            matches!(
                alternation(&info.dual_objectives),
                Alternation::TwoCycle { .. }
            ),
            "{:?}",
            info.dual_objectives
        );
        let w = AnyModel::new(model.clone()).warnings();
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("did not converge in 10 outer rounds") && w[0].contains("2-cycle"),
            "{w:?}"
        );
        assert!(w[0].contains("«knpl-gamma»"), "{w:?}");

        let (settled, _) = KnplModel::fit(&params(1e4 * gamma0), &x, &y).unwrap();
        assert_eq!(
            alternation(&settled.pairs[0].dual_objectives),
            Alternation::Converged,
            "{:?}",
            settled.pairs[0].dual_objectives
        );
        assert!(settled.warnings().is_empty());

        let mut old = model.clone();
        old.pairs[0].objectives.clear();
        old.pairs[0].dual_objectives.clear();
        let text = serde_json::to_string(&old).unwrap();
        let back: KnplModel = serde_json::from_str(&text).unwrap();
        assert!(back.pairs[0].objectives.is_empty() && back.warnings().is_empty());

        // One-vs-one: one sentence naming the unsettled class pairs.
        let (x3, y3) = three_classes(60, 22);
        let g3 = gamma_reference(&params(1.0), &x3, &y3).unwrap();
        let published = KnplParams {
            scheme: super::super::KnplScheme::Alternate,
            ..params(g3)
        };
        let (multi, _) = KnplModel::fit(&published, &x3, &y3).unwrap();
        let w = multi.warnings();
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("in 3 of 3 class pairs")
                && w[0].contains("classes 2 vs 1: a 2-cycle between"),
            "{w:?}"
        );
    }

    fn is_param_error(e: Error, name: &str) -> bool {
        matches!(e, Error::InvalidParameter { name: ref n, .. } if n == name)
    }

    #[test]
    fn bad_input_is_an_error() {
        let (x, y) = sine_data(20, 12);
        for g in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let e = KnplModel::fit(&params(g), &x, &y).unwrap_err();
            assert!(is_param_error(e, "gamma"), "γ = {g}");
        }
        for c in [0.0, -2.0] {
            let p = KnplParams { c, ..params(1.0) };
            assert!(is_param_error(KnplModel::fit(&p, &x, &y).unwrap_err(), "C"));
        }
        let p = KnplParams {
            admm_max_iter: 0,
            ..params(1.0)
        };
        assert!(KnplModel::fit(&p, &x, &y).is_err());
        for w in [0.0, 1.5, f64::NAN] {
            let p = KnplParams {
                g_relaxation: w,
                ..params(1.0)
            };
            let e = KnplModel::fit(&p, &x, &y).unwrap_err();
            assert!(is_param_error(e, "g_relaxation"), "ω = {w}");
        }
        let p = KnplParams {
            kernel: Kernel::Precomputed,
            ..params(1.0)
        };
        assert!(is_param_error(
            KnplModel::fit(&p, &x, &y).unwrap_err(),
            "kernel"
        ));
        // Training data: NaN feature, wrong label count, a single class.
        let mut bad = x.clone();
        bad.row_mut(3)[1] = f64::NAN;
        assert!(KnplModel::fit(&params(1.0), &bad, &y).is_err());
        assert!(KnplModel::fit(&params(1.0), &x, &y[1..]).is_err());
        assert!(KnplModel::fit(&params(1.0), &x, &[1.0; 20]).is_err());
        // Test points: NaN, wrong width.
        let p = KnplParams {
            outer_iters: 1,
            ..params(1.0)
        };
        let (model, _) = KnplModel::fit(&p, &x, &y).unwrap();
        let q = Features::new(2, 2, vec![0.1, 0.2, f64::NAN, 0.3]).unwrap();
        assert!(model.predict(&q).is_err());
        assert!(model.decision_function(&q).is_err());
        let wide = Features::new(1, 3, vec![0.1, 0.2, 0.3]).unwrap();
        assert!(model.predict(&wide).is_err());
    }
}
