//! LD-MKL, localized decision-based MKL (Moeller 2017, section 4.4, Algorithm 7).
//!
//! 1. For every base kernel, a classifier `f_i` on all points and an ε-SVR `g_i` of its
//!    correctness ([`super::per_kernel`]).
//! 2. The gates are the softmax of the regressors' outputs over kernels (line 4), so
//!    `Σ_i g_i(x) = 1`, `g_i ≥ 0`.
//! 3. Each classifier is retrained on the points its gate favours, `g_i(x) > 1/m`
//!    (line 6); points with a uniform gate stay in every set (see `favours`).
//! 4. The gated decision functions (4.1), `f̄_i(x) = Σ_j α_ij y_j g_i(x_j) κ_i(x_j, x) − ρ̄_i`,
//!    are combined by the gated tanh vote (4.2), `f(x) = Σ_i g_i(x) tanh(f̄_i(x))`; the
//!    class is its sign (line 8).
//!
//! No combined kernel is ever formed: every solve is on one base kernel, so memory is
//! the solver's cache. **Bias.** (4.1) is printed without the SVM offset `ρ_i`. Dropping
//! it shifts every vote towards the class with more support weight, and keeping it
//! unscaled lets it dominate the gated sum (the gates shrink every coefficient by about
//! `g ≈ 1/m … 1`: on heart every point then falls in one class). We scale it with the
//! coefficients: `ρ̄_i = ρ_i Σ_j α_ij g_i(x_j) / Σ_j α_ij`, so a constant gate `g` gives
//! exactly `g · f_i` (the SVM's own sign). **Empty regions.** A
//! kernel whose favoured set lacks one class gets a constant classifier voting for the
//! class present (or abstaining when the set is empty).

use super::gate::softmax_rows;
use super::per_kernel::{fit_per_kernel, localized_bank, one_hot, GateRegression, RegressionGate};
use super::LocalizedParams;
use crate::bank::{KernelBank, MachineInfo, MklMachine};
use crate::data::Features;
use crate::Result;
use serde::{Deserialize, Serialize};

/// A fitted binary LD-MKL machine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LdmklMachine {
    /// The regressors whose softmax is the gate.
    pub gate: RegressionGate,
    /// Retrained classifiers `f̄_i`, coefficients already multiplied by `g_i(x_j)` (4.1).
    pub classifiers: Vec<MklMachine>,
    /// Training point (within the pair) of every support vector of the classifiers.
    pub sv_rows: Vec<Vec<usize>>,
    /// Solver iterations over every classifier and regressor.
    pub iterations: usize,
}

impl LdmklMachine {
    /// Algorithm 7 on training points `x` with labels `y ∈ {±1}`.
    pub(crate) fn fit(
        params: &LocalizedParams,
        gate: &GateRegression,
        x: &Features,
        y: &[f64],
    ) -> Result<Self> {
        let bank = localized_bank(params, x, "LD-MKL")?;
        let stage = fit_per_kernel(params, &bank, y, gate)?;
        let m = bank.n_kernels();
        let mut g = stage.scores;
        softmax_rows(&mut g, m)?;
        let mut iterations = stage.iterations;
        let mut classifiers = Vec::with_capacity(m);
        let mut sv_rows = Vec::with_capacity(m);
        for i in 0..m {
            let favoured: Vec<usize> = (0..x.n_rows())
                .filter(|&t| favours(&g[t * m..(t + 1) * m], i))
                .collect();
            let gate_of = |t: usize| g[t * m + i];
            let (machine, rows) = retrain(params, &bank, i, &favoured, y, gate_of)?;
            iterations += machine.info.iterations;
            classifiers.push(machine);
            sv_rows.push(rows);
        }
        Ok(Self {
            gate: stage.gate,
            classifiers,
            sv_rows,
            iterations,
        })
    }

