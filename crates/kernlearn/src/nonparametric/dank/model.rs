//! The fitted DANK model: [`DankParams`], per class pair (one-vs-one, DANK-SVM) or once
//! (DANK-SVR) the SVM start, η = ‖α_SVM‖² and a [`DankProblem`] solve, and the
//! learned-kernel machines on `F⊙K` with the nearest-neighbour extension (DANK paper,
//! section 3.3).

use super::objective::{DankProblem, Dual};
use super::settings::DankSettings;
use super::solve::DankSolution;
use crate::data::Features;
use crate::kernel::{Kernel, PrecomputedKernel};
use crate::multiclass::OneVsOne;
use crate::nonparametric::machine::{learned_machine_on, LearnedKernelMachine};
use crate::predictor::{FitSummary, Predictor, Task};
use crate::svm::{solve_c_svc, solve_epsilon_svr};
use crate::trace::Trace;
use crate::validate::count_sum;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// Hyper-parameters of a DANK model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct DankParams {
    /// Classification (DANK-SVM, one-vs-one) or regression (DANK-SVR).
    pub task: Task,
    /// Base kernel (the papers: Gaussian with σ from SVM-CV).
    pub kernel: Kernel,
    /// Box bound C.
    pub c: f64,
    /// SVR tube width ε (regression only).
    pub epsilon: f64,
    /// Solver settings (τ, η, scheme, step, …).
    pub settings: DankSettings,
}

impl DankParams {
    /// DANK for `task` on `kernel` with box bound `c`, the paper's solver settings
    /// ([`DankSettings::default`]) and LIBSVM's default tube width ε = 0.1 (used by
    /// regression only); set the public fields to change the rest.
    pub fn new(task: Task, kernel: Kernel, c: f64) -> Self {
        Self {
            task,
            kernel,
            c,
            epsilon: 0.1,
            settings: DankSettings::default(),
        }
    }

    /// Checks the parameters for data with `n_features` features: classification or
    /// regression, the kernel ([`Kernel::validate`]), `C > 0`, `ε ≥ 0` for regression,
    /// the solver settings ([`DankSettings::validate`]).
    pub(crate) fn validate(&self, n_features: usize) -> Result<()> {
        if self.task == Task::Novelty {
            return Err(Error::param(
                "task",
                "DANK does classification (dank) or regression (dank-svr)",
            ));
        }
        self.kernel.validate(n_features)?;
        crate::check::positive_finite("C", self.c)?;
        if self.task == Task::Regression {
            crate::check::non_negative_finite("epsilon", self.epsilon)?;
        }
        self.settings.validate()
    }
}

/// What one binary (or regression) fit reported.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DankFitInfo {
    /// η used.
    pub eta: f64,
    /// Iterations.
    pub iterations: usize,
    /// Final `h(α) = H(α, F(α))`.
    pub objective: f64,
    /// Stopped by the tolerance (not the cap).
    pub converged: bool,
    /// Smallest entry of `F`.
    pub f_min: f64,
    /// Largest entry of `F`.
    pub f_max: f64,
    /// Rank of `F`.
    pub rank: usize,
    /// Final `L` of the first-order schemes (under Newton steps, its unused start).
    pub lipschitz: f64,
}

/// The fitted predictors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DankMachines {
    /// One learned-kernel machine per class pair (one pair for binary problems).
    Classifier(OneVsOne<LearnedKernelMachine>),
    /// One learned-kernel regressor.
    Regressor(LearnedKernelMachine),
}

/// A fitted DANK model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DankModel {
    /// Parameters used.
    pub params: DankParams,
    /// Input columns.
    pub n_features: usize,
    /// Predictors.
    pub machines: DankMachines,
    /// One entry per machine (class pair order for classifiers).
    pub info: Vec<DankFitInfo>,
}

/// One machine's fit: predictor, report, trace.
type MachineFit = (LearnedKernelMachine, DankFitInfo, Trace);

