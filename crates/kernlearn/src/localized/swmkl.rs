//! SWMKL, success-based locally weighted MKL (Kannao and Guha; Moeller 2017, Algorithm 2
//! and section 4.3.2.3).
//!
//! 1. For every base kernel, a classifier `f_i` on all points and an ε-SVR `g_i` of its
//!    correctness ([`super::per_kernel`]).
//! 2. One SVM on the pairwise-normalised gated kernel (Algorithm 2, line 4)
//!    `κ(x, x') = Σ_i g_i(x) κ_i(x, x') g_i(x') / Σ_i g_i(x) g_i(x')`
//!    ([`super::gate::GateKind::PairwiseNormalised`]), computed row by row for the solver.
//!
//! **Gate range.** Algorithm 2 asks for `g_i : ℝ^d → (0, 1)`; an SVR's output is not
//! bounded, so it is clamped to `[GATE_FLOOR, 1]`. The floor keeps the normaliser
//! `Σ_i g_i(x) g_i(x')` positive, so the kernel is defined everywhere.

use super::gate::{GateKind, GateMatrix, GatedKernel, GatedMachine};
use super::per_kernel::{fit_per_kernel, localized_bank, GateRegression, RegressionGate};
use super::LocalizedParams;
use crate::data::Features;
use crate::Result;
use serde::{Deserialize, Serialize};

/// Smallest gate value (see the module docs).
pub(super) const GATE_FLOOR: f64 = 1e-3;

/// A fitted binary SWMKL machine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SwmklMachine {
    /// The regressors `g_i`.
    pub gate: RegressionGate,
    /// The final SVM on the gated kernel.
    pub machine: GatedMachine,
    /// Solver iterations over every classifier, regressor and the final SVM.
    pub iterations: usize,
}

impl SwmklMachine {
    /// Algorithm 2 on training points `x` with labels `y ∈ {±1}`.
    pub(crate) fn fit(
        params: &LocalizedParams,
        gate: &GateRegression,
        x: &Features,
        y: &[f64],
    ) -> Result<Self> {
        let bank = localized_bank(params, x, "SWMKL")?;
        let stage = fit_per_kernel(params, &bank, y, gate)?;
        let gates = clamped_gates(stage.scores, bank.n_kernels())?;
        let source = GatedKernel::new(&bank, &gates, GateKind::PairwiseNormalised)?;
        let sol = params
            .solver
            .solve(&source, y, params.c, &params.smo, None)?;
        let machine = GatedMachine::new(
            &params.family,
            &bank,
            &gates,
            GateKind::PairwiseNormalised,
            &sol.coef,
            sol.rho,
        );
        Ok(Self {
            gate: stage.gate,
            machine,
            iterations: stage.iterations + sol.iterations,
        })
    }

    /// Checks a machine read back for `n_features` features, `n_train` training points
    /// and `m` base kernels: valid gate regressors ([`RegressionGate::validate`]) and a
    /// final SVM on pairwise-normalised gates, one per base kernel
    /// ([`GatedMachine::validate`]).
    pub(crate) fn validate(&self, n_features: usize, n_train: usize, m: usize) -> Result<()> {
        use crate::validate::within;
        within("gate", self.gate.validate(n_features, m))?;
        let kernel_of: Vec<usize> = (0..m).collect();
        within(
            "machine",
            self.machine.validate(
                n_features,
                n_train,
                GateKind::PairwiseNormalised,
                &kernel_of,
            ),
        )
    }

    /// Support vectors of the final SVM.
    pub(crate) fn n_support(&self) -> usize {
        self.machine.n_support()
    }

    /// The gates `g_i(x)` (clamped regressor outputs), one row per point.
    pub(crate) fn gates(&self, x: &Features) -> Result<GateMatrix> {
        clamped_gates(self.gate.scores(x)?, self.gate.n_kernels())
    }

    /// Decision values of the final SVM for every row of `x`.
    pub(crate) fn decision(&self, x: &Features) -> Result<Vec<f64>> {
        self.machine.decision(x, &self.gates(x)?)
    }
}

