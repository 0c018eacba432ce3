//! LMKL, localized multiple kernel learning (Gönen and Alpaydın 2008; Moeller 2017,
//! Algorithm 1 and section 4.3.2.1).
//!
//! The gate is separable and softmax-linear, `η(x) = softmax(xᵀV + v0)` (`V` is `d × m`),
//! and the kernel is `κ_η(x, x') = Σ_i η_i(x) K̄_i(x, x') η_i(x')`. Training alternates
//! (Algorithm 1):
//!
//! 1. solve the SVM on `κ_η` (warm-started from the previous `α` under SMO);
//! 2. take a gradient step on `(V, v0)` that lowers the SVM's optimal dual value
//!    `J(V) = max_α Σα − ½ Σ_jk α_j α_k y_j y_k κ_η(x_j, x_k)` (the primal optimum, which
//!    LMKL minimises over the gate).
//!
//! **Gradient** (Danskin: `α` held at the optimum). With `β = yα` (the SVM's
//! coefficients), `u_i = K̄_i (β ⊙ η_i)` and `ū = Σ_i η_i u_i`,
//! `∂J/∂s_h(x_j) = −β_j η_h(x_j) (u_h(x_j) − ū(x_j))` for the scores `s = xᵀV + v0`, so
//! `∂J/∂V_fh = −Σ_j x_jf a_hj`, `∂J/∂v0_h = −Σ_j a_hj` with `a_hj = β_j η_h(x_j)(u_h(x_j) − ū(x_j))`;
//! only support vectors (`β_j ≠ 0`) contribute. Under the Gilbert solver `J` is the
//! 2-norm soft-margin value `½ βᵀ(K + I/C)β` on the SVM scale, with the same gradient.
//!
//! **Step and stopping rule.** Gönen and Alpaydın use gradient descent with a step
//! size; here the step moves `(V, v0)` a length `step` along the normalised negative
//! gradient, is halved when `J` does not decrease (the step is then rejected) and grown
//! by 1.25 after a success. Training stops when an accepted step lowers `J` by less than
//! `tol · J`, when the step falls below `1e-6`, or after `iterations` SVM solves.

use super::gate::{products_on, softmax_rows, GateKind, GateMatrix, GatedKernel, GatedMachine};
use super::per_kernel::localized_bank_weighted;
use super::LocalizedParams;
use crate::bank::KernelBank;
use crate::check::{non_negative_finite, positive_finite};
use crate::data::Features;
use crate::svm::DualSolution;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// Settings of the alternating optimisation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LmklSettings {
    /// Largest number of SVM solves (the first included); 1 keeps the uniform gate.
    pub iterations: usize,
    /// Initial step length in `(V, v0)` space.
    pub step: f64,
    /// Relative decrease of `J` below which an accepted step ends the training.
    pub tol: f64,
}

impl Default for LmklSettings {
    /// 50 solves, step 1, `tol = 1e-3`.
    fn default() -> Self {
        Self {
            iterations: 50,
            step: 1.0,
            tol: 1e-3,
        }
    }
}

impl LmklSettings {
    /// Checks `iterations ≥ 1`, `step > 0`, `tol ≥ 0`.
    pub(crate) fn validate(&self) -> Result<()> {
        if self.iterations == 0 {
            return Err(Error::param(
                "iterations",
                "LMKL needs at least one SVM solve",
            ));
        }
        positive_finite("step", self.step)?;
        non_negative_finite("tol", self.tol)?;
        Ok(())
    }
}

/// The softmax-linear gate `η(x) = softmax(xᵀV + v0)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SoftmaxGate {
    /// Number of input features `d`.
    pub n_features: usize,
    /// Number of base kernels `m`.
    pub n_kernels: usize,
    /// `V`, row-major `d × m`.
    pub v: Vec<f64>,
    /// `v0`, one offset per kernel.
    pub v0: Vec<f64>,
}

impl SoftmaxGate {
    /// `V = 0`, `v0 = 0`: every kernel gets `1/m` everywhere.
    pub(crate) fn uniform(n_features: usize, n_kernels: usize) -> Self {
        Self {
            n_features,
            n_kernels,
            v: vec![0.0; n_features * n_kernels],
            v0: vec![0.0; n_kernels],
        }
    }