impl DankModel {
    /// Fits DANK on `(x, y)`: per class pair (or once for regression) the SVM on `K`
    /// with the same C gives α₀ and η = ‖α_SVM‖² (unless set), then Algorithm 1 / 2.
    pub fn fit(params: &DankParams, x: &Features, y: &[f64]) -> Result<Self> {
        Ok(Self::fit_traced(params, x, y)?.0)
    }

    /// As [`DankModel::fit`], also returning each machine's trace.
    pub fn fit_traced(params: &DankParams, x: &Features, y: &[f64]) -> Result<(Self, Vec<Trace>)> {
        let scale = params.settings.eta_scale;
        let mut path = Self::fit_path_traced(params, &[scale], x, y)?;
        Ok(path.remove(0))
    }

    /// One model per η scale of `scales` (each as [`DankModel::fit`] with
    /// `settings.eta_scale` set to it), sharing per class pair the Gram matrix and the SVM
    /// start and warm-starting each η from the previous one's solution
    /// ([`fit_machine_path`]): the η candidates of a selection on one fold.
    pub(crate) fn fit_path(
        params: &DankParams,
        scales: &[f64],
        x: &Features,
        y: &[f64],
    ) -> Result<Vec<Self>> {
        let path = Self::fit_path_traced(params, scales, x, y)?;
        Ok(path.into_iter().map(|(model, _)| model).collect())
    }

    /// [`DankModel::fit_path`] with each model's machine traces.
    fn fit_path_traced(
        params: &DankParams,
        scales: &[f64],
        x: &Features,
        y: &[f64],
    ) -> Result<Vec<(Self, Vec<Trace>)>> {
        if scales.is_empty() {
            return Err(Error::param(
                "eta_scale",
                "the η path needs at least one value",
            ));
        }
        params.settings.validate()?;
        params.kernel.validate(x.n_cols())?;
        if x.n_rows() != y.len() {
            return Err(Error::data(format!(
                "{} labels for {} rows",
                y.len(),
                x.n_rows()
            )));
        }
        // fits[machine][scale]: one machine per class pair, or the regressor
        let mut fits: Vec<Vec<MachineFit>> = Vec::new();
        let classes = match params.task {
            Task::Classification => {
                let ovo = OneVsOne::fit(x, y, |xp, yp| {
                    let path = fit_machine_path(params, scales, xp, yp)?;
                    let first = path[0].0.clone();
                    fits.push(path);
                    Ok(first)
                })?;
                Some(ovo.classes)
            }
            Task::Regression => {
                fits.push(fit_machine_path(params, scales, x, y)?);
                None
            }
            Task::Novelty => {
                return Err(Error::param(
                    "task",
                    "DANK does classification (dank) or regression (dank-svr)",
                ))
            }
        };
        // by_scale[scale][machine]
        let mut by_scale: Vec<Vec<MachineFit>> = scales.iter().map(|_| Vec::new()).collect();
        for path in fits {
            for (s, fit) in path.into_iter().enumerate() {
                by_scale[s].push(fit);
            }
        }
        Ok((by_scale.into_iter().zip(scales))
            .map(|(fits, &scale)| {
                let (mut machines, mut info, mut traces) = (Vec::new(), Vec::new(), Vec::new());
                for (m, i, t) in fits {
                    machines.push(m);
                    info.push(i);
                    traces.push(t);
                }
                let machines = match &classes {
                    Some(classes) => DankMachines::Classifier(OneVsOne {
                        classes: classes.clone(),
                        machines,
                    }),
                    None => DankMachines::Regressor(machines.remove(0)),
                };
                let mut p = params.clone();
                p.settings.eta_scale = scale;
                let model = Self {
                    params: p,
                    n_features: x.n_cols(),
                    machines,
                    info,
                };
                (model, traces)
            })
            .collect())
    }

    /// Smallest and largest entry of the learned `F` over all machines.
    pub fn f_range(&self) -> (f64, f64) {
        self.info
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), i| {
                (lo.min(i.f_min), hi.max(i.f_max))
            })
    }

    fn check_input(&self, x: &Features) -> Result<()> {
        x.check_input(self.n_features)
    }
}

