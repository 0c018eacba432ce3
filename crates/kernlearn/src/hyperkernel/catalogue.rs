//! What the hyperkernel family offers: a kernel learned in a hyper-RKHS by conic
//! programming (Ong, Smola and Williamson, JMLR 2005), and the options it reads.

use super::kernels::KIND_NAMES;
use super::program::PROBLEM_NAMES;
use super::HyperkernelModel;
use crate::learner::options::{C, NU};
use crate::learner::{Family, MethodInfo, Model, ModelKind, Takes};
use crate::options::{OptionSpec, OptionValue};
use crate::predictor::Task;

/// `--problem`.
pub(crate) static PROBLEM: OptionSpec = OptionSpec::new("problem", OptionValue::Choice(&PROBLEM_NAMES), "hyperkernel: the quality functional, c-svm (Example 7; default), nu-svm (8), lsvm (Lagrangian SVM, 9), one-class (novelty, 10), nu-svr (regression, 11) or kta (kernel-target alignment, 12; hypothesis by a C-SVM on the learned kernel)");
/// `--hyperkernel`.
pub(crate) static HYPERKERNEL: OptionSpec = OptionSpec::new("hyperkernel", OptionValue::Choice(&KIND_NAMES), "hyperkernel: harmonic (12)-(13) on one Gaussian, ard (14; default, the paper's), a power series of Table 2 (exp, sinh, cosh, arctanh, neglog = -ln(1-x)) on a Gaussian, or explicit (16: even polynomial + Gaussian)");
/// `--lambda-h`.
pub(crate) static LAMBDA_H: OptionSpec = OptionSpec::new(
    "lambda-h",
    OptionValue::Number,
    "hyperkernel: λ_h ∈ (0, 1) of the harmonic and ARD hyperkernels (default 0.6)",
);
/// `--lambda-q`.
pub(crate) static LAMBDA_Q: OptionSpec = OptionSpec::new(
    "lambda-q",
    OptionValue::Number,
    "hyperkernel: regularisation λ_Q of the kernel in the hyper-RKHS (default 1)",
);
/// `--hk-width-factor`.
pub(crate) static HK_WIDTH_FACTOR: OptionSpec = OptionSpec::new("hk-width-factor", OptionValue::Number, "hyperkernel: base-kernel widths are this factor times the 90% quantile of pairwise distances (per dimension for ard) on a 20% sample (default 50, the paper's)").python("width_factor");
/// `--hk-delta`.
pub(crate) static HK_DELTA: OptionSpec = OptionSpec::new("hk-delta", OptionValue::Number, "hyperkernel: tolerance δ of the incomplete Cholesky of the hyperkernel matrix, on the residual trace (default 1e-6, the paper's)").python("delta");
/// `--hk-rank`.
pub(crate) static HK_RANK: OptionSpec = OptionSpec::new(
    "hk-rank",
    OptionValue::Count,
    "hyperkernel: rank cap of that factorisation, i.e. most expansion pairs (default 100)",
)
.python("rank");

/// The hyperkernel family.
pub(crate) static FAMILY: Family = Family {
    name: "hyperkernel",
    methods: &[MethodInfo {
        name: "hyperkernel",
        tasks: &[Task::Classification, Task::Regression, Task::Novelty],
        summary: "hyperkernels: kernel learned in a hyper-RKHS by conic programming (Ong et al., JMLR 2005)",
        selection: "none (the paper's untuned defaults, section 7); grid: the width factor in {10, 20, 50} by k-fold CV on the training part",
        options: &[&[
            &PROBLEM,
            &HYPERKERNEL,
            &LAMBDA_H,
            &LAMBDA_Q,
            &C,
            &NU,
            &HK_WIDTH_FACTOR,
            &HK_DELTA,
            &HK_RANK,
        ]],
        in_demo: false,
        representations: &[],
        takes: Takes::DENSE,
        build: super::learner::build,
    }],
    models: &[ModelKind::of::<HyperkernelModel>()],
    scale_out: &[],
};

impl Model for HyperkernelModel {
    const KIND: &'static str = "hyperkernel";
}
