//! The base-kernel fallback, one protocol for every learned-kernel learner
//! ([`Fallback`]): a learned kernel is the fit only when it beats SVM-CV on the same
//! folds by the one-standard-error rule ([`super::selection::beats`]) and again on a
//! second partition; otherwise the fit is the SVM-CV model, with the declined learned
//! kernel beside it, and [`FELL_BACK`] says which happened.

use super::selection::{beats, fold_scores, CvRows, Folds, Selected};
use super::{timed, AnyModel, ChosenParams, FallbackEvidence, FittedMethod, GridSettings};
use super::{Learner, FELL_BACK};
use crate::data::Features;
use crate::predictor::Task;
use crate::select::Selection;
use crate::svm::{SvmModel, SvmParams};
use crate::Result;
use std::time::Instant;

/// The base-kernel fallback protocol, written once for every learned-kernel learner:
///
/// 1. SVM-CV first: the learner runs it on its base kernel (the Gaussian C-SVC of the
///    kernel families, [`super::selection::base_svm_cv`]; DANK's and KNPL's own base) and hands over its
///    selection; `None` when the fallback is off ([`Fallback::off`]);
/// 2. the learner's candidates are scored on the same folds, raced against SVM-CV's
///    fold scores ([`Fallback::race`]), and take SVM-CV's choices where the method
///    needs them ([`Fallback::svm`]);
/// 3. [`Fallback::decide`]: the best candidate is kept only when it wins twice
///    ([`keeps_learned`]); otherwise the fit is SVM-CV's model, with the declined
///    learned kernel beside it ([`fall_back`]);
/// 4. [`finish`] records on the kept fit that the check ran ([`FELL_BACK`] = 0).
///
/// [`fall_back`] and [`keeps_learned`] are private to this module: a learner cannot
/// decide, nor mark, a fallback but through here.
pub(crate) struct Fallback {
    svm: Option<Selected<Selection>>,
    /// Per-sample weights of the rows, when the fit is weighted: the confirmation folds
    /// and both final fits use them, as SVM-CV and the candidates did.
    weights: Option<Vec<f64>>,
    /// Folds of the confirmation partition.
    folds: usize,
    confirm_always: bool,
    seed: u64,
    start: Instant,
}

/// What [`Fallback::decide`] settled.
pub(crate) enum Decision<L> {
    /// The learned kernel is the fit.
    Kept(Kept<L>),
    /// SVM-CV's model is the fit (the declined kernel carried beside it).
    FellBack(FittedMethod),
}

/// A kept learned kernel: its selection, and SVM-CV's when the check ran.
pub(crate) struct Kept<L> {
    /// The best candidate's selection.
    pub(crate) best: Selected<L>,
    /// SVM-CV's selection, when the fallback check ran.
    pub(crate) svm: Option<Selected<Selection>>,
    /// What the check decided on, when it ran.
    evidence: Option<FallbackEvidence>,
}

impl Fallback {
    /// The protocol with SVM-CV's selection `svm` (scored on the folds of `search`
    /// seeded by `seed`, as the candidates are); `start`: when the learner's selection
    /// began.
    pub(crate) fn new(
        svm: Option<Selected<Selection>>,
        search: &GridSettings,
        seed: u64,
        start: Instant,
    ) -> Self {
        Self {
            svm,
            weights: None,
            folds: search.confirmation_folds.unwrap_or(search.folds),
            confirm_always: search.confirm_always,
            seed,
            start,
        }
    }

    /// No fallback (`no_fallback`, or no search): every best candidate is kept,
    /// unmarked.
    pub(crate) fn off() -> Self {
        Self::new(None, &GridSettings::default(), 0, Instant::now())
    }

    /// The protocol for a fit with per-sample weights `weights` (`None`: unweighted), to
    /// which SVM-CV and the candidates' CV were given the same weights: the confirmation
    /// partition scores both sides with them, and the fallback's SVM and the declined
    /// learned kernel are fitted with them.
    pub(crate) fn weighted(mut self, weights: Option<&[f64]>) -> Self {
        self.weights = weights.map(<[f64]>::to_vec);
        self
    }