    /// Checks a machine read back for `n_features` features, `n_train` training points
    /// and `m` base kernels: valid gate regressors ([`RegressionGate::validate`]), one
    /// valid classifier ([`MklMachine::validate`]) and one list of training rows (one per
    /// support vector, below `n_train`) per base kernel.
    pub(crate) fn validate(&self, n_features: usize, n_train: usize, m: usize) -> Result<()> {
        use crate::validate::{ensure, indices_below, within};
        within("gate", self.gate.validate(n_features, m))?;
        ensure(self.classifiers.len() == m, || {
            format!(
                "classifiers has {} machines, the family has {m} base kernels",
                self.classifiers.len()
            )
        })?;
        for (i, c) in self.classifiers.iter().enumerate() {
            within(format!("classifiers[{i}]"), c.validate(n_features))?;
        }
        ensure(self.sv_rows.len() == m, || {
            format!(
                "sv_rows has {} lists, the family has {m} base kernels",
                self.sv_rows.len()
            )
        })?;
        for (i, (rows, c)) in self.sv_rows.iter().zip(&self.classifiers).enumerate() {
            ensure(rows.len() == c.n_support(), || {
                format!(
                    "sv_rows[{i}] has {} rows, classifiers[{i}] has {} support vectors",
                    rows.len(),
                    c.n_support()
                )
            })?;
            indices_below(
                format!("sv_rows[{i}]"),
                rows,
                n_train,
                format_args!("the model has {n_train} training points (n_train)"),
            )?;
        }
        Ok(())
    }

    /// Distinct training points that are support vectors of some classifier.
    pub(crate) fn n_support(&self) -> usize {
        let mut all: Vec<usize> = self.sv_rows.concat();
        all.sort_unstable();
        all.dedup();
        all.len()
    }

    /// The gates `g_i(x)` (softmax of the regressors), `n × m`.
    pub(crate) fn gates(&self, x: &Features) -> Result<Vec<f64>> {
        let mut g = self.gate.scores(x)?;
        softmax_rows(&mut g, self.gate.n_kernels())?;
        Ok(g)
    }

    /// The gated vote (4.2) for every row of `x`.
    pub(crate) fn decision(&self, x: &Features) -> Result<Vec<f64>> {
        let m = self.classifiers.len();
        let g = self.gates(x)?;
        let mut f = vec![0.0; x.n_rows()];
        for (i, c) in self.classifiers.iter().enumerate() {
            for (t, v) in c.decision(x)?.into_iter().enumerate() {
                f[t] += g[t * m + i] * v.tanh();
            }
        }
        Ok(f)
    }
}

/// Relative margin above `1/m` that counts as "greater" (softmax of equal scores is
/// `1/m` only up to rounding).
const TIE: f64 = 1e-9;

/// Line 6's rule for one point's gates `g`: kernel `i` keeps the point when
/// `g_i > 1/m`. A point whose gate is uniform (no kernel above `1/m`) favours no kernel
/// over another and stays in every training set: the literal rule would drop it from
/// all of them, and when every kernel is right everywhere (mushroom) the regressors are
/// constant, every gate is uniform and every classifier would be left without points.
fn favours(g: &[f64], i: usize) -> bool {
    let bar = (1.0 + TIE) / g.len() as f64;
    g[i] > bar || g.iter().all(|&v| v <= bar)
}

