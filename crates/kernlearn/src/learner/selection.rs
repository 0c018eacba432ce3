//! The two selection shapes the learners share, written once:
//!
//! - SVM-CV first: the papers' SVM-CV / SVR-CV on the base kernel first (σ, C and ε by a
//!   k-fold grid search); the learner then copies the chosen values into its own
//!   parameters (KNPL, DANK, scalable DANK, the SVM itself).
//! - the best value / best candidate: fixed-parameter candidates of one learner (C over
//!   the grid's Cs, EasyMKL's λ, …) scored by k-fold CV ([`select_candidate`]); the best
//!   one is fitted.
//! - the base-kernel fallback, one protocol for every learned-kernel learner
//!   (`learner::fallback::Fallback`): SVM-CV first, the learned kernel's candidates raced against its
//!   fold scores, then a learned-kernel method's CV score is compared with SVM-CV's on
//!   the same folds (both use `stratified_kfold(y, folds, seed)`, or `kfold` for
//!   regression); unless the learned kernel is better by more than one standard error
//!   of the fold-wise difference ([`beats`]), confirmed on a second partition, the fit
//!   is the SVM-CV model (`fall_back`) and [`super::FELL_BACK`] says so either way.

use super::{GridSettings, Learner, Progress, ProgressFn};
use crate::data::Features;
use crate::predictor::Task;
use crate::select::{Scoring, SearchRows, Selection};
use crate::svm::{SvmParams, SvmType};
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
    svm_cv_on(search, base, SearchRows::Dense(x), y, None, seed, progress)
}

/// [`svm_cv`] on dense or sparse rows, with per-sample weights when given (they weight
/// every fold's training and scoring).
pub(crate) fn svm_cv_on(
    search: &GridSettings,
    base: &SvmParams,
    x: SearchRows,
    y: &[f64],
    weights: Option<&[f64]>,
    seed: u64,
    progress: ProgressFn,
) -> Result<Selected<Selection>> {
    let start = Instant::now();
    let mut grid = search.search(base, seed);
    grid.sample_weights = weights.map(<[f64]>::to_vec);
    let selection = grid.run_rows(x, y, &|| progress(Progress::Step))?;
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
    gain_and_se(learned, base, regression).is_some_and(|(mean, se)| mean > se && mean > 0.0)
}

/// `(mean(d), SE(d))` of [`beats`], or `None` for no folds or unpaired scores.
fn gain_and_se(learned: &[f64], base: &[f64], regression: bool) -> Option<(f64, f64)> {
    let d: Vec<f64> = learned
        .iter()
        .zip(base)
        .map(|(l, b)| if regression { b - l } else { l - b })
        .collect();
    if d.is_empty() || learned.len() != base.len() {
        return None;
    }
    let k = d.len() as f64;
    let mean = d.iter().sum::<f64>() / k;
    let se = if d.len() < 2 {
        0.0
    } else {
        (d.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (k - 1.0)).sqrt() / k.sqrt()
    };
    Some((mean, se))
}

/// Whether a learned kernel scored on the first folds only (`learned`, a prefix of its
/// fold scores) could still pass [`beats`] against `base` (all folds): whether it
/// passes when every remaining fold gets the best possible score (accuracy 1, MSE 0).
///
/// That completion is the best one because `mean(d) − SE(d)` never decreases when one
/// `d_f` grows: `∂/∂d_f = 1/k − (d_f − mean)/((k−1)·s·√k)`, and in any sample
/// `d_f − mean ≤ s·(k−1)/√k` (Samuelson's inequality), so the derivative is at least 0;
/// `mean > 0` grows with `d_f` too. So if that completion fails [`beats`], every
/// completion does (tested against every completion on a grid of scores). In floating
/// point only the SE is not monotone, and `mean = SE` exactly is a common case (a tie on
/// every fold but one), where rounding settles [`beats`]: the SE test here allows a
/// relative `10⁻⁹`, so that the race never stops on that boundary.
pub(crate) fn could_beat(learned: &[f64], base: &[f64], regression: bool) -> bool {
    let best = if regression { 0.0 } else { 1.0 };
    let remaining = base.len().saturating_sub(learned.len());
    let completed: Vec<f64> = (learned.iter().copied())
        .chain(std::iter::repeat_n(best, remaining))
        .collect();
    gain_and_se(&completed, base, regression)
        .is_some_and(|(mean, se)| mean > 0.0 && mean - se > -1e-9 * (mean.abs() + se))
}

