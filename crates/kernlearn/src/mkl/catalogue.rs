//! What the multiple-kernel family offers: UNIFORM, MWUMKL, EasyMKL, SPG-GMKL and
//! LIBLINEAR+ on a kernel family (Moeller 2017, chapter 3), and the options they read.

use super::spggmkl::REGULARISER_NAMES;
use super::{MklModel, NystromLinearModel};
use crate::bank::{KERNELS, LANDMARKS};
use crate::learner::options::{C, NO_FALLBACK, SMO, TOL};
use crate::learner::{Family, MethodInfo, Model, ModelKind, Takes};
use crate::options::{OptionSpec, OptionValue};
use crate::predictor::Task;

/// `--mwu-epsilon`.
pub(crate) static MWU_EPSILON: OptionSpec = OptionSpec::new(
    "mwu-epsilon",
    OptionValue::Number,
    "MWUMKL: approximation error ε > 0 (default 0.005, the thesis's section 5.4.1.2; rounds ∝ 1/ε, and the weights move off uniform only after many rounds)",
);
/// `--mwu-dense`.
pub(crate) static MWU_DENSE: OptionSpec = OptionSpec::new(
    "mwu-dense",
    OptionValue::Flag,
    "MWUMKL: play the thesis's one game on every kernel; default sparse MWUMKL, the game played again on the kernels it weighted at least evenly until a game drops none, keeping the game of largest value",
)
.negated_python("mwu_prune");
/// `--lambda`.
pub(crate) static LAMBDA: OptionSpec = OptionSpec::new(
    "lambda",
    OptionValue::Number,
    "EasyMKL: trade-off λ ∈ (0, 1] (default 0.1; chosen by CV with --select grid)",
)
.python("easymkl_lambda");
/// `--gmkl-reg`.
pub(crate) static GMKL_REG: OptionSpec = OptionSpec::new("gmkl-reg", OptionValue::Choice(&REGULARISER_NAMES), "spg-gmkl: regulariser of the kernel weights d, l1 (d on the simplex Σd = 1, sparse; default) or pnorm (r(d) = (λ/p) Σ d^p on d ≥ 0, dense)");
/// `--gmkl-p`.
pub(crate) static GMKL_P: OptionSpec = OptionSpec::new(
    "gmkl-p",
    OptionValue::Number,
    "spg-gmkl with --gmkl-reg pnorm: the exponent p > 1 (default 2)",
);
/// `--gmkl-lambda`.
pub(crate) static GMKL_LAMBDA: OptionSpec = OptionSpec::new(
    "gmkl-lambda",
    OptionValue::Number,
    "spg-gmkl with --gmkl-reg pnorm: the weight λ > 0 of (λ/p) Σ d^p (default 1)",
);
/// UNIFORM, MWUMKL and SPG-GMKL with `--select grid`.
const MKL_SELECTION: &str = "C by SVM-CV, then UNIFORM or the method by k-fold CV; the SVM-CV model unless that beats it (--no-fallback: C by k-fold CV over the grid's Cs)";
const CLASSIFY: &[Task] = &[Task::Classification];

/// The multiple-kernel family.
pub(crate) static FAMILY: Family = Family {
    name: "multiple kernel learning",
    methods: &[
        MethodInfo {
            name: "uniform",
            tasks: CLASSIFY,
            summary: "UNIFORM: SVM on the average of the base kernels (--kernels)",
            selection: MKL_SELECTION,
            options: &[&[&KERNELS, &C], SMO, &[&NO_FALLBACK]],
            in_demo: true,
            representations: &[],
            takes: Takes::WEIGHTS,
            build: super::learner::build,
        },
        MethodInfo {
            name: "mwumkl",
            tasks: CLASSIFY,
            summary: "MWUMKL: multiplicative-weight-update MKL (Moeller 2017, ch. 3)",
            selection: MKL_SELECTION,
            options: &[&[&KERNELS, &C, &MWU_EPSILON, &MWU_DENSE, &NO_FALLBACK]],
            in_demo: true,
            representations: &[],
            takes: Takes::DENSE,
            build: super::learner::build,
        },
        MethodInfo {
            name: "easymkl",
            tasks: CLASSIFY,
            summary: "EasyMKL (Aiolli and Donini 2015), the thesis's baseline",
            selection: "λ by k-fold CV over {0.1, 0.2, …, 1}, UNIFORM at SVM-CV's C a candidate too; the SVM-CV model unless that beats it",
            options: &[&[&KERNELS, &LAMBDA, &NO_FALLBACK]],
            in_demo: false,
            representations: &[],
            takes: Takes::DENSE,
            build: super::learner::build,
        },
        MethodInfo {
            name: "spg-gmkl",
            tasks: CLASSIFY,
            summary: "SPG-GMKL: spectral projected gradient on the kernel weights around SMO (Jain et al. 2012; the thesis's Table 5.4)",
            selection: MKL_SELECTION,
            options: &[&[&KERNELS, &C, &TOL, &GMKL_REG, &GMKL_P, &GMKL_LAMBDA, &NO_FALLBACK]],
            in_demo: false,
            representations: &[],
            takes: Takes::WEIGHTS,
            build: super::learner::build,
        },
        MethodInfo {
            name: "nystrom-linear",
            tasks: CLASSIFY,
            summary: "LIBLINEAR+: Nyström features of every base kernel and a linear SVM",
            selection: "C by k-fold CV over the grid's Cs",
            options: &[&[&KERNELS, &C, &LANDMARKS]],
            in_demo: false,
            representations: &[],
            takes: Takes::DENSE,
            build: super::learner::build,
        },
    ],
    models: &[
        ModelKind::of::<MklModel>(),
        ModelKind::of::<NystromLinearModel>(),
    ],
    scale_out: &[&super::scale_out::SCALE_OUT],
};

impl Model for MklModel {
    const KIND: &'static str = "mkl";
}

impl Model for NystromLinearModel {
    const KIND: &'static str = "nystrom_linear";
}
