//! The two selection shapes the learners share, written once:
//!
//! - SVM-CV first: the papers' SVM-CV / SVR-CV on the base kernel first (σ, C and ε by a
//!   k-fold grid search); the learner then copies the chosen values into its own
//!   parameters (KNPL, DANK, scalable DANK, the SVM itself).
//! - the best value / best candidate: fixed-parameter candidates of one learner (C over
//!   the grid's Cs, EasyMKL's λ, …) scored by k-fold CV ([`select_candidate`]); the best
//!   one is fitted.

use super::{GridSettings, Learner, Progress, ProgressFn};
use crate::data::Features;
use crate::estimator::{Estimator, Task};
use crate::select::Selection;
use crate::svm::SvmParams;
use crate::Result;
use std::time::Instant;

/// A selection's record and the seconds it took.
pub(crate) struct Selected<T> {
    /// What was chosen.
    pub(crate) chosen: T,
    /// Mean CV score of the chosen point (accuracy, or MSE for regression).
    pub(crate) score: f64,
    /// Seconds spent.
    pub(crate) seconds: f64,
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
        chosen: selection,
        seconds: start.elapsed().as_secs_f64(),
    })
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
    let (best, score) = select_candidate(&candidates, x, y, search.folds, seed, progress)?;
    Ok(Selected {
        chosen: candidates[best].clone(),
        score,
        seconds: start.elapsed().as_secs_f64(),
    })
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
    use crate::data::{complement, kfold, stratified_kfold};
    use rayon::prelude::*;
    let Some(first) = candidates.first() else {
        return Err(crate::Error::param(
            "grid",
            "is empty; give at least one value",
        ));
    };
    let regression = first.task() == Task::Regression;
    let folds = if regression {
        kfold(y.len(), folds, seed)?
    } else {
        stratified_kfold(y, folds, seed)?
    };
    let jobs: Vec<(usize, &Vec<usize>)> = (0..candidates.len())
        .flat_map(|c| folds.iter().map(move |f| (c, f)))
        .collect();
    let scores: Vec<f64> = jobs
        .par_iter()
        .map(|&(c, test)| {
            let train = complement(y.len(), test);
            let pick = |rows: &[usize]| rows.iter().map(|&i| y[i]).collect::<Vec<f64>>();
            let fitted = candidates[c].fit(&x.select_rows(&train), &pick(&train), seed, &|_| {})?;
            let pred = fitted.model.predict(&x.select_rows(test))?;
            progress(Progress::Step);
            if regression {
                crate::metrics::mse(&pred, &pick(test))
            } else {
                crate::metrics::accuracy(&pred, &pick(test))
            }
        })
        .collect::<Result<_>>()?;
    let means: Vec<f64> = scores
        .chunks(folds.len())
        .map(|s| s.iter().sum::<f64>() / s.len() as f64)
        .collect();
    let better = |a: f64, b: f64| if regression { a < b } else { a > b };
    let best = (1..means.len()).fold(0, |b, c| if better(means[c], means[b]) { c } else { b });
    Ok((best, means[best]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::synthetic::sandwich;
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
}