/// SVM start, η, DANK solve and the learned-kernel machine for one binary / regression
/// problem, for each η scale of `scales` (`η = scale·‖α_SVM‖²`, or the given η): one
/// Gram matrix and one SVM start for all, and each solve after the first started
/// from the previous one's solution (with the SVM start; from zero otherwise). The
/// start moves the answer only within the solver's tolerance: from the SVM and from zero
/// DANK reached the same test accuracy and η on all 120 splits of docs/RESULTS.md, and
/// the paired table did not change with the path.
fn fit_machine_path(
    params: &DankParams,
    scales: &[f64],
    x: &Features,
    y: &[f64],
) -> Result<Vec<MachineFit>> {
    let s = &params.settings;
    let k = params.kernel.gram(x)?;
    let source = PrecomputedKernel::new(k.as_ref())?;
    let (dual, svm_z) = match params.task {
        Task::Regression => {
            let sol = solve_epsilon_svr(&source, y, params.c, params.epsilon, &s.svm_solver, None)?;
            let z = split_coef(&sol.coef);
            (
                Dual::Svr {
                    y,
                    epsilon: params.epsilon,
                },
                z,
            )
        }
        _ => {
            let sol = solve_c_svc(&source, y, params.c, params.c, &s.svm_solver, None)?;
            (Dual::Svm { y }, sol.coef.iter().map(|v| v.abs()).collect())
        }
    };
    let coef_svm_norm2: f64 = svm_z.iter().map(|v| v * v).sum();
    let mut z0 = if s.init_from_svm {
        svm_z
    } else {
        vec![0.0; svm_z.len()]
    };
    let mut fits = Vec::with_capacity(scales.len());
    for &scale in scales {
        let eta = match s.eta {
            Some(e) => e,
            None if coef_svm_norm2 > 0.0 => scale * coef_svm_norm2,
            None => {
                return Err(Error::data(
                    "DANK: the SVM solution is zero, so η = ‖α_SVM‖² = 0; set eta explicitly",
                ))
            }
        };
        let problem = DankProblem {
            k: k.as_ref(),
            dual,
            c: params.c,
            eta,
            tau: s.tau,
        };
        let sol = problem.solve(&z0, s)?;
        if s.init_from_svm {
            z0.clone_from(&sol.z);
        }
        let (machine, info) = learned_machine(&params.kernel, x, eta, &sol)?;
        fits.push((machine, info, sol.trace));
    }
    Ok(fits)
}

/// The predictor on `F⊙K` and the fit report from a solved DANK problem on `x`.
pub(crate) fn learned_machine(
    kernel: &Kernel,
    x: &Features,
    eta: f64,
    sol: &DankSolution,
) -> Result<(LearnedKernelMachine, DankFitInfo)> {
    let f = sol.f.matrix();
    let (mut f_min, mut f_max) = (f64::INFINITY, f64::NEG_INFINITY);
    for j in 0..f.ncols() {
        for i in 0..f.nrows() {
            f_min = f_min.min(f[(i, j)]);
            f_max = f_max.max(f[(i, j)]);
        }
    }
    let machine = LearnedKernelMachine::new(kernel.clone(), x, f.as_ref(), &sol.coef, sol.bias)?;
    let info = DankFitInfo {
        eta,
        iterations: sol.iterations,
        objective: sol.objective,
        converged: sol.converged,
        f_min,
        f_max,
        rank: sol.f.rank(),
        lipschitz: sol.lipschitz,
    };
    Ok((machine, info))
}

impl Predictor for DankModel {
    fn method(&self) -> String {
        match self.params.task {
            Task::Regression => "dank-svr",
            _ => "dank",
        }
        .into()
    }

    fn task(&self) -> Task {
        self.params.task
    }

    fn n_features(&self) -> usize {
        self.n_features
    }

    fn predict(&self, x: &Features) -> Result<Vec<f64>> {
        self.check_input(x)?;
        match &self.machines {
            DankMachines::Classifier(m) => m.predict(x),
            DankMachines::Regressor(m) => m.decision(x),
        }
    }

