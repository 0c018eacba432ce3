//! What the continuous-kernel-learning family offers: CKL (a trained random-Fourier-
//! feature layer, Moeller 2017 chapter 5) and its fixed-feature baseline, and the
//! options they read.

use super::features::FEATURE_MAP_NAMES;
use super::CklModel;
use crate::learner::{Family, MethodInfo, Model, ModelKind, Takes};
use crate::nn::options::TRAINING;
use crate::options::{choice, OptionSpec, OptionValue};
use crate::predictor::Task;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::str::FromStr;

/// How CKL's random search scores a configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SearchScoring {
    /// The thesis's protocol (§5.4.1: 75/25, then 75/25 validation): each configuration
    /// is fitted once, scored by the accuracy on its own early-stopping split at the
    /// kept epoch, and the best fit is the model (`configs` fits).
    Validation,
    /// k-fold CV of every configuration (`--folds`), then the best refitted
    /// (`configs × folds + 1` fits).
    Cv,
}

/// Command-line names of [`SearchScoring`].
const SEARCH_SCORING_NAMES: [&str; 2] = ["validation", "cv"];

impl FromStr for SearchScoring {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        choice(
            "ckl-search",
            s,
            &SEARCH_SCORING_NAMES,
            &[SearchScoring::Validation, SearchScoring::Cv],
        )
    }
}

/// `--fourier-features`.
pub(crate) static FOURIER_FEATURES: OptionSpec = OptionSpec::new("fourier-features", OptionValue::Count, "ckl, rff-linear: number of features D, the width of the cosine layer h₀ (default 256; the thesis's random search draws 2^0..2^9)");
/// `--init-variance`.
pub(crate) static INIT_VARIANCE: OptionSpec = OptionSpec::new("init-variance", OptionValue::Number, "ckl, rff-linear: variance σ² of the entries of the initial frequencies W ~ N(0, σ²), i.e. the Gaussian kernel exp(−σ²‖x−x'‖²/2) (default 2^-3; the thesis's search draws 2^-6..2^0); also the bandwidth of the laplacian (Cauchy scale σ) and nystrom maps");
/// `--feature-map`.
pub(crate) static FEATURE_MAP: OptionSpec = OptionSpec::new("feature-map", OptionValue::Choice(&FEATURE_MAP_NAMES), "ckl, rff-linear: gaussian (random Fourier features, default), laplacian (Cauchy frequencies: exp(−σ‖x−x'‖₁)); rff-linear also nystrom (D uniform landmarks) or nystrom-kmeans (D k-means centres) of the same Gaussian");
/// `--norm-cap`.
pub(crate) static NORM_CAP: OptionSpec = OptionSpec::new("norm-cap", OptionValue::Number, "ckl: cap every frequency vector's norm ‖ω‖ at this value after each step (thesis §5.2.4; default none)");
/// `--configs`.
pub(crate) static CONFIGS: OptionSpec = OptionSpec::new("configs", OptionValue::Count, "ckl, rff-linear with --select: configurations of the random search over D, σ² and the learning rate (default 100, the thesis's Table 5.3), each scored as --ckl-search says");
/// `--ckl-search`.
pub(crate) static CKL_SEARCH: OptionSpec = OptionSpec::new("ckl-search", OptionValue::Choice(&SEARCH_SCORING_NAMES), "ckl, rff-linear with --select: how the random search scores a configuration, validation (default, the thesis's §5.4.1: one fit per configuration, scored by the accuracy on its early-stopping split, the best fit kept) or cv (k-fold CV with --folds, then the best refitted)");

/// What CKL and its baseline select.
const RANDOM_SEARCH: &str =
    "random search of D, σ², learning rate (thesis Table 5.3; --configs, default 100) scored on the early-stopping split (thesis §5.4.1) or by k-fold CV (--ckl-search)";
/// The features and the random search.
static FEATURES: &[&OptionSpec] = &[&FOURIER_FEATURES, &INIT_VARIANCE, &FEATURE_MAP];

/// The continuous-kernel-learning family.
pub(crate) static FAMILY: Family = Family {
    name: "continuous kernel learning",
    methods: &[
        MethodInfo {
            name: "ckl",
            tasks: &[Task::Classification],
            summary: "CKL: random Fourier features whose frequencies and phases are trained with a softmax layer (thesis ch. 5)",
            selection: RANDOM_SEARCH,
            options: &[FEATURES, TRAINING, &[&CONFIGS, &CKL_SEARCH, &NORM_CAP]],
            in_demo: false,
            representations: &[],
            takes: Takes::DENSE,
            build: super::learner::build,
        },
        MethodInfo {
            name: "rff-linear",
            tasks: &[Task::Classification],
            summary: "fixed random Fourier (Gaussian, Laplacian) or Nyström features and a softmax layer (CKL's baseline)",
            selection: RANDOM_SEARCH,
            options: &[FEATURES, TRAINING, &[&CONFIGS, &CKL_SEARCH]],
            in_demo: false,
            representations: &[],
            takes: Takes::DENSE,
            build: super::learner::build,
        },
    ],
    models: &[ModelKind::of::<CklModel>()],
    scale_out: &[],
};

impl Model for CklModel {
    const KIND: &'static str = "ckl";
}
