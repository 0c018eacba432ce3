//! DKMO and M-DKMO as [`Learner`]s: the paper's settings, no hyper-parameter search;
//! the epochs are chosen by early stopping on a validation split of the training part,
//! then the network is trained again on all training rows ([`DkmoParams::refit`]).

use super::catalogue::{
    DKMO_EMBEDDING, DKMO_EMBEDDINGS, DKMO_FUSION, DKMO_HIDDEN, DKMO_NO_REFIT, DROPOUT,
    KERNEL_DROPOUT,
};
use super::model::{DkmoModel, DkmoParams};
use crate::bank::KernelFamily;
use crate::bank::{KERNELS, LANDMARKS};
use crate::data::{Dataset, Features};
use crate::kernel::KernelOnFeatures;
use crate::learner::options::{GAMMA, KERNEL, SIGMA};
use crate::learner::{
    timed, AnyModel, ChosenParams, FittedMethod, GridSettings, Learner, Method, Progress,
    ProgressFn,
};
use crate::nn::options::apply_training;
use crate::options::MethodOptions;
use crate::predictor::Task;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};

/// A DKMO or M-DKMO network with the given settings.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DkmoLearner {
    /// Settings (kernels, embeddings, network, training).
    pub params: DkmoParams,
}

/// Catalogue builder of `dkmo` and `m-dkmo`.
///
/// DKMO has no hyper-parameter search (the paper trains with fixed settings; only the
/// epochs are chosen, by early stopping): a grid search setting is accepted and changes
/// nothing, so that `experiment --select grid --baseline svm` can run DKMO beside
/// SVM-CV on the same splits.
pub(crate) fn build(
    name: &str,
    options: &MethodOptions,
    data: &Dataset,
    _search: Option<GridSettings>,
) -> Result<Method> {
    let mut p = DkmoParams {
        multi: name == "m-dkmo",
        ..DkmoParams::default()
    };
    // Without a kernel or width the §V-A rule sets the Gaussian's γ from the data.
    let explicit = [&KERNEL, &GAMMA, &SIGMA]
        .iter()
        .any(|o| options.is_given(o));
    if options.text(&KERNEL) == Some("precomputed") {
        p.precomputed = true;
    } else if explicit {
        p.kernels = Some(vec![KernelOnFeatures::all(
            options.kernel(data.x.n_cols())?,
        )]);
    }
    if let Some(spec) = options.text(&KERNELS) {
        if p.precomputed {
            return Err(Error::param(
                "kernels",
                "the kernels of a precomputed input are the data (a Gram set); drop «kernels»",
            ));
        }
        let family = KernelFamily::from_spec_or_file(spec)?;
        p.kernels = Some(family.expand(data.x.n_cols())?);
    }
    if let Some(v) = options.parsed(&DKMO_EMBEDDING)? {
        p.scheme = Some(v);
    }
    if let Some(v) = options.count(&DKMO_EMBEDDINGS)? {
        p.embeddings = v;
    }
    if let Some(v) = options.count(&LANDMARKS)? {
        p.landmarks = v;
    }
    if let Some(v) = options.text(&DKMO_HIDDEN) {
        p.hidden = parse_sizes(v)?;
    }
    if let Some(v) = options.number(&DROPOUT)? {
        p.dropout = v;
    }
    if let Some(v) = options.number(&KERNEL_DROPOUT)? {
        p.kernel_dropout = v;
    }
    if let Some(v) = options.parsed(&DKMO_FUSION)? {
        p.fusion = v;
    }
    p.refit = !options.flag(&DKMO_NO_REFIT);
    apply_training(options, &mut p.train)?;
    p.validate()?;
    Ok(Method::new(DkmoLearner { params: p }))
}

/// `256,512,256,128` → sizes.
fn parse_sizes(text: &str) -> Result<Vec<usize>> {
    text.split(',')
        .map(|s| {
            s.trim().parse::<usize>().map_err(|_| {
                Error::param(
                    "dkmo-hidden",
                    format!("`{text}`: expected layer sizes such as 256,512,256,128"),
                )
            })
        })
        .collect()
}

impl Learner for DkmoLearner {
    /// No hyper-parameter search (only the epochs, by early stopping): no grid setting
    /// is read.
    fn grid_reads(&self) -> &'static [&'static str] {
        &[]
    }

    fn name(&self) -> String {
        if self.params.multi { "M-DKMO" } else { "DKMO" }.into()
    }

    fn task(&self) -> Task {
        Task::Classification
    }

    /// One step per epoch that can run: `max_epochs` per training run (M-DKMO: one
    /// per kernel, unknown before the data are seen, counted as one, plus fine-tuning),
    /// twice with a refit.
    fn steps(&self) -> u64 {
        let t = &self.params.train;
        let passes = if self.params.refit && t.validation_fraction > 0.0 {
            2
        } else {
            1
        };
        t.max_epochs as u64 * if self.params.multi { 2 } else { 1 } * passes
    }

    fn reads_kernel_values(&self) -> bool {
        self.params.precomputed
    }

    fn fit(
        &self,
        x: &Features,
        y: &[f64],
        seed: u64,
        progress: ProgressFn,
    ) -> Result<FittedMethod> {
        let budget = self.steps();
        let done = AtomicU64::new(0);
        let on_epoch = || {
            if done.fetch_add(1, Ordering::Relaxed) < budget {
                progress(Progress::Step);
            }
        };
        let (fit, secs) = timed(|| DkmoModel::fit(&self.params, x, y, seed, &on_epoch))?;
        (done.load(Ordering::Relaxed)..budget).for_each(|_| progress(Progress::Step));
        let mut chosen = ChosenParams::default();
        let info = &fit.model.info;
        chosen
            .other
            .insert("dkmo_epochs".into(), info.epochs as f64);
        chosen
            .other
            .insert("dkmo_best_epoch".into(), info.best_epoch as f64);
        chosen
            .other
            .insert("landmarks".into(), self.params.landmarks as f64);
        chosen
            .other
            .insert("dkmo_train_rows".into(), info.train_rows as f64);
        if let Some(acc) = info.val_accuracy {
            chosen.other.insert("dkmo_val_accuracy".into(), acc);
        }
        Ok(FittedMethod::new(AnyModel::new(fit.model), chosen, secs).traced(Some(fit.trace)))
    }
}
