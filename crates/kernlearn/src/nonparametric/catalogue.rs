//! What the nonparametric family offers: KNPL, DANK, DANK-SVR and scalable DANK, and
//! the options they read (KNPL paper section 4; DANK paper sections 3–5).

use super::dank::{Scheme, StepRule};
use super::{DankModel, KnplModel, ScalableDankModel};
use crate::learner::options::{C, EPSILON, KERNEL_MACHINE, NO_FALLBACK};
use crate::learner::{Family, MethodInfo, Model, ModelKind, Takes};
use crate::options::{choice, OptionSpec, OptionValue};
use crate::predictor::Task;
use crate::{Error, Result};
use std::str::FromStr;

pub(crate) use crate::learner::options::CLUSTERS;

/// Scalable DANK's method name (the distributed fit of the Python package's Ray layer
/// builds its parameters under it).
pub const SCALABLE_DANK: &str = "dank-scalable";

/// Command-line names of the DANK schemes.
const SCHEME_NAMES: [&str; 4] = ["newton", "nesterov", "monotone", "plain"];
/// Command-line names of the DANK step rules.
const STEP_NAMES: [&str; 2] = ["backtracking", "paper"];
/// Command-line names of DANK's starts: the SVM solution (the papers) or zero.
const START_NAMES: [&str; 2] = ["svm", "zero"];

/// `--knpl-gamma`.
pub(crate) static KNPL_GAMMA: OptionSpec = OptionSpec::new("knpl-gamma", OptionValue::Number, "KNPL: regulariser γ of γ‖G‖²_F (default without --select: the reference γ₀ at which Γ(α_SVM) and 11ᵀ have equal norm; with --select grid: chosen by CV)");
/// `--tau`.
pub(crate) static TAU: OptionSpec = OptionSpec::new(
    "tau",
    OptionValue::Number,
    "DANK: nuclear-norm weight τ (default 0.01, the paper's; dank-scalable uses τ = 0)",
);
/// `--eta`.
pub(crate) static ETA: OptionSpec = OptionSpec::new(
    "eta",
    OptionValue::Number,
    "DANK: η of η‖F − 11ᵀ‖²_F (default: ‖α‖² of the SVM, the paper's rule)",
);
/// `--dank-scheme`.
pub(crate) static DANK_SCHEME: OptionSpec = OptionSpec::new("dank-scheme", OptionValue::Choice(&SCHEME_NAMES), "DANK: solver, newton (default: Newton steps by SMO with a line search, stops at KKT violation ≤ 1e-3) or the paper's first-order updates: nesterov (Algorithm 1), monotone (its monotone variant), plain (projected gradient)").python("scheme");
/// `--dank-step`.
pub(crate) static DANK_STEP: OptionSpec = OptionSpec::new("dank-step", OptionValue::Choice(&STEP_NAMES), "DANK first-order schemes: step rule, backtracking (adaptive L; default) or paper (the paper's Lipschitz bound)").python("step");
/// `--dank-start`.
pub(crate) static DANK_START: OptionSpec = OptionSpec::new("dank-start", OptionValue::Choice(&START_NAMES), "DANK: where the solver starts, svm (the SVM solution on the base kernel, as the papers; default) or zero (α = 0); η = scale·‖α_SVM‖² either way").python("start");
/// `--knpl-alternate`.
pub(crate) static KNPL_ALTERNATE: OptionSpec = OptionSpec::new("knpl-alternate", OptionValue::Flag, "KNPL: Algorithm 2 as published (T alternations of SMO and ADMM, which can 2-cycle for small γ) instead of the default monotone ascent on the saddle objective φ(α) = min_G H(α, G) (SMO direction, backtracking line search on φ; stops when a round gains less than 1e-3 relatively, or after 10 rounds)");

impl FromStr for Scheme {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let values = [
            Scheme::Newton,
            Scheme::Nesterov,
            Scheme::NesterovMonotone,
            Scheme::ProjectedGradient,
        ];
        choice("dank-scheme", s, &SCHEME_NAMES, &values)
    }
}

impl FromStr for StepRule {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let values = [StepRule::Backtracking, StepRule::PaperLipschitz];
        choice("dank-step", s, &STEP_NAMES, &values)
    }
}

/// Options of DANK and DANK-SVR beyond the kernel machine's.
static DANK_OPTIONS: &[&OptionSpec] = &[
    &C,
    &TAU,
    &ETA,
    &DANK_SCHEME,
    &DANK_STEP,
    &DANK_START,
    &NO_FALLBACK,
];

const CLASSIFY: &[Task] = &[Task::Classification];

/// The nonparametric family.
pub(crate) static FAMILY: Family = Family {
    name: "nonparametric",
    methods: &[
        MethodInfo {
            name: "knpl",
            tasks: CLASSIFY,
            summary: "KNPL: learned G ⊙ K by alternating SMO and ADMM (AAAI 2018)",
            selection: "σ, C by SVM-CV, then the regulariser γ by k-fold CV; the SVM-CV model unless that beats it",
            options: &[KERNEL_MACHINE, &[&C, &KNPL_GAMMA, &NO_FALLBACK, &KNPL_ALTERNATE]],
            in_demo: true,
            representations: &[],
            takes: Takes::DENSE,
            build: super::learner::build,
        },
        MethodInfo {
            name: "dank",
            tasks: CLASSIFY,
            summary: "DANK-SVM: learned F ⊙ K with a nuclear-norm penalty",
            selection: "σ, C by SVM-CV, then η ∈ {1, 0.1, 0.01}·‖α_SVM‖² by k-fold CV (τ as given); the SVM-CV model unless that beats it",
            options: &[KERNEL_MACHINE, DANK_OPTIONS],
            in_demo: true,
            representations: &[],
            takes: Takes::DENSE,
            build: super::learner::build,
        },
        MethodInfo {
            name: "dank-svr",
            tasks: &[Task::Regression],
            summary: "DANK-SVR: learned F ⊙ K for ε-SVR",
            selection: "σ, C, ε by SVR-CV, then η ∈ {1, 0.1, 0.01}·‖α_SVR‖² by k-fold CV (τ as given); the SVR-CV model unless that beats it",
            options: &[KERNEL_MACHINE, DANK_OPTIONS, &[&EPSILON]],
            in_demo: true,
            representations: &[],
            takes: Takes::DENSE,
            build: super::learner::build,
        },
        MethodInfo {
            name: SCALABLE_DANK,
            tasks: CLASSIFY,
            summary: "scalable DANK: k-means clusters, one τ = 0 DANK machine each (binary)",
            selection: "σ, C by SVM-CV",
            options: &[
                KERNEL_MACHINE,
                &[&C, &ETA, &DANK_SCHEME, &DANK_STEP, &DANK_START, &CLUSTERS],
            ],
            in_demo: false,
            representations: &[],
            takes: Takes::DENSE,
            build: super::learner::build,
        },
    ],
    models: &[
        ModelKind::of::<KnplModel>(),
        ModelKind::of::<DankModel>(),
        ModelKind::of::<ScalableDankModel>(),
    ],
    scale_out: &[&super::scale_out::SCALE_OUT],
};

impl Model for KnplModel {
    const KIND: &'static str = "knpl";
}

impl Model for DankModel {
    const KIND: &'static str = "dank";
}

impl Model for ScalableDankModel {
    const KIND: &'static str = "dank_scalable";
}