    /// SVM-CV's selection, when the fallback runs.
    pub(crate) fn svm(&self) -> Option<&Selected<Selection>> {
        self.svm.as_ref()
    }

    /// SVM-CV's fold scores for the candidates' race ([`super::selection::could_beat`]);
    /// none when every rule is being measured ([`GridSettings::confirm_always`]), which
    /// needs the learned kernel's full CV.
    pub(crate) fn race(&self) -> Option<&[f64]> {
        (self.svm.as_ref())
            .filter(|_| !self.confirm_always)
            .map(|s| &s.fold_scores[..])
    }

    /// Step 3: keeps `best` when it beats SVM-CV twice, else falls back.
    pub(crate) fn decide<L: Learner>(
        self,
        best: Selected<L>,
        x: &Features,
        y: &[f64],
    ) -> Result<Decision<L>> {
        let Some(svm) = self.svm else {
            return Ok(Decision::Kept(Kept {
                best,
                svm: None,
                evidence: None,
            }));
        };
        let confirm = (self.folds, self.seed, self.confirm_always);
        let w = self.weights.as_deref();
        let (keep, evidence) = keeps_learned(&best, &svm, (x, y, w), confirm)?;
        if keep {
            let evidence = Some(evidence);
            let svm = Some(svm);
            return Ok(Decision::Kept(Kept {
                best,
                svm,
                evidence,
            }));
        }
        let seconds = self.start.elapsed().as_secs_f64();
        fall_back(svm, &best, (x, y, w), (self.seed, seconds), evidence).map(Decision::FellBack)
    }
}

impl<L> Kept<L> {
    /// Whether the fallback check ran (and the learned kernel passed it).
    pub(crate) fn checked(&self) -> bool {
        self.svm.is_some()
    }

    /// SVM-CV's grid-search record, when the check ran: the selection record of a
    /// learner whose σ and C come from SVM-CV (KNPL, DANK).
    pub(crate) fn svm_record(&self) -> Option<Selection> {
        self.svm.as_ref().map(|s| s.chosen.clone())
    }
}

/// Step 4 of [`Fallback`]: the learner's fit of its kept learned kernel (`kept`; `None`
/// without a search), marked [`FELL_BACK`] = 0 when the check ran.
pub(crate) fn finish<L>(kept: Option<&Kept<L>>, mut fitted: FittedMethod) -> FittedMethod {
    if let Some(kept) = kept.filter(|k| k.checked()) {
        fitted.chosen.other.insert(FELL_BACK.into(), 0.0);
        fitted.chosen.fallback_evidence = kept.evidence.clone();
    }
    fitted
}

/// Seed offset of the confirmation folds of [`keeps_learned`]: a second fold partition,
/// unrelated to the one the candidates were chosen on.
const CONFIRMATION_SEED: u64 = 0x5eed_c0f1_2a11_0b0c;

/// The base-kernel fallback's decision: whether to keep the learned kernel
/// `learned` (its best candidate's selection) over SVM-CV's choice `svm`, the two scored
/// on the same folds, and the scores it decided on; see [`wins_twice`]. A learned kernel
/// whose CV a race stopped early (fewer fold scores than SVM-CV's) is not kept: its
/// full CV could not win. `(folds, seed, always)`: the confirmation partition, and
/// whether it runs even when the selection folds decided.
fn keeps_learned<L: Learner>(
    learned: &Selected<L>,
    svm: &Selected<Selection>,
    rows: CvRows,
    confirm: (usize, u64, bool),
) -> Result<(bool, FallbackEvidence)> {
    let mut evidence = FallbackEvidence {
        learned: learned.fold_scores.clone(),
        svm: svm.fold_scores.clone(),
        confirmation: None,
    };
    let keep = wins_twice(
        &learned.chosen,
        &svm.chosen.params,
        rows,
        confirm,
        &mut evidence,
    )?;
    Ok((keep, evidence))
}