    fn decision_function(&self, x: &Features) -> Result<Vec<Vec<f64>>> {
        self.check_input(x)?;
        match &self.machines {
            DankMachines::Classifier(m) => m.decision_function(x),
            DankMachines::Regressor(m) => Ok(m.decision(x)?.into_iter().map(|v| vec![v]).collect()),
        }
    }

    fn params_json(&self) -> serde_json::Value {
        serde_json::to_value(&self.params).unwrap_or(serde_json::Value::Null)
    }

    fn classes(&self) -> Vec<f64> {
        match &self.machines {
            DankMachines::Classifier(m) => m.classes.clone(),
            DankMachines::Regressor(_) => Vec::new(),
        }
    }

    /// Valid parameters (`DankParams::validate`), machines of the parameters' task
    /// (one-vs-one classifiers, `OneVsOne::validate`, or one regressor), each valid
    /// (`LearnedKernelMachine::validate`) on `n_features` features, one report per
    /// machine.
    fn validate(&self) -> Result<()> {
        use crate::validate::{ensure, within};
        within("params", self.params.validate(self.n_features))?;
        let d = self.n_features;
        let n_machines = match (&self.machines, self.params.task) {
            (DankMachines::Classifier(ovo), Task::Classification) => {
                within(
                    "machines.classifier",
                    ovo.validate(|m| learned_machine_on(m, d)),
                )?;
                ovo.machines.len()
            }
            (DankMachines::Regressor(m), Task::Regression) => {
                within("machines.regressor", learned_machine_on(m, d))?;
                1
            }
            (machines, task) => {
                let held = match machines {
                    DankMachines::Classifier(_) => "a classifier",
                    DankMachines::Regressor(_) => "a regressor",
                };
                return Err(Error::data(format!(
                    "params.task is {}, but machines holds {held}",
                    task.name()
                )));
            }
        };
        ensure(self.info.len() == n_machines, || {
            format!(
                "info has {} reports, the model has {n_machines} machines",
                self.info.len()
            )
        })
    }

    fn summary(&self) -> FitSummary {
        let machines: Vec<&LearnedKernelMachine> = match &self.machines {
            DankMachines::Classifier(m) => m.machines.iter().collect(),
            DankMachines::Regressor(m) => vec![m],
        };
        let (f_min, f_max) = self.f_range();
        FitSummary {
            n_support: Some(machines.iter().map(|m| m.support.len()).sum()),
            objective: Some(self.info.iter().map(|i| i.objective).sum()),
            iterations: Some(count_sum(self.info.iter().map(|i| i.iterations))),
            extra: serde_json::json!({
                "f_min": f_min,
                "f_max": f_max,
                "learned_matrix": {"symbol": "F", "min": f_min, "max": f_max},
                "machines": self.info,
            }),
        }
    }
}

/// SVR coefficients `c` as `z = [c₊; c₋]`.
fn split_coef(coef: &[f64]) -> Vec<f64> {
    let up = coef.iter().map(|v| v.max(0.0));
    up.chain(coef.iter().map(|v| (-v).max(0.0))).collect()
}

