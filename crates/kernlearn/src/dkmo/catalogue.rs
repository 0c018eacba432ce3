//! What the deep-kernel-machine family offers: DKMO and M-DKMO (Song et al., TNNLS
//! 2018), and the options they read.

use super::embed::SCHEME_NAMES;
use super::net::FUSION_NAMES;
use super::DkmoModel;
use crate::bank::{KERNELS, LANDMARKS};
use crate::learner::options::{COEF0, DEGREE, GAMMA, KERNEL, SIGMA};
use crate::learner::{Family, MethodInfo, Model, ModelKind, Takes};
use crate::nn::options::TRAINING;
use crate::options::{OptionSpec, OptionValue};
use crate::predictor::Task;

/// `--dkmo-embedding`.
pub(crate) static DKMO_EMBEDDING: OptionSpec = OptionSpec::new("dkmo-embedding", OptionValue::Choice(&SCHEME_NAMES), "dkmo, m-dkmo: dense embeddings of each kernel, clustered (5 clustered Nyström embeddings: k-means, k-medians, k-medoids, agglomerative, spectral landmarks; default with features) or nystrom (random-column Nyström of varying size and rank; default for a Gram set)").python("embedding");
/// `--dkmo-embeddings`.
pub(crate) static DKMO_EMBEDDINGS: OptionSpec = OptionSpec::new(
    "dkmo-embeddings",
    OptionValue::Count,
    "dkmo, m-dkmo with nystrom embeddings: embeddings per kernel P (default 6, the paper's)",
)
.python("embeddings");
/// `--dkmo-hidden`.
pub(crate) static DKMO_HIDDEN: OptionSpec = OptionSpec::new("dkmo-hidden", OptionValue::Text, "dkmo, m-dkmo: hidden layer sizes of each embedding's network (default 256,512,256,128, the paper's)").python("hidden");
/// `--dropout`.
pub(crate) static DROPOUT: OptionSpec = OptionSpec::new(
    "dropout",
    OptionValue::Number,
    "dkmo, m-dkmo: dropout rate after every hidden layer (default 0.5, the paper's)",
);
/// `--kernel-dropout`.
pub(crate) static KERNEL_DROPOUT: OptionSpec = OptionSpec::new("kernel-dropout", OptionValue::Number, "dkmo, m-dkmo: kernel dropout rate of the fusion layers, whole embeddings (or kernels) dropped (default 0.5, the paper's; 0 = off)");
/// `--dkmo-fusion`.
pub(crate) static DKMO_FUSION: OptionSpec = OptionSpec::new(
    "dkmo-fusion",
    OptionValue::Choice(&FUSION_NAMES),
    "dkmo, m-dkmo: merge of the fusion layers, sum (default, the paper's) or concat",
)
.python("fusion");
/// `--dkmo-no-refit`.
pub(crate) static DKMO_NO_REFIT: OptionSpec = OptionSpec::new("dkmo-no-refit", OptionValue::Flag, "dkmo, m-dkmo: keep the network of the best validation epoch, trained on the rows outside the validation split, instead of the default: early stopping on the validation split (--validation-fraction) chooses the epochs of every training run, then the whole network is trained again from the same seed on all training rows for those epochs (the paper states neither epochs nor a validation split)").negated_python("refit");

/// What DKMO selects: the epochs only (early stopping, then a refit on all rows).
const DKMO_SELECTION: &str = "the number of epochs, by early stopping on a validation split of the training part; then a refit on all training rows (the paper's other settings)";

/// Options of `dkmo` and `m-dkmo`.
static DKMO_OPTIONS: &[&[&OptionSpec]] = &[
    &[&KERNEL, &GAMMA, &SIGMA, &DEGREE, &COEF0, &KERNELS],
    &[
        &DKMO_EMBEDDING,
        &DKMO_EMBEDDINGS,
        &LANDMARKS,
        &DKMO_HIDDEN,
        &DROPOUT,
        &KERNEL_DROPOUT,
        &DKMO_FUSION,
        &DKMO_NO_REFIT,
    ],
    TRAINING,
];

/// The deep-kernel-machine family.
pub(crate) static FAMILY: Family = Family {
    name: "deep kernel machine",
    methods: &[
        MethodInfo {
            name: "dkmo",
            tasks: &[Task::Classification],
            summary: "DKMO: networks on dense Nyström embeddings of one kernel, fused with kernel dropout (Song et al., TNNLS 2018)",
            selection: DKMO_SELECTION,
            options: DKMO_OPTIONS,
            in_demo: false,
            representations: &["fused"],
            takes: Takes::DENSE,
            build: super::learner::build,
        },
        MethodInfo {
            name: "m-dkmo",
            tasks: &[Task::Classification],
            summary: "M-DKMO: per-kernel DKMO pre-training, global fusion with kernel dropout, fine-tuning (Song et al., TNNLS 2018)",
            selection: DKMO_SELECTION,
            options: DKMO_OPTIONS,
            in_demo: false,
            representations: &["fused"],
            takes: Takes::DENSE,
            build: super::learner::build,
        },
    ],
    models: &[ModelKind::of::<DkmoModel>()],
    scale_out: &[],
};

impl Model for DkmoModel {
    const KIND: &'static str = "dkmo";
}