/// Keep the learned kernel `learned` (fixed at its chosen settings) over the SVM `base`
/// (fixed at SVM-CV's σ, C, ε) only when it wins twice by the one-standard-error rule of
/// [`beats`]:
///
/// 1. on the selection folds (`evidence.learned` against `evidence.svm`: both choices'
///    scores on the folds that chose them);
/// 2. on a fresh k-fold partition (seed `seed ^ CONFIRMATION_SEED`), both refitted
///    there; recorded in `evidence.confirmation`.
///
/// Both selection scores are maxima over their own candidates, so a win on the folds
/// that chose them is biased upwards (the winner's curse): on heart, a learned kernel
/// that passed (1) lost on the test half more often than it won (docs/RESULTS.md,
/// "Paired comparisons"). The second partition re-estimates both *chosen* models
/// without that selection, at the cost of `2k` fits, and only when (1) passed (or
/// `always`, to measure fallback rules). With weights in `rows`, both are refitted and
/// scored with them.
fn wins_twice(
    learned: &dyn Learner,
    base: &SvmParams,
    (x, y, weights): CvRows,
    (folds, seed, always): (usize, u64, bool),
    evidence: &mut FallbackEvidence,
) -> Result<bool> {
    let regression = learned.task() == Task::Regression;
    let first = beats(&evidence.learned, &evidence.svm, regression);
    if !first && !always {
        return Ok(false);
    }
    let base = super::SvmLearner {
        params: base.clone(),
        search: None,
    };
    let confirmation = Folds::new(folds, seed ^ CONFIRMATION_SEED, None).weighted(weights);
    let [l, b]: [Vec<f64>; 2] = fold_scores(&[learned, &base], x, y, confirmation, &|_| {})?
        .try_into()
        .expect("two learners, two score lists");
    let second = beats(&l, &b, regression);
    evidence.confirmation = Some([l, b]);
    Ok(first && second)
}