/// Line 6 and (4.1): classifier `i` retrained on the `favoured` points, its coefficients
/// multiplied by the gate; returns it and its support vectors' training rows.
fn retrain(
    params: &LocalizedParams,
    bank: &KernelBank,
    i: usize,
    favoured: &[usize],
    y: &[f64],
    gate_of: impl Fn(usize) -> f64,
) -> Result<(MklMachine, Vec<usize>)> {
    let m = bank.n_kernels();
    let y_sub: Vec<f64> = favoured.iter().map(|&t| y[t]).collect();
    let x_sub = bank.points().select_rows(favoured);
    let sub = KernelBank::with_factors(&params.family, &x_sub, bank.factors().to_vec())?;
    let has = |c: f64| y_sub.contains(&c);
    if !(has(1.0) && has(-1.0)) {
        // One class (or none) here: vote for it everywhere (f̄_i = ±1), or abstain.
        let vote = if has(1.0) {
            1.0
        } else if has(-1.0) {
            -1.0
        } else {
            0.0
        };
        let machine = MklMachine::new(
            &params.family,
            &sub,
            one_hot(i, m),
            &vec![0.0; favoured.len()],
            -vote,
            MachineInfo::default(),
        );
        return Ok((machine, Vec::new()));
    }
    let source = sub.combined(&one_hot(i, m))?;
    let sol = params
        .solver
        .solve(&source, &y_sub, params.c, &params.smo, None)?;
    let gated: Vec<f64> = sol
        .coef
        .iter()
        .zip(favoured)
        .map(|(c, &t)| c * gate_of(t))
        .collect();
    let alpha_sum: f64 = sol.coef.iter().map(|c| c.abs()).sum();
    let gated_sum: f64 = gated.iter().map(|c| c.abs()).sum();
    let rho = if alpha_sum > 0.0 {
        sol.rho * gated_sum / alpha_sum
    } else {
        sol.rho
    };
    let info = MachineInfo {
        iterations: sol.iterations,
        objective: sol.objective,
        ..MachineInfo::default()
    };
    let machine = MklMachine::new(&params.family, &sub, one_hot(i, m), &gated, rho, info);
    let rows = machine.sv_indices.iter().map(|&s| favoured[s]).collect();
    Ok((machine, rows))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::bank::{KernelFamily, MklMachine};
    use crate::localized::{LocalizedMethod, LocalizedModel, SvmSolver};
    use crate::metrics::accuracy;
    use crate::predictor::Predictor;
    use crate::svm::SolverSettings;

    /// Points `(a, b, r)` on `[0, 1]³`: where `r < 0.5` the class is `a ∈ (¼, ¾)`, elsewhere
    /// `b ∈ (¼, ¾)`. A kernel on `a` alone is right in the first region and blind in
    /// the second, a kernel on `b` the reverse.
    pub(crate) fn two_regions(n: usize, seed: u64) -> (Features, Vec<f64>) {
        let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut v = Vec::with_capacity(3 * n);
        let mut y = Vec::with_capacity(n);
        for _ in 0..n {
            let (a, b, r) = (next(), next(), next());
            let inside = |t: f64| (0.25..0.75).contains(&t);
            let label = if r < 0.5 { inside(a) } else { inside(b) };
            v.extend([a, b, r]);
            y.push(if label { 1.0 } else { -1.0 });
        }
        (Features::new(n, 3, v).unwrap(), y)
    }

    pub(crate) const TWO_KERNELS: &str = "rbf(sigma=0.2)@[0];rbf(sigma=0.2)@[1]";

    /// `method` on [`TWO_KERNELS`] fitted to `n` two-region points (seed 1); the model and
    /// its accuracy on 2,000 fresh points (seed 2).
    pub(crate) fn fit_two_regions(method: LocalizedMethod, n: usize) -> (LocalizedModel, f64) {
        let (x, y) = two_regions(n, 1);
        let (xt, yt) = two_regions(2000, 2);
        let params = LocalizedParams::new(method, TWO_KERNELS.parse().unwrap());
        let model = LocalizedModel::fit(&params, &x, &y).unwrap();
        let acc = accuracy(&model.predict(&xt).unwrap(), &yt).unwrap();
        (model, acc)
    }

    fn single_kernel_accuracy(
        spec: &str,
        x: &Features,
        y: &[f64],
        xt: &Features,
        yt: &[f64],
    ) -> f64 {
        // The SVM (C = 1) on the one kernel, a machine of the floor as UNIFORM fits it.
        let family: KernelFamily = spec.parse().unwrap();
        let bank = KernelBank::new(&family, x).unwrap();
        let m = MklMachine::fit_weighted(
            &family,
            &bank,
            y,
            vec![1.0],
            1.0,
            (&SolverSettings::default(), None),
        )
        .unwrap();
        let predicted: Vec<f64> = (m.decision(xt).unwrap().iter())
            .map(|&f| if f > 0.0 { 1.0 } else { -1.0 })
            .collect();
        accuracy(&predicted, yt).unwrap()
    }

    #[test]
    fn ldmkl_beats_each_single_kernel_on_two_regions() {
        let (x, y) = two_regions(500, 1);
        let (xt, yt) = two_regions(2000, 2);
        let params = LocalizedParams::new(
            LocalizedMethod::Ldmkl(GateRegression::default()),
            TWO_KERNELS.parse().unwrap(),
        );
        let model = LocalizedModel::fit(&params, &x, &y).unwrap();
        let acc = accuracy(&model.predict(&xt).unwrap(), &yt).unwrap();
        let on_a = single_kernel_accuracy("rbf(sigma=0.2)@[0]", &x, &y, &xt, &yt);
        let on_b = single_kernel_accuracy("rbf(sigma=0.2)@[1]", &x, &y, &xt, &yt);
        eprintln!(
            "LD-MKL {acc}, on a {on_a}, on b {on_b}, #SV {}",
            model.n_support()
        );
        assert!(acc > on_a.max(on_b) + 0.05, "{acc} vs {on_a}, {on_b}");
        // The gate prefers the kernel on a where r < 0.5, the one on b elsewhere.
        let LocalizedMachine::Ldmkl(machine) = &model.machines.machines[0] else {
            panic!("not LD-MKL")
        };
        let probe = Features::new(2, 3, vec![0.5, 0.5, 0.1, 0.5, 0.5, 0.9]).unwrap();
        let g = machine.gates(&probe).unwrap();
        assert!(g[0] > g[1] && g[3] > g[2], "{g:?}");
        // Gilbert as the solver also learns the task.
        let mwu = LocalizedParams {
            solver: SvmSolver::Mwu { epsilon: 0.01 },
            ..params
        };
        let model = LocalizedModel::fit(&mwu, &x, &y).unwrap();
        let acc_mwu = accuracy(&model.predict(&xt).unwrap(), &yt).unwrap();
        eprintln!("LD-MKL (mwu) {acc_mwu}");
        assert!(acc_mwu > on_a.max(on_b), "{acc_mwu}");
    }

    use super::super::model::LocalizedMachine;

    /// When every kernel is right on every training point the regressors are constant
    /// and the gate uniform: every classifier keeps all points (the literal `g_i > 1/m`
    /// would leave them all empty and the vote at 0).
    #[test]
    fn uniform_gates_keep_every_point() {
        assert!(favours(&[1.0 / 3.0; 3], 0) && favours(&[0.5, 0.5], 1));
        assert!(favours(&[0.6, 0.4], 0) && !favours(&[0.6, 0.4], 1));
        let v: Vec<f64> = (0..80)
            .flat_map(|t| {
                let c = if t % 2 == 0 { 0.1 } else { 0.9 };
                [c + 0.01 * (t as f64).sin(), c + 0.01 * (t as f64).cos()]
            })
            .collect();
        let x = Features::new(80, 2, v).unwrap();
        let y: Vec<f64> = (0..80)
            .map(|t| if t % 2 == 0 { 1.0 } else { -1.0 })
            .collect();
        let params = LocalizedParams::new(
            LocalizedMethod::Ldmkl(GateRegression::default()),
            "linear@all;rbf(sigma=1)@all".parse().unwrap(),
        );
        let model = LocalizedModel::fit(&params, &x, &y).unwrap();
        assert_eq!(model.predict(&x).unwrap(), y);
        assert!(model.n_support() > 0);
    }

    #[test]
    fn bad_input_is_an_error() {
        let (x, y) = two_regions(60, 3);
        let one = LocalizedParams::new(
            LocalizedMethod::Ldmkl(GateRegression::default()),
            "rbf(sigma=1)@all".parse().unwrap(),
        );
        let e = LocalizedModel::fit(&one, &x, &y).unwrap_err().to_string();
        assert!(e.contains("needs at least two, got 1"), "{e}");
        let params = LocalizedParams::new(
            LocalizedMethod::Ldmkl(GateRegression::default()),
            TWO_KERNELS.parse().unwrap(),
        );
        let mut model = LocalizedModel::fit(&params, &x, &y).unwrap();
        let wide = Features::new(1, 4, vec![0.0; 4]).unwrap();
        let e = model.predict(&wide).unwrap_err().to_string();
        assert!(e.contains("fitted on 3 features"), "{e}");
        let LocalizedMachine::Ldmkl(machine) = &mut model.machines.machines[0] else {
            unreachable!()
        };
        machine.gate.regressors[1].rho[0] = f64::NAN;
        let e = model.predict(&x).unwrap_err().to_string();
        assert!(e.contains("gating score of kernel 2 is not finite"), "{e}");
        let bad_c = LocalizedParams { c: -1.0, ..params };
        assert!(LocalizedModel::fit(&bad_c, &x, &y).is_err());
    }
}