#[cfg(test)]
mod tests {
    use super::super::testing::{blobs, tight};
    use super::super::{DankProblem, Dual, Scheme, StepRule};
    use super::*;
    use crate::nonparametric::testing::largest_gap;
    use crate::svm::{SolverSettings, SvmModel, SvmParams, SvmType};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The η path of a selection fold: its first model is `DankModel::fit` at that η
    /// bit for bit (same start), and the warm-started later ones solve the same problems
    /// as cold fits: same η, the same objective to the solver's tolerance, the same
    /// predictions; three classes (one path per class pair) and the SVR.
    #[test]
    fn an_eta_path_gives_the_models_of_separate_fits() {
        let (x, y) = blobs(60, 3, 17);
        let targets: Vec<f64> = (0..60).map(|i| (i as f64 * 0.37).sin()).collect();
        let scales = [1.0, 0.1, 0.01];
        for (task, y) in [(Task::Classification, &y), (Task::Regression, &targets)] {
            let params = DankParams {
                task,
                kernel: Kernel::rbf_gamma(0.5).unwrap(),
                c: 2.0,
                epsilon: 0.05,
                settings: DankSettings::default(),
            };
            let path = DankModel::fit_path(&params, &scales, &x, y).unwrap();
            assert_eq!(path.len(), 3);
            let empty = DankModel::fit_path(&params, &[], &x, y).err().unwrap();
            assert!(empty.to_string().contains("η path"), "{empty}");
            for (model, &scale) in path.iter().zip(&scales) {
                let mut p = params.clone();
                p.settings.eta_scale = scale;
                let alone = DankModel::fit(&p, &x, y).unwrap();
                assert_eq!(model.params, alone.params);
                if scale == 1.0 {
                    assert_eq!(model, &alone);
                }
                for (a, b) in model.info.iter().zip(&alone.info) {
                    assert_eq!(a.eta, b.eta);
                    let gap = (a.objective - b.objective).abs() / b.objective.abs().max(1.0);
                    assert!(gap < 1e-3, "{task:?} η scale {scale}: {gap}");
                }
                let (pa, pb) = (model.predict(&x).unwrap(), alone.predict(&x).unwrap());
                let agree = pa
                    .iter()
                    .zip(&pb)
                    .filter(|(a, b)| (*a - *b).abs() < 1e-2)
                    .count();
                assert!(agree >= 58, "{task:?} η scale {scale}: {agree} of 60 agree");
            }
        }
    }

    #[test]
    fn very_large_eta_reproduces_the_svm() {
        for scheme in [Scheme::Nesterov, Scheme::Newton] {
            very_large_eta_reproduces_the_svm_with(scheme);
        }
    }

    fn very_large_eta_reproduces_the_svm_with(scheme: Scheme) {
        let (x, y) = blobs(50, 2, 5);
        let kernel = Kernel::rbf_gamma(1.0).unwrap();
        let mut settings = tight(scheme, StepRule::Backtracking);
        settings.eta = Some(1e9);
        settings.tau = 0.0;
        let params = DankParams {
            task: Task::Classification,
            kernel: kernel.clone(),
            c: 2.0,
            epsilon: 0.0,
            settings,
        };
        let dank = DankModel::fit(&params, &x, &y).unwrap();
        let svm_params = SvmParams {
            kernel,
            c: 2.0,
            solver: SolverSettings {
                tol: 1e-8,
                ..SolverSettings::default()
            },
            ..SvmParams::default()
        };
        let svm = SvmModel::fit(&svm_params, &x, &y).unwrap();
        let (xt, _) = blobs(40, 2, 6);
        let d = dank.decision_function(&xt).unwrap();
        let s = svm.decision_function(&xt).unwrap();
        let worst = largest_gap(d.iter().map(|r| r[0]), s.iter().map(|r| r[0]));
        assert!(worst < 1e-3, "largest decision-value gap {worst}");
        let (lo, hi) = dank.f_range();
        assert!(
            (lo - 1.0).abs() < 1e-6 && (hi - 1.0).abs() < 1e-6,
            "F range {lo}..{hi}"
        );
    }