/// The base-kernel fallback: the SVM-CV model of `svm` fitted on `(x, y)`, with
/// [`FELL_BACK`] = 1 and the learned kernel's best CV score recorded (`learned_cv_score`,
/// from its selection `learned`) beside SVM-CV's (`cv_score`), with the number of folds
/// it is the mean of (`learned_cv_folds`: fewer than SVM-CV's when the race of
/// [`super::selection::could_beat`] stopped the learned kernel's CV early).
///
/// The declined learned kernel (`learned.chosen`, fixed at its selected parameters) is
/// fitted on `(x, y)` too, seeded by `seed`, and kept as [`FittedMethod::declined`]: the
/// fit's model is the SVM, but what the learned kernel chose stays visible. Every
/// learned-kernel family falls back through here, so they all carry it.
/// `select_seconds`: the whole selection (SVM-CV and the learned kernel's candidates),
/// to which the declined fit's seconds are added. With weights in `rows`, both fits
/// use them.
fn fall_back<L: Learner>(
    svm: Selected<Selection>,
    learned: &Selected<L>,
    (x, y, weights): CvRows,
    (seed, select_seconds): (u64, f64),
    evidence: FallbackEvidence,
) -> Result<FittedMethod> {
    let params = svm.chosen.params.clone();
    let mut chosen = ChosenParams::of_svm(&params);
    chosen.fallback_evidence = Some(evidence);
    chosen.cv_score = Some(svm.score);
    chosen.other.insert(FELL_BACK.into(), 1.0);
    chosen
        .other
        .insert("learned_cv_score".into(), learned.score);
    let folds = learned.fold_scores.len() as f64;
    chosen.other.insert("learned_cv_folds".into(), folds);
    let (declined, declined_secs) = timed(|| match weights {
        Some(w) => learned.chosen.fit_weighted(x, y, w, seed, &|_| {}),
        None => learned.chosen.fit(x, y, seed, &|_| {}),
    })?;
    let (model, secs) = timed(|| SvmModel::fit_weighted(&params, x, y, weights))?;
    let mut fitted = FittedMethod::new(AnyModel::new(model), chosen, secs)
        .selected(select_seconds + declined_secs, Some(svm.chosen));
    fitted.declined = Some(declined.model);
    Ok(fitted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::synthetic::sandwich;
    use crate::kernel::Kernel;
    use crate::learner::{GridSettings, SvmLearner};
    use crate::select::Grid;

    /// Two widths and two Cs on 5 folds: a selection small enough for every method.
    fn small_grid() -> GridSettings {
        GridSettings {
            grid: Grid {
                sigmas: vec![0.5, 1.0],
                cs: vec![1.0, 4.0],
                epsilons: vec![],
            },
            ..GridSettings::default()
        }
    }

    /// Every learned-kernel method with a search records whether it fell back;
    /// a fallback is exactly the SVM-CV model (same predictions) and carries the declined
    /// learned kernel's model (the kind of model the method fits without the fallback),
    /// and the learned kernel is only kept with a CV score above SVM-CV's, with nothing
    /// declined. `no-fallback` removes the check.
    #[test]
    fn learned_kernels_fall_back_to_svm_cv_unless_they_beat_it() {
        use crate::learner::{Method, FELL_BACK};
        use crate::method::MethodKind;
        use crate::options::MethodOptions;
        let data = sandwich(80, 0.3, 9).unwrap();
        let settings = small_grid();
        let svm = Method::defaults(
            "svm".parse::<MethodKind>().unwrap(),
            &data,
            Some(settings.clone()),
            3,
        )
        .unwrap();
        let svm_fit = svm.fit(&data.x, &data.y, 3, &|_| {}).unwrap();
        let svm_pred = svm_fit.model.predict(&data.x).unwrap();
        let svm_score = svm_fit.chosen.cv_score.unwrap();
        let mut fell_back = 0;
        // Every classifier of the catalogue that reads `no-fallback`: a learner that
        // decided or marked its fallback outside [`Fallback`] would miss the flag.
        let with_fallback: Vec<MethodKind> = MethodKind::all()
            .filter(|k| k.supports(Task::Classification))
            .filter(|k| {
                (k.info().options.iter().flat_map(|g| g.iter()))
                    .any(|o| o.name == crate::learner::options::NO_FALLBACK.name)
            })
            .collect();
        let names: Vec<&str> = with_fallback.iter().map(|k| k.name()).collect();
        for expected in [
            "knpl", "dank", "uniform", "mwumkl", "easymkl", "ldmkl", "lmkl", "ard",
        ] {
            assert!(names.contains(&expected), "{expected} not among {names:?}");
        }
        for kind in with_fallback {
            let m = Method::defaults(kind, &data, Some(settings.clone()), 3).unwrap();
            let fit = m.fit(&data.x, &data.y, 3, &|_| {}).unwrap();
            let mut options = MethodOptions::default();
            options.seed = 3;
            options.set("no-fallback", "true").unwrap();
            let m = Method::build(kind, &options, &data, Some(settings.clone())).unwrap();
            let kept = m.fit(&data.x, &data.y, 3, &|_| {}).unwrap();
            assert!(!kept.chosen.other.contains_key(FELL_BACK), "{kind:?}");
            assert!(kept.model.kind() != "svm", "{kind:?}");
            assert!(kept.declined.is_none(), "{kind:?}");
            let flag = fit.chosen.other.get(FELL_BACK).copied();
            match flag {
                Some(1.0) => {
                    fell_back += 1;
                    assert!(fit.model.kind() == "svm", "{kind:?}");
                    assert_eq!(fit.model.predict(&data.x).unwrap(), svm_pred, "{kind:?}");
                    assert!(
                        fit.chosen.other.contains_key("learned_cv_score"),
                        "{kind:?}"
                    );
                    let declined = fit
                        .declined
                        .as_ref()
                        .expect("a fallback keeps the learned model");
                    assert_eq!(declined.kind(), kept.model.kind(), "{kind:?}");
                    assert_eq!(declined.n_features(), data.x.n_cols(), "{kind:?}");
                }
                Some(0.0) => {
                    assert!(fit.model.kind() != "svm", "{kind:?}");
                    assert!(fit.chosen.cv_score.unwrap() > svm_score, "{kind:?}");
                    assert!(fit.declined.is_none(), "{kind:?}");
                }
                other => panic!("{kind:?}: {FELL_BACK} = {other:?}"),
            }
        }
        assert!(
            fell_back > 0,
            "no method fell back: the declined model went untested"
        );
        // Options a method does not read are refused: SVM-CV has no fallback.
        let mut options = MethodOptions::default();
        options.set("no-fallback", "true").unwrap();
        assert!(
            Method::build("svm".parse::<MethodKind>().unwrap(), &options, &data, None).is_err()
        );
    }

    /// Every checked fit records its evidence: both sides' scores on the selection folds
    /// and, with `confirm_always`, on the confirmation partition, which has its own
    /// number of folds when `confirmation_folds` says so.
    #[test]
    fn the_evidence_records_both_partitions_with_their_own_folds() {
        use crate::learner::Method;
        let data = sandwich(80, 0.3, 9).unwrap();
        let settings = GridSettings {
            confirm_always: true,
            confirmation_folds: Some(3),
            ..small_grid()
        };
        let kind = "uniform".parse().unwrap();
        let m = Method::defaults(kind, &data, Some(settings), 3).unwrap();
        let fit = m.fit(&data.x, &data.y, 3, &|_| {}).unwrap();
        let evidence = fit.chosen.fallback_evidence.expect("the check ran");
        assert_eq!((evidence.learned.len(), evidence.svm.len()), (5, 5));
        let [l, b] = evidence.confirmation.expect("confirmation always");
        assert_eq!((l.len(), b.len()), (3, 3));
    }

    /// The fallback keeps a learned kernel only when the win on the selection folds is
    /// confirmed on fresh folds: a "learned" model that is the base SVM itself, given
    /// selection scores that claim a clear win, is refused (the refits tie); a model that
    /// really is better (the base SVM with a useless width) is kept; a selection-fold loss
    /// is refused without refitting.
    #[test]
    fn the_fallback_confirms_a_win_on_fresh_folds() {
        let data = sandwich(120, 0.3, 4).unwrap();
        let svm = |sigma: f64| SvmParams {
            kernel: Kernel::rbf_sigma(sigma).unwrap(),
            c: 4.0,
            ..SvmParams::default()
        };
        let good = SvmLearner {
            params: svm(0.7),
            search: None,
        };
        let (x, y) = (&data.x, &data.y);
        let claimed = [0.95, 0.96, 0.94, 0.97, 0.95];
        let base_scores = [0.80, 0.82, 0.79, 0.81, 0.80];
        // Same model as the base: the selection folds' win does not survive the refit.
        let (win, loss) = (
            (&claimed[..], &base_scores[..]),
            (&base_scores[..], &claimed[..]),
        );
        let check = |base: f64, (l, b): (&[f64], &[f64]), always: bool| {
            let mut evidence = FallbackEvidence {
                learned: l.to_vec(),
                svm: b.to_vec(),
                confirmation: None,
            };
            let keep = wins_twice(
                &good,
                &svm(base),
                (x, y, None),
                (5, 1, always),
                &mut evidence,
            );
            (keep.unwrap(), evidence.confirmation)
        };
        let (keep, confirmation) = check(0.7, win, false);
        assert!(!keep && confirmation.is_some());
        // A real win: σ = 0.7 against a width 1000× too large (a near-constant kernel).
        let (keep, confirmation) = check(700.0, win, false);
        assert!(keep);
        let [l, b] = confirmation.unwrap();
        assert!(l.iter().sum::<f64>() > b.iter().sum::<f64>());
        // No win on the selection folds: refused before any refit, unless measuring.
        assert_eq!(check(700.0, loss, false), (false, None));
        let (keep, confirmation) = check(700.0, loss, true);
        assert!(!keep && confirmation.is_some_and(|[l, _]| l.len() == 5));
    }
}