/// SVM-CV (C-SVC, Gaussian kernel, `search`'s grid, solver `base`'s) on the folds the
/// candidate CV of [`best_candidate`] uses, for the fallback of the kernel-family methods;
/// with per-sample weights when given (each fold trained and scored with them, as
/// [`svm_cv_on`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn base_svm_cv(
    search: &GridSettings,
    solver: crate::svm::SolverSettings,
    x: &Features,
    y: &[f64],
    weights: Option<&[f64]>,
    seed: u64,
    progress: ProgressFn,
) -> Result<Selected<Selection>> {
    let base = SvmParams {
        svm_type: SvmType::CSvc,
        solver,
        ..SvmParams::default()
    };
    svm_cv_on(
        search,
        &base,
        SearchRows::Dense(x),
        y,
        weights,
        seed,
        progress,
    )
}

/// The learner `make(v)` for the best of `values` by k-fold CV on `rows` (the "C over
/// the grid" shape: MKL's C or λ, LIBLINEAR+'s C, the localized methods' C); `race` as
/// in [`best_candidate`].
pub(crate) fn best_value<L: Learner + Clone>(
    values: &[f64],
    make: impl Fn(f64) -> L,
    search: &GridSettings,
    rows: CvRows,
    seed: u64,
    progress: ProgressFn,
    race: Option<&[f64]>,
) -> Result<Selected<L>> {
    let candidates = values.iter().map(|&v| make(v)).collect();
    best_candidate(candidates, search, rows, seed, progress, race)
}

/// The rows a candidate CV runs on: features, labels and, when given, per-sample
/// weights (each fold's candidates fitted with their training rows' weights,
/// [`Learner::fit_weighted`], and scored by the weighted accuracy or MSE of the
/// held-out rows).
pub(crate) type CvRows<'a> = (&'a Features, &'a [f64], Option<&'a [f64]>);

/// The best of `candidates` by k-fold CV (folds of `search`) on `(x, y, weights)`,
/// fitted candidates reporting progress; ties go to the earlier candidate. With `race`
/// (the base SVM's scores on the same folds, for the fallback of `keeps_learned`), the
/// CV stops as soon as no candidate [`could_beat`] them: the fallback is then certain,
/// and the returned fold scores are those of the folds scored until then.
pub(crate) fn best_candidate<L: Learner + Clone>(
    candidates: Vec<L>,
    search: &GridSettings,
    (x, y, weights): CvRows,
    seed: u64,
    progress: ProgressFn,
    race: Option<&[f64]>,
) -> Result<Selected<L>> {
    let start = Instant::now();
    let folds = Folds::new(search.folds, seed, race).weighted(weights);
    let pick = cv_candidates(&candidates, x, y, folds, progress)?;
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
    let folds = Folds::new(folds, seed, None);
    let (best, score, _) = cv_candidates(candidates, x, y, folds, progress)?;
    Ok((best, score))
}