    #[test]
    fn dank_svr_stays_feasible_and_matches_svr_for_large_eta() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let n = 24;
        let xs: Vec<f64> = (0..n).map(|i| i as f64 / n as f64).collect();
        let y: Vec<f64> = xs
            .iter()
            .map(|v| (6.0 * v).sin() + rng.random_range(-0.1..0.1))
            .collect();
        let x = Features::new(n, 1, xs).unwrap();
        let kernel = Kernel::rbf_gamma(10.0).unwrap();
        let k = kernel.gram(&x).unwrap();
        let problem = DankProblem {
            k: k.as_ref(),
            dual: Dual::Svr {
                y: &y,
                epsilon: 0.05,
            },
            c: 1.0,
            eta: 0.2,
            tau: 0.01,
        };
        let sol = problem
            .solve(&vec![0.3; 2 * n], &DankSettings::default())
            .unwrap();
        let balance: f64 = sol.coef.iter().sum();
        assert!(balance.abs() < 1e-12, "1ᵀ(α̂ − α̌) = {balance}");
        assert!(sol.z.iter().all(|&v| (0.0..=1.0).contains(&v)));
        // With η huge the learned F is all ones: DANK-SVR is the ε-SVR.
        let mut settings = tight(Scheme::Nesterov, StepRule::Backtracking);
        settings.eta = Some(1e9);
        settings.tau = 0.0;
        let params = DankParams {
            task: Task::Regression,
            kernel: kernel.clone(),
            c: 1.0,
            epsilon: 0.05,
            settings,
        };
        let dank = DankModel::fit(&params, &x, &y).unwrap();
        let svr = SvmModel::fit(
            &SvmParams {
                svm_type: SvmType::EpsilonSvr,
                kernel,
                c: 1.0,
                epsilon: 0.05,
                solver: SolverSettings {
                    tol: 1e-8,
                    ..SolverSettings::default()
                },
                ..SvmParams::default()
            },
            &x,
            &y,
        )
        .unwrap();
        let a = dank.predict(&x).unwrap();
        let b = svr.predict(&x).unwrap();
        let worst = largest_gap(a, b);
        assert!(worst < 1e-3, "largest prediction gap {worst}");
        assert_eq!(dank.method(), "dank-svr");
    }

    #[test]
    fn multiclass_model_round_trips_and_reports() {
        let (x, y) = blobs(45, 3, 9);
        let params = DankParams {
            task: Task::Classification,
            kernel: Kernel::rbf_gamma(1.0).unwrap(),
            c: 1.0,
            epsilon: 0.0,
            settings: DankSettings::default(),
        };
        let (model, traces) = DankModel::fit_traced(&params, &x, &y).unwrap();
        assert_eq!(traces.len(), 3);
        assert_eq!(model.info.len(), 3);
        let pred = model.predict(&x).unwrap();
        let acc = pred.iter().zip(&y).filter(|(a, b)| a == b).count() as f64 / 45.0;
        assert!(acc > 0.8, "training accuracy {acc}");
        let json = serde_json::to_string(&model).unwrap();
        let back: DankModel = serde_json::from_str(&json).unwrap();
        assert_eq!(back.predict(&x).unwrap(), pred);
        let s = model.summary();
        assert!(s.extra["f_min"].as_f64().unwrap() <= s.extra["f_max"].as_f64().unwrap());
        assert_eq!(model.method(), "dank");
        assert!(model.info.iter().all(|i| i.f_min > 0.5 && i.f_max < 1.5));
    }

    #[test]
    fn bad_input_is_a_clear_error() {
        let (x, y) = blobs(20, 2, 10);
        let mut params = DankParams {
            task: Task::Classification,
            kernel: Kernel::rbf_gamma(1.0).unwrap(),
            c: 1.0,
            epsilon: 0.0,
            settings: DankSettings::default(),
        };
        params.settings.tau = -0.1;
        let e = DankModel::fit(&params, &x, &y).unwrap_err().to_string();
        assert!(e.contains("tau"), "{e}");
        params.settings.tau = 0.01;
        for eta in [0.0, -1.0, f64::NAN] {
            params.settings.eta = Some(eta);
            let e = DankModel::fit(&params, &x, &y).unwrap_err().to_string();
            assert!(e.contains("eta"), "{e}");
        }
        params.settings.eta = None;
        for kkt in [-1e-3, f64::INFINITY] {
            params.settings.kkt_tol = kkt;
            let e = DankModel::fit(&params, &x, &y).unwrap_err().to_string();
            assert!(e.contains("kkt_tol") && e.contains(">= 0"), "{e}");
        }
        params.settings.kkt_tol = 1e-3;
        params.c = 0.0;
        assert!(DankModel::fit(&params, &x, &y).is_err());
        params.c = 1.0;
        let model = DankModel::fit(&params, &x, &y).unwrap();
        let nan = Features::new(1, 2, vec![f64::NAN, 0.0]).unwrap();
        assert!(model.predict(&nan).is_err());
        let wrong = Features::new(1, 3, vec![0.0; 3]).unwrap();
        assert!(model
            .predict(&wrong)
            .unwrap_err()
            .to_string()
            .contains("features"));
        assert!(DankModel::fit(&params, &x, &y[..5]).is_err());
    }
}
