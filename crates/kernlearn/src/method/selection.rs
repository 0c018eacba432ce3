//! The two selection shapes the learners share, written once:
//!
//! - SVM-CV first: the papers' SVM-CV / SVR-CV on the base kernel first (σ, C and ε by a
//!   k-fold grid search); the learner then copies the chosen values into its own
//!   parameters (KNPL, DANK, scalable DANK, the SVM itself).
//! - the best value / best candidate: fixed-parameter candidates of one learner (C over
//!   the grid's Cs, EasyMKL's λ, …) scored by k-fold CV ([`select_candidate`]); the best
//!   one is fitted.
//! - the base-kernel fallback (issue 19): a learned-kernel method's CV score is compared
//!   with SVM-CV's on the same folds (both use `stratified_kfold(y, folds, seed)`, or
//!   `kfold` for regression); unless the learned kernel is better by more than one
//!   standard error of the fold-wise difference ([`beats`]), the fit is the SVM-CV
//!   model ([`fall_back`]) and [`super::FELL_BACK`] says so.

use super::{
    timed, ChosenParams, FittedMethod, GridSettings, Learner, Progress, ProgressFn, FELL_BACK,
};
use crate::data::Features;
use crate::estimator::{AnyModel, Task};
use crate::select::Selection;
use crate::svm::{SvmModel, SvmParams, SvmType};
use crate::Result;
use std::time::Instant;

/// A selection's record and the seconds it took.
pub(crate) struct Selected<T> {
    /// What was chosen.
    pub(crate) chosen: T,
    /// Mean CV score of the chosen point (accuracy, or MSE for regression).
    pub(crate) score: f64,
    /// The chosen point's score on each fold.
    pub(crate) fold_scores: Vec<f64>,
    /// Seconds spent.
    pub(crate) seconds: f64,
}

impl<L: Clone> Selected<L> {
    /// The pick `(index, mean score, fold scores)` of [`pick_best`] among `candidates`,
    /// for a selection that began at `start`.
    fn of(
        candidates: &[L],
        (best, score, fold_scores): (usize, f64, Vec<f64>),
        start: Instant,
    ) -> Self {
        Self {
            chosen: candidates[best].clone(),
            score,
            fold_scores,
            seconds: start.elapsed().as_secs_f64(),
        }
    }
}

