//! The hyperkernel method as a [`Learner`]: the untuned defaults of section 7, no
//! selection.

use super::kernels::HyperkernelKind;
use super::model::{HyperkernelModel, HyperkernelParams};
use super::program::Problem;
use super::catalogue::{
    HK_DELTA, HK_RANK, HK_WIDTH_FACTOR, HYPERKERNEL, LAMBDA_H, LAMBDA_Q, PROBLEM,
};
use crate::data::{Dataset, Features};
use crate::estimator::Task;
use crate::learner::options::{C, NU};
use crate::learner::{
    timed, AnyModel, ChosenParams, FittedMethod, GridSettings, Learner, Method, Progress,
    ProgressFn,
};
use crate::options::MethodOptions;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// A hyperkernel machine ([`HyperkernelModel`]) with the given parameters.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct HyperkernelLearner {
    /// Problem, hyperkernel and settings.
    pub params: HyperkernelParams,
}

/// Catalogue builder of `hyperkernel`.
pub(crate) fn build(
    _name: &str,
    options: &MethodOptions,
    data: &Dataset,
    search: Option<GridSettings>,
) -> Result<Method> {
    if search.is_some() {
        return Err(Error::param(
            "select",
            "hyperkernel has no grid search: the paper fits its untuned defaults (section 7)",
        ));
    }
    let mut p = HyperkernelParams {
        seed: options.seed,
        ..HyperkernelParams::default()
    };
    if let Some(v) = options.parsed(&PROBLEM)? {
        p.problem = v;
    }
    if let Some(v) = options.parsed(&HYPERKERNEL)? {
        p.hyperkernel = v;
    }
    if let Some(v) = options.number(&LAMBDA_H)? {
        p.lambda_h = v;
    }
    if let Some(v) = options.number(&LAMBDA_Q)? {
        p.lambda_q = v;
    }
    if let Some(v) = options.number(&C)? {
        p.c = v;
    }
    p.nu = options.number(&NU)?;
    if let Some(v) = options.number(&HK_WIDTH_FACTOR)? {
        p.width_factor = v;
    }
    if let Some(v) = options.number(&HK_DELTA)? {
        p.delta = v;
    }
    if let Some(v) = options.count(&HK_RANK)? {
        p.max_rank = v;
    }
    p.validate()?;
    // An option the chosen problem or hyperkernel does not read is an error, never
    // silently ignored: C enters the C-SVM, LSVM, ν-regression programs and KTA's
    // C-SVM hypothesis; ν the ν-SVM, single-class and ν-regression programs; λ_h the
    // harmonic and ARD hyperkernels (12), (14) only.
    let reads_c = matches!(
        p.problem,
        Problem::CSvm | Problem::Lsvm | Problem::NuSvr | Problem::Kta
    );
    let reads_nu = matches!(
        p.problem,
        Problem::NuSvm | Problem::OneClass | Problem::NuSvr
    );
    let reads_lambda_h = matches!(p.hyperkernel, HyperkernelKind::Harmonic | HyperkernelKind::Ard);
    for (given, reads, option, reader) in [
        (options.is_given(&C), reads_c, "c", "--problem c-svm, lsvm, nu-svr or kta"),
        (options.is_given(&NU), reads_nu, "nu", "--problem nu-svm, one-class or nu-svr"),
        (
            options.is_given(&LAMBDA_H),
            reads_lambda_h,
            "lambda-h",
            "--hyperkernel harmonic or ard",
        ),
    ] {
        if given && !reads {
            return Err(Error::param(
                option,
                format!(
                    "is not read by hyperkernel with --problem {} --hyperkernel {}; it \
                     applies with {reader}",
                    p.problem, p.hyperkernel
                ),
            ));
        }
    }
    let _ = data;
    Ok(Method::new(HyperkernelLearner { params: p }))
}

impl Learner for HyperkernelLearner {
    fn name(&self) -> String {
        format!("hyperkernel ({})", self.params.problem)
    }

    fn task(&self) -> Task {
        self.params.problem.task()
    }

    fn steps(&self) -> u64 {
        3
    }

    fn fit(
        &self,
        x: &Features,
        y: &[f64],
        seed: u64,
        progress: ProgressFn,
    ) -> Result<FittedMethod> {
        let mut params = self.params.clone();
        params.seed = seed;
        // `HyperkernelModel::fit` reports the end of each stage; the bar names the next.
        const NEXT: [&str; 2] = [
            "solving the conic program (Clarabel)",
            "recovering the hypothesis",
        ];
        let done = std::sync::atomic::AtomicUsize::new(0);
        let report = |_: &str| {
            progress(Progress::Step);
            let k = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if let Some(stage) = NEXT.get(k) {
                progress(Progress::Stage(stage));
            }
        };
        progress(Progress::Stage(
            "incomplete Cholesky of the hyperkernel matrix",
        ));
        let (model, secs) = timed(|| HyperkernelModel::fit(&params, x, y, &report))?;
        let mut chosen = ChosenParams {
            c: Some(params.c),
            ..ChosenParams::default()
        };
        chosen
            .other
            .insert("hyperkernel_lambda_h".into(), params.lambda_h);
        chosen
            .other
            .insert("hyperkernel_lambda_q".into(), params.lambda_q);
        chosen.other.insert("hyperkernel_nu".into(), params.nu());
        chosen
            .other
            .insert("hyperkernel_rank".into(), model.info.rank as f64);
        Ok(FittedMethod::new(
            AnyModel::new(model),
            chosen,
            secs,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::synthetic::generate;
    use std::sync::Mutex;

    #[test]
    fn progress_names_each_stage_before_it_runs() {
        let d = generate("sandwich", 40, 9).unwrap();
        let learner = HyperkernelLearner {
            params: HyperkernelParams {
                width_factor: 1.0,
                ..HyperkernelParams::default()
            },
        };
        let events = Mutex::new(Vec::new());
        learner
            .fit(&d.x, &d.y, 0, &|p| events.lock().unwrap().push(p))
            .unwrap();
        let events = events.into_inner().unwrap();
        assert_eq!(
            events,
            [
                Progress::Stage("incomplete Cholesky of the hyperkernel matrix"),
                Progress::Step,
                Progress::Stage("solving the conic program (Clarabel)"),
                Progress::Step,
                Progress::Stage("recovering the hypothesis"),
                Progress::Step,
            ]
        );
        let steps = events.iter().filter(|p| p.advances()).count() as u64;
        assert_eq!(steps, learner.steps());
    }
}
