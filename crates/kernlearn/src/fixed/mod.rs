//! Kernel machines on a fixed kernel: C-SVC, ν-SVC, one-class SVM, ε-SVR and ν-SVR on
//! our SMO ([`crate::svm`]), with σ, C (and ε) as given or chosen by the papers'
//! SVM-CV / SVR-CV grid search: the baseline every learned kernel is compared with.

mod learner;

use crate::learner::options::{C, CLASS_WEIGHT, EPSILON, KERNEL_MACHINE, NU, PROBABILITY};
use crate::learner::{Family, MethodInfo, ModelKind, Takes};
use crate::predictor::Task;
use crate::svm::SvmModel;

const CLASSIFY: &[Task] = &[Task::Classification];
const REGRESS: &[Task] = &[Task::Regression];
const SVM_CV: &str = "σ, C (and ε for regression) by k-fold grid search (SVM-CV / SVR-CV)";

/// The kernel machines' family.
pub(crate) static FAMILY: Family = Family {
    name: "kernel machine",
    methods: &[
        MethodInfo {
            name: "svm",
            tasks: &[Task::Classification, Task::Regression],
            summary: "svc, or svr when the last column is named `target` (the default method)",
            selection: SVM_CV,
            options: &[KERNEL_MACHINE, &[&C, &EPSILON, &PROBABILITY, &CLASS_WEIGHT]],
            in_demo: false,
            representations: &[],
            takes: Takes::WEIGHTS_AND_SPARSE,
            build: learner::build,
        },
        MethodInfo {
            name: "svc",
            tasks: CLASSIFY,
            summary: "C-SVC (LIBSVM's SMO, second-order working sets, shrinking, cache)",
            selection: SVM_CV,
            options: &[KERNEL_MACHINE, &[&C, &PROBABILITY, &CLASS_WEIGHT]],
            in_demo: false,
            representations: &[],
            takes: Takes::WEIGHTS_AND_SPARSE,
            build: learner::build,
        },
        MethodInfo {
            name: "nu-svc",
            tasks: CLASSIFY,
            summary: "ν-SVC",
            selection: "σ by k-fold grid search (ν as given)",
            options: &[KERNEL_MACHINE, &[&NU, &PROBABILITY]],
            in_demo: false,
            representations: &[],
            takes: Takes::WEIGHTS_AND_SPARSE,
            build: learner::build,
        },
        MethodInfo {
            name: "one-class",
            tasks: &[Task::Novelty],
            summary: "one-class SVM (novelty detection; labels not needed)",
            selection: "none",
            options: &[KERNEL_MACHINE, &[&NU]],
            in_demo: false,
            representations: &[],
            takes: Takes::WEIGHTS_AND_SPARSE,
            build: learner::build,
        },
        MethodInfo {
            name: "svr",
            tasks: REGRESS,
            summary: "ε-SVR",
            selection: SVM_CV,
            options: &[KERNEL_MACHINE, &[&C, &EPSILON]],
            in_demo: false,
            representations: &[],
            takes: Takes::WEIGHTS_AND_SPARSE,
            build: learner::build,
        },
        MethodInfo {
            name: "nu-svr",
            tasks: REGRESS,
            summary: "ν-SVR",
            selection: "σ, C by k-fold grid search (ν as given)",
            options: &[KERNEL_MACHINE, &[&C, &NU]],
            in_demo: false,
            representations: &[],
            takes: Takes::WEIGHTS_AND_SPARSE,
            build: learner::build,
        },
    ],
    models: &[ModelKind::of::<SvmModel>()],
    scale_out: &[],
};

impl crate::learner::Model for SvmModel {
    const KIND: &'static str = "svm";
}