/// SVM-CV / SVR-CV of `base` over `search`'s grid (folds seeded by `seed`): the grid
/// search's record, whose `params` carry the chosen kernel, C and ε.
pub(crate) fn svm_cv(
    search: &GridSettings,
    base: &SvmParams,
    x: &Features,
    y: &[f64],
    seed: u64,
    progress: ProgressFn,
) -> Result<Selected<Selection>> {
    let start = Instant::now();
    let selection = search
        .search(base, seed)
        .run(x, y, &|| progress(Progress::Step))?;
    Ok(Selected {
        score: selection.best.score,
        fold_scores: selection.best.fold_scores.clone(),
        chosen: selection,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Whether a learned kernel beats the base SVM in CV, by the one-standard-error rule on
/// the same folds: with `d_f` the learned kernel's fold score minus the base SVM's
/// (base minus learned for MSE, so that `d_f > 0` favours the learned kernel), the
/// learned kernel is kept only when `mean(d) > SE(d) = std(d)/√k` (sample std, k folds;
/// `mean(d) > 0` for a single fold). Ties and differences within the folds' noise keep
/// the simpler base model: both CV scores are maxima over their own candidates, and a
/// margin smaller than the fold-to-fold spread did not carry over to new data
/// (docs/RESULTS.md, "Paired comparisons").
pub(crate) fn beats(learned: &[f64], base: &[f64], regression: bool) -> bool {
    let d: Vec<f64> = learned
        .iter()
        .zip(base)
        .map(|(l, b)| if regression { b - l } else { l - b })
        .collect();
    if d.is_empty() || learned.len() != base.len() {
        return false;
    }
    let k = d.len() as f64;
    let mean = d.iter().sum::<f64>() / k;
    let se = if d.len() < 2 {
        0.0
    } else {
        (d.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (k - 1.0)).sqrt() / k.sqrt()
    };
    mean > se && mean > 0.0
}

/// SVM-CV (C-SVC, Gaussian kernel, `search`'s grid, solver `base`'s) on the folds the
/// candidate CV of [`best_candidate`] uses, for the fallback of the kernel-family methods.
pub(crate) fn base_svm_cv(
    search: &GridSettings,
    solver: crate::svm::SolverSettings,
    x: &Features,
    y: &[f64],
    seed: u64,
    progress: ProgressFn,
) -> Result<Selected<Selection>> {
    let base = SvmParams {
        svm_type: SvmType::CSvc,
        solver,
        ..SvmParams::default()
    };
    svm_cv(search, &base, x, y, seed, progress)
}

/// The fallback of issue 19: the SVM-CV model of `svm` fitted on `(x, y)`, with
/// [`FELL_BACK`] = 1 and the learned kernel's best CV score `learned_score` recorded
/// (`learned_cv_score`) beside SVM-CV's (`cv_score`). `select_seconds`: the whole
/// selection (SVM-CV and the learned kernel's candidates).
pub(crate) fn fall_back(
    svm: Selected<Selection>,
    learned_score: f64,
    x: &Features,
    y: &[f64],
    select_seconds: f64,
) -> Result<FittedMethod> {
    let params = svm.chosen.params.clone();
    let mut chosen = ChosenParams::of_svm(&params);
    chosen.cv_score = Some(svm.score);
    chosen.other.insert(FELL_BACK.into(), 1.0);
    chosen
        .other
        .insert("learned_cv_score".into(), learned_score);
    let (model, secs) = timed(|| SvmModel::fit(&params, x, y))?;
    Ok(FittedMethod::new(AnyModel::Svm(model), chosen, secs)
        .selected(select_seconds, Some(svm.chosen)))
}

/// The learner `make(v)` for the best of `values` by k-fold CV (the "C over the grid"
/// shape: MKL's C or λ, LIBLINEAR+'s C, the localized methods' C).
pub(crate) fn best_value<L: Learner + Clone>(
    values: &[f64],
    make: impl Fn(f64) -> L,
    search: &GridSettings,
    x: &Features,
    y: &[f64],
    seed: u64,
    progress: ProgressFn,
) -> Result<Selected<L>> {
    let candidates = values.iter().map(|&v| make(v)).collect();
    best_candidate(candidates, search, x, y, seed, progress)
}

/// The best of `candidates` by k-fold CV (folds of `search`), fitted candidates
/// reporting progress; ties go to the earlier candidate.
pub(crate) fn best_candidate<L: Learner + Clone>(
    candidates: Vec<L>,
    search: &GridSettings,
    x: &Features,
    y: &[f64],
    seed: u64,
    progress: ProgressFn,
) -> Result<Selected<L>> {
    let start = Instant::now();
    let pick = cv_candidates(&candidates, x, y, search.folds, seed, progress)?;
    Ok(Selected::of(&candidates, pick, start))
}

/// k-fold cross-validation of fixed-parameter candidates (each fitted with its own
/// parameters, no inner search): stratified folds seeded by `seed` for classification,
/// plain folds for regression; all (candidate, fold) fits run in parallel and each
/// reports one [`Progress::Step`]. Returns the index of the best candidate and its mean
/// fold score (accuracy, or MSE for regression). Ties go to the earlier candidate, so
/// callers list the simpler models first.
pub fn select_candidate<L: Learner>(
    candidates: &[L],
    x: &Features,
    y: &[f64],
    folds: usize,
    seed: u64,
    progress: ProgressFn,
) -> Result<(usize, f64)> {
    let (best, score, _) = cv_candidates(candidates, x, y, folds, seed, progress)?;
    Ok((best, score))
}

/// [`select_candidate`] with the best candidate's score on each fold.
pub(crate) fn cv_candidates<L: Learner>(
    candidates: &[L],
    x: &Features,
    y: &[f64],
    folds: usize,
    seed: u64,
    progress: ProgressFn,
) -> Result<(usize, f64, Vec<f64>)> {
    let listed: Vec<&dyn Learner> = candidates.iter().map(|c| c as &dyn Learner).collect();
    let scores = fold_scores(&listed, x, y, folds, seed, progress)?;
    let regression = candidates.first().map(|c| c.task()) == Some(Task::Regression);
    Ok(pick_best(scores, regression))
}

/// The candidate with the best mean fold score (ties to the earlier one), that mean and
/// its fold scores.
fn pick_best(scores: Vec<Vec<f64>>, regression: bool) -> (usize, f64, Vec<f64>) {
    let means: Vec<f64> = scores
        .iter()
        .map(|s| s.iter().sum::<f64>() / s.len() as f64)
        .collect();
    let better = |a: f64, b: f64| if regression { a < b } else { a > b };
    let best = (1..means.len()).fold(0, |b, c| if better(means[c], means[b]) { c } else { b });
    (best, means[best], scores[best].clone())
}

/// [`best_candidate`] for candidates fitted together on each fold: `fit_path(x, y, q)`
/// fits all of them on a training part `(x, y)` (sharing what they can, e.g. DANK's η
/// path) and returns each one's predictions on the held-out rows `q`, in order; it
/// reports one [`Progress::Step`] per candidate.
pub(crate) fn best_on_path<L: Clone>(
    candidates: Vec<L>,
    regression: bool,
    search: &GridSettings,
    x: &Features,
    y: &[f64],
    seed: u64,
    fit_path: &FoldFit,
) -> Result<Selected<L>> {
    let start = Instant::now();
    let scores = fold_scores_with(
        candidates.len(),
        regression,
        x,
        y,
        search.folds,
        seed,
        fit_path,
    )?;
    Ok(Selected::of(
        &candidates,
        pick_best(scores, regression),
        start,
    ))
}

/// One fold's fits: from the training part and the held-out rows, each candidate's
/// predictions on those rows.
pub(crate) type FoldFit<'a> =
    dyn Fn(&Features, &[f64], &Features) -> Result<Vec<Vec<f64>>> + Sync + 'a;

/// The score (accuracy, or MSE for regression) of every candidate on every fold of a
/// k-fold split seeded by `seed` (stratified for classification): `scores[c][f]`. All
/// (candidate, fold) fits run in parallel and each reports one [`Progress::Step`].
fn fold_scores(
    candidates: &[&dyn Learner],
    x: &Features,
    y: &[f64],
    folds: usize,
    seed: u64,
    progress: ProgressFn,
) -> Result<Vec<Vec<f64>>> {
    use rayon::prelude::*;
    let regression = candidates.first().map(|c| c.task()) == Some(Task::Regression);
    let fit_each: &FoldFit = &|xt, yt, held| {
        (candidates.par_iter())
            .map(|c| {
                let fitted = c.fit(xt, yt, seed, &|_| {})?;
                progress(Progress::Step);
                c.predict_held_out(&fitted, held)
            })
            .collect()
    };
    fold_scores_with(candidates.len(), regression, x, y, folds, seed, fit_each)
}

/// [`fold_scores`] with the fits of each fold made by `fit_fold` (folds in parallel).
fn fold_scores_with(
    candidates: usize,
    regression: bool,
    x: &Features,
    y: &[f64],
    folds: usize,
    seed: u64,
    fit_fold: &FoldFit,
) -> Result<Vec<Vec<f64>>> {
    use crate::data::{complement, kfold, stratified_kfold};
    use rayon::prelude::*;
    if candidates == 0 {
        return Err(crate::Error::param(
            "grid",
            "is empty; give at least one value",
        ));
    }
    let folds = if regression {
        kfold(y.len(), folds, seed)?
    } else {
        stratified_kfold(y, folds, seed)?
    };
    let per_fold: Vec<Vec<f64>> = folds
        .par_iter()
        .map(|test| {
            let train = complement(y.len(), test);
            let pick = |rows: &[usize]| rows.iter().map(|&i| y[i]).collect::<Vec<f64>>();
            let truth = pick(test);
            let predictions =
                fit_fold(&x.select_rows(&train), &pick(&train), &x.select_rows(test))?;
            if predictions.len() != candidates {
                return Err(crate::Error::numerical(format!(
                    "a fold's fits gave {} predictions for {candidates} candidates",
                    predictions.len()
                )));
            }
            (predictions.iter())
                .map(|p| {
                    if regression {
                        crate::metrics::mse(p, &truth)
                    } else {
                        crate::metrics::accuracy(p, &truth)
                    }
                })
                .collect()
        })
        .collect::<Result<_>>()?;
    Ok((0..candidates)
        .map(|c| per_fold.iter().map(|f| f[c]).collect())
        .collect())
}

/// Seed offset of the confirmation folds of [`keeps_learned`]: a second fold partition,
/// unrelated to the one the candidates were chosen on.
const CONFIRMATION_SEED: u64 = 0x5eed_c0f1_2a11_0b0c;

/// The base-kernel fallback's decision (issue 19): whether to keep the learned kernel
/// `learned` (its best candidate's selection) over SVM-CV's choice `svm`, the two scored
/// on the same folds; see [`wins_twice`].
pub(crate) fn keeps_learned<L: Learner>(
    learned: &Selected<L>,
    svm: &Selected<Selection>,
    x: &Features,
    y: &[f64],
    folds: usize,
    seed: u64,
) -> Result<bool> {
    let selection = (&learned.fold_scores[..], &svm.fold_scores[..]);
    wins_twice(
        &learned.chosen,
        &svm.chosen.params,
        selection,
        x,
        y,
        folds,
        seed,
    )
}

/// Keep the learned kernel `learned` (fixed at its chosen settings) over the SVM `base`
/// (fixed at SVM-CV's σ, C, ε) only when it wins twice by the one-standard-error rule of
/// [`beats`]:
///
/// 1. on the selection folds (`selection`: both choices' scores on the folds that chose
///    them, learned first);
/// 2. on a fresh k-fold partition (seed `seed ^ CONFIRMATION_SEED`), both refitted there.
///
/// Both selection scores are maxima over their own candidates, so a win on the folds
/// that chose them is biased upwards (the winner's curse): on heart, a learned kernel
/// that passed (1) lost on the test half more often than it won (docs/RESULTS.md,
/// "Paired comparisons"). The second partition re-estimates both *chosen* models
/// without that selection, at the cost of `2k` fits, and only when (1) passed.
fn wins_twice(
    learned: &dyn Learner,
    base: &SvmParams,
    (learned_folds, base_folds): (&[f64], &[f64]),
    x: &Features,
    y: &[f64],
    folds: usize,
    seed: u64,
) -> Result<bool> {
    let regression = learned.task() == Task::Regression;
    if !beats(learned_folds, base_folds, regression) {
        return Ok(false);
    }
    let base = crate::svm::learner::SvmLearner {
        params: base.clone(),
        search: None,
    };
    let scores = fold_scores(
        &[learned, &base],
        x,
        y,
        folds,
        seed ^ CONFIRMATION_SEED,
        &|_| {},
    )?;
    Ok(beats(&scores[0], &scores[1], regression))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::synthetic::sandwich;
    use crate::estimator::Estimator;
    use crate::kernel::Kernel;
    use crate::select::{powers_of_two, Grid};
    use crate::svm::learner::SvmLearner;

    /// The generic candidate CV scores a list of fixed SVMs exactly as the grid search
    /// scores the same points on the same folds (an independent code path: Gram reuse,
    /// C paths, warm starts).
    #[test]
    fn candidate_cv_matches_the_grid_search() {
        let data = sandwich(150, 0.3, 4).unwrap();
        let settings = GridSettings {
            grid: Grid {
                sigmas: vec![0.5],
                cs: powers_of_two(-3, 5),
                epsilons: vec![],
            },
            ..GridSettings::default()
        };
        let base = SvmParams::default();
        let selection = settings
            .search(&base, 7)
            .run(&data.x, &data.y, &|| {})
            .unwrap();
        let candidates: Vec<SvmLearner> = settings
            .grid
            .cs
            .iter()
            .map(|&c| SvmLearner {
                params: SvmParams {
                    kernel: Kernel::rbf_gamma(4.0).unwrap(),
                    c,
                    ..base.clone()
                },
                search: None,
            })
            .collect();
        let (best, score) = select_candidate(&candidates, &data.x, &data.y, 5, 7, &|_| {}).unwrap();
        assert!(
            (score - selection.best.score).abs() < 1e-12,
            "{score} vs {}",
            selection.best.score
        );
        assert_eq!(settings.grid.cs[best], selection.best.c);
        let none: &[SvmLearner] = &[];
        assert!(select_candidate(none, &data.x, &data.y, 5, 7, &|_| {}).is_err());
    }

    /// A path selection scores each candidate from its fold's predictions and picks the
    /// best (ties to the earlier one); no candidates, or a fold job that returns fewer
    /// predictions than candidates, is an error that says so.
    #[test]
    fn a_path_selection_checks_its_fold_results() {
        let data = sandwich(60, 0.3, 4).unwrap();
        let search = GridSettings {
            grid: Grid::default(),
            folds: 3,
            gram_budget_bytes: 1 << 20,
        };
        // Candidate 0 predicts the truth's negation, candidate 1 the class +1 throughout.
        let negated: Vec<f64> = data.y.iter().map(|v| -v).collect();
        let truth_of = |held: &Features| -> Vec<f64> {
            (0..held.n_rows())
                .map(|r| {
                    let row = held.row(r);
                    let t = (0..data.y.len()).find(|&i| data.x.row(i) == row).unwrap();
                    negated[t]
                })
                .collect()
        };
        let two: &FoldFit = &|_, _, held| Ok(vec![truth_of(held), vec![1.0; held.n_rows()]]);
        let sel = best_on_path(
            vec!["negated", "ones"],
            false,
            &search,
            &data.x,
            &data.y,
            1,
            two,
        )
        .unwrap();
        assert_eq!(sel.chosen, "ones");
        assert_eq!(sel.fold_scores.len(), 3);
        let e = best_on_path(Vec::<&str>::new(), false, &search, &data.x, &data.y, 1, two);
        assert!(e.err().unwrap().to_string().contains("empty"));
        let short: &FoldFit = &|_, _, held| Ok(vec![vec![1.0; held.n_rows()]]);
        let e = best_on_path(vec!["a", "b"], false, &search, &data.x, &data.y, 1, short);
        let message = e.err().unwrap().to_string();
        assert!(
            message.contains("1 predictions for 2 candidates"),
            "{message}"
        );
    }

    /// Issue 19: every learned-kernel method with a search records whether it fell back;
    /// a fallback is exactly the SVM-CV model (same predictions), and the learned kernel
    /// is only kept with a CV score above SVM-CV's. `no-fallback` removes the check.
    #[test]
    fn learned_kernels_fall_back_to_svm_cv_unless_they_beat_it() {
        use crate::method::{Method, MethodKind, MethodOptions, FELL_BACK};
        let data = sandwich(80, 0.3, 9).unwrap();
        let settings = GridSettings {
            grid: Grid {
                sigmas: vec![0.5, 1.0],
                cs: vec![1.0, 4.0],
                epsilons: vec![],
            },
            ..GridSettings::default()
        };
        let svm = Method::defaults(MethodKind::Svm, &data, Some(settings.clone()), 3).unwrap();
        let svm_fit = svm.fit(&data.x, &data.y, 3, &|_| {}).unwrap();
        let svm_pred = svm_fit.model.predict(&data.x).unwrap();
        let svm_score = svm_fit.chosen.cv_score.unwrap();
        for kind in [
            MethodKind::Knpl,
            MethodKind::Dank,
            MethodKind::Mwumkl,
            MethodKind::Ldmkl,
        ] {
            let m = Method::defaults(kind, &data, Some(settings.clone()), 3).unwrap();
            let fit = m.fit(&data.x, &data.y, 3, &|_| {}).unwrap();
            let flag = fit.chosen.other.get(FELL_BACK).copied();
            match flag {
                Some(1.0) => {
                    assert!(matches!(fit.model, AnyModel::Svm(_)), "{kind:?}");
                    assert_eq!(fit.model.predict(&data.x).unwrap(), svm_pred, "{kind:?}");
                    assert!(
                        fit.chosen.other.contains_key("learned_cv_score"),
                        "{kind:?}"
                    );
                }
                Some(0.0) => {
                    assert!(!matches!(fit.model, AnyModel::Svm(_)), "{kind:?}");
                    assert!(fit.chosen.cv_score.unwrap() > svm_score, "{kind:?}");
                }
                other => panic!("{kind:?}: {FELL_BACK} = {other:?}"),
            }
            let mut options = MethodOptions {
                seed: 3,
                ..MethodOptions::default()
            };
            options.set("no-fallback", "true").unwrap();
            let m = Method::build(kind, &options, &data, Some(settings.clone())).unwrap();
            let fit = m.fit(&data.x, &data.y, 3, &|_| {}).unwrap();
            assert!(!fit.chosen.other.contains_key(FELL_BACK), "{kind:?}");
            assert!(!matches!(fit.model, AnyModel::Svm(_)), "{kind:?}");
        }
        // Options a method does not read are refused: SVM-CV has no fallback.
        let mut options = MethodOptions::default();
        options.set("no-fallback", "true").unwrap();
        assert!(Method::build(MethodKind::Svm, &options, &data, None).is_err());
    }

    /// With the fallback, MKL and localized methods run SVM-CV first and score their
    /// candidates at its C: a fitted model's C is SVM-CV's (kept or fallen back), and
    /// the progress events match `steps()` (SVM-CV's grid, then 2 candidates for MWUMKL,
    /// UNIFORM + 10 λ for EasyMKL, 1 for UNIFORM and the localized methods). Without it,
    /// C runs over the grid's Cs.
    #[test]
    fn mkl_and_localized_selections_use_svm_cv_c() {
        use crate::method::{Method, MethodKind, MethodOptions};
        use std::sync::atomic::{AtomicU64, Ordering};
        let data = sandwich(80, 0.3, 9).unwrap();
        let settings = GridSettings {
            grid: Grid {
                sigmas: vec![0.5, 1.0],
                cs: vec![0.25, 1.0, 4.0],
                epsilons: vec![],
            },
            ..GridSettings::default()
        };
        let svm = Method::defaults(MethodKind::Svm, &data, Some(settings.clone()), 3).unwrap();
        let svm_c = svm.fit(&data.x, &data.y, 3, &|_| {}).unwrap().chosen.c;
        let grid_steps = settings.steps();
        for (kind, candidates) in [
            (MethodKind::Uniform, 1),
            (MethodKind::Mwumkl, 2),
            (MethodKind::Easymkl, 11),
            (MethodKind::Ldmkl, 1),
            (MethodKind::Lmkl, 1),
        ] {
            let m = Method::defaults(kind, &data, Some(settings.clone()), 3).unwrap();
            let steps = AtomicU64::new(0);
            let count = |p: Progress| {
                if matches!(p, Progress::Step) {
                    steps.fetch_add(1, Ordering::Relaxed);
                }
            };
            let fit = m.fit(&data.x, &data.y, 3, &count).unwrap();
            let expected = grid_steps + settings.candidate_steps(candidates);
            assert_eq!(m.steps(), expected, "{kind:?}");
            assert_eq!(steps.into_inner(), expected, "{kind:?}");
            if kind != MethodKind::Easymkl {
                assert_eq!(fit.chosen.c, svm_c, "{kind:?}");
            }
            let mut options = MethodOptions {
                seed: 3,
                ..MethodOptions::default()
            };
            options.set("no-fallback", "true").unwrap();
            let m = Method::build(kind, &options, &data, Some(settings.clone())).unwrap();
            let own = if kind == MethodKind::Easymkl { 10 } else { 3 };
            assert_eq!(m.steps(), settings.candidate_steps(own), "{kind:?}");
        }
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
        assert!(!wins_twice(&good, &svm(0.7), win, x, y, 5, 1).unwrap());
        // A real win: σ = 0.7 against a width 1000× too large (a near-constant kernel).
        assert!(wins_twice(&good, &svm(700.0), win, x, y, 5, 1).unwrap());
        // No win on the selection folds: refused before any refit.
        assert!(!wins_twice(&good, &svm(700.0), loss, x, y, 5, 1).unwrap());
    }
}
