//! What the ARD family offers: the SVM (C-SVC, or ε-SVR for regression) on an ARD
//! Gaussian whose per-feature widths maximise the centered kernel-target alignment, and
//! the options it reads.

use super::alignment::AlignmentSettings;
use super::learner::ArdLearner;
use super::ArdModel;
use crate::data::Dataset;
use crate::learner::options::{C, CLASS_WEIGHT, EPSILON, NO_FALLBACK, SMO};
use crate::learner::{Family, GridSettings, Method, MethodInfo, Model, ModelKind, Takes};
use crate::options::{MethodOptions, OptionSpec, OptionValue};
use crate::predictor::Task;
use crate::svm::SvmType;
use crate::{Error, Result};

/// `--ard-iterations`.
pub(crate) static ARD_ITERATIONS: OptionSpec = OptionSpec::new(
    "ard-iterations",
    OptionValue::Count,
    "ard: most L-BFGS steps of the alignment ascent over the widths (default 100)",
);
/// `--ard-sample`.
pub(crate) static ARD_SAMPLE: OptionSpec = OptionSpec::new("ard-sample", OptionValue::Count, "ard: most training rows the alignment is computed on, a seeded random subset beyond it (default 400; each step costs O(n² d))");
/// `--ard-scale`.
pub(crate) static ARD_SCALE: OptionSpec = OptionSpec::new("ard-scale", OptionValue::Number, "ard without --select: multiplier of the learned widths (default 1; with --select grid chosen by CV from 0.25, 0.5, 1, 2, 4)");

/// `--ard-groups`.
pub(crate) static ARD_GROUPS: OptionSpec = OptionSpec::new("ard-groups", OptionValue::Text, "ard, ard-svr: columns that share one width: auto (default: the blocks of one-hot encoded attributes, adjacent 0/1 columns named <attribute>_<value> with exactly one 1 per row), none (a width per column), or groups of 0-based columns, e.g. \"0-3;7,9\"");

/// `--ard-objective`.
pub(crate) static ARD_OBJECTIVE: OptionSpec = OptionSpec::new("ard-objective", OptionValue::Choice(&["alignment", "radius-margin"]), "ard: what the widths optimise: alignment (default: centered kernel-target alignment) or radius-margin (the alignment's widths refined by gradient descent on the radius–margin bound R²‖w‖² of the L2-SVM, Chapelle et al. 2002; binary labels)");

/// The ARD family.
pub(crate) static FAMILY: Family = Family {
    name: "automatic relevance determination",
    methods: &[MethodInfo {
        name: "ard",
        tasks: &[Task::Classification],
        summary: "ARD-SVM: per-feature Gaussian widths by centered kernel-target alignment (Cortes, Mohri and Rostamizadeh 2012), with each feature's relevance",
        selection: "widths learned on each fold's training part, scale × C by k-fold CV; the SVM-CV model unless that beats it",
        options: &[&[&C, &CLASS_WEIGHT], SMO, &[&ARD_ITERATIONS, &ARD_SAMPLE, &ARD_SCALE, &ARD_GROUPS, &ARD_OBJECTIVE, &NO_FALLBACK]],
        in_demo: true,
        representations: &[],
        takes: Takes::DENSE,
        build,
    }, MethodInfo {
        name: "ard-svr",
        tasks: &[Task::Regression],
        summary: "ARD-SVR: ε-SVR on per-feature Gaussian widths by centered kernel-target alignment on the centred target, with each feature's relevance",
        selection: "SVR-CV first (σ, C, ε); widths learned on each fold's training part, scale × C by k-fold CV at SVR-CV's ε; the SVR-CV model unless that beats it",
        options: &[&[&C, &EPSILON], SMO, &[&ARD_ITERATIONS, &ARD_SAMPLE, &ARD_SCALE, &ARD_GROUPS, &NO_FALLBACK]],
        in_demo: false,
        representations: &[],
        takes: Takes::DENSE,
        build,
    }],
    models: &[ModelKind::of::<ArdModel>()],
    scale_out: &[],
};

impl Model for ArdModel {
    const KIND: &'static str = "ard";
}

fn build(
    name: &str,
    options: &MethodOptions,
    data: &Dataset,
    search: Option<GridSettings>,
) -> Result<Method> {
    let d = data.x.n_cols();
    let task = match name {
        "ard-svr" => Task::Regression,
        _ => Task::Classification,
    };
    let svm_type = match task {
        Task::Regression => SvmType::EpsilonSvr,
        _ => SvmType::CSvc,
    };
    let params = options.svm_params(svm_type, d)?;
    let max_iter = options.count(&ARD_ITERATIONS)?.unwrap_or(100);
    let sample = options.count(&ARD_SAMPLE)?.unwrap_or(400);
    if sample < 4 {
        return Err(Error::param(
            "ard-sample",
            format!("{sample} rows are too few (at least 4)"),
        ));
    }
    let blocks = match options.text(&ARD_GROUPS).map(str::trim) {
        None | Some("auto") => super::groups::one_hot_blocks(data),
        Some("none") => Vec::new(),
        Some(spec) => super::groups::parse_blocks(spec, d)?,
    };
    let scale = options.number(&ARD_SCALE)?.unwrap_or(1.0);
    crate::check::positive_finite("ard-scale", scale)?;
    if search.is_some() && options.number(&ARD_SCALE)?.is_some() {
        return Err(Error::param(
            "ard-scale",
            "the selection chooses the scale; give it only without «select=grid»",
        ));
    }
    Ok(Method::new(ArdLearner {
        task,
        radius_margin: options.text(&ARD_OBJECTIVE) == Some("radius-margin"),
        params,
        scale,
        alignment: AlignmentSettings {
            max_iter,
            sample,
            seed: options.seed,
            groups: super::groups::width_map(&blocks, d),
        },
        fallback: search.is_some() && !options.flag(&NO_FALLBACK),
        search,
    }))
}