    /// Checks a gate read back for `n_features` features and `m` base kernels: those
    /// dimensions, `V` of `n_features × m` and `v0` of `m` finite values.
    pub(crate) fn validate(&self, n_features: usize, m: usize) -> Result<()> {
        use crate::validate::{ensure, finite};
        ensure(self.n_features == n_features, || {
            format!(
                "n_features is {}, the model has {n_features} features",
                self.n_features
            )
        })?;
        ensure(self.n_kernels == m, || {
            format!(
                "n_kernels is {}, the family has {m} base kernels",
                self.n_kernels
            )
        })?;
        let want = n_features.checked_mul(m);
        ensure(want == Some(self.v.len()), || {
            format!(
                "v has {} values, n_features × n_kernels = {n_features} × {m} need {}",
                self.v.len(),
                want.map_or("more".to_string(), |w| w.to_string())
            )
        })?;
        finite("v", &self.v)?;
        ensure(self.v0.len() == m, || {
            format!(
                "v0 has {} values, the family has {m} base kernels",
                self.v0.len()
            )
        })?;
        finite("v0", &self.v0)
    }

    /// `η(x)` for every row of `x`; fails when `x` does not have the gate's `d` columns
    /// or a score is not finite.
    pub(crate) fn gates(&self, x: &Features) -> Result<GateMatrix> {
        if x.n_cols() != self.n_features {
            return Err(Error::data(format!(
                "gating dimension mismatch: the gate reads {} features, the data has {}",
                self.n_features,
                x.n_cols()
            )));
        }
        let m = self.n_kernels;
        let mut s = Vec::with_capacity(x.n_rows() * m);
        for row in x.rows() {
            s.extend((0..m).map(|h| {
                self.v0[h]
                    + row
                        .iter()
                        .enumerate()
                        .map(|(f, xf)| xf * self.v[f * m + h])
                        .sum::<f64>()
            }));
        }
        softmax_rows(&mut s, m)?;
        GateMatrix::per_kernel(m, s)
    }

    /// This gate moved by `−step` along `(gv, gv0)`.
    fn stepped(&self, gv: &[f64], gv0: &[f64], step: f64) -> Self {
        let mut next = self.clone();
        next.v.iter_mut().zip(gv).for_each(|(v, g)| *v -= step * g);
        next.v0
            .iter_mut()
            .zip(gv0)
            .for_each(|(v, g)| *v -= step * g);
        next
    }
}

/// `∂J/∂V` (row-major `d × m`) and `∂J/∂v0` at the SVM solution `coef` (see the module
/// docs), for training points `bank` with gates `eta`.
pub(super) fn gradient(bank: &KernelBank, eta: &GateMatrix, coef: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let (m, d) = (eta.n_gates(), bank.points().n_cols());
    let sv: Vec<usize> = (0..coef.len()).filter(|&t| coef[t] != 0.0).collect();
    let weights: Vec<f64> = sv
        .iter()
        .flat_map(|&t| eta.row(t).iter().map(move |e| e * coef[t]))
        .collect();
    let w = GateMatrix {
        kernel_of: eta.kernel_of.clone(),
        values: weights,
    };
    let u = products_on(bank, &sv, &w);
    let (mut gv, mut gv0) = (vec![0.0; d * m], vec![0.0; m]);
    for (s, &t) in sv.iter().enumerate() {
        let e = eta.row(t);
        let us = &u[s * m..(s + 1) * m];
        let ubar: f64 = e.iter().zip(us).map(|(a, b)| a * b).sum();
        for h in 0..m {
            let a = coef[t] * e[h] * (us[h] - ubar);
            gv0[h] -= a;
            for (f, xf) in bank.points().row(t).iter().enumerate() {
                gv[f * m + h] -= xf * a;
            }
        }
    }
    (gv, gv0)
}

/// A fitted binary LMKL machine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LmklMachine {
    /// The learned gate.
    pub gate: SoftmaxGate,
    /// The SVM on the gated kernel.
    pub machine: GatedMachine,
    /// `J` after every accepted step (the first is the uniform gate's).
    pub objectives: Vec<f64>,
    /// SVM solver iterations summed over all solves.
    pub iterations: usize,
}

/// One SVM solve on the gate's kernel (with per-sample weights when given: point `t`'s
/// box `C·w_t`); returns the solution, the gates and `J`.
fn solve_at(
    params: &LocalizedParams,
    bank: &KernelBank,
    gate: &SoftmaxGate,
    yw: (&[f64], Option<&[f64]>),
    warm: Option<&[f64]>,
) -> Result<(DualSolution, GateMatrix, f64)> {
    let eta = gate.gates(bank.points())?;
    let source = GatedKernel::new(bank, &eta, GateKind::Separable)?;
    let sol = (params.solver).solve_weighted(&source, yw, params.c, &params.smo, warm)?;
    let j = -sol.objective;
    Ok((sol, eta, j))
}