/// [`select_candidate`] on `folds`, with the best candidate's score on each fold.
fn cv_candidates<L: Learner>(
    candidates: &[L],
    x: &Features,
    y: &[f64],
    folds: Folds,
    progress: ProgressFn,
) -> Result<(usize, f64, Vec<f64>)> {
    let listed: Vec<&dyn Learner> = candidates.iter().map(|c| c as &dyn Learner).collect();
    let scores = fold_scores(&listed, x, y, folds, progress)?;
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
/// reports one [`Progress::Step`] per candidate (and the race, the steps of the folds
/// it skips).
#[allow(clippy::too_many_arguments)]
pub(crate) fn best_on_path<L: Clone>(
    candidates: Vec<L>,
    regression: bool,
    search: &GridSettings,
    x: &Features,
    y: &[f64],
    seed: u64,
    (fit_path, progress): (&FoldFit, ProgressFn),
    race: Option<&[f64]>,
) -> Result<Selected<L>> {
    let start = Instant::now();
    let folds = Folds::new(search.folds, seed, race);
    let jobs = (candidates.len(), 1);
    // Unweighted folds: the weights argument is always `None` here.
    let fit_fold: &WeightedFoldFit = &|xt, yt, _, held| fit_path(xt, yt, held);
    let (scores, run) = fold_scores_with(jobs, regression, x, y, folds, fit_fold)?;
    report_skipped(candidates.len() * (search.folds - run), progress);
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

/// [`FoldFit`] given the training part's per-sample weights too (`None` unweighted).
type WeightedFoldFit<'a> =
    dyn Fn(&Features, &[f64], Option<&[f64]>, &Features) -> Result<Vec<Vec<f64>>> + Sync + 'a;

/// The k-fold split of a candidate CV (`k` folds seeded by `seed`), the per-sample
/// weights of the rows when given and, for a learned kernel with the fallback, the base
/// SVM's scores on the same folds that its candidates race against ([`could_beat`]).
#[derive(Clone, Copy)]
pub(super) struct Folds<'a> {
    k: usize,
    seed: u64,
    race: Option<&'a [f64]>,
    weights: Option<&'a [f64]>,
}

impl<'a> Folds<'a> {
    pub(super) fn new(k: usize, seed: u64, race: Option<&'a [f64]>) -> Self {
        Self {
            k,
            seed,
            race,
            weights: None,
        }
    }

    /// These folds with per-sample weights `weights` (one per row; `None` unweighted):
    /// the fold assignment is the same (weights do not move rows between folds); each
    /// fold's training rows are fitted with their weights and its held-out rows scored
    /// by theirs.
    pub(super) fn weighted(self, weights: Option<&'a [f64]>) -> Self {
        Self { weights, ..self }
    }
}

/// The score (accuracy, or MSE for regression) of every candidate on every fold of a
/// k-fold split seeded by `seed` (stratified for classification): `scores[c][f]`. All
/// (candidate, fold) fits run in parallel and each reports one [`Progress::Step`].
pub(super) fn fold_scores(
    candidates: &[&dyn Learner],
    x: &Features,
    y: &[f64],
    folds: Folds,
    progress: ProgressFn,
) -> Result<Vec<Vec<f64>>> {
    use rayon::prelude::*;
    let regression = candidates.first().map(|c| c.task()) == Some(Task::Regression);
    let fit_each: &WeightedFoldFit = &|xt, yt, wt, held| {
        (candidates.par_iter())
            .map(|c| {
                let fitted = match wt {
                    Some(w) => c.fit_weighted(xt, yt, w, folds.seed, &|_| {})?,
                    None => c.fit(xt, yt, folds.seed, &|_| {})?,
                };
                progress(Progress::Step);
                c.predict_held_out(&fitted, held)
            })
            .collect()
    };
    let jobs = (candidates.len(), candidates.len());
    let (scores, run) = fold_scores_with(jobs, regression, x, y, folds, fit_each)?;
    report_skipped(candidates.len() * (folds.k - run), progress);
    Ok(scores)
}

/// The [`Progress::Step`]s of the `skipped` (candidate, fold) fits a race saved, so
/// that a progress bar still ends at the learner's `steps()`.
fn report_skipped(skipped: usize, progress: ProgressFn) {
    (0..skipped).for_each(|_| progress(Progress::Step));
}

/// [`fold_scores`] with the fits of each fold made by `fit_fold` (folds in parallel),
/// given the training part's weights when `folds` has weights (each fold is then scored
/// by the weighted accuracy or MSE of its held-out rows, `crate::select::Scoring`).
///
/// `(candidates, jobs)`: the number of candidates, and of parallel jobs `fit_fold` runs
/// for a fold (one per candidate, or one for a path). With a race, the folds are scored
/// in order, in waves of as many folds as there are threads per job; after each wave,
/// the scores stop at the first fold `j` at which no candidate [`could_beat`] the base
/// SVM on the folds so far: then no candidate's full CV would pass [`beats`], so the
/// fallback is certain. The scores returned (those of folds `0..j`) do not depend on
/// the wave size; with them, the number of folds fitted (for the progress steps).
fn fold_scores_with(
    (candidates, jobs): (usize, usize),
    regression: bool,
    x: &Features,
    y: &[f64],
    folds: Folds,
    fit_fold: &WeightedFoldFit,
) -> Result<(Vec<Vec<f64>>, usize)> {
    use crate::data::{complement, kfold, stratified_kfold};
    use rayon::prelude::*;
    if candidates == 0 {
        return Err(crate::Error::param(
            "grid",
            "is empty; give at least one value",
        ));
    }
    let splits = if regression {
        kfold(y.len(), folds.k, folds.seed)?
    } else {
        stratified_kfold(y, folds.k, folds.seed)?
    };
    let score_fold = |test: &Vec<usize>| -> Result<Vec<f64>> {
        let train = complement(y.len(), test);
        let pick = |rows: &[usize]| rows.iter().map(|&i| y[i]).collect::<Vec<f64>>();
        let truth = pick(test);
        let weights_of = |rows: &[usize]| {
            folds
                .weights
                .map(|w| rows.iter().map(|&i| w[i]).collect::<Vec<f64>>())
        };
        let (train_w, test_w) = (weights_of(&train), weights_of(test));
        let (xt, held) = (x.select_rows(&train), x.select_rows(test));
        let predictions = fit_fold(&xt, &pick(&train), train_w.as_deref(), &held)?;
        if predictions.len() != candidates {
            return Err(crate::Error::numerical(format!(
                "a fold's fits gave {} predictions for {candidates} candidates",
                predictions.len()
            )));
        }
        (predictions.iter())
            .map(|p| match &test_w {
                Some(w) => Scoring::default_for(regression).score(p, &truth, Some(w)),
                None if regression => crate::metrics::mse(p, &truth),
                None => crate::metrics::accuracy(p, &truth),
            })
            .collect()
    };
    debug_assert!(folds.race.is_none_or(|base| base.len() == splits.len()));
    let race = folds.race.filter(|base| base.len() == splits.len());
    let wave = match race {
        Some(_) => (rayon::current_num_threads() / jobs.max(1)).max(1),
        None => splits.len().max(1),
    };
    let (mut per_fold, mut run) = (Vec::with_capacity(splits.len()), 0);
    'waves: for tests in splits.chunks(wave) {
        let scored: Vec<Result<Vec<f64>>> = tests.par_iter().map(score_fold).collect();
        run += tests.len();
        // Fold by fold, in order: a fold after the stop is ignored, error or not, so
        // that neither the scores nor the outcome depend on the wave size.
        for fold in scored {
            per_fold.push(fold?);
            if race.is_some_and(|base| hopeless(&per_fold, base, candidates, regression)) {
                break 'waves;
            }
        }
    }
    let scores = (0..candidates)
        .map(|c| per_fold.iter().map(|f| f[c]).collect())
        .collect();
    Ok((scores, run))
}