/// Regressor outputs clamped to `[GATE_FLOOR, 1]` (a NaN stays NaN and is rejected).
fn clamped_gates(mut scores: Vec<f64>, m: usize) -> Result<GateMatrix> {
    scores
        .iter_mut()
        .filter(|v| v.is_finite())
        .for_each(|v| *v = v.clamp(GATE_FLOOR, 1.0));
    GateMatrix::per_kernel(m, scores)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::Kernel;
    use crate::localized::ldmkl::tests::{fit_two_regions, two_regions, TWO_KERNELS};
    use crate::localized::{LocalizedMachine, LocalizedMethod, LocalizedModel};
    use crate::predictor::Predictor;
    use crate::svm::{SvmModel, SvmParams};

    /// The final SVM equals LIBSVM-style C-SVC on the Gram matrix of Algorithm 2's kernel
    /// built entry by entry from the kernel functions and the gates (precomputed mode).
    #[test]
    fn final_svm_is_the_svm_on_the_normalised_gated_gram_matrix() {
        let (x, y) = two_regions(150, 5);
        let (xt, _) = two_regions(40, 6);
        let params = LocalizedParams::new(
            LocalizedMethod::Swmkl(GateRegression::default()),
            TWO_KERNELS.parse().unwrap(),
        );
        let model = LocalizedModel::fit(&params, &x, &y).unwrap();
        let LocalizedMachine::Swmkl(sw) = &model.machines.machines[0] else {
            panic!("not SWMKL")
        };
        let kernels = params.family.expand(3).unwrap();
        let factors = &sw.machine.trace_factors;
        let (g, gt) = (sw.gates(&x).unwrap(), sw.gates(&xt).unwrap());
        let entry = |a: &[f64], ga: &[f64], b: &[f64], gb: &[f64]| {
            let z: f64 = ga.iter().zip(gb).map(|(u, v)| u * v).sum();
            (0..kernels.len())
                .map(|i| ga[i] * gb[i] * factors[i] * kernels[i].eval(a, b) / z)
                .sum::<f64>()
        };
        let gram = |q: &Features, gq: &GateMatrix| {
            let v = (0..q.n_rows())
                .flat_map(|r| (0..x.n_rows()).map(move |t| (r, t)))
                .map(|(r, t)| entry(q.row(r), gq.row(r), x.row(t), g.row(t)))
                .collect();
            Features::new(q.n_rows(), x.n_rows(), v).unwrap()
        };
        let svm_params = SvmParams {
            kernel: Kernel::Precomputed,
            ..SvmParams::default()
        };
        let svm = SvmModel::fit(&svm_params, &gram(&x, &g), &y).unwrap();
        let expected = svm.decision_function(&gram(&xt, &gt)).unwrap();
        let got = model.decision_function(&xt).unwrap();
        for (e, v) in expected.iter().zip(&got) {
            assert!((e[0] - v[0]).abs() < 1e-3, "{} vs {}", e[0], v[0]);
        }
        assert_eq!(svm.n_support(), model.n_support());
    }

    /// The gates favour the right kernel in each region and the classifier learns. (Its
    /// accuracy here, about 0.71, is below each single kernel's 0.74: the SVR gates of
    /// correctness are soft, 1 against about 0.5, so the wrong kernel keeps a fifth of
    /// the weight of each pair; LD-MKL's retraining is what removes it.)
    #[test]
    fn swmkl_gates_follow_the_regions() {
        let (model, acc) = fit_two_regions(LocalizedMethod::Swmkl(GateRegression::default()), 500);
        eprintln!("SWMKL {acc}, #SV {}", model.n_support());
        assert!(acc > 0.65, "{acc}");
        let LocalizedMachine::Swmkl(sw) = &model.machines.machines[0] else {
            panic!("not SWMKL")
        };
        let probe = Features::new(2, 3, vec![0.5, 0.5, 0.1, 0.5, 0.5, 0.9]).unwrap();
        let g = sw.gates(&probe).unwrap();
        assert!(
            g.row(0)[0] > g.row(0)[1] && g.row(1)[1] > g.row(1)[0],
            "{g:?}"
        );
    }
}
