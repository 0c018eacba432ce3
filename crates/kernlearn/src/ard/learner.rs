//! Fitting and selection of the ARD-SVM and ARD-SVR. With `--select grid`, every fold of the CV
//! learns the widths on its own training part (the validation rows never shape the
//! kernel), then scores each (scale, C) candidate on its held-out rows; with the
//! fallback (the default), SVM-CV runs first on the same folds and the ARD kernel is kept
//! only when it beats it ([`crate::learner::fallback::Fallback`]).

use super::alignment::{learn_widths, sample_rows, AlignmentSettings, LearnedWidths};
use super::margin::refine;
use super::ArdModel;
use crate::data::Features;
use crate::kernel::Kernel;
use crate::learner::fallback::{finish, Decision, Fallback};
use crate::learner::selection::{best_on_path, svm_cv, FoldFit};
use crate::learner::{
    timed, AnyModel, ChosenParams, FittedMethod, GridSettings, Learner, Progress, ProgressFn,
};
use crate::predictor::{Predictor, Task};
use crate::svm::{SvmModel, SvmParams};
use crate::Result;

/// Multipliers of the learned widths tried by the selection: the alignment fixes the
/// widths' ratios well and their overall scale less so (it is not the SVM's criterion).
pub(crate) const SCALES: [f64; 5] = [0.25, 0.5, 1.0, 2.0, 4.0];

/// ARD-SVR's mean kernel exponent `Σ_k γ_k E[(x_k − x'_k)²]` at scale 1. The alignment
/// with a continuous target favours wide kernels (a target linear in a feature is best
/// aligned in the wide-kernel limit), so its widths' ratios are kept but not their
/// overall scale, which left the SVR underfitting (training R² 0.14 on scikit-learn's
/// regression check, 0.88 for a single-width SVR); 2 is the mean exponent of
/// scikit-learn's `gamma="scale"`, `1/(d Var x)`.
const REGRESSION_MEAN_EXPONENT: f64 = 2.0;

/// The ARD-SVM's learner.
#[derive(Clone, Debug)]
pub(crate) struct ArdLearner {
    /// Classification (C-SVC) or regression (ε-SVR).
    pub(crate) task: Task,
    /// C-SVC or ε-SVR parameters (the kernel is replaced by the learned one).
    pub(crate) params: SvmParams,
    /// Multiplier of the learned widths.
    pub(crate) scale: f64,
    /// How the widths are learned.
    pub(crate) alignment: AlignmentSettings,
    /// Refine the alignment's widths on the radius–margin bound (binary classification;
    /// [`super::margin`]).
    pub(crate) radius_margin: bool,
    /// With `--select grid`: the grid's Cs and folds.
    pub(crate) search: Option<GridSettings>,
    /// Keep SVM-CV unless the ARD kernel beats it.
    pub(crate) fallback: bool,
}

impl ArdLearner {
    /// The SVM of these parameters on widths `w` (scaled), fitted on `(x, y)`.
    fn fit_svm(&self, w: &LearnedWidths, x: &Features, y: &[f64]) -> Result<SvmModel> {
        let anchor = match self.task {
            Task::Regression => REGRESSION_MEAN_EXPONENT / w.mean_exponent(),
            _ => 1.0,
        };
        let gammas = w.gammas.iter().map(|g| g * anchor * self.scale).collect();
        let params = SvmParams {
            kernel: Kernel::ard_gammas(gammas)?,
            ..self.params.clone()
        };
        SvmModel::fit(&params, x, y)
    }

    /// The candidates of a selection: every scale with every C of the grid, at the tube
    /// width `epsilon` (SVR-CV's choice for regression with the fallback, else the
    /// learner's own).
    fn candidates(&self, search: &GridSettings, epsilon: f64) -> Vec<ArdLearner> {
        (SCALES.iter())
            .flat_map(|&scale| {
                search.grid.cs.iter().map(move |&c| ArdLearner {
                    params: SvmParams {
                        c,
                        epsilon,
                        ..self.params.clone()
                    },
                    scale,
                    search: None,
                    fallback: false,
                    ..self.clone()
                })
            })
            .collect()
    }