impl LmklMachine {
    /// Algorithm 1 on training points `x` with labels `y ∈ {±1}`, with per-sample
    /// weights `w` (positive, one per point) when given.
    ///
    /// Weighted, `J(V)` is the optimal value of the weighted C-SVC's dual (point `t`'s
    /// box `0 ≤ α_t ≤ C·w_t`), and the gradient of the module docs holds unchanged
    /// (Danskin: the box moves `α*`, not the formula), so a point of integer weight `k`
    /// counts as `k` copies of it; the base kernels are normalised on the weighted
    /// rows (weighted mean diagonal 1).
    pub(crate) fn fit(
        params: &LocalizedParams,
        settings: &LmklSettings,
        x: &Features,
        (y, w): (&[f64], Option<&[f64]>),
    ) -> Result<Self> {
        let bank = localized_bank_weighted(params, (x, w), "LMKL")?;
        let bank = bank.with_own_table(&params.family)?;
        let mut gate = SoftmaxGate::uniform(x.n_cols(), bank.n_kernels());
        let (mut sol, mut eta, mut j) = solve_at(params, &bank, &gate, (y, w), None)?;
        let mut iterations = sol.iterations;
        let mut objectives = vec![j];
        let mut step = settings.step;
        for _ in 1..settings.iterations {
            let (gv, gv0) = gradient(&bank, &eta, &sol.coef);
            let norm = gv.iter().chain(&gv0).map(|g| g * g).sum::<f64>().sqrt();
            if norm == 0.0 || step < 1e-6 {
                break;
            }
            let trial = gate.stepped(&gv, &gv0, step / norm);
            let (s2, e2, j2) = solve_at(params, &bank, &trial, (y, w), Some(&sol.coef))?;
            iterations += s2.iterations;
            if j2 >= j {
                step *= 0.5;
                continue;
            }
            let converged = j - j2 < settings.tol * j.abs();
            (gate, sol, eta, j) = (trial, s2, e2, j2);
            objectives.push(j);
            step *= 1.25;
            if converged {
                break;
            }
        }
        let machine = GatedMachine::new(
            &params.family,
            &bank,
            &eta,
            GateKind::Separable,
            &sol.coef,
            sol.rho,
        );
        Ok(Self {
            gate,
            machine,
            objectives,
            iterations,
        })
    }

    /// Checks a machine read back for `n_features` features, `n_train` training points
    /// and `m` base kernels: a valid gate ([`SoftmaxGate::validate`]) and an SVM on
    /// separable gates, one per base kernel ([`GatedMachine::validate`]).
    pub(crate) fn validate(&self, n_features: usize, n_train: usize, m: usize) -> Result<()> {
        use crate::validate::within;
        within("gate", self.gate.validate(n_features, m))?;
        let kernel_of: Vec<usize> = (0..m).collect();
        within(
            "machine",
            self.machine
                .validate(n_features, n_train, GateKind::Separable, &kernel_of),
        )
    }

    /// Support vectors of the final SVM.
    pub(crate) fn n_support(&self) -> usize {
        self.machine.n_support()
    }

