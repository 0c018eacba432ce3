//! What the localized family offers: LD-MKL, SWMKL, LMKL and C-LMKL on a kernel family
//! (Moeller 2017, chapter 4), and the options they read.

use super::LocalizedModel;
use crate::bank::KERNELS;
use crate::learner::options::{C, CLUSTERS, NO_FALLBACK, SMO};
use crate::learner::{Family, MethodInfo, Model, ModelKind, Takes};
use crate::options::{OptionSpec, OptionValue};
use crate::predictor::Task;

/// Command-line names of the classifiers' solvers.
const SOLVER_NAMES: [&str; 2] = ["smo", "mwu"];

/// `--solver`.
pub(crate) static SOLVER: OptionSpec = OptionSpec::new("solver", OptionValue::Choice(&SOLVER_NAMES), "Localized methods: SVM solver of the classifiers, smo (our LIBSVM-style SMO, the thesis's Table 4.2; default) or mwu (single-kernel MWUMKL = kernelised Gilbert, Table 4.3)");
/// `--lkl-epsilon`.
pub(crate) static LKL_EPSILON: OptionSpec = OptionSpec::new("lkl-epsilon", OptionValue::Number, "Localized methods with --solver mwu: Gilbert's relative duality gap (default 0.01, the thesis's)");

/// The localized methods with `--select grid`.
const LOCALIZED_SELECTION: &str = "C by SVM-CV; the SVM-CV model unless the method beats it in k-fold CV (--no-fallback: C by k-fold CV over the grid's Cs)";
const CLASSIFY: &[Task] = &[Task::Classification];
/// What every localized method reads.
static LOCALIZED_OPTIONS: &[&[&OptionSpec]] =
    &[&[&KERNELS, &C], SMO, &[&NO_FALLBACK, &SOLVER, &LKL_EPSILON]];

/// The localized family.
pub(crate) static FAMILY: Family = Family {
    name: "localized MKL",
    methods: &[
        MethodInfo {
            name: "ldmkl",
            tasks: CLASSIFY,
            summary: "LD-MKL: per-kernel SVMs, SVR gates, retraining (thesis Algorithm 7)",
            selection: LOCALIZED_SELECTION,
            options: LOCALIZED_OPTIONS,
            in_demo: true,
            representations: &["gates"],
            takes: Takes::DENSE,
            build: super::learner::build,
        },
        MethodInfo {
            name: "swmkl",
            tasks: CLASSIFY,
            summary: "SWMKL: SVR gates, SVM on the gated kernel (thesis Algorithm 2)",
            selection: LOCALIZED_SELECTION,
            options: LOCALIZED_OPTIONS,
            in_demo: false,
            representations: &["gates"],
            takes: Takes::DENSE,
            build: super::learner::build,
        },
        MethodInfo {
            name: "lmkl",
            tasks: CLASSIFY,
            summary: "LMKL: softmax gates learned by gradient steps (thesis Algorithm 1)",
            selection: LOCALIZED_SELECTION,
            options: LOCALIZED_OPTIONS,
            in_demo: false,
            representations: &["gates"],
            takes: Takes::WEIGHTS,
            build: super::learner::build,
        },
        MethodInfo {
            name: "clmkl",
            tasks: CLASSIFY,
            summary: "C-LMKL: soft clusters with per-cluster kernel weights (thesis §4.2)",
            selection: LOCALIZED_SELECTION,
            options: &[
                &[&KERNELS, &C],
                SMO,
                &[&NO_FALLBACK, &SOLVER, &LKL_EPSILON, &CLUSTERS],
            ],
            in_demo: false,
            representations: &["gates"],
            takes: Takes::DENSE,
            build: super::learner::build,
        },
    ],
    models: &[ModelKind::of::<LocalizedModel>()],
    scale_out: &[],
};

impl Model for LocalizedModel {
    const KIND: &'static str = "localized";
}