    /// The widths on `(x, y)`: the alignment's, refined on the radius–margin bound when
    /// asked and the labels are binary (on the alignment's sample of rows).
    fn learn(&self, x: &Features, y: &[f64]) -> Result<LearnedWidths> {
        let w = learn_widths(x, y, self.task, &self.alignment)?;
        let classes = crate::data::class_labels(y);
        if !self.radius_margin || self.task != Task::Classification || classes.len() != 2 {
            return Ok(w);
        }
        let rows = sample_rows(x.n_rows(), &self.alignment);
        let xs = faer::Mat::from_fn(rows.len(), x.n_cols(), |i, k| x.row(rows[i])[k]);
        let ys: Vec<f64> = (rows.iter())
            .map(|&i| if y[i] == classes[0] { 1.0 } else { -1.0 })
            .collect();
        let gammas = refine(&xs, &ys, &w.gammas, self.params.c, &self.alignment.groups)?;
        w.with_gammas(gammas)
    }

    /// The model of this learner (no selection) on `(x, y)`.
    fn fit_model(&self, x: &Features, y: &[f64]) -> Result<ArdModel> {
        let w = self.learn(x, y)?;
        let svm = self.fit_svm(&w, x, y)?;
        Ok(ArdModel {
            svm,
            relevance: w.relevance(),
            alignment: w.alignment,
            iterations: w.iterations,
        })
    }
}

impl Learner for ArdLearner {
    fn name(&self) -> String {
        match self.task {
            Task::Regression => "ARD-SVR".into(),
            _ => "ARD-SVM".into(),
        }
    }

    fn runs_fallback(&self) -> bool {
        self.fallback && self.search.is_some()
    }

    fn task(&self) -> Task {
        self.task
    }

    fn steps(&self) -> u64 {
        self.search.as_ref().map_or(0, |s| {
            let own = s.candidate_steps(self.candidates(s, self.params.epsilon).len());
            own + if self.fallback { s.steps() } else { 0 }
        })
    }

    fn fit(
        &self,
        x: &Features,
        y: &[f64],
        seed: u64,
        progress: ProgressFn,
    ) -> Result<FittedMethod> {
        let Some(search) = &self.search else {
            let (model, secs) = timed(|| self.fit_model(x, y))?;
            let mut chosen = ChosenParams::of(&self.params.kernel, self.params.c, None);
            chosen.sigma = None;
            chosen.other.insert("ard_scale".into(), self.scale);
            return Ok(FittedMethod::new(AnyModel::new(model), chosen, secs));
        };
        let start = std::time::Instant::now();
        let svm = (self.fallback)
            .then(|| {
                // SVM-CV, or SVR-CV for ARD-SVR: the Gaussian machine of the same kind.
                let base = SvmParams {
                    svm_type: self.params.svm_type,
                    solver: self.params.solver,
                    ..SvmParams::default()
                };
                svm_cv(search, &base, x, y, seed, progress)
            })
            .transpose()?;
        let fallback = Fallback::new(svm, search, seed, start);
        let epsilon = (fallback.svm()).map_or(self.params.epsilon, |s| s.chosen.params.epsilon);
        let candidates = self.candidates(search, epsilon);
        // One fold: the widths once from its training part, then every candidate.
        let path: &FoldFit = &|xt, yt, held| {
            let w = self.learn(xt, yt)?;
            (candidates.iter())
                .map(|c| {
                    let model = c.fit_svm(&w, xt, yt)?;
                    progress(Progress::Step);
                    Predictor::predict(&model, held)
                })
                .collect()
        };
        let best = best_on_path(
            candidates.clone(),
            self.task == Task::Regression,
            search,
            x,
            y,
            seed,
            (path, progress),
            fallback.race(),
        )?;
        let kept = match fallback.decide(best, x, y)? {
            Decision::FellBack(fitted) => return Ok(fitted),
            Decision::Kept(kept) => kept,
        };
        let select_seconds = start.elapsed().as_secs_f64();
        let learner = &kept.best.chosen;
        let (model, secs) = timed(|| learner.fit_model(x, y))?;
        let mut chosen = ChosenParams {
            c: Some(learner.params.c),
            epsilon: (self.task == Task::Regression).then_some(learner.params.epsilon),
            cv_score: Some(kept.best.score),
            ..ChosenParams::default()
        };
        chosen.other.insert("ard_scale".into(), learner.scale);
        let fitted =
            FittedMethod::new(AnyModel::new(model), chosen, secs).selected(select_seconds, None);
        Ok(finish(Some(&kept), fitted))
    }
}