/// Whether no candidate [`could_beat`] `base` with its scores on the folds scored so far
/// (`per_fold[f][c]`).
fn hopeless(per_fold: &[Vec<f64>], base: &[f64], candidates: usize, regression: bool) -> bool {
    (0..candidates).all(|c| {
        let learned: Vec<f64> = per_fold.iter().map(|f| f[c]).collect();
        !could_beat(&learned, base, regression)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::synthetic::sandwich;
    use crate::kernel::Kernel;
    use crate::learner::SvmLearner;
    use crate::select::{powers_of_two, Grid};

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
            confirm_always: false,
            confirmation_folds: None,
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
        let (x, y) = (&data.x, &data.y);
        let path = |names: Vec<&'static str>, fit| {
            best_on_path(names, false, &search, x, y, 1, (fit, &|_| {}), None)
        };
        let sel = path(vec!["negated", "ones"], two).unwrap();
        assert_eq!(sel.chosen, "ones");
        assert_eq!(sel.fold_scores.len(), 3);
        let e = path(vec![], two);
        assert!(e.err().unwrap().to_string().contains("empty"));
        let short: &FoldFit = &|_, _, held| Ok(vec![vec![1.0; held.n_rows()]]);
        let e = path(vec!["a", "b"], short);
        let message = e.err().unwrap().to_string();
        assert!(
            message.contains("1 predictions for 2 candidates"),
            "{message}"
        );
    }

    /// With the fallback, MKL and localized methods run SVM-CV first and score their
    /// candidates at its C: a fitted model's C is SVM-CV's (kept or fallen back), and
    /// the progress events match `steps()` (SVM-CV's grid, then 2 candidates for MWUMKL,
    /// UNIFORM + 10 λ for EasyMKL, 1 for UNIFORM and the localized methods). Without it,
    /// C runs over the grid's Cs.
    #[test]
    fn mkl_and_localized_selections_use_svm_cv_c() {
        use crate::learner::Method;
        use crate::method::MethodKind;
        use crate::options::MethodOptions;
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
        let svm = Method::defaults(
            "svm".parse::<MethodKind>().unwrap(),
            &data,
            Some(settings.clone()),
            3,
        )
        .unwrap();
        let svm_c = svm.fit(&data.x, &data.y, 3, &|_| {}).unwrap().chosen.c;
        let grid_steps = settings.steps();
        for (kind, candidates) in [
            ("uniform".parse::<MethodKind>().unwrap(), 1),
            ("mwumkl".parse::<MethodKind>().unwrap(), 2),
            ("easymkl".parse::<MethodKind>().unwrap(), 11),
            ("ldmkl".parse::<MethodKind>().unwrap(), 1),
            ("lmkl".parse::<MethodKind>().unwrap(), 1),
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
            if kind != "easymkl".parse::<MethodKind>().unwrap() {
                assert_eq!(fit.chosen.c, svm_c, "{kind:?}");
            }
            let mut options = MethodOptions::default();
            options.seed = 3;
            options.set("no-fallback", "true").unwrap();
            let m = Method::build(kind, &options, &data, Some(settings.clone())).unwrap();
            let own = if kind == "easymkl".parse::<MethodKind>().unwrap() {
                10
            } else {
                3
            };
            assert_eq!(m.steps(), settings.candidate_steps(own), "{kind:?}");
        }
    }

    /// [`could_beat`]'s completion (every unscored fold at the best score) is the best
    /// one: whenever some full score vector passes [`beats`], each of its prefixes could
    /// still beat. Every vector on a grid of scores (k = 4, steps of ¼), random ones
    /// (k = 5) and ties broken on one fold only (`mean = SE` exactly, accuracies in
    /// 42nds: rounding settles [`beats`] there), for accuracy and MSE; and prefixes that
    /// cannot win are refused (hand-checked cases, and many proper prefixes).
    #[test]
    fn the_best_completion_bounds_every_completion() {
        use rand::{Rng, SeedableRng};
        let grid = [0.0, 0.25, 0.5, 0.75, 1.0];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut uniform = || rng.random::<f64>();
        let mut vectors: Vec<(Vec<f64>, Vec<f64>)> = Vec::new();
        for base in [[0.5, 0.75, 0.5, 0.25], [0.75; 4], [1.0, 0.5, 0.0, 0.25]] {
            for code in 0..625usize {
                let learned = (0..4).map(|i| grid[code / 5usize.pow(i) % 5]).collect();
                vectors.push((learned, base.to_vec()));
            }
        }
        for _ in 0..20_000 {
            let learned = (0..5).map(|_| uniform()).collect();
            let base = (0..5).map(|_| uniform()).collect();
            vectors.push((learned, base));
        }
        for (tie, win) in (0..42).flat_map(|t| (t + 1..=42).map(move |w| (t, w))) {
            for k in [3, 5, 10] {
                let (tie, win) = (tie as f64 / 42.0, win as f64 / 42.0);
                let mut learned = vec![tie; k];
                learned[k - 1] = win;
                vectors.push((learned, vec![tie; k]));
            }
        }
        let mut stopped = 0;
        for regression in [false, true] {
            for (learned, base) in &vectors {
                let passes = beats(learned, base, regression);
                for j in 0..=learned.len() {
                    let could = could_beat(&learned[..j], base, regression);
                    assert!(could || !passes, "{learned:?} vs {base:?}, prefix {j}");
                    stopped += usize::from(!could && j < learned.len());
                }
            }
        }
        assert!(
            stopped > 1000,
            "the race stopped only {stopped} proper prefixes"
        );
        let base = [0.95; 5];
        assert!(!could_beat(&[0.5], &base, false));
        assert!(could_beat(&[], &base, false));
        assert!(could_beat(&[0.9], &[0.5; 5], false));
        assert!(!could_beat(&[0.9, 0.9, 0.9], &[1.0; 5], false));
        assert!(!could_beat(&[0.3], &[0.1; 5], true), "MSE: 0.3 against 0.1");
    }

    /// A race stops at the first fold after which no candidate can beat the base, and
    /// reports the skipped fits' progress steps; it scores every fold while one still
    /// can — also when a candidate loses the first fold and wins the rest. The scores,
    /// the steps and the outcome are the same on 1, 2 and 8 threads (the waves differ).
    /// Real learners: the raced scores are the first folds of the full CV, whose
    /// candidates all fail [`beats`].
    #[test]
    fn a_race_stops_when_no_candidate_can_beat_the_base() {
        use std::sync::atomic::{AtomicU64, Ordering};
        let data = sandwich(90, 0.3, 4).unwrap();
        let (x, y) = (&data.x, &data.y);
        let search = GridSettings {
            grid: Grid::default(),
            folds: 3,
            gram_budget_bytes: 1 << 20,
            confirm_always: false,
            confirmation_folds: None,
        };
        let truth_of = |held: &Features, wrong: bool| -> Vec<f64> {
            (0..held.n_rows())
                .map(|r| {
                    let t = (0..y.len()).find(|&i| x.row(i) == held.row(r)).unwrap();
                    if wrong {
                        -y[t]
                    } else {
                        y[t]
                    }
                })
                .collect()
        };
        let first = crate::data::stratified_kfold(y, 3, 1).unwrap()[0][0];
        let in_first = |held: &Features| (0..held.n_rows()).any(|r| held.row(r) == x.row(first));
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let steps = AtomicU64::new(0);
                let count = |p: Progress| {
                    if matches!(p, Progress::Step) {
                        steps.fetch_add(1, Ordering::Relaxed);
                    }
                };
                // Each fold's path reports its 2 candidates' steps, as DANK's does.
                let losing: &FoldFit = &|_, _, held| {
                    (0..2).for_each(|_| count(Progress::Step));
                    Ok(vec![vec![0.0; held.n_rows()], vec![1.0; held.n_rows()]])
                };
                // Wrong on the first fold, right on the others.
                let late: &FoldFit = &|_, _, held| {
                    (0..2).for_each(|_| count(Progress::Step));
                    Ok(vec![truth_of(held, in_first(held)); 2])
                };
                let path = |fit, race: &[f64]| {
                    best_on_path(
                        vec!["a", "b"],
                        false,
                        &search,
                        x,
                        y,
                        1,
                        (fit, &count),
                        Some(race),
                    )
                    .unwrap()
                    .fold_scores
                };
                let stopped = path(losing, &[0.95; 3]);
                let all = path(late, &[0.3; 3]);
                let unraced = best_on_path(
                    vec!["a", "b"],
                    false,
                    &search,
                    x,
                    y,
                    1,
                    (late, &|_| {}),
                    None,
                )
                .unwrap()
                .fold_scores;
                (stopped, all, unraced, steps.into_inner())
            })
        };
        let one = run(1);
        assert_eq!(one.0.len(), 1);
        assert_eq!(
            one.1,
            vec![0.0, 1.0, 1.0],
            "every fold scored while a win was possible"
        );
        assert_eq!(one.1, one.2);
        assert_eq!(
            one.3, 18,
            "3 paths × 2 candidates × 3 folds, run or skipped"
        );
        assert_eq!(run(2), one);
        assert_eq!(run(8), one);

        let svm = |sigma: f64| SvmLearner {
            params: SvmParams {
                kernel: Kernel::rbf_sigma(sigma).unwrap(),
                c: 4.0,
                ..SvmParams::default()
            },
            search: None,
        };
        let search = GridSettings { folds: 5, ..search };
        let good = best_candidate(vec![svm(0.7)], &search, (x, y, None), 2, &|_| {}, None).unwrap();
        let useless = || vec![svm(700.0), svm(1000.0)];
        let full = best_candidate(useless(), &search, (x, y, None), 2, &|_| {}, None).unwrap();
        let race = Some(&good.fold_scores[..]);
        let raced = best_candidate(useless(), &search, (x, y, None), 2, &|_| {}, race).unwrap();
        assert!(raced.fold_scores.len() < 5, "{:?}", raced.fold_scores);
        assert!(full.fold_scores.starts_with(&raced.fold_scores));
        assert!(!beats(&full.fold_scores, &good.fold_scores, false));
    }
}