    /// Decision values for every row of `x`.
    pub(crate) fn decision(&self, x: &Features) -> Result<Vec<f64>> {
        self.machine.decision(x, &self.gate.gates(x)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bank::{KernelFamily, MklMachine};
    use crate::localized::ldmkl::tests::{two_regions, TWO_KERNELS};
    use crate::localized::{LocalizedMachine, LocalizedMethod, LocalizedModel};
    use crate::metrics::accuracy;
    use crate::predictor::Predictor;
    use crate::svm::SolverSettings;

    fn lmkl(settings: LmklSettings, c: f64) -> LocalizedParams {
        LocalizedParams {
            c,
            ..LocalizedParams::new(
                LocalizedMethod::Lmkl(settings),
                TWO_KERNELS.parse().unwrap(),
            )
        }
    }

    /// With the gate held uniform (one solve), `κ_η = (1/m²) Σ K̄_i = (1/m) K_UNIFORM`,
    /// and the SVM with `C` on `K/m` has UNIFORM's decision function with `C/m`.
    #[test]
    fn constant_gate_is_the_svm_on_the_average_kernel() {
        let (x, y) = two_regions(200, 3);
        let (xt, _) = two_regions(50, 4);
        let settings = LmklSettings {
            iterations: 1,
            ..LmklSettings::default()
        };
        let model = LocalizedModel::fit(&lmkl(settings, 2.0), &x, &y).unwrap();
        // UNIFORM's machine (C = 1 on the average kernel), fitted on the floor with the
        // model's first class as +1, as one-vs-one trains its pair.
        let family: KernelFamily = TWO_KERNELS.parse().unwrap();
        let bank = KernelBank::new(&family, &x).unwrap();
        let first = model.classes()[0];
        let pair: Vec<f64> = y
            .iter()
            .map(|&v| if v == first { 1.0 } else { -1.0 })
            .collect();
        let settings = SolverSettings::default();
        let u = MklMachine::fit_weighted(
            &family,
            &bank,
            &pair,
            vec![0.5, 0.5],
            1.0,
            (&settings, None),
        )
        .unwrap();
        let (a, b) = (
            model.decision_function(&xt).unwrap(),
            u.decision(&xt).unwrap(),
        );
        for (p, q) in a.iter().zip(&b) {
            assert!((p[0] - q).abs() < 2e-3, "{} vs {q}", p[0]);
        }
        assert_eq!(model.n_support(), u.n_support());
    }

    /// The analytic gradient equals finite differences of `βᵀ K_η(V) β` built entry by
    /// entry from the kernel functions (`J = Σα − ½ βᵀKβ`, `α` fixed).
    #[test]
    fn gradient_matches_finite_differences() {
        let (x, _) = two_regions(40, 8);
        let family: crate::bank::KernelFamily =
            "rbf(sigma=0.5)@all;poly(degree=2,gamma=1,coef0=1)@all;linear@[1]"
                .parse()
                .unwrap();
        let bank = KernelBank::new(&family, &x).unwrap();
        let kernels = family.expand(3).unwrap();
        let coef: Vec<f64> = (0..40)
            .map(|t| if t % 3 == 0 { 0.0 } else { (t as f64).sin() })
            .collect();
        let mut gate = SoftmaxGate::uniform(3, 3);
        gate.v
            .iter_mut()
            .enumerate()
            .for_each(|(k, v)| *v = 0.3 * (k as f64).cos());
        gate.v0 = vec![0.1, -0.2, 0.05];
        let j_of = |g: &SoftmaxGate| {
            let eta = g.gates(&x).unwrap();
            let mut q = 0.0;
            for a in 0..40 {
                for b in 0..40 {
                    for i in 0..3 {
                        q += coef[a]
                            * coef[b]
                            * eta.row(a)[i]
                            * eta.row(b)[i]
                            * bank.factors()[i]
                            * kernels[i].eval(x.row(a), x.row(b));
                    }
                }
            }
            -0.5 * q
        };
        let (gv, gv0) = gradient(&bank, &gate.gates(&x).unwrap(), &coef);
        let h = 1e-6;
        for k in 0..9 {
            let (mut plus, mut minus) = (gate.clone(), gate.clone());
            plus.v[k] += h;
            minus.v[k] -= h;
            let fd = (j_of(&plus) - j_of(&minus)) / (2.0 * h);
            assert!(
                (fd - gv[k]).abs() < 1e-5 * fd.abs().max(1.0),
                "V[{k}]: {fd} vs {}",
                gv[k]
            );
        }
        for k in 0..3 {
            let (mut plus, mut minus) = (gate.clone(), gate.clone());
            plus.v0[k] += h;
            minus.v0[k] -= h;
            let fd = (j_of(&plus) - j_of(&minus)) / (2.0 * h);
            assert!(
                (fd - gv0[k]).abs() < 1e-5 * fd.abs().max(1.0),
                "v0[{k}]: {fd} vs {}",
                gv0[k]
            );
        }
    }

    #[test]
    fn lmkl_lowers_j_and_learns_two_regions() {
        let (x, y) = two_regions(400, 1);
        let (xt, yt) = two_regions(2000, 2);
        let model = LocalizedModel::fit(&lmkl(LmklSettings::default(), 1.0), &x, &y).unwrap();
        let LocalizedMachine::Lmkl(machine) = &model.machines.machines[0] else {
            panic!("not LMKL")
        };
        let j = &machine.objectives;
        assert!(j.len() > 1 && j.windows(2).all(|w| w[1] < w[0]), "{j:?}");
        let acc = accuracy(&model.predict(&xt).unwrap(), &yt).unwrap();
        eprintln!("LMKL {acc}, #SV {}, J {j:?}", model.n_support());
        assert!(acc > 0.78, "{acc}");
        let e = machine
            .gate
            .gates(&Features::new(1, 2, vec![0.0; 2]).unwrap())
            .unwrap_err();
        assert!(e.to_string().contains("gating dimension mismatch"), "{e}");
    }
}
